//! The ask pipeline: question → context → probes → candidate SQL → verdicts → repair → chosen.
//!
//! [`pipeline::ask`] runs it end to end over the two interfaces of [`crate::effects`]; the
//! stages live in [`generate`] (probing, linking, single and N-version generation) and
//! [`verify`] (checks, repair, refinement); [`probe`], [`prompts`] and [`repair`] hold the pure
//! rules they follow.

pub mod confirm;
pub mod fix;
mod generate;
pub mod pipeline;
pub mod probe;
pub mod prompts;
pub mod repair;
mod scope;
pub mod verify;

pub use pipeline::{ask, Explanation, Question};
pub use probe::{Grounding, ProbeStep};
pub use repair::{Attempt, Judgement};

#[cfg(test)]
mod tests;
