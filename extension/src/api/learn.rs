//! Teaching nl2sql a database: verified question/SQL pairs (`nl2sql_teach`, `nl2sql_examples`,
//! `nl2sql_forget`) and a glossary of business terms (`nl2sql_define`, `nl2sql_glossary`,
//! `nl2sql_undefine`). Every generation is shown the nearest examples and the terms its question
//! mentions (`nl2sql_core::ground::taught`). Writing needs the curating role (UPDATE on
//! nl2sql.experts, as `nl2sql_feedback` does); listing shows only what reads tables the caller may
//! SELECT.

use nl2sql_core::context::mask_schema_words;
use nl2sql_core::effects::{Database, Executor, Model};
use nl2sql_core::error::{Error, Kind, Result};
use nl2sql_core::ground::taught::{expression_is_visible, parse_expression, reads_only_visible_tables};
use nl2sql_core::result::Outcome;
use nl2sql_core::sql::check_query;
use pgrx::datum::TimestampWithTimeZone;
use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::{json, Value};

use crate::error::{required, IntoSql};
use crate::model::EndpointModel;
use crate::settings;
use crate::spi::database::SpiDatabase;
use crate::spi::experts::{current_user, may_give_feedback};
use crate::spi::owner::extension_owner;
use crate::spi::taught as store;
use crate::spi::value_index::vector_literal;

/// Only the curating role writes what every caller's generations are shown.
fn require_curator(function: &str) -> Result<()> {
    if !may_give_feedback()? {
        return Err(Error::new(Kind::Privilege, format!("permission denied for {function}: only a curator of nl2sql may change what it was taught"))
            .with_hint("An administrator grants the curating role with: GRANT UPDATE ON nl2sql.experts TO <role>;"));
    }
    Ok(())
}

fn non_empty<'a>(value: Option<&'a str>, argument: &str, hint: &str) -> Result<&'a str> {
    let value = required(value, argument, hint)?.trim();
    if value.is_empty() {
        return Err(Error::invalid(format!("{argument} is empty")).with_hint(hint.to_string()));
    }
    Ok(value)
}

/// Check the pair (the SQL gate, PostgreSQL's plan, a bounded run as the caller) and store it.
fn teach(question: &str, sql: &str) -> Result<Value> {
    let checked = check_query(sql).map_err(Error::from)?;
    let normal = checked.to_sql();
    let mut db = SpiDatabase;
    let fails = |f: nl2sql_core::result::ExecFailure, what: &str| {
        Error::reported(&f.sqlstate, format!("the SQL {what}: {}; nothing was stored", f.message), f.hint.or(Some("Correct the SQL and teach the pair again.".into())))
    };
    if let Outcome::Failed(f) = db.plan(&normal).map_err(Error::from)? {
        return Err(fails(f, "cannot be planned"));
    }
    let max_rows = settings::defaults().max_rows.max(1);
    let result = match db.run(&normal, max_rows).map_err(Error::from)? {
        Outcome::Failed(f) => return Err(fails(f, "does not run")),
        Outcome::Rows(r) => r,
    };
    let catalog = db.catalog()?;
    if !reads_only_visible_tables(&normal, &catalog) {
        return Err(Error::invalid("the SQL reads no table, or a table nl2sql cannot show to anyone who may read it; nothing was stored")
            .with_hint("Teach a query over the database's tables."));
    }
    let tables: Vec<String> = nl2sql_core::ground::link::referenced(&checked.query, &catalog).tables.iter().map(ToString::to_string).collect();
    let mut model = EndpointModel::from_settings(None)?;
    let vector = model.embed(&[mask_schema_words(question, &catalog)]).map_err(Error::from)?.vectors.pop().unwrap_or_default();
    let owner = extension_owner()?;
    let (example_id, replaced) = store::add_example(owner, question.to_string(), normal.clone(), vector_literal(&vector)?, None, current_user()?)?;
    Ok(json!({
        "example_id": example_id,
        "question": question,
        "sql": normal,
        "tables": tables,
        "rows": result.rows.len(),
        "truncated": result.truncated.is_some(),
        "replaced": replaced,
    }))
}

/// Teach nl2sql a question and the SQL that answers it. The SQL is checked (one read-only query,
/// planned, run as the caller within the executor's limits) and stored with who taught it and
/// when, replacing an earlier example of the same question. Every later generation is shown the
/// examples nearest to its question. Needs the curating role (UPDATE on nl2sql.experts).
/// Bulk loading: `SELECT nl2sql_teach(question, sql) FROM pairs`.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_teach(question: Option<&str>, sql: Option<&str>) -> std::result::Result<JsonB, ErrorReport> {
    let question = non_empty(question, "question", "Pass the question in words.").sql()?;
    let sql = non_empty(sql, "sql", "Pass the one read-only query that answers the question.").sql()?;
    crate::spi::require_writable("nl2sql_teach", "stores an example", "Teach on the primary.").sql()?;
    require_curator("nl2sql_teach").sql()?;
    Ok(JsonB(teach(question, sql).sql()?))
}

/// The verified examples the caller may see: those whose SQL reads only tables they may SELECT.
/// `run_id` is the run that `nl2sql_feedback` confirmed, NULL for a pair taught directly.
#[pg_extern(stable, parallel_unsafe)]
#[allow(clippy::type_complexity)]
fn nl2sql_examples() -> std::result::Result<TableIterator<'static, (
    name!(example_id, i64),
    name!(question, String),
    name!(sql, String),
    name!(run_id, Option<i64>),
    name!(added_by, String),
    name!(added_at, Option<TimestampWithTimeZone>),
)>, ErrorReport> {
    let catalog = SpiDatabase.catalog().sql()?;
    let rows: Vec<_> = store::examples(extension_owner().sql()?)
        .sql()?
        .into_iter()
        .filter(|e| reads_only_visible_tables(&e.sql, &catalog))
        .map(|e| (e.id, e.question, e.sql, e.run_id, e.added_by, e.added_at))
        .collect();
    Ok(TableIterator::new(rows))
}

/// Remove a verified example; whether it existed. Needs the curating role.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_forget(example_id: Option<i64>) -> std::result::Result<bool, ErrorReport> {
    let id = required(example_id, "example_id", "Pass the id of an example (nl2sql_examples()).").sql()?;
    crate::spi::require_writable("nl2sql_forget", "removes an example", "Remove it on the primary.").sql()?;
    require_curator("nl2sql_forget").sql()?;
    store::forget(extension_owner().sql()?, id).sql()
}

/// A term as the glossary keeps it: lower case, single spaces.
fn normal_term(term: &str) -> String {
    term.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

fn define(term: &str, meaning: &str, sql: Option<&str>) -> Result<Value> {
    let term = normal_term(term);
    let sql = sql.map(str::trim).filter(|s| !s.is_empty());
    if let Some(expr) = sql {
        if parse_expression(expr).is_none() {
            return Err(Error::new(Kind::Syntax, format!("the SQL of \"{term}\" is not one SQL expression: {expr}"))
                .with_hint("Give an expression such as sum(order_items.quantity * order_items.unit_price), or no SQL."));
        }
        if !expression_is_visible(expr, &SpiDatabase.catalog()?) {
            return Err(Error::new(Kind::UndefinedObject, format!("the SQL of \"{term}\" names a table that does not exist or that you cannot read: {expr}"))
                .with_hint("Write each column as table.column with the table's own name (not an alias), over tables you may SELECT."));
        }
    }
    let replaced = store::define(extension_owner()?, term.clone(), meaning.to_string(), sql.map(str::to_string), current_user()?)?;
    Ok(json!({"term": term, "meaning": meaning, "sql": sql, "replaced": replaced}))
}

/// Define a business term of this database ("active customer": "ordered in the last 90 days"),
/// with the SQL expression it stands for when it is one. Every generation whose question
/// mentions the term is shown it. Redefining a term replaces it. Needs the curating role.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_define(term: Option<&str>, meaning: Option<&str>, sql: default!(Option<&str>, "NULL")) -> std::result::Result<JsonB, ErrorReport> {
    let term = non_empty(term, "term", "Pass the term as users write it, e.g. 'active customer'.").sql()?;
    let meaning = non_empty(meaning, "meaning", "Say in words what the term means in this database.").sql()?;
    crate::spi::require_writable("nl2sql_define", "stores a glossary term", "Define it on the primary.").sql()?;
    require_curator("nl2sql_define").sql()?;
    Ok(JsonB(define(term, meaning, sql).sql()?))
}

/// Remove a glossary term; whether it existed. Needs the curating role.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_undefine(term: Option<&str>) -> std::result::Result<bool, ErrorReport> {
    let term = non_empty(term, "term", "Pass the term (nl2sql_glossary()).").sql()?;
    crate::spi::require_writable("nl2sql_undefine", "removes a glossary term", "Remove it on the primary.").sql()?;
    require_curator("nl2sql_undefine").sql()?;
    store::undefine(extension_owner().sql()?, normal_term(term)).sql()
}

/// The glossary the caller may see: every term, but one whose SQL names a table they cannot read.
#[pg_extern(stable, parallel_unsafe)]
#[allow(clippy::type_complexity)]
fn nl2sql_glossary() -> std::result::Result<TableIterator<'static, (
    name!(term, String),
    name!(meaning, String),
    name!(sql, Option<String>),
    name!(added_by, String),
    name!(added_at, Option<TimestampWithTimeZone>),
)>, ErrorReport> {
    let catalog = SpiDatabase.catalog().sql()?;
    let rows: Vec<_> = store::glossary(extension_owner().sql()?)
        .sql()?
        .into_iter()
        .filter(|t| t.sql.as_deref().is_none_or(|e| expression_is_visible(e, &catalog)))
        .map(|t| (t.term, t.meaning, t.sql, t.added_by, t.added_at))
        .collect();
    Ok(TableIterator::new(rows))
}
