//! Benchmark 9: what verification and the fix stage do to right SQL. Every gold query of a set
//! (Spider train by default: the tuning set) goes through `nl2sql_verify(question, gold)` (the
//! question's constraints and the checker chain, reading the data as the caller) and
//! `nl2sql_fix(question, gold)` (the mechanical repairs, no model). A gold with a finding is
//! *flagged* (each flag is a false alarm, or an error in the gold worth reading); a fix kept on a
//! gold whose result then differs from the gold's *harms* it.
//!
//!     bench/load_spider.sh --set spider_train          # once
//!     cargo run --release --example gold_harm -- [--set spider_train|spider] [DATA_DIR]
//!
//! Raw per-question results go to `bench/results/gold_harm_<set>.jsonl` (or `$NL2SQL_BENCH_OUT`).
//! Only golds with a trustworthy PostgreSQL result (`pg_ok_tie_tolerant`) are judged.
//!
//! Spider's golds are not all right (a value no row stores, a ranking the wrong way, a count for
//! "what are"), so a flag is read against `bench/data/gold_flags_reviewed_<set>.tsv`, a reading by
//! hand of every flagged gold: a flag on a gold that does not answer its question is a finding, one
//! on a gold that does is a false alarm. The figure reports both, and any flag not read yet.

use std::collections::BTreeMap;
use std::io::Write;

#[path = "spider.rs"]
mod spider;

use serde_json::{json, Value};
use spider::{connect, rows, Gold};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut set = "spider_train".to_string();
    let mut dir = format!("{}/../shared/data", env!("CARGO_MANIFEST_DIR"));
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--set" => {
                set = args[i + 1].clone();
                i += 1;
            }
            other => dir = other.to_string(),
        }
        i += 1;
    }
    let prefix = if set == "spider_train" { "train_" } else { "spider_" };
    let questions: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(format!("{dir}/{set}/questions.json")).expect("questions")).unwrap();
    let out_path = std::env::var("NL2SQL_BENCH_OUT")
        .unwrap_or_else(|_| format!("{}/bench/results/gold_harm_{set}.jsonl", env!("CARGO_MANIFEST_DIR")));
    let mut raw = std::io::BufWriter::new(std::fs::File::create(&out_path).expect("results file"));
    println!("Benchmark 9: verification and the fix stage on the gold queries of {set}");
    println!("command: cargo run --release --example gold_harm -- --set {set}");
    let mut clients = BTreeMap::new();
    let (mut judged, mut untrusted, mut gold_fails) = (0usize, 0usize, 0usize);
    let mut flagged: Vec<(i64, Vec<String>, String)> = Vec::new();
    let mut by_detector: BTreeMap<String, usize> = BTreeMap::new();
    let mut harmed: Vec<(i64, String, String)> = Vec::new();
    let mut fixed_same = 0usize;
    for q in &questions {
        if q["pg_ok_tie_tolerant"] != Value::Bool(true) {
            untrusted += 1;
            continue;
        }
        let db = format!("{prefix}{}", q["db_id"].as_str().unwrap().to_lowercase());
        if !clients.contains_key(&db) && clients.len() >= 8 {
            clients.clear();
        }
        let client = clients.entry(db.clone()).or_insert_with(|| {
            let mut c = connect(&db);
            c.batch_execute("SET client_min_messages = warning").unwrap();
            c
        });
        let id = q["question_id"].as_i64().unwrap_or(-1);
        let question = q["question"].as_str().unwrap();
        let gold_sql = q["gold_pg"].as_str().unwrap();
        let Ok(gold) = Gold::load(client, gold_sql, q["order_sensitive"] == Value::Bool(true)) else {
            gold_fails += 1;
            continue;
        };
        judged += 1;
        let findings: Vec<(String, String)> = match client.query("SELECT requirement, message FROM nl2sql_verify($1, $2) WHERE NOT satisfied", &[&question, &gold_sql]) {
            Ok(rs) => rs.iter().map(|r| (r.get(0), r.get(1))).collect(),
            Err(e) => vec![("error".into(), e.to_string())],
        };
        let mut names: Vec<String> = findings.iter().map(|f| f.0.clone()).collect();
        names.sort();
        names.dedup();
        for n in &names {
            *by_detector.entry(n.clone()).or_default() += 1;
        }
        if !names.is_empty() {
            flagged.push((id, names.clone(), question.to_string()));
        }
        // the fix stage: the SQL that stands after it, and the fixes kept on the way
        let fixes: Vec<(String, bool, String)> = client
            .query("SELECT stage, kept, coalesce(fix, ''), sql FROM nl2sql_fix($1, $2) ORDER BY step", &[&question, &gold_sql])
            .map(|rs| rs.iter().map(|r| (r.get::<_, String>(0), r.get::<_, bool>(1), format!("{}|{}", r.get::<_, String>(2), r.get::<_, String>(3)))).collect())
            .unwrap_or_default();
        let standing = fixes.iter().rev().find(|f| f.0 == "chosen").map(|f| f.2.split_once('|').map_or("", |x| x.1).to_string());
        let kept: Vec<String> = fixes.iter().filter(|f| f.0 == "fix" && f.1).map(|f| f.2.split_once('|').map_or("", |x| x.0).to_string()).collect();
        let mut harm = false;
        if let Some(s) = standing.as_deref().filter(|_| !kept.is_empty()) {
            let same = rows(client, s).is_ok_and(|p| gold.strict(&p));
            if same {
                fixed_same += 1;
            } else {
                harm = true;
                harmed.push((id, kept.join(", "), s.to_string()));
            }
        }
        writeln!(raw, "{}", json!({"question_id": id, "db": q["db_id"], "question": question, "gold": gold_sql,
            "findings": findings, "fixes_kept": kept, "fixed_sql": standing, "harm": harm}))
        .expect("write results");
    }
    raw.flush().expect("flush");
    let pct = |a: usize| 100.0 * a as f64 / judged.max(1) as f64;
    println!("\n{judged} gold queries judged ({untrusted} without a trustworthy PostgreSQL gold left out, {gold_fails} that did not run)");
    println!("flagged: {} ({:.2}%); fixes kept: {} (result unchanged), {} ({:.2}%) changed the gold's result", flagged.len(), pct(flagged.len()), fixed_same, harmed.len(), pct(harmed.len()));
    println!("\n| detector | golds flagged |\n|---|---|");
    for (n, c) in &by_detector {
        println!("| {n} | {c} |");
    }
    // the hand reading of flagged golds (bench/data/gold_flags_reviewed_<set>.tsv): a flag on a gold
    // that does not answer its question is a finding, one on a gold that does is a false alarm
    let reviewed = reviewed_flags(&format!("{}/bench/data/gold_flags_reviewed_{set}.tsv", env!("CARGO_MANIFEST_DIR")));
    let verdict = |id: &i64| reviewed.get(id).map_or("not read", |(v, _)| v.as_str());
    let count = |v: &str| flagged.iter().filter(|(id, _, _)| verdict(id) == v).count();
    let (wrong, right, unread) = (count("wrong"), count("right"), count("not read"));
    println!(
        "\nflagged golds read by hand (bench/data/gold_flags_reviewed_{set}.tsv): {wrong} that do not answer their question (findings), \
         {right} that do (false alarms: {:.2}% of the golds judged), {unread} not read yet",
        pct(right)
    );
    println!("\nevery flagged gold:");
    for (id, names, question) in &flagged {
        let why = reviewed.get(id).map_or(String::new(), |(v, w)| format!(" — gold {v}: {w}"));
        println!("  #{id} [{}] {question}{why}", names.join(", "));
    }
    let harmed_right = harmed.iter().filter(|(id, _, _)| verdict(id) == "right").count();
    println!(
        "\nevery fix that changed a gold's result ({} on golds read as not answering their question, {harmed_right} on golds read as answering it: {:.2}%):",
        harmed.iter().filter(|(id, _, _)| verdict(id) == "wrong").count(),
        pct(harmed_right)
    );
    for (id, kept, sql) in &harmed {
        println!("  #{id} [{kept}] {sql} — gold {}", verdict(id));
    }
    println!("\nraw results: {out_path}");
}

/// The hand reading of flagged golds: question id → (verdict, why); `#` lines are comments.
fn reviewed_flags(path: &str) -> BTreeMap<i64, (String, String)> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut parts = l.splitn(3, '\t');
            let id = parts.next()?.trim().parse().ok()?;
            Some((id, (parts.next()?.trim().to_string(), parts.next().unwrap_or("").trim().to_string())))
        })
        .collect()
}
