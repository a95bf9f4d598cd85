//! Talking to an OpenAI-compatible model server.
//!
//! [`client`] is the transport (blocking HTTP on a helper thread, so the backend can keep checking
//! for query cancel while it waits); [`json`] turns what models actually return into values.

pub mod client;
pub mod json;

pub use client::{
    chat, embed, CallPolicy, ChatReply, ChatRequest, Embeddings, Endpoint, LlmError, Message,
    Usage,
};
