//! The SQL functions: each checks its arguments, builds the adapters, calls the decision code,
//! and renders what comes back as rows, NOTICEs and audit rows. Errors cross into PostgreSQL here
//! and only here ([`crate::error`]).
//!
//! NULL: every argument a function needs is checked; a NULL one is an error (22004) that names
//! it. Arguments with defaults may be left out.

pub mod ask;
pub mod executor;
pub mod feedback;
pub mod learn;
pub mod select;
pub mod values;
