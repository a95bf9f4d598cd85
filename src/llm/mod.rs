//! Talking to an OpenAI-compatible model server.
//!
//! [`client`] is the transport (blocking HTTP on a helper thread, so the backend can keep checking
//! for query cancel while it waits); [`fanout`] sends several requests at once from an async client
//! on a helper thread, with the same waiting rule; [`json`] turns what models actually return into values.

pub mod client;
pub mod fanout;
pub mod json;
#[cfg(test)]
pub(crate) mod testing;

pub use client::{
    chat, embed, CallPolicy, ChatReply, ChatRequest, Embeddings, Endpoint, LlmError, Message,
    Usage,
};
pub use fanout::chat_all;
