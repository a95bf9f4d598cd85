//! Load benchmark, model-free: many sessions calling nl2sql_try, nl2sql_verify,
//! nl2sql_distinguish and nl2sql_select (without the model) at once on the Spider databases.
//!
//!     bench/load_spider.sh                      # once: the databases, with the extension
//!     cargo run --release --example load -- [--sessions 16] [--calls 300] [DATA_DIR]
//!     cargo run --release --example load -- --ask --sessions 8 --calls 50   # nl2sql with a scripted endpoint
//!
//! With `--ask`, each session calls `nl2sql(question)` instead, against a fast scripted model
//! endpoint this program serves itself (chat and embeddings, OpenAI-compatible, answering at once:
//! `{"action": "done"}` to a probe step, `{"sql": "SELECT 1"}` to a generation or repair, an empty
//! answer to keywords, a fixed 384-dimension vector to embeddings). It measures the pipeline's own
//! machinery under concurrency (executor, verification, fix, repair, audit), not a model.
//!
//! Each session is one thread with its own connection to one of the 13 databases (sessions spread
//! over them in turn) and makes `--calls` calls, cycling through the four functions over that
//! database's Spider questions and the candidate SQL of 8 published systems (../shared/data).
//! Reported:
//! - calls per second overall, and latency (median, p95) per function;
//! - errors: a documented refusal is an answer, not a failure (nl2sql_distinguish raises 22023 for a
//!   query that fails on the database, 25006 for one the gate refuses, 0A000 when no instance can
//!   be cut, e.g. from a view); any other error is unexpected;
//! - temp objects left: relations in temp schemas, counted while the sessions are still open and
//!   after they close (the instance tables live in a subtransaction that is always rolled back);
//! - data changed: an md5 of every user table's rows (schema public) before and after;
//! - backend memory: each connection's `pg_backend_memory_contexts` total after its first call and
//!   after its last (growth median and max).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

#[path = "spider.rs"]
mod spider;

use postgres::Client;
use serde_json::{json, Value};
use spider::{connect, pct};

/// Refusals a function documents as its answer for such input.
const EXPECTED: &[(&str, &[&str])] = &[("nl2sql_distinguish", &["22023", "25006", "0A000", "42601"]), ("nl2sql_verify", &["42601"])];

struct Task {
    db: String,
    question: String,
    gold: String,
    candidates: Vec<String>,
}

#[derive(Default)]
struct Tally {
    calls: BTreeMap<&'static str, Vec<f64>>,
    expected_errors: BTreeMap<String, usize>,
    unexpected: Vec<String>,
    memory: Vec<(i64, i64)>,
    temp_left_open: i64,
}

fn arg(args: &[String], name: &str, default: usize) -> usize {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn tasks(data: &str) -> Vec<Task> {
    let questions: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(format!("{data}/spider/questions.json")).expect("questions.json")).unwrap();
    let candidates: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(format!("{data}/spider/candidates.json")).expect("candidates.json")).unwrap();
    let by_id: BTreeMap<i64, &Value> = candidates.iter().map(|c| (c["question_id"].as_i64().unwrap(), c)).collect();
    questions
        .iter()
        .filter(|q| q["pg_ok_tie_tolerant"].as_bool() == Some(true))
        .filter_map(|q| {
            let c = by_id.get(&q["question_id"].as_i64()?)?;
            let sqls: Vec<String> = c["candidates"].as_array()?.iter().filter_map(|x| x["sql"].as_str().map(str::to_string)).collect();
            Some(Task {
                db: format!("spider_{}", q["db_id"].as_str()?.to_lowercase()),
                question: q["question"].as_str()?.to_string(),
                gold: q["gold_pg"].as_str()?.to_string(),
                candidates: sqls,
            })
        })
        .collect()
}

fn memory(client: &mut Client) -> i64 {
    client.query_one("SELECT sum(total_bytes)::bigint FROM pg_backend_memory_contexts", &[]).map(|r| r.get(0)).unwrap_or(0)
}

/// The scripted model endpoint of `--ask`: every request answered at once, on its own thread.
fn serve_scripted_model() -> String {
    use std::io::{BufRead, BufReader, Read, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let (mut path, mut len) = (String::new(), 0usize);
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                path.push_str(line.split_whitespace().nth(1).unwrap_or(""));
                loop {
                    line.clear();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                    if line == "\r\n" {
                        break;
                    }
                }
                let mut body = vec![0; len];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let answer = if path.ends_with("/embeddings") {
                    let inputs = match &req["input"] {
                        Value::Array(a) => a.len(),
                        _ => 1,
                    };
                    let data: Vec<Value> =
                        (0..inputs).map(|i| json!({"index": i, "embedding": (0..384).map(|k| ((k * 7 + i) % 13) as f64 / 13.0).collect::<Vec<_>>()})).collect();
                    json!({"data": data, "model": "scripted", "usage": {"prompt_tokens": 1, "total_tokens": 1}})
                } else {
                    let content = match req["response_format"]["json_schema"]["name"].as_str() {
                        Some("step") => json!({"action": "done"}),
                        Some("answer") => json!({"reasoning": "", "rows": []}),
                        Some("keywords") => json!({"keywords": []}),
                        _ => json!({"sql": "SELECT 1"}),
                    };
                    json!({"model": "scripted", "choices": [{"index": 0, "message": {"role": "assistant", "content": content.to_string()}, "finish_reason": "stop"}],
                           "usage": {"prompt_tokens": 10, "completion_tokens": 5}})
                };
                let text = answer.to_string();
                let mut stream = reader.into_inner();
                let _ = write!(stream, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}", text.len());
            });
        }
    });
    format!("http://127.0.0.1:{port}/v1")
}

/// One call of `function` on `task`; Ok(()) or the error's SQLSTATE and message.
fn call(client: &mut Client, function: &'static str, task: &Task) -> Result<(), (String, String)> {
    let cands = &task.candidates;
    let r = match function {
        "nl2sql_try" => client.query("SELECT nl2sql_try($1, 100)", &[&task.gold]).map(|_| ()),
        "nl2sql_verify" => client.query("SELECT * FROM nl2sql_verify($1, $2)", &[&task.question, &cands[0]]).map(|_| ()),
        "nl2sql" => client.query("SELECT nl2sql($1)", &[&task.question]).map(|_| ()),
        "nl2sql_distinguish" => {
            // the first candidate against the first one that is not the same text
            let other = cands.iter().find(|c| *c != &cands[0]).unwrap_or(&task.gold);
            client.query("SELECT nl2sql_distinguish($1, $2)", &[&cands[0], other]).map(|_| ())
        }
        _ => client.query("SELECT * FROM nl2sql_select($1, $2, NULL, '{\"adjudicate\": false}')", &[&task.question, cands]).map(|_| ()),
    };
    r.map_err(|e| match e.as_db_error() {
        Some(d) => (d.code().code().to_string(), d.message().to_string()),
        None => ("client".to_string(), e.to_string()),
    })
}

fn table_digest(client: &mut Client) -> String {
    let tables: Vec<String> = client
        .query("SELECT format('%I.%I', schemaname, tablename) FROM pg_tables WHERE schemaname = 'public' ORDER BY 1", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut all = String::new();
    for t in tables {
        let d: String = client
            .query_one(&format!("SELECT md5(coalesce(string_agg(x, '' ORDER BY x), '')) FROM (SELECT md5(t::text) AS x FROM {t} AS t) s"), &[])
            .unwrap()
            .get(0);
        all.push_str(&format!("{t}:{d};"));
    }
    all
}

fn temp_relations(client: &mut Client) -> i64 {
    client.query_one("SELECT count(*) FROM pg_catalog.pg_class WHERE relpersistence = 't'", &[]).unwrap().get(0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sessions = arg(&args, "--sessions", 16);
    let calls = arg(&args, "--calls", 300);
    let data = args.iter().rev().find(|a| !a.starts_with("--") && a.parse::<usize>().is_err()).cloned().unwrap_or_else(|| "../shared/data".into());
    println!(
        "command: cargo run --release --example load -- {}--sessions {sessions} --calls {calls} {data}",
        if args.iter().any(|a| a == "--ask") { "--ask " } else { "" }
    );
    let tasks = Arc::new(tasks(&data));
    let dbs: Vec<String> = tasks.iter().map(|t| t.db.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    println!("{} questions over {} databases; {sessions} sessions x {calls} calls", tasks.len(), dbs.len());

    let before: BTreeMap<String, String> = dbs.iter().map(|db| (db.clone(), table_digest(&mut connect(db)))).collect();
    let ask = args.iter().any(|a| a == "--ask");
    let endpoint = ask.then(serve_scripted_model);
    let functions: &'static [&'static str] =
        if ask { &["nl2sql"] } else { &["nl2sql_try", "nl2sql_verify", "nl2sql_distinguish", "nl2sql_select"] };
    let tally = Arc::new(Mutex::new(Tally::default()));
    let started = Instant::now();
    let barrier = Arc::new(std::sync::Barrier::new(sessions));
    let handles: Vec<_> = (0..sessions)
        .map(|s| {
            let (tasks, tally, barrier, dbs, endpoint) = (tasks.clone(), tally.clone(), barrier.clone(), dbs.clone(), endpoint.clone());
            std::thread::spawn(move || {
                let mut clients: BTreeMap<String, (Client, i64)> = BTreeMap::new();
                let mut mine = Tally::default();
                barrier.wait();
                // one database per session (one backend, whose memory is watched over all its calls)
                let db = &dbs[s % dbs.len()];
                let own: Vec<&Task> = tasks.iter().filter(|t| &t.db == db).collect();
                for i in 0..calls {
                    let task = own[(s / dbs.len() * 7 + i) % own.len()];
                    let function = functions[(s + i) % functions.len()];
                    let fresh = !clients.contains_key(&task.db);
                    let (client, _) = clients.entry(task.db.clone()).or_insert_with(|| {
                        let mut c = connect(&task.db);
                        if let Some(e) = &endpoint {
                            c.batch_execute(&format!("SET nl2sql.llm_endpoint = '{e}'; SET nl2sql.embedding_endpoint = '{e}'; SET nl2sql.llm_model = 'scripted'"))
                                .expect("point the session at the scripted endpoint");
                        }
                        (c, 0)
                    });
                    let t = Instant::now();
                    let r = call(client, function, task);
                    mine.calls.entry(function).or_default().push(t.elapsed().as_secs_f64() * 1000.0);
                    match r {
                        Ok(()) => {}
                        Err((state, msg)) => {
                            if EXPECTED.iter().any(|(f, states)| *f == function && states.contains(&state.as_str())) {
                                *mine.expected_errors.entry(format!("{function} {state}")).or_default() += 1;
                            } else {
                                mine.unexpected.push(format!("{function} on {}: {state} {msg}", task.db));
                            }
                        }
                    }
                    if fresh {
                        let m = memory(client);
                        clients.get_mut(&task.db).unwrap().1 = m;
                    }
                }
                for (_, (client, first)) in clients.iter_mut() {
                    mine.memory.push((*first, memory(client)));
                    mine.temp_left_open += temp_relations(client);
                }
                let mut t = tally.lock().unwrap();
                for (f, v) in mine.calls {
                    t.calls.entry(f).or_default().extend(v);
                }
                for (k, n) in mine.expected_errors {
                    *t.expected_errors.entry(k).or_default() += n;
                }
                t.unexpected.extend(mine.unexpected);
                t.memory.extend(mine.memory);
                t.temp_left_open += mine.temp_left_open;
            })
        })
        .collect();
    for h in handles {
        h.join().expect("a session panicked");
    }
    let elapsed = started.elapsed().as_secs_f64();
    let mut t = Arc::try_unwrap(tally).ok().unwrap().into_inner().unwrap();
    let temp_left_closed: i64 = dbs.iter().map(|db| temp_relations(&mut connect(db))).sum();
    let changed: Vec<&String> = dbs.iter().filter(|db| table_digest(&mut connect(db)) != before[*db]).collect();

    let total: usize = t.calls.values().map(Vec::len).sum();
    println!("\n| function | calls | median ms | p95 ms |\n|---|---|---|---|");
    for (f, v) in t.calls.iter_mut() {
        let n = v.len();
        println!("| {f} | {n} | {:.1} | {:.1} |", pct(v, 0.5), pct(v, 0.95));
    }
    println!("\ncalls: {total} in {elapsed:.1} s = {:.1} calls/s ({sessions} sessions)", total as f64 / elapsed);
    println!("documented refusals (answers, not failures): {:?}", t.expected_errors);
    println!("unexpected errors: {}", t.unexpected.len());
    for u in t.unexpected.iter().take(20) {
        println!("  {u}");
    }
    println!("temp relations left: {} with the sessions open, {} after they closed", t.temp_left_open, temp_left_closed);
    println!("databases whose data changed: {} {:?}", changed.len(), changed);
    let mut growth: Vec<f64> = t.memory.iter().map(|(a, b)| (b - a) as f64 / 1024.0).collect();
    let firsts: Vec<f64> = t.memory.iter().map(|(a, _)| *a as f64 / 1024.0).collect();
    println!(
        "backend memory ({} connections): after the first call median {:.0} kB; growth to the last call median {:.0} kB, max {:.0} kB",
        t.memory.len(),
        pct(&mut firsts.clone(), 0.5),
        pct(&mut growth.clone(), 0.5),
        pct(&mut growth, 1.0)
    );
}
