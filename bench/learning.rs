//! Benchmark 11: the learning curve. What verified examples of a database (`nl2sql_teach`) buy the
//! default `nl2sql(question)` on that database's other questions.
//!
//!     bench/load_spider.sh --set spider_train --index         # once: the databases, with the extension
//!     cargo run --release --example learning -- [--set spider_train|spider] [--dbs N] [--per-db M]
//!                                              [--ks 0,5,10,20] [--min-questions Q] [--seed S] [DATA_DIR]
//!                                              [--db NAME,NAME] [--glossary FILE] [--examples N]
//!
//! Databases: those of the set with at least Q questions whose gold has a trustworthy PostgreSQL
//! result (default 40), in a seeded order, the first N (default 10). Each database's questions in
//! a seeded order: the first max(ks) are the pool of examples (k examples are the pool's first k,
//! taught with `nl2sql_teach` as question and gold SQL), the next M (default 15) are asked.
//! The asked questions are never taught. For each k, ascending, the store holds exactly the pool's
//! first k examples (nothing else: the benchmark empties `nl2sql.examples` and `nl2sql.glossary`
//! of the databases it uses first), and every asked question runs with the default options.
//!
//! Scoring is Benchmark 2's, strict ([`spider::Gold`]). Reported: accuracy per k, each k paired
//! against k = 0 on the same questions (wins, losses, difference with a 95% interval), the time
//! per question against k = 0, per database k = 0 against the largest k, and how many asked
//! questions had a taught example with the same gold SQL (a paraphrase the store already answers).
//! Raw results go to `bench/results/learning.jsonl` (or `$NL2SQL_BENCH_OUT`); a run appends to the
//! file and skips the (database, k, question) it already holds, so a curve can be run k by k.
//!
//! `--db` names the databases instead (in the seeded order of the others). `--glossary FILE` (a
//! JSON object: database → list of `{"term", "meaning", "sql"}`, written by a curator from the
//! schema and its data, see `bench/data/glossary.json`) asks every question twice at each k,
//! without and then with that database's glossary defined (`nl2sql_define`), paired.
//! `--examples N` sets `nl2sql.examples` (how many examples a prompt shows; 0: none, an example
//! that asks the question again still answers it) for every question.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::time::Instant;

#[path = "spider.rs"]
mod spider;
use serde_json::{json, Value};
use spider::{connect, database, mix, paired, rows, Gold};

struct Row {
    db: String,
    k: usize,
    question_id: i64,
    strict: bool,
    seconds: f64,
    same_sql_taught: bool,
    /// Asked with the database's glossary defined (`--glossary`).
    glossary: bool,
}

/// One term of a curator's glossary (`--glossary`).
#[derive(serde::Deserialize)]
struct Term {
    term: String,
    meaning: String,
    sql: Option<String>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut set, mut n_dbs, mut per_db, mut min_q, mut seed) = ("spider_train".to_string(), 10usize, 15usize, 40usize, 21u64);
    let mut ks: Vec<usize> = vec![0, 5, 10, 20];
    let mut judge_dbs: Option<usize> = None;
    let mut named_dbs: Vec<String> = Vec::new();
    let mut glossary_file: Option<String> = None;
    let mut shown_examples: Option<usize> = None;
    let mut dir = "../shared/data".to_string();
    let mut i = 0;
    while i < args.len() {
        let value = |i: usize| args.get(i + 1).cloned().unwrap_or_else(|| panic!("{} needs a value", args[i]));
        match args[i].as_str() {
            "--set" => set = value(i),
            "--dbs" => n_dbs = value(i).parse().expect("--dbs N"),
            "--per-db" => per_db = value(i).parse().expect("--per-db M"),
            "--min-questions" => min_q = value(i).parse().expect("--min-questions Q"),
            "--seed" => seed = value(i).parse().expect("--seed S"),
            "--ks" => ks = value(i).split(',').map(|k| k.parse().expect("--ks 0,5,10,20")).collect(),
            "--judge" => judge_dbs = Some(value(i).parse().expect("--judge N")),
            "--db" => named_dbs = value(i).split(',').map(str::to_string).collect(),
            "--glossary" => glossary_file = Some(value(i)),
            "--examples" => shown_examples = Some(value(i).parse().expect("--examples N")),
            other => {
                dir = other.to_string();
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    ks.sort();
    ks.dedup();
    let pool_size = *ks.last().expect("--ks");
    let all: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(format!("{dir}/{set}/questions.json")).expect("questions")).unwrap();
    let mut by_db: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for q in all.iter().filter(|q| q["pg_ok_tie_tolerant"] == Value::Bool(true)) {
        by_db.entry(q["db_id"].as_str().unwrap_or("").to_string()).or_default().push(q);
    }
    let mut dbs: Vec<(String, Vec<&Value>)> = by_db.into_iter().filter(|(_, qs)| qs.len() >= min_q.max(pool_size + per_db)).collect();
    dbs.sort_by_key(|(db, _)| mix(seed, db));
    for (_, qs) in dbs.iter_mut() {
        qs.sort_by_key(|q| mix(seed, &q["question_id"].to_string()));
    }
    if let Some(count) = judge_dbs {
        // the databases after the measured ones, in the same seeded order: tuning, never measuring
        let tuning: Vec<(String, Vec<&Value>)> = dbs.iter().skip(n_dbs).take(count).cloned().collect();
        judge(&set, &tuning, pool_size, per_db);
        return;
    }
    if named_dbs.is_empty() {
        dbs.truncate(n_dbs);
    } else {
        dbs.retain(|(db, _)| named_dbs.contains(db));
        assert_eq!(dbs.len(), named_dbs.len(), "--db: a database with too few questions, or not in the set");
    }
    let glossaries: BTreeMap<String, Vec<Term>> = glossary_file
        .as_ref()
        .map(|f| serde_json::from_str(&std::fs::read_to_string(f).expect("--glossary FILE")).expect("a glossary: database -> [{term, meaning, sql}]"))
        .unwrap_or_default();
    let ks_text = ks.iter().map(ToString::to_string).collect::<Vec<_>>().join(",");
    let extra = format!(
        "{}{}{}",
        if named_dbs.is_empty() { String::new() } else { format!(" --db {}", named_dbs.join(",")) },
        glossary_file.as_ref().map(|f| format!(" --glossary {f}")).unwrap_or_default(),
        shown_examples.map(|n| format!(" --examples {n}")).unwrap_or_default()
    );
    println!(
        "command: cargo run --release --example learning -- --set {set} --dbs {n_dbs} --per-db {per_db} --ks {ks_text} --min-questions {min_q} --seed {seed}{extra} {dir}"
    );
    println!("{} databases: {}", dbs.len(), dbs.iter().map(|(d, _)| d.as_str()).collect::<Vec<_>>().join(", "));

    let out_path = std::env::var("NL2SQL_BENCH_OUT").unwrap_or_else(|_| format!("{}/bench/results/learning.jsonl", env!("CARGO_MANIFEST_DIR")));
    let mut rows_out: Vec<Row> = Vec::new();
    let mut done: BTreeSet<(String, usize, i64, bool)> = BTreeSet::new();
    for l in std::fs::read_to_string(&out_path).unwrap_or_default().lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
        let r = Row {
            db: l["db"].as_str().unwrap_or("").to_string(),
            k: l["k"].as_u64().unwrap_or(0) as usize,
            question_id: l["question_id"].as_i64().unwrap_or(0),
            strict: l["strict"] == Value::Bool(true),
            seconds: l["seconds"].as_f64().unwrap_or(0.0),
            same_sql_taught: l["same_sql_taught"] == Value::Bool(true),
            glossary: l["glossary"] == Value::Bool(true),
        };
        done.insert((r.db.clone(), r.k, r.question_id, r.glossary));
        rows_out.push(r);
    }
    let file = std::fs::OpenOptions::new().create(true).append(true).open(&out_path).expect("results file");
    let mut raw = std::io::BufWriter::new(file);

    for (db_id, qs) in &dbs {
        let (pool, asked) = (&qs[..pool_size], &qs[pool_size..pool_size + per_db]);
        let db = database(&set, db_id);
        let mut client = connect(&db);
        client.batch_execute("SET client_min_messages = warning; ALTER EXTENSION nl2sql UPDATE").expect("update the extension");
        if let Some(n) = shown_examples {
            client.batch_execute(&format!("SET nl2sql.examples = {n}")).expect("SET nl2sql.examples");
        }
        let terms = glossaries.get(db_id.as_str());
        let with_glossary: &[bool] = if glossary_file.is_some() { &[false, true] } else { &[false] };
        for (&k, &glossary) in ks.iter().flat_map(|k| with_glossary.iter().map(move |g| (k, g))) {
            if asked.iter().all(|q| done.contains(&(db_id.clone(), k, q["question_id"].as_i64().unwrap_or(0), glossary))) {
                continue;
            }
            // exactly the pool's first k examples, nothing else
            client.batch_execute("DELETE FROM nl2sql.examples; DELETE FROM nl2sql.glossary").expect("empty the store");
            let mut taught_sql: Vec<String> = Vec::new();
            for q in &pool[..k] {
                let gold = q["gold_pg"].as_str().unwrap();
                match client.query_one("SELECT nl2sql_teach($1, $2)::text", &[&q["question"].as_str().unwrap(), &gold]) {
                    Ok(_) => taught_sql.push(gold.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()),
                    Err(e) => println!("{db_id}: could not teach #{}: {}", q["question_id"], e.as_db_error().map_or_else(|| e.to_string(), |d| d.message().to_string())),
                }
            }
            for t in terms.into_iter().flatten().filter(|_| glossary) {
                client
                    .query_one("SELECT nl2sql_define($1, $2, $3)::text", &[&t.term, &t.meaning, &t.sql])
                    .unwrap_or_else(|e| panic!("{db_id}: the glossary term {:?} is refused: {}", t.term, e.as_db_error().map_or_else(|| e.to_string(), |d| d.message().to_string())));
            }
            for q in asked {
                let qid = q["question_id"].as_i64().unwrap_or(0);
                if done.contains(&(db_id.clone(), k, qid, glossary)) {
                    continue;
                }
                let gold_sql = q["gold_pg"].as_str().unwrap();
                let gold = match Gold::load(&mut client, gold_sql, q["order_sensitive"] == Value::Bool(true)) {
                    Ok(g) => g,
                    Err(e) => {
                        println!("skip #{qid}: gold fails: {e}");
                        continue;
                    }
                };
                let started = Instant::now();
                let answer = client.query_one("SELECT nl2sql($1)", &[&q["question"].as_str().unwrap()]);
                let seconds = started.elapsed().as_secs_f64();
                let sql: Option<String> = answer.as_ref().ok().and_then(|r| r.get(0));
                let strict = sql.as_deref().map(|s| rows(&mut client, s)).is_some_and(|p| p.is_ok_and(|p| gold.strict(&p)));
                let run = client
                    .query_one(
                        "SELECT run_id, status, (SELECT detail FROM nl2sql.steps s WHERE s.run_id = r.run_id AND stage = 'taught') FROM nl2sql.runs r ORDER BY run_id DESC LIMIT 1",
                        &[],
                    )
                    .ok();
                let status: Option<String> = run.as_ref().map(|r| r.get(1));
                let taught: Option<String> = run.as_ref().and_then(|r| r.get(2));
                let same_sql_taught = taught_sql.contains(&gold_sql.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase());
                let line = json!({"set": set, "db": db_id, "k": k, "glossary": glossary, "question_id": qid, "question": q["question"], "strict": strict,
                    "status": status, "seconds": seconds, "sql": sql, "taught": taught, "same_sql_taught": same_sql_taught,
                    "error": answer.err().map(|e| e.to_string())});
                writeln!(raw, "{line}").expect("write results");
                raw.flush().expect("flush results");
                println!("{db_id} k={k}{} #{qid} {} {:.1}s {}", if glossary { " glossary" } else { "" }, if strict { "ok " } else { "BAD" }, seconds, sql.unwrap_or_default());
                rows_out.push(Row { db: db_id.clone(), k, question_id: qid, strict, seconds, same_sql_taught, glossary });
            }
        }
        client.batch_execute("DELETE FROM nl2sql.examples; DELETE FROM nl2sql.glossary").expect("empty the store");
    }
    let measured: BTreeSet<&str> = dbs.iter().map(|(d, _)| d.as_str()).collect();
    rows_out.retain(|r| measured.contains(r.db.as_str()));
    report(&rows_out, &ks);
    if glossary_file.is_some() {
        report_glossary(&rows_out, &ks);
    }
    println!("raw results: {out_path}");
}

/// Paired pairs of (base right, other right, base seconds, other seconds): the paired accuracy
/// difference, and the other's time as a multiple of the base's.
fn compared(pairs: &[(bool, bool, f64, f64)]) -> (spider::Paired, f64) {
    let p = paired(&pairs.iter().map(|(a, b, _, _)| (*a, *b)).collect::<Vec<_>>());
    let ratio = pairs.iter().map(|x| x.3).sum::<f64>() / pairs.iter().map(|x| x.2).sum::<f64>().max(1e-9);
    (p, ratio)
}

fn report(rows: &[Row], ks: &[usize]) {
    // the curve of examples: the questions asked without a glossary
    let rows: Vec<&Row> = rows.iter().filter(|r| !r.glossary).collect();
    let at: BTreeMap<(String, usize, i64), &Row> = rows.iter().map(|r| ((r.db.clone(), r.k, r.question_id), *r)).collect();
    let base: Vec<&Row> = rows.iter().filter(|r| r.k == 0).copied().collect();
    println!("\n| k | questions | strict | vs k = 0 (wins / losses, difference, 95% interval) | time per question | vs k = 0 | asked with a taught paraphrase (same gold SQL) |");
    println!("|---|---|---|---|---|---|---|");
    for &k in ks {
        let these: Vec<&Row> = rows.iter().filter(|r| r.k == k).copied().collect();
        if these.is_empty() {
            continue;
        }
        let acc = 100.0 * these.iter().filter(|r| r.strict).count() as f64 / these.len() as f64;
        let secs = these.iter().map(|r| r.seconds).sum::<f64>() / these.len() as f64;
        let pairs: Vec<(bool, bool, f64, f64)> = base
            .iter()
            .filter_map(|b| at.get(&(b.db.clone(), k, b.question_id)).map(|o| (b.strict, o.strict, b.seconds, o.seconds)))
            .collect();
        let (p, ratio) = compared(&pairs);
        let same = these.iter().filter(|r| r.same_sql_taught).count();
        println!(
            "| {k} | {} | {acc:.1}% | {} / {}, {:+.1} [{:+.1}, {:+.1}] | {secs:.1} s | {ratio:.2}x | {same} |",
            these.len(),
            p.wins,
            p.losses,
            p.mean,
            p.low,
            p.high
        );
    }
    let top = *ks.last().unwrap_or(&0);
    println!("\nper database, k = 0 against k = {top} (strict, right of asked):");
    let dbs: BTreeSet<&str> = rows.iter().map(|r| r.db.as_str()).collect();
    for db in dbs {
        let right = |k: usize| rows.iter().filter(|r| r.db == db && r.k == k && r.strict).count();
        let n = rows.iter().filter(|r| r.db == db && r.k == 0).count();
        println!("  {db}: {} -> {} of {n}", right(0), right(top));
    }
}

/// `--glossary`: at each k, the questions asked with the database's glossary against the same
/// questions asked without it, paired; and per database.
fn report_glossary(rows: &[Row], ks: &[usize]) {
    let without: BTreeMap<(String, usize, i64), &Row> = rows.iter().filter(|r| !r.glossary).map(|r| ((r.db.clone(), r.k, r.question_id), r)).collect();
    println!("\n| k | questions | strict without the glossary | with it | with against without (wins / losses, difference, 95% interval) | time with against without |");
    println!("|---|---|---|---|---|---|");
    let pairs_at = |k: usize, db: Option<&str>| -> Vec<(bool, bool, f64, f64)> {
        rows.iter()
            .filter(|r| r.glossary && r.k == k && db.is_none_or(|d| d == r.db))
            .filter_map(|g| without.get(&(g.db.clone(), k, g.question_id)).map(|w| (w.strict, g.strict, w.seconds, g.seconds)))
            .collect()
    };
    for &k in ks {
        let pairs = pairs_at(k, None);
        if pairs.is_empty() {
            continue;
        }
        let n = pairs.len() as f64;
        let (p, ratio) = compared(&pairs);
        println!(
            "| {k} | {} | {:.1}% | {:.1}% | {} / {}, {:+.1} [{:+.1}, {:+.1}] | {ratio:.2}x |",
            pairs.len(),
            100.0 * pairs.iter().filter(|x| x.0).count() as f64 / n,
            100.0 * pairs.iter().filter(|x| x.1).count() as f64 / n,
            p.wins,
            p.losses,
            p.mean,
            p.low,
            p.high
        );
        let dbs: BTreeSet<&str> = rows.iter().filter(|r| r.glossary && r.k == k).map(|r| r.db.as_str()).collect();
        for db in dbs {
            let pairs = pairs_at(k, Some(db));
            let right = |with: bool| pairs.iter().filter(|x| if with { x.1 } else { x.0 }).count();
            println!("  k = {k}, {db}: {} -> {} of {} with the glossary", right(false), right(true), pairs.len());
        }
    }
}

/// `--judge N`: how well [`same::differences`] tells a taught example that asks the question again
/// from one of the same pattern about other things, on N databases after the measured ones (no
/// chat model; the embedding server for the distances). For each asked question, its nearest
/// pool examples (cosine distance of the questions as written) are labelled by whether the
/// example's gold SQL gives the asked question's gold result (strict); reported per distance cut:
/// how many questions the judge would answer from an example, and how many of those rightly.
#[allow(clippy::type_complexity)]
fn judge(set: &str, dbs: &[(String, Vec<&Value>)], pool_size: usize, per_db: usize) {
    use nl2sql_core::catalog::Catalog;
    use nl2sql_core::ground::same;
    use nl2sql_core::ground::taught::cosine_distance;
    use nl2sql_core::llm::{client, CallPolicy, Endpoint};
    use nl2sql_core::scope::link;
    use nl2sql_core::sql::substitute::substitute;
    let endpoint = Endpoint {
        base_url: std::env::var("NL2SQL_EMBED_URL").unwrap_or_else(|_| "http://127.0.0.1:18082/v1".into()),
        model: "all-minilm-l6-v2".into(),
        api_key: None,
    };
    let out_path = std::env::var("NL2SQL_BENCH_OUT").unwrap_or_else(|_| format!("{}/bench/results/learning_judge.jsonl", env!("CARGO_MANIFEST_DIR")));
    let mut raw = std::io::BufWriter::new(std::fs::File::create(&out_path).expect("results file"));
    // per asked question: the pool nearest first as (distance, no difference, right), and whether
    // any pool example answers it
    let mut seen: Vec<(Vec<(f64, bool, bool)>, bool)> = Vec::new();
    // per asked question: the pool nearest first as (distance, adapted SQL's result right), for
    // the examples the judge would adapt (same::adaptation, the substitutions made on the gold)
    let mut adapted_seen: Vec<Vec<(f64, bool)>> = Vec::new();
    let mut adapted_lines: Vec<Value> = Vec::new();
    println!("{} tuning databases: {}", dbs.len(), dbs.iter().map(|(d, _)| d.as_str()).collect::<Vec<_>>().join(", "));
    for (db_id, qs) in dbs {
        let (pool, asked) = (&qs[..pool_size], &qs[pool_size..(pool_size + per_db).min(qs.len())]);
        let mut c = connect(&database(set, db_id));
        let text: String = c.query_one("SELECT nl2sql_schema()::text", &[]).expect("nl2sql_schema").get(0);
        let catalog: Catalog = serde_json::from_str(&text).expect("catalog");
        let names = link::names(&catalog);
        let texts: Vec<String> = pool.iter().chain(asked).map(|q| q["question"].as_str().unwrap_or("").to_string()).collect();
        let vectors = client::embed(&endpoint, &CallPolicy::default(), &texts, &|| {}).expect("embedding server (scripts/llm.sh start)").vectors;
        let pool_rows: Vec<Option<Vec<Vec<Value>>>> = pool.iter().map(|q| rows(&mut c, q["gold_pg"].as_str().unwrap_or("")).ok()).collect();
        let pool_sigs: Vec<same::Signature> = pool.iter().map(|q| same::signature(q["question"].as_str().unwrap_or(""), &names)).collect();
        for (i, q) in asked.iter().enumerate() {
            let Ok(gold) = Gold::load(&mut c, q["gold_pg"].as_str().unwrap_or(""), q["order_sensitive"] == Value::Bool(true)) else { continue };
            let question = q["question"].as_str().unwrap_or("");
            let sig = same::signature(question, &names);
            let v = &vectors[pool.len() + i];
            let mut near: Vec<(f64, usize)> = (0..pool.len()).map(|j| (cosine_distance(v, &vectors[j]), j)).collect();
            near.sort_by(|a, b| a.0.total_cmp(&b.0));
            let right = |j: usize| pool_rows[j].as_ref().is_some_and(|r| gold.strict(r));
            let answerable = (0..pool.len()).any(right);
            // the differences as the pipeline reads them: unlinked words that are only wording
            // count when the data the example's gold reads holds one (read here as the owner)
            let mut read = |j: usize| {
                let gold_sql = pool[j]["gold_pg"].as_str().unwrap_or("");
                same::differences_read(&sig, &pool_sigs[j], &names, |words| held(&mut c, &catalog, words, gold_sql))
            };
            let all_diffs: Vec<Vec<same::Difference>> = near.iter().map(|&(_, j)| read(j)).collect();
            let (d, j) = near[0];
            let diffs = all_diffs[0].clone();
            seen.push((near.iter().zip(&all_diffs).map(|(&(d, j), diffs)| (d, diffs.is_empty(), right(j))).collect(), answerable));
            let mut adapted = Vec::new();
            for (&(d, j), diffs) in near.iter().zip(&all_diffs).filter(|((d, _), _)| *d <= 0.5) {
                let pool_q = pool[j]["question"].as_str().unwrap_or("");
                let Some(subs) = same::substitutions(question, &sig, pool_q, &pool_sigs[j], diffs).filter(|s| !s.is_empty()) else { continue };
                let Some(sql) = substitute(pool[j]["gold_pg"].as_str().unwrap_or(""), &subs) else { continue };
                let ok = rows(&mut c, &sql).is_ok_and(|r| gold.strict(&r));
                adapted.push((d, ok));
                adapted_lines.push(json!({"db": db_id, "question": question, "example": pool_q, "distance": d, "substitutions": subs, "sql": sql, "right": ok}));
            }
            adapted_seen.push(adapted);
            let others: Vec<Value> = near
                .iter()
                .skip(1)
                .filter(|(d, _)| *d <= 0.5)
                .map(|&(d, j)| json!({"example": pool[j]["question"], "distance": d, "right": right(j), "taught": pool_sigs[j]}))
                .collect();
            let line = json!({"db": db_id, "question_id": q["question_id"], "question": question, "example": pool[j]["question"],
                "distance": d, "differences": diffs, "right": right(j), "answerable": answerable,
                "asked": sig, "taught": pool_sigs[j], "others": others});
            writeln!(raw, "{line}").expect("write");
        }
    }
    raw.flush().expect("flush");
    let n = seen.len();
    println!("data scans for words that differ: {}", SCANS.load(std::sync::atomic::Ordering::Relaxed));
    let answerable = seen.iter().filter(|s| s.1).count();
    println!("\n{n} asked questions; {answerable} have a pool example whose gold gives their gold result");
    println!("\nthe nearest example within the cut in which the judge finds no difference (as same::asked_again takes it):");
    println!("| cut | answered from an example | right | precision | share of the answerable |");
    println!("|---|---|---|---|---|");
    for cut in [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4] {
        let picked: Vec<bool> = seen.iter().filter_map(|(near, _)| near.iter().find(|(d, same, _)| *d <= cut && *same).map(|x| x.2)).collect();
        let right = picked.iter().filter(|r| **r).count();
        println!("| {cut} | {} | {right} | {:.1}% | {:.1}% |", picked.len(), 100.0 * right as f64 / picked.len().max(1) as f64, 100.0 * right as f64 / answerable.max(1) as f64);
    }
    // with adaptation: the nearest example that is the same question within the shipped cut, or
    // adapted within the cut below (asked_again's order: nearest first)
    println!("\nwith adaptation (same::asked_again: the same question within {}, or another value or number within the cut):", same::REUSE_DISTANCE);
    println!("| adaptation cut | answered from an example | right | precision | adapted | adapted right | share of the answerable |");
    println!("|---|---|---|---|---|---|---|");
    for cut in [0.2, 0.25, 0.3, 0.35, 0.4, 0.5] {
        let (mut answered, mut right, mut adapted, mut adapted_right) = (0, 0, 0, 0);
        for ((near, _), adapt) in seen.iter().zip(&adapted_seen) {
            let exact = near.iter().find(|(d, same, _)| *d <= same::REUSE_DISTANCE && *same).map(|x| (x.0, x.2));
            let other = adapt.iter().find(|(d, _)| *d <= cut).copied();
            let pick = match (exact, other) {
                (Some(e), Some(a)) if a.0 < e.0 => Some((a.1, true)),
                (Some(e), _) => Some((e.1, false)),
                (None, Some(a)) => Some((a.1, true)),
                (None, None) => None,
            };
            if let Some((ok, was_adapted)) = pick {
                answered += 1;
                right += ok as usize;
                adapted += was_adapted as usize;
                adapted_right += (was_adapted && ok) as usize;
            }
        }
        println!("| {cut} | {answered} | {right} | {:.1}% | {adapted} | {adapted_right} | {:.1}% |", 100.0 * right as f64 / answered.max(1) as f64, 100.0 * right as f64 / answerable.max(1) as f64);
    }
    let adapted_path = out_path.replace(".jsonl", "_adapted.jsonl");
    let mut raw = std::io::BufWriter::new(std::fs::File::create(&adapted_path).expect("results file"));
    for l in &adapted_lines {
        writeln!(raw, "{l}").expect("write");
    }
    raw.flush().expect("flush");
    println!("raw: {out_path}, {adapted_path}");
}

/// Scans made by [`held`] in a `--judge` run.
static SCANS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Whether the data that `sql` reads (its tables and their neighbours) holds a word of `words` at
/// the start of a stored word, as `ask::generate` reads it for a taught example; a query that does
/// not parse, or a scan that fails, counts as holding one.
fn held(c: &mut postgres::Client, catalog: &nl2sql_core::catalog::Catalog, words: &[String], sql: &str) -> bool {
    let Ok(checked) = nl2sql_core::sql::check_query(sql) else { return true };
    for scan in nl2sql_core::checks::literals::word_start_holders_sql(words, &checked.query, catalog) {
        SCANS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match rows(c, &scan) {
            Ok(r) if r.first().is_some_and(|row| row.iter().any(|v| v == &Value::Bool(true))) => return true,
            Ok(_) => {}
            Err(_) => return true,
        }
    }
    false
}
