//! Scripted implementations of the two interfaces, for driving every branch of the ask pipeline
//! and of selection with `cargo test` alone. They test control flow: what the decision code does
//! with each answer and each failure. They never stand in for a claim that a feature works with a
//! real database or model (the pgrx tests and the benchmarks make those).

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use serde_json::{json, Value};
use sqlparser::ast::{Ident, ObjectName};

use crate::catalog::{Catalog, Column, ForeignKey, RelKind, RelName, Table};
use crate::effects::{Database, Executor, Instances, Model, ValueSearch};
use crate::error::{Error, Result};
use crate::ground::taught::{Example, Term};
use crate::ground::values::ValueMatch;
use crate::llm::{ChatReply, ChatRequest, Embeddings, LlmError, Usage};
use crate::result::{ColumnInfo, ExecFailure, Outcome, ResultSet};
use crate::select::separate::{Report, Workspace};
use crate::sql::{check_query, Refusal};

/// `public.<name>`.
pub fn rel(name: &str) -> RelName {
    RelName::new("public", name)
}

/// `public.<name>` with these columns (name, type), `key` its primary key.
pub fn table(name: &str, columns: &[(&str, &str)], key: &str) -> Table {
    Table {
        name: rel(name),
        kind: RelKind::Table,
        comment: None,
        row_estimate: Some(10.0),
        columns: columns.iter().map(|(n, t)| Column { name: n.to_string(), type_name: t.to_string(), nullable: *n != key, comment: None }).collect(),
        primary_key: vec![key.to_string()],
    }
}

fn fk(from: &str, column: &str, to: &str) -> ForeignKey {
    ForeignKey { name: format!("{from}_{column}_fkey"), from: rel(from), from_columns: vec![column.into()], to: rel(to), to_columns: vec![column.into()] }
}

/// A small bookshop: authors, books, customers, orders.
pub fn bookshop() -> Catalog {
    Catalog {
        tables: vec![
            table("authors", &[("author_id", "integer"), ("name", "text"), ("country", "text")], "author_id"),
            table("books", &[("book_id", "integer"), ("title", "text"), ("price", "numeric"), ("author_id", "integer")], "book_id"),
            table("customers", &[("customer_id", "integer"), ("name", "text"), ("city", "text")], "customer_id"),
            table("orders", &[("order_id", "integer"), ("customer_id", "integer"), ("ordered_on", "date")], "order_id"),
        ],
        foreign_keys: vec![fk("books", "author_id", "authors"), fk("orders", "customer_id", "customers")],
        ..Default::default()
    }
}

/// A retail database as real ones are: several schemas (`sales`, `catalog`, `hr`), a mixed-case
/// quoted table and columns (`sales."Customers"."CustomerID"`), a composite key
/// (`sales.order_lines (order_id, line_no)`), a nullable foreign key (`hr.employees.manager_id`,
/// `sales.orders.coupon_code`), money, dates and timestamps. No benchmark was written on it.
pub fn retail() -> Catalog {
    let col = |n: &str, t: &str, nullable: bool| Column { name: n.into(), type_name: t.into(), nullable, comment: None };
    let t = |schema: &str, name: &str, columns: Vec<Column>, key: &[&str]| Table {
        name: RelName::new(schema, name),
        kind: RelKind::Table,
        comment: None,
        row_estimate: Some(1000.0),
        columns,
        primary_key: key.iter().map(|k| k.to_string()).collect(),
    };
    let fk = |from: (&str, &str), cols: &[&str], to: (&str, &str), to_cols: &[&str]| ForeignKey {
        name: format!("{}_{}_fkey", from.1, cols.join("_")),
        from: RelName::new(from.0, from.1),
        from_columns: cols.iter().map(|c| c.to_string()).collect(),
        to: RelName::new(to.0, to.1),
        to_columns: to_cols.iter().map(|c| c.to_string()).collect(),
    };
    Catalog {
        tables: vec![
            t("sales", "Customers", vec![col("CustomerID", "integer", false), col("FullName", "text", false), col("city", "text", true), col("signup_date", "date", true), col("balance", "money", true)], &["CustomerID"]),
            t("sales", "coupons", vec![col("coupon_code", "text", false), col("percent_off", "numeric(5,2)", false)], &["coupon_code"]),
            t("sales", "orders", vec![col("order_id", "bigint", false), col("CustomerID", "integer", false), col("coupon_code", "text", true), col("ordered_at", "timestamp with time zone", false), col("total", "money", false), col("status", "text", false)], &["order_id"]),
            t("sales", "order_lines", vec![col("order_id", "bigint", false), col("line_no", "integer", false), col("product_id", "integer", false), col("quantity", "integer", false), col("unit_price", "numeric(10,2)", false)], &["order_id", "line_no"]),
            t("catalog", "products", vec![col("product_id", "integer", false), col("name", "text", false), col("category", "text", true), col("price", "numeric(10,2)", false), col("discontinued", "boolean", false)], &["product_id"]),
            t("hr", "employees", vec![col("employee_id", "integer", false), col("name", "text", false), col("manager_id", "integer", true), col("hired_on", "date", false), col("salary", "numeric(12,2)", true)], &["employee_id"]),
        ],
        foreign_keys: vec![
            fk(("sales", "orders"), &["CustomerID"], ("sales", "Customers"), &["CustomerID"]),
            fk(("sales", "orders"), &["coupon_code"], ("sales", "coupons"), &["coupon_code"]),
            fk(("sales", "order_lines"), &["order_id"], ("sales", "orders"), &["order_id"]),
            fk(("sales", "order_lines"), &["product_id"], ("catalog", "products"), &["product_id"]),
            fk(("hr", "employees"), &["manager_id"], ("hr", "employees"), &["employee_id"]),
        ],
        ..Default::default()
    }
}

/// Rows with one text column per name.
pub fn rows(columns: &[&str], rows: Value) -> Outcome {
    Outcome::Rows(ResultSet {
        columns: columns.iter().map(|c| ColumnInfo { name: c.to_string(), type_name: "text".into() }).collect(),
        rows: serde_json::from_value(rows).expect("rows are arrays"),
        truncated: None,
        elapsed_ms: 1.0,
    })
}

/// A failure as PostgreSQL would report it.
pub fn failed(message: &str) -> Outcome {
    Outcome::Failed(ExecFailure {
        sqlstate: "42703".into(),
        message: message.into(),
        detail: None,
        hint: None,
        timed_out: false,
        elapsed_ms: 1.0,
    })
}

/// A database that answers queries from a script: the first entry whose key is contained in the
/// SQL as the parser prints it (keywords in capitals) answers it; anything else returns one row `[1]`.
#[derive(Default)]
pub struct ScriptedDb {
    pub catalog: Catalog,
    pub answers: Vec<(String, Outcome)>,
    /// Plans that fail, by key.
    pub plan_failures: Vec<(String, String)>,
    pub indexed: bool,
    pub value_matches: Vec<ValueMatch>,
    pub weights: BTreeMap<String, f64>,
    pub examples: Vec<Example>,
    pub glossary: Vec<Term>,
    /// Reports the instance workspace gives, one per call (the last repeats).
    pub instances: VecDeque<std::result::Result<Report, String>>,
    /// Effects that fail: "catalog", "indexed", "values", "weights", "examples", "glossary", "embeddings",
    /// "store_embeddings".
    pub failing: Vec<&'static str>,
    /// Stored embeddings, by (model, text).
    pub embeddings: BTreeMap<(String, String), Vec<f32>>,
    /// Every SQL text run, in order.
    pub ran: Vec<String>,
    /// Every SQL text planned.
    pub planned: Vec<String>,
    /// Every search of the value index.
    pub value_searches: Vec<ValueSearch>,
}

impl ScriptedDb {
    pub fn bookshop() -> Self {
        ScriptedDb { catalog: bookshop(), ..Default::default() }
    }

    pub fn answer(mut self, key: &str, outcome: Outcome) -> Self {
        self.answers.push((key.to_string(), outcome));
        self
    }

    pub fn plan_fails(mut self, key: &str, message: &str) -> Self {
        self.plan_failures.push((key.to_string(), message.into()));
        self
    }

    fn fail(&self, what: &str) -> Result<()> {
        if self.failing.contains(&what) {
            return Err(Error::internal(format!("scripted failure of {what}")));
        }
        Ok(())
    }
}

impl Executor for ScriptedDb {
    fn run(&mut self, sql: &str, max_rows: usize) -> std::result::Result<Outcome, Refusal> {
        let checked = check_query(sql)?;
        let sql = checked.to_sql();
        self.ran.push(sql.clone());
        let outcome = self.answers.iter().find(|(k, _)| sql.contains(k.as_str())).map(|(_, o)| o.clone()).unwrap_or_else(|| rows(&["x"], json!([[1]])));
        Ok(match outcome {
            Outcome::Rows(mut r) => {
                r.rows.truncate(max_rows);
                Outcome::Rows(r)
            }
            failed => failed,
        })
    }
}

impl Instances for ScriptedDb {
    fn resolve_table(&mut self, name: &ObjectName) -> std::result::Result<RelName, String> {
        let last = name.0.last().map(|p| p.to_string()).unwrap_or_default();
        self.catalog.tables.iter().find(|t| t.name.name == last).map(|t| t.name.clone()).ok_or_else(|| format!("relation {name} does not exist"))
    }

    fn instance_table(&self, i: usize) -> ObjectName {
        ObjectName::from(vec![Ident::new("pg_temp"), Ident::new(format!("instance_{i}"))])
    }

    fn instance_space(
        &mut self,
        _relations: &[RelName],
        _sides: [String; 2],
        _max_rows: usize,
        _search: &mut dyn FnMut(&mut dyn Workspace) -> std::result::Result<Report, String>,
    ) -> std::result::Result<Report, String> {
        if self.instances.len() > 1 {
            self.instances.pop_front().expect("non-empty")
        } else {
            self.instances.front().cloned().unwrap_or_else(|| Err("no instance scripted".into()))
        }
    }
}

impl Database for ScriptedDb {
    fn plan(&mut self, sql: &str) -> std::result::Result<Outcome, Refusal> {
        let sql = check_query(sql)?.to_sql();
        self.planned.push(sql.clone());
        Ok(match self.plan_failures.iter().find(|(k, _)| sql.contains(k.as_str())) {
            Some((_, message)) => failed(message),
            None => rows(&["QUERY PLAN"], json!([["Seq Scan"]])),
        })
    }

    fn catalog(&mut self) -> Result<Catalog> {
        self.fail("catalog")?;
        Ok(self.catalog.clone())
    }

    fn indexed_any(&mut self, _tables: &[RelName]) -> Result<bool> {
        self.fail("indexed")?;
        Ok(self.indexed)
    }

    fn value_candidates(&mut self, searches: &[ValueSearch]) -> Result<Vec<ValueMatch>> {
        self.value_searches.extend(searches.iter().cloned());
        self.fail("values")?;
        Ok(self.value_matches.clone())
    }

    fn expert_weights(&mut self) -> Result<BTreeMap<String, f64>> {
        self.fail("weights")?;
        Ok(self.weights.clone())
    }

    fn example_count(&mut self) -> Result<usize> {
        self.fail("examples")?;
        Ok(self.examples.len())
    }

    fn nearest_examples(&mut self, _embedding: &[f32], limit: usize) -> Result<Vec<Example>> {
        self.fail("examples")?;
        Ok(self.examples.iter().take(limit).cloned().collect())
    }

    fn glossary(&mut self) -> Result<Vec<Term>> {
        self.fail("glossary")?;
        Ok(self.glossary.clone())
    }

    fn stored_embeddings(&mut self, texts: &[String], model: &str) -> Result<BTreeMap<String, Vec<f32>>> {
        self.fail("embeddings")?;
        Ok(texts.iter().filter_map(|t| self.embeddings.get(&(model.to_string(), t.clone())).map(|v| (t.clone(), v.clone()))).collect())
    }

    fn store_embeddings(&mut self, entries: &[(String, Vec<f32>)], model: &str) -> Result<()> {
        self.fail("store_embeddings")?;
        for (t, v) in entries {
            self.embeddings.insert((model.to_string(), t.clone()), v.clone());
        }
        Ok(())
    }
}

/// A model that answers from a script: each chat request, single or fanned out, takes the next
/// reply (the last one repeats); embeddings are fixed vectors, or an error.
pub struct ScriptedModel {
    pub replies: VecDeque<std::result::Result<String, LlmError>>,
    pub requests: Vec<ChatRequest>,
    pub embed_fails: bool,
    /// How many fan-outs were asked for, and how many requests each held.
    pub fanouts: Vec<usize>,
    /// The embedding of particular texts (any other text embeds as `[0.1, 0.2, 0.3]`).
    pub vectors: BTreeMap<String, Vec<f32>>,
    /// Every text embedded, in order.
    pub embedded: Vec<String>,
}

/// A reply holding `{"sql": ...}`.
pub fn sql_reply(sql: &str) -> std::result::Result<String, LlmError> {
    Ok(json!({"sql": sql}).to_string())
}

pub fn text_reply(text: &str) -> std::result::Result<String, LlmError> {
    Ok(text.to_string())
}

/// What marks a scripted reply as cut off at `max_tokens` ([`cut_off_reply`]).
const CUT_OFF: &str = "\u{1}cut off\u{1}";

/// A reply the model stopped at `max_tokens`: `text` is all it wrote.
pub fn cut_off_reply(text: &str) -> std::result::Result<String, LlmError> {
    Ok(format!("{CUT_OFF}{text}"))
}

/// The error of an endpoint that does not answer.
pub fn unreachable() -> std::result::Result<String, LlmError> {
    Err(LlmError::Unreachable { endpoint: "http://127.0.0.1:1/v1".into(), cause: "connection refused".into() })
}

impl ScriptedModel {
    pub fn new(replies: Vec<std::result::Result<String, LlmError>>) -> Self {
        ScriptedModel { replies: replies.into(), requests: Vec::new(), embed_fails: false, fanouts: Vec::new(), vectors: BTreeMap::new(), embedded: Vec::new() }
    }

    fn next(&mut self, request: ChatRequest) -> std::result::Result<ChatReply, LlmError> {
        self.requests.push(request);
        let reply = if self.replies.len() > 1 { self.replies.pop_front() } else { self.replies.front().cloned() };
        let content = reply.unwrap_or_else(|| Err(LlmError::BadResponse { endpoint: "scripted".into(), cause: "no reply scripted".into() }))?;
        let (content, cut_off) = match content.strip_prefix(CUT_OFF) {
            Some(rest) => (rest.to_string(), true),
            None => (content, false),
        };
        Ok(ChatReply { content, model: "scripted".into(), usage: Usage { prompt_tokens: 10, completion_tokens: 2, cached_prompt_tokens: 0 }, attempts: 1, elapsed: Duration::from_millis(1), cut_off })
    }
}

impl Model for ScriptedModel {
    fn name(&self) -> String {
        "scripted".into()
    }

    fn embedding_model(&self) -> String {
        "scripted-embedding".into()
    }

    fn concurrency(&self) -> usize {
        2
    }

    fn chat(&mut self, request: ChatRequest) -> std::result::Result<ChatReply, LlmError> {
        self.next(request)
    }

    fn chat_all(&mut self, requests: Vec<ChatRequest>) -> Vec<std::result::Result<ChatReply, LlmError>> {
        self.fanouts.push(requests.len());
        requests.into_iter().map(|r| self.next(r)).collect()
    }

    fn embed(&mut self, inputs: &[String]) -> std::result::Result<Embeddings, LlmError> {
        if self.embed_fails {
            return Err(LlmError::Unreachable { endpoint: "http://127.0.0.1:2/v1".into(), cause: "connection refused".into() });
        }
        self.embedded.extend(inputs.iter().cloned());
        let vectors = inputs.iter().map(|i| self.vectors.get(i).cloned().unwrap_or_else(|| vec![0.1, 0.2, 0.3])).collect();
        Ok(Embeddings { vectors, usage: Usage::default(), elapsed: Duration::ZERO })
    }
}
