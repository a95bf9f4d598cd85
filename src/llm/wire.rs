//! The wire format of an OpenAI-compatible model server: requests, replies, errors. Plain data,
//! shared by the decision code (through [`crate::effects::Model`]) and the HTTP clients.

use std::fmt;
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Map, Value};

/// Where and what to call. The API key is only ever sent as a bearer header.
#[derive(Clone)]
pub struct Endpoint {
    /// Base URL up to and including the API version, e.g. `http://127.0.0.1:18081/v1`.
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("base_url", &redact_url(&self.base_url))
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .finish()
    }
}

impl Endpoint {
    #[cfg_attr(not(feature = "http"), allow(dead_code))] // used by the HTTP clients
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}/{}", self.base_url.trim_end_matches('/'), path)
    }
}

/// Remove any `user:password@` from a URL before it appears in a message.
pub fn redact_url(url: &str) -> String {
    if let Some(scheme_end) = url.find("://") {
        let rest = &url[scheme_end + 3..];
        let authority_end = rest.find('/').unwrap_or(rest.len());
        if let Some(at) = rest[..authority_end].rfind('@') {
            return format!("{}://{}", &url[..scheme_end], &rest[at + 1..]);
        }
    }
    url.to_string()
}

/// Time and retry limits of one logical call.
#[derive(Debug, Clone, Copy)]
pub struct CallPolicy {
    /// Limit for one HTTP exchange.
    pub timeout: Duration,
    /// Further attempts after the first one fails with a retryable error.
    pub retries: u32,
    /// First back-off; doubled on each retry, capped at 8 s.
    pub backoff: Duration,
}

impl Default for CallPolicy {
    fn default() -> Self {
        CallPolicy { timeout: Duration::from_secs(120), retries: 2, backoff: Duration::from_millis(250) }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message { role: "system".into(), content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message { role: "user".into(), content: content.into() }
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Message { role: "assistant".into(), content: content.into() }
    }
}

#[derive(Debug, Clone, Default)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    pub temperature: f32,
    pub max_tokens: Option<u32>,
    /// Constrain the answer to this JSON schema (`response_format` of type `json_schema`).
    pub json_schema: Option<(String, Value)>,
    pub seed: Option<u64>,
    /// Extra top-level fields merged into the request body (server-specific options).
    pub extra: Map<String, Value>,
}

impl ChatRequest {
    pub fn body(&self, model: &str) -> Value {
        let mut body = json!({
            "model": model,
            "messages": self.messages,
            "temperature": self.temperature,
        });
        if let Some(n) = self.max_tokens {
            body["max_tokens"] = json!(n);
        }
        if let Some(seed) = self.seed {
            body["seed"] = json!(seed);
        }
        if let Some((name, schema)) = &self.json_schema {
            body["response_format"] = json!({
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": true},
            });
        }
        for (k, v) in &self.extra {
            body[k] = v.clone();
        }
        body
    }
}

/// Tokens spent, as the server reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Of the prompt tokens, those the server took from its cache of an earlier prompt with the
    /// same beginning (OpenAI's `usage.prompt_tokens_details.cached_tokens`; llama.cpp reports it
    /// too; 0 when the server does not say). A model server reads the rest afresh, and writes
    /// every completion token one at a time: the two costs of a call's time.
    pub cached_prompt_tokens: u64,
}

impl Usage {
    pub fn add(&mut self, other: Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.cached_prompt_tokens += other.cached_prompt_tokens;
    }

    #[cfg_attr(not(feature = "http"), allow(dead_code))] // used by the HTTP clients
    pub(crate) fn from_response(v: &Value) -> Usage {
        let n = |k: &str| v["usage"][k].as_u64().unwrap_or(0);
        let cached = v["usage"]["prompt_tokens_details"]["cached_tokens"].as_u64().unwrap_or(0);
        Usage { prompt_tokens: n("prompt_tokens"), completion_tokens: n("completion_tokens"), cached_prompt_tokens: cached.min(n("prompt_tokens")) }
    }
}

#[derive(Debug, Clone)]
pub struct ChatReply {
    pub content: String,
    pub model: String,
    pub usage: Usage,
    pub attempts: u32,
    pub elapsed: Duration,
    /// The model stopped at the request's `max_tokens` (`finish_reason` `length`): the content
    /// is the beginning of an answer, not all of it.
    pub cut_off: bool,
}

#[derive(Debug, Clone)]
pub struct Embeddings {
    pub vectors: Vec<Vec<f32>>,
    pub usage: Usage,
    pub elapsed: Duration,
}

/// A failed call, naming the endpoint and the cause.
#[derive(Debug, Clone, PartialEq)]
pub enum LlmError {
    /// No connection could be made (refused, DNS, TLS...).
    Unreachable { endpoint: String, cause: String },
    /// No complete answer within the time limit.
    Timeout { endpoint: String, after: Duration },
    /// The server answered with an HTTP error status.
    Status { endpoint: String, status: u16, body: String },
    /// The server answered 2xx, but not with what the API promises.
    BadResponse { endpoint: String, cause: String },
}

impl LlmError {
    /// The SQLSTATE the extension raises for this error.
    pub fn sqlstate(&self) -> &'static str {
        match self {
            LlmError::Unreachable { .. } => "08001", // sqlclient_unable_to_establish_sqlconnection
            LlmError::Timeout { .. } => "57014",     // query_canceled
            LlmError::Status { .. } | LlmError::BadResponse { .. } => "38000", // external_routine_exception
        }
    }

    pub fn hint(&self) -> &'static str {
        match self {
            LlmError::Unreachable { .. } => {
                "Check that the model server is running (scripts/llm.sh status) and that nl2sql.llm_endpoint / nl2sql.embedding_endpoint point to it."
            }
            LlmError::Timeout { .. } => {
                "Raise nl2sql.llm_timeout_ms, shorten the prompt, or use a faster model."
            }
            LlmError::Status { status: 401 | 403, .. } => {
                "The endpoint refused the credentials: check nl2sql.api_key_file or NL2SQL_API_KEY."
            }
            LlmError::Status { status: 404, .. } => {
                "Check the endpoint's base URL (it should end in /v1) and the model name."
            }
            LlmError::Status { status: 429, .. } => {
                "The model server is rate-limiting: retry later, lower nl2sql.llm_concurrency, or raise nl2sql.llm_timeout_ms (a Retry-After longer than it is not waited for)."
            }
            LlmError::Status { .. } => "The model server reported an error; see its log.",
            LlmError::BadResponse { .. } => {
                "The endpoint is not OpenAI-compatible or the model's answer was cut off; check max_tokens."
            }
        }
    }

    #[cfg_attr(not(feature = "http"), allow(dead_code))] // used by the HTTP clients
    pub(crate) fn retryable(&self) -> bool {
        match self {
            LlmError::Unreachable { .. } => true,
            LlmError::Status { status, .. } => *status == 429 || *status >= 500,
            LlmError::Timeout { .. } | LlmError::BadResponse { .. } => false,
        }
    }
}

impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LlmError::Unreachable { endpoint, cause } => {
                write!(f, "LLM endpoint {endpoint} is unreachable: {cause}")
            }
            LlmError::Timeout { endpoint, after } => {
                write!(f, "LLM endpoint {endpoint} did not answer within {} ms", after.as_millis())
            }
            LlmError::Status { endpoint, status, body } => {
                write!(f, "LLM endpoint {endpoint} answered HTTP {status}: {body}")
            }
            LlmError::BadResponse { endpoint, cause } => {
                write!(f, "LLM endpoint {endpoint} gave an unusable answer: {cause}")
            }
        }
    }
}

impl std::error::Error for LlmError {}
