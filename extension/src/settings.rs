//! The `nl2sql.*` settings: their definitions, and [`defaults`], the one place where the settings
//! in force become the defaults of every per-call option (an option has its setting's name).
//! Every setting is documented in docs/configuration.md.
//!
//! The API key is deliberately not a setting: settings can be read back (`SHOW`, `pg_settings`,
//! `pg_read_all_settings`) and appear in logs when set. It is read from the file named by
//! `nl2sql.api_key_file` (superuser-only) or from the server's `NL2SQL_API_KEY` environment.

use std::ffi::CString;

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::PostgresGucEnum;

/// What a run does when its transaction is read-only (a hot standby, `default_transaction_read_only`)
/// and the audit tables cannot be written.
#[derive(PostgresGucEnum, Clone, Copy, PartialEq, Eq, Debug)]
pub enum AuditReadOnly {
    /// Audit the run in the server log instead, and say so with a NOTICE.
    #[name = c"log"]
    Log,
    /// Refuse the call (25006): no run without its audit row.
    #[name = c"error"]
    Error,
}

pub static LLM_ENDPOINT: GucSetting<Option<CString>> =
    GucSetting::<Option<CString>>::new(Some(c"http://127.0.0.1:18081/v1"));
pub static LLM_MODEL: GucSetting<Option<CString>> =
    GucSetting::<Option<CString>>::new(Some(c"qwen2.5-coder-1.5b-instruct"));
pub static EMBEDDING_ENDPOINT: GucSetting<Option<CString>> =
    GucSetting::<Option<CString>>::new(Some(c"http://127.0.0.1:18082/v1"));
pub static EMBEDDING_MODEL: GucSetting<Option<CString>> =
    GucSetting::<Option<CString>>::new(Some(c"all-minilm-l6-v2"));
pub static API_KEY_FILE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
pub static LLM_TIMEOUT_MS: GucSetting<i32> = GucSetting::<i32>::new(120_000);
pub static LLM_RETRIES: GucSetting<i32> = GucSetting::<i32>::new(2);
pub static LLM_CONCURRENCY: GucSetting<i32> = GucSetting::<i32>::new(2);
pub static LLM_REQUEST_EXTRA: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
pub static STATEMENT_TIMEOUT_MS: GucSetting<i32> = GucSetting::<i32>::new(5_000);
pub static MAX_ROWS: GucSetting<i32> = GucSetting::<i32>::new(10_000);
pub static MAX_ROWS_LIMIT: GucSetting<i32> = GucSetting::<i32>::new(10_000);
pub static MAX_RESULT_BYTES: GucSetting<i32> = GucSetting::<i32>::new(1 << 20);
pub static EXECUTION_ROLE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
pub static AUDIT: GucSetting<bool> = GucSetting::<bool>::new(true);
pub static AUDIT_READ_ONLY: GucSetting<AuditReadOnly> = GucSetting::<AuditReadOnly>::new(AuditReadOnly::Log);
pub static MAX_PROBES: GucSetting<i32> = GucSetting::<i32>::new(1);
pub static MAX_REPAIRS: GucSetting<i32> = GucSetting::<i32>::new(1);
pub static PROBE_ROWS: GucSetting<i32> = GucSetting::<i32>::new(5);
pub static SCHEMA_TOKEN_BUDGET: GucSetting<i32> = GucSetting::<i32>::new(1200);
pub static TEMPERATURE: GucSetting<f64> = GucSetting::<f64>::new(0.0);
pub static SELECT_GATE: GucSetting<f64> = GucSetting::<f64>::new(0.6);
pub static SELECT_MAX_PAIRS: GucSetting<i32> = GucSetting::<i32>::new(6);
pub static INSTANCE_TIME_MS: GucSetting<i32> = GucSetting::<i32>::new(3_000);
pub static VALUE_INDEX_MAX_VALUES: GucSetting<i32> = GucSetting::<i32>::new(1000);
pub static REFUSE: GucSetting<bool> = GucSetting::<bool>::new(true);
pub static ANSWER_UNVERIFIED: GucSetting<bool> = GucSetting::<bool>::new(true);
pub static EXAMPLES: GucSetting<i32> = GucSetting::<i32>::new(0);
pub static SCHEMAS: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);

pub fn init() {
    GucRegistry::define_string_guc(
        c"nl2sql.llm_endpoint",
        c"Base URL of the OpenAI-compatible chat endpoint, up to /v1.",
        c"nl2sql POSTs to <this>/chat/completions.",
        &LLM_ENDPOINT,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"nl2sql.llm_model",
        c"Model name sent with every chat request.",
        c"",
        &LLM_MODEL,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"nl2sql.embedding_endpoint",
        c"Base URL of the OpenAI-compatible embeddings endpoint, up to /v1.",
        c"nl2sql POSTs to <this>/embeddings.",
        &EMBEDDING_ENDPOINT,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"nl2sql.embedding_model",
        c"Model name sent with every embeddings request.",
        c"",
        &EMBEDDING_MODEL,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"nl2sql.api_key_file",
        c"File (readable by the server) holding the bearer token for the LLM endpoints.",
        c"Empty: use the server's NL2SQL_API_KEY environment variable, or send no key.",
        &API_KEY_FILE,
        GucContext::Suset,
        GucFlags::SUPERUSER_ONLY,
    );
    GucRegistry::define_int_guc(
        c"nl2sql.llm_timeout_ms",
        c"Time limit of one LLM HTTP exchange.",
        c"",
        &LLM_TIMEOUT_MS,
        100,
        3_600_000,
        GucContext::Userset,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_int_guc(
        c"nl2sql.llm_retries",
        c"Further attempts after an LLM call fails with 429, 5xx or a failed connection.",
        c"",
        &LLM_RETRIES,
        0,
        10,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"nl2sql.llm_concurrency",
        c"Chat requests one call sends at once (N-version generators, votes of a duel).",
        c"Match the endpoint's capacity: the local model server has 2 slots; 1 sends them one after another.",
        &LLM_CONCURRENCY,
        1,
        32,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"nl2sql.llm_request_extra",
        c"JSON object merged into every chat request body (server-specific options).",
        c"For example {\"cache_prompt\": false} for deterministic answers from llama.cpp.",
        &LLM_REQUEST_EXTRA,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"nl2sql.statement_timeout",
        c"Time limit of one query run by the safe executor.",
        c"",
        &STATEMENT_TIMEOUT_MS,
        1,
        86_400_000,
        GucContext::Userset,
        GucFlags::UNIT_MS,
    );
    GucRegistry::define_int_guc(
        c"nl2sql.max_rows",
        c"Rows a call returns or reads per query unless its max_rows option says otherwise.",
        c"Never more than nl2sql.max_rows_limit.",
        &MAX_ROWS,
        0,
        1_000_000,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"nl2sql.max_rows_limit",
        c"Upper bound on the rows the safe executor returns, whatever a caller asks.",
        c"",
        &MAX_ROWS_LIMIT,
        0,
        1_000_000,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"nl2sql.max_result_bytes",
        c"Upper bound on the size of the rows the safe executor returns.",
        c"",
        &MAX_RESULT_BYTES,
        1024,
        1 << 30,
        GucContext::Suset,
        GucFlags::UNIT_BYTE,
    );
    GucRegistry::define_string_guc(
        c"nl2sql.execution_role",
        c"Role that generated SQL runs as (SET LOCAL ROLE); empty runs it as the caller.",
        c"The caller must be a member of this role.",
        &EXECUTION_ROLE,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"nl2sql.max_probes",
        c"Most probe queries the model may run before writing SQL (0 turns probing off).",
        c"",
        &MAX_PROBES,
        0,
        5,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"nl2sql.schemas",
        c"Schemas questions are asked of: names separated by commas, * for every schema you may use.",
        c"Empty (the default): the schemas on search_path, or the schema whose names fit the question best when none of them does.",
        &SCHEMAS,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"nl2sql.examples",
        c"Most verified examples (nl2sql_teach, nl2sql_feedback) each generation is shown, nearest to the question first.",
        c"0 (the default): none; with the built-in 1.5B model examples shown cost more answers than they give. Only examples whose SQL reads tables the caller may SELECT. Glossary terms the question mentions are shown, and an example that asks the question again answers it, whatever this says.",
        &EXAMPLES,
        0,
        10,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"nl2sql.max_repairs",
        c"Most repairs of a generated SQL that fails verification (0 turns repair off).",
        c"",
        &MAX_REPAIRS,
        0,
        5,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"nl2sql.probe_rows",
        c"Rows a probe query may return (a LIMIT is imposed or lowered on its AST).",
        c"",
        &PROBE_ROWS,
        1,
        100,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"nl2sql.schema_token_budget",
        c"Approximate tokens of schema text sent to the model; over it, the least relevant tables are cut.",
        c"",
        &SCHEMA_TOKEN_BUDGET,
        100,
        100_000,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_float_guc(
        c"nl2sql.temperature",
        c"Sampling temperature of the chat model.",
        c"",
        &TEMPERATURE,
        0.0,
        2.0,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_float_guc(
        c"nl2sql.select_gate",
        c"nl2sql_select chooses the largest result cluster without the model when its share of the candidates reaches this.",
        c"1 always runs the tournament when candidates disagree; 0 never asks the model.",
        &SELECT_GATE,
        0.0,
        1.0,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"nl2sql.select_max_pairs",
        c"Most duels (pairs of result clusters) one nl2sql_select call plays.",
        c"",
        &SELECT_MAX_PAIRS,
        0,
        100,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"nl2sql.instance_time_ms",
        c"Time budget for finding and shrinking one separating instance, in milliseconds.",
        c"",
        &INSTANCE_TIME_MS,
        10,
        600_000,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"nl2sql.value_index_max_values",
        c"Most distinct values per column nl2sql_index_values indexes (the most frequent first).",
        c"",
        &VALUE_INDEX_MAX_VALUES,
        1,
        1_000_000,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_bool_guc(
        c"nl2sql.audit",
        c"Record every nl2sql run and its steps in nl2sql.runs and nl2sql.steps.",
        c"",
        &AUDIT,
        GucContext::Suset,
        GucFlags::default(),
    );
    GucRegistry::define_bool_guc(
        c"nl2sql.refuse",
        c"A question the database cannot answer gets no SQL: the run ends unanswerable with the reason.",
        c"Off: every question gets SQL (the scope stage is skipped). The option refuse overrides it per call.",
        &REFUSE,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_bool_guc(
        c"nl2sql.answer_unverified",
        c"A run that ends unverified or ambiguous hands over its SQL.",
        c"Off: only verified answers (status ok) are handed over; the others keep their status and explanation and give no SQL. The option answer_unverified overrides it per call.",
        &ANSWER_UNVERIFIED,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_enum_guc(
        c"nl2sql.audit_read_only",
        c"In a read-only transaction (a hot standby): log audits the run in the server log, error refuses the call.",
        c"",
        &AUDIT_READ_ONLY,
        GucContext::Suset,
        GucFlags::default(),
    );
}

/// A string setting, `None` when unset or empty.
pub fn text(setting: &GucSetting<Option<CString>>) -> Option<String> {
    setting
        .get()
        .map(|c| c.to_string_lossy().trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The settings in force, as the defaults of every per-call option.
pub fn defaults() -> nl2sql_core::options::Settings {
    let count = |v: i32| v.max(0) as usize;
    nl2sql_core::options::Settings {
        llm_model: text(&LLM_MODEL).unwrap_or_default(),
        max_probes: count(MAX_PROBES.get()),
        max_repairs: count(MAX_REPAIRS.get()),
        probe_rows: count(PROBE_ROWS.get()),
        schema_token_budget: count(SCHEMA_TOKEN_BUDGET.get()),
        temperature: TEMPERATURE.get() as f32,
        max_rows: count(MAX_ROWS.get()).min(count(MAX_ROWS_LIMIT.get())),
        select_gate: SELECT_GATE.get(),
        select_max_pairs: count(SELECT_MAX_PAIRS.get()),
        instance_time_ms: INSTANCE_TIME_MS.get().max(1) as u64,
        refuse: REFUSE.get(),
        answer_unverified: ANSWER_UNVERIFIED.get(),
        examples: count(EXAMPLES.get()),
        schemas: text(&SCHEMAS).unwrap_or_default(),
    }
}

/// What the audit log records of the server's limits beside a call's options.
pub fn limits_json() -> serde_json::Value {
    serde_json::json!({
        "statement_timeout_ms": STATEMENT_TIMEOUT_MS.get(),
        "max_rows_limit": MAX_ROWS_LIMIT.get(),
        "execution_role": text(&EXECUTION_ROLE),
    })
}
