//! Benchmark 7: the checker chain and the question's constraints as detectors of wrong SQL, on the
//! Spider dev databases, with no model.
//!
//!     bench/load_spider.sh                      # once: the databases, with the extension
//!     cargo run --release --example checker_precision -- [DATA_DIR]
//!
//! Raw results, one JSON line per verified query (question id, gold or candidate system, whether
//! the candidate is right, the findings), go to `bench/results/checker_precision.jsonl` (or
//! `$NL2SQL_BENCH_OUT`), so two runs can be compared query by query.
//!
//! Every gold query and every candidate of the 8 published systems (../shared/data/spider/
//! candidates.json) goes through `nl2sql_verify(question, sql)` on its database, which runs the
//! constraints on the syntax tree and the checker chain (reading the catalog and, for the time
//! checker, stored values). A finding is a `check:<name>` row with `satisfied = false`; a
//! constraint violation is any other row with `satisfied = false`. Reported per detector:
//! - on gold SQL: how many gold queries it flags (each one a false alarm);
//! - on candidates (only those whose PostgreSQL rewrite runs as on SQLite, so the label holds):
//!   how many it flags, and the precision of a flag as "this candidate is wrong" (the label is the
//!   official Spider execution check), against the base rate of wrong candidates.
//!
//! Each figure is given twice: over every question, and over the questions whose gold result can
//! tell a right candidate from a wrong one. Where the gold query returns no row, or one row of
//! zeros and NULLs (73 of the 660 questions on PostgreSQL, many of them flight_2's, whose airport
//! codes are stored padded so its joins match nothing), the label "right" goes to every
//! candidate that also returns nothing, however wrong its SQL: a flag there may be right and
//! still count against the checker (the reason test-suite accuracy, Zhong et al. 2020, runs
//! queries on more than one database).

use std::collections::BTreeMap;

#[path = "spider.rs"]
mod spider;

use serde_json::Value;
use spider::connect;

#[derive(Default)]
struct Tally {
    gold_flagged: usize,
    flagged: usize,
    flagged_wrong: usize,
    examples: Vec<String>,
}

/// The counts over one population of questions.
#[derive(Default)]
struct Stats {
    tallies: BTreeMap<String, Tally>,
    golds: usize,
    candidates: usize,
    wrong: usize,
    any_flagged: usize,
    any_flagged_wrong: usize,
    checks_flagged: usize,
    checks_flagged_wrong: usize,
}

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", 100.0 * a as f64 / b as f64)
    }
}

impl Stats {
    fn gold(&mut self, question_id: &Value, names: &[String]) {
        self.golds += 1;
        for n in names {
            let t = self.tallies.entry(n.clone()).or_default();
            t.gold_flagged += 1;
            if t.examples.len() < 3 {
                t.examples.push(format!("#{question_id} gold"));
            }
        }
    }

    fn candidate(&mut self, is_wrong: bool, names: &[String]) {
        self.candidates += 1;
        self.wrong += is_wrong as usize;
        if !names.is_empty() {
            self.any_flagged += 1;
            self.any_flagged_wrong += is_wrong as usize;
        }
        if names.iter().any(|n| n.starts_with("check:")) {
            self.checks_flagged += 1;
            self.checks_flagged_wrong += is_wrong as usize;
        }
        for n in names {
            let t = self.tallies.entry(n.clone()).or_default();
            t.flagged += 1;
            t.flagged_wrong += is_wrong as usize;
        }
    }

    fn print(&self, title: &str) {
        let golds_flagged = self.tallies.values().map(|t| t.gold_flagged).sum::<usize>();
        println!(
            "\n{title}: {} gold queries, {} labelled candidates ({} wrong: base rate {})",
            self.golds,
            self.candidates,
            self.wrong,
            pct(self.wrong, self.candidates)
        );
        println!("\n| detector | gold queries flagged | candidates flagged | of those wrong (precision) |");
        println!("|---|---|---|---|");
        let mut rows: Vec<(&String, &Tally)> = self.tallies.iter().collect();
        rows.sort_by_key(|(n, t)| (!n.starts_with("check:"), std::cmp::Reverse(t.flagged)));
        for (name, t) in rows {
            println!("| {name} | {} ({}) | {} | {} |", t.gold_flagged, pct(t.gold_flagged, self.golds), t.flagged, pct(t.flagged_wrong, t.flagged));
        }
        println!("| any checker | | {} ({}) | {} |", self.checks_flagged, pct(self.checks_flagged, self.candidates), pct(self.checks_flagged_wrong, self.checks_flagged));
        println!("| any finding | | {} ({}) | {} |", self.any_flagged, pct(self.any_flagged, self.candidates), pct(self.any_flagged_wrong, self.any_flagged));
        println!(
            "recall of wrong candidates: checkers {}, any finding {} at precision {}; {golds_flagged} findings on the {} gold queries",
            pct(self.checks_flagged_wrong, self.wrong),
            pct(self.any_flagged_wrong, self.wrong),
            pct(self.any_flagged_wrong, self.any_flagged),
            self.golds
        );
        println!("first gold queries flagged, per detector:");
        for (name, t) in &self.tallies {
            if !t.examples.is_empty() {
                println!("  {name}: {}", t.examples.join(", "));
            }
        }
    }
}

/// What the gold query returns, as far as it can tell a right candidate from a wrong one:
/// "rows"; "empty" or "zero" (no row, or one row of zeros and NULLs: every candidate that
/// returns nothing, or counts nothing, is labelled right, whatever it asks); "error".
fn gold_result(client: &mut postgres::Client, gold: &str) -> &'static str {
    let sql = format!("SELECT to_jsonb(g)::text FROM ({gold}) AS g LIMIT 2");
    let Ok(rows) = client.query(sql.as_str(), &[]) else { return "error" };
    let first: Option<Value> = rows.first().and_then(|r| serde_json::from_str(&r.get::<_, String>(0)).ok());
    match (rows.len(), first) {
        (0, _) => "empty",
        (1, Some(Value::Object(m))) if m.values().all(|v| v.is_null() || v.as_f64() == Some(0.0)) => "zero",
        _ => "rows",
    }
}

fn main() {
    let data = std::env::args().nth(1).unwrap_or_else(|| format!("{}/../shared/data", env!("CARGO_MANIFEST_DIR")));
    let questions: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(format!("{data}/spider/candidates.json")).expect("candidates.json"),
    )
    .unwrap();
    // a gold query counts only where it is trustworthy on PostgreSQL (`pg_ok_tie_tolerant`): the
    // others (9) do not even plan there, so a finding on them is no false alarm
    let trusted: std::collections::BTreeSet<u64> = serde_json::from_str::<Vec<Value>>(
        &std::fs::read_to_string(format!("{data}/spider/questions.json")).expect("questions.json"),
    )
    .unwrap()
    .iter()
    .filter(|q| q["pg_ok_tie_tolerant"] == Value::Bool(true))
    .filter_map(|q| q["question_id"].as_u64())
    .collect();
    println!("Benchmark 7: the checker chain and the constraints as detectors of wrong SQL ({} Spider questions)", questions.len());
    println!("command: cargo run --release --example checker_precision");
    let out_path = std::env::var("NL2SQL_BENCH_OUT")
        .unwrap_or_else(|_| format!("{}/bench/results/checker_precision.jsonl", env!("CARGO_MANIFEST_DIR")));
    if let Some(dir) = std::path::Path::new(&out_path).parent() {
        std::fs::create_dir_all(dir).expect("results directory");
    }
    let mut raw = std::io::BufWriter::new(std::fs::File::create(&out_path).expect("results file"));
    let mut clients = BTreeMap::new();
    // every question, and those whose gold result can tell right from wrong ("rows")
    let (mut all, mut informative) = (Stats::default(), Stats::default());
    let (mut unparsed, mut untrusted) = (0usize, 0usize);
    for q in &questions {
        let db = format!("spider_{}", q["db_id"].as_str().unwrap().to_lowercase());
        let client = clients.entry(db.clone()).or_insert_with(|| {
            let mut c = connect(&db);
            c.batch_execute("SET client_min_messages = warning").unwrap();
            c
        });
        let question = q["question"].as_str().unwrap();
        let kind = gold_result(client, q["gold_pg"].as_str().unwrap());
        let mut findings = |sql: &str| -> Option<Vec<String>> {
            client
                .query("SELECT requirement FROM nl2sql_verify($1, $2) WHERE NOT satisfied", &[&question, &sql])
                .ok()
                .map(|rows| {
                    let mut names: Vec<String> = rows.iter().map(|r| r.get::<_, String>(0)).collect();
                    names.sort();
                    names.dedup();
                    names
                })
        };
        let mut record = |who: &Value, correct: Value, names: &[String]| {
            use std::io::Write;
            let line = serde_json::json!({"question_id": q["question_id"], "db": q["db_id"], "query": who, "correct": correct, "findings": names, "gold_result": kind});
            writeln!(raw, "{line}").expect("write results");
        };
        let gold = trusted.contains(&q["question_id"].as_u64().unwrap()).then(|| findings(q["gold_pg"].as_str().unwrap()));
        match gold {
            Some(Some(names)) => {
                record(&Value::from("gold"), Value::Bool(true), &names);
                all.gold(&q["question_id"], &names);
                if kind == "rows" {
                    informative.gold(&q["question_id"], &names);
                }
            }
            Some(None) => unparsed += 1,
            None => untrusted += 1,
        }
        for c in q["candidates"].as_array().unwrap() {
            if c["runs_same_on_pg"] != Value::Bool(true) {
                continue;
            }
            let Some(names) = findings(c["sql"].as_str().unwrap()) else {
                unparsed += 1;
                continue;
            };
            let is_wrong = c["correct"] != Value::Bool(true);
            record(&c["system"], Value::Bool(!is_wrong), &names);
            all.candidate(is_wrong, &names);
            if kind == "rows" {
                informative.candidate(is_wrong, &names);
            }
        }
    }
    println!("\n{unparsed} not verifiable (parse error), {untrusted} gold queries left out (no trustworthy PostgreSQL gold)");
    all.print("All questions");
    informative.print(
        "Questions whose gold result tells right from wrong (gold returns rows; not nothing, not one row of zeros or NULLs, \
         where every candidate that returns nothing is labelled right whatever it asks)",
    );
    println!("\nraw results: {out_path}");
}
