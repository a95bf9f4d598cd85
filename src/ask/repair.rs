//! The repair loop's decisions: when to stop, and which SQL to keep.

use serde::Serialize;

/// One candidate SQL and what verification found wrong with it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attempt {
    pub sql: String,
    /// Names of the question's constraints the SQL violates.
    pub violated: Vec<String>,
    /// Every problem, as a directive: violated constraints, plan and execution errors.
    pub problems: Vec<String>,
    /// The SQL failed to plan or run (worse than any constraint violation).
    pub fails: bool,
}

impl Attempt {
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }

    /// Is `self` a better answer than `other`? Running beats failing; then fewer problems.
    pub fn better_than(&self, other: &Attempt) -> bool {
        (!self.fails, std::cmp::Reverse(self.problems.len())) > (!other.fails, std::cmp::Reverse(other.problems.len()))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Judgement {
    /// Verified: no problems left.
    Clean,
    /// The model returned the same SQL: it is stuck.
    Unchanged,
    /// The repair broke a constraint that held before: keep the better of the two and stop.
    Regressed,
    /// Not clean yet, but no worse: repair again if the budget allows.
    Continue,
}

/// Judge a repair `next` of `previous`.
pub fn judge(previous: &Attempt, next: &Attempt) -> Judgement {
    if next.is_clean() {
        Judgement::Clean
    } else if normalise(&next.sql) == normalise(&previous.sql) {
        Judgement::Unchanged
    } else if next.violated.iter().any(|v| !previous.violated.contains(v)) || (next.fails && !previous.fails) {
        Judgement::Regressed
    } else {
        Judgement::Continue
    }
}

fn normalise(sql: &str) -> String {
    sql.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(sql: &str, violated: &[&str], fails: bool) -> Attempt {
        let mut problems: Vec<String> = violated.iter().map(|v| v.to_string()).collect();
        if fails {
            problems.push("execution error".into());
        }
        Attempt { sql: sql.into(), violated: violated.iter().map(|v| v.to_string()).collect(), problems, fails }
    }

    #[test]
    fn judges_repairs() {
        let bad = attempt("SELECT a FROM t", &["count"], false);
        assert_eq!(judge(&bad, &attempt("select a  from t", &["count"], false)), Judgement::Unchanged);
        assert_eq!(judge(&bad, &attempt("SELECT count(*) FROM t", &[], false)), Judgement::Clean);
        assert_eq!(judge(&bad, &attempt("SELECT count(*) FROM t LIMIT 2", &["top_k"], false)), Judgement::Regressed);
        assert_eq!(judge(&bad, &attempt("SELECT count(x) FROM t", &["count"], true)), Judgement::Regressed);
        assert_eq!(judge(&bad, &attempt("SELECT b FROM t", &["count"], false)), Judgement::Continue);
    }

    #[test]
    fn running_beats_failing_then_fewer_problems() {
        let runs_with_two = attempt("a", &["x", "y"], false);
        let fails_with_none = attempt("b", &[], true);
        let runs_with_one = attempt("c", &["x"], false);
        assert!(runs_with_two.better_than(&fails_with_none));
        assert!(runs_with_one.better_than(&runs_with_two));
        assert!(!runs_with_two.better_than(&runs_with_two));
    }
}
