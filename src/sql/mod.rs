//! SQL analysis on the sqlparser AST (PostgreSQL dialect).

pub mod degenerate;
pub mod guard;
pub mod limit;
pub mod names;

pub use guard::{check_query, CheckedQuery, Refusal};
