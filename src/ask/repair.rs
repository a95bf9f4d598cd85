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

    /// Is `self` a better answer than `other`? Running beats failing; then fewer problems; then
    /// fewer violations (the checker chain reports one problem at a time but counts them all).
    pub fn better_than(&self, other: &Attempt) -> bool {
        let key = |a: &Attempt| (!a.fails, std::cmp::Reverse(a.problems.len()), std::cmp::Reverse(a.violated.len()));
        key(self) > key(other)
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

/// The directive of execution-guided refinement for a query whose result is empty.
pub const EMPTY_RESULT: &str = "the query returns no rows on the current data: a literal may not be written the way \
the data writes it (case, spelling, abbreviation, date format) or a join or filter may exclude every row; check the \
values and conditions against the data";

/// The stopping rule of empty-result refinement: one round, and its SQL replaces the current one
/// only if it returns rows, runs, and has no more problems. An empty result may be the true
/// answer, so a refinement that is empty too (or worse) leaves the current SQL in place.
pub fn accept_refinement(current: &Attempt, refined: &Attempt, refined_empty: bool) -> bool {
    !refined_empty && !refined.fails && refined.problems.len() <= current.problems.len()
        && normalise(&refined.sql) != normalise(&current.sql)
}

/// The query as the parser prints it (keywords, spacing and parentheses made uniform; literals
/// kept as written, so a fixed literal's case is a change); unparsable text with spacing collapsed.
pub(super) fn normalise(sql: &str) -> String {
    match crate::sql::check_query(sql) {
        Ok(checked) => checked.to_sql(),
        Err(_) => sql.split_whitespace().collect::<Vec<_>>().join(" "),
    }
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
    fn an_empty_result_is_refined_once_and_only_replaced_by_rows() {
        let current = attempt("SELECT id FROM t WHERE city = 'paris'", &[], false);
        assert!(accept_refinement(&current, &attempt("SELECT id FROM t WHERE city = 'Paris'", &[], false), false));
        assert!(!accept_refinement(&current, &attempt("SELECT id FROM t WHERE city ILIKE 'paris'", &[], false), true), "still empty");
        assert!(!accept_refinement(&current, &attempt("SELECT id FROM t WHERE town = 'Paris'", &[], true), false), "fails");
        assert!(!accept_refinement(&current, &attempt("SELECT id FROM t LIMIT 3", &["top_k"], false), false), "breaks a constraint");
        assert!(!accept_refinement(&current, &attempt("select id  from t where city = 'paris'", &[], false), false), "the same SQL");
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

/// Evidence for a repair beyond the bare error: the columns of the tables the SQL reads, and, for
/// a column that does not exist there, the visible tables that do have it with the foreign key
/// that joins them. Small models given only the error tend to return the same SQL.
pub fn schema_hints(sql: &str, catalog: &crate::catalog::Catalog, error: &str) -> Vec<String> {
    use sqlparser::ast::Visit;
    use std::ops::ControlFlow;

    let Ok(checked) = crate::sql::check_query(sql) else { return vec![] };
    let mut used: Vec<&crate::catalog::Table> = Vec::new();
    let _ = checked.query.visit(&mut RelationCollector(|name: &sqlparser::ast::ObjectName| {
        let parts: Vec<String> =
            name.0.iter().filter_map(|p| p.as_ident()).map(|i| i.value.to_lowercase()).collect();
        let (schema, table) = match parts.as_slice() {
            [t] => (None, t.as_str()),
            [s, t] => (Some(s.as_str()), t.as_str()),
            _ => return ControlFlow::<()>::Continue(()),
        };
        if let Some(t) = catalog.resolve(schema, table) {
            if !used.iter().any(|u| u.name == t.name) {
                used.push(t);
            }
        }
        ControlFlow::Continue(())
    }));
    let mut hints: Vec<String> = used
        .iter()
        .map(|t| {
            let cols: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
            format!("{} has the columns: {}", t.name.name, cols.join(", "))
        })
        .collect();
    // "column \"city\" does not exist" / "column o.city does not exist"
    let missing = error
        .split("column ")
        .nth(1)
        .and_then(|rest| rest.split(" does not exist").next())
        .map(|c| c.trim_matches('"').rsplit('.').next().unwrap_or("").trim_matches('"').to_lowercase());
    if let Some(col) = missing.filter(|c| !c.is_empty()) {
        for owner in catalog.tables.iter().filter(|t| t.column(&col).is_some() && !used.iter().any(|u| u.name == t.name)) {
            let mut hint = format!("column {col} is in table {}", owner.name.name);
            if let Some(fk) = used.iter().find_map(|u| catalog.keys_between(&u.name, &owner.name).next()) {
                hint.push_str(&format!(
                    "; join {}.{} = {}.{}",
                    fk.from.name,
                    fk.from_columns.join(","),
                    fk.to.name,
                    fk.to_columns.join(",")
                ));
            }
            hints.push(hint);
        }
    }
    hints
}

struct RelationCollector<F>(F);

impl<F: FnMut(&sqlparser::ast::ObjectName) -> std::ops::ControlFlow<()>> sqlparser::ast::Visitor for RelationCollector<F> {
    type Break = ();
    fn pre_visit_relation(&mut self, relation: &sqlparser::ast::ObjectName) -> std::ops::ControlFlow<()> {
        (self.0)(relation)
    }
}

#[cfg(test)]
mod hint_tests {
    use super::*;
    use crate::catalog::{Catalog, Column, ForeignKey, RelKind, RelName, Table};

    fn t(name: &str, cols: &[&str]) -> Table {
        Table {
            name: RelName::new("public", name),
            kind: RelKind::Table,
            comment: None,
            row_estimate: None,
            columns: cols.iter().map(|c| Column { name: c.to_string(), type_name: "text".into(), nullable: true, comment: None }).collect(),
            primary_key: vec![],
        }
    }

    #[test]
    fn a_missing_column_points_to_its_table_and_join() {
        let cat = Catalog {
            tables: vec![t("orders", &["order_id", "customer_id"]), t("customers", &["customer_id", "city"])],
            foreign_keys: vec![ForeignKey {
                name: "fk".into(),
                from: RelName::new("public", "orders"),
                from_columns: vec!["customer_id".into()],
                to: RelName::new("public", "customers"),
                to_columns: vec!["customer_id".into()],
            }],
            ..Default::default()
        };
        let hints = schema_hints("SELECT count(*) FROM orders WHERE city = 'Paris'", &cat, "column \"city\" does not exist");
        assert_eq!(
            hints,
            vec![
                "orders has the columns: order_id, customer_id".to_string(),
                "column city is in table customers; join orders.customer_id = customers.customer_id".to_string(),
            ]
        );
    }
}
