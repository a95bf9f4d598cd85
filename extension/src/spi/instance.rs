//! The SPI workspace of the separating-instance search: instance tables in `pg_temp`, inside an
//! internal subtransaction that is always rolled back.
//!
//! - Nothing survives the call: the temp tables, their rows and the role switch vanish with the
//!   rollback, whether the search ends, fails or is cancelled. Temp tables live in the backend's
//!   own temp schema, so concurrent callers never see each other's instances.
//! - Rows enter an instance only through `INSERT … SELECT * FROM <table> WHERE ctid = ANY(…)` run
//!   as the caller (or as `nl2sql.execution_role`): table and column privileges and row-level
//!   security apply, so an instance holds only rows the caller can SELECT.
//! - Instance tables copy their table's columns, primary key and unique indexes (so a query
//!   grouping by a primary key keeps its functional dependency), nothing else.
//! - Every read of the real tables and every run of a candidate goes through the safe executor
//!   (read-only, bounded in time and rows).

use nl2sql_core::catalog::RelName;
use nl2sql_core::result::Outcome;
use nl2sql_core::select::separate::{tid_array, Rows, Workspace};
use pgrx::pg_sys::{self, PgTryBuilder};
use pgrx::prelude::*;

use super::executor::{self, ExecOptions};

/// The name of instance table `i` in `pg_temp`.
pub fn instance_table(i: usize) -> String {
    format!("__nl2sql_instance_{i}")
}

pub struct SpiWorkspace<'a> {
    relations: &'a [RelName],
    /// The two candidates, redirected to the instance tables.
    sides: [String; 2],
    opts: ExecOptions,
}

fn outcome_rows(o: Outcome) -> Result<Rows, String> {
    match o {
        Outcome::Rows(r) => Ok(r.rows),
        Outcome::Failed(f) => Err(format!("{} (SQLSTATE {})", f.message, f.sqlstate)),
    }
}

impl Workspace for SpiWorkspace<'_> {
    fn query(&mut self, sql: &str, max_rows: usize) -> Result<Rows, String> {
        let opts = ExecOptions { max_rows, ..self.opts.clone() };
        pgrx::debug1!("nl2sql instance query: {sql}");
        match executor::run(sql, &opts) {
            Ok(o) => outcome_rows(o),
            Err(refusal) => Err(refusal.to_string()),
        }
    }

    fn fill(&mut self, rel: usize, ctids: &[String]) -> Result<(), String> {
        let table = instance_table(rel);
        pgrx::debug1!("nl2sql instance fill {table}: {} rows", ctids.len());
        Spi::run(&format!("DELETE FROM pg_temp.{table}")).map_err(|e| e.to_string())?;
        if ctids.is_empty() {
            return Ok(());
        }
        let tids: Vec<&str> = ctids.iter().map(String::as_str).collect();
        Spi::run(&format!("INSERT INTO pg_temp.{table} SELECT * FROM {} WHERE ctid = ANY({})", self.relations[rel], tid_array(&tids)))
        .map_err(|e| e.to_string())
    }

    fn run(&mut self, side: usize) -> Result<Rows, String> {
        // The executor reads with the active snapshot, taken when the caller's statement began:
        // make the instance rows written since then visible (same data snapshot, newer command id).
        // The snapshot is popped here, or by the subtransaction's abort if a cancel propagates.
        unsafe {
            pg_sys::CommandCounterIncrement();
            pg_sys::PushCopiedSnapshot(pg_sys::GetActiveSnapshot());
            pg_sys::UpdateActiveSnapshotCommandId();
        }
        let rows = outcome_rows(executor::run_checked(&self.sides[side], &self.opts));
        unsafe { pg_sys::PopActiveSnapshot() };
        pgrx::debug1!("nl2sql instance run {side}: {} -> {:?}", self.sides[side], rows);
        rows
    }
}

/// Create the instance tables for `relations` and call `f` with a workspace over them, all in a
/// subtransaction that is rolled back afterwards, also when `f` or PostgreSQL raises.
pub fn with_instance_space<R>(
    relations: &[RelName],
    sides: [String; 2],
    opts: &ExecOptions,
    f: impl FnOnce(&mut SpiWorkspace) -> Result<R, String>,
) -> Result<R, String> {
    let sub = super::subtransaction::RolledBack::begin();
    let mut ws = SpiWorkspace { relations, sides, opts: opts.clone() };
    let result = PgTryBuilder::new(std::panic::AssertUnwindSafe(|| {
        if let Some(role) = opts.role.as_deref() {
            Spi::get_one_with_args::<String>("SELECT pg_catalog.set_config('role', $1, true)", &[role.into()])
                .map_err(|e| format!("set_config(role): {e}"))?;
        }
        for (i, rel) in relations.iter().enumerate() {
            Spi::run(&format!("CREATE TEMP TABLE {} (LIKE {rel} INCLUDING INDEXES)", instance_table(i)))
                .map_err(|e| format!("could not create an instance table for {rel}: {e}"))?;
        }
        f(&mut ws)
    }))
    .catch_others(|caught| {
        sub.rollback();
        caught.rethrow()
    })
    .execute();
    sub.rollback();
    result
}
