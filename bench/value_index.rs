//! Benchmark 4: the value index on the Spider dev databases: build throughput (values embedded per
//! second, from an empty index), retrieval latency of nl2sql_search_values per question, and
//! retrieval recall: the share of the string literals of the gold SQL (values the question names,
//! e.g. `WHERE country = 'France'`) that the search returns for the question among its top 10.
//!
//!     bench/load_spider.sh                      # once: the databases, with the extension
//!     scripts/llm.sh start                      # the embedding server
//!     cargo run --release --example value_index -- [--keywords] [DATA_DIR]
//!
//! With `--keywords`, the questions that name gold values are also searched with
//! `keywords => true` (the chat model lists the question's keywords first; each is searched with the
//! whole question), and recall and latency are reported for both ways on those questions.

use std::collections::BTreeMap;
use std::time::Instant;

#[path = "spider.rs"]
mod spider;

use serde_json::Value;
use spider::{connect, pct};
use sqlparser::ast::{Expr, Visit, Visitor};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;

/// String literals compared with `=` or `IN` in the gold SQL (the values the question names).
fn gold_values(sql: &str) -> Vec<String> {
    struct Lits(Vec<String>);
    impl Visitor for Lits {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> std::ops::ControlFlow<()> {
            let lit = |e: &Expr| match e {
                Expr::Value(v) => match &v.value {
                    sqlparser::ast::Value::SingleQuotedString(s) => Some(s.clone()),
                    _ => None,
                },
                _ => None,
            };
            match e {
                Expr::BinaryOp { left, op: sqlparser::ast::BinaryOperator::Eq, right } => {
                    self.0.extend(lit(left).or_else(|| lit(right)));
                }
                Expr::InList { list, .. } => self.0.extend(list.iter().filter_map(lit)),
                _ => {}
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let Ok(stmts) = Parser::parse_sql(&PostgreSqlDialect {}, sql) else { return vec![] };
    let mut v = Lits(Vec::new());
    let _ = stmts.visit(&mut v);
    v.0.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let with_keywords = args.iter().any(|a| a == "--keywords");
    let data = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .cloned()
        .unwrap_or_else(|| format!("{}/../shared/data", env!("CARGO_MANIFEST_DIR")));
    // questions that name gold values: (whole-text found, keywords found, wanted), latencies
    let (mut kw_plain, mut kw_found, mut kw_wanted, mut kw_latency, mut kw_questions) = (0usize, 0usize, 0usize, Vec::new(), 0usize);
    let questions: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(format!("{data}/spider/questions.json")).expect("questions.json")).unwrap();
    let mut by_db: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for q in &questions {
        by_db.entry(q["db_id"].as_str().unwrap().to_lowercase()).or_default().push(q);
    }
    let (mut values, mut build_s, mut latency, mut wanted, mut found) = (0i64, 0.0f64, Vec::new(), 0usize, 0usize);
    let (mut columns_indexed, mut columns_skipped) = (0i64, 0i64);
    println!("Benchmark 4: the value index on {} Spider dev databases", by_db.len());
    println!("command: cargo run --release --example value_index{}", if with_keywords { " -- --keywords" } else { "" });
    for (db, qs) in &by_db {
        let mut client = connect(&format!("spider_{db}"));
        client.batch_execute("TRUNCATE nl2sql.value_index, nl2sql.value_columns").unwrap();
        let t = Instant::now();
        let rows = client.query("SELECT status, embedded FROM nl2sql_index_values()", &[]).unwrap();
        let secs = t.elapsed().as_secs_f64();
        let embedded: i64 = rows.iter().map(|r| r.get::<_, i64>(1)).sum();
        columns_indexed += rows.iter().filter(|r| r.get::<_, String>(0) == "indexed").count() as i64;
        columns_skipped += rows.iter().filter(|r| r.get::<_, String>(0) == "skipped").count() as i64;
        values += embedded;
        build_s += secs;
        let (mut w, mut f) = (0, 0);
        for q in qs {
            let text = q["question"].as_str().unwrap();
            let t = Instant::now();
            let hits: Vec<String> = client
                .query("SELECT value FROM nl2sql_search_values($1, 10)", &[&text])
                .unwrap()
                .iter()
                .map(|r| r.get::<_, String>(0).to_lowercase())
                .collect();
            latency.push(t.elapsed().as_secs_f64() * 1000.0);
            let gold: Vec<String> = gold_values(q["gold_pg"].as_str().unwrap()).iter().map(|v| v.trim().to_lowercase()).collect();
            for v in &gold {
                w += 1;
                f += hits.contains(v) as usize;
            }
            if with_keywords && !gold.is_empty() {
                let t = Instant::now();
                let kw_hits: Vec<String> = match client.query("SELECT value FROM nl2sql_search_values($1, 10, keywords => true)", &[&text]) {
                    Ok(rows) => rows.iter().map(|r| r.get::<_, String>(0).to_lowercase()).collect(),
                    Err(e) => {
                        println!("  keywords for {text:?} failed: {e}");
                        Vec::new()
                    }
                };
                kw_latency.push(t.elapsed().as_secs_f64() * 1000.0);
                kw_questions += 1;
                for v in &gold {
                    kw_wanted += 1;
                    kw_plain += hits.contains(v) as usize;
                    kw_found += kw_hits.contains(v) as usize;
                }
            }
        }
        wanted += w;
        found += f;
        println!("  {db:32} {embedded:6} values in {secs:6.1} s; gold values found {f}/{w}");
    }
    println!("\ncolumns indexed {columns_indexed}, skipped {columns_skipped}");
    println!("build: {values} values in {build_s:.1} s = {:.0} values/s (embedding server on 2 cores)", values as f64 / build_s);
    println!(
        "search latency per question (ms): median {:.1} p95 {:.1} (n = {})",
        pct(&mut latency, 0.5),
        pct(&mut latency, 0.95),
        latency.len()
    );
    println!("retrieval recall of gold string values in the top 10: {found}/{wanted} = {:.1}%", 100.0 * found as f64 / wanted.max(1) as f64);
    if with_keywords {
        println!(
            "on the {kw_questions} questions naming gold values: recall@10 whole question {kw_plain}/{kw_wanted} = {:.1}%, \
             keywords from the model + whole question {kw_found}/{kw_wanted} = {:.1}%; keyword search latency median {:.0} ms p95 {:.0} ms",
            100.0 * kw_plain as f64 / kw_wanted.max(1) as f64,
            100.0 * kw_found as f64 / kw_wanted.max(1) as f64,
            pct(&mut kw_latency, 0.5),
            pct(&mut kw_latency, 0.95)
        );
    }
}
