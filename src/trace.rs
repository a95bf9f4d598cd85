//! Steps: what each stage of a run did, as typed data. The decision code records every step
//! through a [`Recorder`] as it happens (the extension turns it into a NOTICE for a psql user
//! watching and a row of the audit log) and keeps them for the explanation it returns.

use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use crate::error::Result;
use crate::llm::{ChatReply, Usage};

/// The stages of the ask pipeline and of selection, in the order they can occur.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Schema,
    Values,
    Constraints,
    /// Whether the database can answer the question at all.
    Scope,
    /// The verified examples and glossary entries shown to generation (`ground::taught`).
    Taught,
    Probe,
    Draft,
    Link,
    Generate,
    Candidates,
    Verify,
    /// A mechanical repair on the syntax tree, without the model.
    Fix,
    Repair,
    Refine,
    /// A second reading of the question by a generator of other reasoning, compared by result
    /// with the verified answer.
    Confirm,
    /// Selection: every candidate run on the database.
    Execute,
    /// Selection: candidates grouped by result.
    Cluster,
    /// Selection: two clusters' representatives on a separating instance, judged by the model.
    Duel,
    Chosen,
}

/// How a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Ok,
    Skipped,
    Error,
    /// Probing ended.
    Done,
    /// The model repeated a probe; not run again.
    Repeat,
    /// An unusable answer, asked again.
    Retry,
    /// Verification found problems.
    Violations,
    /// A repair returned the same query.
    Unchanged,
    /// A repair made things worse.
    Regressed,
    /// A repair improved things, with problems left.
    Continue,
    /// A loop stopped for want of a usable answer.
    Stopped,
    /// The earlier query stands.
    Kept,
    /// The chosen SQL has open problems.
    Unverified,
    /// The evidence does not decide between two readings (the chosen one stands).
    Ambiguous,
    /// The database cannot answer the question: no SQL is written.
    Unanswerable,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Schema => "schema",
            Stage::Values => "values",
            Stage::Constraints => "constraints",
            Stage::Scope => "scope",
            Stage::Taught => "taught",
            Stage::Probe => "probe",
            Stage::Draft => "draft",
            Stage::Link => "link",
            Stage::Generate => "generate",
            Stage::Candidates => "candidates",
            Stage::Verify => "verify",
            Stage::Fix => "fix",
            Stage::Repair => "repair",
            Stage::Refine => "refine",
            Stage::Confirm => "confirm",
            Stage::Execute => "execute",
            Stage::Cluster => "cluster",
            Stage::Duel => "duel",
            Stage::Chosen => "chosen",
        }
    }
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Skipped => "skipped",
            Status::Error => "error",
            Status::Done => "done",
            Status::Repeat => "repeat",
            Status::Retry => "retry",
            Status::Violations => "violations",
            Status::Unchanged => "unchanged",
            Status::Regressed => "regressed",
            Status::Continue => "continue",
            Status::Stopped => "stopped",
            Status::Kept => "kept",
            Status::Unverified => "unverified",
            Status::Ambiguous => "ambiguous",
            Status::Unanswerable => "unanswerable",
        }
    }
}

/// One step of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    /// Its number in the run, from 1 (the audit log's step number when the run is audited).
    pub number: i32,
    pub stage: Stage,
    pub status: Status,
    pub detail: String,
    pub sql: Option<String>,
    /// What the step saw and decided, for the audit log and the explanation.
    pub data: Value,
    pub elapsed_ms: f64,
}

/// Where steps go as they happen. Returns the step's number.
pub trait Recorder {
    fn record(&mut self, step: &Step) -> Result<i32>;
}

/// A recorder that only numbers the steps (for callers that keep the steps themselves).
#[derive(Debug, Default)]
pub struct Numbering(i32);

impl Recorder for Numbering {
    fn record(&mut self, _step: &Step) -> Result<i32> {
        self.0 += 1;
        Ok(self.0)
    }
}

/// The steps of one run so far, with the model's usage.
pub struct Trace<'r> {
    recorder: &'r mut dyn Recorder,
    pub steps: Vec<Step>,
    pub usage: Usage,
    pub llm_calls: u32,
    stage_started: Instant,
}

impl<'r> Trace<'r> {
    pub fn new(recorder: &'r mut dyn Recorder) -> Self {
        Trace { recorder, steps: Vec::new(), usage: Usage::default(), llm_calls: 0, stage_started: Instant::now() }
    }

    /// Record a step; its time is the time since the previous step.
    pub fn step(&mut self, stage: Stage, status: Status, detail: impl Into<String>, sql: Option<String>, data: Value) -> Result<()> {
        let elapsed_ms = self.stage_started.elapsed().as_secs_f64() * 1000.0;
        self.stage_started = Instant::now();
        let mut step = Step { number: 0, stage, status, detail: detail.into(), sql, data, elapsed_ms };
        step.number = self.recorder.record(&step)?;
        self.steps.push(step);
        Ok(())
    }

    /// Count a model call.
    pub fn count(&mut self, reply: &ChatReply) {
        self.usage.add(reply.usage);
        self.llm_calls += 1;
    }

    /// The run's usage so far into a `chosen` step's data: its tokens (prompt, completion, and of
    /// the prompt those the server had cached) and model calls.
    pub fn usage_into(&self, data: &mut Value) {
        data["prompt_tokens"] = Value::from(self.usage.prompt_tokens);
        data["completion_tokens"] = Value::from(self.usage.completion_tokens);
        data["cached_prompt_tokens"] = Value::from(self.usage.cached_prompt_tokens);
        data["llm_calls"] = Value::from(self.llm_calls);
    }

    /// The steps of one stage.
    pub fn of(&self, stage: Stage) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(move |s| s.stage == stage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_wire_names() {
        for (stage, name) in [(Stage::Chosen, "chosen"), (Stage::Duel, "duel"), (Stage::Schema, "schema")] {
            assert_eq!((stage.as_str(), serde_json::to_value(stage).unwrap()), (name, Value::from(name)));
        }
        assert_eq!(Status::Unverified.as_str(), "unverified");
        let mut numbering = Numbering::default();
        let mut trace = Trace::new(&mut numbering);
        trace.step(Stage::Schema, Status::Ok, "x", None, Value::Null).unwrap();
        trace.step(Stage::Probe, Status::Skipped, "y", None, Value::Null).unwrap();
        assert_eq!(trace.steps.iter().map(|s| s.number).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(trace.of(Stage::Probe).count(), 1);
    }
}
