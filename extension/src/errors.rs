//! Raising clear PostgreSQL errors (SQLSTATE, message, hint) from Rust, and reading SQLSTATEs back.

use pgrx::pg_sys::errcodes::PgSqlErrorCode;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::PgLogLevel;

/// Pack a five-character SQLSTATE the way PostgreSQL's `MAKE_SQLSTATE` does.
pub fn pack(sqlstate: &str) -> i32 {
    sqlstate
        .bytes()
        .take(5)
        .enumerate()
        .fold(0, |acc, (i, b)| acc | ((((b as i32) - ('0' as i32)) & 0x3F) << (6 * i)))
}

/// The five-character text of a packed SQLSTATE (`unpack_sql_state`).
pub fn sqlstate_text(code: PgSqlErrorCode) -> String {
    let mut v = code as isize as i32;
    (0..5)
        .map(|_| {
            let c = ((v & 0x3F) + '0' as i32) as u8 as char;
            v >>= 6;
            c
        })
        .collect()
}

/// Raise an ERROR with this SQLSTATE, message and hint. Does not return.
pub fn raise(sqlstate: &str, message: impl Into<String>, hint: Option<&str>) -> ! {
    let mut report = ErrorReport::new(PgSqlErrorCode::from(pack(sqlstate)), message.into(), "");
    if let Some(h) = hint {
        report = report.set_hint(h);
    }
    report.report(PgLogLevel::ERROR);
    unreachable!("ERROR does not return")
}

/// Raise an LLM adapter error with its SQLSTATE and hint.
pub fn raise_llm(e: &nl2sql_core::llm::LlmError) -> ! {
    raise(e.sqlstate(), e.to_string(), Some(e.hint()))
}
