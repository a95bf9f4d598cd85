//! Benchmark 10: questions the data cannot answer.
//!
//! The set: `bench/data/unanswerable_spider_train.json`, 358 questions written from the schemas of
//! the `spider_train` databases, of four kinds (data the schema has no place for, including names
//! that only look like stored ones; advice, opinions, predictions and causes; general knowledge
//! unrelated to the database; knowledge about the database's things that it does not store),
//! each with what is missing. The databases are split in two halves (alphabetical order,
//! alternating): rules and thresholds are tuned on `tune` and measured on `measure`. The
//! answerable side is Spider's own questions of the same databases (`spider_train`) and of the
//! 13 `spider` databases, which nothing was tuned on.
//!
//!     cargo run --release --example answerability -- evidence [--threshold T] [--list]
//!         the evidence alone (no chat model; the embedding server for meaning): for each question
//!         whether it raises a suspicion, by kind and half; every answerable question of both sets
//!     cargo run --release --example answerability -- ask [--half tune|measure|all|none]
//!         the scope stage as it runs inside nl2sql_run (the names' embeddings stored in the
//!         database, the chat model's vote on a suspicion): every question of the unanswerable set
//!         and the answerable questions of Benchmark 2's raw results at 0.5.0 (spider_train 200,
//!         spider 100), whose correctness under the default and under zero-shot those results
//!         hold; refusals by kind, false refusals, and TrustSQL's reliability score. The scope
//!         stage runs before probing and verification, so the runs here switch those off: the
//!         refusal is the default's, at the cost of one generation per answered question (whose
//!         query is judged too, `scope::written`). `--half none`: the answerable questions alone.
//!     cargo run --release --example answerability -- statuses [--half tune|measure|all|dev|dev2|dev3|train2|train3|train4|train5|train6|train7|train8|train9|train10|train11|train12|train13] [--ids 1,2]
//!         the unanswerable questions under the full default (`nl2sql_run` with no options: probing,
//!         verification, repair, the second reading), each run's final status; TrustSQL's
//!         reliability score when every status but `error` and `unanswerable` hands SQL over (the
//!         default) and when only `ok` does (`nl2sql.answer_unverified = off`), the answerable side
//!         from Benchmark 2's default runs at 0.6.0 (`b2_{train,dev}_v060_time.jsonl`, their statuses).
//!
//!     cargo run --release --example answerability -- replay [FILE...]
//!         no model: three rules of the query written (`scope::written`: a column no table has,
//!         a stand-in, an asked thing answered with other columns) read on queries already
//!         recorded: the `ask` mode's
//!         files (each question's query written and the words it let through, default the tuning
//!         half's `answerability_ask_written_tune.jsonl`), and every gold query of `spider_train`
//!         and of the 13 `spider` databases, with the words the evidence mode found unlinked
//!         (`answerability_evidence.jsonl`), as if the model's vote had let them all through.
//!
//!     cargo run --release --example answerability -- own_value
//!         no model: the rule of a query that can only return the value it compares with
//!         (`scope::written::only_its_own_value`, then the data read as the pipeline reads it) on
//!         every gold query of both sets: a gold it would refuse is an answerable question refused.
//!
//!     cargo run --release --example answerability -- unplaced [FILE...]
//!         no model: the rule of a name whose kind links to nothing, compared with a column
//!         (`scope::written::unplaced_names`), on every gold query of both sets and every query in
//!         the given raw files (Benchmark 2's `sql`, Benchmark 10's statuses), each question with
//!         the words and names the evidence mode found unlinked and unmatched
//!         (`answerability_evidence_history.jsonl`), as if the model's vote had let them all
//!         through; each name it reads is then looked up as the pipeline does (held by a table the
//!         query reads, or a neighbour, in any case): a name held is not a gap. The same for the
//!         rule of a name the query writes only part of (`scope::written::partly_written_names`).
//!
//!     cargo run --release --example answerability -- patterns
//!         the lexicon's patterns of questions beyond the data on the 7,496 answerable questions
//!         of spider, spider_train and BIRD dev (each one matched printed) and on every
//!         unanswerable set, by kind; no database, no model
//!     cargo run --release --example answerability -- invented [FILE...]
//!         no model: which answers compare a value the question does not name
//!         (`scope::written::invented_values`, the rule that keeps such an answer from `ok`), and
//!         which compute with a number it does not give (`scope::written::invented_numbers`), and
//!         which return a year, a month or an age for a date asked (`scope::written::coarser_answers`),
//!         and which return, for "each" thing, a column of a table holding many rows per thing
//!         (`scope::written::many_per_each`), on
//!         the recorded answers of the given raw files (Benchmark 2's `full` rows, Benchmark 10's
//!         statuses) and on every gold query of both sets. The value index's matches are not
//!         recorded, so none is taken as grounded: an upper bound of what the rule reaches.
//!     cargo run --release --example answerability -- unwritten FILE...
//!         no model: the rule that keeps from `ok` an answer reading nothing for a word the scope
//!         stage let through on the vote (`scope::written::unwritten_words`), on the recorded runs
//!         of the given raw files that hold their steps (Benchmark 2's `full` rows, Benchmark 10's
//!         statuses since 535b6bf): the words are the scope step's, the query the chosen one. By
//!         file, status and rightness: the runs read, those with words let through, those the
//!         rule reaches (an `ok` it reaches would end `unverified`).
//!     cargo run --release --example answerability -- loose [FILE...]
//!         no chat model (the embedding server, each question's evidence gathered again): the same
//!         rule read with the loose words (a verb or adverb that links to nothing, a word linked
//!         only by meaning), and `assumed_scope`'s pair (a value, number or bound the question
//!         does not give, and a word the query reads nothing for), on every gold query of both
//!         sets (a gold reached is a right answer lost) and on the recorded runs of the given files.
//!     cargo run --release --example answerability -- named [FILE...]
//!         no chat model (the embedding server, each question's evidence gathered again, the data
//!         read as the superuser): `related_name_scope`'s rule (a proper name of the question
//!         written as a value the data holds nowhere, and a word that links to no name that the
//!         query reads nothing for) on every gold query of both sets and on the recorded runs of
//!         the given files.
//!     cargo run --release --example answerability -- stand_in [FILE...]
//!         no chat model (the embedding server, each question's evidence gathered again): two
//!         findings that refuse without a vote, on every gold query of both sets (a gold reached
//!         is a right answer lost) and on the recorded runs of the given files: an output named
//!         after a loose word no name of the schema holds, computed from what holds none of it
//!         (`scope::written::unnamed_stand_ins`, `stand_in_scope`), and an answer that is not
//!         clean reading nothing for two or more words the vote let through
//!         (`scope::written::unwritten_words`, `unread_scope`; on golds, which have no vote, the
//!         words that link to nothing, as if the vote had let every one through: an upper bound).
//!     cargo run --release --example answerability -- common [FILE...]
//!         no model (the data read as the superuser): `common_value_scope`'s rule (common words of
//!         the question written as a value of a column that stores a few categories, none of them
//!         it, and that no column near holds: `scope::written::common_words_as_values`) on every
//!         gold query of both sets (a gold reached is a right answer lost) and on the recorded runs
//!         of the given files; by how many categories the column stores, so the threshold is read
//!         off the tuning data.
//!
//! Raw per-question results go to `bench/results/answerability_<mode>.jsonl` (or `$NL2SQL_BENCH_OUT`).

use std::collections::BTreeMap;
use std::io::Write;

#[path = "spider.rs"]
mod spider;

use nl2sql_core::catalog::Catalog;
use nl2sql_core::llm::{client, CallPolicy, Endpoint};
use nl2sql_core::scope::{link, Evidence, Suspicion};
use serde_json::{json, Value};
use spider::connect;

fn data_dir() -> String {
    format!("{}/../shared/data", env!("CARGO_MANIFEST_DIR"))
}

fn load(path: &str) -> Vec<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))).expect("JSON")
}

/// The unanswerable set.
fn unanswerable() -> Vec<Value> {
    load(&format!("{}/bench/data/unanswerable_spider_train.json", env!("CARGO_MANIFEST_DIR")))
}

/// The held-out unanswerable sets, each written in one sitting before any run of it (see
/// `bench/data/README.md`): its `--half`, its file under `bench/data/`, and the prefix of its
/// databases as loaded. `dev`: 104 questions over the 13 `spider` dev databases, on which no rule
/// of refusal was read (forty-first session); `dev2`, `dev3`: 111 and 106 more over the same
/// databases, each written once the one before had been read; `train2`: 111 over the 54 `measure`
/// databases of `spider_train`, written once the three dev sets had been read; `train3`: 108 over
/// its 54 `tune` databases, written once the fourth had been read and that session's rules written;
/// `train4`: 108, one over each database of `spider_train`, written once all five had been read;
/// `train5`: 108 more, one over each, written once all six had been read; `train6`: 108 more, one
/// over each, written once all seven had been read; `train7`: 108 more, one over each, written once
/// all eight had been read; `train8`: 108 more, one over each, written once all nine had been read;
/// `train9`: 108 more, one over each, written once all ten had been read; `train10`: 108 more, one
/// over each, written once all eleven had been read; `train11`: 108 more, one over each, written once
/// all twelve had been read; `train12`: 108 more, one over each, written once all thirteen had been
/// read; `train13`: 108 more, one over each, written once all fourteen had been read.
const HELD_OUT: [(&str, &str, &str); 15] = [
    ("dev", "unanswerable_spider_dev.json", "spider_"),
    ("dev2", "unanswerable_spider_dev_2.json", "spider_"),
    ("dev3", "unanswerable_spider_dev_3.json", "spider_"),
    ("train2", "unanswerable_spider_train_2.json", "train_"),
    ("train3", "unanswerable_spider_train_3.json", "train_"),
    ("train4", "unanswerable_spider_train_4.json", "train_"),
    ("train5", "unanswerable_spider_train_5.json", "train_"),
    ("train6", "unanswerable_spider_train_6.json", "train_"),
    ("train7", "unanswerable_spider_train_7.json", "train_"),
    ("train8", "unanswerable_spider_train_8.json", "train_"),
    ("train9", "unanswerable_spider_train_9.json", "train_"),
    ("train10", "unanswerable_spider_train_10.json", "train_"),
    ("train11", "unanswerable_spider_train_11.json", "train_"),
    ("train12", "unanswerable_spider_train_12.json", "train_"),
    ("train13", "unanswerable_spider_train_13.json", "train_"),
];

/// Which half a database of the unanswerable set is in.
fn halves(set: &[Value]) -> BTreeMap<String, String> {
    set.iter().map(|q| (q["db_id"].as_str().unwrap().to_string(), q["split"].as_str().unwrap().to_string())).collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if na == 0.0 || nb == 0.0 { 0.0 } else { dot / (na * nb) }
}

/// A database's names and their embeddings, read once.
struct Schema {
    names: Vec<link::Name>,
    vectors: Vec<Vec<f32>>,
}

fn embed(texts: &[String]) -> Vec<Vec<f32>> {
    let endpoint = Endpoint {
        base_url: std::env::var("NL2SQL_EMBED_URL").unwrap_or_else(|_| "http://127.0.0.1:18082/v1".into()),
        model: "all-minilm-l6-v2".into(),
        api_key: None,
    };
    let mut out = Vec::new();
    for chunk in texts.chunks(64) {
        out.extend(client::embed(&endpoint, &CallPolicy::default(), chunk, &|| {}).expect("embedding server (scripts/llm.sh start)").vectors);
    }
    out
}

fn schema<'c>(db: &str, cache: &'c mut BTreeMap<String, Schema>) -> &'c Schema {
    if !cache.contains_key(db) {
        let names = link::names(&read_catalog(db));
        let texts: Vec<String> = names.iter().map(|n| link::name_text(&n.shown)).collect();
        let vectors = embed(&texts);
        cache.insert(db.to_string(), Schema { names, vectors });
    }
    &cache[db]
}

/// The stored values the value index matches in a question, as the pipeline's values stage
/// searches them (at most 8, 2 per column, score 0.5 or more).
fn value_hits(db: &str, question: &str) -> Vec<(String, String)> {
    let mut c = connect(db);
    c.query("SELECT table_name || '.' || column_name, value FROM nl2sql_search_values($1, 8, 2, 0.5)", &[&question])
        .map(|rows| rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        .unwrap_or_default()
}

fn evidence(db: &str, question: &str, s: &Schema, threshold: f32) -> Evidence {
    let words = nl2sql_core::scope::words::content_words(question);
    let texts: Vec<String> = words.iter().map(|w| w.text.clone()).collect();
    let vectors: BTreeMap<String, Vec<f32>> = if texts.is_empty() { BTreeMap::new() } else { texts.iter().cloned().zip(embed(&texts)).collect() };
    let mut nearest = |w: &str| -> Vec<(String, f32)> {
        let Some(v) = vectors.get(w) else { return vec![] };
        let mut scored: Vec<(String, f32)> = s.names.iter().zip(&s.vectors).map(|(n, e)| (n.shown.clone(), cosine(v, e))).collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(3);
        scored
    };
    Evidence::gather(question, &s.names, &value_hits(db, question), &mut nearest, threshold)
}

fn suspicion_name(s: &Option<Suspicion>) -> &'static str {
    match s {
        None => "none",
        Some(Suspicion::Beyond(..)) => "beyond",
        Some(Suspicion::Unrelated(_)) => "unrelated",
        Some(Suspicion::Missing(_)) => "missing",
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().cloned().unwrap_or_else(|| "evidence".into());
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let threshold: f32 = flag("--threshold").map(|t| t.parse().expect("a number")).unwrap_or(nl2sql_core::scope::MEANING_THRESHOLD);
    let list = args.iter().any(|a| a == "--list");
    let out_path = std::env::var("NL2SQL_BENCH_OUT")
        .unwrap_or_else(|_| format!("{}/bench/results/answerability_{mode}.jsonl", env!("CARGO_MANIFEST_DIR")));
    let mut out = std::fs::File::create(&out_path).expect("raw results file");
    match mode.as_str() {
        "evidence" => evidence_mode(threshold, list, &mut out),
        "ask" => ask_mode(flag("--half").unwrap_or_else(|| "all".into()), &mut out),
        "statuses" => statuses_mode(flag("--half").unwrap_or_else(|| "measure".into()), flag("--ids"), &mut out),
        "own_value" => own_value_mode(&mut out),
        "replay" => replay_mode(args.iter().skip(1).filter(|a| !a.starts_with("--")).cloned().collect(), &mut out),
        "unplaced" => unplaced_mode(args.iter().skip(1).filter(|a| !a.starts_with("--")).cloned().collect(), &mut out),
        "invented" => invented_mode(args.iter().skip(1).filter(|a| !a.starts_with("--")).cloned().collect(), &mut out),
        "patterns" => patterns_mode(&mut out),
        "unwritten" => unwritten_mode(args.iter().skip(1).filter(|a| !a.starts_with("--")).cloned().collect(), &mut out),
        "loose" => loose_mode(threshold, args.iter().skip(1).filter(|a| !a.starts_with("--")).cloned().collect(), &mut out),
        "named" => named_mode(threshold, args.iter().skip(1).filter(|a| !a.starts_with("--")).cloned().collect(), &mut out),
        "stand_in" => stand_in_mode(threshold, args.iter().skip(1).filter(|a| !a.starts_with("--")).cloned().collect(), &mut out),
        "common" => common_mode(args.iter().skip(1).filter(|a| !a.starts_with("--")).cloned().collect(), &mut out),
        other => panic!("unknown mode {other} (evidence, ask, statuses, own_value, replay, unplaced, invented, patterns, unwritten, loose, named, stand_in, common)"),
    }
    println!("raw results: {out_path}");
}

/// The evidence alone, on every question of the unanswerable set and every answerable question.
fn evidence_mode(threshold: f32, list: bool, out: &mut std::fs::File) {
    println!("Benchmark 10 (evidence): command: cargo run --release --example answerability -- evidence --threshold {threshold}");
    let set = unanswerable();
    let half = halves(&set);
    let mut cache = BTreeMap::new();
    // (population, half or kind) -> (suspected, total)
    let mut tally: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    let mut count = |pop: &str, group: &str, suspected: bool| {
        let e = tally.entry((pop.to_string(), group.to_string())).or_default();
        e.0 += suspected as usize;
        e.1 += 1;
    };
    for q in &set {
        let db = format!("train_{}", q["db_id"].as_str().unwrap().to_lowercase());
        let e = evidence(&db, q["question"].as_str().unwrap(), schema(&db, &mut cache), threshold);
        let s = e.suspicion();
        let suspected = s.is_some();
        let split = q["split"].as_str().unwrap();
        count(&format!("unanswerable/{split}"), q["kind"].as_str().unwrap(), suspected);
        count(&format!("unanswerable/{split}"), "all", suspected);
        if list && !suspected {
            println!("  missed [{}] {}: {}  {:?}", q["kind"].as_str().unwrap(), q["db_id"].as_str().unwrap(), q["question"].as_str().unwrap(), e.to_json()["links"]);
        }
        writeln!(out, "{}", json!({"set": "unanswerable", "id": q["id"], "db": db, "kind": q["kind"], "split": split,
            "question": q["question"], "suspicion": suspicion_name(&s), "evidence": e.to_json()})).unwrap();
    }
    for (set_name, prefix) in [("spider_train", "train_"), ("spider", "spider_")] {
        let questions = load(&format!("{}/{set_name}/questions.json", data_dir()));
        for q in &questions {
            let db_id = q["db_id"].as_str().unwrap();
            let db = format!("{prefix}{}", db_id.to_lowercase());
            let e = evidence(&db, q["question"].as_str().unwrap(), schema(&db, &mut cache), threshold);
            let s = e.suspicion();
            let group = if set_name == "spider" { "measure".to_string() } else { half.get(db_id).cloned().unwrap_or_else(|| "other".into()) };
            count(&format!("answerable/{set_name}"), &group, s.is_some());
            count(&format!("answerable/{set_name}"), &format!("as {}", suspicion_name(&s)), true);
            if list && s.is_some() && set_name == "spider_train" && group == "tune" {
                println!("  suspected [{}] {db_id}: {}  {:?}", suspicion_name(&s), q["question"].as_str().unwrap(), e.unlinked().iter().map(|l| (&l.word, &l.nearest)).collect::<Vec<_>>());
            }
            writeln!(out, "{}", json!({"set": set_name, "question_id": q["question_id"], "db": db, "split": group,
                "question": q["question"], "suspicion": suspicion_name(&s), "evidence": e.to_json()})).unwrap();
        }
    }
    println!("\n| population | group | suspected | of | share |\n|---|---|---|---|---|");
    for ((pop, group), (s, n)) in &tally {
        println!("| {pop} | {group} | {s} | {n} | {:.1}% |", 100.0 * *s as f64 / *n as f64);
    }
}

/// The scope stage's verdict inside nl2sql_run: (refused, kind, detail, model asked, seconds, the
/// query written). A run has a second `scope` step when the model's vote let unlinked words
/// through and the query it then wrote confirmed the suspicion (`scope::written`).
fn scope_of(db: &str, question: &str) -> (bool, Option<String>, String, bool, f64, Option<String>) {
    let mut c = connect(db);
    c.batch_execute("SET client_min_messages = warning").unwrap();
    let t = std::time::Instant::now();
    let options = r#"{"generators": ["direct"], "probe": false, "verify": false, "confirm": false}"#;
    let rows = c.query("SELECT stage, status, detail, data::text, sql FROM nl2sql_run($1, NULL, $2::text::jsonb) WHERE stage IN ('scope', 'generate') ORDER BY step", &[&question, &options]);
    let seconds = t.elapsed().as_secs_f64();
    match rows {
        Ok(rows) => {
            let written: Option<String> = rows.iter().filter(|r| r.get::<_, String>(0) == "generate").filter_map(|r| r.get::<_, Option<String>>(4)).last();
            let scope: Vec<_> = rows.iter().filter(|r| r.get::<_, String>(0) == "scope").collect();
            let Some(first) = scope.first() else { return (false, None, "no scope step".into(), false, seconds, written) };
            let data = |r: &postgres::Row| serde_json::from_str::<Value>(&r.get::<_, String>(3)).unwrap_or(Value::Null);
            let voted = data(first)["vote"].is_object();
            match scope.iter().find(|r| r.get::<_, String>(1) == "unanswerable") {
                Some(r) => (true, data(r)["kind"].as_str().map(str::to_string), r.get(2), voted, seconds, written),
                None => (false, None, first.get(2), voted, seconds, written),
            }
        }
        // a run that fails after the scope step (no query that runs) was not refused
        Err(e) => (false, None, format!("run failed after scope: {}", spider::server_error(&e)), false, seconds, None),
    }
}

/// TrustSQL's reliability score of per-question outcomes at penalty `c`: +1 an answerable
/// question answered right or an unanswerable one refused, 0 a refusal of an answerable
/// question (or no SQL at all), -c an answer that is wrong or given to an unanswerable question.
#[derive(Clone, Copy, PartialEq)]
enum Outcome {
    Right,
    Abstained,
    Wrong,
}

fn reliability(outcomes: &[Outcome], c: f64) -> f64 {
    let s: f64 = outcomes.iter().map(|o| match o { Outcome::Right => 1.0, Outcome::Abstained => 0.0, Outcome::Wrong => -c }).sum();
    100.0 * s / outcomes.len().max(1) as f64
}

fn ask_mode(half: String, out: &mut std::fs::File) {
    assert!(["tune", "measure", "all", "none"].contains(&half.as_str()), "--half is tune, measure, all or none (the answerable questions alone), not {half}");
    println!("Benchmark 10 (ask): command: cargo run --release --example answerability -- ask --half {half}");
    let set = unanswerable();
    // unanswerable: (half, kind) -> (refused, total)
    let mut tally: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    let mut unans_refused: BTreeMap<String, Vec<bool>> = BTreeMap::new();
    let (mut seconds, mut asked) = (Vec::new(), 0usize);
    // the answerable questions of Benchmark 2 at 0.5.0, with the default's and zero-shot's
    // outcomes; every one is run (the query written is judged for any English question, whether
    // its evidence raised a suspicion or not)
    let mut answerable: BTreeMap<String, Vec<(Outcome, Outcome, Outcome)>> = BTreeMap::new(); // (zero_shot, default no refusal, default)
    let mut false_refusals: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new(); // (refused, of which default right, total)
    for (set_name, file, prefix) in [("spider_train", "b2_train_v050.jsonl", "train_"), ("spider", "b2_dev_v050.jsonl", "spider_")] {
        let path = format!("{}/bench/results/{file}", env!("CARGO_MANIFEST_DIR"));
        let mut by_question: BTreeMap<String, (Option<Value>, Option<Value>)> = BTreeMap::new();
        for line in std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")).lines() {
            let r: Value = serde_json::from_str(line).expect("JSON line");
            let k = format!("{}|{}", r["db"].as_str().unwrap(), r["question_id"]);
            let e = by_question.entry(k).or_default();
            match r["config"].as_str() {
                Some("zero_shot") => e.0 = Some(r),
                Some("full") => e.1 = Some(r),
                _ => {}
            }
        }
        let outcome = |r: &Value| {
            if r["strict"] == json!(true) {
                Outcome::Right
            } else if r["status"] == json!("error") || r["sql"].is_null() {
                Outcome::Abstained
            } else {
                Outcome::Wrong
            }
        };
        for (_, (zero, full)) in by_question {
            let (Some(zero), Some(full)) = (zero, full) else { continue };
            let db = format!("{prefix}{}", full["db"].as_str().unwrap().to_lowercase());
            let (refused, kind, detail, voted, secs, written) = scope_of(&db, full["question"].as_str().unwrap());
            seconds.push(secs);
            asked += voted as usize;
            let d = outcome(&full);
            let e = false_refusals.entry(set_name.to_string()).or_default();
            e.0 += refused as usize;
            e.1 += (refused && d == Outcome::Right) as usize;
            e.2 += 1;
            answerable.entry(set_name.to_string()).or_default().push((outcome(&zero), d, if refused { Outcome::Abstained } else { d }));
            if refused {
                println!("  refused [{set_name}] {db}: {}  ({detail})", full["question"].as_str().unwrap());
            }
            writeln!(out, "{}", json!({"set": set_name, "question_id": full["question_id"], "db": db, "question": full["question"],
                "refused": refused, "refused_as": kind, "detail": detail, "model_asked": voted, "seconds": secs,
                "default_right": d == Outcome::Right, "written": written})).unwrap();
        }
    }
    println!("\n| answerable | refused | of which the default was right | of | share refused |\n|---|---|---|---|---|");
    for (set_name, (r, right, n)) in &false_refusals {
        println!("| {set_name} | {r} | {right} | {n} | {:.1}% |", 100.0 * *r as f64 / *n as f64);
    }
    for q in set.iter().filter(|q| half == "all" || q["split"].as_str() == Some(half.as_str())) {
        let db = format!("train_{}", q["db_id"].as_str().unwrap().to_lowercase());
        let (refused, kind, detail, voted, secs, written) = scope_of(&db, q["question"].as_str().unwrap());
        seconds.push(secs);
        asked += voted as usize;
        let split = q["split"].as_str().unwrap().to_string();
        for k in [q["kind"].as_str().unwrap(), "all"] {
            let e = tally.entry((split.clone(), k.to_string())).or_default();
            e.0 += refused as usize;
            e.1 += 1;
        }
        unans_refused.entry(split.clone()).or_default().push(refused);
        writeln!(out, "{}", json!({"set": "unanswerable", "id": q["id"], "db": db, "kind": q["kind"], "split": split,
            "question": q["question"], "refused": refused, "refused_as": kind, "detail": detail, "model_asked": voted, "seconds": secs,
            "written": written})).unwrap();
    }
    println!("\n| unanswerable | kind | refused | of | share |\n|---|---|---|---|---|");
    for ((split, kind), (r, n)) in &tally {
        println!("| {split} | {kind} | {r} | {n} | {:.1}% |", 100.0 * *r as f64 / *n as f64);
    }
    // the reliability score on each answerable set mixed with the unanswerable questions of the
    // measured half (or all of them): zero-shot and the default without refusal answer every
    // unanswerable question (counted as wrong answers), the default refuses as measured
    let unans: Vec<bool> = unans_refused.iter().filter(|(h, _)| half != "all" || h.as_str() == "measure").flat_map(|(_, v)| v.clone()).collect();
    println!("\nTrustSQL reliability score (RS, in points) on each answerable set with the {} unanswerable questions of the measured half:", unans.len());
    println!("| answerable set | configuration | RS(0) | RS(1) | RS(10) | RS(N) |\n|---|---|---|---|---|---|");
    for (set_name, rows) in &answerable {
        let n = (rows.len() + unans.len()) as f64;
        for (name, pick) in [("zero-shot", 0usize), ("default, refusal off", 1), ("default", 2)] {
            let mut outcomes: Vec<Outcome> = rows.iter().map(|r| [r.0, r.1, r.2][pick]).collect();
            outcomes.extend(unans.iter().map(|refused| if pick == 2 && *refused { Outcome::Right } else { Outcome::Wrong }));
            println!("| {set_name} | {name} | {:.1} | {:.1} | {:.1} | {:.1} |", reliability(&outcomes, 0.0), reliability(&outcomes, 1.0), reliability(&outcomes, 10.0), reliability(&outcomes, n));
        }
    }
    let n = seconds.len();
    println!("\nthe chat model was asked on {asked} of {n} questions (a vote on the words that link to nothing); median run {:.1} s", spider::pct(&mut seconds, 0.5));
}

/// The unanswerable questions of a half under the full default, and the reliability score of the
/// two answering policies (every status that holds SQL, or only `ok`).
fn statuses_mode(half: String, ids: Option<String>, out: &mut std::fs::File) {
    let held_out = HELD_OUT.iter().find(|(name, _, _)| *name == half);
    assert!(held_out.is_some() || ["tune", "measure", "all"].contains(&half.as_str()), "--half is tune, measure, all or one of the held-out sets ({}), not {half}", HELD_OUT.map(|(name, _, _)| name).join(", "));
    // `--ids 12,40`: only those questions of the half (the ones a change can reach, run again to
    // be spliced into a whole run; the summary below is then of these alone)
    let ids: Option<Vec<u64>> = ids.map(|l| l.split(',').map(|i| i.trim().parse().expect("--ids is a comma-separated list of question ids")).collect());
    let with_ids = ids.as_ref().map(|l| format!(" --ids {}", l.iter().map(u64::to_string).collect::<Vec<_>>().join(","))).unwrap_or_default();
    println!("Benchmark 10 (statuses): command: cargo run --release --example answerability -- statuses --half {half}{with_ids}");
    let mut unans: Vec<String> = Vec::new();
    let mut seconds = Vec::new();
    let chosen = |q: &&Value| ids.as_ref().is_none_or(|l| q["id"].as_u64().is_some_and(|i| l.contains(&i)));
    // a held-out set (`HELD_OUT`), or a half of the first train set
    let (set, prefix) = match held_out {
        Some((_, file, prefix)) => (load(&format!("{}/bench/data/{file}", env!("CARGO_MANIFEST_DIR"))), *prefix),
        None => (unanswerable(), "train_"),
    };
    for q in set.iter().filter(|q| half == "all" || q["split"].as_str() == Some(half.as_str())).filter(chosen) {
        let db = format!("{prefix}{}", q["db_id"].as_str().unwrap().to_lowercase());
        let question = q["question"].as_str().unwrap();
        let mut c = connect(&db);
        c.batch_execute("SET client_min_messages = warning").unwrap();
        let t = std::time::Instant::now();
        // every step of the run, so that a later rule can be read against what the run saw (the
        // scope stage's words, the query chosen) without running it again
        let rows = c.query("SELECT stage, status, detail, sql FROM nl2sql_run($1)", &[&question]);
        let secs = t.elapsed().as_secs_f64();
        seconds.push(secs);
        let (status, detail, sql, steps) = match rows {
            Ok(rows) => {
                let steps: Vec<Value> = rows.iter().map(|r| json!([r.get::<_, String>(0), r.get::<_, String>(1), r.get::<_, String>(2), r.get::<_, Option<String>>(3)])).collect();
                match rows.iter().rfind(|r| r.get::<_, String>(0) == "chosen") {
                    Some(r) => (r.get::<_, String>(1), r.get::<_, String>(2), r.get::<_, Option<String>>(3), steps),
                    None => ("none".to_string(), "no chosen step".to_string(), None, steps),
                }
            }
            Err(e) => ("failed".to_string(), spider::server_error(&e), None, Vec::new()),
        };
        println!("  [{}] {status}: {question}", q["kind"].as_str().unwrap());
        writeln!(out, "{}", json!({"set": "unanswerable", "id": q["id"], "db": db, "kind": q["kind"], "split": q["split"],
            "question": question, "status": status, "detail": detail, "sql": sql, "seconds": secs, "steps": steps})).unwrap();
        unans.push(status);
    }
    let mut by_status: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &unans {
        *by_status.entry(s.as_str()).or_default() += 1;
    }
    println!("\n| unanswerable ({half}) | status | questions |\n|---|---|---|");
    for (s, n) in &by_status {
        println!("| | {s} | {n} |");
    }
    // an unanswerable question given SQL is a wrong answer; given none (refused, or no query that
    // runs) it is abstained from rightly
    let holds_sql = |s: &str, only_ok: bool| if only_ok { s == "ok" } else { ["ok", "unverified", "ambiguous"].contains(&s) };
    println!("\nTrustSQL reliability score (RS, points): the answerable set's default runs with the {} unanswerable questions above", unans.len());
    println!("| answerable set | policy | right (answers, and no SQL for the unanswerable) | wrong (answers, and SQL for the unanswerable) | no SQL for the answerable | RS(0) | RS(10) | RS(N) |\n|---|---|---|---|---|---|---|---|");
    for (set_name, file) in [("spider_train", "b2_train_v060_time.jsonl"), ("spider", "b2_dev_v060_time.jsonl")] {
        let path = format!("{}/bench/results/{file}", env!("CARGO_MANIFEST_DIR"));
        let answerable: Vec<(String, bool)> = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{path}: {e}"))
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("JSON line"))
            .filter(|r| r["config"] == json!("full"))
            .map(|r| (r["status"].as_str().unwrap_or("none").to_string(), r["strict"] == json!(true)))
            .collect();
        for (policy, only_ok) in [("every status with SQL (default)", false), ("only ok (answer_unverified off)", true)] {
            let mut outcomes: Vec<Outcome> = answerable
                .iter()
                .map(|(s, right)| if !holds_sql(s, only_ok) { Outcome::Abstained } else if *right { Outcome::Right } else { Outcome::Wrong })
                .collect();
            outcomes.extend(unans.iter().map(|s| if holds_sql(s, only_ok) { Outcome::Wrong } else { Outcome::Right }));
            let n = outcomes.len() as f64;
            let count = |o: Outcome| outcomes.iter().filter(|x| **x == o).count();
            println!(
                "| {set_name} | {policy} | {} | {} | {} | {:.1} | {:.1} | {:.1} |",
                count(Outcome::Right),
                count(Outcome::Wrong),
                count(Outcome::Abstained),
                reliability(&outcomes, 0.0),
                reliability(&outcomes, 10.0),
                reliability(&outcomes, n)
            );
        }
    }
    println!("\nmedian run {:.1} s", spider::pct(&mut seconds, 0.5));
}

/// A database's catalog as the extension reads it (`nl2sql_schema()`).
fn read_catalog(db: &str) -> Catalog {
    let text: String = connect(db).query_one("SELECT nl2sql_schema()::text", &[]).expect("nl2sql_schema").get(0);
    serde_json::from_str(&text).expect("catalog")
}

/// A database's catalog, read once.
fn catalog<'c>(db: &str, cache: &'c mut BTreeMap<String, Catalog>) -> &'c Catalog {
    cache.entry(db.to_string()).or_insert_with(|| read_catalog(db))
}

/// The words a detail of the scope step says were let through ("\"a\", \"b\" link to nothing, but ...").
fn let_through(detail: &str) -> Vec<String> {
    let Some((words, _)) = detail.split_once(" link to nothing, but the model reads them") else { return Vec::new() };
    words.split(", ").map(|w| w.trim_matches('"').to_string()).filter(|w| !w.is_empty()).collect()
}

/// The database a recorded run of `set` was asked of, as loaded (`train_<db>`, `spider_<db>`).
fn loaded_db(set: &str, db: &str) -> String {
    let db = db.to_lowercase();
    match set {
        "spider_train" if !db.starts_with("train_") => format!("train_{db}"),
        "spider" if !db.starts_with("spider_") => format!("spider_{db}"),
        _ => db,
    }
}

/// One recorded default run of a raw file (Benchmark 2's `full` rows, Benchmark 10's statuses).
struct Recorded {
    /// The file's name.
    file: String,
    /// The database as loaded (`train_<db>`, `spider_<db>`).
    db: String,
    question: String,
    /// The SQL handed over or refused, if the run wrote one.
    sql: Option<String>,
    status: String,
    /// `right`, `wrong` (strict, against the gold), `unanswerable` (Benchmark 10), or `-`.
    right: String,
    /// The words the scope step let through on the vote.
    let_through: Vec<String>,
}

/// The default runs recorded in `files`, in order.
fn recorded(files: &[String]) -> Vec<Recorded> {
    let mut runs = Vec::new();
    for file in files {
        let name = file.rsplit('/').next().unwrap_or(file).to_string();
        for line in std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}")).lines() {
            let Ok(r) = serde_json::from_str::<Value>(line) else { continue };
            if r.get("config").is_some_and(|c| c != "full") {
                continue;
            }
            let (Some(question), Some(set)) = (r["question"].as_str(), r["set"].as_str()) else { continue };
            let right = match (set, r["strict"].as_bool()) {
                ("unanswerable", _) => "unanswerable",
                (_, Some(true)) => "right",
                (_, Some(false)) => "wrong",
                _ => "-",
            };
            runs.push(Recorded {
                file: name.clone(),
                db: loaded_db(set, r["db"].as_str().unwrap_or_default()),
                question: question.to_string(),
                sql: r["sql"].as_str().map(str::to_string),
                status: r["status"].as_str().unwrap_or("-").to_string(),
                right: right.to_string(),
                let_through: r["steps"].as_array().into_iter().flatten().filter(|s| s[0] == "scope").flat_map(|s| let_through(s[2].as_str().unwrap_or_default())).collect(),
            });
        }
    }
    runs
}

/// Every gold query of `spider_train` and of the 13 `spider` databases, as right answers, then
/// the recorded runs of `files` that wrote SQL.
fn golds_and_recorded(files: &[String]) -> Vec<Recorded> {
    let mut runs: Vec<Recorded> = Vec::new();
    for (set_name, prefix) in [("spider_train", "train_"), ("spider", "spider_")] {
        for q in load(&format!("{}/{set_name}/questions.json", data_dir())) {
            runs.push(Recorded {
                file: format!("gold {set_name}"),
                db: format!("{prefix}{}", q["db_id"].as_str().unwrap().to_lowercase()),
                question: q["question"].as_str().unwrap().to_string(),
                sql: Some(q["gold_pg"].as_str().unwrap_or_default().to_string()),
                status: "gold".into(),
                right: "right".into(),
                let_through: Vec::new(),
            });
        }
    }
    runs.extend(recorded(files).into_iter().filter(|r| r.sql.is_some()));
    runs
}

/// Each gold query of both sets and each recorded run of `files` with SQL ([`golds_and_recorded`]),
/// counted as a run of its (source, status, right) in `tally` (`[0]`); each whose SQL parses is
/// handed to `visit` with its query, what `read` takes of the question's evidence (gathered once
/// per question: the embedding server) and its database's catalog, and its row of `tally`.
fn replay<T: Clone, const N: usize>(
    threshold: f32,
    files: &[String],
    tally: &mut BTreeMap<(String, String, String), [usize; N]>,
    read: impl Fn(&Recorded, Evidence) -> T,
    mut visit: impl FnMut(&Recorded, &sqlparser::ast::Query, T, &Catalog, &mut [usize; N]),
) {
    let mut schemas = BTreeMap::new();
    let mut catalogs = BTreeMap::new();
    let mut taken: BTreeMap<(String, String), T> = BTreeMap::new();
    for run in golds_and_recorded(files) {
        let row = tally.entry((run.file.clone(), run.status.clone(), run.right.clone())).or_insert([0; N]);
        row[0] += 1;
        let Ok(checked) = nl2sql_core::sql::check_query(run.sql.as_deref().unwrap_or_default()) else { continue };
        let t = taken
            .entry((run.db.clone(), run.question.clone()))
            .or_insert_with(|| read(&run, evidence(&run.db, &run.question, schema(&run.db, &mut schemas), threshold)))
            .clone();
        visit(&run, &checked.query, t, catalog(&run.db, &mut catalogs), row);
    }
}

/// The `named` mode: the rule of a proper name of the question written as a value the data holds
/// nowhere while the query reads nothing for a word that links to no name (`related_name_scope`:
/// [`names_as_values`], [`unwritten_words`] over the verbs and adverbs that link to nothing, less
/// the forms of relation verbs, and the words let through on the vote, then the data read as the
/// pipeline reads it, as the superuser), each question's evidence gathered again (the embedding
/// server, no chat model), on every gold query of both sets (a gold reached is a right answer
/// lost) and on the recorded runs of the given files.
///
/// [`names_as_values`]: nl2sql_core::scope::written::names_as_values
/// [`unwritten_words`]: nl2sql_core::scope::written::unwritten_words
fn named_mode(threshold: f32, files: Vec<String>, out: &mut std::fs::File) {
    use nl2sql_core::scope::written::{decisive, names_as_values, unrelating, unwritten_words};
    println!("Benchmark 10 (named): command: cargo run --release --example answerability -- named {}", files.join(" "));
    // (source, status, right) -> [runs, with a name no stored value holds, with a word unwritten
    // too, reached]
    let mut tally: BTreeMap<(String, String, String), [usize; 4]> = BTreeMap::new();
    let read = |_: &Recorded, ev: Evidence| (ev.soft(), ev.unmatched_names.clone());
    replay(threshold, &files, &mut tally, read, |run, query, (soft, names), catalog, e| {
        let Recorded { file: source, db, question, sql, status, right, let_through: through } = run;
        if names.is_empty() {
            return;
        }
        e[1] += 1;
        let mut words = unrelating(&soft);
        words.extend(through.iter().filter(|w| !names.contains(w)).cloned());
        let left = unwritten_words(query, catalog, question, &words);
        let compared = names_as_values(query, catalog, &names);
        if left.is_empty() || compared.is_empty() {
            return;
        }
        e[2] += 1;
        let mut c = connect(db);
        let nowhere = nowhere_each(&mut c, &compared, query, catalog);
        let Some(decided) = decisive(&compared, &nowhere) else { return };
        e[3] += 1;
        let sql = sql.as_deref().unwrap_or_default();
        println!("  [{source} {status} {right}] {question}  names {names:?}, unwritten {left:?}, compares {}.{} with '{}'  ({sql})", decided.literal.rel.name, decided.literal.column, decided.literal.value);
        writeln!(out, "{}", json!({"source": source, "db": db, "question": question, "sql": sql, "status": status, "right": right, "names": names, "unwritten": left, "value": decided.literal.value})).unwrap();
    });
    println!("\n| source | status | right | runs | a name no stored value holds | and a word unwritten | reached |\n|---|---|---|---|---|---|---|");
    for ((source, status, right), [n, named, both, reached]) in &tally {
        println!("| {source} | {status} | {right} | {n} | {named} | {both} | {reached} |");
    }
}

/// The `stand_in` mode (see the module's documentation): an output named after a loose word no
/// name holds (`stand_in_scope`), and two or more words let through that the query reads nothing
/// for in an answer that is not clean (`unread_scope`), on golds and recorded runs.
fn stand_in_mode(threshold: f32, files: Vec<String>, out: &mut std::fs::File) {
    use nl2sql_core::scope::written::{unnamed_stand_ins, unwritten_words};
    println!("Benchmark 10 (stand_in): command: cargo run --release --example answerability -- stand_in {}", files.join(" "));
    // (source, status, right) -> [runs, a stand-in, two or more let-through words unwritten (golds:
    // unlinked words, an upper bound), the same and not `ok`]
    let mut tally: BTreeMap<(String, String, String), [usize; 4]> = BTreeMap::new();
    let read = |_: &Recorded, ev: Evidence| -> (Vec<String>, Vec<String>) { (ev.loose(), ev.unlinked().iter().map(|l| l.word.clone()).collect()) };
    replay(threshold, &files, &mut tally, read, |run, query, (loose, unlinked), catalog, e| {
        let Recorded { file: source, db, question, sql, status, right, let_through: through } = run;
        let stand_ins = unnamed_stand_ins(query, catalog, &loose);
        let words = if status == "gold" { &unlinked } else { through };
        let left = if words.len() < 2 { Vec::new() } else { unwritten_words(query, catalog, question, words) };
        let unread = left.len() >= 2;
        e[1] += !stand_ins.is_empty() as usize;
        e[2] += unread as usize;
        e[3] += (unread && status != "ok") as usize;
        if !stand_ins.is_empty() || unread {
            let sql = sql.as_deref().unwrap_or_default();
            println!("  [{source} {status} {right}] {question}  stand-ins {stand_ins:?}, unwritten {left:?}  ({sql})");
            writeln!(out, "{}", json!({"source": source, "db": db, "question": question, "sql": sql, "status": status, "right": right, "stand_ins": stand_ins, "unwritten": left})).unwrap();
        }
    });
    println!("\n| source | status | right | runs | a stand-in | two or more words unwritten | and not ok |\n|---|---|---|---|---|---|---|");
    for ((source, status, right), [n, st, un, nok]) in &tally {
        println!("| {source} | {status} | {right} | {n} | {st} | {un} | {nok} |");
    }
}

/// The `common` mode (see the module's documentation): common words of the question written as
/// a category the column does not hold (`common_value_scope`), on golds and recorded runs, the
/// data read as the pipeline reads it (as the superuser here). Reached at each count of the
/// categories the column stores (at most 12, the pipeline's threshold; more, reported apart).
fn common_mode(files: Vec<String>, out: &mut std::fs::File) {
    use nl2sql_core::checks::literals::few_values_sql;
    use nl2sql_core::scope::written::{common_words_as_values, decisive};
    println!("Benchmark 10 (common): command: cargo run --release --example answerability -- common {}", files.join(" "));
    // (source, status, right) -> [runs, common words as a value, nowhere in the data, and at most
    // 12 categories stored (reached), more than 12]
    let mut tally: BTreeMap<(String, String, String), [usize; 5]> = BTreeMap::new();
    let mut catalogs = BTreeMap::new();
    for run in golds_and_recorded(&files) {
        let Recorded { file: source, db, question, sql, status, right, .. } = &run;
        let e = tally.entry((source.clone(), status.clone(), right.clone())).or_insert([0; 5]);
        e[0] += 1;
        let Ok(checked) = nl2sql_core::sql::check_query(sql.as_deref().unwrap_or_default()) else { continue };
        let schema = catalog(db, &mut catalogs);
        let compared = common_words_as_values(&checked.query, schema, question);
        if compared.is_empty() {
            continue;
        }
        e[1] += 1;
        let mut c = connect(db);
        let nowhere = nowhere_each(&mut c, &compared, &checked.query, schema);
        let Some(decided) = decisive(&compared, &nowhere) else { continue };
        e[2] += 1;
        let stored: Vec<String> = c.query(&few_values_sql(&decided.literal, 13), &[]).map(|rows| rows.iter().map(|r| r.get::<_, Option<String>>(0).unwrap_or_default()).collect()).unwrap_or_default();
        let reached = !stored.is_empty() && stored.len() <= 12;
        e[3] += reached as usize;
        e[4] += (stored.len() > 12) as usize;
        let sql = sql.as_deref().unwrap_or_default();
        println!("  [{source} {status} {right}] {question}  {}.{} = '{}', stored {:?}{}  ({sql})", decided.literal.rel.name, decided.literal.column, decided.literal.value, stored, if reached { " REACHED" } else { "" });
        writeln!(out, "{}", json!({"source": source, "db": db, "question": question, "sql": sql, "status": status, "right": right, "column": format!("{}.{}", decided.literal.rel, decided.literal.column), "value": decided.literal.value, "stored": stored, "reached": reached})).unwrap();
    }
    println!("\n| source | status | right | runs | common words as a value | nowhere in the data | at most 12 categories (reached) | more than 12 |\n|---|---|---|---|---|---|---|---|");
    for ((source, status, right), [n, common, nowhere, reached, more]) in &tally {
        println!("| {source} | {status} | {right} | {n} | {common} | {nowhere} | {reached} | {more} |");
    }
}

/// Whether each compared value is nowhere in the data ([`stored_and_held`]: no stored variant, no
/// column near holds it), in order, as `scope::written::decisive` takes them.
fn nowhere_each(c: &mut postgres::Client, compared: &[nl2sql_core::scope::written::OwnValue], query: &sqlparser::ast::Query, catalog: &Catalog) -> Vec<bool> {
    compared
        .iter()
        .map(|v| {
            let (stored, held) = stored_and_held(c, &v.literal, query, catalog);
            stored == 0 && !held
        })
        .collect()
}

/// How the pipeline reads whether a compared value is anywhere (`ask::scope`'s `nowhere_in_data`),
/// here as the superuser: the rows of the column's stored variants of it (at most one; a read that
/// fails counts as one), and whether a text column of the tables the query reads, or of their
/// neighbours, holds its core (a read that fails counts as held).
fn stored_and_held(c: &mut postgres::Client, literal: &nl2sql_core::checks::literals::Literal, query: &sqlparser::ast::Query, catalog: &Catalog) -> (usize, bool) {
    use nl2sql_core::checks::literals::{holders_sql, stored_variants_sql};
    let stored = c.query(&stored_variants_sql(literal), &[]).map(|r| r.len()).unwrap_or(1);
    let held = holders_sql(std::slice::from_ref(&literal.core()), query, catalog)
        .iter()
        .any(|h| c.query(h.as_str(), &[]).map(|r| r.first().is_none_or(|row| row.get::<_, Option<bool>>(0) == Some(true))).unwrap_or(true));
    (stored, held)
}

/// The `unwritten` mode: which recorded runs with words let through on the vote the rule of an
/// answer reading nothing for them reaches (see the module's documentation).
fn unwritten_mode(files: Vec<String>, out: &mut std::fs::File) {
    println!("Benchmark 10 (unwritten): command: cargo run --release --example answerability -- unwritten {}", files.join(" "));
    let mut cache = BTreeMap::new();
    // (file, status, right) -> [runs, with words let through, reached]
    let mut tally: BTreeMap<(String, String, String), [usize; 3]> = BTreeMap::new();
    for Recorded { file: name, db, question, sql, status, right, let_through: words } in recorded(&files) {
        let e = tally.entry((name.clone(), status.clone(), right.clone())).or_default();
        e[0] += 1;
        let Some(sql) = sql else { continue };
        if words.is_empty() {
            continue;
        }
        e[1] += 1;
        let Ok(checked) = nl2sql_core::sql::check_query(&sql) else { continue };
        let left = nl2sql_core::scope::written::unwritten_words(&checked.query, catalog(&db, &mut cache), &question, &words);
        if left.is_empty() {
            continue;
        }
        e[2] += 1;
        println!("  [{name} {status} {right}] {question}  let through {words:?}, unwritten {left:?}  ({sql})");
        writeln!(out, "{}", json!({"file": name, "db": db, "question": question, "sql": sql, "status": status, "right": right, "let_through": words, "unwritten": left})).unwrap();
    }
    println!("\n| file | status | right | runs | words let through | reached |\n|---|---|---|---|---|---|");
    for ((file, status, right), [n, through, reached]) in &tally {
        println!("| {file} | {status} | {right} | {n} | {through} | {reached} |");
    }
}

/// The `loose` mode: the rule of an answer reading nothing for a word ([`unwritten_words`]) read
/// with the words the scope stage lets through without a vote, each question's evidence gathered
/// again (the embedding server, no chat model): verbs and adverbs that link to nothing (`soft`) and
/// words linked only by meaning (`meaning`). On every gold query of `spider_train` and of the 13
/// `spider` databases (a gold it reaches is a right answer it would keep from `ok`) and on the
/// recorded runs of the given files (Benchmark 2's, Benchmark 10's statuses).
///
/// [`unwritten_words`]: nl2sql_core::scope::written::unwritten_words
fn loose_mode(threshold: f32, files: Vec<String>, out: &mut std::fs::File) {
    use nl2sql_core::scope::link::LinkedBy;
    println!("Benchmark 10 (loose): command: cargo run --release --example answerability -- loose {}", files.join(" "));
    // (source, status, right) -> [runs, with soft words, reached by them, with meaning words,
    // reached by them, a value, number or bound the question does not give, that and a word
    // (soft, by meaning or let through on the vote) the query writes nothing for, a short value
    // of a column the question names nothing of and no other, that and a word let through
    // unwritten, that and a word let through or unlinked unwritten]
    let mut tally: BTreeMap<(String, String, String), [usize; 10]> = BTreeMap::new();
    // of each question: its soft words, its words linked by meaning, the value index's matches,
    // its words that link to nothing
    let read = |run: &Recorded, ev: Evidence| {
        let soft: Vec<String> = ev.links.iter().filter(|l| l.to.is_none() && l.soft).map(|l| l.word.clone()).collect();
        let meaning: Vec<String> = ev.links.iter().filter(|l| matches!(&l.to, Some((_, LinkedBy::Meaning)))).map(|l| l.word.clone()).collect();
        let unlinked: Vec<String> = ev.unlinked().iter().map(|l| l.word.clone()).collect();
        (soft, meaning, value_hits(&run.db, &run.question), unlinked)
    };
    replay(threshold, &files, &mut tally, read, |run, query, (soft, meaning, hits, unlinked), catalog, e| {
        let Recorded { file: source, db, question, sql, status, right, let_through: through } = run;
        let (question, sql) = (question.as_str(), sql.as_deref().unwrap_or_default());
        let left_soft = if soft.is_empty() { Vec::new() } else { nl2sql_core::scope::written::unwritten_words(query, catalog, question, &soft) };
        let left_meaning = if meaning.is_empty() { Vec::new() } else { nl2sql_core::scope::written::unwritten_words(query, catalog, question, &meaning) };
        let left_through = if through.is_empty() { Vec::new() } else { nl2sql_core::scope::written::unwritten_words(query, catalog, question, through) };
        let assumed: Vec<String> = nl2sql_core::scope::written::invented_values(query, catalog, question, &hits)
            .into_iter()
            .chain(nl2sql_core::scope::written::invented_numbers(query, question, &[]))
            .chain(nl2sql_core::scope::written::assumed_thresholds(query, question, &[]))
            .map(|(a, b)| format!("{a} {b}"))
            .collect();
        let both = !assumed.is_empty() && !(left_soft.is_empty() && left_meaning.is_empty() && left_through.is_empty());
        // with no such value, a short one of a column the question names nothing of, beside a
        // word let through on the vote (`assumed_scope`)
        let weak: Vec<String> =
            if assumed.is_empty() { nl2sql_core::scope::written::weak_values(query, catalog, question).into_iter().map(|(c, _)| c).collect() } else { Vec::new() };
        let weak_pair = !weak.is_empty() && !left_through.is_empty();
        // the same with the words that link to nothing and are no verb or adverb, as if the vote
        // had let every one through (golds have no vote): an upper bound
        let left_unlinked = if weak.is_empty() || unlinked.is_empty() { Vec::new() } else { nl2sql_core::scope::written::unwritten_words(query, catalog, question, &unlinked) };
        let weak_if_voted = !weak.is_empty() && !(left_through.is_empty() && left_unlinked.is_empty());
        e[1] += !soft.is_empty() as usize;
        e[2] += !left_soft.is_empty() as usize;
        e[3] += !meaning.is_empty() as usize;
        e[4] += !left_meaning.is_empty() as usize;
        e[5] += !assumed.is_empty() as usize;
        e[6] += both as usize;
        e[7] += !weak.is_empty() as usize;
        e[8] += weak_pair as usize;
        e[9] += weak_if_voted as usize;
        if !left_soft.is_empty() || !left_meaning.is_empty() || !left_through.is_empty() || !assumed.is_empty() || !weak.is_empty() {
            let pair = if both { " BOTH" } else if weak_pair { " WEAK PAIR" } else if weak_if_voted { " WEAK IF VOTED" } else { "" };
            println!("  [{source} {status} {right}]{pair} {question}  soft unwritten {left_soft:?}, meaning unwritten {left_meaning:?}, let through unwritten {left_through:?}, assumed {assumed:?}, weak {weak:?}  ({sql})");
            writeln!(out, "{}", json!({"source": source, "db": db, "question": question, "sql": sql, "status": status, "right": right,
                "soft": soft, "soft_unwritten": left_soft, "meaning": meaning, "meaning_unwritten": left_meaning, "let_through_unwritten": left_through, "assumed": assumed, "both": both,
                "weak": weak, "weak_pair": weak_pair, "unlinked_unwritten": left_unlinked, "weak_if_voted": weak_if_voted})).unwrap();
        }
    });
    println!("\n| source | status | right | runs | soft words | reached | meaning words | reached | assumed | assumed and a word unwritten | weak | weak and a word let through unwritten | the same as if the vote let every unlinked word through |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for ((source, status, right), [n, s, rs, m, rm, a, both, w, wp, wv]) in &tally {
        println!("| {source} | {status} | {right} | {n} | {s} | {rs} | {m} | {rm} | {a} | {both} | {w} | {wp} | {wv} |");
    }
}

/// What three rules of the query written say of one query: a missing column, a stand-in, an
/// asked thing answered with other columns (each empty when the rule finds nothing).
fn rules_on(query: &sqlparser::ast::Query, catalog: &Catalog, question: &str, unlinked: &[String]) -> [Vec<String>; 3] {
    use nl2sql_core::scope::written::{missing_columns, stand_ins, unanswered_items};
    [
        missing_columns(query, catalog, unlinked),
        stand_ins(query, unlinked).into_iter().map(|(alias, expr)| format!("{expr} AS {alias}")).collect(),
        unanswered_items(query, catalog, question, unlinked).into_iter().map(|(item, _)| item).collect(),
    ]
}

const RULES: [&str; 3] = ["missing column", "stand-in", "asked thing answered otherwise"];

/// Three rules of the query written on recorded queries and on every gold query (no model).
fn replay_mode(files: Vec<String>, out: &mut std::fs::File) {
    println!("Benchmark 10 (replay): command: cargo run --release --example answerability -- replay {}", files.join(" "));
    let files = if files.is_empty() { vec![format!("{}/bench/results/answerability_ask_written_tune.jsonl", env!("CARGO_MANIFEST_DIR"))] } else { files };
    let mut cache = BTreeMap::new();
    let kinds: BTreeMap<String, String> = unanswerable().iter().map(|q| (q["question"].as_str().unwrap().to_string(), q["kind"].as_str().unwrap().to_string())).collect();
    // (queries, set) -> (fired per rule, any rule, read)
    let mut tally: BTreeMap<(String, String), ([usize; 3], usize, usize)> = BTreeMap::new();
    let mut record = |file: &str, set: &str, db: &str, question: &str, unlinked: &[String], sql: &str, fired: [Vec<String>; 3], out: &mut std::fs::File| {
        let e = tally.entry((file.to_string(), set.to_string())).or_default();
        for (i, f) in fired.iter().enumerate() {
            e.0[i] += !f.is_empty() as usize;
        }
        let any = fired.iter().any(|f| !f.is_empty());
        e.1 += any as usize;
        e.2 += 1;
        if any {
            let which: Vec<String> = RULES.iter().zip(&fired).filter(|(_, f)| !f.is_empty()).map(|(r, f)| format!("{r}: {}", f.join("; "))).collect();
            println!("  fired [{file} {set} {}] {question}  {}  ({sql})", kinds.get(question).map_or("answerable", String::as_str), which.join(" | "));
        }
        writeln!(out, "{}", json!({"file": file, "set": set, "db": db, "question": question, "unlinked": unlinked, "written": sql,
            "missing_columns": fired[0], "stand_ins": fired[1], "unanswered_items": fired[2]})).unwrap();
    };
    for file in &files {
        let name = file.rsplit('/').next().unwrap_or(file).to_string();
        for line in std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}")).lines() {
            let r: Value = serde_json::from_str(line).expect("JSON line");
            let (Some(sql), Some(detail)) = (r["written"].as_str(), r["detail"].as_str()) else { continue };
            let unlinked = let_through(detail);
            if r["refused"] == json!(true) || unlinked.is_empty() {
                continue;
            }
            let Ok(checked) = nl2sql_core::sql::check_query(sql) else { continue };
            let db = r["db"].as_str().unwrap();
            let question = r["question"].as_str().unwrap();
            let fired = rules_on(&checked.query, catalog(db, &mut cache), question, &unlinked);
            record(&name, r["set"].as_str().unwrap(), db, question, &unlinked, sql, fired, out);
        }
    }
    // the gold queries, each with the words the evidence found unlinked
    let evidence_path = format!("{}/bench/results/answerability_evidence.jsonl", env!("CARGO_MANIFEST_DIR"));
    let mut unlinked_of: BTreeMap<(String, i64), Vec<String>> = BTreeMap::new();
    for line in std::fs::read_to_string(&evidence_path).unwrap_or_else(|e| panic!("{evidence_path}: {e}")).lines() {
        let r: Value = serde_json::from_str(line).expect("JSON line");
        let Some(id) = r["question_id"].as_i64() else { continue };
        let words: Vec<String> = r["evidence"]["links"]
            .as_array()
            .map(|ls| ls.iter().filter(|l| l["to"].is_null() && l["soft"] != json!(true)).filter_map(|l| l["word"].as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        unlinked_of.insert((r["set"].as_str().unwrap().to_string(), id), words);
    }
    for (set_name, prefix) in [("spider_train", "train_"), ("spider", "spider_")] {
        for q in load(&format!("{}/{set_name}/questions.json", data_dir())) {
            let Some(words) = unlinked_of.get(&(set_name.to_string(), q["question_id"].as_i64().unwrap())) else { continue };
            if words.is_empty() {
                continue;
            }
            let sql = q["gold_pg"].as_str().unwrap_or_default();
            let Ok(checked) = nl2sql_core::sql::check_query(sql) else { continue };
            let db = format!("{prefix}{}", q["db_id"].as_str().unwrap().to_lowercase());
            let question = q["question"].as_str().unwrap();
            let fired = rules_on(&checked.query, catalog(&db, &mut cache), question, words);
            record("gold", set_name, &db, question, words, sql, fired, out);
        }
    }
    println!("\n| queries | set | read (words let through, a query) | {} | any |\n|---|---|---|---|---|---|---|", RULES.join(" | "));
    for ((file, set), (fired, any, n)) in &tally {
        println!("| {file} | {set} | {n} | {} | {} | {} | {any} |", fired[0], fired[1], fired[2]);
    }
}

/// `unplaced`: the rule of a name whose kind links to nothing, compared with a column
/// (`scope::written::unplaced_names`), on gold queries and recorded ones, no model. Each question
/// takes its words that link to nothing (not soft) and its names no stored value matched from the
/// evidence file; a name the rule reads is then looked for as `ask::scope` looks for it (any text
/// column of the tables the query reads, or of their neighbours, holding it as a word in any case):
/// held, it is the data's and the rule is silent.
fn unplaced_mode(files: Vec<String>, out: &mut std::fs::File) {
    use nl2sql_core::checks::literals;
    println!("Benchmark 10 (unplaced): command: cargo run --release --example answerability -- unplaced {}", files.join(" "));
    let evidence_path = format!("{}/bench/results/answerability_evidence_history.jsonl", env!("CARGO_MANIFEST_DIR"));
    // question text -> (db, words that link to nothing, names no stored value matched)
    let mut gap_of: BTreeMap<(String, String), (Vec<String>, Vec<String>)> = BTreeMap::new();
    for line in std::fs::read_to_string(&evidence_path).unwrap_or_else(|e| panic!("{evidence_path}: {e}")).lines() {
        let r: Value = serde_json::from_str(line).expect("JSON line");
        let words: Vec<String> = r["evidence"]["links"]
            .as_array()
            .map(|ls| ls.iter().filter(|l| l["to"].is_null() && l["soft"] != json!(true)).filter_map(|l| l["word"].as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        let names: Vec<String> = r["evidence"]["unmatched_names"].as_array().map(|ns| ns.iter().filter_map(|n| n.as_str().map(str::to_string)).collect()).unwrap_or_default();
        gap_of.insert((r["db"].as_str().unwrap().to_string(), r["question"].as_str().unwrap().to_string()), (words, names));
    }
    let mut queries: Vec<(String, String, String, String)> = Vec::new(); // (source, db, question, sql)
    for (set_name, prefix) in [("spider_train", "train_"), ("spider", "spider_")] {
        for q in load(&format!("{}/{set_name}/questions.json", data_dir())) {
            let db = format!("{prefix}{}", q["db_id"].as_str().unwrap().to_lowercase());
            queries.push((format!("gold {set_name}"), db, q["question"].as_str().unwrap().to_string(), q["gold_pg"].as_str().unwrap_or_default().to_string()));
        }
    }
    for file in &files {
        let name = file.rsplit('/').next().unwrap_or(file).to_string();
        for line in std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}")).lines() {
            let r: Value = serde_json::from_str(line).expect("JSON line");
            let Some(sql) = r["sql"].as_str() else { continue };
            let db = r["db"].as_str().unwrap();
            let db = if db.starts_with("train_") || db.starts_with("spider_") { db.to_string() } else if r["set"] == json!("spider") { format!("spider_{db}") } else { format!("train_{db}") };
            let status = r["status"].as_str().unwrap_or("?");
            queries.push((format!("{name} {status}"), db, r["question"].as_str().unwrap().to_string(), sql.to_string()));
        }
    }
    let mut cache = BTreeMap::new();
    // source -> (read, fired, fired with the name held nowhere, written in part, of them held nowhere)
    let mut tally: BTreeMap<String, (usize, usize, usize, usize, usize)> = BTreeMap::new();
    let mut seen = std::collections::BTreeSet::new();
    for (source, db, question, sql) in &queries {
        if !seen.insert((source.clone(), db.clone(), question.clone(), sql.clone())) {
            continue;
        }
        let Some((words, names)) = gap_of.get(&(db.clone(), question.clone())) else { continue };
        let Ok(checked) = nl2sql_core::sql::check_query(sql) else { continue };
        let e = tally.entry(source.clone()).or_default();
        e.0 += 1;
        let found = nl2sql_core::scope::written::unplaced_names(&checked.query, catalog(db, &mut cache), question, names, words);
        // the rule of a name the query writes only part of (`scope::written::partly_written_names`)
        let partly = nl2sql_core::scope::written::partly_written_names(&checked.query, catalog(db, &mut cache), question, names, &[]);
        if found.is_empty() && partly.is_empty() {
            continue;
        }
        e.1 += 1;
        // the names the data holds, as `ask::scope::held_in_data` reads them: not a gap
        let mut c = connect(db);
        let mut held_names: Vec<String> = Vec::new();
        for h in literals::holders_sql(names, &checked.query, catalog(db, &mut cache)) {
            let Ok(rows) = c.query(&h, &[]) else { continue };
            let Some(row) = rows.first() else { continue };
            for (i, n) in names.iter().enumerate() {
                if row.get::<_, bool>(i) && !held_names.contains(n) {
                    held_names.push(n.clone());
                }
            }
        }
        let left: Vec<String> = names.iter().filter(|n| !held_names.contains(n)).cloned().collect();
        let held = nl2sql_core::scope::written::unplaced_names(&checked.query, catalog(db, &mut cache), question, &left, words).is_empty();
        let partly_held = nl2sql_core::scope::written::partly_written_names(&checked.query, catalog(db, &mut cache), question, &left, &[]).is_empty();
        e.2 += !held as usize;
        e.3 += usize::from(!partly.is_empty());
        e.4 += !partly_held as usize;
        println!(
            "  [{source}] {} {question}  {:?} {:?}  ({sql})",
            match (held, partly_held) {
                (true, true) => "held",
                (false, _) => "FIRES",
                (true, false) => "PARTLY",
            },
            found,
            partly
        );
        writeln!(out, "{}", json!({"source": source, "db": db, "question": question, "sql": sql, "found": found, "held": held, "partly": partly, "partly_held": partly_held})).unwrap();
    }
    println!("\n| queries | read | read a name whose kind links to nothing | of them held nowhere (the rule speaks) | write a name in part | of them held nowhere (the rule speaks) |\n|---|---|---|---|---|---|");
    for (source, (n, f, fires, p, p_fires)) in &tally {
        println!("| {source} | {n} | {f} | {fires} | {p} | {p_fires} |");
    }
}

/// `own_value`: the rule of a query that can only return the value it compares with
/// (`scope::written::only_its_own_value`, then the data's word as `ask::scope::own_value_scope`
/// reads it) on every gold query of both sets, no model: a gold it would refuse is a right answer
/// the rule would turn into a refusal, were the model to write the gold.
fn own_value_mode(out: &mut std::fs::File) {
    println!("Benchmark 10 (own_value): command: cargo run --release --example answerability -- own_value");
    let mut cache = BTreeMap::new();
    for (set_name, prefix) in [("spider_train", "train_"), ("spider", "spider_")] {
        let (mut read, mut shaped, mut refused) = (0, 0, 0);
        for q in load(&format!("{}/{set_name}/questions.json", data_dir())) {
            let sql = q["gold_pg"].as_str().unwrap_or_default();
            let Ok(checked) = nl2sql_core::sql::check_query(sql) else { continue };
            read += 1;
            let db = format!("{prefix}{}", q["db_id"].as_str().unwrap().to_lowercase());
            let question = q["question"].as_str().unwrap();
            let compared = nl2sql_core::scope::written::only_its_own_value(&checked.query, catalog(&db, &mut cache), question);
            if compared.is_empty() {
                continue;
            }
            shaped += 1;
            let mut c = connect(&db);
            let mut nowhere = Vec::new();
            let mut values = Vec::new();
            for own in &compared {
                let literal = &own.literal;
                let (stored, held) = stored_and_held(&mut c, literal, &checked.query, catalog(&db, &mut cache));
                nowhere.push(stored == 0 && !held);
                values.push(json!({"value": literal.value, "alone": own.alone, "stored": stored, "held": held}));
            }
            let refuses = nl2sql_core::scope::written::decisive(&compared, &nowhere).is_some();
            refused += refuses as usize;
            println!("  [{set_name}] {} {question}  ({sql})", if refuses { "REFUSED" } else { "kept" });
            writeln!(out, "{}", json!({"set": set_name, "db": db, "question": question, "gold": sql, "values": values, "refused": refuses})).unwrap();
        }
        println!("{set_name}: {read} gold queries read, {shaped} of the shape, {refused} the data would refuse");
    }
}

/// `patterns`: the lexicon's patterns of questions beyond the data (`lexicon::beyond_data`, before
/// the schema's exemptions) on every answerable question of `spider`, `spider_train` and BIRD dev
/// (7,496, each printed when one matches: a pattern that matches an answerable question refuses it
/// unless its words name the schema) and on every unanswerable set, by kind. No database, no model.
fn patterns_mode(out: &mut std::fs::File) {
    println!("Benchmark 10 (patterns): command: cargo run --release --example answerability -- patterns");
    let mut tally: BTreeMap<(String, String), (usize, BTreeMap<String, usize>)> = BTreeMap::new();
    let mut read = |set: &str, kind: &str, id: &Value, question: &str, out: &mut std::fs::File| {
        let e = tally.entry((set.to_string(), kind.to_string())).or_default();
        e.0 += 1;
        let Some((beyond, phrase)) = nl2sql_core::lexicon::beyond_data(question) else { return };
        let name = serde_json::to_value(beyond).unwrap().as_str().unwrap_or_default().to_string();
        *e.1.entry(name.clone()).or_default() += 1;
        if kind == "answerable" {
            println!("  [{set}] {question}  ({name}: \"{phrase}\")");
        }
        writeln!(out, "{}", json!({"set": set, "kind": kind, "id": id, "question": question, "pattern": name, "phrase": phrase})).unwrap();
    };
    for set in ["spider", "spider_train", "bird_dev"] {
        for q in load(&format!("{}/{set}/questions.json", data_dir())) {
            read(set, "answerable", &Value::Null, q["question"].as_str().unwrap_or_default(), out);
        }
    }
    let dir = format!("{}/bench/data", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<String> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()?.file_name().into_string().ok()).filter(|f| f.starts_with("unanswerable_")).collect();
    files.sort();
    for file in files {
        for q in load(&format!("{dir}/{file}")) {
            read(file.trim_end_matches(".json"), q["kind"].as_str().unwrap_or("-"), &q["id"], q["question"].as_str().unwrap_or_default(), out);
        }
    }
    println!("\n| set | kind | questions | matched | by pattern |\n|---|---|---|---|---|");
    for ((set, kind), (n, by)) in &tally {
        let matched: usize = by.values().sum();
        let named = by.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ");
        println!("| {set} | {kind} | {n} | {matched} | {named} |");
    }
}

/// The rules that read an answer's query in `invented` mode, as its raw file names them and as its
/// table's columns say them.
const ANSWER_RULES: [(&str, &str); 9] = [
    ("invented", "a value the question does not name"),
    ("numbers", "a number it does not give"),
    ("coarser", "a part of a date for a date"),
    ("many", "a column each has many of"),
    ("relabelled", "a column relabelled"),
    ("untimed", "no time for a time asked"),
    ("who", "quantities for who"),
    ("thresholds", "a threshold not given"),
    ("sort_keys", "sort keys holding nothing of what to sort by"),
];

/// `invented`: the rule of a value the question does not name (`scope::written::invented_values`)
/// on recorded answers and gold queries, no model, with no value taken as grounded (the value
/// index's matches are not recorded): an upper bound of the answers it keeps from `ok`.
fn invented_mode(files: Vec<String>, out: &mut std::fs::File) {
    println!("Benchmark 10 (invented): command: cargo run --release --example answerability -- invented {}", files.join(" "));
    let mut cache = BTreeMap::new();
    // (source, set, status, right) -> [read, then how many each rule reaches, in ANSWER_RULES' order]
    let mut tally: BTreeMap<(String, String, String, String), [usize; 1 + ANSWER_RULES.len()]> = BTreeMap::new();
    let mut read_one = |source: &str, set: &str, db: &str, question: &str, sql: &str, status: &str, right: &str, out: &mut std::fs::File| {
        let Ok(checked) = nl2sql_core::sql::check_query(sql) else { return };
        let q = &checked.query;
        let invented = nl2sql_core::scope::written::invented_values(q, catalog(db, &mut cache), question, &[]);
        let numbers = nl2sql_core::scope::written::invented_numbers(q, question, &[]);
        let coarser = nl2sql_core::scope::written::coarser_answers(q, catalog(db, &mut cache), question);
        let many = nl2sql_core::scope::written::many_per_each(q, catalog(db, &mut cache), question);
        let relabelled = nl2sql_core::scope::written::relabelled_columns(q, catalog(db, &mut cache), question);
        let untimed = nl2sql_core::scope::written::untimed_answers(q, catalog(db, &mut cache), question);
        let who = nl2sql_core::scope::written::quantities_for_who(q, catalog(db, &mut cache), question);
        let thresholds = nl2sql_core::scope::written::assumed_thresholds(q, question, &[]);
        let sort_keys = nl2sql_core::scope::written::unheld_sort_keys(q, catalog(db, &mut cache), question);
        // each rule's finding as JSON, in ANSWER_RULES' order (`[]` or null: nothing found)
        let found = [json!(invented), json!(numbers), json!(coarser), json!(many), json!(relabelled), json!(untimed), json!(who), json!(thresholds), json!(sort_keys)];
        let reached: Vec<bool> = found.iter().map(|f| !(f.is_null() || f.as_array().is_some_and(Vec::is_empty))).collect();
        let e = tally.entry((source.to_string(), set.to_string(), status.to_string(), right.to_string())).or_default();
        e[0] += 1;
        if !reached.contains(&true) {
            return;
        }
        for (i, hit) in reached.iter().enumerate() {
            e[1 + i] += usize::from(*hit);
        }
        println!("  [{source} {set} {status} {right}] {question}  {}  ({sql})", found.iter().map(Value::to_string).collect::<Vec<_>>().join(" "));
        let mut record = json!({"source": source, "set": set, "db": db, "question": question, "sql": sql, "status": status, "right": right});
        for ((key, _), f) in ANSWER_RULES.iter().zip(found) {
            record[*key] = f;
        }
        writeln!(out, "{record}").unwrap();
    };
    for file in &files {
        let name = file.rsplit('/').next().unwrap_or(file).to_string();
        for line in std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}")).lines() {
            let Ok(r) = serde_json::from_str::<Value>(line) else { continue };
            let (Some(sql), Some(question), Some(set)) = (r["sql"].as_str(), r["question"].as_str(), r["set"].as_str()) else { continue };
            if r.get("config").is_some_and(|c| c != "full") {
                continue;
            }
            let db = loaded_db(set, r["db"].as_str().unwrap_or_default());
            let right = match r["strict"].as_bool() {
                Some(true) => "right",
                Some(false) => "wrong",
                None => "-",
            };
            read_one(&name, set, &db, question, sql, r["status"].as_str().unwrap_or("-"), right, out);
        }
    }
    for (set_name, prefix) in [("spider_train", "train_"), ("spider", "spider_")] {
        for q in load(&format!("{}/{set_name}/questions.json", data_dir())) {
            let db = format!("{prefix}{}", q["db_id"].as_str().unwrap().to_lowercase());
            read_one("gold", set_name, &db, q["question"].as_str().unwrap(), q["gold_pg"].as_str().unwrap_or_default(), "gold", "right", out);
        }
    }
    let head = format!(
        "| answers | set | status | right | read | {} |\n|---|---|---|---|---|{}",
        ANSWER_RULES.iter().map(|(_, title)| *title).collect::<Vec<_>>().join(" | "),
        "---|".repeat(ANSWER_RULES.len())
    );
    let row = |(source, set, status, right): &(String, String, String, String), counts: &[usize; 1 + ANSWER_RULES.len()]| {
        format!("| {source} | {set} | {status} | {right} | {} |", counts.iter().map(usize::to_string).collect::<Vec<_>>().join(" | "))
    };
    println!("\n{head}");
    let mut all: BTreeMap<(String, String, String, String), [usize; 1 + ANSWER_RULES.len()]> = BTreeMap::new();
    for (key, counts) in &tally {
        println!("{}", row(key, counts));
        let (source, set, status, right) = key;
        let source = if source == "gold" { "gold" } else { "every file" };
        let e = all.entry((source.to_string(), set.clone(), status.clone(), right.clone())).or_default();
        for (sum, n) in e.iter_mut().zip(counts) {
            *sum += n;
        }
    }
    println!("\nAll files together:\n\n{head}");
    for (key, counts) in &all {
        println!("{}", row(key, counts));
    }
}
