//! SQL analysis on the sqlparser AST (PostgreSQL dialect).

pub mod degenerate;
pub mod guard;
pub mod limit;
pub mod names;
pub mod substitute;

pub use guard::{check_query, CheckedQuery, Refusal};
