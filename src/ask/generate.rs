//! The generating stages of the ask pipeline: probing (PV-SQL), two-round schema linking, a
//! single generation, and N-version generation with its candidates stage (weighted majority,
//! or a tournament on separating instances when the candidates split).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use serde_json::{json, Value};

use super::pipeline::{sample_values, Ask, SQL_ANSWER_TOKENS};
use super::probe::{as_answer, observation, parse_step, step_schema, to_ground, ProbeBudget, StopReason};
use super::prompts::{self, sql_schema, Generator};
use super::repair::schema_hints;
use crate::catalog::RelName;
use crate::context;
use crate::effects::{Database, Model};
use crate::error::{Error, Result};
use crate::ground::link::{self, Linked};
use crate::ground::same;
use crate::ground::taught::{self, Example, TaughtLimits};
use super::repair::Attempt;
use crate::llm::json::extract_json;
use crate::llm::{ChatRequest, Message};
use crate::options::{SelectOptions, Settings, Settle};
use crate::result::Outcome;
use crate::select::ambiguity::ambiguity;
use crate::select::answer::Answer;
use crate::select::candidates::{run_candidate, Ran};
use crate::select::choose::{duel_reason, play, Question};
use crate::select::cluster::cluster;
use crate::select::{experts, tournament, verified};
use crate::sql::{check_query, limit::impose_limit};
use crate::trace::{Stage, Status};

/// The temperature of N-version samples after the first of each generator.
const SAMPLE_TEMPERATURE: f32 = 0.7;

/// Verified examples shown to the few-shot generator.
const FEW_SHOT_EXAMPLES: usize = 3;

/// Stored examples read per question, nearest first, before those the caller cannot see are
/// dropped.
const NEAREST_EXAMPLES: usize = 20;

/// What a generation stage gives: the candidate SQL, or why the model gave none that is usable
/// (every prompt's answers unusable): the run then ends `error` with that reason, in the audit log,
/// rather than as an error that rolls the run back with the caller's transaction.
pub(super) type Generated = std::result::Result<String, String>;

impl<D: Database + ?Sized, M: Model + ?Sized> Ask<'_, '_, D, M> {
    /// The probe loop: the model asks bounded read-only queries until it has what it needs, the
    /// budget is spent, or its questions stop teaching it anything.
    pub(super) fn probe_loop(&mut self) -> Result<()> {
        if !self.opts.probe || self.opts.max_probes == 0 {
            return self.trace.step(Stage::Probe, Status::Skipped, "probing is off", None, Value::Null);
        }
        let targets = to_ground(self.question.text, &self.constraints, &self.grounding, &self.catalog);
        if self.opts.probe_gate && targets.is_empty() {
            return self.trace.step(
                Stage::Probe,
                Status::Skipped,
                "nothing for a probe to ground: the question names no value the value index did not match",
                None,
                json!({"to_ground": targets}),
            );
        }
        let rows = self.opts.probe_rows;
        let mut budget = ProbeBudget::new(self.opts.max_probes);
        let reason = loop {
            if let Some(reason) = budget.exhausted() {
                break reason;
            }
            let messages = prompts::probe(&self.schema.text, self.question.text, self.question.evidence, &self.grounding, rows);
            let reply = self.chat(messages, "probe_step", step_schema(), 300)?;
            let step = match extract_json(&reply.content).and_then(|v| parse_step(&v)) {
                Ok(s) => s.about(&self.catalog),
                Err(e) => {
                    return self.trace.step(Stage::Probe, Status::Error, format!("unusable probe step, probing stops: {e}"), None, json!({"answer": reply.content}));
                }
            };
            let learned = self.grounding.merge(&step);
            let Some(raw) = step.probe_sql.clone() else {
                let detail = format!("the model has what it needs after {} probes", budget.used());
                return self.trace.step(Stage::Probe, Status::Done, detail, None, json!({"grounding": self.grounding, "to_ground": targets}));
            };
            let (sql, obs) = match check_query(&raw) {
                Err(refusal) => (raw.clone(), format!("REFUSED: {refusal}")),
                Ok(mut checked) => {
                    impose_limit(&mut checked.query, rows as u64);
                    let sql = checked.to_sql();
                    if self.grounding.already_ran(&sql) {
                        budget.spend(learned);
                        self.trace.step(Stage::Probe, Status::Repeat, "the model repeated a probe; it is not run again", Some(sql),
                                        json!({"value_mappings": step.value_mappings}))?;
                        if !learned && self.opts.temperature == 0.0 {
                            break StopReason::Repeated;
                        }
                        continue;
                    }
                    let outcome = self.db.run(&sql, rows);
                    let obs = match outcome {
                        Err(refusal) => format!("REFUSED: {refusal}"),
                        Ok(outcome) => {
                            self.grounding.confirm(&checked.query, &outcome);
                            let mut obs = observation(&outcome, rows);
                            if let Outcome::Failed(f) = &outcome {
                                let hints = schema_hints(&sql, &self.catalog, &f.message);
                                if !hints.is_empty() {
                                    obs.push_str(&format!(" ({})", hints.join("; ")));
                                }
                            }
                            obs
                        }
                    };
                    (sql, obs)
                }
            };
            let informative = self.grounding.record(sql.clone(), obs.clone()) || learned;
            budget.spend(informative);
            let status = if obs.starts_with("columns") { Status::Ok } else { Status::Error };
            // the model's own SQL of this probe, when it returned rows
            let with_rows = (status == Status::Ok && !obs.ends_with("(0 rows)")).then(|| raw.clone());
            self.trace.step(Stage::Probe, status, obs.clone(), Some(sql), json!({"observation": obs, "value_mappings": step.value_mappings,
                            "relevant_columns": step.relevant_columns, "informative": informative}))?;
            // what the gate wanted grounded is now in the data as the probes wrote it: asking the
            // model again would buy a repeat of its last probe
            if self.opts.probe_gate && !targets.is_empty() && to_ground(self.question.text, &self.constraints, &self.grounding, &self.catalog).is_empty() {
                self.probe_answer = with_rows.as_deref().and_then(|raw| as_answer(raw, rows));
                break StopReason::Grounded;
            }
        };
        self.trace.step(Stage::Probe, Status::Done, format!("probing stopped: {}", json!(reason).as_str().unwrap_or("")), None,
                        json!({"reason": reason, "grounding": self.grounding, "to_ground": targets}))
    }

    /// Two-round generation, first round: schema linking on the full schema context, then the
    /// linked schema becomes the context of the final generation. The links are the union of
    /// *direct* linking (the model names tables and columns), *reversed* linking (what a draft
    /// query references), *value* linking (columns whose indexed values the question names) and
    /// the tables probing found relevant, closed over the foreign keys. The draft and the direct
    /// linking requests go out together.
    pub(super) fn link_round(&mut self) -> Result<()> {
        let (q, e) = (self.question.text, self.question.evidence);
        let draft_messages = prompts::generate(&self.schema.text, q, e, &self.grounding, &self.constraints);
        let link_messages = prompts::link(&self.schema.text, q, e, &self.grounding);
        let requests = vec![
            self.request(draft_messages.clone(), "sql_answer", sql_schema(), SQL_ANSWER_TOKENS),
            self.request(link_messages, "schema_links", prompts::link_schema(), 700),
        ];
        let mut replies = self.model.chat_all(requests).into_iter();
        let (draft_reply, link_reply) = match (replies.next(), replies.next()) {
            (Some(d), Some(l)) => (d, l),
            _ => return Err(Error::internal("the model adapter returned fewer replies than requests")),
        };
        // reversed linking: the draft (an unusable first answer gets the usual format retries)
        let draft_reply = draft_reply?;
        self.trace.count(&draft_reply);
        let draft = self.sql_answer(draft_messages, Stage::Draft, "", sql_schema(), Some(draft_reply))?.ok();
        let reversed = draft.as_deref().and_then(|d| check_query(d).ok()).map(|c| link::referenced(&c.query, &self.catalog)).unwrap_or_default();
        // direct linking
        let (direct, unknown) = match link_reply {
            Ok(reply) => {
                self.trace.count(&reply);
                match prompts::parse_link_answer(&reply.content) {
                    Ok((tables, columns)) => link::named(&tables, &columns, &self.catalog),
                    Err(e) => {
                        self.trace.step(Stage::Link, Status::Error, format!("direct linking gave no usable answer: {e}"), None, json!({"answer": reply.content}))?;
                        (Linked::default(), vec![])
                    }
                }
            }
            Err(e) => {
                self.trace.step(Stage::Link, Status::Error, format!("direct linking failed: {e}"), None, Value::Null)?;
                (Linked::default(), vec![])
            }
        };
        // value linking and probing
        let mut valued = Linked::default();
        for (t, c) in &self.value_columns {
            valued.add_column(t.clone(), c.clone());
        }
        for t in self.grounding.relevant_columns.keys() {
            if let Some(table) = self.catalog.tables.iter().find(|x| x.name.name == *t || x.name.to_string() == *t) {
                valued.tables.insert(table.name.clone());
            }
        }
        let linked = reversed.clone().union(&direct).union(&valued);
        if linked.tables.is_empty() {
            return self.trace.step(Stage::Link, Status::Skipped, "no source links a table; the full schema is kept", draft, Value::Null);
        }
        let closed = link::close_over_foreign_keys(&linked, &self.catalog);
        let pruned = self.catalog.restricted_to(&closed.tables);
        let tables: Vec<RelName> = pruned.tables.iter().map(|t| t.name.clone()).collect();
        let samples = sample_values(self.db, &pruned, &tables, 40);
        self.schema = context::build(&pruned, &samples, q, self.opts.schema_token_budget);
        let names = |v: &BTreeSet<RelName>| v.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let n = closed.tables.len();
        let detail = format!(
            "{n} table{} linked{}; the final generation sees only these",
            if n == 1 { "" } else { "s" },
            if closed.bridges.is_empty() { String::new() } else { format!(" (bridges added: {})", names(&closed.bridges).join(", ")) }
        );
        self.trace.step(
            Stage::Link,
            Status::Ok,
            detail,
            draft,
            json!({"tables": names(&closed.tables), "bridges": names(&closed.bridges),
                   "columns": closed.columns.iter().map(|(t, c)| format!("{t}.{c}")).collect::<Vec<_>>(),
                   "sources": {"reversed": names(&reversed.tables), "direct": names(&direct.tables),
                               "value": names(&valued.tables), "direct_unknown": unknown},
                   "tokens": self.schema.tokens}),
        )
    }

    /// One generation by the one generator (the default `decompose`: the sub-questions first, then
    /// one query; `direct`: the query alone).
    pub(super) fn single(&mut self) -> Result<Generated> {
        if let Some(sql) = self.probe_answer.take() {
            let detail = "the probe that found the question's values in the data answers the question: its query, without the probe's display bound, is the candidate (no generation)";
            self.trace.step(Stage::Generate, Status::Ok, detail, Some(sql.clone()), json!({"generator": "grounded_probe"}))?;
            return Ok(Ok(sql));
        }
        let first = self.opts.generators[0];
        let messages = prompts::generate_with(first, &self.schema.text, self.question.text, self.question.evidence, &self.grounding, &self.constraints, &[]);
        let (g, sql) = match self.sql_answer(messages, Stage::Generate, "", first.schema(), None)? {
            Ok(sql) => (first, sql),
            // a model that gives no usable SQL to one prompt (a small model writing MySQL's
            // backticks three times over) gets the other generator's prompt once, as a query
            // that never runs does after repair; its answer is then the run's only reading
            Err(e) => {
                let other = first.other();
                let detail = format!("{} gave no usable SQL ({e}); the {} prompt instead", first.name(), other.name());
                self.trace.step(Stage::Generate, Status::Stopped, detail, None, json!({"generator": first.name()}))?;
                let messages = prompts::generate_with(other, &self.schema.text, self.question.text, self.question.evidence, &self.grounding, &self.constraints, &[]);
                let sql = match self.sql_answer(messages, Stage::Generate, other.name(), other.schema(), None)? {
                    Ok(sql) => sql,
                    Err(e) => {
                        return Ok(Err(format!(
                            "the model did not return a usable SQL query to the {} prompt or to the {} prompt: {e}",
                            first.name(),
                            other.name()
                        )))
                    }
                };
                self.fresh = Some(other);
                (other, sql)
            }
        };
        self.trace.step(Stage::Generate, Status::Ok, format!("{}: candidate SQL", g.name()), Some(sql.clone()), json!({"generator": g.name()}))?;
        Ok(Ok(sql))
    }

    /// Up to `k` verified examples for the few-shot generator: nearest by the embedding of the
    /// question with its schema words masked, keeping only examples whose SQL reads only tables
    /// the caller can see.
    fn few_shot_examples(&mut self, k: usize) -> Result<Vec<(String, String)>> {
        let found = self.nearest_examples()?;
        let limits = TaughtLimits { max_distance: f64::INFINITY, ..TaughtLimits::new(k) };
        let db = &mut *self.db;
        let shown = taught::select(found, &[], self.question.text, &self.catalog, limits, |sql| plans_as_caller(db, sql));
        Ok(shown.examples.into_iter().map(|e| (e.question, e.sql)).collect())
    }

    /// The stored examples nearest to the question, unfiltered; none without computing an
    /// embedding when nothing is stored. The store finds them by the question with its schema
    /// words masked (what it asks, not what it asks about: the few-shot generator wants patterns);
    /// each one's distance is then that of the questions as written, which tells a question asked
    /// again in other words from one of the same pattern about other things (on 30 spider_train
    /// databases, the nearest example within 0.15 was the same query 61 times in 100 by the words
    /// as written, 32 in 60 masked).
    pub(super) fn nearest_examples(&mut self) -> Result<Vec<Example>> {
        if let Some(found) = &self.nearest {
            return Ok(found.clone());
        }
        let found = self.search_examples()?;
        self.nearest = Some(found.clone());
        Ok(found)
    }

    fn search_examples(&mut self) -> Result<Vec<Example>> {
        if self.db.example_count()? == 0 {
            return Ok(Vec::new());
        }
        let masked = context::mask_schema_words(self.question.text, &self.catalog);
        let vector = self.model.embed(&[masked])?.vectors.pop().unwrap_or_default();
        let mut found = self.db.nearest_examples(&vector, NEAREST_EXAMPLES)?;
        if found.is_empty() {
            return Ok(found);
        }
        let mut texts = vec![self.question.text.to_string()];
        texts.extend(found.iter().map(|e| e.question.clone()));
        let vectors = self.model.embed(&texts)?.vectors;
        if let Some((asked, stored)) = vectors.split_first() {
            for (e, v) in found.iter_mut().zip(stored) {
                e.distance = taught::cosine_distance(asked, v);
            }
        }
        found.sort_by(|a, b| a.distance.total_cmp(&b.distance).then(a.id.cmp(&b.id)));
        Ok(found)
    }

    /// The `taught` stage: the verified examples nearest to the question and the glossary entries
    /// it mentions, on tables the caller can see, join the grounding every prompt shows (at most
    /// `examples` examples; 0: none), and an example that asks the question again is found
    /// (`reuse`). A store that cannot be read is recorded and the run goes on without it. With
    /// nothing taught the stage leaves no step; with no example to show or reuse, the examples
    /// are not searched.
    pub(super) fn taught(&mut self) -> Result<()> {
        let glossary = match self.db.glossary() {
            Ok(g) => g,
            Err(e) => {
                self.trace.step(Stage::Taught, Status::Error, format!("the glossary could not be read: {e}"), None, Value::Null)?;
                Vec::new()
            }
        };
        // examples are searched only when some can be shown or reused
        let searched = if self.opts.examples > 0 || self.opts.reuse { self.nearest_examples() } else { Ok(Vec::new()) };
        let found = match searched {
            Ok(f) => f,
            Err(e) => {
                self.trace.step(Stage::Taught, Status::Error, format!("the verified examples could not be searched: {e}"), None, Value::Null)?;
                Vec::new()
            }
        };
        if glossary.is_empty() && found.is_empty() {
            return Ok(());
        }
        let nearest: Vec<Value> = found.iter().take(5).map(|e| json!({"id": e.id, "distance": e.distance})).collect();
        let db = &mut *self.db;
        let shown = taught::select(found.clone(), &glossary, self.question.text, &self.catalog, TaughtLimits::new(self.opts.examples), |sql| {
            plans_as_caller(db, sql)
        });
        if self.opts.reuse && !found.is_empty() {
            let names = crate::scope::link::names(&self.catalog);
            let terms_of = |q: &str| taught::mentioned(&glossary, q).into_iter().map(|t| t.term.to_lowercase()).collect();
            let (db, catalog) = (std::cell::RefCell::new(&mut *self.db), &self.catalog);
            fn parts(e: &Example) -> (&str, f64, &str) {
                (e.question.as_str(), e.distance, e.sql.as_str())
            }
            // whether the data the example reads holds a word the two questions do not share,
            // read as the caller; an example the caller cannot read, or a scan that fails, counts
            // as holding it (no reuse on what could not be read)
            let held = |e: &Example, words: &[String]| {
                let Ok(checked) = crate::sql::check_query(&e.sql) else { return true };
                if !taught::reads_only_visible_tables(&e.sql, catalog) {
                    return true;
                }
                let scans = crate::checks::literals::word_start_holders_sql(words, &checked.query, catalog);
                let (found, read) = super::scope::held_by(&mut **db.borrow_mut(), scans, words);
                !found.is_empty() || !read
            };
            self.asked_again = same::asked_again(self.question.text, &found, parts, &names, terms_of, true, held, |e, sql| {
                taught::reads_only_visible_tables(&e.sql, catalog) && plans_as_caller(&mut **db.borrow_mut(), sql)
            })
            .map(same::AskedAgain::cloned);
        }
        let mut data = json!({"examples": shown.examples, "terms": shown.terms, "nearest": nearest});
        if let Some(a) = &self.asked_again {
            let e = &a.example;
            data["asked_again"] = json!({"id": e.id, "question": e.question, "distance": e.distance, "substitutions": a.substitutions});
        }
        // the example asked again is named by the generate step that follows; here only when
        // nothing is shown
        let detail = match (&self.asked_again, shown.is_empty()) {
            (_, false) => Some(format!("shown: {}", shown.describe())),
            (Some(a), true) => Some(format!("verified example #{} asks this question again", a.example.id)),
            (None, true) => None,
        };
        match detail {
            Some(detail) => self.trace.step(Stage::Taught, Status::Ok, detail, None, data)?,
            None => {
                // what was looked for, as configured: with no example shown by default, "none near"
                // would say that nothing taught is close when only reuse was looked for
                let detail = match (self.opts.examples, self.opts.reuse) {
                    (0, true) => "no verified example on tables you can read asks this question again (none is shown in a prompt: nl2sql.examples is 0), and no glossary term it mentions",
                    (0, false) => "no glossary term it mentions (verified examples are neither shown, nl2sql.examples being 0, nor reused, reuse being off)",
                    _ => "no verified example near the question and no glossary term it mentions, on tables you can read",
                };
                self.trace.step(Stage::Taught, Status::Skipped, detail, None, data)?
            }
        }
        self.grounding.taught = shown;
        Ok(())
    }

    /// A verified example that asks the question again answers it: its SQL, verified here like
    /// any candidate (the checks, a plan, a bounded run as the caller). Clean, it is the chosen
    /// answer, without a generation or a second reading (a curator verified it for this
    /// question). With a problem here (the data changed since, or a check reads this question
    /// otherwise), it is not repaired: `None`, and the run generates afresh as if nothing were
    /// taught, with the example shown as before.
    pub(super) fn reuse(&mut self, asked_again: &same::AskedAgain<Example>) -> Result<Option<Attempt>> {
        let (example, sql) = (&asked_again.example, &asked_again.sql);
        let detail = if asked_again.substitutions.is_empty() {
            format!(
                "verified example #{} asks this question again (\"{}\", distance {:.2}: the same tables and columns, values, numbers and operations): its SQL instead of a fresh generation",
                example.id, example.question, example.distance
            )
        } else {
            let what: Vec<String> = asked_again
                .substitutions
                .iter()
                .map(|s| if s.number { format!("{} for {}", s.to, s.from) } else { format!("'{}' for '{}'", s.to, s.from) })
                .collect();
            format!(
                "verified example #{} asks this question of another {} (\"{}\", distance {:.2}: the same tables and columns and operations): its SQL with {}, instead of a fresh generation",
                example.id,
                if asked_again.substitutions.len() > 1 { "value and number" } else if asked_again.substitutions[0].number { "number" } else { "value" },
                example.question,
                example.distance,
                what.join(" and ")
            )
        };
        let detail = if asked_again.wording.is_empty() {
            detail
        } else {
            let words: Vec<String> = asked_again.wording.iter().map(|w| format!("'{w}'")).collect();
            format!("{detail}; the two differ only in wording ({}: no qualifier, no name of the schema, and no stored value the example reads holds it)", words.join(", "))
        };
        let generator = if asked_again.substitutions.is_empty() { "verified_example" } else { "adapted_example" };
        let data = json!({"generator": generator, "example_id": example.id, "substitutions": asked_again.substitutions, "wording": asked_again.wording});
        self.trace.step(Stage::Generate, Status::Ok, detail, Some(sql.clone()), data)?;
        let mut verified = self.verify(sql);
        if verified.attempt.is_clean() {
            let mut detail = verified.summary();
            if verified.empty {
                detail.push_str(" (note: the result is empty)");
            }
            self.trace.step(Stage::Verify, Status::Ok, detail, Some(sql.clone()), std::mem::take(&mut verified.data))?;
            return Ok(Some(verified.attempt));
        }
        let which = if asked_again.substitutions.is_empty() { "the verified example's SQL" } else { "the adapted example's SQL" };
        let detail = format!("{which} does not pass here ({}); it is not used, and the question is generated afresh", verified.summary());
        self.trace.step(Stage::Verify, verified.status(), detail, Some(sql.clone()), std::mem::take(&mut verified.data))?;
        Ok(None)
    }

    /// N-version generation: each generator (and each further sample of it) writes a candidate;
    /// the requests go out together. The candidates run, are clustered by result and weighed by
    /// their experts' weights (`generator:model`); the heaviest cluster's first candidate goes on
    /// to verification, or, with `select: tournament` and no clear majority, the winner of the
    /// duels on separating instances.
    pub(super) fn n_version(&mut self) -> Result<Generated> {
        // 1. the prompts
        let mut jobs: Vec<(Generator, usize, Vec<Message>, usize)> = Vec::new();
        for g in self.opts.generators.clone() {
            let examples = if g == Generator::FewShot {
                match self.few_shot_examples(FEW_SHOT_EXAMPLES) {
                    Ok(e) if !e.is_empty() => e,
                    Ok(_) => {
                        self.trace.step(Stage::Generate, Status::Skipped, "few_shot: no verified example on tables you can read", None, Value::Null)?;
                        continue;
                    }
                    Err(e) => {
                        self.trace.step(Stage::Generate, Status::Error, format!("few_shot: the examples could not be searched: {e}"), None, Value::Null)?;
                        continue;
                    }
                }
            } else {
                Vec::new()
            };
            let (q, ev) = (self.question.text, self.question.evidence);
            let messages = prompts::generate_with(g, &self.schema.text, q, ev, &self.grounding, &self.constraints, &examples);
            for k in 0..self.opts.samples {
                jobs.push((g, k, messages.clone(), examples.len()));
            }
        }
        // 2. all first answers at once; a sample after the first is drawn warmer, with its own seed
        let requests: Vec<ChatRequest> = jobs
            .iter()
            .map(|(g, k, messages, _)| {
                let mut request = self.request(messages.clone(), "sql_answer", g.schema(), SQL_ANSWER_TOKENS);
                if *k > 0 {
                    request.temperature = request.temperature.max(SAMPLE_TEMPERATURE);
                    request.seed = Some(self.opts.seed.unwrap_or(0) + *k as u64);
                }
                request
            })
            .collect();
        let started = Instant::now();
        let replies = self.model.chat_all(requests);
        let fanout_ms = started.elapsed().as_secs_f64() * 1000.0;
        let mut candidates: Vec<(Generator, String)> = Vec::new();
        let mut first_error = None;
        let mut first_unusable: Option<String> = None;
        for ((g, k, messages, examples), reply) in jobs.into_iter().zip(replies) {
            let label = if self.opts.samples > 1 { format!("{} (sample {})", g.name(), k + 1) } else { g.name().to_string() };
            let reply = match reply {
                Ok(r) => r,
                Err(e) => {
                    self.trace.step(Stage::Generate, Status::Error, format!("{label}: the model call failed: {e}"), None, json!({"generator": g.name()}))?;
                    first_error.get_or_insert(e);
                    continue;
                }
            };
            self.trace.count(&reply);
            // an unusable first answer gets the sequential format retries of a single generation
            match self.sql_answer(messages, Stage::Generate, &label, g.schema(), Some(reply.clone()))? {
                Ok(sql) => {
                    self.trace.step(Stage::Generate, Status::Ok, format!("{label}: candidate SQL"), Some(sql.clone()),
                                    json!({"generator": g.name(), "sample": k + 1, "examples": examples,
                                           "llm_ms": reply.elapsed.as_secs_f64() * 1000.0}))?;
                    candidates.push((g, sql));
                }
                Err(e) => {
                    let why = format!("{label}: no usable SQL: {e}");
                    self.trace.step(Stage::Generate, Status::Error, why.clone(), None, json!({"generator": g.name()}))?;
                    first_unusable.get_or_insert(why);
                }
            }
        }
        if candidates.is_empty() {
            // a model that cannot be reached is the call's error; answers that hold no usable SQL end the run
            return match first_error {
                Some(e) => Err(e.into()),
                None => Ok(Err(format!("no generator returned a usable SQL query ({})", first_unusable.as_deref().unwrap_or("no generator ran")))),
            };
        }
        self.candidates_stage(candidates, fanout_ms).map(Ok)
    }

    /// The `candidates` stage: run, cluster, weigh; a tournament when asked for and contested.
    fn candidates_stage(&mut self, candidates: Vec<(Generator, String)>, fanout_ms: f64) -> Result<String> {
        let model = self.model.name();
        let experts: Vec<String> = candidates.iter().map(|(g, _)| format!("{}:{model}", g.name())).collect();
        let mut sel = SelectOptions::defaults(&Settings { llm_model: self.opts.llm_model.clone(), ..Settings::default() });
        sel.experts = Some(experts.clone());
        let ran: Vec<Ran> = candidates.iter().map(|(_, sql)| run_candidate(self.db, sql, sel.compare, sel.max_rows)).collect();
        let answers: Vec<Option<Answer>> = ran.iter().map(|r| r.answer.clone()).collect();
        let mut clusters = cluster(&answers);
        let expert_of: Vec<Option<String>> = experts.iter().cloned().map(Some).collect();
        let weights = self.db.expert_weights()?;
        experts::rank(&mut clusters, &expert_of, &weights);
        // the verifier: candidates whose SQL breaks a requirement or draws a repair directive weigh less
        let mut flagged = 0;
        if self.opts.verify && clusters.len() > 1 {
            let found = verified::findings(self.db, self.question.text, &ran, &self.catalog);
            flagged = found.iter().filter(|f| !f.is_empty()).count();
            let by_index: BTreeMap<usize, f64> = experts.iter().enumerate().map(|(i, e)| (i, weights.get(e).copied().unwrap_or(1.0))).collect();
            verified::demote_flagged(&mut clusters, &found, &by_index);
        }
        // the heaviest cluster that ran; if none ran, the first candidate (verification will say why)
        let mut chosen = clusters.first().map_or(0, |c| c.representative());
        let mut how = "weighted majority".to_string();
        let mut tournament = Value::Null;
        let mut played = Vec::new();
        let mut best = (!clusters.is_empty()).then_some(0);
        let contested = clusters.len() > 1 && clusters[0].confidence < sel.select_gate;
        if self.opts.select == Settle::Tournament && contested {
            // no clear majority: duels on separating instances, judged by the model, recorded in this run
            let question = Question { text: self.question.text, evidence: self.question.evidence };
            let catalog = self.catalog.clone();
            played = play(self.db, self.model, &mut self.trace, question, &ran, &clusters, &catalog, &sel)?;
            let duels: Vec<tournament::Duel> = played.iter().map(|p| p.duel).collect();
            let scores;
            (scores, best) = tournament::choose(&clusters, &duels);
            if let Some(ci) = best {
                chosen = clusters[ci].representative();
                how = format!(
                    "tournament: {}",
                    duel_reason(ci, &clusters, &played).unwrap_or_else(|| "no duel was decisive; the heaviest cluster".to_string())
                );
            }
            tournament = json!({"duels": played.len(), "scores": scores});
        }
        // the evidence may not decide: the run says so, with the other reading
        if let Some(a) = best.and_then(|ci| ambiguity(&clusters, &answers, &played, ci, sel.select_gate)) {
            self.alternative = Some((candidates[a.alternative].1.clone(), a.explanation));
        }
        let detail = match clusters.first() {
            Some(c) => format!(
                "{} candidates, {} result cluster{}; chose {}'s by {how} (weight share of the heaviest {:.2}{})",
                candidates.len(),
                clusters.len(),
                if clusters.len() == 1 { "" } else { "s" },
                candidates[chosen].0.name(),
                c.confidence,
                if flagged > 0 { format!("; {flagged} with findings weigh {}", verified::FLAGGED_WEIGHT) } else { String::new() }
            ),
            None => format!("{} candidates, none ran; verifying {}'s", candidates.len(), candidates[0].0.name()),
        };
        let records: Vec<Value> = candidates
            .iter()
            .zip(&ran)
            .enumerate()
            .map(|(i, ((_, sql), r))| {
                let mut v = r.record(i + 1, Some(sql), Some(&experts[i]));
                v["cluster"] = json!(clusters.iter().position(|cl| cl.members.contains(&i)).map(|p| p + 1));
                v
            })
            .collect();
        self.trace.step(
            Stage::Candidates,
            Status::Ok,
            detail,
            Some(candidates[chosen].1.clone()),
            json!({"fanout_ms": fanout_ms, "concurrency": self.model.concurrency(), "tournament": tournament, "candidates": records}),
        )?;
        Ok(candidates[chosen].1.clone())
    }
}


/// Whether PostgreSQL plans `sql` for the caller: an example that reads a column they may not
/// SELECT is never shown to them.
fn plans_as_caller<D: Database + ?Sized>(db: &mut D, sql: &str) -> bool {
    matches!(db.plan(sql), Ok(Outcome::Rows(_)))
}
