//! nl2sql: natural-language questions to verified, read-only SQL, inside PostgreSQL.
//!
//! This crate is adapters plus rendering. The decisions live in `nl2sql-core`; here:
//! - [`api`]: the SQL functions (arguments, rows, NOTICEs, errors at the boundary: [`error`]);
//! - [`spi`]: the database interface over SPI (the safe executor, the catalog, the instance
//!   workspace, the value index, the audit log, the experts and examples);
//! - [`model`]: the model interface over the HTTP client;
//! - [`settings`]: the `nl2sql.*` settings, which supply every option's default.

use pgrx::prelude::*;

pub mod api;
pub mod error;
pub mod model;
pub mod settings;
pub mod spi;

pgrx::pg_module_magic!();

extension_sql_file!("../../sql/nl2sql.sql", name = "catalog", bootstrap);

#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    // No Rust backtrace reaches a client: pgrx puts one in an error's DETAIL when std captures it,
    // which RUST_BACKTRACE in the server's environment turns on (a DBA may set it for panics in
    // the server log). RUST_LIB_BACKTRACE=0 turns capturing off again (it takes precedence, and
    // only for captured backtraces: a panic's own report in the server log still follows
    // RUST_BACKTRACE). A developer who wants them in DETAIL sets RUST_LIB_BACKTRACE=1 explicitly.
    // Set while the backend loads the library, before any thread of ours exists. Tested by the
    // SQL suite (extension/tests/pg_regress/sql/executor.sql), whose server runs with
    // RUST_BACKTRACE=1.
    if std::env::var_os("RUST_LIB_BACKTRACE").is_none() {
        std::env::set_var("RUST_LIB_BACKTRACE", "0");
    }
    settings::init();
}

/// The integration tests, in `pgrx-tests/`, run inside the pgrx test cluster.
#[cfg(any(test, feature = "pg_test"))]
#[pg_schema]
mod tests {
    use pgrx::prelude::*;
    use pgrx::JsonB;
    use serde_json::{json, Value};

    include!("../../pgrx-tests/support.rs");
    include!("../../pgrx-tests/executor.rs");
    include!("../../pgrx-tests/catalog.rs");
    include!("../../pgrx-tests/audit.rs");
    include!("../../pgrx-tests/llm.rs");
    include!("../../pgrx-tests/faults.rs");
    include!("../../pgrx-tests/ask.rs");
    include!("../../pgrx-tests/select.rs");
    include!("../../pgrx-tests/values.rs");
    include!("../../pgrx-tests/learn.rs");
    include!("../../pgrx-tests/schemas.rs");
}

/// Required by `cargo pgrx test`.
#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}

    pub fn postgresql_conf_options() -> Vec<&'static str> {
        // The fast local model for tests; scripts/test.sh starts it on the default port.
        vec!["nl2sql.llm_model = 'qwen2.5-coder-0.5b-instruct'"]
    }
}
