//! Choosing among candidate SQL by their results and by tiny separating instances.
//!
//! The pipeline: [`answer`] (results in normal form) → [`cluster`] (candidates grouped by result,
//! confidence = share) → [`rewrite`] + [`separate`] (a minimal subset of the real rows on which two
//! candidates differ) → [`softf1`] + [`tournament`] (the model's answer on that instance decides).

pub mod adjudicate;
pub mod ambiguity;
pub mod answer;
pub mod candidates;
pub mod choose;
pub mod cluster;
pub mod experts;
pub mod pair;
pub mod rewrite;
pub mod separate;
pub mod softf1;
pub mod tournament;
pub mod verified;

#[cfg(test)]
mod tests;
