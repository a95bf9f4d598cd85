//! The SPI workspace of the separating-instance search: instance tables in `pg_temp`, inside an
//! internal subtransaction that is always rolled back.
//!
//! - Nothing survives the call: the temp tables, their rows and the role switch vanish with the
//!   rollback, whether the search ends, fails or is cancelled. Temp tables live in the backend's
//!   own temp schema, so concurrent callers never see each other's instances.
//! - Rows enter an instance only through `INSERT … SELECT * FROM <table> WHERE ctid = ANY(…)` run
//!   as the caller (or as `nl2sql.execution_role`): table and column privileges and row-level
//!   security apply, so an instance holds only rows the caller can SELECT. A caller with SELECT on
//!   some columns only gets no instance (the search says why): rows are read whole, by ctid.
//! - Instance tables copy their table's columns, primary key and unique indexes (so a query
//!   grouping by a primary key keeps its functional dependency), nothing else.
//! - In a read-only transaction (a hot standby) no temp table can be created: the instance is
//!   then the set of ctids chosen per table, and each run of a candidate reads it through a CTE
//!   named as the instance table, `SELECT * FROM <table> WHERE ctid = ANY(…)`, put first in the
//!   query's WITH. Same rows, same privileges; a query whose grouping needs the table's primary
//!   key (a functional dependency a CTE does not carry) fails on the instance, and the search
//!   says so.
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

/// A read of the real tables during the search, through the safe executor.
fn query_rows(sql: &str, max_rows: usize, opts: &ExecOptions) -> Result<Rows, String> {
    let opts = ExecOptions { max_rows, ..opts.clone() };
    pgrx::debug1!("nl2sql instance query: {sql}");
    match executor::run(sql, &opts) {
        Ok(o) => outcome_rows(o),
        Err(refusal) => Err(refusal.to_string()),
    }
}

impl Workspace for SpiWorkspace<'_> {
    fn query(&mut self, sql: &str, max_rows: usize) -> Result<Rows, String> {
        query_rows(sql, max_rows, &self.opts)
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

/// The workspace of a read-only transaction: the chosen ctids per table, read through CTEs.
pub struct ReadOnlyWorkspace<'a> {
    relations: &'a [RelName],
    sides: [nl2sql_core::sqlparser::ast::Query; 2],
    ctids: Vec<Vec<String>>,
    opts: ExecOptions,
}

impl Workspace for ReadOnlyWorkspace<'_> {
    fn query(&mut self, sql: &str, max_rows: usize) -> Result<Rows, String> {
        query_rows(sql, max_rows, &self.opts)
    }

    fn fill(&mut self, rel: usize, ctids: &[String]) -> Result<(), String> {
        self.ctids[rel] = ctids.to_vec();
        Ok(())
    }

    fn run(&mut self, side: usize) -> Result<Rows, String> {
        let ctes: Vec<(String, String)> = self
            .relations
            .iter()
            .zip(&self.ctids)
            .enumerate()
            .map(|(i, (rel, ctids))| {
                let tids: Vec<&str> = ctids.iter().map(String::as_str).collect();
                (instance_table(i), format!("SELECT * FROM {rel} WHERE ctid = ANY({})", tid_array(&tids)))
            })
            .collect();
        let sql = nl2sql_core::select::rewrite::with_ctes_first(&self.sides[side], &ctes)?.to_string();
        pgrx::debug1!("nl2sql instance run {side} (read-only): {sql}");
        outcome_rows(executor::run_checked(&sql, &self.opts))
    }
}

/// Rows are read whole, by ctid: that needs SELECT on the table, not on some of its columns.
/// `role`: the role the rows are read as (`nl2sql.execution_role`), else the current user.
fn check_whole_rows(relations: &[RelName], role: Option<&str>) -> Result<(), String> {
    for rel in relations {
        // a read-only SPI connection: a read-write one takes a transaction id (none on a standby)
        let whole = Spi::connect(|c| {
            c.select("SELECT pg_catalog.has_table_privilege(coalesce($2, current_user), $1, 'SELECT')", Some(1), &[rel.to_string().into(), role.into()])?
                .first()
                .get_one::<bool>()
        })
            .map_err(|e| format!("has_table_privilege({rel}): {e}"))?;
        if whole != Some(true) {
            return Err(format!("an instance is cut from whole rows of {rel}, and you may SELECT only some of its columns (a column-level grant)"));
        }
    }
    Ok(())
}

/// Call `f` with the workspace of this transaction: temp instance tables (see
/// [`with_instance_tables`]), or in a read-only transaction, CTEs over the chosen rows.
pub fn with_instance_space<R>(
    relations: &[RelName],
    sides: [String; 2],
    opts: &ExecOptions,
    f: impl FnOnce(&mut dyn Workspace) -> Result<R, String>,
) -> Result<R, String> {
    if !super::read_only_transaction() {
        return with_instance_tables(relations, sides, opts, |ws| f(ws));
    }
    check_whole_rows(relations, opts.role.as_deref())?;
    let parse = |sql: &str| match nl2sql_core::sql::check_query(sql) {
        Ok(c) => Ok(*c.query),
        Err(refusal) => Err(format!("a candidate redirected to its instance is refused: {refusal}")),
    };
    let [a, b] = sides;
    let mut ws = ReadOnlyWorkspace { relations, sides: [parse(&a)?, parse(&b)?], ctids: vec![Vec::new(); relations.len()], opts: opts.clone() };
    f(&mut ws)
}

/// Create the instance tables for `relations` and call `f` with a workspace over them, all in a
/// subtransaction that is rolled back afterwards, also when `f` or PostgreSQL raises.
fn with_instance_tables<R>(
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
        check_whole_rows(relations, opts.role.as_deref())?;
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
