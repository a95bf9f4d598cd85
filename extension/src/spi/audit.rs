//! The audit log: one row per run in `nl2sql.runs`, one per step in `nl2sql.steps`.
//!
//! Rows are written in the caller's transaction but outside the executor's subtransactions, so
//! the executor's rollbacks never undo them. Callers cannot write these tables themselves: the
//! writes run with the extension owner's privileges (as PostgreSQL does for its own internal
//! checks), and row-level security shows each user only their own runs. Inserts take no lock that
//! conflicts with another caller's inserts; run ids come from an identity sequence.

use std::time::Instant;

use pgrx::pg_sys;

use super::owner::{as_extension_owner, extension_owner};
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::Value;

/// An open run in the audit log.
#[derive(Debug)]
pub struct Run {
    pub id: i64,
    /// The extension owner, looked up once per run.
    owner: pg_sys::Oid,
    started: Instant,
    next_step: i32,
}

impl Run {
    pub fn elapsed_ms(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * 1000.0
    }
}

fn write_failed(e: impl std::fmt::Display) -> ! {
    crate::errors::raise(
        "55000",
        format!("could not write the nl2sql audit log: {e}"),
        Some("In a read-only transaction or on a standby, a superuser can turn the audit off with nl2sql.audit = off."),
    )
}

/// Open a run, or `None` when `nl2sql.audit` is off.
pub fn begin(function: &str, question: Option<&str>, evidence: Option<&str>, settings: Value) -> Option<Run> {
    if !crate::gucs::AUDIT.get() {
        return None;
    }
    let caller = unsafe { pg_sys::GetUserId() };
    let function = function.to_string();
    let question = question.map(str::to_string);
    let evidence = evidence.map(str::to_string);
    let owner = extension_owner();
    let id = as_extension_owner(owner, move || {
        Spi::get_one_with_args::<i64>(
            "INSERT INTO nl2sql.runs (who, function, question, evidence, settings)
             VALUES ((SELECT rolname FROM pg_catalog.pg_roles WHERE oid = $1), $2, $3, $4, $5)
             RETURNING run_id",
            &[caller.into(), function.into(), question.into(), evidence.into(), JsonB(settings).into()],
        )
    })
    .unwrap_or_else(|e| write_failed(e))
    .unwrap_or_else(|| write_failed("no run id"));
    Some(Run { id, owner, started: Instant::now(), next_step: 1 })
}

/// One step of a run, as written to `nl2sql.steps`.
#[derive(Debug, Clone, Default)]
pub struct Step {
    pub stage: String,
    pub status: String,
    pub detail: Option<String>,
    pub sql: Option<String>,
    pub input: Option<Value>,
    pub output: Option<Value>,
    pub elapsed_ms: f64,
}

/// Append a step; returns its number.
pub fn step(run: &mut Run, s: Step) -> i32 {
    let n = run.next_step;
    run.next_step += 1;
    let run_id = run.id;
    as_extension_owner(run.owner, move || {
        Spi::run_with_args(
            "INSERT INTO nl2sql.steps (run_id, step, stage, status, detail, sql, input, output, elapsed_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            &[
                run_id.into(),
                n.into(),
                s.stage.into(),
                s.status.into(),
                s.detail.into(),
                s.sql.into(),
                s.input.map(JsonB).into(),
                s.output.map(JsonB).into(),
                s.elapsed_ms.into(),
            ],
        )
    })
    .unwrap_or_else(|e| write_failed(e));
    n
}

/// The end of a run.
#[derive(Debug, Clone, Default)]
pub struct Finish {
    pub status: String,
    pub error: Option<String>,
    pub chosen_sql: Option<String>,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub llm_calls: i32,
}

pub fn finish(run: Run, f: Finish) {
    let elapsed = run.elapsed_ms();
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
                f.prompt_tokens.into(),
                f.completion_tokens.into(),
                f.llm_calls.into(),
                elapsed.into(),
            ],
        )
    })
    .unwrap_or_else(|e| write_failed(e));
}
