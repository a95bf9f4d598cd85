//! The SQL boundary of errors: nl2sql's one error type ([`nl2sql_core::error::Error`]) becomes a
//! PostgreSQL error with its SQLSTATE, message and hint. Every SQL function returns
//! `Result<_, ErrorReport>`; the adapters return the core error and this module reports it.

use nl2sql_core::error::Error;
use pgrx::pg_sys::errcodes::PgSqlErrorCode;
use pgrx::pg_sys::panic::ErrorReport;

/// What an exported function returns.
pub type SqlResult<T> = Result<T, ErrorReport>;

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

/// The PostgreSQL error of an nl2sql error.
pub fn report(e: Error) -> ErrorReport {
    let mut r = ErrorReport::new(PgSqlErrorCode::from(pack(&e.sqlstate)), e.message, "");
    if let Some(h) = e.hint {
        r = r.set_hint(h);
    }
    r
}

/// `result.sql()?` in an exported function: an nl2sql error becomes its PostgreSQL error.
pub trait IntoSql<T> {
    fn sql(self) -> SqlResult<T>;
}

impl<T> IntoSql<T> for Result<T, Error> {
    fn sql(self) -> SqlResult<T> {
        self.map_err(report)
    }
}

/// A required argument: NULL is an error (22004) naming it, in every function alike.
pub fn required<T>(value: Option<T>, argument: &str, hint: &str) -> Result<T, Error> {
    value.ok_or_else(|| Error::null(argument, hint))
}

