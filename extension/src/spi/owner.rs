//! Writing nl2sql's own tables with the extension owner's privileges, as PostgreSQL does for its
//! own internal checks: callers cannot write these tables themselves.

use pgrx::pg_sys::{self, PgTryBuilder};
use pgrx::prelude::*;

use nl2sql_core::error::{Error, Kind, Result};

/// The role that owns the extension (and so nl2sql's own tables).
pub fn extension_owner() -> Result<pg_sys::Oid> {
    Spi::connect(|c| {
        c.select("SELECT extowner FROM pg_catalog.pg_extension WHERE extname = 'nl2sql'", None, &[])?
            .first()
            .get_one::<pg_sys::Oid>()
    })
    .ok()
    .flatten()
    .ok_or_else(|| Error::new(Kind::ObjectState, "extension nl2sql is not installed in this database"))
}

/// Run `f` with the extension owner's privileges, restoring the caller's in every case.
pub fn as_extension_owner<R>(owner: pg_sys::Oid, f: impl FnOnce() -> R + std::panic::UnwindSafe) -> R {
    let (mut saved_user, mut saved_context) = (pg_sys::Oid::INVALID, 0);
    unsafe {
        pg_sys::GetUserIdAndSecContext(&mut saved_user, &mut saved_context);
        pg_sys::SetUserIdAndSecContext(owner, saved_context | pg_sys::SECURITY_LOCAL_USERID_CHANGE as i32);
    }
    PgTryBuilder::new(f)
        .finally(|| unsafe { pg_sys::SetUserIdAndSecContext(saved_user, saved_context) })
        .execute()
}

