//! The model interface of the decision code ([`nl2sql_core::effects::Model`]) over the HTTP model
//! client: endpoints, time limits, retries and concurrency from the `nl2sql.*` settings; waits
//! that honour query cancel.
//!
//! The bearer token comes from `nl2sql.api_key_file`, else the server's `NL2SQL_API_KEY`, else
//! none. It is never put in a setting, a message, a log line or an audit row.

use std::time::Duration;

use nl2sql_core::effects::Model;
use nl2sql_core::error::{Error, Kind, Result};
use nl2sql_core::llm::{self, CallPolicy, ChatReply, ChatRequest, Embeddings, Endpoint, LlmError};
use pgrx::pg_sys;
use serde_json::{Map, Value};

use crate::settings;

const DEFAULT_CHAT: &str = "http://127.0.0.1:18081/v1";
const DEFAULT_EMBED: &str = "http://127.0.0.1:18082/v1";

fn api_key() -> Result<Option<String>> {
    if let Some(path) = settings::text(&settings::API_KEY_FILE) {
        return match std::fs::read_to_string(&path) {
            Ok(k) => Ok(Some(k.trim().to_string()).filter(|k| !k.is_empty())),
            Err(e) => Err(Error::new(Kind::File, format!("could not read nl2sql.api_key_file \"{path}\": {}", e.kind()))
                .with_hint("The file must be readable by the PostgreSQL server process.")),
        };
    }
    Ok(std::env::var("NL2SQL_API_KEY").ok().map(|k| k.trim().to_string()).filter(|k| !k.is_empty()))
}

/// `nl2sql.llm_request_extra` as a JSON object.
fn request_extra() -> Result<Map<String, Value>> {
    match settings::text(&settings::LLM_REQUEST_EXTRA) {
        None => Ok(Map::new()),
        Some(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(Error::invalid("nl2sql.llm_request_extra must be a JSON object")
                .with_hint("For example: SET nl2sql.llm_request_extra = '{\"cache_prompt\": false}'")),
        },
    }
}

/// Between waits: honour query cancel and backend termination.
fn check_interrupts() {
    pg_sys::check_for_interrupts!();
}

/// The configured model servers.
pub struct EndpointModel {
    pub chat: Endpoint,
    pub embedding: Endpoint,
    policy: CallPolicy,
    concurrency: usize,
    extra: Map<String, Value>,
}

impl EndpointModel {
    /// The endpoints in force; `chat_model` overrides `nl2sql.llm_model` (a call's `llm_model` option).
    pub fn from_settings(chat_model: Option<&str>) -> Result<Self> {
        let key = api_key()?;
        Ok(EndpointModel {
            chat: Endpoint {
                base_url: settings::text(&settings::LLM_ENDPOINT).unwrap_or_else(|| DEFAULT_CHAT.into()),
                model: chat_model.map(str::to_string).unwrap_or_else(|| settings::text(&settings::LLM_MODEL).unwrap_or_default()),
                api_key: key.clone(),
            },
            embedding: Endpoint {
                base_url: settings::text(&settings::EMBEDDING_ENDPOINT).unwrap_or_else(|| DEFAULT_EMBED.into()),
                model: settings::text(&settings::EMBEDDING_MODEL).unwrap_or_default(),
                api_key: key,
            },
            policy: CallPolicy {
                timeout: Duration::from_millis(settings::LLM_TIMEOUT_MS.get().max(1) as u64),
                retries: settings::LLM_RETRIES.get().max(0) as u32,
                ..CallPolicy::default()
            },
            concurrency: settings::LLM_CONCURRENCY.get().max(1) as usize,
            extra: request_extra()?,
        })
    }

    /// Where the chat requests go, with any credentials in the URL removed (for the audit log).
    pub fn shown_endpoint(&self) -> String {
        llm::client::redact_url(&self.chat.base_url)
    }

    fn with_extra(&self, mut request: ChatRequest) -> ChatRequest {
        for (k, v) in &self.extra {
            request.extra.entry(k.clone()).or_insert(v.clone());
        }
        request
    }
}

impl Model for EndpointModel {
    fn name(&self) -> String {
        self.chat.model.clone()
    }

    fn embedding_model(&self) -> String {
        self.embedding.model.clone()
    }

    fn concurrency(&self) -> usize {
        self.concurrency
    }

    fn chat(&mut self, request: ChatRequest) -> std::result::Result<ChatReply, LlmError> {
        let request = self.with_extra(request);
        llm::chat(&self.chat, &self.policy, &request, &check_interrupts)
    }

    fn chat_all(&mut self, requests: Vec<ChatRequest>) -> Vec<std::result::Result<ChatReply, LlmError>> {
        let requests: Vec<ChatRequest> = requests.into_iter().map(|r| self.with_extra(r)).collect();
        llm::chat_all(&self.chat, &self.policy, &requests, self.concurrency, &check_interrupts)
    }

    fn embed(&mut self, inputs: &[String]) -> std::result::Result<Embeddings, LlmError> {
        llm::embed(&self.embedding, &self.policy, inputs, &check_interrupts)
    }
}
