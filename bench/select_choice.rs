//! Benchmark 3: choosing among candidate SQL (nl2sql_select, nl2sql_distinguish) on the Spider
//! candidate sets of ../shared/data (8 published systems per question).
//!
//!     bench/load_spider.sh                      # once: the databases, with the extension
//!     cargo run --release --example select_choice -- [--tournament N] [--skip-instances] [DATA_DIR]
//!
//! (a) Separating instances: for every question, the candidates are clustered by result (as
//!     nl2sql_select does) and every pair of cluster representatives (the pairs whose results
//!     differ on the full database) goes to nl2sql_distinguish. Reported: success rate, instance
//!     size in rows, build time per pair (resolution, lineage, search, shrink; in-process).
//! (b) Selection accuracy, scored against the gold on PostgreSQL (strict / tie-tolerant, as in
//!     Benchmark 2): the first candidate (DAIL-SQL+GPT-4), self-consistency (the largest cluster,
//!     nl2sql_select without the model or the verifier), the verified majority (the same with the
//!     verifier's weights, nl2sql_select's default; paired against self-consistency, raw choices in
//!     bench/results/select_choice.jsonl), the confidence gate alone (the largest cluster when its
//!     confidence reaches nl2sql.select_gate, else the first candidate that ran), the full
//!     tournament with the local model on the first N contested questions (those below the gate,
//!     spread evenly), and the oracle (any candidate correct). LLM calls and seconds per question.
//! (c) The same separating-instance search driven from a client over libpq (the same core search,
//!     its lineage, FK, fill and run statements sent as SQL in one transaction with a savepoint per
//!     query) against in-process; the ratio of times per pair.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

#[path = "spider.rs"]
mod spider;

use nl2sql_core::catalog::{Catalog, RelName};
use nl2sql_core::effects::{Executor, Instances};
use nl2sql_core::options::{SelectOptions, Settings};
use nl2sql_core::result::{ColumnInfo, ExecFailure, Outcome, ResultSet};
use nl2sql_core::select::answer::{Answer, RowSemantics};
use nl2sql_core::select::cluster::cluster;
use nl2sql_core::select::pair::separate_pair;
use nl2sql_core::select::separate::{tid_array, Report, Rows, Workspace};
use nl2sql_core::sql::{check_query, Refusal};
use postgres::{Client, SimpleQueryMessage};
use serde_json::{json, Value};
use spider::{connect, pct, rows, Gold};
use sqlparser::ast::{Ident, ObjectName};

// --- the client-side database (c) ---------------------------------------------------------------

/// The instance workspace over libpq: the same core search as the extension's (`separate_pair`),
/// its statements sent as SQL in one transaction, a savepoint per query.
struct ClientDb<'c> {
    client: &'c mut Client,
}

struct ClientWorkspace<'a> {
    tx: postgres::Transaction<'a>,
    relations: Vec<RelName>,
    sides: [String; 2],
}

fn text_value(s: Option<&str>) -> Value {
    match s {
        None => Value::Null,
        Some(t) => match t.parse::<f64>() {
            Ok(f) if t.trim() == t && !t.is_empty() && f.is_finite() => json!(f),
            _ => Value::String(t.to_string()),
        },
    }
}

/// One read-only, time-bounded query in a savepoint, as the extension's executor does: the
/// column names and at most `max_rows` rows.
fn bounded(tx: &mut postgres::Transaction, sql: &str, max_rows: usize) -> Result<(Vec<String>, Rows), String> {
    let batch = format!(
        "SAVEPOINT q; SET LOCAL transaction_read_only = on; SET LOCAL statement_timeout = 5000; \
         SELECT * FROM ({sql}) AS q LIMIT {}",
        max_rows + 1
    );
    let result = tx.simple_query(&batch);
    tx.batch_execute("ROLLBACK TO SAVEPOINT q").map_err(|e| e.to_string())?;
    let messages = result.map_err(|e| e.as_db_error().map_or(e.to_string(), |d| d.message().to_string()))?;
    let mut columns = Vec::new();
    let mut rows = Vec::new();
    for m in messages {
        match m {
            SimpleQueryMessage::RowDescription(cols) => columns = cols.iter().map(|c| c.name().to_string()).collect(),
            SimpleQueryMessage::Row(r) if rows.len() < max_rows => rows.push((0..r.len()).map(|i| text_value(r.get(i))).collect()),
            _ => {}
        }
    }
    Ok((columns, rows))
}

impl Workspace for ClientWorkspace<'_> {
    fn query(&mut self, sql: &str, max_rows: usize) -> Result<Rows, String> {
        // ctids must stay text
        bounded(&mut self.tx, sql, max_rows).map(|(_, rows)| {
            rows.into_iter()
                .map(|r| r.into_iter().map(|v| if v.is_number() { Value::String(v.to_string()) } else { v }).collect())
                .collect()
        })
    }
    fn fill(&mut self, rel: usize, ctids: &[String]) -> Result<(), String> {
        let table = format!("__bench_instance_{rel}");
        let mut sql = format!("DELETE FROM pg_temp.{table};");
        if !ctids.is_empty() {
            let tids: Vec<&str> = ctids.iter().map(String::as_str).collect();
            sql.push_str(&format!(" INSERT INTO pg_temp.{table} SELECT * FROM {} WHERE ctid = ANY({})", self.relations[rel], tid_array(&tids)));
        }
        self.tx.batch_execute(&sql).map_err(|e| e.to_string())
    }
    fn run(&mut self, side: usize) -> Result<Rows, String> {
        let sql = self.sides[side].clone();
        bounded(&mut self.tx, &sql, 10_000).map(|(_, rows)| rows)
    }
}

impl Executor for ClientDb<'_> {
    fn run(&mut self, sql: &str, max_rows: usize) -> Result<Outcome, Refusal> {
        let sql = check_query(sql)?.to_sql();
        let started = Instant::now();
        let mut tx = match self.client.transaction() {
            Ok(tx) => tx,
            Err(e) => return Ok(failure(e.to_string())),
        };
        let result = bounded(&mut tx, &sql, max_rows);
        let _ = tx.rollback();
        Ok(match result {
            Ok((columns, rows)) => Outcome::Rows(ResultSet {
                columns: columns.into_iter().map(|name| ColumnInfo { name, type_name: "text".into() }).collect(),
                rows,
                truncated: None,
                elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
            }),
            Err(e) => failure(e),
        })
    }
}

fn failure(message: String) -> Outcome {
    Outcome::Failed(ExecFailure { sqlstate: "XX000".into(), message, detail: None, hint: None, timed_out: false, elapsed_ms: 0.0 })
}

impl Instances for ClientDb<'_> {
    fn resolve_table(&mut self, name: &ObjectName) -> Result<RelName, String> {
        let row = self
            .client
            .query_opt(
                "SELECT n.nspname::text, c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE c.oid = to_regclass($1) AND c.relkind IN ('r', 'm')",
                &[&name.to_string()],
            )
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("no table {name}"))?;
        Ok(RelName::new(row.get::<_, String>(0), row.get::<_, String>(1)))
    }

    fn instance_table(&self, i: usize) -> ObjectName {
        ObjectName::from(vec![Ident::new("pg_temp"), Ident::new(format!("__bench_instance_{i}"))])
    }

    fn instance_space(
        &mut self,
        relations: &[RelName],
        sides: [String; 2],
        _max_rows: usize,
        search: &mut dyn FnMut(&mut dyn Workspace) -> Result<Report, String>,
    ) -> Result<Report, String> {
        let mut tx = self.client.transaction().map_err(|e| e.to_string())?;
        for (i, rel) in relations.iter().enumerate() {
            tx.batch_execute(&format!("CREATE TEMP TABLE __bench_instance_{i} (LIKE {rel} INCLUDING INDEXES)")).map_err(|e| e.to_string())?;
        }
        let mut ws = ClientWorkspace { tx, relations: relations.to_vec(), sides };
        let report = search(&mut ws);
        ws.tx.rollback().map_err(|e| e.to_string())?;
        report
    }
}

/// The separating-instance search of `a` and `b` driven from the client; (found, rows).
fn client_separate(client: &mut Client, catalog: &Catalog, a: &str, b: &str) -> Result<(bool, usize), String> {
    let qa = check_query(a).map_err(|e| e.to_string())?.query;
    let qb = check_query(b).map_err(|e| e.to_string())?.query;
    let opts = SelectOptions { max_trials: 60, instance_time_ms: 3000, ..SelectOptions::defaults(&Settings::default()) };
    let pair = separate_pair(&mut ClientDb { client }, &qa, &qb, catalog, &opts)?;
    Ok((pair.report.found.is_some(), pair.report.found.map_or(0, |f| f.rows.len())))
}

// --- main ------------------------------------------------------------------------------------------

#[derive(Default)]
struct Choice {
    strict: usize,
    tie: usize,
}

impl Choice {
    fn add(&mut self, c: (bool, bool)) {
        self.strict += c.0 as usize;
        self.tie += c.1 as usize;
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut tournament_n = 0usize;
    let mut skip_instances = false;
    let mut data = format!("{}/../shared/data", env!("CARGO_MANIFEST_DIR"));
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--tournament" => {
                tournament_n = args[i + 1].parse().expect("--tournament N");
                i += 1;
            }
            "--skip-instances" => skip_instances = true,
            other => data = other.to_string(),
        }
        i += 1;
    }
    let all: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(format!("{data}/spider/candidates.json")).expect("candidates.json")).unwrap();
    let questions: BTreeMap<u64, Value> = serde_json::from_str::<Vec<Value>>(
        &std::fs::read_to_string(format!("{data}/spider/questions.json")).expect("questions.json"),
    )
    .unwrap()
    .into_iter()
    .map(|q| (q["question_id"].as_u64().unwrap(), q))
    .collect();

    let mut clients: BTreeMap<String, Client> = BTreeMap::new();
    let mut catalogs: BTreeMap<String, Catalog> = BTreeMap::new();
    let (mut pairs, mut found, mut sizes, mut build_ms, mut ratios, mut client_found) = (0, 0, vec![], vec![], vec![], 0);
    let mut failures: Vec<String> = Vec::new();
    let (mut first, mut sc, mut gate, mut oracle) = (Choice::default(), Choice::default(), Choice::default(), Choice::default());
    let mut verified = Choice::default();
    let mut paired: Vec<(bool, bool)> = Vec::new();
    let (mut bag, mut paired_bag, mut paired_default) = (Choice::default(), Vec::<(bool, bool)>::new(), Vec::<(bool, bool)>::new());
    let raw_path = std::env::var("NL2SQL_BENCH_OUT").unwrap_or_else(|_| format!("{}/bench/results/select_choice.jsonl", env!("CARGO_MANIFEST_DIR")));
    let mut raw = std::io::BufWriter::new(std::fs::File::create(&raw_path).expect("raw results file"));
    let mut n_questions = 0;
    let mut contested: Vec<(u64, Vec<String>, Vec<(bool, bool)>, usize, usize)> = Vec::new();
    let started = Instant::now();

    for item in &all {
        let qid = item["question_id"].as_u64().unwrap();
        let q = &questions[&qid];
        if q["pg_ok_tie_tolerant"] != Value::Bool(true) {
            continue;
        }
        n_questions += 1;
        let db = format!("spider_{}", item["db_id"].as_str().unwrap().to_lowercase());
        let client = clients.entry(db.clone()).or_insert_with(|| connect(&db));
        let catalog = catalogs.entry(db.clone()).or_insert_with(|| {
            let text: String = client.query_one("SELECT nl2sql_schema()::text", &[]).unwrap().get(0);
            serde_json::from_str(&text).unwrap()
        });
        let gold_sql = q["gold_pg"].as_str().unwrap();
        let ordered = q["order_sensitive"] == Value::Bool(true);
        let gold = Gold::load(client, gold_sql, ordered).expect("gold runs");
        let sqls: Vec<String> =
            item["candidates"].as_array().unwrap().iter().map(|c| c["sql"].as_str().unwrap_or("").to_string()).collect();
        // each candidate once: its rows, its correctness, its normal form
        let mut correct = Vec::new();
        let mut answers: Vec<Option<Answer>> = Vec::new();
        for sql in &sqls {
            match rows(client, sql) {
                Ok(pred) => {
                    correct.push((gold.strict(&pred), gold.tie_tolerant(&pred)));
                    let orders = check_query(sql).map(|c| c.query.order_by.is_some()).unwrap_or(false);
                    answers.push(Some(Answer::new(&pred, orders, RowSemantics::Set)));
                }
                Err(_) => {
                    correct.push((false, false));
                    answers.push(None);
                }
            }
        }
        first.add(correct[0]);
        oracle.add((correct.iter().any(|c| c.0), correct.iter().any(|c| c.1)));

        // self-consistency and the gate, through nl2sql_select without the model (and without the
        // verifier); the verified majority: the same with the verifier's weights (the default)
        let select_with = |client: &mut Client, options: &str| -> Vec<(i32, f64)> {
            client
                .query(
                    "SELECT candidate, confidence FROM nl2sql_select($1, $2, NULL, $3::text::jsonb) WHERE chosen",
                    &[&q["question"].as_str().unwrap(), &sqls.iter().map(|s| Some(s.clone())).collect::<Vec<_>>(), &options],
                )
                .unwrap()
                .iter()
                .map(|r| (r.get(0), r.get::<_, f64>(1)))
                .collect()
        };
        let chosen = select_with(client, r#"{"adjudicate": false, "verify": false, "compare": "set"}"#);
        let verified_choice = select_with(client, r#"{"adjudicate": false, "compare": "set"}"#);
        let bag_choice = select_with(client, r#"{"adjudicate": false, "compare": "bag"}"#);
        if let (Some(&(a, _)), Some(&(b, _)), Some(&(g, _))) = (chosen.first(), verified_choice.first(), bag_choice.first()) {
            let (sc_c, ver_c, bag_c) = (correct[a as usize - 1], correct[b as usize - 1], correct[g as usize - 1]);
            verified.add(ver_c);
            bag.add(bag_c);
            paired.push((sc_c.1, ver_c.1));
            paired_bag.push((ver_c.1, bag_c.1));
            paired_default.push((sc_c.1, bag_c.1));
            writeln!(raw, "{}", json!({"question_id": qid, "db": item["db_id"], "sc_candidate": a, "sc_tie": sc_c.1, "sc_strict": sc_c.0,
                "verified_candidate": b, "verified_tie": ver_c.1, "verified_strict": ver_c.0,
                "bag_candidate": g, "bag_tie": bag_c.1, "bag_strict": bag_c.0})).unwrap();
        }
        if let Some(&(cand, conf)) = chosen.first() {
            let c = correct[cand as usize - 1];
            sc.add(c);
            if conf >= 0.6 {
                gate.add(c);
            } else {
                let first_ran = answers.iter().position(Option::is_some).unwrap_or(0);
                gate.add(correct[first_ran]);
                contested.push((qid, sqls.clone(), correct.clone(), cand as usize - 1, first_ran));
            }
        }

        // (a) and (c): every pair of cluster representatives
        if skip_instances {
            continue;
        }
        let clusters = cluster(&answers);
        for x in 0..clusters.len() {
            for y in x + 1..clusters.len() {
                let (a, b) = (&sqls[clusters[x].representative()], &sqls[clusters[y].representative()]);
                let d: Value = match client.query_one("SELECT nl2sql_distinguish($1, $2)::text", &[a, b]) {
                    Ok(r) => serde_json::from_str(&r.get::<_, String>(0)).unwrap(),
                    Err(e) => {
                        pairs += 1;
                        failures.push(format!("q{qid}: error: {}", e.as_db_error().map_or(e.to_string(), |d| d.message().to_string())));
                        continue;
                    }
                };
                if d["differ"] != Value::Bool(true) {
                    continue; // equal as nl2sql compares them (e.g. beyond the row bound)
                }
                pairs += 1;
                let ms = d["instance_ms"].as_f64().unwrap_or(0.0);
                if d["found"] == Value::Bool(true) {
                    found += 1;
                    sizes.push(d["instance"]["row_count"].as_f64().unwrap());
                    build_ms.push(ms);
                } else {
                    failures.push(format!("q{qid}: {}", d["reason"].as_str().unwrap_or("")));
                }
                let t = Instant::now();
                match client_separate(client, catalog, a, b) {
                    Ok((ok, _)) => {
                        client_found += ok as usize;
                        let cms = t.elapsed().as_secs_f64() * 1000.0;
                        if ms > 0.0 {
                            ratios.push(cms / ms);
                        }
                    }
                    Err(e) => failures.push(format!("q{qid}: client: {e}")),
                }
            }
        }
    }
    let n = n_questions as f64;
    let share = |k: usize| 100.0 * k as f64 / n;
    println!("Benchmark 3: choosing among candidates, Spider dev ({n_questions} questions with a trustworthy PostgreSQL gold)");
    println!("command: cargo run --release --example select_choice -- --tournament {tournament_n}");
    if !skip_instances {
        println!("\n(a) separating instances over {pairs} pairs of cluster representatives whose results differ");
        println!("  found: {found}/{pairs} = {:.2}%", 100.0 * found as f64 / pairs.max(1) as f64);
        println!("  size (rows): median {} p95 {} max {}", pct(&mut sizes, 0.5), pct(&mut sizes, 0.95), pct(&mut sizes, 1.0));
        println!("  build time (ms, in-process): median {:.1} p95 {:.1}", pct(&mut build_ms, 0.5), pct(&mut build_ms, 0.95));
        println!("\n(c) client over libpq vs in-process, same search: client found {client_found}/{pairs}");
        println!("  time ratio client/in-process: median {:.2} p95 {:.2}", pct(&mut ratios, 0.5), pct(&mut ratios, 0.95));
        for f in failures.iter().take(30) {
            println!("  not found: {f}");
        }
    }
    println!("\n(b) selection accuracy (strict / tie-tolerant)");
    for (name, c) in [("first candidate", &first), ("self-consistency", &sc), ("verified majority", &verified), ("confidence gate alone", &gate), ("oracle", &oracle)] {
        println!("  {name:24} {:.1}% / {:.1}%", share(c.strict), share(c.tie));
    }
    println!("  verified majority, bag   {:.1}% / {:.1}%", share(bag.strict), share(bag.tie));
    // paired, tie-tolerant, same questions
    let compare = |label: &str, pairs: &[(bool, bool)]| {
        let p = spider::paired(pairs);
        println!(
            "  {label} (tie-tolerant, {} questions): wins {}, losses {}, difference {:+.1} pts, 95% interval [{:+.1}, {:+.1}]",
            p.n, p.wins, p.losses, p.mean, p.low, p.high
        );
    };
    compare("verified majority vs self-consistency", &paired);
    compare("compare bag vs set (verified majority)", &paired_bag);
    compare("nl2sql_select's default (verified majority, bag) vs self-consistency", &paired_default);
    println!("  raw per-question choices: {raw_path}");
    println!("  contested questions (largest cluster below the gate): {}", contested.len());

    if tournament_n > 0 && !contested.is_empty() {
        let step = (contested.len() as f64 / tournament_n as f64).max(1.0);
        let picked: Vec<&(u64, Vec<String>, Vec<(bool, bool)>, usize, usize)> =
            (0..tournament_n).map(|k| (k as f64 * step) as usize).filter(|&k| k < contested.len()).map(|k| &contested[k]).collect();
        let (mut tour, mut sc_sub, mut gate_sub, mut first_sub, mut oracle_sub) =
            (Choice::default(), Choice::default(), Choice::default(), Choice::default(), Choice::default());
        let (mut calls, mut secs) = (0i64, 0.0f64);
        for (qid, sqls, correct, sc_choice, first_ran) in &picked {
            let q = &questions[qid];
            let db = format!("spider_{}", q["db_id"].as_str().unwrap().to_lowercase());
            let client = clients.get_mut(&db).unwrap();
            let t = Instant::now();
            let chosen: Option<i32> = client
                .query(
                    "SELECT candidate FROM nl2sql_select($1, $2, NULL, '{\"top_clusters\": 3}') WHERE chosen",
                    &[&q["question"].as_str().unwrap(), &sqls.iter().map(|s| Some(s.clone())).collect::<Vec<_>>()],
                )
                .unwrap()
                .first()
                .map(|r| r.get(0));
            secs += t.elapsed().as_secs_f64();
            calls += client
                .query_one("SELECT llm_calls::bigint FROM nl2sql.runs WHERE function = 'nl2sql_select' ORDER BY run_id DESC LIMIT 1", &[])
                .map(|r| r.get::<_, i64>(0))
                .unwrap_or(0);
            if let Some(c) = chosen {
                tour.add(correct[c as usize - 1]);
            }
            sc_sub.add(correct[*sc_choice]);
            gate_sub.add(correct[*first_ran]);
            first_sub.add(correct[0]);
            oracle_sub.add((correct.iter().any(|c| c.0), correct.iter().any(|c| c.1)));
            eprintln!("q{qid}: tournament chose {chosen:?}, correct {:?}", chosen.map(|c| correct[c as usize - 1]));
        }
        let m = picked.len() as f64;
        let s = |k: usize| 100.0 * k as f64 / m;
        println!("\n(b') on {} contested questions (tournament with the local model, top_clusters 3, 3 votes)", picked.len());
        for (name, c) in [
            ("first candidate", &first_sub),
            ("self-consistency", &sc_sub),
            ("confidence gate alone", &gate_sub),
            ("tournament", &tour),
            ("oracle", &oracle_sub),
        ] {
            println!("  {name:24} {:.1}% / {:.1}%", s(c.strict), s(c.tie));
        }
        println!("  tournament: {:.1} LLM calls and {:.1} s per question", calls as f64 / m, secs / m);
    }
    println!("\nelapsed: {:.0} s", started.elapsed().as_secs_f64());
}
