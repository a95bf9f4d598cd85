//! Benchmark 2: execution accuracy of `nl2sql(question)` per pipeline configuration, with tokens,
//! seconds and the run's status per question, on the Spider dev databases (for measuring) or the
//! Spider train databases (for tuning).
//!
//!     bench/load_spider.sh [--set spider_train] --index    # once: the databases, with the extension
//!     cargo run --release --example ask_accuracy -- [--set spider|spider_train] [--per-level N | --sample N | --ids N,..]
//!                                                   [--seed S] [--configs a,b] [DATA_DIR]
//!     cargo run --release --example ask_accuracy -- --rescore FILE [DATA_DIR]   # re-score raw results
//!     cargo run --release --example ask_accuracy -- --times FILE    # seconds by the state of the prompt cache
//!
//! `--resume` keeps the results already in the raw file and runs only the missing ones.
//!
//! Configurations: zero_shot (no probe, no verify/repair), probe (probe only), verify (verify and
//! repair, no probe), full (the default); the ablation of the full pipeline: no_probe, no_values,
//! no_verify, no_fix, no_repair, no_refine (one stage off each), two_round (schema linking added),
//! nversion (three generators, sent together), nversion_seq (the same, one request at a time),
//! nversion_tournament (disagreements settled by duels).
//!
//! Questions: `--ids N,N,...` takes the questions of those ids (of the set, in that order: a
//! subset chosen from earlier raw results, such as the questions on which a stage ran);
//! `--per-level N` (Spider dev only) takes N per Spider difficulty level spread over
//! the databases (every k-th question of each level in (db, id) order); `--sample N` takes N
//! stratified by database: the databases in a seeded order, one question of each in turn (each
//! database's questions in a seeded order), so N questions come from min(N, databases) databases.
//! Questions whose gold has no trustworthy PostgreSQL result (`pg_ok_tie_tolerant` false) are
//! excluded.
//!
//! The configurations of a question run one after another, in alternating order from one question to
//! the next: the model server reuses the prompt prefix of the call before, which favours whichever
//! runs second. On a set whose questions mostly come from databases not asked before (spider_train),
//! that makes one configuration of each pair read the schema afresh and the other find it cached.
//! `--warm` runs an untimed zero-shot call with another question ([`PRIMING_QUESTION`]) on the
//! question's database before each timed call (and one with each reasoning generator the
//! configuration uses, whose prompts begin otherwise: [`priming_configs`]), so every timed call
//! finds the schema prefix cached
//! and reads its own question afresh, as an analyst's second and later questions do; the time ratio
//! is then the cost of the pipeline alone. (Before this was so, the priming call ran once per question,
//! so the configuration that ran second found the question's words cached by the first.)
//!
//! Scoring as ../shared/data/README.md describes: prediction and gold run on the same database
//! (through nl2sql_try); result multisets are compared, ordered when the gold orders its output,
//! numbers with a relative tolerance of 1e-6, any column order. Tie-tolerant: also right when the
//! gold ends in ORDER BY … LIMIT k and its sort key ties at the boundary (the k-th and the next
//! row share it): the prediction has k rows, every gold row before the boundary key, the rest
//! among the rows whose key equals it ([`spider::Gold`]).
//!
//! Reported per configuration: strict and tie-tolerant accuracy, the runs' statuses, and the share
//! of `ok` runs that are right (strict): what `ok` is worth. Paired against the first configuration
//! (by default zero_shot), strict, on the same questions: wins, losses, the mean difference with a
//! 95% interval (normal approximation of the paired differences), and the ratio of seconds. Raw
//! per-question results (question, configuration, strict, tie-tolerant, status, seconds, SQL, the
//! run's steps) go to `bench/results/ask_accuracy.jsonl` (or `$NL2SQL_BENCH_OUT`).

use std::collections::BTreeMap;

#[path = "spider.rs"]
mod spider;
use spider::{connect, database, rows, sample, Gold};
use std::time::Instant;

use postgres::Client;
use serde_json::{json, Value};

/// The question `--warm` asks, untimed, before each question.
const PRIMING_QUESTION: &str = "How many rows are there?";

/// (name, options of the call, settings for the session during the call).
const CONFIGS: &[(&str, &str, &str)] = &[
    // one bare generation: the direct generator (the query alone), nothing else
    ("zero_shot", r#"{"probe": false, "verify": false, "generators": ["direct"]}"#, ""),
    ("probe", r#"{"verify": false}"#, ""),
    ("verify", r#"{"probe": false}"#, ""),
    ("full", r#"{}"#, ""),
    // the full pipeline with the direct generator (the default before 0.4.0)
    ("direct", r#"{"generators": ["direct"]}"#, ""),
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
    // the full pipeline with the decompose generator instead of direct, and with both
    ("decompose", r#"{"generators": ["decompose"]}"#, ""),
    ("direct_decompose", r#"{"generators": ["direct", "decompose"]}"#, ""),
    // one generation by another generator, unverified: a second reading to compare with the first
    ("skeleton_only", r#"{"probe": false, "verify": false, "generators": ["skeleton"]}"#, ""),
    ("decompose_only", r#"{"probe": false, "verify": false, "generators": ["decompose"]}"#, ""),
];

/// The untimed calls `--warm` makes before a configuration's run: one per family of prompts the
/// configuration sends. Prompts that begin with the schema (probes, votes, `direct`) share one
/// family, primed by `zero_shot`; a reasoning generator's prompts begin with its instructions
/// (`prompts::generate_with`), and the server keeps them in a slot of their own, so a
/// configuration that generates with `decompose` or `skeleton` is primed by that generator too.
/// Each run then finds cached what an analyst's earlier question with the same configuration
/// left: the schema behind every prompt's fixed beginning, and nothing of the question.
fn priming_configs(config: &str) -> Vec<&'static str> {
    let &(_, options, _) = CONFIGS.iter().find(|(n, _, _)| *n == config).expect("known config");
    let options: Value = serde_json::from_str(options).expect("config options are JSON");
    // the default generator is decompose
    let generators: Vec<String> = match options["generators"].as_array() {
        Some(g) => g.iter().filter_map(|g| g.as_str().map(str::to_string)).collect(),
        None => vec!["decompose".to_string()],
    };
    let mut primers = vec!["zero_shot"];
    for (generator, primer) in [("decompose", "decompose_only"), ("skeleton", "skeleton_only")] {
        if generators.iter().any(|g| g == generator) {
            primers.push(primer);
        }
    }
    primers
}

#[derive(Default, Clone)]
struct Tally {
    n: usize,
    strict: usize,
    tie: usize,
    errors: usize,
    /// Some generated candidate (before verification and repair) is right (strict).
    upper: usize,
    prompt_tokens: i64,
    completion_tokens: i64,
    llm_calls: i64,
    seconds: f64,
    /// status → (runs, strictly right)
    statuses: BTreeMap<String, (usize, usize)>,
}

/// The last ask run of this session's database: (run id, status, prompt tokens, completion
/// tokens, model calls), counting a tournament's nl2sql_select runs inside it.
fn last_run(client: &mut Client) -> Option<(i64, String, i64, i64, i64)> {
    let r = client
        .query_one(
            "SELECT min(run_id), (SELECT status FROM nl2sql.runs WHERE run_id = min(r.run_id)),
                    coalesce(sum(prompt_tokens), 0)::bigint, coalesce(sum(completion_tokens), 0)::bigint, coalesce(sum(llm_calls), 0)::bigint
               FROM nl2sql.runs AS r
              WHERE run_id >= (SELECT max(run_id) FROM nl2sql.runs WHERE function <> 'nl2sql_select')",
            &[],
        )
        .ok()?;
    Some((r.get::<_, Option<i64>>(0)?, r.get::<_, Option<String>>(1).unwrap_or_default(), r.get(2), r.get(3), r.get(4)))
}

/// Of a run's prompt tokens (with the nl2sql_select runs inside it), those the model server took
/// from its prompt cache, as the `chosen` steps record them (None before they did).
fn cached_prompt_tokens(client: &mut Client, run_id: i64) -> Option<i64> {
    client
        .query_one(
            "SELECT sum((output->>'cached_prompt_tokens')::bigint)::bigint FROM nl2sql.steps WHERE run_id >= $1 AND stage = 'chosen'",
            &[&run_id],
        )
        .ok()?
        .get::<_, Option<i64>>(0)
}

/// The steps of a run, compactly: stage, status, detail (cut), SQL, and the milliseconds since the
/// step before (what the stage cost).
fn steps_of(client: &mut Client, run_id: i64) -> Vec<Value> {
    client
        .query("SELECT stage, status, left(detail, 400), sql, round(elapsed_ms)::bigint FROM nl2sql.steps WHERE run_id = $1 ORDER BY step", &[&run_id])
        .map(|rs| {
            rs.iter()
                .map(|r| {
                    json!([r.get::<_, String>(0), r.get::<_, String>(1), r.get::<_, String>(2), r.get::<_, Option<String>>(3), r.get::<_, Option<i64>>(4)])
                })
                .collect()
        })
        .unwrap_or_default()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut per_level: Option<usize> = None;
    let mut sample_n: Option<usize> = None;
    let mut ids: Option<Vec<i64>> = None;
    let mut seed = 21u64;
    let mut set = "spider".to_string();
    let mut rescore: Option<String> = None;
    let mut times: Option<String> = None;
    let mut resume = false;
    let mut warm = false;
    let mut configs: Vec<&str> = vec!["zero_shot", "full"];
    let mut dir = "../shared/data".to_string();
    let mut i = 0;
    while i < args.len() {
        let value = |i: usize| args.get(i + 1).cloned().unwrap_or_else(|| panic!("{} needs a value", args[i]));
        match args[i].as_str() {
            "--per-level" => per_level = Some(value(i).parse().expect("--per-level N")),
            "--sample" => sample_n = Some(value(i).parse().expect("--sample N")),
            "--ids" => ids = Some(value(i).split(',').map(|x| x.trim().parse().expect("--ids N,N,...")).collect()),
            "--seed" => seed = value(i).parse().expect("--seed S"),
            "--set" => set = value(i),
            "--rescore" => rescore = Some(value(i)),
            "--times" => times = Some(value(i)),
            "--resume" => {
                resume = true;
                i += 1;
                continue;
            }
            "--warm" => {
                warm = true;
                i += 1;
                continue;
            }
            "--configs" => {
                configs = value(i).split(',').map(|s| CONFIGS.iter().find(|(n, _, _)| *n == s).expect("unknown config").0).collect();
            }
            other => {
                dir = other.to_string();
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    if let Some(file) = rescore {
        return rescore_file(&file, &dir);
    }
    if let Some(file) = times {
        return times_by_cache(&file);
    }
    assert!(set == "spider" || set == "spider_train", "--set spider or spider_train");
    let all: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}/{set}/questions.json")).expect("questions")).unwrap();
    let eligible: Vec<&Value> = all.iter().filter(|q| q["pg_ok_tie_tolerant"] == Value::Bool(true)).collect();
    let (chosen, selection): (Vec<&Value>, String) = match (per_level, sample_n) {
        _ if ids.is_some() => {
            let ids = ids.expect("matched");
            let chosen: Vec<&Value> = ids.iter().filter_map(|id| eligible.iter().copied().find(|q| q["question_id"].as_i64() == Some(*id))).collect();
            let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
            (chosen, format!("--ids {list}"))
        }
        (Some(per_level), None) if set == "spider" => {
            let mut chosen = Vec::new();
            for level in ["easy", "medium", "hard", "extra"] {
                let mut qs: Vec<&Value> = eligible.iter().copied().filter(|q| q["difficulty"] == level).collect();
                qs.sort_by_key(|q| (q["db_id"].as_str().unwrap_or("").to_string(), q["question_id"].as_i64().unwrap_or(0)));
                let step = (qs.len() / per_level.max(1)).max(1);
                chosen.extend(qs.into_iter().step_by(step).take(per_level));
            }
            (chosen, format!("--per-level {per_level}"))
        }
        (None, Some(n)) => (sample(eligible, n, seed), format!("--sample {n} --seed {seed}")),
        _ => panic!("give --per-level N (spider) or --sample N"),
    };
    let databases: std::collections::BTreeSet<&str> = chosen.iter().filter_map(|q| q["db_id"].as_str()).collect();
    let warm_flag = if warm { " --warm" } else { "" };
    println!("command: cargo run --release --example ask_accuracy -- --set {set} {selection}{warm_flag} --configs {} {dir}", configs.join(","));
    println!("{} questions from {} databases of {set}, configs: {}", chosen.len(), databases.len(), configs.join(", "));

    let out_path = std::env::var("NL2SQL_BENCH_OUT")
        .unwrap_or_else(|_| format!("{}/bench/results/ask_accuracy.jsonl", env!("CARGO_MANIFEST_DIR")));
    if let Some(d) = std::path::Path::new(&out_path).parent() {
        std::fs::create_dir_all(d).expect("results directory");
    }
    // --resume: keep the results already in the file and run only what is missing
    let mut results: Vec<Result> = Vec::new();
    let mut done: std::collections::BTreeSet<(i64, String)> = std::collections::BTreeSet::new();
    if resume {
        for l in std::fs::read_to_string(&out_path).unwrap_or_default().lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
            let r = Result::from_line(&l);
            done.insert((r.question_id, r.config.clone()));
            results.push(r);
        }
        println!("resuming: {} results already in {out_path}", results.len());
    }
    let file = std::fs::OpenOptions::new().create(true).append(resume).write(true).truncate(!resume).open(&out_path).expect("results file");
    let mut raw = std::io::BufWriter::new(file);
    let mut clients: BTreeMap<String, Client> = BTreeMap::new();
    for (qi, q) in chosen.iter().enumerate() {
        if configs.iter().all(|c| done.contains(&(q["question_id"].as_i64().unwrap_or(0), c.to_string()))) {
            continue;
        }
        let db = database(&set, q["db_id"].as_str().unwrap());
        // one connection per database, a few at a time (the cluster allows 100)
        if !clients.contains_key(&db) && clients.len() >= 8 {
            clients.clear();
        }
        let client = clients.entry(db.clone()).or_insert_with(|| connect(&db));
        client.batch_execute("SET client_min_messages = warning").unwrap();
        let gold_sql = q["gold_pg"].as_str().unwrap();
        let ordered = q["order_sensitive"] == Value::Bool(true);
        let gold = match Gold::load(client, gold_sql, ordered) {
            Ok(g) => g,
            Err(e) => {
                println!("skip #{}: gold fails: {e}", q["question_id"]);
                continue;
            }
        };
        // the model server caches the prompt prefix it last saw: the configuration that runs second
        // on a question reuses the first one's schema prefix, so the order alternates per question
        let order: Vec<&str> = if qi % 2 == 0 { configs.clone() } else { configs.iter().rev().copied().collect() };
        for config in order {
            if done.contains(&(q["question_id"].as_i64().unwrap_or(0), config.to_string())) {
                continue;
            }
            if warm {
                // untimed: the schema prefix of this question's database into the server's cache, by a
                // question that shares nothing with this one after the schema (priming with the question
                // itself would leave its words cached too, which no analyst's next question finds)
                for primer in priming_configs(config) {
                    let &(_, options, _) = CONFIGS.iter().find(|(n, _, _)| *n == primer).unwrap();
                    if let Err(e) = client.query_one("SELECT nl2sql($1, NULL, $2::text::jsonb)", &[&PRIMING_QUESTION, &options]) {
                        println!("#{} warming call ({primer}) failed: {}", q["question_id"], spider::server_error(&e));
                    }
                }
            }
            let &(_, options, settings) = CONFIGS.iter().find(|(n, _, _)| *n == config).unwrap();
            client.batch_execute(&format!("RESET nl2sql.llm_concurrency; {settings}")).unwrap();
            let started = Instant::now();
            let answer = client.query_one("SELECT nl2sql($1, NULL, $2::text::jsonb)", &[&q["question"].as_str().unwrap(), &options]);
            let seconds = started.elapsed().as_secs_f64();
            client.batch_execute("RESET nl2sql.llm_concurrency").unwrap();
            let run = last_run(client);
            let steps = run.as_ref().map(|r| steps_of(client, r.0)).unwrap_or_default();
            let cached = run.as_ref().and_then(|r| cached_prompt_tokens(client, r.0));
            let (sql, error) = match answer {
                // NULL: the run found no SQL to hand over (its status says why)
                Ok(r) => (r.get::<_, Option<String>>(0), None),
                Err(e) => (None, Some(spider::server_error(&e))),
            };
            let pred = sql.as_deref().map(|s| rows(client, s));
            let (strict, tie) = match &pred {
                Some(Ok(p)) => (gold.strict(p), gold.tie_tolerant(p)),
                _ => (false, false),
            };
            // the upper bound: any candidate a generator wrote, before verification and repair
            let upper = steps.iter().filter(|s| s[0] == "generate" && s[1] == "ok").filter_map(|s| s[3].as_str()).any(|g| {
                rows(client, g).is_ok_and(|p| gold.strict(&p))
            });
            let status = match (&run, &error) {
                (Some(r), _) if !r.1.is_empty() => r.1.clone(),
                (_, Some(_)) => "error".into(),
                _ => "unknown".into(),
            };
            let result = Result {
                question_id: q["question_id"].as_i64().unwrap_or(0),
                config: config.to_string(),
                strict,
                tie,
                upper,
                status,
                seconds,
                usage: run.as_ref().map(|r| (r.2, r.3, r.4)),
                error: error.clone(),
            };
            let line = json!({"set": set, "question_id": q["question_id"], "db": q["db_id"], "difficulty": q["difficulty"],
                "question": q["question"], "config": config, "strict": strict, "tie": tie, "upper": upper, "status": result.status,
                "seconds": seconds, "sql": sql, "error": error, "runs": pred.as_ref().map(|p| p.is_ok()),
                "warm": warm, "primed_each_call": warm, "primed_with": if warm { priming_configs(config) } else { vec![] }, "run_id": run.as_ref().map(|r| r.0), "llm_calls": run.as_ref().map(|r| r.4),
                "prompt_tokens": run.as_ref().map(|r| r.2), "completion_tokens": run.as_ref().map(|r| r.3),
                "cached_prompt_tokens": cached, "steps": steps});
            writeln!(raw, "{line}").expect("write results");
            raw.flush().expect("flush results");
            println!(
                "#{} {config} {} {:<10} {:.1}s {}",
                q["question_id"],
                if strict { "ok " } else if tie { "tie" } else { "BAD" },
                result.status,
                seconds,
                sql.as_deref().or(error.as_deref()).unwrap_or("").replace('\n', " ")
            );
            results.push(result);
        }
    }
    report(&results, &configs);
    println!("raw results: {out_path}");
}

use std::io::Write;

impl Result {
    /// A result as the raw file records it.
    fn from_line(l: &Value) -> Result {
        Result {
            question_id: l["question_id"].as_i64().unwrap_or(-1),
            config: l["config"].as_str().unwrap_or("").to_string(),
            strict: l["strict"].as_bool().unwrap_or(false),
            tie: l["tie"].as_bool().unwrap_or(false),
            upper: l["upper"].as_bool().unwrap_or(false),
            status: l["status"].as_str().unwrap_or("unknown").to_string(),
            seconds: l["seconds"].as_f64().unwrap_or(0.0),
            usage: l["llm_calls"].as_i64().map(|c| (l["prompt_tokens"].as_i64().unwrap_or(0), l["completion_tokens"].as_i64().unwrap_or(0), c)),
            error: l["error"].as_str().map(str::to_string),
        }
    }
}

/// One question under one configuration.
struct Result {
    question_id: i64,
    config: String,
    strict: bool,
    tie: bool,
    upper: bool,
    status: String,
    seconds: f64,
    /// prompt tokens, completion tokens, model calls
    usage: Option<(i64, i64, i64)>,
    error: Option<String>,
}

fn report(results: &[Result], configs: &[&str]) {
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    for r in results {
        let t = tallies.entry(r.config.as_str()).or_default();
        t.n += 1;
        t.strict += r.strict as usize;
        t.tie += r.tie as usize;
        t.upper += r.upper as usize;
        t.errors += r.error.is_some() as usize;
        t.seconds += r.seconds;
        if let Some((p, c, calls)) = r.usage {
            t.prompt_tokens += p;
            t.completion_tokens += c;
            t.llm_calls += calls;
        }
        let s = t.statuses.entry(r.status.clone()).or_default();
        s.0 += 1;
        s.1 += r.strict as usize;
    }
    println!("\n| config | questions | EX strict | EX tie-tolerant | any candidate (strict) | no SQL | prompt tok/q | completion tok/q | LLM calls/q | s/q |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for &config in configs {
        let t = tallies.get(config).cloned().unwrap_or_default();
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
    println!("\nstatuses (runs, of them right strictly):");
    println!("| config | status | runs | share of questions | right (strict) |");
    println!("|---|---|---|---|---|");
    for &config in configs {
        let t = tallies.get(config).cloned().unwrap_or_default();
        for (status, (runs, right)) in &t.statuses {
            println!(
                "| {config} | {status} | {runs} | {:.1}% | {right} ({:.1}%) |",
                100.0 * *runs as f64 / t.n.max(1) as f64,
                100.0 * *right as f64 / (*runs).max(1) as f64
            );
        }
    }
    let by: BTreeMap<(i64, &str), &Result> = results.iter().map(|r| ((r.question_id, r.config.as_str()), r)).collect();
    if let Some((&base, others)) = configs.split_first() {
        println!("\npaired against {base} (strict, same questions; tie-tolerant in the last columns):");
        println!("| config | questions | wins | losses | difference | 95% interval | tie: wins / losses, difference | time ratio |");
        println!("|---|---|---|---|---|---|---|---|");
        for &config in others {
            let pairs: Vec<(&Result, &Result)> = results
                .iter()
                .filter(|r| r.config == config)
                .filter_map(|r| Some((*by.get(&(r.question_id, base))?, r)))
                .collect();
            if pairs.is_empty() {
                continue;
            }
            let p = spider::paired(&pairs.iter().map(|(b, o)| (b.strict, o.strict)).collect::<Vec<_>>());
            let t = spider::paired(&pairs.iter().map(|(b, o)| (b.tie, o.tie)).collect::<Vec<_>>());
            let secs = |f: fn(&(&Result, &Result)) -> f64| pairs.iter().map(f).sum::<f64>();
            println!(
                "| {config} | {} | {} | {} | {:+.1} pts | [{:+.1}, {:+.1}] | {} / {}, {:+.1} pts | {:.2}x |",
                p.n,
                p.wins,
                p.losses,
                p.mean,
                p.low,
                p.high,
                t.wins,
                t.losses,
                t.mean,
                secs(|p| p.1.seconds) / secs(|p| p.0.seconds).max(1e-9)
            );
        }
    }
}

/// The seconds of a raw file's runs, per configuration, split by what the model server's prompt
/// cache held: a run that was the first of the file on its database read the schema afresh
/// (`cold`); a later one found it cached by the run before it on that database (`warm`), unless the
/// run was made with `--warm`, where every run is warm. No database is read.
fn times_by_cache(file: &str) {
    let text = std::fs::read_to_string(file).expect("raw results file");
    let lines: Vec<Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let mut configs: Vec<String> = Vec::new();
    // (config, cold) -> (runs, seconds, completion tokens, prompt tokens)
    let mut by: BTreeMap<(String, bool), (usize, f64, i64, i64)> = BTreeMap::new();
    let mut previous_db: Option<String> = None;
    let mut previous_question: Option<i64> = None;
    // --warm runs: (config, first on its question) -> (runs, seconds)
    let mut after: BTreeMap<(String, bool), (usize, f64)> = BTreeMap::new();
    for l in &lines {
        let config = l["config"].as_str().unwrap_or("").to_string();
        if !configs.contains(&config) {
            configs.push(config.clone());
        }
        let db = format!("{}/{}", l["set"].as_str().unwrap_or(""), l["db"].as_str().unwrap_or(""));
        let warm = l["warm"] == json!(true);
        let cold = !warm && previous_db.as_deref() != Some(db.as_str());
        previous_db = Some(db);
        // in a --warm run, whether the run came right after the priming call (its question read
        // afresh) or after the other configuration on the same question (its words cached)
        let id = l["question_id"].as_i64().unwrap_or(-1);
        let first = previous_question != Some(id);
        previous_question = Some(id);
        if warm && l["primed_each_call"] != json!(true) {
            let e = after.entry((config.clone(), first)).or_default();
            e.0 += 1;
            e.1 += l["seconds"].as_f64().unwrap_or(0.0);
        }
        let e = by.entry((config, cold)).or_default();
        e.0 += 1;
        e.1 += l["seconds"].as_f64().unwrap_or(0.0);
        e.2 += l["completion_tokens"].as_i64().unwrap_or(0);
        e.3 += l["prompt_tokens"].as_i64().unwrap_or(0);
    }
    println!("command: cargo run --release --example ask_accuracy -- --times {file}");
    println!("| configuration | schema read | runs | seconds per run | completion tokens per run | prompt tokens per run | ratio to {} |", configs[0]);
    println!("|---|---|---|---|---|---|---|");
    let mean = |k: &(String, bool)| by.get(k).map(|e| e.1 / e.0.max(1) as f64);
    for config in &configs {
        for cold in [false, true] {
            let Some(&(n, secs, completion, prompt)) = by.get(&(config.clone(), cold)) else { continue };
            let base = mean(&(configs[0].clone(), cold));
            let ratio = base.map(|b| format!("{:.2}x", secs / n as f64 / b)).unwrap_or_default();
            println!(
                "| {config} | {} | {n} | {:.1} | {:.0} | {:.0} | {ratio} |",
                if cold { "afresh (first run on its database)" } else { "cached" },
                secs / n as f64,
                completion as f64 / n as f64,
                prompt as f64 / n as f64
            );
        }
    }
    if !after.is_empty() {
        println!("\n| configuration | ran | runs | seconds per run |\n|---|---|---|---|");
        for config in &configs {
            for first in [true, false] {
                if let Some(&(n, secs)) = after.get(&(config.clone(), first)) {
                    let when = if first { "first on its question (after the priming call)" } else { "second (the other configuration's words of the question cached)" };
                    println!("| {config} | {when} | {n} | {:.1} |", secs / n as f64);
                }
            }
        }
    }
}

/// Re-score a raw results file with the current scoring rule (the SQL each run returned, run
/// again on its database), and report as a fresh run would.
fn rescore_file(file: &str, _dir: &str) {
    let text = std::fs::read_to_string(file).expect("raw results file");
    let lines: Vec<Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let set_of = |l: &Value| l["set"].as_str().unwrap_or("spider").to_string();
    let mut questions: BTreeMap<(String, i64), Value> = BTreeMap::new();
    for set in lines.iter().map(set_of).collect::<std::collections::BTreeSet<_>>() {
        let all: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(format!("{_dir}/{set}/questions.json")).expect("questions")).unwrap();
        for q in all {
            questions.insert((set.clone(), q["question_id"].as_i64().unwrap_or(-1)), q);
        }
    }
    let mut configs: Vec<String> = Vec::new();
    let mut clients: BTreeMap<String, Client> = BTreeMap::new();
    let mut golds: BTreeMap<(String, i64), Option<Gold>> = BTreeMap::new();
    let mut results = Vec::new();
    let (mut changed_strict, mut changed_tie) = (0, 0);
    for l in &lines {
        let set = set_of(l);
        let id = l["question_id"].as_i64().unwrap_or(-1);
        let Some(q) = questions.get(&(set.clone(), id)) else { continue };
        let config = l["config"].as_str().unwrap_or("").to_string();
        if !configs.contains(&config) {
            configs.push(config.clone());
        }
        let db = database(&set, q["db_id"].as_str().unwrap());
        if !clients.contains_key(&db) && clients.len() >= 8 {
            clients.clear();
        }
        let client = clients.entry(db.clone()).or_insert_with(|| connect(&db));
        let gold = golds
            .entry((set.clone(), id))
            .or_insert_with(|| Gold::load(client, q["gold_pg"].as_str().unwrap(), q["order_sensitive"] == Value::Bool(true)).ok());
        let Some(gold) = gold else { continue };
        let (strict, tie) = match l["sql"].as_str().map(|s| rows(client, s)) {
            Some(Ok(p)) => (gold.strict(&p), gold.tie_tolerant(&p)),
            _ => (false, false),
        };
        changed_strict += (l["strict"].as_bool() != Some(strict)) as usize;
        if l["tie"].as_bool() != Some(tie) {
            changed_tie += 1;
            println!("#{id} {config}: tie-tolerant {} → {tie}: {}", l["tie"], l["sql"].as_str().unwrap_or(""));
        }
        results.push(Result {
            question_id: id,
            config,
            strict,
            tie,
            upper: l["upper"].as_bool().unwrap_or(false),
            status: l["status"].as_str().unwrap_or("unknown").to_string(),
            seconds: l["seconds"].as_f64().unwrap_or(0.0),
            usage: None,
            error: l["error"].as_str().map(str::to_string),
        });
    }
    println!("re-scored {} results of {file}: {changed_strict} strict and {changed_tie} tie-tolerant verdicts changed", results.len());
    let configs: Vec<&str> = configs.iter().map(String::as_str).collect();
    report(&results, &configs);
}
