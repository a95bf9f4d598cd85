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
use crate::settings::AuditReadOnly;

fn write_failed(e: impl std::fmt::Display) -> Error {
    Error::new(Kind::ObjectState, format!("could not write the nl2sql audit log: {e}"))
        .with_hint("A superuser can turn the audit off with nl2sql.audit = off.")
}

/// An open run in the audit log.
#[derive(Debug)]
struct Run {
    id: i64,
    /// The extension owner, looked up once per run.
    owner: pg_sys::Oid,
    started: std::time::Instant,
}

/// The recorder of one call: NOTICEs always, audit rows unless `nl2sql.audit` is off; in a
/// read-only transaction (a hot standby), server-log lines instead (`nl2sql.audit_read_only`).
pub struct Audit {
    /// The function whose steps these are, for the NOTICEs.
    function: &'static str,
    run: Option<Run>,
    /// Audited in the server log: the run's tag there (backend pid and start time).
    logged: Option<String>,
    steps: i32,
}

/// A run's name in the server log: backend pid, backend start (Unix seconds), and a counter.
fn log_tag() -> String {
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    let (pid, started) = unsafe { (pg_sys::MyProcPid, pg_sys::MyStartTime) };
    format!("{pid}-{started}-{n}")
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
            return Ok(Audit { function, run: None, logged: None, steps: 0 });
        }
        let caller = unsafe { pg_sys::GetUserId() };
        if super::read_only_transaction() {
            return match crate::settings::AUDIT_READ_ONLY.get() {
                AuditReadOnly::Error => Err(Error::new(Kind::ReadOnly, format!("{function} cannot write its audit row in a read-only transaction"))
                    .with_hint("Run it on the primary, or a superuser sets nl2sql.audit_read_only = log to audit runs in the server log.")),
                AuditReadOnly::Log => {
                    let tag = log_tag();
                    // a read-only SPI connection: a read-write one would take a transaction id,
                    // which a standby cannot give
                    let who = Spi::connect(|c| {
                        c.select("SELECT rolname::text FROM pg_catalog.pg_roles WHERE oid = $1", Some(1), &[caller.into()])?.first().get_one::<String>()
                    })
                    .map_err(write_failed)?
                    .unwrap_or_default();
                    pgrx::notice!("{function}: the transaction is read-only (a hot standby?): this run is audited in the server log (lines \"nl2sql run <pid>-<start>-<n>\"), not in nl2sql.runs");
                    pgrx::log!(
                        "nl2sql run {tag}: {}",
                        serde_json::json!({"who": who, "function": function, "question": question, "evidence": evidence, "settings": settings})
                    );
                    Ok(Audit { function, run: None, logged: Some(tag), steps: 0 })
                }
            };
        }
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
        Ok(Audit { function, run: Some(Run { id, owner, started: std::time::Instant::now() }), logged: None, steps: 0 })
    }

    /// Where the run is audited, for the closing NOTICE of a run without an id.
    pub fn elsewhere(&self) -> &'static str {
        if self.logged.is_some() { "audited in the server log" } else { "audit is off" }
    }

    /// The run's id, when audited.
    pub fn run_id(&self) -> Option<i64> {
        self.run.as_ref().map(|r| r.id)
    }

    /// Close the run.
    pub fn finish(self, f: Finish) -> Result<()> {
        if let Some(tag) = &self.logged {
            pgrx::log!(
                "nl2sql run {tag} finished: {}",
                serde_json::json!({"status": f.status, "error": f.error, "chosen_sql": f.chosen_sql, "prompt_tokens": f.usage.prompt_tokens,
                    "completion_tokens": f.usage.completion_tokens, "llm_calls": f.llm_calls})
            );
        }
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
        if let Some(tag) = &self.logged {
            pgrx::log!(
                "nl2sql run {tag} step {}: {}",
                self.steps,
                step_json(s)
            );
        }
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

/// One step as the server log holds it (a run audited there, or one whose rows an error undid).
fn step_json(s: &Step) -> Value {
    serde_json::json!({"stage": s.stage.as_str(), "status": s.status.as_str(), "detail": s.detail, "sql": s.sql, "output": s.data, "elapsed_ms": s.elapsed_ms})
}

/// A run whose audit rows the call's own error is about to undo (`nl2sql_execute` raising for a
/// run without an answer): the whole run, every step with its data, goes to the server log, so
/// the DBA still has what the rolled-back rows held.
pub fn log_undone(run_id: Option<i64>, function: &str, question: &str, status: &str, steps: &[Step]) {
    let steps: Vec<Value> = steps
        .iter()
        .map(|s| {
            let mut step = step_json(s);
            step["step"] = s.number.into();
            step
        })
        .collect();
    let run = run_id.map_or_else(|| "(no audit row)".to_string(), |id| id.to_string());
    pgrx::log!(
        "nl2sql run {run} of {function} ends {status} and its error undoes the run's audit rows; the run: {}",
        serde_json::json!({"question": question, "status": status, "steps": steps})
    );
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
