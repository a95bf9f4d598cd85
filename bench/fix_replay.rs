//! Benchmark 13: the fix stage on queries the model wrote that PostgreSQL could not plan. No
//! model: each recorded query goes through `nl2sql_fix(question, sql)` (verification and the
//! mechanical repairs, as the caller), and the SQL that stands is run and, where the question is
//! one of the set's (its gold known), compared with the gold, strictly.
//!
//!     # once, on a machine whose audit logs hold earlier benchmark runs: the failing queries, to a file
//!     cargo run --release --example fix_replay -- extract [--out bench/data/failing_queries.json]
//!     # the replay (both sets of the file; `--set` keeps one)
//!     cargo run --release --example fix_replay -- [--set spider_train|spider] [--in FILE] [DATA_DIR]
//!
//! `extract` reads `nl2sql.steps` of every loaded Spider database (`train_*`, `spider_*`): each
//! distinct (question, SQL) of a `verify` or `repair` step whose detail says PostgreSQL could not
//! plan it. The replay keeps those whose verification still fails to plan (a query a later
//! schema or build plans is no failure to fix). Raw per-query results go to
//! `bench/results/fix_replay.jsonl` (or `$NL2SQL_BENCH_OUT`).

use std::collections::BTreeMap;
use std::io::Write;

#[path = "spider.rs"]
mod spider;

use serde_json::{json, Value};
use spider::{connect, rows, Gold};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = env!("CARGO_MANIFEST_DIR");
    let mut file = format!("{root}/bench/data/failing_queries.json");
    let mut dir = format!("{root}/../shared/data");
    let mut set: Option<String> = None;
    let mut extract = false;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "extract" => extract = true,
            "--out" | "--in" => {
                file = args[i + 1].clone();
                i += 1;
            }
            "--set" => {
                set = Some(args[i + 1].clone());
                i += 1;
            }
            other => dir = other.to_string(),
        }
        i += 1;
    }
    if extract {
        return extract_to(&file);
    }
    replay(&file, &dir, set.as_deref());
}

/// The failing queries of every loaded Spider database's audit log, to `file`.
fn extract_to(file: &str) {
    let mut c = connect("postgres");
    let dbs: Vec<String> = c
        .query("SELECT datname FROM pg_database WHERE datname LIKE 'train\\_%' OR datname LIKE 'spider\\_%' ORDER BY 1", &[])
        .expect("databases")
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut items = Vec::new();
    for db in &dbs {
        let mut c = connect(db);
        let Ok(found) = c.query(
            "SELECT DISTINCT r.question, s.sql FROM nl2sql.steps s JOIN nl2sql.runs r USING (run_id) \
             WHERE s.stage IN ('verify', 'repair') AND s.detail LIKE '%cannot plan it%' AND s.sql IS NOT NULL \
               AND r.question IS NOT NULL ORDER BY 1, 2",
            &[],
        ) else {
            continue;
        };
        for r in found {
            let (question, sql): (String, String) = (r.get(0), r.get(1));
            items.push(json!({"db": db, "question": question, "sql": sql}));
        }
    }
    std::fs::write(file, serde_json::to_string_pretty(&items).expect("json") + "\n").expect("write the file");
    println!("{} failing queries from {} databases written to {file}", items.len(), dbs.len());
}

fn replay(file: &str, dir: &str, only: Option<&str>) {
    let items: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(file).expect("the failing queries (run `extract` first)")).expect("json");
    // the gold of each question of both sets, by (database, question)
    let mut golds: BTreeMap<(String, String), (String, bool)> = BTreeMap::new();
    for (set, prefix) in [("spider_train", "train_"), ("spider", "spider_")] {
        let Ok(text) = std::fs::read_to_string(format!("{dir}/{set}/questions.json")) else { continue };
        let qs: Vec<Value> = serde_json::from_str(&text).expect("questions");
        for q in qs.iter().filter(|q| q["pg_ok_tie_tolerant"] == Value::Bool(true)) {
            let db = format!("{prefix}{}", q["db_id"].as_str().unwrap_or("").to_lowercase());
            golds.insert((db, q["question"].as_str().unwrap_or("").to_string()), (q["gold_pg"].as_str().unwrap_or("").to_string(), q["order_sensitive"] == Value::Bool(true)));
        }
    }
    let out_path = std::env::var("NL2SQL_BENCH_OUT").unwrap_or_else(|_| format!("{}/bench/results/fix_replay.jsonl", env!("CARGO_MANIFEST_DIR")));
    let mut raw = std::io::BufWriter::new(std::fs::File::create(&out_path).expect("results file"));
    println!("Benchmark 13: the fix stage on queries the model wrote that PostgreSQL could not plan");
    println!(
        "command: cargo run --release --example fix_replay --{} --in {file}",
        only.map(|s| format!(" --set {s}")).unwrap_or_default()
    );
    // per set: (replayed, now run, with a gold, right)
    let mut tally: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    let mut clients: BTreeMap<String, postgres::Client> = BTreeMap::new();
    for item in &items {
        let db = item["db"].as_str().unwrap_or("");
        let set = if db.starts_with("train_") { "spider_train" } else { "spider" };
        if only.is_some_and(|o| o != set) {
            continue;
        }
        let (question, sql) = (item["question"].as_str().unwrap_or(""), item["sql"].as_str().unwrap_or(""));
        if !clients.contains_key(db) && clients.len() >= 8 {
            clients.clear();
        }
        let c = clients.entry(db.to_string()).or_insert_with(|| connect(db));
        let Ok(steps) = c.query("SELECT stage, kept, coalesce(fix, ''), detail, sql FROM nl2sql_fix($1, $2) ORDER BY step", &[&question, &sql]) else {
            continue;
        };
        let first: String = steps[0].get(3);
        if !first.contains("cannot plan it") {
            continue;
        }
        let kept: Vec<String> = steps.iter().filter(|r| r.get::<_, String>(0) == "fix" && r.get::<_, bool>(1)).map(|r| r.get::<_, String>(2)).collect();
        let standing: String = steps.last().expect("a chosen row").get(4);
        let ran = rows(c, &standing);
        let gold = golds.get(&(db.to_string(), question.to_string()));
        let right = match (&ran, gold) {
            (Ok(r), Some((g, ordered))) => Gold::load(c, g, *ordered).ok().map(|g| g.strict(r)),
            (Err(_), Some(_)) => Some(false),
            _ => None,
        };
        let t = tally.entry(set).or_default();
        t[0] += 1;
        t[1] += ran.is_ok() as usize;
        t[2] += gold.is_some() as usize;
        t[3] += (right == Some(true)) as usize;
        let line = json!({"db": db, "question": question, "sql": sql, "failure": first, "fixes": kept, "standing": standing,
            "runs": ran.is_ok(), "gold": gold.is_some(), "right": right});
        writeln!(raw, "{line}").expect("write");
    }
    raw.flush().expect("flush");
    println!("\n| set | failing queries replayed | run after the fix stage | with a gold | right (strict) |");
    println!("|---|---|---|---|---|");
    for (set, t) in &tally {
        println!("| {set} | {} | {} | {} | {} |", t[0], t[1], t[2], t[3]);
    }
    println!("\nraw results: {out_path}");
}
