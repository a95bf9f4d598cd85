//! The SQL functions of the foundation: the safe executor, the catalog as the caller sees it,
//! and the model servers' status.

use std::time::Instant;

use nl2sql_core::llm::{ChatRequest, Message};
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::{json, Value};

use crate::spi::{catalog, executor};

/// Run one read-only query safely and return its rows (or its error) as JSON.
///
/// `{ok, columns:[{name,type}], rows:[[...]], row_count, truncated, truncated_by, elapsed_ms}` or
/// `{ok:false, sqlstate, error, detail?, hint?, timed_out, refused?, elapsed_ms}`.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_try(sql: &str, max_rows: default!(i32, 100)) -> JsonB {
    if max_rows < 0 {
        crate::errors::raise("22023", "max_rows must not be negative", Some("Pass 0 for columns only."));
    }
    let opts = executor::ExecOptions::from_settings(max_rows);
    JsonB(match executor::run(sql, &opts) {
        Ok(outcome) => outcome.to_json(),
        Err(refusal) => json!({
            "ok": false,
            "refused": true,
            "sqlstate": refusal.sqlstate(),
            "error": refusal.to_string(),
            "hint": refusal.hint(),
            "timed_out": false,
            "elapsed_ms": 0.0,
        }),
    })
}

/// The schema nl2sql works with for the current user: relations they can SELECT, visible
/// columns, keys, comments, row estimates, and foreign keys.
#[pg_extern(stable, parallel_safe)]
fn nl2sql_schema() -> JsonB {
    JsonB(serde_json::to_value(catalog::read()).expect("catalog serialises"))
}

/// Embed a text with the configured embedding model; cast the result to `vector` for pgvector.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_embed(input: &str) -> Vec<f32> {
    crate::llm::embed(&[input.to_string()]).vectors.into_iter().next().unwrap_or_default()
}

/// Whether the chat and embedding endpoints answer, with what, and how fast. Never raises for an
/// endpoint's failure: it reports it.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_llm_status() -> JsonB {
    let chat_ep = crate::llm::chat_endpoint();
    let started = Instant::now();
    let chat = match crate::llm::try_chat(ChatRequest {
        messages: vec![Message::user("Reply with the single word OK.")],
        max_tokens: Some(4),
        ..Default::default()
    }) {
        Ok(r) => json!({"ok": true, "model": r.model, "reply": r.content,
                         "latency_ms": started.elapsed().as_millis() as u64}),
        Err(e) => json!({"ok": false, "sqlstate": e.sqlstate(), "error": e.to_string()}),
    };
    let embed_ep = crate::llm::embedding_endpoint();
    let started = Instant::now();
    let embedding = match crate::llm::try_embed(&["ping".to_string()]) {
        Ok(r) => json!({"ok": true, "dimensions": r.vectors.first().map_or(0, Vec::len),
                         "latency_ms": started.elapsed().as_millis() as u64}),
        Err(e) => json!({"ok": false, "sqlstate": e.sqlstate(), "error": e.to_string()}),
    };
    let with_endpoint = |mut v: Value, ep: &nl2sql_core::llm::Endpoint| {
        v["endpoint"] = json!(nl2sql_core::llm::client::redact_url(&ep.base_url));
        v["configured_model"] = json!(ep.model);
        v
    };
    JsonB(json!({
        "chat": with_endpoint(chat, &chat_ep),
        "embedding": with_endpoint(embedding, &embed_ep),
    }))
}

// --- the ask pipeline ---------------------------------------------------------------------------


fn required_question(question: Option<&str>) -> &str {
    question.unwrap_or_else(|| crate::errors::raise("22004", "the question is NULL", Some("Pass a question in words.")))
}

fn run_notice(e: &crate::ask::Explanation) {
    match e.run_id {
        Some(id) => pgrx::notice!(
            "nl2sql run {id}: {} (SELECT * FROM nl2sql_explain({id}) shows why)",
            if e.verified { "verified" } else { "unverified" }
        ),
        None => pgrx::notice!("nl2sql: {} (audit is off)", if e.verified { "verified" } else { "unverified" }),
    }
}

/// Answer a question with SQL, ready for psql's `\gexec`. The run is in the audit log; a NOTICE
/// gives its id.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql(
    question: Option<&str>,
    evidence: default!(Option<&str>, "NULL"),
    options: default!(Option<JsonB>, "'{}'"),
) -> String {
    let e = crate::ask::ask("nl2sql", required_question(question), evidence, &options.map(|j| j.0).unwrap_or(Value::Null));
    run_notice(&e);
    e.chosen_sql
}

/// The same work as `nl2sql`, returned as its explanation: one row per step, the last one the
/// chosen SQL.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_run(
    question: Option<&str>,
    evidence: default!(Option<&str>, "NULL"),
    options: default!(Option<JsonB>, "'{}'"),
) -> TableIterator<'static, (
    name!(run_id, Option<i64>),
    name!(step, i32),
    name!(stage, String),
    name!(status, String),
    name!(detail, String),
    name!(sql, Option<String>),
    name!(data, Option<JsonB>),
)> {
    let e = crate::ask::ask("nl2sql_run", required_question(question), evidence, &options.map(|j| j.0).unwrap_or(Value::Null));
    run_notice(&e);
    let run_id = e.run_id;
    TableIterator::new(
        e.rows.into_iter().map(move |r| r.into_tuple(run_id)),
    )
}

/// The explanation of a past run, from the audit log.
#[pg_extern(stable, parallel_safe)]
fn nl2sql_explain(run_id: i64) -> TableIterator<'static, (
    name!(run_id, Option<i64>),
    name!(step, i32),
    name!(stage, String),
    name!(status, String),
    name!(detail, String),
    name!(sql, Option<String>),
    name!(data, Option<JsonB>),
)> {
    let rows = crate::ask::explain(run_id);
    TableIterator::new(
        rows.into_iter().map(move |r| r.into_tuple(Some(run_id))),
    )
}

/// Answer a question and return the chosen SQL's rows (one jsonb object per row) through the
/// safe executor: for tools that can only call a function.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_execute(
    question: Option<&str>,
    evidence: default!(Option<&str>, "NULL"),
    options: default!(Option<JsonB>, "'{}'"),
) -> SetOfIterator<'static, JsonB> {
    let options = options.map(|j| j.0).unwrap_or(Value::Null);
    let max_rows = crate::ask::AskOptions::from_json(&options).max_rows;
    let e = crate::ask::ask("nl2sql_execute", required_question(question), evidence, &options);
    run_notice(&e);
    let outcome = executor::run(&e.chosen_sql, &executor::ExecOptions::from_settings(max_rows))
        .unwrap_or_else(|refusal| crate::errors::raise(refusal.sqlstate(), refusal.to_string(), Some(refusal.hint())));
    if let nl2sql_core::result::Outcome::Failed(f) = &outcome {
        crate::errors::raise(&f.sqlstate, format!("the chosen SQL failed: {}", f.message), f.hint.as_deref());
    }
    SetOfIterator::new(crate::ask::rows_as_objects(&outcome).into_iter().map(JsonB))
}

/// The checklist of one SQL for one question, without any model: what the question requires, the
/// phrase that says so, and whether the SQL's syntax tree satisfies it; then the checker chain
/// (`check:<name>` rows), which reads the catalog and, for the time checker, a few stored values
/// of text columns compared with dates, as the caller.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_verify(
    question: &str,
    sql: &str,
) -> TableIterator<'static, (name!(constraint, String), name!(source_phrase, String), name!(satisfied, bool), name!(message, String))> {
    use nl2sql_core::constraints::{self, facts};
    let f = facts::facts_of(sql, facts::SqlDialect::Postgres)
        .unwrap_or_else(|e| crate::errors::raise("42601", format!("SQL could not be parsed: {e}"), None));
    let verdicts = constraints::verify_all(&constraints::extract(question, None), &f);
    let mut rows: Vec<(String, String, bool, String)> = verdicts
        .into_iter()
        .map(|v| {
            let message = if v.satisfied { "satisfied".to_string() } else { v.message.clone() };
            (v.constraint.name().to_string(), v.constraint.phrase.clone(), v.satisfied, message)
        })
        .collect();
    // the checker chain: a repair directive is a failed row, a note a satisfied one that says so
    if let Ok(checked) = nl2sql_core::sql::check_query(sql) {
        let (findings, _) = crate::ask::run_checkers(&checked.query, &crate::spi::catalog::read(), question);
        rows.extend(findings.into_iter().map(|f| {
            let repair = f.severity == nl2sql_core::checks::Severity::Repair;
            (format!("check:{}", f.checker), String::new(), !repair, if repair { f.message } else { format!("note: {}", f.message) })
        }));
    }
    TableIterator::new(rows)
}

// --- choosing among candidates -----------------------------------------------------------------

/// Choose among candidate SQL for a question: run them, cluster them by result, and when they
/// disagree let the model answer the question on tiny separating instances cut from the real
/// data. One row per candidate; exactly one is chosen when any candidate ran.
#[pg_extern(volatile, parallel_unsafe)]
#[allow(clippy::type_complexity)]
fn nl2sql_select(
    question: Option<&str>,
    candidates: Option<Vec<Option<String>>>,
    evidence: default!(Option<&str>, "NULL"),
    options: default!(Option<JsonB>, "'{}'"),
) -> TableIterator<'static, (
    name!(candidate, i32),
    name!(sql, String),
    name!(status, String),
    name!(error, Option<String>),
    name!(cluster, Option<i32>),
    name!(cluster_size, Option<i32>),
    name!(confidence, Option<f64>),
    name!(wins, Option<f64>),
    name!(score, Option<f64>),
    name!(chosen, bool),
    name!(reason, String),
    name!(instance, Option<JsonB>),
)> {
    let candidates = candidates.unwrap_or_else(|| {
        crate::errors::raise("22004", "candidates is NULL", Some("Pass an array of SQL texts."))
    });
    let (run_id, rows) = crate::select::select(
        required_question(question),
        &candidates,
        evidence,
        &options.map(|j| j.0).unwrap_or(Value::Null),
    );
    match run_id {
        Some(id) => pgrx::notice!("nl2sql run {id}: SELECT * FROM nl2sql_explain({id}) shows the duels"),
        None => pgrx::notice!("nl2sql_select: audit is off"),
    }
    TableIterator::new(rows.into_iter().map(|r| {
        (
            r.candidate,
            r.sql,
            r.status,
            r.error,
            r.cluster,
            r.cluster_size,
            r.confidence,
            r.wins,
            r.score,
            r.chosen,
            r.reason,
            r.instance.map(JsonB),
        )
    }))
}

/// The smallest instance found, cut from the real rows, on which two queries differ: its rows
/// (foreign-key closure rows marked), both answers on it and the time it took; or the evidence
/// that the two queries return the same result on the current data.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_distinguish(sql_a: &str, sql_b: &str, options: default!(Option<JsonB>, "'{}'")) -> JsonB {
    JsonB(crate::select::distinguish(sql_a, sql_b, &options.map(|j| j.0).unwrap_or(Value::Null)))
}

// --- the value index -------------------------------------------------------------------------------

/// Build or refresh the value index for one relation (or every relation you can SELECT): text
/// columns worth indexing get their distinct values embedded (only values not indexed yet).
#[pg_extern(volatile, parallel_unsafe)]
#[allow(clippy::type_complexity)]
fn nl2sql_index_values(
    target: default!(Option<pgrx::PgRelation>, "NULL"),
) -> TableIterator<'static, (
    name!(table_schema, String),
    name!(table_name, String),
    name!(column_name, String),
    name!(status, String),
    name!(reason, Option<String>),
    name!(values, i64),
    name!(embedded, i64),
    name!(removed, i64),
)> {
    let rows = crate::values::index_values(target.map(|r| r.oid()));
    TableIterator::new(rows.into_iter().map(|c| {
        (c.table.schema, c.table.name, c.column, c.status.to_string(), c.reason, c.values, c.embedded, c.removed)
    }))
}

/// Values in the index that a text names (by embedding similarity or trigram word similarity),
/// restricted to values you can SELECT now. With `keywords`, the chat model first lists what the
/// text names (one call) and every keyword is searched as well as the whole text.
#[pg_extern(volatile, parallel_unsafe)]
#[allow(clippy::type_complexity)]
fn nl2sql_search_values(
    text: &str,
    max_results: default!(i32, 10),
    per_column: default!(i32, 3),
    min_score: default!(f64, 0.45),
    keywords: default!(bool, false),
) -> TableIterator<'static, (
    name!(table_schema, String),
    name!(table_name, String),
    name!(column_name, String),
    name!(value, String),
    name!(score, f64),
    name!(matched_by, String),
)> {
    if max_results < 1 || per_column < 1 || !(0.0..=1.0).contains(&min_score) {
        crate::errors::raise("22023", "max_results and per_column must be positive, min_score in [0, 1]", None);
    }
    // with keywords: the model picks what the text names first, and each keyword (and the whole
    // text) is searched
    let terms: Vec<String> = if keywords {
        let (mut k, _) = crate::values::question_keywords(text, None, &crate::llm::chat_endpoint()).unwrap_or_else(|e| {
            crate::errors::raise("38000", format!("the model gave no keywords: {e}"), Some("Search without keywords, or check the chat endpoint."))
        });
        k.push(text.to_string());
        k
    } else {
        vec![text.to_string()]
    };
    let hits = crate::values::try_search_values(&terms, max_results as usize, per_column as usize, min_score)
        .unwrap_or_else(|e| crate::errors::raise_llm(&e));
    TableIterator::new(hits.into_iter().map(|m| {
        let (score, by) = (m.score(), m.matched_by().to_string());
        (m.table.schema, m.table.name, m.column, m.value, score, by)
    }))
}

/// A verdict on a run: `verdict => 'correct'` confirms its chosen SQL, `correct_sql` gives the right
/// one (`verdict` then defaults to 'wrong'), a bare `'wrong'` rejects the chosen SQL. Experts whose
/// candidate disagrees with the right result (or agrees with a rejected one) lose weight; a
/// verified question/SQL pair joins nl2sql.examples. Needs UPDATE on nl2sql.experts.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_feedback(run_id: i64, correct_sql: default!(Option<&str>, "NULL"), verdict: default!(Option<&str>, "NULL")) -> JsonB {
    JsonB(crate::feedback::feedback(run_id, correct_sql, verdict))
}
