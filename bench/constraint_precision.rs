//! Benchmark 1 (no LLM): how often gold SQL satisfies the constraints extracted from its question.
//!
//!     cargo run --release --example constraint_precision -- [DATA_DIR] [--list]
//!
//! DATA_DIR defaults to ../shared/data. For Spider train (the tuning set) and Spider dev (gold_pg, PostgreSQL dialect) and BIRD dev
//! (gold_sql, SQLite dialect, question + evidence) it prints coverage (share of questions with at
//! least one constraint, and per type), precision (share of questions with constraints whose gold
//! SQL satisfies all of them; and per constraint), and with --list every false positive.

use std::collections::BTreeMap;

use nl2sql_core::constraints::facts::{facts_of, SqlDialect};
use nl2sql_core::constraints::{extract, verify};
use serde_json::Value;

struct Report {
    name: &'static str,
    questions: usize,
    unparsable: usize,
    with_constraints: usize,
    all_satisfied: usize,
    per_type: BTreeMap<&'static str, (usize, usize)>,
    false_positives: Vec<String>,
}

fn run(name: &'static str, items: &[Value], gold_key: &str, dialect: SqlDialect) -> Report {
    let mut r = Report {
        name,
        questions: items.len(),
        unparsable: 0,
        with_constraints: 0,
        all_satisfied: 0,
        per_type: BTreeMap::new(),
        false_positives: Vec::new(),
    };
    for item in items {
        let question = item["question"].as_str().unwrap_or("");
        let evidence = item["evidence"].as_str().filter(|e| !e.is_empty());
        let gold = item[gold_key].as_str().unwrap_or("");
        let facts = match facts_of(gold, dialect) {
            Ok(f) => f,
            Err(_) => {
                r.unparsable += 1;
                continue;
            }
        };
        let constraints = extract(question, evidence);
        if constraints.is_empty() {
            continue;
        }
        r.with_constraints += 1;
        let mut all = true;
        for c in &constraints {
            let v = verify(c, &facts);
            let e = r.per_type.entry(c.name()).or_default();
            e.0 += 1;
            if v.satisfied {
                e.1 += 1;
            } else {
                all = false;
                r.false_positives.push(format!(
                    "{} #{} [{}: \"{}\"] {}\n    gold: {}",
                    name, item["question_id"], c.name(), c.phrase, question, gold
                ));
            }
        }
        if all {
            r.all_satisfied += 1;
        }
    }
    r
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { 100.0 * a as f64 / b as f64 }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let list = args.iter().any(|a| a == "--list");
    let dir = args.iter().find(|a| !a.starts_with("--")).cloned().unwrap_or_else(|| "../shared/data".into());
    let load = |p: &str| -> Vec<Value> {
        let text = std::fs::read_to_string(format!("{dir}/{p}")).unwrap_or_else(|e| panic!("{dir}/{p}: {e}"));
        serde_json::from_str(&text).expect("questions are a JSON array")
    };
    let reports = [
        run("spider_train", &load("spider_train/questions.json"), "gold_pg", SqlDialect::Postgres),
        run("spider", &load("spider/questions.json"), "gold_pg", SqlDialect::Postgres),
        run("bird", &load("bird_dev/questions.json"), "gold_sql", SqlDialect::Sqlite),
    ];
    println!("command: cargo run --release --example constraint_precision -- {dir}");
    for r in &reports {
        let parsed = r.questions - r.unparsable;
        println!(
            "\n{}: {} questions, {} gold SQL unparsable (excluded)\n  coverage: {}/{} = {:.1}% with >=1 constraint\n  precision: {}/{} = {:.2}% of those satisfy every constraint on the gold SQL",
            r.name, r.questions, r.unparsable, r.with_constraints, parsed, pct(r.with_constraints, parsed),
            r.all_satisfied, r.with_constraints, pct(r.all_satisfied, r.with_constraints)
        );
        println!("  {:<12} {:>7} {:>9} {:>10}", "type", "fired", "coverage", "precision");
        for (t, (n, ok)) in &r.per_type {
            println!("  {:<12} {:>7} {:>8.1}% {:>9.2}%", t, n, pct(*n, parsed), pct(*ok, *n));
        }
        println!("  false positives: {}", r.false_positives.len());
        if list {
            for fp in &r.false_positives {
                println!("  - {fp}");
            }
        }
    }
}
