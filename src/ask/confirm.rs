//! The second reading (`confirm`): a verified answer that reads more than one table is read again
//! by a generator of other reasoning, and the two are compared by their rows on the data.
//!
//! The checks judge a query against the question's wording and the data, but a query that joins
//! the wrong way, or through the wrong table, passes them as easily as the right one. On 200
//! questions of 108 `spider_train` databases (0.4.0's raw results), verified answers that read
//! more than one table were right 78% of the time against 92% for one table; where a second
//! reading (the query-alone prompt) returned the same rows they were right 91% of the time, and
//! where it did not, 47%. So such an answer is `ok` only when a second reading agrees:
//! - the same rows: `ok`, the second reading named as the confirmation;
//! - other rows, and the second reading passes every check too: the run is `ambiguous`, both
//!   readings and the rows on which they differ in the explanation (the first stands);
//! - other rows, and the second reading has problems of its own or does not run: the answer
//!   stands but is `unverified`, with the disagreement as its open problem.
//!
//! An answer over one table, an answer with problems, and N-version runs (whose candidates are
//! already several readings) get no second reading. Nor does an answer that is already the second
//! reading's generator's (the fresh generation after a query repair could not make run): that
//! generator asked again is the same prompt, so the answer stays `unverified`.

use serde_json::json;
use sqlparser::ast::Query;

use super::pipeline::Ask;
use super::prompts;
use super::repair::Attempt;
use crate::effects::{Database, Model};
use crate::error::Result;
use crate::select::ambiguity::difference;
use crate::select::answer::{Answer, RowSemantics};
use crate::select::candidates::{run_candidate, Ran};
use crate::select::rewrite::base_relations;
use crate::sql::check_query;
use crate::trace::{Stage, Status};

/// Rows of each reading compared, at most; a larger result is not judged.
const COMPARED_ROWS: usize = 2_000;

/// Does a verified answer get a second reading? When it reads more than one table.
pub fn needs_second_reading(query: &Query) -> bool {
    base_relations(query).len() >= 2
}

/// What comparing the two readings' rows found.
#[derive(Debug, Clone, PartialEq)]
pub enum Comparison {
    /// The same rows (as bags; in order only when both order their output).
    Same,
    /// Other rows, in words.
    Differs(String),
    /// The second reading did not run, with its error.
    SecondFails(String),
    /// Not comparable: the first did not run here, or a result was too large to compare.
    NotJudged(String),
}

/// Compare the rows of the verified answer (`first`) and of the second reading.
pub fn compare(first: &Ran, second: &Ran) -> Comparison {
    let (Some(a), Some(q1)) = (&first.answer, &first.query) else {
        return Comparison::NotJudged(format!("the answer did not run here ({})", first.error.as_deref().unwrap_or("refused")));
    };
    let (Some(b), Some(q2)) = (&second.answer, &second.query) else {
        return Comparison::SecondFails(second.error.clone().unwrap_or_else(|| "refused".into()));
    };
    if first.truncated || second.truncated {
        return Comparison::NotJudged(format!("more than {COMPARED_ROWS} rows to compare"));
    }
    // order counts only when both readings order their output
    let ordered = q1.order_by.is_some() && q2.order_by.is_some();
    let (a, b) = if ordered { (a.clone(), b.clone()) } else { (unordered(a), unordered(b)) };
    if a == b {
        Comparison::Same
    } else {
        Comparison::Differs(difference(&a, &b, "the answer", "the second reading"))
    }
}

fn unordered(a: &Answer) -> Answer {
    let mut rows = a.rows.clone();
    rows.sort();
    Answer { rows, ordered: false }
}

impl<D: Database + ?Sized, M: Model + ?Sized> Ask<'_, '_, D, M> {
    /// The `confirm` stage on the verified answer `chosen` (see the module's doc). Returns the
    /// answer, with the disagreement as an open problem when the second reading has problems of
    /// its own; a clean second reading that differs becomes the run's other reading.
    pub(super) fn confirm(&mut self, mut chosen: Attempt) -> Result<Attempt> {
        if !self.opts.confirm || !chosen.is_clean() || self.alternative.is_some() {
            return Ok(chosen);
        }
        let Ok(checked) = check_query(&chosen.sql) else { return Ok(chosen) };
        if !needs_second_reading(&checked.query) {
            return Ok(chosen);
        }
        let g = self.opts.generators[0].other();
        if self.fresh == Some(g) {
            // the answer is already the other generator's reading (the first did not run, and
            // repair could not make it): asking that generator again is the same prompt, whose
            // answer would agree with itself, not confirm anything
            let detail = format!(
                "the answer is a fresh reading by {} after the first ({}) did not run, so no independent second reading is left to confirm it",
                g.name(),
                self.opts.generators[0].name()
            );
            chosen.problems.push(format!("it reads more than one table and {detail}"));
            self.trace.step(Stage::Confirm, Status::Unverified, detail, None, json!({"generator": g.name(), "comparison": "none"}))?;
            return Ok(chosen);
        }
        let (q, e) = (self.question.text, self.question.evidence);
        let messages = prompts::generate_with(g, &self.schema.text, q, e, &self.grounding, &self.constraints, &[]);
        let second_sql = match self.sql_answer(messages, Stage::Confirm, g.name(), g.schema(), None)? {
            Ok(s) => s,
            Err(e) => {
                let detail = format!("the second reading by {} gave no usable SQL ({e}); nothing to compare with", g.name());
                chosen.problems.push(format!("it reads more than one table and no second reading could confirm it: {detail}"));
                self.trace.step(Stage::Confirm, Status::Unverified, detail, None, json!({"generator": g.name()}))?;
                return Ok(chosen);
            }
        };
        // the second reading gets the mechanical fixes the first got (a column under the wrong
        // alias, a stray LIMIT): a reading is compared as the pipeline would have answered it
        let checked_second = self.verify(&second_sql);
        let (fixed, _) = self.fixes(checked_second)?;
        let (second_sql, second_attempt) = (fixed.sql.clone(), fixed);
        let first = run_candidate(self.db, &chosen.sql, RowSemantics::Bag, COMPARED_ROWS);
        let second = run_candidate(self.db, &second_sql, RowSemantics::Bag, COMPARED_ROWS);
        let comparison = compare(&first, &second);
        let data = |verdict: &str| json!({"generator": g.name(), "comparison": verdict, "first": first.record(1, None, None), "second": second.record(2, None, None)});
        match comparison {
            Comparison::Same => {
                let detail = format!("a second reading by {} returns the same rows", g.name());
                self.trace.step(Stage::Confirm, Status::Ok, detail, Some(second_sql), data("same"))?;
            }
            Comparison::NotJudged(why) => {
                let detail = format!("the second reading by {} was not compared: {why}", g.name());
                self.trace.step(Stage::Confirm, Status::Skipped, detail, Some(second_sql), data("not_judged"))?;
            }
            Comparison::Differs(words) => {
                let verified = second_attempt;
                if verified.is_clean() {
                    let why = format!("a second reading of the question (by {}) passes every check too but returns other rows: {words}", g.name());
                    self.trace.step(Stage::Confirm, Status::Ambiguous, why.clone(), Some(second_sql.clone()), data("differs"))?;
                    self.alternative = Some((second_sql, why));
                } else {
                    let why = format!(
                        "a second reading of the question (by {}) returns other rows ({words}); it has problems of its own ({}), so neither is confirmed",
                        g.name(),
                        verified.problems.join("; ")
                    );
                    self.trace.step(Stage::Confirm, Status::Unverified, why.clone(), Some(second_sql), data("differs"))?;
                    chosen.problems.push(why);
                }
            }
            Comparison::SecondFails(error) => {
                let why = format!("it reads more than one table and a second reading of the question (by {}) that could confirm it does not run ({error})", g.name());
                self.trace.step(Stage::Confirm, Status::Unverified, why.clone(), Some(second_sql), data("second_fails"))?;
                chosen.problems.push(why);
            }
        }
        Ok(chosen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::candidates::RunStatus;
    use serde_json::Value;

    fn ran(sql: &str, rows: Value) -> Ran {
        let rows: Vec<Vec<Value>> = serde_json::from_value(rows).unwrap();
        let query = check_query(sql).unwrap().query;
        Ran {
            status: RunStatus::Ok,
            error: None,
            answer: Some(Answer::new(&rows, query.order_by.is_some(), RowSemantics::Bag)),
            query: Some(query),
            columns: vec![],
            row_count: rows.len(),
            truncated: false,
            elapsed_ms: 0.0,
        }
    }

    #[test]
    fn answers_over_several_tables_get_a_second_reading() {
        let q = |s: &str| check_query(s).unwrap().query;
        assert!(needs_second_reading(&q("SELECT b.title FROM books AS b JOIN authors AS a ON a.id = b.author_id")));
        assert!(needs_second_reading(&q("SELECT title FROM books WHERE author_id IN (SELECT id FROM authors WHERE country = 'Peru')")));
        assert!(!needs_second_reading(&q("SELECT title FROM books WHERE price > 10")));
        // a self-join reads one table; a CTE is no table
        assert!(!needs_second_reading(&q("SELECT a.title FROM books AS a JOIN books AS b ON a.id = b.id")));
        assert!(!needs_second_reading(&q("WITH c AS (SELECT * FROM books) SELECT title FROM c")));
    }

    #[test]
    fn readings_compare_by_rows_in_order_only_when_both_order() {
        let a = ran("SELECT title, price FROM books ORDER BY price", json!([["Dune", 12], ["Emma", 9]]));
        let b = ran("SELECT price, title FROM books", json!([[9, "Emma"], [12, "Dune"]]));
        assert_eq!(compare(&a, &b), Comparison::Same);
        let c = ran("SELECT title, price FROM books ORDER BY title DESC", json!([["Emma", 9], ["Dune", 12]]));
        assert!(matches!(compare(&a, &c), Comparison::Differs(_)));
        let d = ran("SELECT title FROM books", json!([["Dune"]]));
        let e = ran("SELECT title FROM books", json!([["Dune"], ["Emma"]]));
        match compare(&d, &e) {
            Comparison::Differs(words) => assert_eq!(words, "on the data, only the answer returns no row; only the second reading returns ('Emma')"),
            other => panic!("{other:?}"),
        }
        // duplicates count
        let f = ran("SELECT title FROM books", json!([["Dune"], ["Dune"]]));
        assert!(matches!(compare(&d, &f), Comparison::Differs(_)));
        // a second reading that does not run, and a result too large to compare
        let failed = Ran { error: Some("column \"x\" does not exist (SQLSTATE 42703)".into()), ..Ran::refused("") };
        assert!(matches!(compare(&d, &failed), Comparison::SecondFails(e) if e.contains("42703")));
        let big = Ran { truncated: true, ..e.clone() };
        assert!(matches!(compare(&d, &big), Comparison::NotJudged(_)));
    }
}
