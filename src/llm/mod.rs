//! Talking to an OpenAI-compatible model server.
//!
//! [`wire`] is the wire format (requests, replies, errors), plain data that the decision code
//! uses through [`crate::effects::Model`]; [`json`] turns what models actually return into
//! values. With the `http` feature (on by default), [`client`] is the transport (blocking HTTP on
//! a helper thread, so the backend can keep checking for query cancel while it waits) and
//! [`fanout`] sends several requests at once from an async client on a helper thread, with the
//! same waiting, retry and error rules. Without it the crate builds with no HTTP code at all.

#[cfg(feature = "http")]
pub mod client;
#[cfg(feature = "http")]
pub mod fanout;
pub mod json;
/// Reading a request off a socket, for scripted model servers in tests (this crate's, and the
/// extension's integration tests through the feature `testing`).
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod wire;

#[cfg(feature = "http")]
pub use client::{chat, embed};
#[cfg(feature = "http")]
pub use fanout::chat_all;
pub use wire::{redact_url, CallPolicy, ChatReply, ChatRequest, Embeddings, Endpoint, LlmError, Message, Usage};
