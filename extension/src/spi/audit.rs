//! The audit log: one row per run in `nl2sql.runs`, one per step in `nl2sql.steps`, written as
//! the steps happen. [`Audit`] is the recorder the decision code writes its steps to: each step
//! becomes a NOTICE (for a psql user watching) and an audit row.
//!
//! Rows are written in the caller's transaction but outside the executor's subtransactions, so
//! the executor's rollbacks never undo them. Callers cannot write these tables themselves: the
//! writes run with the extension owner's privileges (as PostgreSQL does for its own internal
//! checks), and row-level security shows each user only their own runs. Inserts take no lock that
//! conflicts with another caller's inserts; run ids come from an identity sequence.

use nl2sql_core::error::{Error, Kind, Result};
use nl2sql_core::llm::Usage;
use nl2sql_core::trace::{Recorder, Step};
use pgrx::pg_sys;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::Value;

use super::owner::{as_extension_owner, extension_owner};

fn write_failed(e: impl std::fmt::Display) -> Error {
    Error::new(Kind::ObjectState, format!("could not write the nl2sql audit log: {e}"))
        .with_hint("In a read-only transaction or on a standby, a superuser can turn the audit off with nl2sql.audit = off.")
}

/// An open run in the audit log.
#[derive(Debug)]
struct Run {
    id: i64,
    /// The extension owner, looked up once per run.
    owner: pg_sys::Oid,
    started: std::time::Instant,
}

/// The recorder of one call: NOTICEs always, audit rows unless `nl2sql.audit` is off.
pub struct Audit {
    /// The function whose steps these are, for the NOTICEs.
    function: &'static str,
    run: Option<Run>,
    steps: i32,
}

/// How a run ended.
#[derive(Debug, Clone, Default)]
pub struct Finish {
    pub status: String,
    pub error: Option<String>,
    pub chosen_sql: Option<String>,
    pub usage: Usage,
    pub llm_calls: u32,
}

impl Audit {
    /// Open a run (when `nl2sql.audit` is on).
    pub fn begin(function: &'static str, question: Option<&str>, evidence: Option<&str>, settings: Value) -> Result<Audit> {
        if !crate::settings::AUDIT.get() {
            return Ok(Audit { function, run: None, steps: 0 });
        }
        let caller = unsafe { pg_sys::GetUserId() };
        let owner = extension_owner()?;
        let (name, question, evidence) = (function.to_string(), question.map(str::to_string), evidence.map(str::to_string));
        let id = as_extension_owner(owner, move || {
            Spi::get_one_with_args::<i64>(
                "INSERT INTO nl2sql.runs (who, function, question, evidence, settings)
                 VALUES ((SELECT rolname FROM pg_catalog.pg_roles WHERE oid = $1), $2, $3, $4, $5)
                 RETURNING run_id",
                &[caller.into(), name.into(), question.into(), evidence.into(), JsonB(settings).into()],
            )
        })
        .map_err(write_failed)?
        .ok_or_else(|| write_failed("no run id"))?;
        Ok(Audit { function, run: Some(Run { id, owner, started: std::time::Instant::now() }), steps: 0 })
    }

    /// The run's id, when audited.
    pub fn run_id(&self) -> Option<i64> {
        self.run.as_ref().map(|r| r.id)
    }

    /// Close the run.
    pub fn finish(self, f: Finish) -> Result<()> {
        let Some(run) = self.run else { return Ok(()) };
        let elapsed = run.started.elapsed().as_secs_f64() * 1000.0;
        let run_id = run.id;
        as_extension_owner(run.owner, move || {
            Spi::run_with_args(
                "UPDATE nl2sql.runs SET finished_at = clock_timestamp(), status = $2, error = $3,
                        chosen_sql = $4, prompt_tokens = $5, completion_tokens = $6, llm_calls = $7,
                        elapsed_ms = $8
                 WHERE run_id = $1",
                &[
                    run_id.into(),
                    f.status.into(),
                    f.error.into(),
                    f.chosen_sql.into(),
                    (f.usage.prompt_tokens as i64).into(),
                    (f.usage.completion_tokens as i64).into(),
                    (f.llm_calls as i32).into(),
                    elapsed.into(),
                ],
            )
        })
        .map_err(write_failed)
    }
}

impl Recorder for Audit {
    fn record(&mut self, s: &Step) -> Result<i32> {
        pgrx::notice!("{} {}: {}", self.function, s.stage.as_str(), s.detail);
        self.steps += 1;
        let Some(run) = &self.run else { return Ok(self.steps) };
        let (run_id, n) = (run.id, self.steps);
        let (stage, status, detail, sql, data) = (s.stage.as_str(), s.status.as_str(), s.detail.clone(), s.sql.clone(), s.data.clone());
        let elapsed_ms = s.elapsed_ms;
        as_extension_owner(run.owner, move || {
            Spi::run_with_args(
                "INSERT INTO nl2sql.steps (run_id, step, stage, status, detail, sql, output, elapsed_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                &[run_id.into(), n.into(), stage.into(), status.into(), detail.into(), sql.into(), JsonB(data).into(), elapsed_ms.into()],
            )
        })
        .map_err(write_failed)?;
        Ok(n)
    }
}

/// One row of an explanation, as read back from the audit log.
pub struct LoggedStep {
    pub step: i32,
    pub stage: String,
    pub status: String,
    pub detail: String,
    pub sql: Option<String>,
    pub data: Value,
}

/// The steps of a past run (row-level security: the caller's own runs only).
pub fn steps_of(run_id: i64) -> Result<Vec<LoggedStep>> {
    let rows = Spi::connect(|client| {
        let table = client.select(
            "SELECT step, stage, status, coalesce(detail, ''), sql, output FROM nl2sql.steps WHERE run_id = $1 ORDER BY step",
            None,
            &[run_id.into()],
        )?;
        let mut out = Vec::new();
        for row in table {
            out.push(LoggedStep {
                step: row.get::<i32>(1)?.unwrap_or(0),
                stage: row.get::<String>(2)?.unwrap_or_default(),
                status: row.get::<String>(3)?.unwrap_or_default(),
                detail: row.get::<String>(4)?.unwrap_or_default(),
                sql: row.get::<String>(5)?,
                data: row.get::<JsonB>(6)?.map(|j| j.0).unwrap_or(Value::Null),
            });
        }
        Ok::<_, pgrx::spi::Error>(out)
    })
    .map_err(|e| Error::internal(format!("reading the audit log failed: {e}")))?;
    if rows.is_empty() {
        return Err(Error::new(Kind::UndefinedObject, format!("no run {run_id} in the audit log that you may see"))
            .with_hint("Runs are visible to the user who made them (and to superusers and pg_read_all_data members)."));
    }
    Ok(rows)
}
