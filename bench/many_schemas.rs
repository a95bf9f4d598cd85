//! Benchmark 12: many schemas. The 108 `spider_train` databases loaded side by side as the schemas
//! of one database (`train_all`, bench/load_combined.sh), and questions of theirs asked there:
//!
//!   own      in the question's own database (`train_<db>`), as Benchmark 2 asks it;
//!   path     in train_all, `search_path` set to the question's schema (and public);
//!   default  in train_all, the default `search_path` ("$user", public: no table there).
//!
//!     bench/load_spider.sh --set spider_train --index && bench/load_combined.sh    # once
//!     cargo run --release --example many_schemas -- [--sample N] [--seed S] [--configs own,path,default] [DATA_DIR]
//!     cargo run --release --example many_schemas -- --context [DATA_DIR]            # the context's size and time
//!     cargo run --release --example many_schemas -- --choice [spider_train|spider]  # model-free: the schema chosen
//!
//! Questions: `--sample N` stratified by database as Benchmark 2 takes them (the databases in a
//! seeded order, one question of each in turn), questions whose gold has no trustworthy
//! PostgreSQL result left out. The configurations of a question run one after another, in an order
//! that turns from one question to the next (the model server reuses the prompt prefix of the call
//! before). Scoring is Benchmark 2's strict rule, the gold run in the question's own database and
//! the prediction where it was asked. For `default`, a run that ends `ambiguous` with the
//! question's schema among the readings it names (or asked of it) is counted apart ("ambiguous,
//! the question's schema named"), never as right.
//!
//! Reported per configuration: strict accuracy, paired against `own` (wins, losses, mean
//! difference, 95% interval), seconds per question and the ratio to `own`, prompt tokens, the
//! statuses, answers whose SQL fails to run, and for `default` the schema chosen. Raw per-question
//! results go to `bench/results/many_schemas.jsonl` (or `$NL2SQL_BENCH_OUT`); `--resume` keeps
//! the results already there.
//!
//! `--context`: the catalog of train_all as `nl2sql_schema()` reads it (size, time), and the
//! schema context for 10, 100 and all tables: the time to choose the schemas and render the
//! context, and its size unbudgeted and under the default budget, over the sampled questions.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::time::Instant;

#[path = "spider.rs"]
mod spider;
use nl2sql_core::catalog::Catalog;
use nl2sql_core::context::{self, schemas, Samples};
use postgres::Client;
use serde_json::{json, Value};
use spider::{connect, database, paired, rows, sample, Gold};

const COMBINED: &str = "train_all";

struct Row {
    question: String,
    config: String,
    strict: bool,
    seconds: f64,
    status: String,
    prompt_tokens: i64,
    fails: bool,
    schema: Option<String>,
    ambiguous_right: bool,
}

/// The last run of this session: (run id, status, prompt tokens, the schema step's detail, the
/// other reading's SQL when it ended ambiguous, the other schemas that fit as well).
fn last_run(client: &mut Client) -> Option<(i64, String, i64, String, Option<String>, Vec<String>)> {
    let r = client
        .query_one(
            "SELECT r.run_id, r.status, coalesce(r.prompt_tokens, 0)::int8,
                    coalesce((SELECT detail FROM nl2sql.steps s WHERE s.run_id = r.run_id AND s.stage = 'schema'), ''),
                    (SELECT output->'alternative'->>'sql' FROM nl2sql.steps s WHERE s.run_id = r.run_id AND s.stage = 'chosen'),
                    coalesce((SELECT output->'scope'->'readings' FROM nl2sql.steps s WHERE s.run_id = r.run_id AND s.stage = 'schema'), '[]')::text
             FROM nl2sql.runs r ORDER BY run_id DESC LIMIT 1",
            &[],
        )
        .ok()?;
    let readings: Vec<String> = serde_json::from_str(&r.get::<_, String>(5)).unwrap_or_default();
    Some((r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), readings))
}

/// The schema a run was asked of, read from the schema step ("in schema x: ..." or "in schemas x (...").
fn asked_of(detail: &str) -> Option<String> {
    let rest = detail.strip_prefix("in schema ").or_else(|| detail.strip_prefix("in schemas "))?;
    Some(rest.split([':', ' ', ',']).next()?.to_string())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut n, mut seed, mut configs, mut resume, mut context_only) = (150usize, 21u64, vec!["own".to_string(), "path".into(), "default".into()], false, false);
    let mut dir = "../shared/data".to_string();
    let mut i = 0;
    while i < args.len() {
        let value = |i: usize| args.get(i + 1).cloned().unwrap_or_else(|| panic!("{} needs a value", args[i]));
        match args[i].as_str() {
            "--sample" => n = value(i).parse().expect("--sample N"),
            "--seed" => seed = value(i).parse().expect("--seed S"),
            "--configs" => configs = value(i).split(',').map(str::to_string).collect(),
            "--resume" => {
                resume = true;
                i += 1;
                continue;
            }
            "--context" => {
                context_only = true;
                i += 1;
                continue;
            }
            "--compare" => {
                // --compare OLD.jsonl: the default configuration of this run's raw results against
                // an earlier run's, paired on the questions both hold
                return compare(&value(i));
            }
            "--choice" => {
                // --choice [spider_train|spider]: train_all, or the 13 dev databases in dev_all
                let set = args.get(i + 1).filter(|a| !a.starts_with("--") && !a.contains('/')).cloned().unwrap_or_else(|| "spider_train".into());
                let dir = args.iter().skip(i + 1).find(|a| a.contains('/')).cloned().unwrap_or(dir);
                return choice_report(&dir, &set);
            }
            "--report" => {
                // the figures of the raw results as they stand, nothing run
                resume = true;
                n = 0;
                i += 1;
                continue;
            }
            other => {
                dir = other.to_string();
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    let all: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(format!("{dir}/spider_train/questions.json")).expect("questions")).unwrap();
    let eligible: Vec<&Value> = all.iter().filter(|q| q["pg_ok_tie_tolerant"] == Value::Bool(true)).collect();
    let questions = sample(eligible, n, seed);
    if context_only {
        println!("command: cargo run --release --example many_schemas -- --context --sample {n} --seed {seed} {dir}");
        return context_report(&questions);
    }
    println!(
        "command: cargo run --release --example many_schemas -- --sample {n} --seed {seed} --configs {} {dir}",
        configs.join(",")
    );
    let out_path = std::env::var("NL2SQL_BENCH_OUT").unwrap_or_else(|_| format!("{}/bench/results/many_schemas.jsonl", env!("CARGO_MANIFEST_DIR")));
    let mut results: Vec<Row> = Vec::new();
    let mut done: BTreeSet<(String, String)> = BTreeSet::new();
    if resume {
        for l in std::fs::read_to_string(&out_path).unwrap_or_default().lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
            let r = Row {
                question: l["key"].as_str().unwrap_or("").to_string(),
                config: l["config"].as_str().unwrap_or("").to_string(),
                strict: l["strict"] == Value::Bool(true),
                seconds: l["seconds"].as_f64().unwrap_or(0.0),
                status: l["status"].as_str().unwrap_or("").to_string(),
                prompt_tokens: l["prompt_tokens"].as_i64().unwrap_or(0),
                fails: l["fails"] == Value::Bool(true),
                schema: l["schema"].as_str().map(str::to_string),
                ambiguous_right: l["ambiguous_right"] == Value::Bool(true),
            };
            done.insert((r.question.clone(), r.config.clone()));
            results.push(r);
        }
    } else {
        let _ = std::fs::remove_file(&out_path);
    }
    let file = std::fs::OpenOptions::new().create(true).append(true).open(&out_path).expect("results file");
    let mut raw = std::io::BufWriter::new(file);
    let mut combined = connect(COMBINED);
    combined.batch_execute("SET client_min_messages = warning; ALTER EXTENSION nl2sql UPDATE").expect("update the extension in train_all");
    // one connection to a question's own database at a time: 108 of them held open at once would
    // pass the server's max_connections
    let mut own_client: Option<(String, Client)> = None;
    for (qi, q) in questions.iter().enumerate() {
        let db_id = q["db_id"].as_str().unwrap().to_lowercase();
        let key = format!("{db_id}#{}", q["question_id"]);
        let text = q["question"].as_str().unwrap();
        if configs.iter().all(|c| done.contains(&(key.clone(), c.clone()))) {
            continue;
        }
        if own_client.as_ref().is_none_or(|(d, _)| *d != db_id) {
            let mut c = connect(&database("spider_train", &db_id));
            c.batch_execute("SET client_min_messages = warning; ALTER EXTENSION nl2sql UPDATE").expect("update the extension");
            own_client = Some((db_id.clone(), c));
        }
        let own = &mut own_client.as_mut().expect("connected above").1;
        let gold = match Gold::load(own, q["gold_pg"].as_str().unwrap(), q["order_sensitive"] == Value::Bool(true)) {
            Ok(g) => g,
            Err(e) => {
                println!("skip {key}: gold fails: {e}");
                continue;
            }
        };
        let mut order: Vec<&String> = configs.iter().collect();
        order.rotate_left(qi % configs.len().max(1));
        for config in order {
            if done.contains(&(key.clone(), config.clone())) {
                continue;
            }
            let client: &mut Client = if config == "own" { &mut own_client.as_mut().expect("connected above").1 } else { &mut combined };
            let path = match config.as_str() {
                "own" => "RESET search_path".to_string(),
                "path" => format!("SET search_path = \"{db_id}\", public"),
                "default" => "RESET search_path".to_string(),
                other => panic!("unknown configuration {other} (own, path, default)"),
            };
            client.batch_execute(&path).expect("search_path");
            let before = last_run(client).map_or(0, |r| r.0);
            let started = Instant::now();
            let answer = client.query_one("SELECT nl2sql($1)", &[&text]);
            let seconds = started.elapsed().as_secs_f64();
            let sql: Option<String> = answer.as_ref().ok().and_then(|r| r.get(0));
            let ran = sql.as_deref().map(|s| rows(client, s));
            let strict = ran.as_ref().is_some_and(|p| p.as_ref().is_ok_and(|p| gold.strict(p)));
            let fails = ran.as_ref().is_some_and(|p| p.is_err());
            // a call that raised logged no run: the last one is an earlier question's
            let run = last_run(client).filter(|r| r.0 > before);
            let (status, prompt_tokens, detail, alternative, readings) =
                run.map(|r| (r.1, r.2, r.3, r.4, r.5)).unwrap_or_else(|| ("none".into(), 0, String::new(), None, vec![]));
            let schema = if config == "default" { asked_of(&detail) } else { None };
            // ambiguous, naming the question's schema as a reading (or asked of it): reported as
            // such, counted apart from right
            let ambiguous_right = status == "ambiguous" && (schema.as_deref() == Some(db_id.as_str()) || readings.contains(&db_id));
            client.batch_execute("RESET search_path").expect("search_path");
            let line = json!({"key": key, "db": db_id, "question_id": q["question_id"], "question": text, "config": config,
                "strict": strict, "status": status, "seconds": seconds, "prompt_tokens": prompt_tokens, "fails": fails,
                "schema": schema, "ambiguous_right": ambiguous_right, "sql": sql, "schema_step": detail, "alternative": alternative, "readings": readings,
                "error": answer.err().map(|e| spider::server_error(&e))});
            writeln!(raw, "{line}").expect("write results");
            raw.flush().expect("flush results");
            println!("{key} {config:7} {} {status:11} {seconds:5.1}s {}", if strict { "ok " } else { "BAD" }, sql.unwrap_or_default());
            results.push(Row { question: key.clone(), config: config.clone(), strict, seconds, status, prompt_tokens, fails, schema, ambiguous_right });
        }
    }
    report(&results, &configs);
    println!("raw results: {out_path}");
}

fn report(results: &[Row], configs: &[String]) {
    let at: BTreeMap<(&str, &str), &Row> = results.iter().map(|r| ((r.question.as_str(), r.config.as_str()), r)).collect();
    let questions: BTreeSet<&str> = results.iter().map(|r| r.question.as_str()).collect();
    // only questions every configuration answered are compared
    let complete: Vec<&str> = questions.into_iter().filter(|q| configs.iter().all(|c| at.contains_key(&(*q, c.as_str())))).collect();
    println!("\n{} questions from {} databases, every configuration run", complete.len(), complete.iter().map(|q| q.split('#').next().unwrap()).collect::<BTreeSet<_>>().len());
    println!("| configuration | strict | vs own (wins / losses, difference, 95% interval) | s / question | vs own | prompt tokens | statuses | answers whose SQL fails |");
    println!("|---|---|---|---|---|---|---|---|");
    for c in configs {
        let rows: Vec<&Row> = complete.iter().map(|q| at[&(*q, c.as_str())]).collect();
        let acc = 100.0 * rows.iter().filter(|r| r.strict).count() as f64 / rows.len().max(1) as f64;
        let secs = rows.iter().map(|r| r.seconds).sum::<f64>() / rows.len().max(1) as f64;
        let tokens = rows.iter().map(|r| r.prompt_tokens).sum::<i64>() / rows.len().max(1) as i64;
        let mut statuses: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &rows {
            *statuses.entry(r.status.as_str()).or_default() += 1;
        }
        let statuses = statuses.iter().map(|(s, n)| format!("{s} {n}")).collect::<Vec<_>>().join(", ");
        let failing = rows.iter().filter(|r| r.fails && r.status != "error" && r.status != "unanswerable").count();
        let (vs, ratio) = if configs.iter().any(|x| x == "own") && c != "own" {
            let pairs: Vec<(bool, bool)> = complete.iter().map(|q| (at[&(*q, "own")].strict, at[&(*q, c.as_str())].strict)).collect();
            let p = paired(&pairs);
            let own_secs = complete.iter().map(|q| at[&(*q, "own")].seconds).sum::<f64>();
            (
                format!("{} / {}, {:+.1} [{:+.1}, {:+.1}]", p.wins, p.losses, p.mean, p.low, p.high),
                format!("{:.2}x", rows.iter().map(|r| r.seconds).sum::<f64>() / own_secs.max(1e-9)),
            )
        } else {
            ("-".into(), "-".into())
        };
        println!("| {c} | {acc:.1}% | {vs} | {secs:.1} | {ratio} | {tokens} | {statuses} | {failing} |");
    }
    if configs.iter().any(|c| c == "default") {
        let rows: Vec<&Row> = complete.iter().map(|q| at[&(*q, "default")]).collect();
        let right_schema = rows.iter().filter(|r| r.schema.as_deref() == r.question.split('#').next()).count();
        let ambiguous = rows.iter().filter(|r| r.status == "ambiguous").count();
        let named = rows.iter().filter(|r| r.ambiguous_right).count();
        println!(
            "\ndefault search_path: asked of the question's own schema {right_schema} of {}; ambiguous {ambiguous} (naming the question's schema: {named}); right, or ambiguous naming the question's schema: {:.1}%",
            rows.len(),
            100.0 * rows.iter().filter(|r| r.strict || r.ambiguous_right).count() as f64 / rows.len().max(1) as f64
        );
    }
}

/// The catalog of train_all and the schema context over 10, 100 and all its tables.
fn context_report(questions: &[&Value]) {
    let mut client = connect(COMBINED);
    client.batch_execute("SET client_min_messages = warning; ALTER EXTENSION nl2sql UPDATE").expect("update the extension");
    let mut read_ms = Vec::new();
    let mut text = String::new();
    for _ in 0..5 {
        let started = Instant::now();
        text = client.query_one("SELECT nl2sql_schema()::text", &[]).expect("nl2sql_schema()").get(0);
        read_ms.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    read_ms.sort_by(f64::total_cmp);
    let full: Catalog = serde_json::from_str(&text).expect("a catalog");
    let path = full.search_path.clone();
    let full = full.on_search_path(path);
    println!(
        "nl2sql_schema() of train_all: {} tables in {} schemas, {} KB of JSON, read in {:.0} ms (median of 5)",
        full.tables.len(),
        full.schemas().len(),
        text.len() / 1024,
        read_ms[2]
    );
    println!("\n| tables | schemas | choose + render per question (ms, mean) | whole schema unbudgeted (tokens) | context under the default budget (tokens, mean) |");
    println!("|---|---|---|---|---|");
    let budget = nl2sql_core::options::Settings::default().schema_token_budget;
    for target in [10usize, 100, full.tables.len()] {
        // whole schemas, in name order, until `target` tables
        let mut chosen: Vec<String> = Vec::new();
        let mut count = 0;
        for s in full.schemas() {
            if count >= target {
                break;
            }
            count += full.tables.iter().filter(|t| t.name.schema == s).count();
            chosen.push(s.to_string());
        }
        let part = full.in_schemas(&chosen);
        let whole = context::build(&part, &Samples::new(), "", usize::MAX).tokens;
        let started = Instant::now();
        let mut tokens = 0;
        for q in questions {
            let text = q["question"].as_str().unwrap();
            let scope = schemas::choose(&part, &[], text).expect("a scope");
            let scoped = if scope.outside == 0 { part.clone() } else { part.in_schemas(&scope.schemas) };
            tokens += context::build(&scoped, &Samples::new(), text, budget).tokens;
        }
        let per = started.elapsed().as_secs_f64() * 1000.0 / questions.len().max(1) as f64;
        println!("| {} | {} | {per:.2} | {whole} | {} |", part.tables.len(), chosen.len(), tokens / questions.len().max(1));
    }
}

/// The `default` configuration of the raw results (`$NL2SQL_BENCH_OUT`) against an earlier run's
/// file, on the questions both ran in `own` and `default`: wins, losses and the paired difference,
/// and how often each asked the question's own schema.
fn compare(old_path: &str) {
    let out_path = std::env::var("NL2SQL_BENCH_OUT").unwrap_or_else(|_| format!("{}/bench/results/many_schemas.jsonl", env!("CARGO_MANIFEST_DIR")));
    println!("command: NL2SQL_BENCH_OUT={out_path} cargo run --release --example many_schemas -- --compare {old_path}");
    let load = |p: &str| -> BTreeMap<(String, String), Value> {
        std::fs::read_to_string(p)
            .unwrap_or_else(|e| panic!("{p}: {e}"))
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .map(|v| ((v["key"].as_str().unwrap_or("").to_string(), v["config"].as_str().unwrap_or("").to_string()), v))
            .collect()
    };
    let (old, new) = (load(old_path), load(&out_path));
    let both = |d: &BTreeMap<(String, String), Value>, k: &str| d.contains_key(&(k.to_string(), "own".into())) && d.contains_key(&(k.to_string(), "default".into()));
    let keys: Vec<String> = new.keys().map(|(k, _)| k.clone()).collect::<BTreeSet<_>>().into_iter().filter(|k| both(&new, k) && both(&old, k)).collect();
    let get = |d: &BTreeMap<(String, String), Value>, k: &str, c: &str| d[&(k.to_string(), c.to_string())].clone();
    let strict = |v: Value| v["strict"] == Value::Bool(true);
    let own_schema = |v: Value, k: &str| v["schema"].as_str() == k.split('#').next();
    let pairs: Vec<(bool, bool)> = keys.iter().map(|k| (strict(get(&old, k, "default")), strict(get(&new, k, "default")))).collect();
    let p = paired(&pairs);
    println!("{} questions in both runs", keys.len());
    println!("default, this run against {old_path}: {} / {} wins / losses, {:+.1} [{:+.1}, {:+.1}]", p.wins, p.losses, p.mean, p.low, p.high);
    let count = |f: &dyn Fn(&str) -> bool| keys.iter().filter(|k| f(k)).count();
    println!(
        "own schema asked of: {} then, {} now; own right: {} then, {} now",
        count(&|k| own_schema(get(&old, k, "default"), k)),
        count(&|k| own_schema(get(&new, k, "default"), k)),
        count(&|k| strict(get(&old, k, "own"))),
        count(&|k| strict(get(&new, k, "own")))
    );
}

/// Model-free: the schema every `spider_train` question is asked of in train_all (every dev question
/// in dev_all: `bench/load_combined.sh --set spider`) with the default
/// search_path, against the question's own schema: by the names alone, then with ties settled by
/// the values stored (the pipeline's trigram search of the value index, run here as the
/// superuser, who sees every value).
fn choice_report(dir: &str, set: &str) {
    println!("command: cargo run --release --example many_schemas -- --choice {set} {dir}");
    let all: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(format!("{dir}/{set}/questions.json")).expect("questions")).unwrap();
    let mut client = connect(if set == "spider" { "dev_all" } else { COMBINED });
    let text: String = client.query_one("SELECT nl2sql_schema()::text", &[]).expect("nl2sql_schema()").get(0);
    let full: Catalog = serde_json::from_str(&text).expect("a catalog");
    let path = full.search_path.clone();
    let full = full.on_search_path(path);
    let trgm: String = client
        .query_one("SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm'", &[])
        .expect("pg_trgm installed")
        .get(0);
    let trigram = nl2sql_core::ground::values::trigram_sql(&trgm);
    #[derive(Default)]
    struct Tally {
        n: usize,
        first: usize,
        tied: usize,
        wrong: usize,
        readings: usize,
        wrong_by_db: BTreeMap<String, usize>,
    }
    impl Tally {
        fn add(&mut self, db: &str, scope: &schemas::SchemaScope) {
            self.n += 1;
            self.readings += scope.readings.len();
            if scope.schemas.iter().any(|s| s == db) {
                self.first += 1;
            } else if scope.readings.iter().any(|s| s == db) {
                self.tied += 1;
            } else {
                self.wrong += 1;
                *self.wrong_by_db.entry(db.to_string()).or_default() += 1;
            }
        }
        fn print(&self, what: &str) {
            let pct = |k: usize| 100.0 * k as f64 / self.n.max(1) as f64;
            println!(
                "{what}: {} questions: asked of their own schema {} ({:.1}%); their schema a reading of a tie {} ({:.1}%); another schema {} ({:.1}%); readings per question {:.2}",
                self.n,
                self.first,
                pct(self.first),
                self.tied,
                pct(self.tied),
                self.wrong,
                pct(self.wrong),
                self.readings as f64 / self.n.max(1) as f64
            );
            let mut worst: Vec<(&String, &usize)> = self.wrong_by_db.iter().collect();
            worst.sort_by(|a, b| b.1.cmp(a.1));
            println!("  most often missed: {}", worst.iter().take(8).map(|(d, k)| format!("{d} {k}")).collect::<Vec<_>>().join(", "));
        }
    }
    let (mut names, mut values) = (Tally::default(), Tally::default());
    let (mut settled, mut settled_right, mut settled_wrong) = (0, 0, 0);
    let mut searches: Vec<f64> = Vec::new();
    for q in &all {
        let db = q["db_id"].as_str().unwrap().to_lowercase();
        let question = q["question"].as_str().unwrap();
        let scope = schemas::choose(&full, &[], question).expect("a scope");
        names.add(&db, &scope);
        let mut after = scope.clone();
        let terms = schemas::value_terms(question);
        if let Some(terms) = terms.filter(|_| scope.origin == schemas::Origin::BestFit && scope.contenders.len() > 1) {
            let tied: Vec<String> = scope.contenders.iter().map(|(s, _)| s.clone()).collect();
            let started = Instant::now();
            let found: Vec<(String, String)> =
                client.query(&trigram, &[&terms, &tied]).expect("the trigram search").iter().map(|r| (r.get::<_, String>(0), r.get::<_, String>(3))).collect();
            let stored = schemas::worth_checking(question, found, |(_, v)| v.as_str());
            searches.push(started.elapsed().as_secs_f64() * 1000.0);
            after = schemas::settle_by_values(scope.clone(), &full, question, &stored);
            if after != scope {
                settled += 1;
                let own = |s: &schemas::SchemaScope| s.schemas.iter().any(|x| *x == db);
                if own(&after) && !own(&scope) {
                    settled_right += 1;
                }
                if !own(&after) && !after.readings.contains(&db) && (own(&scope) || scope.readings.contains(&db)) {
                    settled_wrong += 1;
                    if std::env::var_os("NL2SQL_BENCH_VERBOSE").is_some() {
                        eprintln!("lost {db}: {question} -> {:?} by {:?}", after.schemas, after.values);
                    }
                }
            }
        }
        if std::env::var_os("NL2SQL_BENCH_VERBOSE").is_some() && !after.schemas.iter().any(|s| *s == db) && !after.readings.contains(&db) {
            eprintln!("wrong {db}: {question} -> {:?} (readings {:?})", after.schemas, after.readings);
        }
        values.add(&db, &after);
    }
    names.print("by the names");
    values.print("ties settled by stored values");
    println!("choices the values changed: {settled}; to the own schema: {settled_right}; the own schema lost (neither asked of nor a reading any more): {settled_wrong}");
    searches.sort_by(f64::total_cmp);
    let at = |p: f64| searches.get(((searches.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(0.0);
    println!(
        "value searches: {} of {} questions ({:.1}%), median {:.1} ms, 95th percentile {:.1} ms",
        searches.len(),
        names.n,
        100.0 * searches.len() as f64 / names.n.max(1) as f64,
        at(0.5),
        at(0.95)
    );
}
