//! Benchmark 1 (no LLM): how often gold SQL satisfies the constraints extracted from its question.
//!
//!     cargo run --release --example constraint_precision -- [DATA_DIR] [--list]
//!     cargo run --release --example constraint_precision -- --replay RAW.jsonl... [--list]
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

/// `--replay RAW.jsonl ...`: the constraints judged on the answers a Benchmark 2 run returned
/// (its raw rows: question, SQL, status, strictly right or not). Per constraint kind, how many
/// answers it flags, right and wrong, and among those that ended `ok`: what a rule would catch, and
/// what it would cost, on answers the model really wrote.
fn replay(files: &[String], list: bool) {
    // kind -> [flagged right, flagged wrong, flagged ok right, flagged ok wrong]
    let mut per_kind: BTreeMap<&'static str, [usize; 4]> = BTreeMap::new();
    let (mut rows, mut right, mut oks, mut ok_right) = (0, 0, 0, 0);
    for file in files {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
        for row in text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
            let (question, sql) = (row["question"].as_str().unwrap_or(""), row["sql"].as_str().unwrap_or(""));
            let Ok(facts) = facts_of(sql, SqlDialect::Postgres) else { continue };
            let strict = row["strict"].as_bool().unwrap_or(false);
            let ok = row["status"].as_str() == Some("ok");
            rows += 1;
            right += strict as usize;
            oks += ok as usize;
            ok_right += (ok && strict) as usize;
            for c in extract(question, None) {
                if verify(&c, &facts).satisfied {
                    continue;
                }
                let e = per_kind.entry(c.name()).or_default();
                e[if strict { 0 } else { 1 }] += 1;
                if ok {
                    e[if strict { 2 } else { 3 }] += 1;
                }
                if list {
                    println!(
                        "  - {} #{} {} [{}: \"{}\"] {} {}\n    sql: {}",
                        file.rsplit('/').next().unwrap_or(file), row["question_id"], row["config"].as_str().unwrap_or(""),
                        c.name(), c.phrase, if strict { "right" } else { "wrong" }, row["status"].as_str().unwrap_or(""), sql
                    );
                }
            }
        }
    }
    println!("command: cargo run --release --example constraint_precision -- --replay {}", files.join(" "));
    println!("{rows} answers ({right} right), {oks} ended ok ({ok_right} right)");
    println!("  {:<12} {:>13} {:>13} {:>16} {:>16}", "type", "flags right", "flags wrong", "flags ok right", "flags ok wrong");
    for (t, [a, b, c, d]) in &per_kind {
        println!("  {t:<12} {a:>13} {b:>13} {c:>16} {d:>16}");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let list = args.iter().any(|a| a == "--list");
    if args.first().map(String::as_str) == Some("--replay") {
        let files: Vec<String> = args[1..].iter().filter(|a| !a.starts_with("--")).cloned().collect();
        return replay(&files, list);
    }
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
