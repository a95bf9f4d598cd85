//! The safe executor: the only way generated SQL ever runs.
//!
//! 1. The text must pass [`nl2sql_core::sql::check_query`] (exactly one read-only query); what
//!    runs is the checked AST printed back, so the engine runs exactly what was checked.
//! 2. It runs inside an internal subtransaction that is **always rolled back**, with
//!    `transaction_read_only` on (so the engine refuses any write, whatever a function does),
//!    optionally as `nl2sql.execution_role`, with `DateStyle = ISO` for stable value text.
//! 3. A backend timer of our own bounds its time; rows come through a cursor, so at most
//!    `max_rows + 1` rows are ever fetched, and a byte budget bounds their size.
//! 4. Errors are caught and returned as values; the caller's transaction stays usable. A query
//!    cancel from the user (Ctrl-C, `pg_cancel_backend`) or the caller's own `statement_timeout`
//!    is *not* swallowed: after the rollback it propagates as the error it is.

use std::ffi::CStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use nl2sql_core::result::{
    cell_to_json, ColumnInfo, ExecFailure, Outcome, ResultBudget, ResultBuilder, TypeClass,
};
use nl2sql_core::sql::{check_query, Refusal};
use pgrx::pg_sys::panic::CaughtError;
use pgrx::pg_sys::{self, PgTryBuilder};
use pgrx::prelude::*;
use serde_json::Value;

use crate::error::sqlstate_text;

/// How to run one query.
#[derive(Debug, Clone)]
pub struct ExecOptions {
    pub max_rows: usize,
    pub max_bytes: usize,
    pub timeout_ms: i32,
    pub role: Option<String>,
}

impl ExecOptions {
    /// The settings in force, with the caller's row bound (capped by `nl2sql.max_rows_limit`).
    pub fn from_settings(max_rows: usize) -> Self {
        use crate::settings::*;
        ExecOptions {
            max_rows: max_rows.min(MAX_ROWS_LIMIT.get().max(0) as usize),
            max_bytes: MAX_RESULT_BYTES.get().max(0) as usize,
            timeout_ms: STATEMENT_TIMEOUT_MS.get().max(1),
            role: text(&EXECUTION_ROLE),
        }
    }
}

/// Check `sql` and, if it passes, run it. A refusal is returned, never raised.
pub fn run(sql: &str, opts: &ExecOptions) -> Result<Outcome, Refusal> {
    let checked = check_query(sql)?;
    Ok(run_checked(&checked.to_sql(), opts))
}

/// Check `sql` and ask PostgreSQL to plan it (`EXPLAIN`, inside the same rolled-back read-only
/// subtransaction): a plan error without running the query.
pub fn explain(sql: &str, opts: &ExecOptions) -> Result<Outcome, Refusal> {
    let checked = check_query(sql)?;
    Ok(run_in_subtransaction(&format!("EXPLAIN (COSTS OFF) {}", checked.to_sql()), opts, Mode::Explain))
}

/// What runs inside the subtransaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A checked query, through a cursor.
    Query,
    /// `EXPLAIN` of a checked query. SPI refuses utility statements in its own read-only mode,
    /// so it runs with SPI's read-only flag off; `transaction_read_only` still holds.
    Explain,
}

// --- the backend timer -------------------------------------------------------------------------

/// `USER_TIMEOUT` of the server's `TimeoutId` enum, which pgrx does not bind: read from the
/// server's `utils/timeout.h` when the extension is built (build.rs).
const USER_TIMEOUT: i32 = {
    match i32::from_str_radix(env!("NL2SQL_USER_TIMEOUT"), 10) {
        Ok(v) => v,
        Err(_) => panic!("NL2SQL_USER_TIMEOUT is not a number"),
    }
};

extern "C-unwind" {
    fn RegisterTimeout(id: i32, handler: Option<unsafe extern "C-unwind" fn()>) -> i32;
    fn enable_timeout_after(id: i32, delay_ms: i32);
    fn disable_timeout(id: i32, keep_indicator: bool);
}

/// Set by our timer's handler; tells our own timeout apart from a user's cancel.
static TIMED_OUT: AtomicBool = AtomicBool::new(false);

thread_local! {
    static TIMER_ID: std::cell::Cell<Option<i32>> = const { std::cell::Cell::new(None) };
}

/// Runs in the SIGALRM handler: only set flags and the latch, as `StatementTimeoutHandler` does.
unsafe extern "C-unwind" fn on_timer() {
    TIMED_OUT.store(true, Ordering::SeqCst);
    unsafe {
        pg_sys::QueryCancelPending = 1;
        pg_sys::InterruptPending = 1;
        pg_sys::SetLatch(pg_sys::MyLatch);
    }
}

fn timer_id() -> i32 {
    TIMER_ID.with(|cell| {
        cell.get().unwrap_or_else(|| {
            // SAFETY: called in a regular backend after InitPostgres set up the timeout module.
            let id = unsafe { RegisterTimeout(USER_TIMEOUT, Some(on_timer)) };
            cell.set(Some(id));
            id
        })
    })
}

// --- running -------------------------------------------------------------------------------------

/// Run SQL that already passed the gate. Always returns; only a user's cancel propagates.
pub fn run_checked(sql: &str, opts: &ExecOptions) -> Outcome {
    run_in_subtransaction(sql, opts, Mode::Query)
}

fn run_in_subtransaction(sql: &str, opts: &ExecOptions, mode: Mode) -> Outcome {
    let started = Instant::now();
    let timer = timer_id();
    TIMED_OUT.store(false, Ordering::SeqCst);

    let sub = super::subtransaction::RolledBack::begin();

    let outcome = PgTryBuilder::new(|| {
        let result = fetch(sql, opts, timer, started, mode);
        unsafe { disable_timeout(timer, false) };
        result
    })
    .catch_others(|caught| {
        unsafe { disable_timeout(timer, false) };
        let report = match &caught {
            CaughtError::PostgresError(r) | CaughtError::ErrorReport(r) => r,
            CaughtError::RustPanic { .. } => {
                sub.rollback();
                caught.rethrow()
            }
        };
        let sqlstate = sqlstate_text(report.sql_error_code());
        let timed_out = sqlstate == "57014" && TIMED_OUT.load(Ordering::SeqCst);
        if sqlstate == "57014" && !timed_out {
            // the user's cancel or the caller's statement_timeout: not ours to swallow
            sub.rollback();
            caught.rethrow()
        }
        let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
        Outcome::Failed(if timed_out {
            ExecFailure {
                sqlstate,
                message: format!("query exceeded nl2sql.statement_timeout ({} ms)", opts.timeout_ms),
                detail: None,
                hint: Some("Narrow the query, or raise nl2sql.statement_timeout.".into()),
                timed_out: true,
                elapsed_ms,
            }
        } else {
            ExecFailure {
                sqlstate,
                message: report.message().to_string(),
                detail: report.detail().map(str::to_string),
                hint: report.hint().map(str::to_string),
                timed_out: false,
                elapsed_ms,
            }
        })
    })
    .execute();
    sub.rollback();
    outcome
}

/// Inside the subtransaction: constrain it, open a cursor and fetch within budget.
fn fetch(sql: &str, opts: &ExecOptions, timer: i32, started: Instant, mode: Mode) -> Outcome {
    Spi::connect(|client| {
        let mut settings: Vec<(&str, &str)> = Vec::new();
        if let Some(role) = opts.role.as_deref() {
            settings.push(("role", role));
        }
        settings.extend([("transaction_read_only", "on"), ("DateStyle", "ISO, YMD"), ("IntervalStyle", "iso_8601")]);
        for (name, value) in settings {
            client
                .select(
                    "SELECT pg_catalog.set_config($1, $2, true)",
                    None,
                    &[name.into(), value.into()],
                )
                .unwrap_or_else(|e| pgrx::error!("set_config({name}): {e}"));
        }

        unsafe { enable_timeout_after(timer, opts.timeout_ms) };
        let budget = ResultBudget { max_rows: opts.max_rows, max_bytes: opts.max_bytes };
        if mode == Mode::Explain {
            let text = std::ffi::CString::new(sql).unwrap_or_else(|_| pgrx::error!("SQL holds a NUL byte"));
            // SAFETY: connected to SPI; the tuple table lives until SPI_finish
            let (columns, rows) = unsafe {
                let rc = pg_sys::SPI_execute(text.as_ptr(), false, 0);
                if rc < 0 {
                    pgrx::error!("SPI_execute failed ({rc})");
                }
                read_tuptable(pg_sys::SPI_tuptable)
            };
            let mut b = ResultBuilder::new(columns, budget);
            for row in rows {
                if !b.push(row) {
                    break;
                }
            }
            return Outcome::Rows(b.finish(started.elapsed().as_secs_f64() * 1000.0));
        }
        let mut cursor = client
            .try_open_cursor(sql, &[])
            .unwrap_or_else(|e| pgrx::error!("could not open a cursor: {e}"));
        let mut builder: Option<ResultBuilder> = None;
        loop {
            let wanted = builder.as_ref().map_or(opts.max_rows + 1, ResultBuilder::wanted).clamp(1, 1000);
            let batch = cursor
                .fetch(wanted as std::ffi::c_long)
                .unwrap_or_else(|e| pgrx::error!("fetch failed: {e}"));
            let got = batch.len();
            // SAFETY: SPI_tuptable is the table `fetch` just filled; it lives until SPI_finish.
            let (columns, rows) = unsafe { read_tuptable(pg_sys::SPI_tuptable) };
            let b = builder.get_or_insert_with(|| ResultBuilder::new(columns, budget));
            let mut more = true;
            for row in rows {
                if !b.push(row) {
                    more = false;
                    break;
                }
            }
            if !more || got < wanted {
                break;
            }
        }
        let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
        let builder = builder.unwrap_or_else(|| ResultBuilder::new(Vec::new(), budget));
        Outcome::Rows(builder.finish(elapsed_ms))
    })
}

/// Column descriptions and rows of an SPI tuple table, each value through its output function.
unsafe fn read_tuptable(table: *mut pg_sys::SPITupleTable) -> (Vec<ColumnInfo>, Vec<Vec<Value>>) {
    if table.is_null() {
        return (Vec::new(), Vec::new());
    }
    unsafe {
        let tupdesc = (*table).tupdesc;
        let natts = (*tupdesc).natts;
        let mut columns = Vec::with_capacity(natts as usize);
        let mut classes = Vec::with_capacity(natts as usize);
        for i in 1..=natts {
            let type_oid = pg_sys::SPI_gettypeid(tupdesc, i);
            columns.push(ColumnInfo { name: take_cstring(pg_sys::SPI_fname(tupdesc, i)), type_name: type_name(type_oid) });
            classes.push(type_class(type_oid));
        }
        let n = (*table).numvals as usize;
        let mut rows = Vec::with_capacity(n);
        for r in 0..n {
            let tuple = *(*table).vals.add(r);
            let mut row = Vec::with_capacity(natts as usize);
            for (i, class) in (1..=natts).zip(&classes) {
                let text = pg_sys::SPI_getvalue(tuple, tupdesc, i);
                row.push(if text.is_null() { Value::Null } else { cell_to_json(*class, &take_cstring(text)) });
            }
            rows.push(row);
        }
        (columns, rows)
    }
}

/// Copy a palloc'd C string into Rust and free it.
unsafe fn take_cstring(p: *mut std::ffi::c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    unsafe { pg_sys::pfree(p.cast()) };
    s
}

/// `format_type_be`: `integer`, `character varying`, `timestamp without time zone`, ...
pub fn type_name(oid: pg_sys::Oid) -> String {
    unsafe { take_cstring(pg_sys::format_type_be(oid)) }
}

/// How a type's values map to JSON; domains behave as their base type.
pub fn type_class(oid: pg_sys::Oid) -> TypeClass {
    let base = unsafe { pg_sys::getBaseType(oid) };
    match base {
        pg_sys::BOOLOID => TypeClass::Bool,
        pg_sys::INT2OID | pg_sys::INT4OID | pg_sys::INT8OID | pg_sys::OIDOID => TypeClass::Integer,
        pg_sys::FLOAT4OID | pg_sys::FLOAT8OID | pg_sys::NUMERICOID => TypeClass::Number,
        pg_sys::JSONOID | pg_sys::JSONBOID => TypeClass::Json,
        _ => TypeClass::Text,
    }
}
