//! The SQL functions of the foundation: the safe executor, the catalog as the caller sees it,
//! and the model servers' status.

use std::time::Instant;

use nl2sql_core::llm::{ChatRequest, Message};
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::{json, Value};

use crate::spi::{catalog, executor};

/// Run one read-only query safely and return its rows (or its error) as JSON.
///
/// `{ok, columns:[{name,type}], rows:[[...]], row_count, truncated, truncated_by, elapsed_ms}` or
/// `{ok:false, sqlstate, error, detail?, hint?, timed_out, refused?, elapsed_ms}`.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_try(sql: &str, max_rows: default!(i32, 100)) -> JsonB {
    if max_rows < 0 {
        crate::errors::raise("22023", "max_rows must not be negative", Some("Pass 0 for columns only."));
    }
    let opts = executor::ExecOptions::from_settings(max_rows);
    JsonB(match executor::run(sql, &opts) {
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
    })
}

/// The schema nl2sql works with for the current user: relations they can SELECT, visible
/// columns, keys, comments, row estimates, and foreign keys.
#[pg_extern(stable, parallel_safe)]
fn nl2sql_schema() -> JsonB {
    JsonB(serde_json::to_value(catalog::read()).expect("catalog serialises"))
}

/// Embed a text with the configured embedding model; cast the result to `vector` for pgvector.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_embed(input: &str) -> Vec<f32> {
    crate::llm::embed(&[input.to_string()]).vectors.into_iter().next().unwrap_or_default()
}

/// Whether the chat and embedding endpoints answer, with what, and how fast. Never raises for an
/// endpoint's failure: it reports it.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_llm_status() -> JsonB {
    let chat_ep = crate::llm::chat_endpoint();
    let started = Instant::now();
    let chat = match crate::llm::try_chat(ChatRequest {
        messages: vec![Message::user("Reply with the single word OK.")],
        max_tokens: Some(4),
        ..Default::default()
    }) {
        Ok(r) => json!({"ok": true, "model": r.model, "reply": r.content,
                         "latency_ms": started.elapsed().as_millis() as u64}),
        Err(e) => json!({"ok": false, "sqlstate": e.sqlstate(), "error": e.to_string()}),
    };
    let embed_ep = crate::llm::embedding_endpoint();
    let started = Instant::now();
    let embedding = match crate::llm::try_embed(&["ping".to_string()]) {
        Ok(r) => json!({"ok": true, "dimensions": r.vectors.first().map_or(0, Vec::len),
                         "latency_ms": started.elapsed().as_millis() as u64}),
        Err(e) => json!({"ok": false, "sqlstate": e.sqlstate(), "error": e.to_string()}),
    };
    let with_endpoint = |mut v: Value, ep: &nl2sql_core::llm::Endpoint| {
        v["endpoint"] = json!(nl2sql_core::llm::client::redact_url(&ep.base_url));
        v["configured_model"] = json!(ep.model);
        v
    };
    JsonB(json!({
        "chat": with_endpoint(chat, &chat_ep),
        "embedding": with_endpoint(embedding, &embed_ep),
    }))
}
