//! Benchmark 5: schema-linking recall on Spider dev, with and without the FK closure.
//!
//!     bench/load_spider.sh && scripts/llm.sh start
//!     cargo run --release --example value_index     # builds the value index of each database
//!     cargo run --release --example schema_linking -- [--draft SYSTEM] [DATA_DIR]
//!
//! Gold: the tables and columns the gold SQL references (read from its syntax tree). Linked:
//! reversed linking from a draft SQL (by default the GPT-4 zero-shot candidate of
//! ../shared/data, a system other than the best ones), optionally value linking (columns whose
//! values `nl2sql_search_values` finds for the question), each without and with the closure over
//! foreign keys. Reported: the share of questions whose every gold table is linked, column recall
//! (over all gold columns), and the mean number of tables linked (the price of recall).

use std::collections::BTreeMap;

#[path = "spider.rs"]
mod spider;

use nl2sql_core::catalog::{Catalog, RelName};
use nl2sql_core::ground::link::{close_over_foreign_keys, referenced, Linked};
use nl2sql_core::sql::check_query;
use serde_json::Value;
use spider::connect;

#[derive(Default)]
struct Score {
    questions: usize,
    all_tables: usize,
    gold_columns: usize,
    columns: usize,
    tables_linked: usize,
}

impl Score {
    fn add(&mut self, gold: &Linked, got: &Linked) {
        self.questions += 1;
        self.all_tables += gold.tables.iter().all(|t| got.tables.contains(t)) as usize;
        self.gold_columns += gold.columns.len();
        self.columns += gold.columns.iter().filter(|c| got.columns.contains(*c)).count();
        self.tables_linked += got.tables.len();
    }
    fn line(&self, name: &str) -> String {
        format!(
            "  {name:32} tables {:5.1}%   columns {:5.1}%   tables linked {:.2}",
            100.0 * self.all_tables as f64 / self.questions.max(1) as f64,
            100.0 * self.columns as f64 / self.gold_columns.max(1) as f64,
            self.tables_linked as f64 / self.questions.max(1) as f64
        )
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut draft_system = "GPT-4 zero-shot".to_string();
    let mut data = format!("{}/../shared/data", env!("CARGO_MANIFEST_DIR"));
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--draft" {
            draft_system = args[i + 1].clone();
            i += 1;
        } else {
            data = args[i].clone();
        }
        i += 1;
    }
    let all: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(format!("{data}/spider/candidates.json")).expect("candidates.json")).unwrap();
    let mut clients = BTreeMap::new();
    let mut catalogs: BTreeMap<String, Catalog> = BTreeMap::new();
    let names = ["draft", "draft + FK closure", "draft + values", "draft + values + FK closure"];
    let mut scores: Vec<Score> = names.iter().map(|_| Score::default()).collect();
    let mut bridged = 0;
    for item in &all {
        let db = format!("spider_{}", item["db_id"].as_str().unwrap().to_lowercase());
        let client = clients.entry(db.clone()).or_insert_with(|| connect(&db));
        let catalog = catalogs.entry(db.clone()).or_insert_with(|| {
            let text: String = client.query_one("SELECT nl2sql_schema()::text", &[]).unwrap().get(0);
            serde_json::from_str(&text).unwrap()
        });
        let Ok(gold) = check_query(item["gold_pg"].as_str().unwrap()) else { continue };
        let gold = referenced(&gold.query, catalog);
        let draft_sql = item["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["system"] == Value::String(draft_system.clone()))
            .and_then(|c| c["sql"].as_str())
            .unwrap_or("");
        let draft = check_query(draft_sql).map(|c| referenced(&c.query, catalog)).unwrap_or_default();
        let mut values = Linked::default();
        for r in client
            .query("SELECT table_schema, table_name, column_name FROM nl2sql_search_values($1, 10)", &[&item["question"].as_str().unwrap()])
            .unwrap()
        {
            values.add_column(RelName::new(r.get::<_, String>(0), r.get::<_, String>(1)), r.get::<_, String>(2));
        }
        let with_values = draft.clone().union(&values);
        let closed = close_over_foreign_keys(&draft, catalog);
        let closed_values = close_over_foreign_keys(&with_values, catalog);
        bridged += (!closed_values.bridges.is_empty()) as usize;
        for (s, l) in scores.iter_mut().zip([&draft, &closed, &with_values, &closed_values]) {
            s.add(&gold, l);
        }
    }
    println!("Benchmark 5: schema-linking recall on Spider dev ({} questions), draft SQL from {draft_system}", scores[0].questions);
    println!("command: cargo run --release --example schema_linking -- --draft \"{draft_system}\"");
    for (n, s) in names.iter().zip(&scores) {
        println!("{}", s.line(n));
    }
    println!("  questions where the closure added a bridge table: {bridged}");
}
