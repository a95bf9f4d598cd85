//! The ask pipeline's reasoning: question → context → probes → candidate SQL → verdicts → repair.
//!
//! The extension drives it (SPI and LLM calls); everything decided here is plain data in, plain
//! data out.

pub mod probe;
pub mod prompts;
pub mod repair;

pub use probe::{Grounding, ProbeStep};
pub use repair::{Attempt, Judgement};
