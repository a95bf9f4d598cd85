//! nl2sql's learned state: the experts' weights and the feedback rounds (`nl2sql.experts`,
//! `nl2sql.feedback`; the verified examples are in [`super::taught`]), written with the extension owner's
//! privileges; and what a run recorded of its candidates, read back as the caller.

use nl2sql_core::error::{Error, Kind, Result};
use pgrx::pg_sys;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::Value;

use super::owner::as_extension_owner;

/// An SPI failure on nl2sql's own tables, as an error that says what could not be done.
pub(super) fn failed(what: &str) -> impl Fn(pgrx::spi::Error) -> Error + '_ {
    move |e| Error::new(Kind::ObjectState, format!("could not {what}: {e}"))
}

/// Whether the caller may give feedback (UPDATE on nl2sql.experts).
pub fn may_give_feedback() -> Result<bool> {
    Spi::connect(|c| c.select("SELECT pg_catalog.has_table_privilege('nl2sql.experts', 'UPDATE')", None, &[])?.first().get_one::<bool>())
        .map(|b| b.unwrap_or(false))
        .map_err(failed("check the privilege"))
}

/// What a run recorded: its function, question and chosen SQL, and (sql, expert) of each candidate.
pub struct RunRecord {
    pub function: String,
    pub question: Option<String>,
    pub chosen_sql: Option<String>,
    pub candidates: Vec<(String, Option<String>)>,
}

/// A run the caller can see (row-level security: their own, or all for pg_read_all_data).
pub fn load_run(run_id: i64) -> Result<RunRecord> {
    let missing = || Error::new(Kind::UndefinedObject, format!("no run {run_id} that you can see")).with_hint("Feedback is given on your own runs (nl2sql.runs).");
    let (function, question, chosen_sql, output) = Spi::connect(|c| {
        let run = c.select("SELECT function, question, chosen_sql FROM nl2sql.runs WHERE run_id = $1", None, &[run_id.into()])?;
        let mut found = None;
        for r in run {
            found = Some((r.get::<String>(1)?, r.get::<String>(2)?, r.get::<String>(3)?));
        }
        // nl2sql_select's execute step and nl2sql's candidates step both list {"candidates": [...]}
        let step = c.select(
            "SELECT output FROM nl2sql.steps WHERE run_id = $1 AND stage IN ('execute', 'candidates') ORDER BY step LIMIT 1",
            None,
            &[run_id.into()],
        )?;
        let mut output = Value::Null;
        for r in step {
            output = r.get::<JsonB>(1)?.map(|j| j.0).unwrap_or(Value::Null);
        }
        Ok::<_, pgrx::spi::Error>(found.map(|(f, q, c)| (f, q, c, output)))
    })
    .map_err(failed("read the run"))?
    .and_then(|(f, q, c, o)| Some((f?, q, c, o)))
    .ok_or_else(missing)?;
    let candidates = output["candidates"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| Some((c["sql"].as_str()?.to_string(), c["expert"].as_str().map(str::to_string))))
        .collect();
    Ok(RunRecord { function, question, chosen_sql, candidates })
}

/// How many feedback rounds were given so far.
pub fn feedback_rounds(owner: pg_sys::Oid) -> Result<i64> {
    as_extension_owner(owner, || Spi::connect(|c| c.select("SELECT count(*) FROM nl2sql.feedback", None, &[])?.first().get_one::<i64>()))
        .map(|n| n.unwrap_or(0))
        .map_err(failed("read nl2sql.feedback"))
}

/// Store the weights of the judged experts after one round.
pub fn save_weights(owner: pg_sys::Oid, judged: Vec<(String, f64, bool)>) -> Result<()> {
    as_extension_owner(owner, move || {
        for (expert, weight, missed) in judged {
            Spi::run_with_args(
                "INSERT INTO nl2sql.experts AS x (expert, weight, rounds, mistakes, updated_at) VALUES ($1, $2, 1, $3, now())
                 ON CONFLICT (expert) DO UPDATE SET weight = EXCLUDED.weight, rounds = x.rounds + 1,
                        mistakes = x.mistakes + EXCLUDED.mistakes, updated_at = now()",
                &[expert.into(), weight.into(), (missed as i32).into()],
            )?;
        }
        Ok::<(), pgrx::spi::Error>(())
    })
    .map_err(failed("update nl2sql.experts"))
}

/// One feedback round, as given.
pub struct Round {
    pub run_id: i64,
    pub who: String,
    pub verdict: String,
    pub correct_sql: Option<String>,
    pub mistaken: Vec<String>,
    pub epsilon: f64,
}

pub fn record_round(owner: pg_sys::Oid, r: Round) -> Result<()> {
    as_extension_owner(owner, move || {
        Spi::run_with_args(
            "INSERT INTO nl2sql.feedback (run_id, who, verdict, correct_sql, mistaken, epsilon) VALUES ($1, $2, $3, $4, $5, $6)",
            &[r.run_id.into(), r.who.into(), r.verdict.into(), r.correct_sql.into(), r.mistaken.into(), r.epsilon.into()],
        )
    })
    .map_err(failed("record the feedback"))
}

/// The current user's name.
pub fn current_user() -> Result<String> {
    Spi::connect(|c| c.select("SELECT current_user::text", None, &[])?.first().get_one::<String>())
        .map(|u| u.unwrap_or_default())
        .map_err(failed("read current_user"))
}
