//! nl2sql-core: the reasoning of nl2sql as pure Rust over plain data.
//!
//! Nothing in this crate touches PostgreSQL. The extension crate (`extension/`) feeds it values read
//! through SPI and calls the LLM through [`llm::client`], whose only link to the backend is an
//! interrupt-check callback. Every module here is testable with `cargo test` alone.
//!
//! The modules follow the pipeline: a question meets a [`catalog`] (the schema the caller can see),
//! SQL is judged by [`sql`] before it may run, and what runs comes back as a [`result`].

pub mod ask;
pub mod catalog;
pub mod checks;
pub mod constraints;
pub mod context;
pub mod effects;
pub mod error;
pub mod ground;
pub mod lexicon;
pub mod llm;
pub mod options;
pub mod result;
pub mod scope;
pub mod select;
pub mod sql;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
/// Scripted implementations of the database and the model, and schemas to test on.
#[cfg(any(test, feature = "fuzzing"))]
pub mod testing;
pub mod trace;

/// The SQL parser the analyses use, for the extension's rewrites.
pub use sqlparser;
