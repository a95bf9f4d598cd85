//! Choosing among candidate SQL: `nl2sql_select` and `nl2sql_distinguish`.
//!
//! candidates → run (safe executor) → clusters by result → confidence gate → duels between
//! cluster representatives on separating instances cut from the real rows → the model's answer on
//! each instance votes → tournament score → one chosen candidate, with its reason.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use nl2sql_core::catalog::{Catalog, RelName};
use nl2sql_core::llm::{ChatRequest, Endpoint, Usage};
use nl2sql_core::select::adjudicate::{self, Verdict};
use nl2sql_core::select::answer::{preview, Answer, RowSemantics};
use nl2sql_core::select::cluster::{cluster, Cluster};
use nl2sql_core::select::rewrite::{base_relations, lineage_queries, name_key, redirect};
use nl2sql_core::select::separate::{rows_sql, separate, Budget, Problem, Report, RowId};
use nl2sql_core::select::tournament::{self, Duel};
use nl2sql_core::result::Outcome;
use nl2sql_core::sql::check_query;
use pgrx::prelude::*;
use serde_json::{json, Value};
use nl2sql_core::sqlparser::ast::{Ident, ObjectName, Query};

use crate::gucs;
use crate::spi::executor::{self, ExecOptions};
use crate::spi::instance::{instance_table, with_instance_space};
use crate::spi::{audit, catalog};

// --- options ------------------------------------------------------------------------------------

/// Per-call settings of `nl2sql_select` and `nl2sql_distinguish`.
#[derive(Debug, Clone)]
pub struct SelectOptions {
    pub compare: RowSemantics,
    pub gate: f64,
    pub max_pairs: usize,
    pub top_clusters: usize,
    pub votes: usize,
    pub vote_temperature: f32,
    pub model: Option<String>,
    /// Rows read per candidate on the full database.
    pub max_rows: usize,
    pub max_trials: usize,
    pub time_ms: u64,
    pub adjudicate: bool,
    /// The expert behind each candidate (weighted majority), if given.
    pub experts: Option<Vec<String>>,
    /// Randomised weighted majority: the gate's choice is the cluster of an expert drawn by weight.
    pub randomised: bool,
}

const OPTION_KEYS: &[&str] = &[
    "compare", "gate", "max_pairs", "top_clusters", "votes", "vote_temperature", "model", "max_rows", "max_trials",
    "time_ms", "adjudicate", "experts", "voting",
];

fn bad_option(key: &str, want: &str) -> ! {
    crate::errors::raise("22023", format!("option \"{key}\" must be {want}"), Some("See docs/sql-reference.md, options."))
}

impl SelectOptions {
    pub fn from_json(options: &Value) -> Self {
        let obj = match options {
            Value::Object(m) => m.clone(),
            Value::Null => Default::default(),
            _ => crate::errors::raise("22023", "options must be a JSON object", Some("For example '{\"compare\": \"bag\"}'")),
        };
        if let Some(k) = obj.keys().find(|k| !OPTION_KEYS.contains(&k.as_str())) {
            crate::errors::raise(
                "22023",
                format!("unknown option \"{k}\""),
                Some(&format!("Valid options: {}.", OPTION_KEYS.join(", "))),
            );
        }
        let count = |key: &str, default: i64, min: i64, max: i64| -> usize {
            match obj.get(key) {
                None => default.clamp(min, max) as usize,
                Some(v) => match v.as_i64() {
                    Some(n) if (min..=max).contains(&n) => n as usize,
                    _ => bad_option(key, &format!("an integer from {min} to {max}")),
                },
            }
        };
        let real = |key: &str, default: f64, max: f64| -> f64 {
            match obj.get(key) {
                None => default,
                Some(v) => match v.as_f64() {
                    Some(x) if (0.0..=max).contains(&x) => x,
                    _ => bad_option(key, &format!("a number from 0 to {max}")),
                },
            }
        };
        SelectOptions {
            compare: match obj.get("compare") {
                None => RowSemantics::Set,
                Some(Value::String(s)) => RowSemantics::parse(s).unwrap_or_else(|| bad_option("compare", "\"set\" or \"bag\"")),
                Some(_) => bad_option("compare", "\"set\" or \"bag\""),
            },
            gate: real("gate", gucs::SELECT_GATE.get(), 1.0),
            max_pairs: count("max_pairs", gucs::SELECT_MAX_PAIRS.get() as i64, 0, 100),
            top_clusters: count("top_clusters", 4, 2, 10),
            votes: count("votes", 3, 1, 9),
            vote_temperature: real("vote_temperature", 0.7, 2.0) as f32,
            model: match obj.get("model") {
                None => None,
                Some(Value::String(m)) if !m.trim().is_empty() => Some(m.trim().to_string()),
                Some(_) => bad_option("model", "a model name"),
            },
            max_rows: count("max_rows", gucs::MAX_ROWS_LIMIT.get() as i64, 1, 1_000_000),
            max_trials: count("max_trials", 60, 1, 10_000),
            time_ms: count("time_ms", gucs::INSTANCE_TIME_MS.get() as i64, 10, 600_000) as u64,
            adjudicate: match obj.get("adjudicate") {
                None => true,
                Some(Value::Bool(b)) => *b,
                Some(_) => bad_option("adjudicate", "true or false"),
            },
            experts: match obj.get("experts") {
                None | Some(Value::Null) => None,
                Some(Value::Array(a)) => Some(
                    a.iter()
                        .map(|e| e.as_str().filter(|s| !s.trim().is_empty()).map(|s| s.trim().to_string()))
                        .collect::<Option<Vec<_>>>()
                        .unwrap_or_else(|| bad_option("experts", "an array of expert names, one per candidate")),
                ),
                Some(_) => bad_option("experts", "an array of expert names, one per candidate"),
            },
            randomised: match obj.get("voting") {
                None => false,
                Some(Value::String(v)) if v == "wma" => false,
                Some(Value::String(v)) if v == "rwma" => true,
                Some(_) => bad_option("voting", "\"wma\" or \"rwma\""),
            },
        }
    }

    fn exec(&self) -> ExecOptions {
        ExecOptions::from_settings(self.max_rows.min(i32::MAX as usize) as i32)
    }

    fn settings_json(&self, endpoint: &Endpoint) -> Value {
        json!({
            "compare": self.compare,
            "gate": self.gate,
            "max_pairs": self.max_pairs,
            "top_clusters": self.top_clusters,
            "votes": self.votes,
            "vote_temperature": self.vote_temperature,
            "model": endpoint.model,
            "endpoint": nl2sql_core::llm::client::redact_url(&endpoint.base_url),
            "max_rows": self.max_rows,
            "max_trials": self.max_trials,
            "time_ms": self.time_ms,
            "adjudicate": self.adjudicate,
            "experts": self.experts,
            "voting": if self.randomised { "rwma" } else { "wma" },
            "statement_timeout_ms": gucs::STATEMENT_TIMEOUT_MS.get(),
            "execution_role": gucs::text(&gucs::EXECUTION_ROLE),
        })
    }
}

// --- one query on the full database -------------------------------------------------------------

/// A candidate after its run on the database.
#[derive(Debug, Clone)]
pub struct Ran {
    pub status: &'static str,
    pub error: Option<String>,
    pub query: Option<Box<Query>>,
    pub answer: Option<Answer>,
    /// Output column names.
    pub columns: Vec<String>,
    pub row_count: usize,
    pub truncated: bool,
    pub elapsed_ms: f64,
}

fn orders_output(q: &Query) -> bool {
    q.order_by.is_some()
}

pub fn run_candidate(sql: &str, opts: &SelectOptions) -> Ran {
    let checked = match check_query(sql) {
        Ok(c) => c,
        Err(r) => {
            return Ran {
                status: "refused",
                error: Some(format!("{r} (SQLSTATE {})", r.sqlstate())),
                query: None,
                answer: None,
                columns: vec![],
                row_count: 0,
                truncated: false,
                elapsed_ms: 0.0,
            }
        }
    };
    match executor::run_checked(&checked.to_sql(), &opts.exec()) {
        Outcome::Rows(r) => Ran {
            status: "ok",
            error: None,
            answer: Some(Answer::new(&r.rows, orders_output(&checked.query), opts.compare)),
            query: Some(checked.query),
            columns: r.columns.iter().map(|c| c.name.clone()).collect(),
            row_count: r.rows.len(),
            truncated: r.truncated.is_some(),
            elapsed_ms: r.elapsed_ms,
        },
        Outcome::Failed(f) => Ran {
            status: "error",
            error: Some(format!("{} (SQLSTATE {})", f.message, f.sqlstate)),
            query: Some(checked.query),
            answer: None,
            columns: vec![],
            row_count: 0,
            truncated: false,
            elapsed_ms: f.elapsed_ms,
        },
    }
}

// --- separating instance of a pair ------------------------------------------------------------

/// A pair's separating-instance search, with what a person or the model needs to see of it.
pub struct PairInstance {
    pub report: Report,
    pub relations: Vec<RelName>,
    /// `{row_count, tables: [{table, columns, rows, fk_closure}]}`, or null when none was found.
    pub shown: Value,
    /// `{"schema.table": [{column: value}]}` for the model.
    pub for_model: Value,
    /// The instance's tables as schema lines for the model.
    pub schema_text: String,
    pub elapsed_ms: f64,
}

/// The relation a name resolves to (with the caller's search_path), if it is a table.
fn resolve(name: &ObjectName) -> Result<RelName, String> {
    let shown = name.to_string();
    let row = Spi::get_two_with_args::<String, String>(
        "SELECT n.nspname::text, c.relname::text || ':' || c.relkind::text
           FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
          WHERE c.oid = pg_catalog.to_regclass($1)",
        &[shown.clone().into()],
    );
    match row {
        Ok((Some(schema), Some(rel_kind))) => {
            let (rel, kind) = rel_kind.rsplit_once(':').unwrap_or((&rel_kind, "r"));
            match kind {
                "r" | "m" => Ok(RelName::new(schema, rel)),
                "v" => Err(format!("{shown} is a view; separating instances are cut from tables only")),
                "p" => Err(format!("{shown} is a partitioned table; separating instances are cut from plain tables only")),
                _ => Err(format!("{shown} is not a table")),
            }
        }
        _ => Err(format!("relation {shown} does not exist")),
    }
}

fn schema_line(catalog: &Catalog, rel: &RelName) -> String {
    let Some(t) = catalog.table(rel) else { return format!("{rel}") };
    let cols: Vec<String> = t
        .columns
        .iter()
        .map(|c| {
            let mut s = format!("{} {}", c.name, c.type_name);
            if t.primary_key.len() == 1 && t.primary_key[0] == c.name {
                s.push_str(" PRIMARY KEY");
            }
            for fk in catalog.foreign_keys.iter().filter(|f| &f.from == rel && f.from_columns.len() == 1 && f.from_columns[0] == c.name) {
                s.push_str(&format!(" REFERENCES {}({})", fk.to, fk.to_columns.join(", ")));
            }
            s
        })
        .collect();
    format!("{rel}({})", cols.join(", "))
}

/// Find, shrink and read back a separating instance of `a` and `b`.
pub fn separate_pair(a: &Query, b: &Query, catalog: &Catalog, opts: &SelectOptions) -> Result<PairInstance, String> {
    let started = Instant::now();
    let mut relations: Vec<RelName> = Vec::new();
    let mut rel_of: BTreeMap<String, usize> = BTreeMap::new();
    for name in base_relations(a).into_iter().chain(base_relations(b)) {
        let key = name_key(&name);
        if rel_of.contains_key(&key) {
            continue;
        }
        let rel = resolve(&name)?;
        let i = relations.iter().position(|r| r == &rel).unwrap_or_else(|| {
            relations.push(rel);
            relations.len() - 1
        });
        rel_of.insert(key, i);
    }
    if relations.is_empty() {
        return Err("neither query reads a table".into());
    }
    let targets: BTreeMap<String, ObjectName> = rel_of
        .iter()
        .map(|(k, &i)| (k.clone(), ObjectName::from(vec![Ident::new("pg_temp"), Ident::new(instance_table(i))])))
        .collect();
    let sides = [redirect(a, &targets).to_string(), redirect(b, &targets).to_string()];
    let problem = Problem {
        links: Problem::links_from(&relations, &catalog.foreign_keys),
        relations: relations.clone(),
        rel_of,
        lineage: [lineage_queries(a), lineage_queries(b)],
        ordered: [orders_output(a), orders_output(b)],
        semantics: opts.compare,
    };
    let budget = Budget {
        max_trials: opts.max_trials,
        max_shrink_trials: 4 * opts.max_trials,
        lineage_rows: 5000,
        deadline: Instant::now() + Duration::from_millis(opts.time_ms),
    };
    let exec = opts.exec();
    let report = with_instance_space(&relations, sides, &exec, |ws| separate(&problem, ws, budget))?;
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;

    let (mut shown, mut for_model, mut schema_lines) = (Value::Null, json!({}), Vec::new());
    if let Some(found) = &report.found {
        let mut tables = Vec::new();
        for (i, rel) in relations.iter().enumerate() {
            let rows: Vec<&RowId> = found.rows.iter().filter(|r| r.rel == i).collect();
            schema_lines.push(schema_line(catalog, rel));
            let ctids: Vec<&str> = rows.iter().map(|r| r.ctid.as_str()).collect();
            let (columns, values, closure) = if ctids.is_empty() {
                let cols: Vec<String> =
                    catalog.table(rel).map(|t| t.columns.iter().map(|c| c.name.clone()).collect()).unwrap_or_default();
                (cols, Vec::new(), Vec::new())
            } else {
                let outcome = executor::run(&rows_sql(rel, &ctids), &ExecOptions { max_rows: ctids.len(), ..exec.clone() })
                    .map_err(|r| r.to_string())?;
                let closure_of = |c: &str| found.closure.iter().any(|r| r.rel == i && r.ctid == c);
                let mut sorted: Vec<&str> = ctids.clone();
                sorted.sort_by_key(|c| tid_order(c));
                let objects = crate::ask::rows_as_objects(&outcome);
                let Outcome::Rows(r) = outcome else {
                    return Err(format!("could not read the instance rows of {rel}"));
                };
                let cols: Vec<String> = r.columns.iter().map(|c| c.name.clone()).collect();
                for_model[rel.to_string()] = Value::Array(objects);
                (cols, r.rows, sorted.iter().map(|c| closure_of(c)).collect())
            };
            if for_model.get(rel.to_string()).is_none() {
                for_model[rel.to_string()] = json!([]);
            }
            tables.push(json!({"table": rel.to_string(), "columns": columns, "rows": values, "fk_closure": closure}));
        }
        shown = json!({"row_count": found.rows.len(), "tables": tables});
    }
    Ok(PairInstance { report, relations, shown, for_model, schema_text: schema_lines.join("\n"), elapsed_ms })
}

/// `(block,offset)` of a ctid text, for ordering as `ORDER BY ctid` does.
fn tid_order(c: &str) -> (u64, u64) {
    let inner = c.trim_matches(|ch| ch == '(' || ch == ')');
    let mut it = inner.split(',').map(|p| p.trim().parse::<u64>().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}

fn search_json(p: &PairInstance) -> Value {
    let r = &p.report;
    json!({
        "strategy": r.found.as_ref().map(|f| f.strategy),
        "trials": r.trials,
        "unshrunk_rows": r.found.as_ref().map(|f| f.unshrunk_rows),
        "witnesses": r.witnesses,
        "notes": r.notes,
        "tables": p.relations.iter().map(ToString::to_string).collect::<Vec<_>>(),
    })
}

// --- nl2sql_distinguish -----------------------------------------------------------------------

fn ran_or_raise(which: &str, sql: &str, opts: &SelectOptions) -> Ran {
    let checked = check_query(sql).unwrap_or_else(|r| {
        crate::errors::raise(r.sqlstate(), format!("query {which} is refused: {r}"), Some(r.hint()))
    });
    let ran = run_candidate(&checked.to_sql(), opts);
    if ran.status != "ok" {
        crate::errors::raise(
            "22023",
            format!("query {which} failed on the database: {}", ran.error.unwrap_or_default()),
            Some("Both queries must run before they can be told apart."),
        );
    }
    ran
}

/// The smallest instance found on which `sql_a` and `sql_b` differ, or the evidence that they do
/// not differ on the current data.
pub fn distinguish(sql_a: &str, sql_b: &str, options: &Value) -> Value {
    let started = Instant::now();
    let opts = SelectOptions::from_json(options);
    let a = ran_or_raise("A", sql_a, &opts);
    let b = ran_or_raise("B", sql_b, &opts);
    let (ans_a, ans_b) = (a.answer.as_ref().expect("ok"), b.answer.as_ref().expect("ok"));
    let full = json!({
        "row_count_a": a.row_count, "row_count_b": b.row_count,
        "truncated": a.truncated || b.truncated, "compared_as": opts.compare,
    });
    if nl2sql_core::select::answer::same(ans_a, ans_b) {
        let mut reason = format!(
            "both queries return the same result on the current data ({} row{}, compared as a {})",
            ans_a.rows.len(),
            if ans_a.rows.len() == 1 { "" } else { "s" },
            if opts.compare == RowSemantics::Set { "set" } else { "bag" }
        );
        if a.truncated || b.truncated {
            reason.push_str(&format!("; only the first {} rows of each were compared", opts.max_rows));
        }
        return json!({
            "differ": false, "found": false, "reason": reason, "full_database": full,
            "elapsed_ms": started.elapsed().as_secs_f64() * 1000.0,
        });
    }
    let catalog = catalog::read();
    let pair = separate_pair(a.query.as_ref().expect("ok"), b.query.as_ref().expect("ok"), &catalog, &opts)
        .unwrap_or_else(|e| crate::errors::raise("0A000", format!("no separating instance can be built: {e}"), None));
    let mut out = json!({
        "differ": true,
        "found": pair.report.found.is_some(),
        "full_database": full,
        "search": search_json(&pair),
        "elapsed_ms": started.elapsed().as_secs_f64() * 1000.0,
        "instance_ms": pair.elapsed_ms,
    });
    match &pair.report.found {
        Some(f) => {
            out["instance"] = pair.shown.clone();
            out["answer_a"] = preview(&f.answers[0], 50);
            out["answer_b"] = preview(&f.answers[1], 50);
        }
        None => {
            out["reason"] = json!(format!(
                "the queries differ on the full database, but no instance was found within the budget: {}",
                pair.report.notes.join("; ")
            ));
        }
    }
    out
}

// --- nl2sql_select ------------------------------------------------------------------------------

/// The experts' weights (`nl2sql.experts`; an expert not there yet weighs 1).
pub fn expert_weights() -> BTreeMap<String, f64> {
    Spi::connect(|c| {
        c.select("SELECT expert, weight FROM nl2sql.experts", None, &[])
            .map(|rows| {
                rows.filter_map(|r| Some((r.get::<String>(1).ok().flatten()?, r.get::<f64>(2).ok().flatten()?))).collect()
            })
            .unwrap_or_default()
    })
}

/// One row of `nl2sql_select`'s result.
#[derive(Debug, Clone)]
pub struct CandidateRow {
    pub candidate: i32,
    pub sql: String,
    pub status: String,
    pub error: Option<String>,
    pub cluster: Option<i32>,
    pub cluster_size: Option<i32>,
    pub confidence: Option<f64>,
    pub wins: Option<f64>,
    pub score: Option<f64>,
    pub chosen: bool,
    pub reason: String,
    pub instance: Option<Value>,
}

struct Played {
    duel: Duel,
    /// The duel's record: instance, answers, votes.
    record: Value,
    /// Rows of the instance, when one was found.
    instance_rows: Option<usize>,
}

fn vote_label(v: Verdict) -> &'static str {
    match v {
        Verdict::A => "a",
        Verdict::B => "b",
        Verdict::Draw => "draw",
    }
}

pub fn select(question: &str, candidates: &[Option<String>], evidence: Option<&str>, options: &Value) -> (Option<i64>, Vec<CandidateRow>) {
    let opts = SelectOptions::from_json(options);
    if candidates.is_empty() {
        crate::errors::raise("22023", "no candidates", Some("Pass an array of SQL texts, e.g. ARRAY['SELECT …', 'SELECT …']."));
    }
    if let Some(e) = &opts.experts {
        if e.len() != candidates.len() {
            crate::errors::raise(
                "22023",
                format!("option \"experts\" names {} experts for {} candidates", e.len(), candidates.len()),
                Some("Give one expert name per candidate, in the same order."),
            );
        }
    }
    let mut endpoint = crate::llm::chat_endpoint();
    if let Some(m) = &opts.model {
        endpoint.model = m.clone();
    }
    let mut run = audit::begin("nl2sql_select", Some(question), evidence, opts.settings_json(&endpoint));
    let step = |run: &mut Option<audit::Run>, stage: &str, status: &str, detail: String, sql: Option<String>, data: Value, ms: f64| {
        pgrx::notice!("nl2sql_select {stage}: {detail}");
        if let Some(r) = run.as_mut() {
            audit::step(r, audit::Step { stage: stage.into(), status: status.into(), detail: Some(detail), sql, input: None, output: Some(data), elapsed_ms: ms });
        }
    };

    // 1. run every candidate
    let t = Instant::now();
    let ran: Vec<Ran> = candidates
        .iter()
        .map(|c| match c {
            Some(sql) => run_candidate(sql, &opts),
            None => Ran { status: "refused", error: Some("the candidate is NULL".into()), query: None, answer: None, columns: vec![], row_count: 0, truncated: false, elapsed_ms: 0.0 },
        })
        .collect();
    let ok = ran.iter().filter(|r| r.status == "ok").count();
    step(
        &mut run,
        "execute",
        if ok > 0 { "ok" } else { "error" },
        format!("{ok} of {} candidates ran", ran.len()),
        None,
        json!(ran.iter().enumerate().map(|(i, r)| json!({"candidate": i + 1, "sql": candidates[i], "expert": opts.experts.as_ref().map(|e| e[i].clone()),
            "status": r.status, "error": r.error, "row_count": r.row_count, "truncated": r.truncated, "elapsed_ms": r.elapsed_ms})).collect::<Vec<_>>()),
        t.elapsed().as_secs_f64() * 1000.0,
    );

    // 2. cluster
    let answers: Vec<Option<Answer>> = ran.iter().map(|r| r.answer.clone()).collect();
    let mut clusters: Vec<Cluster> = cluster(&answers);
    if let Some(experts) = &opts.experts {
        // weighted majority: confidence is the weight of a cluster's experts, and clusters rank by it
        let expert_of: Vec<Option<String>> = experts.iter().cloned().map(Some).collect();
        nl2sql_core::select::experts::rank(&mut clusters, &expert_of, &expert_weights());
    }
    if opts.randomised && clusters.len() > 1 {
        // RWMA: draw a cluster in proportion to its (weighted) confidence, reproducibly per run
        let seed = run.as_ref().map_or(0, |r| r.id as u64);
        let conf: Vec<f64> = clusters.iter().map(|c| c.confidence).collect();
        if let Some(k) = nl2sql_core::select::experts::sample_cluster(&conf, nl2sql_core::select::experts::unit(seed)) {
            let drawn = clusters.remove(k);
            clusters.insert(0, drawn);
        }
    }
    let cluster_of: BTreeMap<usize, usize> =
        clusters.iter().enumerate().flat_map(|(ci, c)| c.members.iter().map(move |&m| (m, ci))).collect();
    step(
        &mut run,
        "cluster",
        "ok",
        format!(
            "{} result cluster{}; the largest holds {} (confidence {:.2})",
            clusters.len(),
            if clusters.len() == 1 { "" } else { "s" },
            clusters.first().map_or(0, |c| c.members.len()),
            clusters.first().map_or(0.0, |c| c.confidence)
        ),
        None,
        json!(clusters.iter().map(|c| json!({"members": c.members.iter().map(|m| m + 1).collect::<Vec<_>>(), "confidence": c.confidence})).collect::<Vec<_>>()),
        0.0,
    );

    // 3. gate or tournament
    let mut played: Vec<Played> = Vec::new();
    let mut usage = Usage::default();
    let mut llm_calls = 0i32;
    let top_conf = clusters.first().map_or(0.0, |c| c.confidence);
    let gate_decides = clusters.len() <= 1 || top_conf >= opts.gate || !opts.adjudicate || opts.max_pairs == 0;
    let mut catalog_cache: Option<Catalog> = None;
    if !gate_decides {
        let catalog = catalog_cache.get_or_insert_with(catalog::read);
        for (i, j) in tournament::schedule(&clusters, opts.top_clusters, opts.max_pairs) {
            let t = Instant::now();
            let (ra, rb) = (clusters[i].representative(), clusters[j].representative());
            let (qa, qb) = (ran[ra].query.as_ref().expect("ran"), ran[rb].query.as_ref().expect("ran"));
            let width = ran[ra].columns.len().max(1);
            let names: Vec<String> =
                if ran[ra].columns == ran[rb].columns { ran[ra].columns.clone() } else { vec![] };
            let (verdict, record, instance_rows) = match separate_pair(qa, qb, catalog, &opts) {
                Err(e) => (Verdict::Draw, json!({"error": e}), None),
                Ok(pair) => match &pair.report.found {
                    None => (Verdict::Draw, json!({"found": false, "search": search_json(&pair)}), None),
                    Some(found) => {
                        let msgs = adjudicate::messages(question, evidence, &pair.schema_text, &pair.for_model, width, &names);
                        pgrx::debug1!("nl2sql_select adjudication prompt: {}", msgs[1].content);
                        let mut votes = Vec::new();
                        let mut model_answers = Vec::new();
                        // the votes go out together (nl2sql.llm_concurrency at a time): the first
                        // greedy, the others sampled with their own seeds
                        let requests: Vec<ChatRequest> = (0..opts.votes)
                            .map(|v| ChatRequest {
                                messages: msgs.clone(),
                                temperature: if v == 0 { 0.0 } else { opts.vote_temperature },
                                max_tokens: Some(700),
                                json_schema: Some(("answer".into(), adjudicate::answer_schema(width))),
                                seed: Some(v as u64 + 1),
                                ..Default::default()
                            })
                            .collect();
                        for reply in crate::llm::try_chat_all_at(&endpoint, requests) {
                            let reply = reply.unwrap_or_else(|e| crate::errors::raise_llm(&e));
                            usage.add(reply.usage);
                            llm_calls += 1;
                            match adjudicate::parse_answer(&reply.content) {
                                Some(rows) => {
                                    let (fa, fb) = adjudicate::scores(&rows, &found.answers[0], &found.answers[1]);
                                    let verdict = adjudicate::vote(&rows, &found.answers[0], &found.answers[1], 0.01);
                                    votes.push(verdict);
                                    model_answers.push(json!({"rows": rows, "soft_f1_a": fa, "soft_f1_b": fb, "vote": vote_label(verdict)}));
                                }
                                None => model_answers.push(json!({"unparsable": nl2sql_core::llm::json::excerpt(&reply.content, 200)})),
                            }
                        }
                        let verdict = adjudicate::majority(&votes);
                        (
                            verdict,
                            json!({
                                "found": true,
                                "instance": pair.shown,
                                "answer_a": preview(&found.answers[0], 20),
                                "answer_b": preview(&found.answers[1], 20),
                                "model_answers": model_answers,
                                "search": search_json(&pair),
                                "instance_ms": pair.elapsed_ms,
                            }),
                            Some(found.rows.len()),
                        )
                    }
                },
            };
            let detail = format!(
                "candidate {} vs candidate {}: {}",
                ra + 1,
                rb + 1,
                match (verdict, instance_rows) {
                    (Verdict::A, Some(n)) => format!("candidate {} wins on a {n}-row instance", ra + 1),
                    (Verdict::B, Some(n)) => format!("candidate {} wins on a {n}-row instance", rb + 1),
                    (Verdict::Draw, Some(n)) => format!("draw on a {n}-row instance"),
                    _ => "draw: no separating instance".to_string(),
                }
            );
            step(&mut run, "duel", "ok", detail, None, record.clone(), t.elapsed().as_secs_f64() * 1000.0);
            played.push(Played { duel: Duel { a: i, b: j, verdict }, record, instance_rows });
        }
    }
    let duels: Vec<Duel> = played.iter().map(|p| p.duel).collect();
    let (scores, best) = tournament::choose(&clusters, &duels);
    let wins = tournament::wins(clusters.len(), &duels);
    let chosen = best.map(|ci| clusters[ci].representative());

    // 4. reasons
    let chosen_reason = |ci: usize| -> String {
        let c = &clusters[ci];
        if clusters.len() == 1 {
            return format!("all {} candidates that ran return the same result", c.members.len());
        }
        if gate_decides {
            if opts.randomised {
                return format!("drawn by randomised weighted majority: its experts hold {:.2} of the weight", c.confidence);
            }
            let why = if !opts.adjudicate || opts.max_pairs == 0 {
                "adjudication is off".to_string()
            } else {
                format!("confidence {:.2} ≥ gate {:.2}; no model call needed", c.confidence, opts.gate)
            };
            return format!("its result is shared by {} of {ok} candidates that ran ({why})", c.members.len());
        }
        let won: Vec<&Played> = played
            .iter()
            .filter(|p| (p.duel.a == ci && p.duel.verdict == Verdict::A) || (p.duel.b == ci && p.duel.verdict == Verdict::B))
            .collect();
        let mine = played.iter().filter(|p| p.duel.a == ci || p.duel.b == ci).count();
        match won.first() {
            Some(p) => {
                let other = if p.duel.a == ci { p.duel.b } else { p.duel.a };
                let model_rows = p.record["model_answers"]
                    .as_array()
                    .and_then(|v| v.iter().find(|m| m.get("rows").is_some()))
                    .map(|m| m["rows"].to_string())
                    .unwrap_or_default();
                let (own, theirs) = if p.duel.a == ci { ("answer_a", "answer_b") } else { ("answer_b", "answer_a") };
                format!(
                    "won {} of {mine} duels; on a {}-row instance cut from the data the model answered {model_rows}, which matches this candidate's result {} and not candidate {}'s {}",
                    won.len(),
                    p.instance_rows.unwrap_or(0),
                    p.record[own]["rows"],
                    clusters[other].representative() + 1,
                    p.record[theirs]["rows"],
                )
            }
            None => format!(
                "no duel was decisive ({mine} played); chosen as the largest result cluster (confidence {:.2})",
                c.confidence
            ),
        }
    };
    let mut rows = Vec::new();
    for (i, r) in ran.iter().enumerate() {
        let ci = cluster_of.get(&i).copied();
        let is_rep = ci.is_some_and(|ci| clusters[ci].representative() == i);
        let duels_json: Vec<Value> = match ci {
            Some(ci) if is_rep => played
                .iter()
                .filter(|p| p.duel.a == ci || p.duel.b == ci)
                .map(|p| {
                    let (me, other) = if p.duel.a == ci { ("a", p.duel.b) } else { ("b", p.duel.a) };
                    let result = match (p.duel.verdict, me) {
                        (Verdict::Draw, _) => "draw",
                        (Verdict::A, "a") | (Verdict::B, "b") => "won",
                        _ => "lost",
                    };
                    json!({"against": clusters[other].representative() + 1, "side": me, "result": result, "duel": p.record})
                })
                .collect(),
            _ => vec![],
        };
        let reason = match (r.status, ci) {
            (_, None) => r.error.clone().unwrap_or_default(),
            (_, Some(ci)) if chosen == Some(i) => chosen_reason(ci),
            (_, Some(ci)) if !is_rep => format!("same result as candidate {} (cluster {})", clusters[ci].representative() + 1, ci + 1),
            (_, Some(ci)) => {
                let lost = played.iter().find(|p| (p.duel.a == ci && p.duel.verdict == Verdict::B) || (p.duel.b == ci && p.duel.verdict == Verdict::A));
                match lost {
                    Some(p) => {
                        let other = if p.duel.a == ci { p.duel.b } else { p.duel.a };
                        format!("lost to candidate {} on a {}-row instance", clusters[other].representative() + 1, p.instance_rows.unwrap_or(0))
                    }
                    None if gate_decides => format!("a smaller result cluster than candidate {}'s", chosen.map_or(0, |c| c + 1)),
                    None => format!("scored {:.2}, below the chosen candidate", scores[ci]),
                }
            }
        };
        rows.push(CandidateRow {
            candidate: i as i32 + 1,
            sql: candidates[i].clone().unwrap_or_default(),
            status: r.status.to_string(),
            error: r.error.clone(),
            cluster: ci.map(|c| c as i32 + 1),
            cluster_size: ci.map(|c| clusters[c].members.len() as i32),
            confidence: ci.map(|c| clusters[c].confidence),
            wins: ci.map(|c| wins[c]),
            score: ci.map(|c| scores[c]),
            chosen: chosen == Some(i),
            reason,
            instance: (!duels_json.is_empty()).then(|| json!({"duels": duels_json})),
        });
    }
    let chosen_sql = chosen.and_then(|i| candidates[i].clone());
    step(
        &mut run,
        "chosen",
        if chosen.is_some() { "ok" } else { "error" },
        match chosen {
            Some(i) => format!("candidate {}: {}", i + 1, rows[i].reason),
            None => "no candidate ran".to_string(),
        },
        chosen_sql.clone(),
        json!({"scores": scores, "wins": wins, "formula": "score = wins + confidence"}),
        0.0,
    );
    let run_id = run.as_ref().map(|r| r.id);
    if let Some(r) = run {
        audit::finish(
            r,
            audit::Finish {
                status: if chosen.is_some() { "ok" } else { "error" }.into(),
                error: chosen.is_none().then(|| "no candidate ran".to_string()),
                chosen_sql,
                prompt_tokens: usage.prompt_tokens as i64,
                completion_tokens: usage.completion_tokens as i64,
                llm_calls,
            },
        );
    }
    (run_id, rows)
}
