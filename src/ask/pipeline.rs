//! The ask pipeline, end to end: question → schema context → values → constraints → scope →
//! what was taught (verified examples, glossary) → probes →
//! (link) → candidate SQL → verdicts → repair → refinement → chosen SQL, every step recorded.
//!
//! It decides everything over the two interfaces of [`crate::effects`]: the database (the safe
//! executor, the catalog, the value index, the experts, the examples, the instance workspace) and
//! the model (chat, chat fan-out, embeddings). An error of either effect that leaves nothing to
//! go on ends the run with that error; one that a stage can do without is recorded as the
//! stage's error step and the run goes on.

use serde_json::{json, Value};

use super::probe::Grounding;
use super::prompts::{self, parse_sql_answer, sql_schema};
use super::repair::Attempt;
use super::scope::Found;
use crate::sql::check_query;
use crate::catalog::{quote_ident, Catalog, RelName};
use crate::constraints::{self, Constraint};
use crate::context::schemas::{Origin, SchemaScope};
use crate::context::{self, Samples, SchemaContext};
use crate::effects::{Database, Model};
use crate::error::{Error, Kind, Result};
use crate::ground::values::{self, SearchLimits};
use crate::llm::{ChatReply, ChatRequest, Message, Usage};
use crate::options::AskOptions;
use crate::result::Outcome;
use crate::trace::{Recorder, Stage, Status, Step, Trace};

/// How many times the model may answer with something that is not SQL before the call fails.
pub const FORMAT_ATTEMPTS: usize = 3;

/// The tokens an answer holding one query may take. A query needs far fewer; an answer that
/// reaches the limit is a model that ran off (repeating itself, or listing values it does not
/// have), and asking it the same again at temperature 0 runs off the same way (a question that
/// needs the countries of the European Union: six answers of 700 tokens, 9 minutes, with the
/// 1.5B model), so such an answer is not asked again.
pub const SQL_ANSWER_TOKENS: u32 = 700;

/// Text columns sampled for the schema context, at most.
const SAMPLED_COLUMNS: usize = 40;

/// What is asked.
#[derive(Debug, Clone, Copy)]
pub struct Question<'a> {
    pub text: &'a str,
    /// Background knowledge that comes with the question (BIRD's evidence).
    pub evidence: Option<&'a str>,
}

/// The outcome of a run: the chosen SQL and every step that led to it.
#[derive(Debug, Clone)]
pub struct Explanation {
    pub steps: Vec<Step>,
    pub chosen_sql: String,
    /// Every check passed (and verification was on).
    pub verified: bool,
    /// What the last check still found, when not verified.
    pub open_problems: Vec<String>,
    pub usage: Usage,
    pub llm_calls: u32,
    /// N-version candidates that split without the evidence deciding: the other reading's SQL
    /// and, in words, how the two differ.
    pub alternative: Option<(String, String)>,
    /// How the run ended: `ok`, `ambiguous` (verified, but another reading is as well supported),
    /// `unverified` (it runs, with open problems, or verification was off), `error` (no query
    /// that runs: `chosen_sql` is the best attempt, never an answer, or empty when the model wrote
    /// no usable query) or `unanswerable` (the
    /// database cannot answer the question: no SQL was written, `chosen_sql` is empty).
    pub status: Status,
    /// The run ended `unverified` or `ambiguous` and only verified answers are handed over
    /// (option `answer_unverified` off): `chosen_sql` is in the explanation, not an answer.
    pub withheld: bool,
}

impl Explanation {
    /// The run's status in the audit log.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Is there SQL to hand over as the answer? Not when the run ended in `error` or
    /// `unanswerable`, nor when its unverified SQL is [`withheld`](Self::withheld).
    pub fn answered(&self) -> bool {
        !matches!(self.status, Status::Error | Status::Unanswerable) && !self.withheld
    }

    /// Why the run ended as it did, in words (the last step's detail).
    pub fn reason(&self) -> String {
        self.steps.last().map(|s| s.detail.clone()).unwrap_or_default()
    }
}

/// One run in progress.
pub(super) struct Ask<'a, 'r, D: Database + ?Sized, M: Model + ?Sized> {
    pub db: &'a mut D,
    pub model: &'a mut M,
    pub trace: Trace<'r>,
    pub catalog: Catalog,
    pub question: Question<'a>,
    pub opts: &'a AskOptions,
    pub schema: SchemaContext,
    pub constraints: Vec<Constraint>,
    pub grounding: Grounding,
    /// Columns whose indexed values the question names (value linking).
    pub value_columns: Vec<(RelName, String)>,
    /// The stored values the value index matched in the question: (`table.column`, value).
    pub value_hits: Vec<(String, String)>,
    /// The other reading of a split the N-version candidates left open: (SQL, explanation).
    pub alternative: Option<(String, String)>,
    /// The stored examples nearest to the question, once searched (the `taught` stage and the
    /// few-shot generator read the same ones).
    pub nearest: Option<Vec<crate::ground::taught::Example>>,
    /// The verified example that asks the question again, possibly of another value or number,
    /// and the SQL that answers it (the `taught` stage's judgement,
    /// [`crate::ground::same::asked_again`]): that SQL is the candidate.
    pub asked_again: Option<crate::ground::same::AskedAgain<crate::ground::taught::Example>>,
    /// The generator of a fresh generation that replaced a query repair could not make run
    /// (`verify`'s last resort): the answer is then already the second reading's generator's.
    pub fresh: Option<super::prompts::Generator>,
    /// The schemas the question is asked of, and why ([`context::schemas`]).
    pub scope: SchemaScope,
    /// The relations the caller can read in the schemas of `scope.readings` (empty when none),
    /// where the chosen query is looked for as the other reading.
    pub readings: Catalog,
    /// Set when the scope stage lets an English question through with words that link to
    /// nothing, which the model's vote read as the schema's, or, every word linking, with names
    /// that no stored value holds ("Republican"): those words, those names and the schema's names
    /// closest to the words. The query written is then judged as further evidence
    /// ([`crate::scope::written`]).
    pub let_through: Option<crate::scope::written::Gap>,
    /// The words of the question that the scope stage found linking to no name of the schema
    /// and raised no suspicion with: verbs and adverbs that link to nothing ("streamed",
    /// "recalled") and words linked only by meaning ("teachers" to `school`, 0.60). No evidence
    /// that data is missing by themselves, but an answer that names its output after one that no
    /// name of the schema holds, and computes it from what holds none of it, presents a stand-in
    /// ([`Self::unnamed_stand_ins`]).
    pub loose_words: Vec<String>,
    /// The verbs and adverbs among [`Self::loose_words`]: words that link to no name at all
    /// ("suspended", "evacuated"), not words linked by meaning.
    pub soft_words: Vec<String>,
    /// The proper names of the question that no stored value the value index matched holds
    /// ("Atlantis"): the question's values, whose answer may be no rows.
    pub unheld_names: Vec<String>,
    /// Every relation the caller can read, in every schema, read again only when a later check
    /// of the run needs it ([`Self::whole_catalog`]), and then once.
    pub whole: Option<Catalog>,
    /// The query of the probe that grounded every value the question names, when it answers the
    /// question rather than looks a value up ([`super::probe::as_answer`]): the candidate, in
    /// place of a generation.
    pub probe_answer: Option<String>,
    /// The last model call that answered with a usable query ([`Exchange`]): a repair of that
    /// query is asked as the conversation's next turn.
    pub exchange: Option<Exchange>,
}

/// A model call that answered with a usable query: its messages with the answer last, the query
/// as the model wrote it, and as [`Ask::sql_answer`] returned it (names resolved).
#[derive(Debug, Clone)]
pub(super) struct Exchange {
    pub messages: Vec<Message>,
    pub written: String,
    pub sql: String,
}

impl<D: Database + ?Sized, M: Model + ?Sized> Ask<'_, '_, D, M> {
    /// The conversation that wrote `sql`, taken for a repair or a refinement asked as its next
    /// turn: the last model call's, when its query (names resolved) is `sql` as the parser prints
    /// it; none otherwise (an earlier call's query, or one no model call wrote).
    pub(super) fn conversation_for(&mut self, sql: &str) -> Option<Exchange> {
        self.exchange.take().filter(|x| super::repair::normalise(&x.sql) == super::repair::normalise(sql))
    }
}

/// Answer `question`: the whole pipeline, every step recorded through `recorder`.
pub fn ask<D: Database + ?Sized, M: Model + ?Sized>(
    db: &mut D,
    model: &mut M,
    recorder: &mut dyn Recorder,
    question: Question,
    opts: &AskOptions,
) -> Result<Explanation> {
    if question.text.trim().is_empty() {
        return Err(Error::invalid("the question is empty").with_hint("Ask a question about the data in words."));
    }
    let everything = db.catalog()?;
    if everything.tables.is_empty() {
        return Err(Error::new(Kind::Privilege, "you cannot SELECT from any table, so there is nothing to ask about")
            .with_hint("Ask the owner of the data for SELECT privileges, or check search_path and schema USAGE."));
    }
    let scope = context::schemas::choose(&everything, &opts.schemas, question.text)?;
    let (scope, unsettled) = if opts.values { settle_by_values(db, &everything, question.text, scope) } else { (scope, None) };
    let readings = if scope.readings.is_empty() { Catalog::default() } else { everything.in_schemas(&scope.readings) };
    let catalog = if scope.outside == 0 { everything } else { everything.in_schemas(&scope.schemas) };
    let mut trace = Trace::new(recorder);
    let schema = schema_context(db, &catalog, question.text, opts.schema_token_budget, &scope, unsettled, &mut trace)?;
    let mut ask = Ask {
        db,
        model,
        trace,
        catalog,
        question,
        opts,
        schema,
        constraints: constraints::extract(question.text, question.evidence),
        grounding: Grounding::default(),
        value_columns: Vec::new(),
        value_hits: Vec::new(),
        alternative: None,
        nearest: None,
        asked_again: None,
        fresh: None,
        scope,
        readings,
        let_through: None,
        loose_words: Vec::new(),
        soft_words: Vec::new(),
        unheld_names: Vec::new(),
        whole: None,
        probe_answer: None,
        exchange: None,
    };
    if opts.values {
        ask.ground_values()?;
    }
    ask.run()
}

/// The choice among the schemas whose names fit the question best or nearly, settled by the values
/// they store ([`context::schemas::settle_by_values`]): the words the question writes as values
/// (quoted or capitalized) are searched by trigrams in the value index of those schemas only (no
/// model call), and a match counts only in a column the caller may read and when its value is
/// visible to them now. With the second, why the index could not be read (the choice by names
/// then stands, and the schema step says so).
fn settle_by_values<D: Database + ?Sized>(db: &mut D, catalog: &Catalog, question: &str, scope: SchemaScope) -> (SchemaScope, Option<String>) {
    if scope.origin != Origin::BestFit || scope.contenders.len() < 2 {
        return (scope, None);
    }
    let Some(term) = context::schemas::value_terms(question) else { return (scope, None) };
    let tied: Vec<String> = scope.contenders.iter().map(|(s, _)| s.clone()).collect();
    let search = crate::effects::ValueSearch { term, embedding: Vec::new(), schemas: tied };
    let found = match db.value_candidates(&[search]) {
        Ok(found) => found,
        Err(e) => return (scope, Some(format!("the value index could not settle the tie ({e})"))),
    };
    let mut stored = Vec::new();
    for m in context::schemas::worth_checking(question, found, |m| m.value.as_str()) {
        if catalog.table(&m.table).and_then(|t| t.column(&m.column)).is_none() {
            continue;
        }
        if let Ok(Outcome::Rows(r)) = db.run(&values::visible_sql(&m.table, &m.column, &m.value), 1) {
            if !r.rows.is_empty() {
                stored.push((m.table.schema.clone(), m.value));
            }
        }
    }
    (context::schemas::settle_by_values(scope, catalog, question, &stored), None)
}

/// A few distinct values of the text columns of `tables`, read through the executor as the caller.
pub(super) fn sample_values<D: Database + ?Sized>(db: &mut D, catalog: &Catalog, tables: &[RelName], cap: usize) -> Samples {
    let mut samples = Samples::new();
    let text_columns = catalog
        .tables
        .iter()
        .filter(|t| tables.contains(&t.name))
        .flat_map(|t| t.columns.iter().map(move |c| (t, c)))
        .filter(|(_, c)| c.type_name == "text" || c.type_name.starts_with("character"))
        .take(cap);
    for (t, c) in text_columns {
        let sql = format!("SELECT DISTINCT {col} FROM {rel} WHERE {col} IS NOT NULL LIMIT 3", col = quote_ident(&c.name), rel = t.name);
        if let Ok(Outcome::Rows(r)) = db.run(&sql, 3) {
            let vals: Vec<String> = r.rows.iter().filter_map(|row| row.first()?.as_str().map(str::to_string)).collect();
            samples.insert((t.name.clone(), c.name.clone()), vals);
        }
    }
    samples
}

fn names(v: &[RelName]) -> Vec<String> {
    v.iter().map(ToString::to_string).collect()
}

/// Relations cut for the budget, in words: all of them when few, else the first and how many.
fn cut_names(cut: &[RelName]) -> String {
    const SHOWN: usize = 12;
    let mut text = names(&cut[..cut.len().min(SHOWN)]).join(", ");
    if cut.len() > SHOWN {
        text.push_str(&format!(" and {} more", cut.len() - SHOWN));
    }
    text
}

/// The `schema` stage: the tables most relevant to the question within the token budget, with
/// sample values of their text columns, in the schemas of `scope`.
fn schema_context<D: Database + ?Sized>(
    db: &mut D,
    catalog: &Catalog,
    question: &str,
    budget: usize,
    scope: &SchemaScope,
    unsettled: Option<String>,
    trace: &mut Trace,
) -> Result<SchemaContext> {
    let first = context::build(catalog, &Samples::new(), question, budget);
    let samples = sample_values(db, catalog, &first.tables, SAMPLED_COLUMNS);
    let schema = context::build(catalog, &samples, question, budget);
    let mut data = json!({"tables": names(&schema.tables), "cut": names(&schema.cut), "tokens": schema.tokens, "text": schema.text});
    if scope.origin != Origin::Single {
        data["scope"] = scope.to_json();
    }
    trace.step(
        Stage::Schema,
        Status::Ok,
        format!(
            "{}{} tables (~{} tokens){}",
            if scope.origin == Origin::Single { String::new() } else { format!("in {}: ", scope.describe()) },
            schema.tables.len(),
            schema.tokens,
            if schema.cut.is_empty() { String::new() } else { format!("; cut for the budget: {}", cut_names(&schema.cut)) }
        ) + &unsettled.map(|u| format!("; {u}")).unwrap_or_default(),
        None,
        data,
    )?;
    Ok(schema)
}

impl<D: Database + ?Sized, M: Model + ?Sized> Ask<'_, '_, D, M> {
    /// A chat request at the call's temperature and seed, its answer held to `schema`.
    pub(super) fn request(&self, messages: Vec<Message>, schema_name: &str, schema: Value, max_tokens: u32) -> ChatRequest {
        ChatRequest {
            messages,
            temperature: self.opts.temperature,
            max_tokens: Some(max_tokens),
            json_schema: Some((schema_name.into(), schema)),
            seed: self.opts.seed,
            ..Default::default()
        }
    }

    /// One model call; its failure ends the run.
    pub(super) fn chat(&mut self, messages: Vec<Message>, schema_name: &str, schema: Value, max_tokens: u32) -> Result<ChatReply> {
        let request = self.request(messages, schema_name, schema, max_tokens);
        let reply = self.model.chat(request)?;
        self.trace.count(&reply);
        Ok(reply)
    }

    /// Ask for SQL until the answer is a usable query, at most [`FORMAT_ATTEMPTS`] times. `Ok(Err)`
    /// is a model that never gave usable SQL; `Err` a failed model call.
    pub(super) fn ask_sql(&mut self, messages: Vec<Message>, stage: Stage) -> Result<std::result::Result<String, String>> {
        self.sql_answer(messages, stage, "", sql_schema(), None)
    }

    /// The SQL of a usable answer, asking again (at most [`FORMAT_ATTEMPTS`] answers in all) with
    /// what was wrong; `first` is an answer already received from a fan-out, which counts as the
    /// first. Retry steps are labelled with `label` (a generator's name, or nothing). An unusable
    /// answer the model stopped at the token limit is not asked again ([`SQL_ANSWER_TOKENS`]).
    pub(super) fn sql_answer(
        &mut self,
        mut messages: Vec<Message>,
        stage: Stage,
        label: &str,
        schema: Value,
        mut first: Option<ChatReply>,
    ) -> Result<std::result::Result<String, String>> {
        let mut last = String::new();
        for attempt in 1..=FORMAT_ATTEMPTS {
            let reply = match first.take() {
                Some(reply) => reply,
                None => self.chat(messages.clone(), "sql_answer", schema.clone(), SQL_ANSWER_TOKENS)?,
            };
            let content = reply.content;
            match parse_sql_answer(&content) {
                Ok(written) => {
                    let sql = self.resolve_names(written.clone(), label)?;
                    messages.push(Message::assistant(content));
                    self.exchange = Some(Exchange { messages, written, sql: sql.clone() });
                    return Ok(Ok(sql));
                }
                Err(e) => {
                    let prefix = if label.is_empty() { String::new() } else { format!("{label}: ") };
                    if reply.cut_off {
                        let e = format!("the answer ran to the token limit ({SQL_ANSWER_TOKENS}) and was cut off ({e})");
                        let detail = format!("{prefix}answer {attempt} was not usable: {e}; not asked again, a model that ran off once runs off again");
                        self.trace.step(stage, Status::Stopped, detail, None, json!({"answer": content, "cut_off": true}))?;
                        return Ok(Err(e));
                    }
                    self.trace.step(stage, Status::Retry, format!("{prefix}answer {attempt} was not usable: {e}"), None, json!({"answer": content}))?;
                    messages.push(Message::assistant(content));
                    messages.push(Message::user(format!(
                        "That answer was not usable: {e}. Reply with JSON {{\"sql\": \"SELECT ...\"}} holding one PostgreSQL query."
                    )));
                    last = e;
                }
            }
        }
        Ok(Err(last))
    }

    /// The model's SQL with its relation names resolved in the schemas asked of
    /// ([`crate::sql::names`]), recorded as a `fix` step when a name changed.
    fn resolve_names(&mut self, sql: String, label: &str) -> Result<String> {
        let Some(resolved) = crate::sql::names::resolve(&sql, &self.catalog) else { return Ok(sql) };
        let prefix = if label.is_empty() { String::new() } else { format!("{label}: ") };
        let detail = format!("{prefix}relation names resolved in the schemas asked of: {}", resolved.changes.join("; "));
        self.trace.step(Stage::Fix, Status::Ok, detail, Some(resolved.sql.clone()), json!({"fix": "names", "before": sql, "changes": resolved.changes}))?;
        Ok(resolved.sql)
    }

    /// The `values` stage: values of the schema's tables that the question names, from the value
    /// index, become value mappings of the grounding. With `value_keywords`, the model first names
    /// the question's values (one call) and each is searched as well as the whole question.
    fn ground_values(&mut self) -> Result<()> {
        let tables = self.schema.tables.clone();
        match self.db.indexed_any(&tables) {
            Ok(true) => {}
            Ok(false) => {
                return self.trace.step(
                    Stage::Values,
                    Status::Skipped,
                    "no column of these tables is in the value index (nl2sql_index_values builds it)",
                    None,
                    Value::Null,
                )
            }
            Err(e) => return self.trace.step(Stage::Values, Status::Error, format!("the value index could not be read: {e}"), None, Value::Null),
        }
        let mut terms = Vec::new();
        if self.opts.value_keywords {
            match self.keywords() {
                Ok(k) => terms = k,
                Err(e) => self.trace.step(Stage::Values, Status::Error, format!("no keywords from the model ({e}); the question is searched as a whole"), None, Value::Null)?,
            }
        }
        let keywords = terms.clone();
        terms.push(self.question.text.to_string());
        let limits = SearchLimits { max_results: 8, per_column: 2, min_score: 0.5 };
        // a question asked of some schemas of many searches the values of those only
        let within = if self.scope.outside > 0 { self.scope.schemas.clone() } else { Vec::new() };
        match values::search(self.db, self.model, &self.catalog, &terms, limits, &within) {
            Ok(hits) => {
                // a value the question shares only the schema's words with is noise: "the ship with the
                // largest tonnage" does not ask for the type 'Cargo ship'
                let words = crate::context::name_stems(&self.catalog, &tables);
                let (hits, named_by_schema): (Vec<_>, Vec<_>) = hits
                    .into_iter()
                    .filter(|h| tables.contains(&h.table))
                    .partition(|h| !values::named_only_by_schema(&h.value, self.question.text, &words));
                for h in &hits {
                    self.grounding.value_mappings.insert(
                        h.value.clone(),
                        format!("{}.{} = {}", h.table, quote_ident(&h.column), values::literal(&h.value)),
                    );
                }
                let show = |h: &values::ValueMatch| format!("{}.{} = '{}'", h.table.name, h.column, h.value);
                let shown: Vec<String> = hits.iter().map(show).collect();
                let left: Vec<String> = named_by_schema.iter().map(show).collect();
                let found = if shown.is_empty() { "no indexed value matches the question".to_string() } else { format!("matched {}", shown.join(", ")) };
                let detail = if left.is_empty() { found } else { format!("{found}; left out {} (the question shares only names of the schema with it)", left.join(", ")) };
                self.trace.step(
                    Stage::Values,
                    Status::Ok,
                    detail,
                    None,
                    json!({"keywords": keywords, "matches": hits.iter().map(|h| json!({"table": h.table.to_string(), "column": h.column,
                        "value": h.value, "score": h.score(), "matched_by": h.matched_by()})).collect::<Vec<_>>()}),
                )?;
                self.value_hits = hits.iter().map(|h| (format!("{}.{}", h.table.name, h.column), h.value.clone())).collect();
                self.value_columns = hits.into_iter().map(|h| (h.table, h.column)).collect();
                Ok(())
            }
            Err(e) => self.trace.step(Stage::Values, Status::Error, format!("the value index could not be searched: {e}"), None, Value::Null),
        }
    }

    /// The question's keywords, from the model (one call): what it names that a cell could hold.
    fn keywords(&mut self) -> Result<Vec<String>> {
        let reply = self.model.chat(ChatRequest {
            messages: prompts::keywords(self.question.text, self.question.evidence),
            temperature: 0.0,
            max_tokens: Some(200),
            json_schema: Some(("keywords".into(), prompts::keywords_schema())),
            ..Default::default()
        })?;
        self.trace.count(&reply);
        prompts::parse_keywords(&reply.content).map_err(|e| Error::new(Kind::Model, e))
    }

    fn run(mut self) -> Result<Explanation> {
        let constraints_json = serde_json::to_value(&self.constraints).unwrap_or(Value::Null);
        let detail = if self.constraints.is_empty() {
            "no constraints found in the question".into()
        } else {
            self.constraints.iter().map(|c| format!("{} (\"{}\")", c.name(), c.phrase)).collect::<Vec<_>>().join(", ")
        };
        self.trace.step(Stage::Constraints, Status::Ok, detail, None, constraints_json)?;
        if let Some((kind, reason)) = self.scope()? {
            return self.refuse(kind, reason);
        }
        self.taught()?;
        if let Some(asked_again) = self.asked_again.take() {
            if let Some(chosen) = self.reuse(&asked_again)? {
                return self.finish(chosen, true);
            }
        }
        self.probe_loop()?;
        if self.opts.two_round {
            self.link_round()?;
        }
        let generated = if self.opts.single_generation() { self.single()? } else { self.n_version()? };
        let sql = match generated {
            Ok(sql) => sql,
            Err(reason) => {
                if let Some((kind, reason)) = self.unwritten_scope(&format!("the model wrote no usable query: {reason}"), None)? {
                    return self.refuse(kind, reason);
                }
                return self.no_query(reason);
            }
        };
        if !self.opts.verify {
            self.trace.step(Stage::Verify, Status::Skipped, "verification is off", Some(sql.clone()), Value::Null)?;
            if let Some((kind, reason)) = self.written_scope(&sql)? {
                return self.refuse(kind, reason);
            }
            return self.finish(Attempt { sql, violated: vec![], problems: vec![], fails: false }, false);
        }
        let (mut chosen, empty) = self.verify_and_repair(sql)?;
        if let Some(problem) = self.misread_join(&chosen) {
            chosen.problems.push(problem);
        }
        let chosen = if self.opts.single_generation() { self.confirm(chosen)? } else { chosen };
        if let Some((kind, reason)) = self.written_scope(&chosen.sql)? {
            return self.refuse(kind, reason);
        }
        if let Some((kind, reason)) = self.future_scope(&chosen, empty)? {
            return self.refuse(kind, reason);
        }
        if let Some((kind, reason)) = self.absent_scope(&chosen)? {
            return self.refuse(kind, reason);
        }
        if chosen.fails {
            if let Some((kind, reason)) = self.unwritten_scope(&chosen.problems.join("; "), Some(&chosen.sql))? {
                return self.refuse(kind, reason);
            }
        }
        if let Some((kind, reason)) = self.nowhere_scope(&chosen)? {
            return self.refuse(kind, reason);
        }
        if let Some((kind, reason)) = self.own_value_scope(&chosen)? {
            return self.refuse(kind, reason);
        }
        if let Some((kind, reason)) = self.unlinked_value_scope(&chosen)? {
            return self.refuse(kind, reason);
        }
        if let Some((kind, reason)) = self.related_name_scope(&chosen)? {
            return self.refuse(kind, reason);
        }
        if let Some((kind, reason)) = self.common_value_scope(&chosen)? {
            return self.refuse(kind, reason);
        }
        self.finish(chosen, true)
    }

    /// A column the model put on the wrong table and a fix moved, leaving a joined table the
    /// answer reads nothing from: the query runs, but the model misread the schema and joined by
    /// that reading (on spider_train such answers were right half the time): an open problem,
    /// not `ok`.
    fn misread_join(&self, chosen: &Attempt) -> Option<String> {
        if chosen.fails {
            return None;
        }
        let moved = self.trace.steps.iter().filter(|s| s.stage == Stage::Fix && s.status == Status::Ok && s.data["fix"] == "alias").last()?;
        let idle = check_query(&chosen.sql).map(|c| crate::checks::needless_join::idle_tables(&c.query, &self.catalog)).unwrap_or_default();
        if idle.is_empty() {
            return None;
        }
        let what = moved.detail.split("; now:").next().unwrap_or_default();
        Some(format!(
            "{what}, by a mechanical fix, and the answer now reads nothing from {}: the model misread which table holds the column, so the join is no evidence",
            idle.join(", ")
        ))
    }

    /// End the run without SQL: the database cannot answer the question.
    fn refuse(self, kind: crate::scope::Kind, reason: String) -> Result<Explanation> {
        let detail = format!("the database cannot answer this question ({}): {reason}", kind.as_str().replace('_', " "));
        self.without_sql(Status::Unanswerable, detail, json!({"kind": kind, "reason": reason}), reason)
    }

    /// End the run without SQL: the model wrote no usable query (every prompt's answers were not
    /// one read-only query). A run that ends `error`, recorded like any other, not an error that
    /// takes the audit row back with the caller's transaction.
    fn no_query(self, reason: String) -> Result<Explanation> {
        let detail = format!("no usable SQL: {reason}; a larger model (option llm_model) or a rephrased question may give one");
        self.without_sql(Status::Error, detail, json!({"open_problems": [reason]}), reason)
    }

    /// The `chosen` step of a run that ends without SQL, with the run's usage added to `data`, and
    /// the explanation it ends with.
    fn without_sql(mut self, status: Status, detail: String, mut data: Value, reason: String) -> Result<Explanation> {
        self.trace.usage_into(&mut data);
        self.trace.step(Stage::Chosen, status, detail, None, data)?;
        Ok(Explanation {
            steps: self.trace.steps,
            chosen_sql: String::new(),
            verified: false,
            open_problems: vec![reason],
            usage: self.trace.usage,
            llm_calls: self.trace.llm_calls,
            alternative: None,
            status,
            withheld: false,
        })
    }

    /// Another schema that fits the question as well as the one asked of, where the chosen query
    /// reads the same names and plans: that schema, the query there, and why it is a reading.
    fn other_schema_reading(&mut self, sql: &str) -> Option<(String, String)> {
        let home = self.scope.schemas.first()?.clone();
        for other in self.scope.readings.clone() {
            let Some(there) = crate::sql::names::moved(sql, &home, &other, &self.readings) else { continue };
            if matches!(self.db.plan(&there), Ok(Outcome::Rows(_))) {
                let why = format!(
                    "the question fits schema {home} and schema {other} equally well, and the query reads either; name the schema (option schemas, setting nl2sql.schemas, or search_path) to decide"
                );
                return Some((there, why));
            }
        }
        None
    }

    /// Why the scope's other readings, which the chosen query does not read (their names differ),
    /// still make the run ambiguous: the tie is in the question's words, not in the query.
    fn unwritten_readings(&self) -> Option<String> {
        let home = self.scope.schemas.first()?;
        Some(format!(
            "the question fits schema {home} and {} {} equally well by their names, and this query was written for {home} only; \
             name the schema (option schemas, setting nl2sql.schemas, or search_path) to ask of another",
            if self.scope.readings.len() == 1 { "schema" } else { "schemas" },
            self.scope.readings_named()
        ))
    }

    /// Is `sql` a verified example's SQL, reused as the answer (the `generate` step of
    /// [`Self::reuse`])?
    fn reused(&self, sql: &str) -> bool {
        self.trace.steps.iter().any(|s| {
            s.stage == Stage::Generate && matches!(s.data["generator"].as_str(), Some("verified_example" | "adapted_example")) && s.sql.as_deref() == Some(sql)
        })
    }

    fn finish(mut self, mut chosen: Attempt, verified: bool) -> Result<Explanation> {
        // a value the question does not name, a number or a threshold it does not give: what the
        // answer rests on is the model's, not verified; a year for the date asked: less than was
        // asked; a column of which each thing asked about has many: no attribute of it; a column
        // renamed as what was asked, no time for "when", only quantities for "who", a sort by
        // what holds nothing of what to sort by, an output named after a loose word the schema
        // names nowhere and computed from what holds none of it: another thing, read of every
        // answer that runs, clean or not (an unverified answer can return another thing too:
        // "When was each review written?" answered with ratings, unverified for its join)
        // (no vote is asked of a verified example's SQL reused: a curator's answer is the database's)
        let reused = self.reused(&chosen.sql);
        let was_clean = chosen.is_clean();
        let mut assumed: Vec<String> = Vec::new();
        let mut another: Vec<String> = Vec::new();
        let mut stand_ins = None;
        // the answer as parsed, once for every check below (its SQL does not change here)
        let checked = if verified && !chosen.fails { check_query(&chosen.sql).ok() } else { None };
        if let Some(checked) = &checked {
            stand_ins = self.unnamed_stand_ins(&checked.query);
            assumed = self
                .assumed_values(&checked.query)
                .into_iter()
                .chain(self.assumed_numbers(&checked.query))
                .chain(self.assumed_thresholds(&checked.query))
                .collect();
            another = self
                .coarser_answers(&checked.query)
                .into_iter()
                .chain(self.many_per_each(&checked.query))
                .chain(self.relabelled_columns(&checked.query))
                .chain(self.untimed_answers(&checked.query))
                .chain(self.quantities_for_who(&checked.query))
                .chain(self.unheld_sort_keys(&checked.query))
                .chain(stand_ins.as_ref().map(super::scope::StandIns::problem))
                .collect();
        }
        // a value, a number or a bound the question does not give, in an answer that reads
        // nothing for a word of the question that links to no name: the two agree that the query
        // stands in for what the data does not hold, no vote
        if let Some(checked) = checked.as_ref().filter(|_| !reused) {
            if let Some((kind, reason)) = self.assumed_scope(&chosen.sql, &checked.query, &assumed)? {
                return self.refuse(kind, reason);
            }
        }
        // an output named after a word of the question no name of the schema holds, computed from
        // what holds none of it: a stand-in for what the schema has no place for, no vote
        if let Some(found) = stand_ins.as_ref().filter(|_| !reused) {
            if let Some((kind, reason)) = self.stand_in_scope(&chosen.sql, found)? {
                return self.refuse(kind, reason);
            }
        }
        // another thing returned than was asked, while a reading also looked for a name after the
        // question's words that the database has nowhere: the two checks agree, no vote
        if !reused && !another.is_empty() {
            let invented = self.names_written_nowhere()?;
            if let Some((kind, reason)) = self.agreed_scope(&chosen.sql, &another, &invented)? {
                return self.refuse(kind, reason);
            }
        }
        // a clean answer that returns another thing: does the database hold what was asked?
        let asked = was_clean && !reused && !another.is_empty();
        if asked {
            if let Some((kind, reason)) = self.answer_scope(&chosen.sql, &another, Found::AnotherThing)? {
                return self.refuse(kind, reason);
            }
        }
        chosen.problems.extend(assumed);
        chosen.problems.extend(another.iter().cloned());
        // an answer about to end unverified, once a run (not when the model was just asked of
        // another thing returned): readings of the question looked for names the database has
        // nowhere, named after the question's words; or, when none did, the answer returns
        // another thing than was asked: does the database hold what was asked? (a value, a number
        // or a bound the question does not give is no finding for the vote: shown one, the model
        // said the database holds what was asked all 11 times it was asked, 9 of them of
        // unanswerable questions; forty-seventh session)
        if verified && !chosen.is_clean() && !chosen.fails && !asked && !reused {
            let invented = self.invented_names()?;
            let (found, why) = if invented.is_empty() { (another, Found::AnotherThing) } else { (invented, Found::InventedNames) };
            if let Some((kind, reason)) = self.answer_scope(&chosen.sql, &found, why)? {
                return self.refuse(kind, reason);
            }
        }
        // a word the scope stage let through on the vote that the answer writes nothing for: the
        // answer is not verified; read after the votes above, so that it asks no vote; two or
        // more such words: the vote and the query disagree on what the schema holds, refused
        // with no vote again
        let unread = checked.as_ref().filter(|_| !reused).map(|c| self.unwritten_words(&c.query)).unwrap_or_default();
        chosen.problems.extend(super::scope::unwritten_problem(&unread));
        if let Some((kind, reason)) = self.unread_scope(&chosen.sql, &unread)? {
            return self.refuse(kind, reason);
        }
        let clean = verified && chosen.is_clean();
        // two readings of the question that pass every check and return different rows, neither
        // of which reads anything for a verb or adverb of the question that links to no name:
        // two guesses at what the data does not hold, not two readings; no vote
        if let (true, false, Some(checked), Some((other, _))) = (clean, reused, checked.as_ref(), self.alternative.clone()) {
            if let Some((kind, reason)) = self.guessed_scope(&chosen.sql, &checked.query, &other)? {
                return self.refuse(kind, reason);
            }
        }
        let mut unwritten = None;
        if clean && self.alternative.is_none() && !self.scope.readings.is_empty() {
            self.alternative = self.other_schema_reading(&chosen.sql);
            if self.alternative.is_none() {
                unwritten = self.unwritten_readings();
            }
        }
        let detail = if clean {
            "verified: every constraint holds, it plans and runs".to_string()
        } else if !verified {
            "not verified (verification is off)".to_string()
        } else {
            format!("open problems: {}", chosen.problems.join("; "))
        };
        let mut data = json!({"open_problems": chosen.problems});
        self.trace.usage_into(&mut data);
        let (status, detail) = match (&self.alternative, clean) {
            // SQL that does not run is never the answer: the run ends in error, the best attempt
            // and why it fails in the explanation
            _ if verified && chosen.fails => (
                Status::Error,
                format!("no query that runs: the best attempt fails ({}); it is not returned as an answer", chosen.problems.join("; ")),
            ),
            (Some((sql, why)), true) => {
                data["alternative"] = json!({"sql": sql, "explanation": why});
                (Status::Ambiguous, format!("{detail}; ambiguous: {why}; the other reading: {sql}"))
            }
            // a tie between schemas is no silent pick, even when the other schemas' names differ
            // so that the query does not read them
            (None, true) if unwritten.is_some() => {
                let why = unwritten.unwrap_or_default();
                data["alternative"] = json!({"schemas": self.scope.readings, "explanation": why});
                (Status::Ambiguous, format!("{detail}; ambiguous: {why}"))
            }
            (_, true) => (Status::Ok, detail),
            (_, false) => (Status::Unverified, detail),
        };
        // only verified answers wanted: the status stays what the evidence says, the SQL is not
        // handed over
        let withheld = !self.opts.answer_unverified && matches!(status, Status::Unverified | Status::Ambiguous);
        let detail = if withheld {
            data["withheld"] = json!(true);
            format!("{detail}; not handed over: only verified answers are (answer_unverified is off)")
        } else {
            detail
        };
        self.trace.step(Stage::Chosen, status, detail, Some(chosen.sql.clone()), data)?;
        Ok(Explanation {
            steps: self.trace.steps,
            chosen_sql: chosen.sql,
            verified: clean,
            open_problems: chosen.problems,
            usage: self.trace.usage,
            llm_calls: self.trace.llm_calls,
            alternative: self.alternative,
            status,
            withheld,
        })
    }
}
