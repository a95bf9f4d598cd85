//! Benchmark 2: execution accuracy of `nl2sql(question)` on the Spider dev databases, per pipeline
//! configuration, with tokens and seconds per question.
//!
//!     bench/load_spider.sh                      # once: the databases, with the extension
//!     cargo run --release --example ask_accuracy -- [--per-level N] [--configs a,b] [DATA_DIR]
//!
//! Configurations: zero_shot (no probe, no verify/repair), probe (probe only), verify (verify and
//! repair, no probe), full; the ablation of the full pipeline: no_probe, no_values, no_verify,
//! no_repair, no_refine (one stage off each), two_round (schema linking added), nversion (three generators,
//! sent together), nversion_seq (the same, one request at a time: what the fan-out saves),
//! nversion_tournament (disagreements settled by duels). Questions: a stratified subset, N per Spider difficulty level, spread
//! over the databases (every k-th question of each level in (db, id) order); questions whose gold
//! has no trustworthy PostgreSQL result (`pg_ok_tie_tolerant` false) are excluded.
//!
//! The configurations of a question run one after another, in alternating order from one question to
//! the next: the model server reuses the prompt prefix of the call before, which favours whichever
//! runs second.
//!
//! Paired comparison: every configuration against the first one given (by default zero_shot), on
//! the same questions: wins, losses, the mean difference of tie-tolerant correctness with a 95%
//! interval (normal approximation of the paired differences), and the ratio of seconds per
//! question. Raw per-question results (question, configuration, strict, tie-tolerant, seconds,
//! SQL) go to `bench/results/ask_accuracy.jsonl` (or `$NL2SQL_BENCH_OUT`).
//!
//! Scoring as ../shared/data/README.md describes: prediction and gold run on the same database
//! (through nl2sql_try); result multisets are compared, ordered when the gold orders its output,
//! numbers with a relative tolerance of 1e-6, any column order. Tie-tolerant: also correct when the
//! gold ends in ORDER BY ... LIMIT and the prediction has as many rows, all among the gold's rows
//! without that LIMIT.

use std::collections::BTreeMap;

#[path = "spider.rs"]
mod spider;
use spider::{connect, rows, same, within, without_limit};
use std::time::Instant;

use postgres::Client;
use serde_json::Value;

/// (name, options of the call, settings for the session during the call).
const CONFIGS: &[(&str, &str, &str)] = &[
    ("zero_shot", r#"{"probe": false, "verify": false}"#, ""),
    ("probe", r#"{"verify": false}"#, ""),
    ("verify", r#"{"probe": false}"#, ""),
    ("full", r#"{}"#, ""),
    // the ablation: each stage of the full pipeline off in turn, or one added
    ("no_probe", r#"{"probe": false}"#, ""),
    ("no_values", r#"{"values": false}"#, ""),
    ("no_verify", r#"{"verify": false}"#, ""),
    ("no_fix", r#"{"fix": false}"#, ""),
    ("no_repair", r#"{"repair": false}"#, ""),
    ("no_refine", r#"{"refine": false}"#, ""),
    ("two_round", r#"{"two_round": true}"#, ""),
    ("nversion", r#"{"generators": ["direct", "skeleton", "decompose"]}"#, ""),
    ("nversion_seq", r#"{"generators": ["direct", "skeleton", "decompose"]}"#, "SET nl2sql.llm_concurrency = 1"),
    ("nversion_tournament", r#"{"generators": ["direct", "skeleton", "decompose"], "select": "tournament"}"#, ""),
];

#[derive(Default, Clone)]
struct Tally {
    n: usize,
    strict: usize,
    tie: usize,
    errors: usize,
    /// Some generated candidate (before verification and repair) is correct (tie-tolerant).
    upper: usize,
    prompt_tokens: i64,
    completion_tokens: i64,
    llm_calls: i64,
    seconds: f64,
}

/// One raw result line.
#[allow(clippy::too_many_arguments)]
/// `run`: the run's id in the audit log (`nl2sql.runs`, `nl2sql.steps` of the benchmark cluster)
/// and its model calls, when the call returned.
fn record(out: &mut impl std::io::Write, q: &Value, config: &str, strict: bool, tie: bool, seconds: f64, sql: Option<&str>, error: Option<String>, run: Option<(i64, i64)>) {
    let line = serde_json::json!({"question_id": q["question_id"], "db": q["db_id"], "difficulty": q["difficulty"], "config": config,
        "strict": strict, "tie": tie, "seconds": seconds, "sql": sql, "error": error,
        "run_id": run.map(|r| r.0), "llm_calls": run.map(|r| r.1)});
    writeln!(out, "{line}").expect("write results");
    out.flush().expect("flush results");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut per_level = 6usize;
    let mut configs: Vec<&str> = CONFIGS.iter().map(|(n, _, _)| *n).collect();
    let mut dir = "../shared/data".to_string();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--per-level" => {
                per_level = args[i + 1].parse().expect("--per-level N");
                i += 1;
            }
            "--configs" => {
                configs = args[i + 1].split(',').map(|s| CONFIGS.iter().find(|(n, _, _)| *n == s).expect("unknown config").0).collect();
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

    let out_path = std::env::var("NL2SQL_BENCH_OUT")
        .unwrap_or_else(|_| format!("{}/bench/results/ask_accuracy.jsonl", env!("CARGO_MANIFEST_DIR")));
    if let Some(d) = std::path::Path::new(&out_path).parent() {
        std::fs::create_dir_all(d).expect("results directory");
    }
    let mut raw = std::io::BufWriter::new(std::fs::File::create(&out_path).expect("results file"));
    // (question, config) → tie-tolerant correct, seconds
    let mut paired: BTreeMap<(i64, &str), (bool, f64)> = BTreeMap::new();
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut by_level: BTreeMap<(&str, String), (usize, usize)> = BTreeMap::new();
    let mut clients: BTreeMap<String, Client> = BTreeMap::new();
    for (qi, q) in chosen.iter().enumerate() {
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
        // the model server caches the prompt prefix it last saw: the configuration that runs second
        // on a question reuses the first one's schema prefix, so the order alternates per question
        let order: Vec<&str> = if qi % 2 == 0 { configs.clone() } else { configs.iter().rev().copied().collect() };
        for config in order {
            let &(_, options, settings) = CONFIGS.iter().find(|(n, _, _)| *n == config).unwrap();
            client.batch_execute(&format!("RESET nl2sql.llm_concurrency; {settings}")).unwrap();
            let started = Instant::now();
            let answer = client.query_one("SELECT nl2sql($1, NULL, $2::text::jsonb)", &[&q["question"].as_str().unwrap(), &options]);
            let seconds = started.elapsed().as_secs_f64();
            client.batch_execute("RESET nl2sql.llm_concurrency").unwrap();
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
                    paired.insert((q["question_id"].as_i64().unwrap_or(0), config), (false, seconds));
                    record(&mut raw, q, config, false, false, seconds, None, Some(e.to_string()), None);
                    continue;
                }
            };
            let mut run = None;
            if let Ok(r) = client.query_one(
                // the ask run and the nl2sql_select run a tournament started inside it
                "SELECT sum(prompt_tokens)::bigint, sum(completion_tokens)::bigint, sum(llm_calls)::bigint, min(run_id) FROM nl2sql.runs
                  WHERE run_id >= (SELECT max(run_id) FROM nl2sql.runs WHERE function <> 'nl2sql_select')",
                &[],
            ) {
                t.prompt_tokens += r.get::<_, i64>(0);
                t.completion_tokens += r.get::<_, i64>(1);
                t.llm_calls += r.get::<_, i64>(2);
                run = Some((r.get::<_, i64>(3), r.get::<_, i64>(2)));
            }
            // the upper bound: any candidate a generator wrote, before verification and repair
            let generated: Vec<String> = client
                .query(
                    "SELECT sql FROM nl2sql.steps WHERE run_id = (SELECT max(run_id) FROM nl2sql.runs WHERE function <> 'nl2sql_select')
                       AND stage = 'generate' AND status = 'ok' AND sql IS NOT NULL",
                    &[],
                )
                .map(|rs| rs.iter().map(|r| r.get::<_, String>(0)).collect())
                .unwrap_or_default();
            let any = generated.iter().any(|g| {
                rows(client, g).is_ok_and(|pred| {
                    same(&pred, &gold, ordered) || pool.as_ref().is_some_and(|p| pred.len() == gold.len() && within(&pred, p))
                })
            });
            tallies.get_mut(config).unwrap().upper += any as usize;
            let t = tallies.get_mut(config).unwrap();
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
            paired.insert((q["question_id"].as_i64().unwrap_or(0), config), (tie, seconds));
            record(&mut raw, q, config, strict, tie, seconds, Some(&sql), None, run);
            println!("#{} {config} {} {:.1}s {}", q["question_id"], if tie { "ok " } else { "BAD" }, seconds, sql.replace('\n', " "));
        }
    }
    println!("\n| config | questions | EX strict | EX tie-tolerant | any candidate (tie) | errors | prompt tok/q | completion tok/q | LLM calls/q | s/q |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for &config in &configs {
        let t = &tallies.get(config).cloned().unwrap_or_default();
        let n = t.n.max(1) as f64;
        println!(
            "| {config} | {} | {:.1}% | {:.1}% | {:.1}% | {} | {:.0} | {:.0} | {:.1} | {:.1} |",
            t.n,
            100.0 * t.strict as f64 / n,
            100.0 * t.tie as f64 / n,
            100.0 * t.upper as f64 / n,
            t.errors,
            t.prompt_tokens as f64 / n,
            t.completion_tokens as f64 / n,
            t.llm_calls as f64 / n,
            t.seconds / n
        );
    }
    if let Some((&base, others)) = configs.split_first() {
        println!("\npaired against {base} (tie-tolerant, same questions):");
        println!("| config | questions | wins | losses | difference | 95% interval | time ratio |");
        println!("|---|---|---|---|---|---|---|");
        for &config in others {
            let pairs: Vec<((bool, f64), (bool, f64))> = paired
                .iter()
                .filter(|((_, c), _)| *c == config)
                .filter_map(|((qid, _), v)| Some((*v, *paired.get(&(*qid, base))?)))
                .collect();
            if pairs.is_empty() {
                continue;
            }
            let p = spider::paired(&pairs.iter().map(|((other, _), (base, _))| (*base, *other)).collect::<Vec<_>>());
            let secs = |i: usize| pairs.iter().map(|p| if i == 0 { p.0 .1 } else { p.1 .1 }).sum::<f64>();
            println!(
                "| {config} | {} | {} | {} | {:+.1} pts | [{:+.1}, {:+.1}] | {:.2}x |",
                p.n,
                p.wins,
                p.losses,
                p.mean,
                p.low,
                p.high,
                secs(0) / secs(1).max(1e-9)
            );
        }
    }
    println!("raw results: {out_path}");
    println!("\nby difficulty (tie-tolerant correct / questions):");
    for ((config, level), (n, ok)) in &by_level {
        println!("  {config:<10} {level:<7} {ok}/{n}");
    }
}
