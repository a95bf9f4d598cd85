//! Benchmark 2: execution accuracy of `nl2sql(question)` on the Spider dev databases, per pipeline
//! configuration, with tokens and seconds per question.
//!
//!     bench/load_spider.sh                      # once: the databases, with the extension
//!     cargo run --release --example ask_accuracy -- [--per-level N] [--configs a,b] [DATA_DIR]
//!
//! Configurations: zero_shot (no probe, no verify/repair), probe (probe only), verify (verify and
//! repair, no probe), full. Questions: a stratified subset, N per Spider difficulty level, spread
//! over the databases (every k-th question of each level in (db, id) order); questions whose gold
//! has no trustworthy PostgreSQL result (`pg_ok_tie_tolerant` false) are excluded.
//!
//! Scoring as ../shared/data/README.md describes: prediction and gold run on the same database
//! (through nl2sql_try); result multisets are compared, ordered when the gold orders its output,
//! numbers with a relative tolerance of 1e-6, any column order. Tie-tolerant: also correct when the
//! gold ends in ORDER BY ... LIMIT and the prediction has as many rows, all among the gold's rows
//! without that LIMIT.

use std::collections::BTreeMap;
use std::time::Instant;

use postgres::{Client, NoTls};
use serde_json::Value;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;

const CONFIGS: &[(&str, &str)] = &[
    ("zero_shot", r#"{"probe": false, "verify": false}"#),
    ("probe", r#"{"verify": false}"#),
    ("verify", r#"{"probe": false}"#),
    ("full", r#"{}"#),
];

#[derive(Default, Clone)]
struct Tally {
    n: usize,
    strict: usize,
    tie: usize,
    errors: usize,
    prompt_tokens: i64,
    completion_tokens: i64,
    seconds: f64,
}

fn connect(db: &str) -> Client {
    let sock = std::env::var("NL2SQL_SOCKDIR").unwrap_or_else(|_| format!("{}/.work/run", env!("CARGO_MANIFEST_DIR")));
    let port = std::env::var("NL2SQL_PGPORT").unwrap_or_else(|_| "54815".into());
    Client::connect(&format!("host={sock} port={port} user=postgres dbname={db}"), NoTls)
        .unwrap_or_else(|e| panic!("connect to {db}: {e} (run bench/load_spider.sh first)"))
}

/// Rows of `sql` as normalised JSON values, through the safe executor.
fn rows(client: &mut Client, sql: &str) -> Result<Vec<Vec<Value>>, String> {
    let v: Value = client
        .query_one("SELECT nl2sql_try($1, 100000)::text", &[&sql])
        .map_err(|e| e.to_string())
        .and_then(|r| serde_json::from_str(&r.get::<_, String>(0)).map_err(|e| e.to_string()))?;
    if v["ok"] != Value::Bool(true) {
        return Err(v["error"].as_str().unwrap_or("failed").to_string());
    }
    Ok(v["rows"].as_array().cloned().unwrap_or_default().into_iter().map(|r| r.as_array().cloned().unwrap_or_default()).collect())
}

fn key(v: &Value) -> String {
    match v {
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0);
            if f == 0.0 { "n:0".into() } else { format!("n:{:.6e}", f) }
        }
        Value::String(s) => match s.parse::<f64>() {
            // text that is a number compares as a number (SQLite-derived golds mix the two)
            Ok(f) if s.trim() == s && !s.is_empty() => format!("n:{:.6e}", f),
            _ => format!("s:{s}"),
        },
        Value::Null => "null".into(),
        other => format!("o:{other}"),
    }
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    if n > 6 {
        return vec![(0..n).collect()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

fn project(rows: &[Vec<Value>], perm: &[usize]) -> Vec<Vec<String>> {
    rows.iter().map(|r| perm.iter().map(|&i| r.get(i).map(key).unwrap_or_default()).collect()).collect()
}

fn same(pred: &[Vec<Value>], gold: &[Vec<Value>], ordered: bool) -> bool {
    let width = gold.first().map_or(0, Vec::len);
    if pred.len() != gold.len() || pred.first().map_or(0, Vec::len) != width {
        return pred.is_empty() && gold.is_empty();
    }
    let mut g = project(gold, &(0..width).collect::<Vec<_>>());
    if !ordered {
        g.sort();
    }
    permutations(width).iter().any(|perm| {
        let mut p = project(pred, perm);
        if !ordered {
            p.sort();
        }
        p == g
    })
}

/// Every predicted row among the gold's rows without its LIMIT (as a multiset).
fn within(pred: &[Vec<Value>], pool: &[Vec<Value>]) -> bool {
    let width = pool.first().map_or(0, Vec::len);
    if pred.first().map_or(0, Vec::len) != width {
        return false;
    }
    permutations(width).iter().any(|perm| {
        let mut counts: BTreeMap<Vec<String>, i64> = BTreeMap::new();
        for r in project(pool, &(0..width).collect::<Vec<_>>()) {
            *counts.entry(r).or_default() += 1;
        }
        project(pred, perm).into_iter().all(|r| {
            let c = counts.entry(r).or_default();
            *c -= 1;
            *c >= 0
        })
    })
}

/// The gold without its outermost LIMIT, if it has one (on the AST).
fn without_limit(sql: &str) -> Option<String> {
    let mut stmts = Parser::parse_sql(&PostgreSqlDialect {}, sql).ok()?;
    let sqlparser::ast::Statement::Query(q) = stmts.get_mut(0)? else { return None };
    q.limit_clause.take()?;
    Some(q.to_string())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut per_level = 6usize;
    let mut configs: Vec<&str> = CONFIGS.iter().map(|(n, _)| *n).collect();
    let mut dir = "../shared/data".to_string();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--per-level" => {
                per_level = args[i + 1].parse().expect("--per-level N");
                i += 1;
            }
            "--configs" => {
                configs = args[i + 1].split(',').map(|s| CONFIGS.iter().find(|(n, _)| *n == s).expect("unknown config").0).collect();
                i += 1;
            }
            other => dir = other.to_string(),
        }
        i += 1;
    }
    let all: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}/spider/questions.json")).expect("questions")).unwrap();
    let mut chosen: Vec<&Value> = Vec::new();
    for level in ["easy", "medium", "hard", "extra"] {
        let mut qs: Vec<&Value> =
            all.iter().filter(|q| q["difficulty"] == level && q["pg_ok_tie_tolerant"] == Value::Bool(true)).collect();
        qs.sort_by_key(|q| (q["db_id"].as_str().unwrap_or("").to_string(), q["question_id"].as_i64().unwrap_or(0)));
        let step = (qs.len() / per_level.max(1)).max(1);
        chosen.extend(qs.into_iter().step_by(step).take(per_level));
    }
    println!(
        "command: cargo run --release --example ask_accuracy -- --per-level {per_level} --configs {} {dir}",
        configs.join(",")
    );
    println!("{} questions ({per_level} per difficulty level), configs: {}", chosen.len(), configs.join(", "));

    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut by_level: BTreeMap<(&str, String), (usize, usize)> = BTreeMap::new();
    let mut clients: BTreeMap<String, Client> = BTreeMap::new();
    for q in &chosen {
        let db = format!("spider_{}", q["db_id"].as_str().unwrap().to_lowercase());
        let client = clients.entry(db.clone()).or_insert_with(|| connect(&db));
        client.batch_execute("SET client_min_messages = warning").unwrap();
        let gold_sql = q["gold_pg"].as_str().unwrap();
        let ordered = q["order_sensitive"] == Value::Bool(true);
        let gold = match rows(client, gold_sql) {
            Ok(g) => g,
            Err(e) => {
                println!("skip #{}: gold fails: {e}", q["question_id"]);
                continue;
            }
        };
        let pool = without_limit(gold_sql).and_then(|s| rows(client, &s).ok());
        for &config in &configs {
            let options = CONFIGS.iter().find(|(n, _)| *n == config).unwrap().1;
            let started = Instant::now();
            let answer = client.query_one("SELECT nl2sql($1, NULL, $2::text::jsonb)", &[&q["question"].as_str().unwrap(), &options]);
            let seconds = started.elapsed().as_secs_f64();
            let t = tallies.entry(config).or_default();
            t.n += 1;
            t.seconds += seconds;
            let level = by_level.entry((config, q["difficulty"].as_str().unwrap().to_string())).or_default();
            level.0 += 1;
            let sql: String = match answer {
                Ok(r) => r.get(0),
                Err(e) => {
                    t.errors += 1;
                    println!("#{} {config}: error {e}", q["question_id"]);
                    continue;
                }
            };
            if let Ok(r) = client.query_one(
                "SELECT prompt_tokens, completion_tokens FROM nl2sql.runs WHERE run_id = (SELECT max(run_id) FROM nl2sql.runs)",
                &[],
            ) {
                t.prompt_tokens += r.get::<_, i64>(0);
                t.completion_tokens += r.get::<_, i64>(1);
            }
            let (strict, tie) = match rows(client, &sql) {
                Ok(pred) => {
                    let strict = same(&pred, &gold, ordered);
                    let tie = strict || pool.as_ref().is_some_and(|p| pred.len() == gold.len() && within(&pred, p));
                    (strict, tie)
                }
                Err(_) => (false, false),
            };
            t.strict += strict as usize;
            t.tie += tie as usize;
            level.1 += tie as usize;
            println!("#{} {config} {} {:.1}s {}", q["question_id"], if tie { "ok " } else { "BAD" }, seconds, sql.replace('\n', " "));
        }
    }
    println!("\n| config | questions | EX strict | EX tie-tolerant | errors | prompt tok/q | completion tok/q | s/q |");
    println!("|---|---|---|---|---|---|---|---|");
    for &config in &configs {
        let t = &tallies.get(config).cloned().unwrap_or_default();
        let n = t.n.max(1) as f64;
        println!(
            "| {config} | {} | {:.1}% | {:.1}% | {} | {:.0} | {:.0} | {:.1} |",
            t.n,
            100.0 * t.strict as f64 / n,
            100.0 * t.tie as f64 / n,
            t.errors,
            t.prompt_tokens as f64 / n,
            t.completion_tokens as f64 / n,
            t.seconds / n
        );
    }
    println!("\nby difficulty (tie-tolerant correct / questions):");
    for ((config, level), (n, ok)) in &by_level {
        println!("  {config:<10} {level:<7} {ok}/{n}");
    }
}
