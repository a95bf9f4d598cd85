//! The ask pipeline (PV-SQL in the database): schema context → constraints → probes → generate →
//! verify → repair → chosen. Every step is a row of the explanation, a NOTICE for a psql user
//! watching, and a row of the audit log.

use std::collections::BTreeMap;
use std::time::Instant;

use nl2sql_core::ask::probe::{observation, parse_step, step_schema, ProbeBudget};
use nl2sql_core::ask::prompts::{self, parse_sql_answer, sql_schema, Generator};
use nl2sql_core::ask::repair::{judge, schema_hints, Attempt, Judgement};
use nl2sql_core::ask::Grounding;
use nl2sql_core::catalog::{quote_ident, Catalog};
use nl2sql_core::constraints::facts::{facts_of, SqlDialect};
use nl2sql_core::constraints::{self, Constraint};
use nl2sql_core::context::{self, Samples, SchemaContext};
use nl2sql_core::llm::json::extract_json;
use nl2sql_core::llm::{ChatReply, ChatRequest, Endpoint, Message, Usage};
use nl2sql_core::result::Outcome;
use nl2sql_core::sql::{check_query, limit::impose_limit};
use pgrx::prelude::*;
use serde_json::{json, Value};

use crate::gucs;
use crate::spi::{audit, catalog, executor};

/// Per-call settings: `nl2sql.*` GUCs overridden by the call's `options`.
#[derive(Debug, Clone)]
pub struct AskOptions {
    pub max_probes: usize,
    pub max_repairs: usize,
    pub probe_rows: usize,
    pub schema_token_budget: usize,
    pub temperature: f32,
    pub model: Option<String>,
    pub seed: Option<u64>,
    pub probe: bool,
    pub verify: bool,
    pub repair: bool,
    /// Look the question's values up in the value index.
    pub values: bool,
    /// The values stage first asks the model for the question's keywords (one call) and searches
    /// each; off by default: with the local 1.5B model it found 1 more gold value of 295 (Benchmark 4)
    /// for 2.8 s per question.
    pub value_keywords: bool,
    /// Refine a query whose result is empty (one round).
    pub refine: bool,
    /// The generators of N-version generation (one: a single generation).
    pub generators: Vec<Generator>,
    /// Two-round generation: a draft, its schema linked and closed over foreign keys, then the
    /// final generation on that pruned schema.
    pub two_round: bool,
    /// Answers drawn from each generator.
    pub samples: usize,
    /// Settle disagreeing N-version candidates by duels on separating instances.
    pub tournament: bool,
    /// Rows `nl2sql_execute` returns.
    pub max_rows: i32,
}

const OPTION_KEYS: &[&str] = &[
    "max_probes", "max_repairs", "probe_rows", "schema_token_budget", "temperature", "model", "seed", "probe",
    "verify", "repair", "refine", "values", "value_keywords", "generators", "samples", "select", "two_round", "max_rows",
];

const GENERATORS_WANTED: &str = "a non-empty array of \"direct\", \"skeleton\", \"decompose\", \"few_shot\"";

fn bad_option(key: &str, want: &str) -> ! {
    crate::errors::raise("22023", format!("option \"{key}\" must be {want}"), Some("See docs/sql-reference.md, options."))
}

impl AskOptions {
    pub fn from_json(options: &Value) -> Self {
        let obj = match options {
            Value::Object(m) => m.clone(),
            Value::Null => Default::default(),
            _ => crate::errors::raise("22023", "options must be a JSON object", Some("For example '{\"max_probes\": 0}'")),
        };
        if let Some(k) = obj.keys().find(|k| !OPTION_KEYS.contains(&k.as_str())) {
            crate::errors::raise(
                "22023",
                format!("unknown option \"{k}\""),
                Some(&format!("Valid options: {}.", OPTION_KEYS.join(", "))),
            );
        }
        let count = |key: &str, default: i32, max: i64| -> usize {
            match obj.get(key) {
                None => default.max(0) as usize,
                Some(v) => match v.as_i64() {
                    Some(n) if (0..=max).contains(&n) => n as usize,
                    _ => bad_option(key, &format!("an integer from 0 to {max}")),
                },
            }
        };
        let flag_or = |key: &str, default: bool| match obj.get(key) {
            None => default,
            Some(Value::Bool(b)) => *b,
            Some(_) => bad_option(key, "true or false"),
        };
        let flag = |key: &str| flag_or(key, true);
        AskOptions {
            max_probes: count("max_probes", gucs::MAX_PROBES.get(), 5),
            max_repairs: count("max_repairs", gucs::MAX_REPAIRS.get(), 5),
            probe_rows: count("probe_rows", gucs::PROBE_ROWS.get(), 100).max(1),
            schema_token_budget: count("schema_token_budget", gucs::SCHEMA_TOKEN_BUDGET.get(), 100_000),
            temperature: match obj.get("temperature") {
                None => gucs::TEMPERATURE.get() as f32,
                Some(v) => match v.as_f64() {
                    Some(t) if (0.0..=2.0).contains(&t) => t as f32,
                    _ => bad_option("temperature", "a number from 0 to 2"),
                },
            },
            model: match obj.get("model") {
                None => None,
                Some(Value::String(m)) if !m.trim().is_empty() => Some(m.trim().to_string()),
                Some(_) => bad_option("model", "a model name"),
            },
            seed: match obj.get("seed") {
                None => None,
                Some(v) => Some(v.as_u64().unwrap_or_else(|| bad_option("seed", "a non-negative integer"))),
            },
            probe: flag("probe"),
            verify: flag("verify"),
            repair: flag("repair"),
            values: flag("values"),
            refine: flag("refine"),
            value_keywords: flag_or("value_keywords", false),
            two_round: flag_or("two_round", false),
            generators: match obj.get("generators") {
                None => vec![Generator::Direct],
                Some(Value::Array(a)) if !a.is_empty() => {
                    let mut out: Vec<Generator> = Vec::new();
                    for g in a {
                        let g = g.as_str().and_then(Generator::parse).unwrap_or_else(|| bad_option("generators", GENERATORS_WANTED));
                        if !out.contains(&g) {
                            out.push(g);
                        }
                    }
                    out
                }
                Some(_) => bad_option("generators", GENERATORS_WANTED),
            },
            samples: count("samples", 1, 5).max(1),
            tournament: match obj.get("select") {
                None => false,
                Some(Value::String(v)) if v == "vote" => false,
                Some(Value::String(v)) if v == "tournament" => true,
                Some(_) => bad_option("select", "\"vote\" or \"tournament\""),
            },
            max_rows: count("max_rows", gucs::MAX_ROWS_LIMIT.get(), 1_000_000) as i32,
        }
    }

    fn settings_json(&self, endpoint: &Endpoint) -> Value {
        json!({
            "model": endpoint.model,
            "endpoint": nl2sql_core::llm::client::redact_url(&endpoint.base_url),
            "max_probes": if self.probe { self.max_probes } else { 0 },
            "max_repairs": if self.repair && self.verify { self.max_repairs } else { 0 },
            "verify": self.verify,
            "values": self.values,
            "refine": self.refine && self.verify,
            "value_keywords": self.values && self.value_keywords,
            "two_round": self.two_round,
            "generators": self.generators.iter().map(|g| g.name()).collect::<Vec<_>>(),
            "samples": self.samples,
            "select": if self.tournament { "tournament" } else { "vote" },
            "probe_rows": self.probe_rows,
            "schema_token_budget": self.schema_token_budget,
            "temperature": self.temperature,
            "statement_timeout_ms": gucs::STATEMENT_TIMEOUT_MS.get(),
            "execution_role": gucs::text(&gucs::EXECUTION_ROLE),
        })
    }
}

/// One row of the explanation.
#[derive(Debug, Clone)]
pub struct StepRow {
    pub step: i32,
    pub stage: String,
    pub status: String,
    pub detail: String,
    pub sql: Option<String>,
    pub data: Value,
}

impl StepRow {
    /// The row as `nl2sql_run` and `nl2sql_explain` return it.
    #[allow(clippy::type_complexity)]
    pub fn into_tuple(
        self,
        run_id: Option<i64>,
    ) -> (Option<i64>, i32, String, String, String, Option<String>, Option<pgrx::JsonB>) {
        (run_id, self.step, self.stage, self.status, self.detail, self.sql, Some(pgrx::JsonB(self.data)))
    }
}

/// The explanation of one run.
pub struct Explanation {
    pub run_id: Option<i64>,
    pub rows: Vec<StepRow>,
    pub chosen_sql: String,
    pub verified: bool,
}

/// Records steps as explanation rows, audit rows and NOTICEs.
struct Trace {
    run: Option<audit::Run>,
    rows: Vec<StepRow>,
    usage: Usage,
    llm_calls: i32,
    stage_started: Instant,
}

impl Trace {
    fn step(&mut self, stage: &str, status: &str, detail: String, sql: Option<String>, data: Value) {
        let elapsed_ms = self.stage_started.elapsed().as_secs_f64() * 1000.0;
        self.stage_started = Instant::now();
        pgrx::notice!("nl2sql {stage}: {detail}");
        let step = match self.run.as_mut() {
            Some(run) => audit::step(
                run,
                audit::Step {
                    stage: stage.into(),
                    status: status.into(),
                    detail: Some(detail.clone()),
                    sql: sql.clone(),
                    input: None,
                    output: Some(data.clone()),
                    elapsed_ms,
                },
            ),
            None => self.rows.len() as i32 + 1,
        };
        self.rows.push(StepRow { step, stage: stage.into(), status: status.into(), detail, sql, data });
    }

    fn count(&mut self, reply: &ChatReply) {
        self.usage.add(reply.usage);
        self.llm_calls += 1;
    }
}

struct Ask<'a> {
    catalog: Catalog,
    question: &'a str,
    evidence: Option<&'a str>,
    opts: &'a AskOptions,
    endpoint: Endpoint,
    schema: SchemaContext,
    constraints: Vec<Constraint>,
    grounding: Grounding,
    /// Columns whose indexed values the question names (value linking).
    value_columns: Vec<(nl2sql_core::catalog::RelName, String)>,
    trace: Trace,
}

impl Ask<'_> {
    /// A chat request at the call's temperature and seed, its answer held to `schema`.
    fn request(&self, messages: Vec<Message>, schema_name: &str, schema: Value, max_tokens: u32) -> ChatRequest {
        ChatRequest {
            messages,
            temperature: self.opts.temperature,
            max_tokens: Some(max_tokens),
            json_schema: Some((schema_name.into(), schema)),
            seed: self.opts.seed,
            ..Default::default()
        }
    }

    fn chat(&mut self, messages: Vec<Message>, schema_name: &str, schema: Value, max_tokens: u32) -> ChatReply {
        let request = self.request(messages, schema_name, schema, max_tokens);
        let reply = crate::llm::try_chat_at(&self.endpoint, request).unwrap_or_else(|e| crate::errors::raise_llm(&e));
        self.trace.count(&reply);
        reply
    }
}

/// Text columns worth sampling, of the tables the context shows, at most `cap`.
fn sample_values(catalog: &Catalog, tables: &[nl2sql_core::catalog::RelName], cap: usize) -> Samples {
    let mut samples = Samples::new();
    let opts = executor::ExecOptions::from_settings(3);
    let text_columns = catalog
        .tables
        .iter()
        .filter(|t| tables.contains(&t.name))
        .flat_map(|t| t.columns.iter().map(move |c| (t, c)))
        .filter(|(_, c)| c.type_name == "text" || c.type_name.starts_with("character"))
        .take(cap);
    for (t, c) in text_columns {
        let sql = format!(
            "SELECT DISTINCT {col} FROM {rel} WHERE {col} IS NOT NULL LIMIT 3",
            col = quote_ident(&c.name),
            rel = t.name
        );
        if let Ok(Outcome::Rows(r)) = executor::run(&sql, &opts) {
            let vals: Vec<String> = r.rows.iter().filter_map(|row| row.first()?.as_str().map(str::to_string)).collect();
            samples.insert((t.name.clone(), c.name.clone()), vals);
        }
    }
    samples
}

/// Did verification run the query and see no row?
fn current_empty(data: &Value) -> bool {
    data["result"]["empty"] == Value::Bool(true)
}

/// Distinct stored values the `time` checker reads of each text column compared with a date.
const STORED_VALUES: usize = 20;

/// The checker chain on a query. Two checkers judge by the data, which is read here through the
/// executor, as the caller (a column the caller cannot read is not in their catalog, so never
/// judged): `time` reads a few distinct values of each text column compared with a date, and
/// `null_order` whether a nullable column ranked DESC holds any NULL. Returns the findings and the
/// columns read.
pub fn run_checkers(query: &nl2sql_core::sqlparser::ast::Query, catalog: &Catalog, question: &str) -> (Vec<nl2sql_core::checks::Finding>, Vec<String>) {
    use nl2sql_core::checks;
    let needs = checks::needs(query, catalog);
    let mut observed = checks::Observed::default();
    let opts = executor::ExecOptions::from_settings(STORED_VALUES as i32);
    let mut read = Vec::new();
    for (rel, col) in needs.values {
        let sql = format!(
            "SELECT DISTINCT {c}::text FROM {rel} WHERE {c} IS NOT NULL LIMIT {STORED_VALUES}",
            c = quote_ident(&col)
        );
        if let Ok(Outcome::Rows(r)) = executor::run(&sql, &opts) {
            let values = r.rows.iter().filter_map(|row| row.first()?.as_str().map(str::to_string)).collect();
            read.push(format!("{rel}.{col}"));
            observed.values.insert((rel, col), values);
        }
    }
    for (rel, col) in needs.nulls {
        let sql = format!("SELECT EXISTS (SELECT 1 FROM {rel} WHERE {} IS NULL)", quote_ident(&col));
        if let Ok(Outcome::Rows(r)) = executor::run(&sql, &opts) {
            if let Some(b) = r.rows.first().and_then(|row| row.first()).and_then(Value::as_bool) {
                read.push(format!("{rel}.{col} (NULLs)"));
                observed.holds_nulls.insert((rel, col), b);
            }
        }
    }
    (checks::check(query, catalog, question, &observed), read)
}

/// Verify one SQL: the question's constraints on its AST, then EXPLAIN, then a bounded run.
fn check(sql: &str, constraints: &[Constraint], verify_constraints: bool, catalog: &Catalog, question: &str) -> (Attempt, Value) {
    let mut problems = Vec::new();
    let mut violated = Vec::new();
    let mut verdicts = Vec::new();
    let mut notes = Vec::new();
    let mut stored_read: Vec<String> = Vec::new();
    if verify_constraints {
        // the checker chain on the syntax tree, fail-fast: the first checker that fires speaks
        if let Ok(checked) = check_query(sql) {
            // (every finding counts as violated, so a repair that fixes the first is not judged a
            // regression for revealing the next; only the first is the directive)
            let (findings, read) = run_checkers(&checked.query, catalog, question);
            stored_read = read;
            let repairs: Vec<_> = findings.iter().filter(|f| f.severity == nl2sql_core::checks::Severity::Repair).collect();
            violated.extend(repairs.iter().map(|f| format!("check:{}", f.checker)));
            if let Some(first) = repairs.first() {
                problems.push(first.message.clone());
            }
            notes.extend(findings.into_iter().filter(|f| f.severity == nl2sql_core::checks::Severity::Note));
        }
        match facts_of(sql, SqlDialect::Postgres) {
            Ok(facts) => {
                // an all-rows constraint already says what to do with a stray LIMIT
                let all_rows = constraints.iter().any(|c| matches!(c.kind, constraints::Kind::AllRows));
                for p in constraints::sql_checks(&facts).into_iter().filter(|_| !all_rows) {
                    violated.push("limit_without_order".into());
                    problems.push(p);
                }
                for v in constraints::verify_all(constraints, &facts) {
                    if !v.satisfied {
                        violated.push(v.constraint.name().to_string());
                        problems.push(v.message.clone());
                    }
                    verdicts.push(json!({"constraint": v.constraint.name(), "phrase": v.constraint.phrase,
                                         "satisfied": v.satisfied}));
                }
            }
            Err(e) => problems.push(format!("the SQL does not parse: {e}")),
        }
    }
    let mut fails = false;
    let mut note = Value::Null;
    let opts = executor::ExecOptions::from_settings(5);
    match executor::explain(sql, &opts) {
        Err(refusal) => {
            fails = true;
            problems.push(format!("not a usable query: {refusal}"));
        }
        Ok(Outcome::Failed(f)) => {
            fails = true;
            problems.push(format!("PostgreSQL cannot plan it: {}", f.message));
        }
        Ok(Outcome::Rows(_)) => match executor::run(sql, &opts) {
            Ok(Outcome::Failed(f)) => {
                fails = true;
                problems.push(if f.timed_out {
                    format!("it ran longer than nl2sql.statement_timeout: {}", f.message)
                } else {
                    format!("running it failed: {}", f.message)
                });
            }
            Ok(Outcome::Rows(r)) => {
                if verify_constraints {
                    for f in nl2sql_core::checks::result_findings(&r.rows) {
                        violated.push(format!("check:{}", f.checker));
                        problems.push(f.message);
                    }
                }
                note = json!({"columns": r.columns, "first_rows": r.rows, "empty": r.rows.is_empty()});
            }
            Err(refusal) => {
                fails = true;
                problems.push(format!("not a usable query: {refusal}"));
            }
        },
    }
    let data = json!({"verdicts": verdicts, "problems": problems, "notes": notes, "result": note, "values_read": stored_read});
    (Attempt { sql: sql.to_string(), violated, problems, fails }, data)
}

/// How many times the model may answer with something that is not SQL before the call fails.
const FORMAT_ATTEMPTS: usize = 3;
/// The temperature of N-version samples after the first of each generator.
const SAMPLE_TEMPERATURE: f32 = 0.7;

impl Ask<'_> {
    fn schema_text(&self) -> &str {
        &self.schema.text
    }

    fn probe_loop(&mut self) {
        if !self.opts.probe || self.opts.max_probes == 0 {
            self.trace.step("probe", "skipped", "probing is off".into(), None, Value::Null);
            return;
        }
        let mut budget = ProbeBudget::new(self.opts.max_probes);
        let reason = loop {
            if let Some(reason) = budget.exhausted() {
                break reason;
            }
            let messages = prompts::probe(self.schema_text(), self.question, self.evidence, &self.grounding, self.opts.probe_rows);
            let reply = self.chat(messages, "probe_step", step_schema(), 300);
            let step = match extract_json(&reply.content).and_then(|v| parse_step(&v)) {
                Ok(s) => s,
                Err(e) => {
                    self.trace.step("probe", "error", format!("unusable probe step, probing stops: {e}"), None,
                                    json!({"answer": reply.content}));
                    return;
                }
            };
            let learned = self.grounding.merge(&step);
            let Some(raw) = step.probe_sql.clone() else {
                self.trace.step("probe", "done", format!("the model has what it needs after {} probes", budget.used()),
                                None, json!({"grounding": self.grounding}));
                return;
            };
            let bounded = check_query(&raw).map(|mut checked| {
                impose_limit(&mut checked.query, self.opts.probe_rows as u64);
                checked.to_sql()
            });
            if let Some(sql) = bounded.as_ref().ok().filter(|sql| self.grounding.already_ran(sql)) {
                budget.spend(learned);
                self.trace.step("probe", "repeat", "the model repeated a probe; it is not run again".into(),
                                Some(sql.clone()), json!({"value_mappings": step.value_mappings}));
                continue;
            }
            let (sql, obs) = match check_query(&raw) {
                Err(refusal) => (raw.clone(), format!("REFUSED: {refusal}")),
                Ok(mut checked) => {
                    impose_limit(&mut checked.query, self.opts.probe_rows as u64);
                    let sql = checked.to_sql();
                    let outcome = executor::run_checked(&sql, &executor::ExecOptions::from_settings(self.opts.probe_rows as i32));
                    let mut obs = observation(&outcome, self.opts.probe_rows);
                    if let Outcome::Failed(f) = &outcome {
                        let hints = schema_hints(&sql, &self.catalog, &f.message);
                        if !hints.is_empty() {
                            obs.push_str(&format!(" ({})", hints.join("; ")));
                        }
                    }
                    (sql, obs)
                }
            };
            let informative = self.grounding.record(sql.clone(), obs.clone()) || learned;
            budget.spend(informative);
            self.trace.step("probe", if obs.starts_with("columns") { "ok" } else { "error" }, obs.clone(), Some(sql),
                            json!({"observation": obs, "value_mappings": step.value_mappings,
                                   "relevant_columns": step.relevant_columns, "informative": informative}));
        };
        self.trace.step("probe", "done", format!("probing stopped: {}", json!(reason).as_str().unwrap_or("")), None,
                        json!({"reason": reason, "grounding": self.grounding}));
    }

    /// Ask for SQL until the answer is a usable query, at most FORMAT_ATTEMPTS times.
    fn ask_sql(&mut self, messages: Vec<Message>, stage: &str) -> Result<String, String> {
        self.sql_answer(messages, stage, "", sql_schema(), None)
    }

    /// The SQL of a usable answer, asking again (at most FORMAT_ATTEMPTS answers in all) with what
    /// was wrong; `first` is an answer already received from a fan-out, which counts as the first.
    /// Retry steps are labelled with `label` (a generator's name, or nothing).
    fn sql_answer(&mut self, mut messages: Vec<Message>, stage: &str, label: &str, schema: Value, mut first: Option<String>) -> Result<String, String> {
        let mut last = String::new();
        for attempt in 1..=FORMAT_ATTEMPTS {
            let content = match first.take() {
                Some(content) => content,
                None => self.chat(messages.clone(), "sql_answer", schema.clone(), 700).content,
            };
            match parse_sql_answer(&content) {
                Ok(sql) => return Ok(sql),
                Err(e) => {
                    let prefix = if label.is_empty() { String::new() } else { format!("{label}: ") };
                    self.trace.step(stage, "retry", format!("{prefix}answer {attempt} was not usable: {e}"), None,
                                    json!({"answer": content}));
                    messages.push(Message::assistant(content));
                    messages.push(Message::user(format!(
                        "That answer was not usable: {e}. Reply with JSON {{\"sql\": \"SELECT ...\"}} holding one PostgreSQL query."
                    )));
                    last = e;
                }
            }
        }
        Err(last)
    }

    /// Two-round generation, first round: schema linking on the full schema context, then the
    /// linked schema becomes the context of the final generation. The links are the union of
    /// *direct* linking (the model names tables and columns), *reversed* linking (what a draft
    /// query references), *value* linking (columns whose indexed values the question names) and
    /// the tables probing found relevant, closed over the foreign keys. The draft and the direct
    /// linking requests go out together.
    fn link_round(&mut self) {
        use nl2sql_core::ground::link::{self, Linked};
        let draft_messages = prompts::generate(self.schema_text(), self.question, self.evidence, &self.grounding, &self.constraints);
        let link_messages = prompts::link(self.schema_text(), self.question, self.evidence, &self.grounding);
        let requests = vec![
            self.request(draft_messages.clone(), "sql_answer", sql_schema(), 700),
            self.request(link_messages, "schema_links", prompts::link_schema(), 700),
        ];
        let mut replies = crate::llm::try_chat_all_at(&self.endpoint, requests).into_iter();
        let (draft_reply, link_reply) = (replies.next().expect("two replies"), replies.next().expect("two replies"));
        // reversed linking: the draft (an unusable first answer gets the usual format retries)
        let draft_reply = draft_reply.unwrap_or_else(|e| crate::errors::raise_llm(&e));
        self.trace.count(&draft_reply);
        let draft = self.sql_answer(draft_messages, "draft", "", sql_schema(), Some(draft_reply.content)).ok();
        let reversed = draft.as_deref().and_then(|d| check_query(d).ok()).map(|c| link::referenced(&c.query, &self.catalog)).unwrap_or_default();
        // direct linking
        let (direct, unknown) = match link_reply {
            Ok(reply) => {
                self.trace.count(&reply);
                match prompts::parse_link_answer(&reply.content) {
                    Ok((tables, columns)) => link::named(&tables, &columns, &self.catalog),
                    Err(e) => {
                        self.trace.step("link", "error", format!("direct linking gave no usable answer: {e}"), None, json!({"answer": reply.content}));
                        (Linked::default(), vec![])
                    }
                }
            }
            Err(e) => {
                self.trace.step("link", "error", format!("direct linking failed: {e}"), None, Value::Null);
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
            self.trace.step("link", "skipped", "no source links a table; the full schema is kept".into(), draft, Value::Null);
            return;
        }
        let closed = link::close_over_foreign_keys(&linked, &self.catalog);
        let pruned = self.catalog.restricted_to(&closed.tables);
        let samples = sample_values(&pruned, &pruned.tables.iter().map(|t| t.name.clone()).collect::<Vec<_>>(), 40);
        self.schema = context::build(&pruned, &samples, self.question, self.opts.schema_token_budget);
        let names = |v: &std::collections::BTreeSet<nl2sql_core::catalog::RelName>| v.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        self.trace.step(
            "link",
            "ok",
            format!(
                "{} table{} linked{}; the final generation sees only these",
                closed.tables.len(),
                if closed.tables.len() == 1 { "" } else { "s" },
                if closed.bridges.is_empty() { String::new() } else { format!(" (bridges added: {})", names(&closed.bridges).join(", ")) }
            ),
            draft,
            json!({"tables": names(&closed.tables), "bridges": names(&closed.bridges),
                   "columns": closed.columns.iter().map(|(t, c)| format!("{t}.{c}")).collect::<Vec<_>>(),
                   "sources": {"reversed": names(&reversed.tables), "direct": names(&direct.tables),
                               "value": names(&valued.tables), "direct_unknown": unknown},
                   "tokens": self.schema.tokens}),
        );
    }

    /// N-version generation: each generator (and each further sample of it) writes a candidate;
    /// the requests go out together, `nl2sql.llm_concurrency` at a time. The candidates run, are
    /// clustered by result and weighed by their experts' weights (`generator:model`); the heaviest
    /// cluster's first candidate goes on to verification, or, with `select: tournament` and no
    /// clear majority, the winner of `nl2sql_select`'s duels on separating instances.
    fn n_version(&mut self) -> String {
        // 1. the prompts (few-shot examples are read here, on the backend, as the caller)
        let mut jobs: Vec<(Generator, usize, Vec<Message>, usize)> = Vec::new();
        for g in self.opts.generators.clone() {
            let examples = if g == Generator::FewShot {
                match few_shot_examples(self.question, &self.catalog, 3) {
                    Ok(e) if !e.is_empty() => e,
                    Ok(_) => {
                        self.trace.step("generate", "skipped", "few_shot: no verified example on tables you can read".into(), None, Value::Null);
                        continue;
                    }
                    Err(e) => {
                        self.trace.step("generate", "error", format!("few_shot: the examples could not be searched: {e}"), None, Value::Null);
                        continue;
                    }
                }
            } else {
                Vec::new()
            };
            let messages = prompts::generate_with(g, self.schema_text(), self.question, self.evidence, &self.grounding, &self.constraints, &examples);
            for k in 0..self.opts.samples {
                jobs.push((g, k, messages.clone(), examples.len()));
            }
        }
        // 2. all first answers at once; a sample after the first is drawn warmer, with its own seed
        let requests: Vec<ChatRequest> = jobs
            .iter()
            .map(|(g, k, messages, _)| {
                let mut request = self.request(messages.clone(), "sql_answer", g.schema(), 700);
                if *k > 0 {
                    request.temperature = request.temperature.max(SAMPLE_TEMPERATURE);
                    request.seed = Some(self.opts.seed.unwrap_or(0) + *k as u64);
                }
                request
            })
            .collect();
        let started = Instant::now();
        let replies = crate::llm::try_chat_all_at(&self.endpoint, requests);
        let fanout_ms = started.elapsed().as_secs_f64() * 1000.0;
        let mut candidates: Vec<(Generator, String)> = Vec::new();
        let mut first_error = None;
        for ((g, k, messages, examples), reply) in jobs.into_iter().zip(replies) {
            let label = if self.opts.samples > 1 { format!("{} (sample {})", g.name(), k + 1) } else { g.name().to_string() };
            let reply = match reply {
                Ok(r) => r,
                Err(e) => {
                    self.trace.step("generate", "error", format!("{label}: the model call failed: {e}"), None, json!({"generator": g.name()}));
                    first_error.get_or_insert(e);
                    continue;
                }
            };
            self.trace.count(&reply);
            // an unusable first answer gets the sequential format retries of a single generation
            let sql = self.sql_answer(messages, "generate", &label, g.schema(), Some(reply.content.clone()));
            match sql {
                Ok(sql) => {
                    self.trace.step("generate", "ok", format!("{label}: candidate SQL"), Some(sql.clone()),
                                    json!({"generator": g.name(), "sample": k + 1, "examples": examples,
                                           "llm_ms": reply.elapsed.as_secs_f64() * 1000.0}));
                    candidates.push((g, sql));
                }
                Err(e) => self.trace.step("generate", "error", format!("{label}: no usable SQL: {e}"), None, json!({"generator": g.name()})),
            }
        }
        if candidates.is_empty() {
            if let Some(e) = first_error {
                crate::errors::raise_llm(&e);
            }
            crate::errors::raise(
                "38000",
                "no generator returned a usable SQL query",
                Some("Try a larger model (options {\"model\": ...}) or rephrase the question."),
            );
        }
        // 3. run, cluster, weigh
        let model = self.endpoint.model.clone();
        let experts: Vec<String> = candidates.iter().map(|(g, _)| format!("{}:{model}", g.name())).collect();
        let sel_opts = crate::select::SelectOptions::from_json(&Value::Null);
        let ran: Vec<crate::select::Ran> = candidates.iter().map(|(_, sql)| crate::select::run_candidate(sql, &sel_opts)).collect();
        let answers: Vec<Option<nl2sql_core::select::answer::Answer>> = ran.iter().map(|r| r.answer.clone()).collect();
        let mut clusters = nl2sql_core::select::cluster::cluster(&answers);
        let expert_of: Vec<Option<String>> = experts.iter().cloned().map(Some).collect();
        nl2sql_core::select::experts::rank(&mut clusters, &expert_of, &crate::select::expert_weights());
        // the heaviest cluster that ran; if none ran, the first candidate (verification will say why)
        let mut chosen = clusters.first().map_or(0, |c| c.representative());
        let mut how = "weighted majority".to_string();
        let mut tournament = Value::Null;
        let contested = clusters.len() > 1 && clusters[0].confidence < sel_opts.gate;
        if self.opts.tournament && contested {
            // 4. no clear majority: duels on separating instances, judged by the model
            let sqls: Vec<Option<String>> = candidates.iter().map(|(_, sql)| Some(sql.clone())).collect();
            let mut options = json!({"experts": experts});
            if let Some(m) = &self.opts.model {
                options["model"] = json!(m);
            }
            let (select_run, rows) = crate::select::select(self.question, &sqls, self.evidence, &options);
            if let Some(row) = rows.iter().find(|r| r.chosen) {
                chosen = (row.candidate - 1) as usize;
                how = format!("tournament: {}", row.reason);
            }
            tournament = json!({"run_id": select_run, "candidates": rows.iter().map(|r| json!({
                "candidate": r.candidate, "wins": r.wins, "score": r.score, "chosen": r.chosen})).collect::<Vec<_>>()});
        }
        let detail = match clusters.first() {
            Some(c) => format!(
                "{} candidates, {} result cluster{}; chose {}'s by {how} (weight share of the heaviest {:.2})",
                candidates.len(),
                clusters.len(),
                if clusters.len() == 1 { "" } else { "s" },
                candidates[chosen].0.name(),
                c.confidence
            ),
            None => format!("{} candidates, none ran; verifying {}'s", candidates.len(), candidates[0].0.name()),
        };
        self.trace.step(
            "candidates",
            "ok",
            detail,
            Some(candidates[chosen].1.clone()),
            json!({"fanout_ms": fanout_ms, "concurrency": gucs::LLM_CONCURRENCY.get(), "tournament": tournament,
                   "candidates": candidates.iter().zip(&ran).zip(&experts).enumerate().map(|(i, ((c, r), e))| json!({
                "candidate": i + 1, "sql": c.1, "expert": e, "status": r.status, "error": r.error,
                "cluster": clusters.iter().position(|cl| cl.members.contains(&i)).map(|p| p + 1),
            })).collect::<Vec<_>>()}),
        );
        candidates[chosen].1.clone()
    }

    fn run(mut self) -> Explanation {
        let constraints_json = serde_json::to_value(&self.constraints).unwrap_or(Value::Null);
        self.trace.step(
            "constraints",
            "ok",
            if self.constraints.is_empty() {
                "no constraints found in the question".into()
            } else {
                self.constraints.iter().map(|c| format!("{} (\"{}\")", c.name(), c.phrase)).collect::<Vec<_>>().join(", ")
            },
            None,
            constraints_json,
        );
        self.probe_loop();
        if self.opts.two_round {
            self.link_round();
        }

        let sql = if self.opts.generators == [Generator::Direct] && self.opts.samples == 1 {
            let messages = prompts::generate(self.schema_text(), self.question, self.evidence, &self.grounding, &self.constraints);
            let sql = self.ask_sql(messages, "generate").unwrap_or_else(|e| {
                crate::errors::raise(
                    "38000",
                    format!("the model did not return a usable SQL query after {FORMAT_ATTEMPTS} attempts: {e}"),
                    Some("Try a larger model (options {\"model\": ...}) or rephrase the question."),
                )
            });
            self.trace.step("generate", "ok", "candidate SQL".into(), Some(sql.clone()), Value::Null);
            sql
        } else {
            self.n_version()
        };

        if !self.opts.verify {
            self.trace.step("verify", "skipped", "verification is off".into(), Some(sql.clone()), Value::Null);
            return self.finish(Attempt { sql, violated: vec![], problems: vec![], fails: false }, false);
        }
        let (mut current, data) = check(&sql, &self.constraints, true, &self.catalog, self.question);
        let mut current_is_empty = current_empty(&data);
        let mut detail = summary(&current);
        if current_is_empty {
            detail.push_str(" (note: the result is empty)");
        }
        self.trace.step("verify", status_of(&current), detail, Some(sql), data);

        let mut repairs = 0;
        let mut earlier: Vec<String> = Vec::new();
        while !current.is_clean() && self.opts.repair && repairs < self.opts.max_repairs {
            repairs += 1;
            let mut hints: Vec<String> = Vec::new();
            for p in &current.problems {
                for h in schema_hints(&current.sql, &self.catalog, p) {
                    if !hints.contains(&h) {
                        hints.push(h);
                    }
                }
            }
            let messages = prompts::repair(
                self.schema_text(), self.question, self.evidence, &self.grounding, &current.sql, &current.problems, &hints,
                &earlier,
            );
            let next_sql = match self.ask_sql(messages, "repair") {
                Ok(s) => s,
                Err(e) => {
                    self.trace.step("repair", "stopped", format!("repair {repairs} gave no usable SQL: {e}"), None, Value::Null);
                    break;
                }
            };
            let (next, data) = check(&next_sql, &self.constraints, true, &self.catalog, self.question);
            let verdict = judge(&current, &next);
            let status = match verdict {
                Judgement::Clean => "ok",
                Judgement::Unchanged => "unchanged",
                Judgement::Regressed => "regressed",
                Judgement::Continue => "continue",
            };
            let next_is_empty = current_empty(&data);
            self.trace.step("repair", status, format!("repair {repairs}: {}", summary(&next)), Some(next_sql), data);
            earlier.push(current.sql.chars().take(300).collect());
            match verdict {
                Judgement::Clean => {
                    current = next;
                    current_is_empty = next_is_empty;
                    break;
                }
                Judgement::Unchanged => break,
                Judgement::Regressed => {
                    if next.better_than(&current) {
                        current = next;
                        current_is_empty = next_is_empty;
                    }
                    break;
                }
                Judgement::Continue => {
                    current = next;
                    current_is_empty = next_is_empty;
                }
            }
        }
        if self.opts.refine && current_is_empty && !current.fails {
            if let Some(refined) = self.refine_empty(&current) {
                current = refined;
            }
        }
        self.finish(current, true)
    }

    /// Execution-guided refinement of an empty result: one round with the directive and the
    /// probes so far; the refined SQL is kept only under [`accept_refinement`]'s rule.
    fn refine_empty(&mut self, current: &Attempt) -> Option<Attempt> {
        let messages = prompts::repair(
            self.schema_text(), self.question, self.evidence, &self.grounding, &current.sql,
            &[nl2sql_core::ask::repair::EMPTY_RESULT.to_string()], &[], &[],
        );
        let refined_sql = match self.ask_sql(messages, "refine") {
            Ok(s) => s,
            Err(e) => {
                self.trace.step("refine", "stopped", format!("the refinement gave no usable SQL ({e}); the empty result stands"), None, Value::Null);
                return None;
            }
        };
        let (refined, data) = check(&refined_sql, &self.constraints, true, &self.catalog, self.question);
        let empty = current_empty(&data);
        let accepted = nl2sql_core::ask::repair::accept_refinement(current, &refined, empty);
        let detail = if accepted {
            "the result was empty; the refined query returns rows and breaks nothing, so it replaces it".to_string()
        } else if empty {
            "the result was empty; the refined query is empty too, so the first stands (no row may be the answer)".to_string()
        } else {
            format!("the result was empty; the refined query is not better ({}), so the first stands", summary(&refined))
        };
        self.trace.step("refine", if accepted { "ok" } else { "kept" }, detail, Some(refined_sql), data);
        accepted.then_some(refined)
    }

    fn finish(mut self, chosen: Attempt, verified: bool) -> Explanation {
        let clean = verified && chosen.is_clean();
        let status = if clean { "ok" } else { "unverified" };
        let detail = if clean {
            "verified: every constraint holds, it plans and runs".to_string()
        } else if !verified {
            "not verified (verification is off)".to_string()
        } else {
            format!("open problems: {}", chosen.problems.join("; "))
        };
        self.trace.step(
            "chosen",
            status,
            detail.clone(),
            Some(chosen.sql.clone()),
            json!({"open_problems": chosen.problems, "prompt_tokens": self.trace.usage.prompt_tokens,
                   "completion_tokens": self.trace.usage.completion_tokens, "llm_calls": self.trace.llm_calls}),
        );
        let run_id = self.trace.run.as_ref().map(|r| r.id);
        if let Some(run) = self.trace.run.take() {
            audit::finish(
                run,
                audit::Finish {
                    status: status.into(),
                    error: (!clean).then_some(detail),
                    chosen_sql: Some(chosen.sql.clone()),
                    prompt_tokens: self.trace.usage.prompt_tokens as i64,
                    completion_tokens: self.trace.usage.completion_tokens as i64,
                    llm_calls: self.trace.llm_calls,
                },
            );
        }
        Explanation { run_id, rows: self.trace.rows, chosen_sql: chosen.sql, verified: clean }
    }
}

fn status_of(a: &Attempt) -> &'static str {
    if a.is_clean() {
        "ok"
    } else if a.fails {
        "error"
    } else {
        "violations"
    }
}

fn summary(a: &Attempt) -> String {
    if a.is_clean() {
        "every check passes".into()
    } else {
        a.problems.join("; ")
    }
}

/// Answer `question`: the whole pipeline, recorded.
pub fn ask(function: &str, question: &str, evidence: Option<&str>, options: &Value) -> Explanation {
    if question.trim().is_empty() {
        crate::errors::raise("22023", "the question is empty", Some("Ask a question about the data in words."));
    }
    let opts = AskOptions::from_json(options);
    let mut endpoint = crate::llm::chat_endpoint();
    if let Some(m) = &opts.model {
        endpoint.model = m.clone();
    }
    let run = audit::begin(function, Some(question), evidence, opts.settings_json(&endpoint));
    let mut trace = Trace { run, rows: Vec::new(), usage: Usage::default(), llm_calls: 0, stage_started: Instant::now() };

    let catalog = catalog::read();
    if catalog.tables.is_empty() {
        crate::errors::raise(
            "42501",
            "you cannot SELECT from any table, so there is nothing to ask about",
            Some("Ask the owner of the data for SELECT privileges, or check search_path and schema USAGE."),
        );
    }
    let budget = opts.schema_token_budget;
    let first = context::build(&catalog, &Samples::new(), question, budget);
    let samples = sample_values(&catalog, &first.tables, 40);
    let schema = context::build(&catalog, &samples, question, budget);
    let names = |v: &[nl2sql_core::catalog::RelName]| v.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    trace.step(
        "schema",
        "ok",
        format!(
            "{} tables (~{} tokens){}",
            schema.tables.len(),
            schema.tokens,
            if schema.cut.is_empty() { String::new() } else { format!("; cut for the budget: {}", names(&schema.cut).join(", ")) }
        ),
        None,
        json!({"tables": names(&schema.tables), "cut": names(&schema.cut), "tokens": schema.tokens, "text": schema.text}),
    );

    let mut grounding = Grounding::default();
    let value_columns =
        if opts.values { ground_values(question, evidence, opts.value_keywords.then_some(&endpoint), &schema.tables, &mut grounding, &mut trace) } else { vec![] };
    let constraints = constraints::extract(question, evidence);
    Ask { catalog, question, evidence, opts: &opts, endpoint, schema, constraints, grounding, value_columns, trace }.run()
}

/// The `values` stage: values of the schema's tables that the question names, from the value
/// index, become value mappings of the grounding.
fn ground_values(
    question: &str,
    evidence: Option<&str>,
    keywords_from: Option<&Endpoint>,
    tables: &[nl2sql_core::catalog::RelName],
    grounding: &mut Grounding,
    trace: &mut Trace,
) -> Vec<(nl2sql_core::catalog::RelName, String)> {
    if !crate::values::indexed_any(tables) {
        trace.step(
            "values",
            "skipped",
            "no column of these tables is in the value index (nl2sql_index_values builds it)".into(),
            None,
            Value::Null,
        );
        return vec![];
    }
    // with value_keywords, the model names the question's values (DeepEye-SQL's keywords); each, and
    // the whole question, is searched
    let mut terms = match keywords_from.map(|endpoint| crate::values::question_keywords(question, evidence, endpoint)) {
        None => Vec::new(),
        Some(Ok((keywords, reply))) => {
            trace.count(&reply);
            keywords
        }
        Some(Err(e)) => {
            trace.step("values", "error", format!("no keywords from the model ({e}); the question is searched as a whole"), None, Value::Null);
            Vec::new()
        }
    };
    let keywords = terms.clone();
    terms.push(question.to_string());
    match crate::values::try_search_values(&terms, 8, 2, 0.5) {
        Ok(hits) => {
            let hits: Vec<_> = hits.into_iter().filter(|h| tables.contains(&h.table)).collect();
            for h in &hits {
                grounding.value_mappings.insert(
                    h.value.clone(),
                    format!("{}.{} = {}", h.table, quote_ident(&h.column), nl2sql_core::ground::values::literal(&h.value)),
                );
            }
            let shown: Vec<String> = hits.iter().map(|h| format!("{}.{} = '{}'", h.table.name, h.column, h.value)).collect();
            trace.step(
                "values",
                "ok",
                if shown.is_empty() { "no indexed value matches the question".into() } else { format!("matched {}", shown.join(", ")) },
                None,
                json!({"keywords": keywords, "matches": hits.iter().map(|h| json!({"table": h.table.to_string(), "column": h.column,
                    "value": h.value, "score": h.score(), "matched_by": h.matched_by()})).collect::<Vec<_>>()}),
            );
            hits.into_iter().map(|h| (h.table, h.column)).collect()
        }
        Err(e) => {
            trace.step("values", "error", format!("the value index could not be searched: {e}"), None, Value::Null);
            vec![]
        }
    }
}

/// The explanation rows of a past run, from the audit log (the caller's own runs only).
pub fn explain(run_id: i64) -> Vec<StepRow> {
    let rows = Spi::connect(|client| {
        client
            .select(
                "SELECT step, stage, status, coalesce(detail, ''), sql, output FROM nl2sql.steps WHERE run_id = $1 ORDER BY step",
                None,
                &[run_id.into()],
            )
            .map(|table| {
                table
                    .map(|row| StepRow {
                        step: row.get::<i32>(1).ok().flatten().unwrap_or(0),
                        stage: row.get::<String>(2).ok().flatten().unwrap_or_default(),
                        status: row.get::<String>(3).ok().flatten().unwrap_or_default(),
                        detail: row.get::<String>(4).ok().flatten().unwrap_or_default(),
                        sql: row.get::<String>(5).ok().flatten(),
                        data: row.get::<pgrx::JsonB>(6).ok().flatten().map(|j| j.0).unwrap_or(Value::Null),
                    })
                    .collect::<Vec<_>>()
            })
    })
    .unwrap_or_else(|e| crate::errors::raise("XX000", format!("reading the audit log failed: {e}"), None));
    if rows.is_empty() {
        crate::errors::raise(
            "42704",
            format!("no run {run_id} in the audit log that you may see"),
            Some("Runs are visible to the user who made them (and to superusers and pg_read_all_data members)."),
        );
    }
    rows
}

/// Rows of a result as JSON objects keyed by column name (duplicates get a suffix).
pub fn rows_as_objects(outcome: &Outcome) -> Vec<Value> {
    let Outcome::Rows(r) = outcome else { return vec![] };
    let mut names: Vec<String> = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for c in &r.columns {
        let n = seen.entry(c.name.clone()).or_insert(0);
        *n += 1;
        names.push(if *n == 1 { c.name.clone() } else { format!("{}_{}", c.name, n) });
    }
    r.rows
        .iter()
        .map(|row| Value::Object(names.iter().cloned().zip(row.iter().cloned()).collect()))
        .collect()
}

/// Up to `k` verified examples for the few-shot generator: nearest by the embedding of the question
/// with its schema words masked, keeping only examples whose SQL reads tables the caller can see.
fn few_shot_examples(question: &str, catalog: &Catalog, k: usize) -> Result<Vec<(String, String)>, String> {
    let masked = context::mask_schema_words(question, catalog);
    let vector = crate::llm::try_embed(&[masked]).map_err(|e| e.to_string())?.vectors.pop().unwrap_or_default();
    let text = crate::values::vector_literal(&vector)?;
    let vs = crate::values::ext_schema("vector");
    let sql = format!(
        "SELECT question, sql FROM nl2sql.examples ORDER BY embedding OPERATOR({vs}.<=>) $1::{vs}.vector LIMIT 20"
    );
    let owner = crate::spi::owner::extension_owner();
    let found: Vec<(String, String)> = crate::spi::owner::as_extension_owner(owner, move || {
        Spi::connect(|c| {
            c.select(&sql, None, &[text.into()])
                .map(|rows| rows.filter_map(|r| Some((r.get::<String>(1).ok().flatten()?, r.get::<String>(2).ok().flatten()?))).collect())
                .unwrap_or_default()
        })
    });
    Ok(found
        .into_iter()
        .filter(|(_, sql)| {
            check_query(sql).is_ok_and(|c| {
                let rels = nl2sql_core::select::rewrite::base_relations(&c.query);
                let linked = nl2sql_core::ground::link::referenced(&c.query, catalog);
                !rels.is_empty() && linked.tables.len() == rels.len()
            })
        })
        .take(k)
        .collect())
}
