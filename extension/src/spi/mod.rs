//! The SPI adapter: everything that reads or writes the database. [`database::SpiDatabase`] is
//! the database interface of the decision code; the other modules are its parts and nl2sql's own
//! tables (the audit log, the value index, the experts and examples).

pub mod audit;
pub mod catalog;
pub mod database;
pub mod executor;
pub mod experts;
pub mod instance;
pub mod owner;
pub mod subtransaction;
pub mod taught;
pub mod value_index;

/// Whether this transaction cannot write: a hot standby, or a read-only transaction. The audit
/// then goes to the server log, and separating instances are read without temp tables.
pub fn read_only_transaction() -> bool {
    unsafe { pgrx::pg_sys::XactReadOnly || pgrx::pg_sys::RecoveryInProgress() }
}

/// A clear `25006` for a function that must write, called in a read-only transaction (PostgreSQL's
/// own error there would be "cannot assign TransactionIds during recovery", XX000).
pub fn require_writable(function: &str, writes: &str, hint: &str) -> nl2sql_core::error::Result<()> {
    if read_only_transaction() {
        return Err(nl2sql_core::error::Error::new(
            nl2sql_core::error::Kind::ReadOnly,
            format!("{function} {writes}, which a read-only transaction (a hot standby) cannot do"),
        )
        .with_hint(hint));
    }
    Ok(())
}
