//! Benchmark 4: the value index on the Spider dev databases: build throughput (values embedded per
//! second, from an empty index), retrieval latency of nl2sql_search_values per question, and
//! retrieval recall: the share of the string literals of the gold SQL (values the question names,
//! e.g. `WHERE country = 'France'`) that the search returns for the question among its top 10.
//!
//!     bench/load_spider.sh                      # once: the databases, with the extension
//!     scripts/llm.sh start                      # the embedding server
//!     cargo run --release --example value_index -- [DATA_DIR]

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
    let data = std::env::args().nth(1).unwrap_or_else(|| format!("{}/../shared/data", env!("CARGO_MANIFEST_DIR")));
    let questions: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(format!("{data}/spider/questions.json")).expect("questions.json")).unwrap();
    let mut by_db: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for q in &questions {
        by_db.entry(q["db_id"].as_str().unwrap().to_lowercase()).or_default().push(q);
    }
    let (mut values, mut build_s, mut latency, mut wanted, mut found) = (0i64, 0.0f64, Vec::new(), 0usize, 0usize);
    let (mut columns_indexed, mut columns_skipped) = (0i64, 0i64);
    println!("Benchmark 4: the value index on {} Spider dev databases", by_db.len());
    println!("command: cargo run --release --example value_index");
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
            for v in gold_values(q["gold_pg"].as_str().unwrap()) {
                w += 1;
                f += hits.contains(&v.trim().to_lowercase()) as usize;
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
}
