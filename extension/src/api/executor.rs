//! The safe executor, the catalog as the caller sees it, and the model servers.

use std::time::Instant;

use nl2sql_core::effects::Model;
use nl2sql_core::error::Error;
use nl2sql_core::llm::{ChatRequest, Message};
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::json;

use crate::error::{required, IntoSql};
use pgrx::pg_sys::panic::ErrorReport;
use crate::model::EndpointModel;
use crate::spi::{catalog, executor};

/// Run one read-only query safely and return its rows (or its error) as JSON.
///
/// `{ok, columns:[{name,type}], rows:[[...]], row_count, truncated, truncated_by, elapsed_ms}` or
/// `{ok:false, sqlstate, error, detail?, hint?, timed_out, refused?, elapsed_ms}`.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_try(sql: Option<&str>, max_rows: default!(Option<i32>, 100)) -> std::result::Result<JsonB, ErrorReport> {
    let sql = required(sql, "sql", "Pass one read-only query.").sql()?;
    let max_rows = required(max_rows, "max_rows", "Pass 0 for columns only.").sql()?;
    if max_rows < 0 {
        return Err(Error::invalid("max_rows must not be negative").with_hint("Pass 0 for columns only.")).sql();
    }
    let opts = executor::ExecOptions::from_settings(max_rows as usize);
    Ok(JsonB(match executor::run(sql, &opts) {
        Ok(outcome) => outcome.to_json(),
        Err(refusal) => json!({
            "ok": false,
            "refused": true,
            "sqlstate": refusal.sqlstate(),
            "error": refusal.to_string(),
            "hint": refusal.hint(),
            "timed_out": false,
            "elapsed_ms": 0.0,
        }),
    }))
}

/// The schema nl2sql works with for the current user: relations they can SELECT, visible
/// columns, keys, comments, row estimates, and foreign keys.
#[pg_extern(stable, parallel_safe)]
fn nl2sql_schema() -> std::result::Result<JsonB, ErrorReport> {
    let catalog = catalog::read().sql()?;
    Ok(JsonB(serde_json::to_value(catalog).unwrap_or_default()))
}

/// The embedding of a text by the configured embedding model, as `real[]`; `nl2sql_embed`
/// (defined in SQL beside it) returns it as pgvector's `vector`.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_embedding(input: Option<&str>) -> std::result::Result<Vec<f32>, ErrorReport> {
    let input = required(input, "input", "Pass the text to embed.").sql()?;
    let mut model = EndpointModel::from_settings(None).sql()?;
    let vectors = model.embed(&[input.to_string()]).map_err(Error::from).sql()?;
    Ok(vectors.vectors.into_iter().next().unwrap_or_default())
}

extension_sql!(
    r#"
CREATE FUNCTION nl2sql_embed(input text) RETURNS vector
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
    SET search_path FROM CURRENT
    AS $$ SELECT nl2sql_embedding(input)::vector $$;
COMMENT ON FUNCTION nl2sql_embed(text) IS 'the embedding of a text by the configured embedding model, as a pgvector vector';
"#,
    name = "nl2sql_embed",
    requires = [nl2sql_embedding]
);

/// Whether the chat and embedding endpoints answer, with what, and how fast. Never raises for an
/// endpoint's failure: it reports it.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_llm_status() -> std::result::Result<JsonB, ErrorReport> {
    let mut model = EndpointModel::from_settings(None).sql()?;
    let started = Instant::now();
    let chat = match model.chat(ChatRequest { messages: vec![Message::user("Reply with the single word OK.")], max_tokens: Some(4), ..Default::default() }) {
        Ok(r) => json!({"ok": true, "model": r.model, "reply": r.content, "latency_ms": started.elapsed().as_millis() as u64}),
        Err(e) => json!({"ok": false, "sqlstate": e.sqlstate(), "error": e.to_string()}),
    };
    let started = Instant::now();
    let embedding = match model.embed(&["ping".to_string()]) {
        Ok(r) => json!({"ok": true, "dimensions": r.vectors.first().map_or(0, Vec::len), "latency_ms": started.elapsed().as_millis() as u64}),
        Err(e) => json!({"ok": false, "sqlstate": e.sqlstate(), "error": e.to_string()}),
    };
    let with_endpoint = |mut v: serde_json::Value, ep: &nl2sql_core::llm::Endpoint| {
        v["endpoint"] = json!(nl2sql_core::llm::client::redact_url(&ep.base_url));
        v["configured_model"] = json!(ep.model);
        v
    };
    Ok(JsonB(json!({"chat": with_endpoint(chat, &model.chat), "embedding": with_endpoint(embedding, &model.embedding)})))
}
