//! A candidate after its run on the full database: checked, run through the safe executor, its
//! rows in normal form.

use serde::Serialize;
use serde_json::{json, Value};
use sqlparser::ast::Query;

use super::answer::{Answer, RowSemantics};
use crate::effects::Executor;
use crate::result::Outcome;
use crate::sql::check_query;

/// How a candidate's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Ok,
    /// It ran and failed.
    Error,
    /// The gate refused it (not one read-only query), or it is NULL.
    Refused,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Ok => "ok",
            RunStatus::Error => "error",
            RunStatus::Refused => "refused",
        }
    }
}

/// A candidate after its run.
#[derive(Debug, Clone)]
pub struct Ran {
    pub status: RunStatus,
    pub error: Option<String>,
    pub query: Option<Box<Query>>,
    /// Its rows in normal form, when it ran.
    pub answer: Option<Answer>,
    /// Output column names.
    pub columns: Vec<String>,
    pub row_count: usize,
    pub truncated: bool,
    pub elapsed_ms: f64,
}

impl Ran {
    /// A candidate that could not run at all.
    pub fn refused(error: impl Into<String>) -> Ran {
        Ran {
            status: RunStatus::Refused,
            error: Some(error.into()),
            query: None,
            answer: None,
            columns: vec![],
            row_count: 0,
            truncated: false,
            elapsed_ms: 0.0,
        }
    }

    /// What the audit log keeps of a run (with the candidate's SQL and expert).
    pub fn record(&self, number: usize, sql: Option<&str>, expert: Option<&str>) -> Value {
        json!({"candidate": number, "sql": sql, "expert": expert, "status": self.status, "error": self.error,
               "row_count": self.row_count, "truncated": self.truncated, "elapsed_ms": self.elapsed_ms})
    }
}

/// Whether a query orders its output (then row order counts between two ordered answers).
pub fn orders_output(q: &Query) -> bool {
    q.order_by.is_some()
}

/// Check `sql` and run it through the executor, at most `max_rows` rows.
pub fn run_candidate<E: Executor + ?Sized>(db: &mut E, sql: &str, compare: RowSemantics, max_rows: usize) -> Ran {
    let checked = match check_query(sql) {
        Ok(c) => c,
        Err(r) => return Ran::refused(format!("{r} (SQLSTATE {})", r.sqlstate())),
    };
    match db.run(&checked.to_sql(), max_rows) {
        Err(r) => Ran::refused(format!("{r} (SQLSTATE {})", r.sqlstate())),
        Ok(Outcome::Rows(r)) => Ran {
            status: RunStatus::Ok,
            error: None,
            answer: Some(Answer::new(&r.rows, orders_output(&checked.query), compare)),
            query: Some(checked.query),
            columns: r.columns.iter().map(|c| c.name.clone()).collect(),
            row_count: r.rows.len(),
            truncated: r.truncated.is_some(),
            elapsed_ms: r.elapsed_ms,
        },
        Ok(Outcome::Failed(f)) => Ran {
            status: RunStatus::Error,
            error: Some(format!("{} (SQLSTATE {})", f.message, f.sqlstate)),
            query: Some(checked.query),
            answer: None,
            columns: vec![],
            row_count: 0,
            truncated: false,
            elapsed_ms: f.elapsed_ms,
        },
    }
}
