//! Grounding the question in the data: which column values it names.

pub mod link;
pub mod values;
