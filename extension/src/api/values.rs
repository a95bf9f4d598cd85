//! The value index: `nl2sql_index_values` builds and refreshes it, `nl2sql_search_values` finds
//! the values a text names (only values the caller may SELECT now).

use std::collections::BTreeSet;

use nl2sql_core::ask::prompts;
use nl2sql_core::catalog::{RelKind, RelName};
use nl2sql_core::effects::{Database, Model};
use nl2sql_core::error::{Error, Kind, Result};
use nl2sql_core::ground::values::{self, ColumnProfile, SearchLimits};
use nl2sql_core::llm::ChatRequest;
use pgrx::prelude::*;

use crate::error::{required, IntoSql};
use pgrx::pg_sys::panic::ErrorReport;
use crate::model::EndpointModel;
use crate::spi::database::SpiDatabase;
use crate::spi::owner::extension_owner;
use crate::spi::value_index::{self as index, ColumnState};

const EMBED_BATCH: usize = 64;

/// One column's outcome of an indexing run.
struct IndexedColumn {
    table: RelName,
    column: String,
    status: &'static str,
    reason: Option<String>,
    values: i64,
    embedded: i64,
    removed: i64,
}

fn embed_all(model: &mut EndpointModel, texts: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::with_capacity(texts.len());
    for chunk in texts.chunks(EMBED_BATCH) {
        for v in model.embed(chunk)?.vectors {
            out.push(index::vector_literal(&v)?);
        }
    }
    Ok(out)
}

/// Build or refresh the value index for `target` (or every relation the caller can SELECT).
fn index_values(target: Option<pg_sys::Oid>) -> Result<Vec<IndexedColumn>> {
    let catalog = SpiDatabase.catalog()?;
    let wanted = target.map(index::relation).transpose()?;
    if let Some(w) = &wanted {
        if catalog.table(w).is_none() {
            return Err(Error::new(Kind::Privilege, format!("permission denied for {w}")).with_hint("Index only relations you can SELECT."));
        }
    }
    let owner = extension_owner()?;
    let mut model = EndpointModel::from_settings(None)?;
    let model_name = model.embedding.model.clone();
    let max_values = crate::settings::VALUE_INDEX_MAX_VALUES.get().max(1) as usize;
    let mut out = Vec::new();
    for t in catalog.tables.iter().filter(|t| t.kind != RelKind::ForeignTable) {
        if wanted.as_ref().is_some_and(|w| w != &t.name) || t.name.schema == "nl2sql" {
            continue;
        }
        let keys: BTreeSet<&str> = t
            .primary_key
            .iter()
            .map(String::as_str)
            .chain(catalog.foreign_keys.iter().filter(|fk| fk.from == t.name).flat_map(|fk| fk.from_columns.iter().map(String::as_str)))
            .collect();
        for col in t.columns.iter().filter(|c| values::is_text_type(&c.type_name)) {
            let mut c = IndexedColumn { table: t.name.clone(), column: col.name.clone(), status: "skipped", reason: None, values: 0, embedded: 0, removed: 0 };
            let state = |c: &IndexedColumn, distinct: Option<i64>| ColumnState {
                table: &t.name,
                column: &col.name,
                status: c.status,
                reason: c.reason.clone(),
                distinct,
                indexed: c.values,
                model: &model_name,
            };
            let is_key = keys.contains(col.name.as_str());
            // what to index, or why not: keys are skipped without reading the column
            let plan = (|| -> std::result::Result<(ColumnProfile, Vec<String>), (String, bool)> {
                let unreadable = |e: String| (format!("could not be read: {e}"), false);
                let p = if is_key { ColumnProfile::default() } else { index::profile(&t.name, &col.name).map_err(unreadable)? };
                values::worth_indexing(&col.name, &col.type_name, is_key, &p).map_err(|skip| (skip.reason().to_string(), true))?;
                Ok((p, index::current_values(&t.name, &col.name, max_values).map_err(unreadable)?))
            })();
            let (p, current) = match plan {
                Ok(plan) => plan,
                Err((reason, not_worth_it)) => {
                    c.reason = Some(reason);
                    if not_worth_it {
                        c.removed = index::remove_except(owner, &t.name, &col.name, Vec::new(), &model_name)?;
                    }
                    index::record(owner, state(&c, None))?;
                    out.push(c);
                    continue;
                }
            };
            c.removed = index::remove_except(owner, &t.name, &col.name, current.clone(), &model_name)?;
            let have = index::indexed_values(owner, &t.name, &col.name, &model_name)?;
            let new: Vec<String> = current.iter().filter(|v| !have.contains(*v)).cloned().collect();
            if !new.is_empty() {
                pgrx::notice!("nl2sql_index_values: {}.{}: embedding {} new of {} values", t.name, col.name, new.len(), current.len());
                let embeddings = embed_all(&mut model, &new)?;
                index::insert_values(owner, &t.name, &col.name, new.clone(), embeddings, &model_name)?;
            }
            c.status = "indexed";
            c.values = current.len() as i64;
            c.embedded = new.len() as i64;
            index::record(owner, state(&c, Some(p.distinct as i64)))?;
            out.push(c);
        }
    }
    Ok(out)
}

/// Build or refresh the value index for one relation (or every relation you can SELECT): text
/// columns worth indexing get their distinct values embedded (only values not indexed yet).
#[pg_extern(volatile, parallel_unsafe)]
#[allow(clippy::type_complexity)]
fn nl2sql_index_values(
    target: default!(Option<pgrx::PgRelation>, "NULL"),
) -> std::result::Result<TableIterator<'static, (
    name!(table_schema, String),
    name!(table_name, String),
    name!(column_name, String),
    name!(status, String),
    name!(reason, Option<String>),
    name!(indexed_values, i64),
    name!(embedded, i64),
    name!(removed, i64),
)>, ErrorReport> {
    crate::spi::require_writable("nl2sql_index_values", "writes the value index", "Build the value index on the primary; a standby reads the replicated one.").sql()?;
    let rows = index_values(target.map(|r| r.oid())).sql()?;
    Ok(TableIterator::new(rows.into_iter().map(|c| (c.table.schema, c.table.name, c.column, c.status.to_string(), c.reason, c.values, c.embedded, c.removed))))
}

/// The keywords of a text, from the model (one call): what it names that a cell could hold.
fn keywords_of(model: &mut EndpointModel, text: &str) -> Result<Vec<String>> {
    let reply = model.chat(ChatRequest {
        messages: prompts::keywords(text, None),
        temperature: 0.0,
        max_tokens: Some(200),
        json_schema: Some(("keywords".into(), prompts::keywords_schema())),
        ..Default::default()
    })?;
    prompts::parse_keywords(&reply.content)
        .map_err(|e| Error::new(Kind::Model, format!("the model gave no keywords: {e}")).with_hint("Search without keywords, or check the chat endpoint."))
}

/// Values in the index that a text names (by embedding similarity or trigram word similarity),
/// restricted to values you can SELECT now. With `keywords`, the chat model first lists what the
/// text names (one call) and every keyword is searched as well as the whole text.
#[pg_extern(volatile, parallel_unsafe)]
#[allow(clippy::type_complexity)]
fn nl2sql_search_values(
    search_text: Option<&str>,
    max_results: default!(Option<i32>, 10),
    per_column: default!(Option<i32>, 3),
    min_score: default!(Option<f64>, 0.45),
    keywords: default!(Option<bool>, false),
) -> std::result::Result<TableIterator<'static, (
    name!(table_schema, String),
    name!(table_name, String),
    name!(column_name, String),
    name!(value, String),
    name!(score, f64),
    name!(matched_by, String),
)>, ErrorReport> {
    let text = required(search_text, "search_text", "Pass the words to look up.").sql()?;
    let hint = "Leave it out for its default.";
    let (max_results, per_column) = (required(max_results, "max_results", hint).sql()?, required(per_column, "per_column", hint).sql()?);
    let (min_score, with_keywords) = (required(min_score, "min_score", hint).sql()?, required(keywords, "keywords", hint).sql()?);
    if max_results < 1 || per_column < 1 || !(0.0..=1.0).contains(&min_score) {
        return Err(Error::invalid("max_results and per_column must be positive, min_score in [0, 1]")).sql();
    }
    let mut model = EndpointModel::from_settings(None).sql()?;
    let mut terms = if with_keywords { keywords_of(&mut model, text).sql()? } else { Vec::new() };
    terms.push(text.to_string());
    let mut db = SpiDatabase;
    let catalog = db.catalog().sql()?;
    let limits = SearchLimits { max_results: max_results as usize, per_column: per_column as usize, min_score };
    let hits = values::search(&mut db, &mut model, &catalog, &terms, limits, &[]).sql()?;
    Ok(TableIterator::new(hits.into_iter().map(|m| {
        let (score, by) = (m.score(), m.matched_by().to_string());
        (m.table.schema, m.table.name, m.column, m.value, score, by)
    })))
}
