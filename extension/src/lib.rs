//! nl2sql: natural-language questions to verified, read-only SQL, inside PostgreSQL.
//!
//! This crate is the extension: the SQL functions ([`api`]) and the two adapters that touch the
//! world: [`spi`] for the database and [`llm`] for the model server. The reasoning itself lives in
//! the `nl2sql-core` crate as pure Rust.

use pgrx::prelude::*;

pub mod api;
pub mod ask;
pub mod errors;
pub mod feedback;
pub mod gucs;
pub mod llm;
pub mod select;
pub mod spi;
pub mod values;

pgrx::pg_module_magic!();

extension_sql_file!("../../sql/nl2sql.sql", name = "catalog", bootstrap);

#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    gucs::init();
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
    include!("../../pgrx-tests/ask.rs");
    include!("../../pgrx-tests/select.rs");
    include!("../../pgrx-tests/values.rs");
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
