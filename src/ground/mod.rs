//! Grounding the question in the data: which column values it names, and what its curators taught.

pub mod link;
pub mod same;
pub mod taught;
pub mod values;
