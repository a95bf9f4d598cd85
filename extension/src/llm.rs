//! The LLM adapter: the core client configured from `nl2sql.*` settings, waiting with query-cancel
//! checks, failing with clear PostgreSQL errors.

use std::time::Duration;

use nl2sql_core::llm::{self, CallPolicy, ChatReply, ChatRequest, Embeddings, Endpoint, LlmError};
use pgrx::pg_sys;
use serde_json::{Map, Value};

use crate::gucs;

const DEFAULT_CHAT: &str = "http://127.0.0.1:18081/v1";
const DEFAULT_EMBED: &str = "http://127.0.0.1:18082/v1";

/// The bearer token: from `nl2sql.api_key_file`, else the server's `NL2SQL_API_KEY`, else none.
/// It is never put in a setting, a message, a log line or an audit row.
fn api_key() -> Option<String> {
    if let Some(path) = gucs::text(&gucs::API_KEY_FILE) {
        return match std::fs::read_to_string(&path) {
            Ok(k) => Some(k.trim().to_string()).filter(|k| !k.is_empty()),
            Err(e) => crate::errors::raise(
                "58P01",
                format!("could not read nl2sql.api_key_file \"{path}\": {}", e.kind()),
                Some("The file must be readable by the PostgreSQL server process."),
            ),
        };
    }
    std::env::var("NL2SQL_API_KEY").ok().map(|k| k.trim().to_string()).filter(|k| !k.is_empty())
}

pub fn chat_endpoint() -> Endpoint {
    Endpoint {
        base_url: gucs::text(&gucs::LLM_ENDPOINT).unwrap_or_else(|| DEFAULT_CHAT.into()),
        model: gucs::text(&gucs::LLM_MODEL).unwrap_or_default(),
        api_key: api_key(),
    }
}

pub fn embedding_endpoint() -> Endpoint {
    Endpoint {
        base_url: gucs::text(&gucs::EMBEDDING_ENDPOINT).unwrap_or_else(|| DEFAULT_EMBED.into()),
        model: gucs::text(&gucs::EMBEDDING_MODEL).unwrap_or_default(),
        api_key: api_key(),
    }
}

pub fn policy() -> CallPolicy {
    CallPolicy {
        timeout: Duration::from_millis(gucs::LLM_TIMEOUT_MS.get().max(1) as u64),
        retries: gucs::LLM_RETRIES.get().max(0) as u32,
        ..CallPolicy::default()
    }
}

/// `nl2sql.llm_request_extra` as a JSON object.
pub fn request_extra() -> Map<String, Value> {
    match gucs::text(&gucs::LLM_REQUEST_EXTRA) {
        None => Map::new(),
        Some(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(m)) => m,
            _ => crate::errors::raise(
                "22023",
                "nl2sql.llm_request_extra must be a JSON object",
                Some("For example: SET nl2sql.llm_request_extra = '{\"cache_prompt\": false}'"),
            ),
        },
    }
}

/// Between waits: honour query cancel and backend termination.
fn check_interrupts() {
    pg_sys::check_for_interrupts!();
}

/// A chat completion from `endpoint`, or the error.
pub fn try_chat_at(endpoint: &Endpoint, mut request: ChatRequest) -> Result<ChatReply, LlmError> {
    for (k, v) in request_extra() {
        request.extra.entry(k).or_insert(v);
    }
    llm::chat(endpoint, &policy(), &request, &check_interrupts)
}

/// Several chat completions from `endpoint`, `nl2sql.llm_concurrency` at a time, in request order,
/// each a reply or its own error.
pub fn try_chat_all_at(endpoint: &Endpoint, mut requests: Vec<ChatRequest>) -> Vec<Result<ChatReply, LlmError>> {
    let extra = request_extra();
    for request in &mut requests {
        for (k, v) in &extra {
            request.extra.entry(k.clone()).or_insert(v.clone());
        }
    }
    llm::chat_all(endpoint, &policy(), &requests, gucs::LLM_CONCURRENCY.get().max(1) as usize, &check_interrupts)
}

/// A chat completion from the configured endpoint, or the error.
pub fn try_chat(request: ChatRequest) -> Result<ChatReply, LlmError> {
    try_chat_at(&chat_endpoint(), request)
}

pub fn chat(request: ChatRequest) -> ChatReply {
    try_chat(request).unwrap_or_else(|e| crate::errors::raise_llm(&e))
}

pub fn try_embed(inputs: &[String]) -> Result<Embeddings, LlmError> {
    llm::embed(&embedding_endpoint(), &policy(), inputs, &check_interrupts)
}

pub fn embed(inputs: &[String]) -> Embeddings {
    try_embed(inputs).unwrap_or_else(|e| crate::errors::raise_llm(&e))
}
