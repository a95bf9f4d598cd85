//! The value index (pgvector + pg_trgm): `nl2sql_index_values` builds and refreshes it,
//! `nl2sql_search_values` finds the values a text names.
//!
//! Privileges: values are read as the caller (through the safe executor), so only columns and rows
//! the caller can SELECT are indexed by that caller; the index is written with the extension
//! owner's privileges and nobody reads it directly. A search returns a value only if the caller
//! may SELECT its column **and** the value is visible to the caller now (re-checked against the
//! live table through the executor, so row-level security and deletions since the refresh count).

use std::collections::BTreeSet;

use nl2sql_core::catalog::{quote_ident, RelKind, RelName};
use nl2sql_core::ground::values::{self, ColumnProfile, ValueMatch};
use nl2sql_core::result::Outcome;
use pgrx::prelude::*;
use serde_json::Value;

use crate::spi::executor::{self, ExecOptions};
use crate::spi::owner::{as_extension_owner, extension_owner};
use crate::spi::catalog;

/// Dimensions of `nl2sql.value_index.embedding` (all-MiniLM-L6-v2).
pub const DIMENSIONS: usize = 384;
const EMBED_BATCH: usize = 64;

/// One column's outcome of an indexing run.
#[derive(Debug, Clone)]
pub struct IndexedColumn {
    pub table: RelName,
    pub column: String,
    pub status: &'static str,
    pub reason: Option<String>,
    pub values: i64,
    pub embedded: i64,
    pub removed: i64,
}

/// pgvector's text form of an embedding, if it has the dimensions nl2sql's vector columns store.
pub fn vector_literal(v: &[f32]) -> Result<String, String> {
    if v.len() != DIMENSIONS {
        return Err(format!("the embedding model returns {} dimensions; nl2sql stores {DIMENSIONS}", v.len()));
    }
    Ok(format!("[{}]", v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")))
}

fn raise_dimensions(e: String) -> ! {
    crate::errors::raise(
        "22000",
        e,
        Some("Use an embedding model with 384 dimensions (all-MiniLM-L6-v2) for nl2sql.embedding_model."),
    )
}

/// The embedding of one text as a pgvector literal; raises when the model is unreachable or its
/// vectors have the wrong dimensions.
pub fn embed_one(text: &str) -> String {
    embed_all(&[text.to_string()]).pop().expect("one embedding")
}

/// The schema an extension lives in, quoted (for its types and operators).
pub fn ext_schema(name: &str) -> String {
    let schema = Spi::get_one_with_args::<String>(
        "SELECT n.nspname::text FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
          WHERE e.extname = $1",
        &[name.into()],
    )
    .ok()
    .flatten()
    .unwrap_or_else(|| crate::errors::raise("55000", format!("extension {name} is not installed"), None));
    quote_ident(&schema)
}

fn one_row(sql: &str) -> Result<Vec<Value>, String> {
    match executor::run(sql, &ExecOptions::from_settings(1)) {
        Ok(Outcome::Rows(r)) => r.rows.into_iter().next().ok_or_else(|| "no row".to_string()),
        Ok(Outcome::Failed(f)) => Err(f.message),
        Err(refusal) => Err(refusal.to_string()),
    }
}

fn profile(rel: &RelName, column: &str) -> Result<ColumnProfile, String> {
    let row = one_row(&values::profile_sql(rel, column, 5000))?;
    let n = |i: usize| row.get(i).and_then(Value::as_f64).unwrap_or(0.0);
    Ok(ColumnProfile { non_null: n(0) as u64, distinct: n(1) as u64, avg_length: n(2), numeric_share: n(3), uuid_share: n(4) })
}

fn embed_all(texts: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(texts.len());
    for chunk in texts.chunks(EMBED_BATCH) {
        for v in crate::llm::embed(chunk).vectors {
            out.push(vector_literal(&v).unwrap_or_else(|e| raise_dimensions(e)));
        }
    }
    out
}

/// Record a column's state in `nl2sql.value_columns` (as the owner).
fn record(owner: pg_sys::Oid, c: &IndexedColumn, distinct: Option<i64>, model: &str) {
    let (schema, table, column) = (c.table.schema.clone(), c.table.name.clone(), c.column.clone());
    let (status, reason, values, model) = (c.status.to_string(), c.reason.clone(), c.values, model.to_string());
    as_extension_owner(owner, move || {
        Spi::run_with_args(
            "INSERT INTO nl2sql.value_columns AS v (table_schema, table_name, column_name, status, reason, distinct_values,
                    indexed_values, model, refreshed_at, changes_at_refresh)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now(),
                    (SELECT s.n_tup_ins + s.n_tup_upd + s.n_tup_del FROM pg_catalog.pg_stat_all_tables s
                      WHERE s.schemaname = $1 AND s.relname = $2))
             ON CONFLICT (table_schema, table_name, column_name) DO UPDATE SET status = EXCLUDED.status,
                    reason = EXCLUDED.reason, distinct_values = EXCLUDED.distinct_values,
                    indexed_values = EXCLUDED.indexed_values, model = EXCLUDED.model,
                    refreshed_at = EXCLUDED.refreshed_at, changes_at_refresh = EXCLUDED.changes_at_refresh",
            &[schema.into(), table.into(), column.into(), status.into(), reason.into(), distinct.into(), values.into(), model.into()],
        )
    })
    .unwrap_or_else(|e| crate::errors::raise("55000", format!("could not write nl2sql.value_columns: {e}"), None));
}

/// Remove a column's values that are not in `keep` (all of them when `keep` is empty); returns how many.
fn remove_except(owner: pg_sys::Oid, rel: &RelName, column: &str, keep: Vec<String>, model: &str) -> i64 {
    let (schema, table, column, model) = (rel.schema.clone(), rel.name.clone(), column.to_string(), model.to_string());
    as_extension_owner(owner, move || {
        Spi::get_one_with_args::<i64>(
            "WITH d AS (DELETE FROM nl2sql.value_index WHERE table_schema = $1 AND table_name = $2 AND column_name = $3
                         AND (value <> ALL($4) OR model <> $5) RETURNING 1)
             SELECT count(*) FROM d",
            &[schema.into(), table.into(), column.into(), keep.into(), model.into()],
        )
    })
    .ok()
    .flatten()
    .unwrap_or(0)
}

/// Build or refresh the value index for `target` (or every relation the caller can SELECT).
pub fn index_values(target: Option<pg_sys::Oid>) -> Vec<IndexedColumn> {
    let catalog = catalog::read();
    let wanted: Option<RelName> = target.map(|oid| {
        let row = Spi::get_two_with_args::<String, String>(
            "SELECT n.nspname::text, c.relname::text FROM pg_catalog.pg_class c
               JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = $1",
            &[oid.into()],
        );
        match row {
            Ok((Some(s), Some(n))) => RelName::new(s, n),
            _ => crate::errors::raise("42P01", format!("relation with OID {} does not exist", oid.to_u32()), None),
        }
    });
    if let Some(w) = &wanted {
        if catalog.table(w).is_none() {
            crate::errors::raise("42501", format!("permission denied for {w}"), Some("Index only relations you can SELECT."));
        }
    }
    let owner = extension_owner();
    let model = crate::llm::embedding_endpoint().model;
    let vector = ext_schema("vector");
    let max_values = crate::gucs::VALUE_INDEX_MAX_VALUES.get().max(1) as usize;
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
        for col in &t.columns {
            let mut c = IndexedColumn {
                table: t.name.clone(),
                column: col.name.clone(),
                status: "skipped",
                reason: None,
                values: 0,
                embedded: 0,
                removed: 0,
            };
            if !values::is_text_type(&col.type_name) {
                continue; // not worth a row in the status
            }
            let is_key = keys.contains(col.name.as_str());
            // keys are skipped without reading the column
            let p = if is_key {
                ColumnProfile::default()
            } else {
                match profile(&t.name, &col.name) {
                    Ok(p) => p,
                    Err(e) => {
                        c.reason = Some(format!("could not be read: {e}"));
                        record(owner, &c, None, &model);
                        out.push(c);
                        continue;
                    }
                }
            };
            if let Err(skip) = values::worth_indexing(&col.name, &col.type_name, is_key, &p) {
                c.reason = Some(skip.reason().to_string());
                c.removed = remove_except(owner, &t.name, &col.name, Vec::new(), &model);
                record(owner, &c, None, &model);
                out.push(c);
                continue;
            }
            let current: Vec<String> = match executor::run(&values::values_sql(&t.name, &col.name, max_values), &ExecOptions::from_settings(max_values as i32)) {
                Ok(Outcome::Rows(r)) => r.rows.into_iter().filter_map(|row| row.into_iter().next()?.as_str().map(str::to_string)).collect(),
                Ok(Outcome::Failed(f)) => {
                    c.reason = Some(format!("could not be read: {}", f.message));
                    record(owner, &c, None, &model);
                    out.push(c);
                    continue;
                }
                Err(r) => crate::errors::raise("XX000", format!("values query refused: {r}"), None),
            };
            c.removed = remove_except(owner, &t.name, &col.name, current.clone(), &model);
            let (schema, table, column, m) = (t.name.schema.clone(), t.name.name.clone(), col.name.clone(), model.clone());
            let have: BTreeSet<String> = as_extension_owner(owner, move || {
                Spi::connect(|client| {
                    client
                        .select(
                            "SELECT value FROM nl2sql.value_index WHERE table_schema = $1 AND table_name = $2 AND column_name = $3 AND model = $4",
                            None,
                            &[schema.into(), table.into(), column.into(), m.into()],
                        )
                        .map(|rows| rows.filter_map(|r| r.get::<String>(1).ok().flatten()).collect())
                        .unwrap_or_default()
                })
            });
            let new: Vec<String> = current.iter().filter(|v| !have.contains(*v)).cloned().collect();
            if !new.is_empty() {
                pgrx::notice!("nl2sql_index_values: {}.{}: embedding {} new of {} values", t.name, col.name, new.len(), current.len());
                let embeddings = embed_all(&new);
                let (schema, table, column, m) = (t.name.schema.clone(), t.name.name.clone(), col.name.clone(), model.clone());
                let sql = format!(
                    "INSERT INTO nl2sql.value_index (table_schema, table_name, column_name, value, embedding, model)
                     SELECT $1, $2, $3, u.v, u.e::{vector}.vector, $6 FROM unnest($4::text[], $5::text[]) AS u(v, e)
                     ON CONFLICT (table_schema, table_name, column_name, value)
                     DO UPDATE SET embedding = EXCLUDED.embedding, model = EXCLUDED.model, indexed_at = now()"
                );
                let batch = new.clone();
                as_extension_owner(owner, move || {
                    Spi::run_with_args(&sql, &[schema.into(), table.into(), column.into(), batch.into(), embeddings.into(), m.into()])
                })
                .unwrap_or_else(|e| crate::errors::raise("55000", format!("could not write nl2sql.value_index: {e}"), None));
            }
            c.status = "indexed";
            c.values = current.len() as i64;
            c.embedded = new.len() as i64;
            record(owner, &c, Some(p.distinct as i64), &model);
            out.push(c);
        }
    }
    out
}

/// The keywords of a question, from the model (one call): what it names that a cell could hold.
pub fn question_keywords(question: &str, evidence: Option<&str>, endpoint: &nl2sql_core::llm::Endpoint)
    -> Result<(Vec<String>, nl2sql_core::llm::ChatReply), String> {
    use nl2sql_core::ask::prompts;
    let reply = crate::llm::try_chat_at(
        endpoint,
        nl2sql_core::llm::ChatRequest {
            messages: prompts::keywords(question, evidence),
            temperature: 0.0,
            max_tokens: Some(200),
            json_schema: Some(("keywords".into(), prompts::keywords_schema())),
            ..Default::default()
        },
    )
    .map_err(|e| e.to_string())?;
    let keywords = prompts::parse_keywords(&reply.content)?;
    Ok((keywords, reply))
}

/// Values any of the search terms names (each term embedded and searched by embedding and by
/// trigrams), that the caller may see; best first, the best score of each value over the terms.
pub fn try_search_values(
    terms: &[String],
    max_results: usize,
    per_column: usize,
    min_score: f64,
) -> Result<Vec<ValueMatch>, nl2sql_core::llm::LlmError> {
    let terms: Vec<String> = terms.iter().map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect();
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let embeddings = crate::llm::try_embed(&terms)?.vectors;
    let embeddings: Vec<String> = embeddings.iter().map(|e| vector_literal(e).unwrap_or_else(|e| raise_dimensions(e))).collect();
    let (vector, trgm) = (ext_schema("vector"), ext_schema("pg_trgm"));
    let owner = extension_owner();
    let semantic_sql = format!(
        "SELECT table_schema::text, table_name::text, column_name::text, value,
                (1 - (embedding OPERATOR({vector}.<=>) $1::{vector}.vector))::float8
           FROM nl2sql.value_index ORDER BY embedding OPERATOR({vector}.<=>) $1::{vector}.vector LIMIT 100"
    );
    let lexical_sql = format!(
        "SELECT table_schema::text, table_name::text, column_name::text, value, {trgm}.word_similarity(value, $1)::float8
           FROM nl2sql.value_index WHERE value OPERATOR({trgm}.<%) $1 ORDER BY 5 DESC LIMIT 100"
    );
    // (argument, by embedding?) of each search: every term's embedding, then the term's text
    let searches: Vec<(String, bool)> =
        terms.into_iter().zip(embeddings).flat_map(|(term, embedding)| [(embedding, true), (term, false)]).collect();
    let found: Vec<ValueMatch> = as_extension_owner(owner, move || {
        Spi::connect(|client| {
            let mut out = Vec::new();
            for (arg, semantic) in searches {
                let sql = if semantic { &semantic_sql } else { &lexical_sql };
                let rows = client.select(sql, None, &[arg.into()]).unwrap_or_else(|e| {
                    crate::errors::raise("XX000", format!("value index search failed: {e}"), None)
                });
                for r in rows {
                    let s = |i: usize| r.get::<String>(i).ok().flatten().unwrap_or_default();
                    let score = r.get::<f64>(5).ok().flatten().unwrap_or(0.0);
                    out.push(ValueMatch {
                        table: RelName::new(s(1), s(2)),
                        column: s(3),
                        value: s(4),
                        semantic: semantic.then_some(score),
                        lexical: (!semantic).then_some(score),
                    });
                }
            }
            out
        })
    });
    // as the caller again: column privilege, then the value's visibility in the live table
    let mut allowed = Vec::new();
    for m in values::combine(found, min_score, per_column) {
        if allowed.len() >= max_results {
            break;
        }
        let may = Spi::get_one_with_args::<bool>(
            "SELECT pg_catalog.to_regclass($1) IS NOT NULL AND pg_catalog.has_column_privilege($1, $2, 'SELECT')",
            &[m.table.to_string().into(), m.column.clone().into()],
        )
        .ok()
        .flatten()
        .unwrap_or(false);
        if !may {
            continue;
        }
        if let Ok(Outcome::Rows(r)) = executor::run(&values::visible_sql(&m.table, &m.column, &m.value), &ExecOptions::from_settings(1)) {
            if !r.rows.is_empty() {
                allowed.push(m);
            }
        }
    }
    Ok(allowed)
}

/// Whether any column of `tables` is in the value index.
pub fn indexed_any(tables: &[RelName]) -> bool {
    let owner = extension_owner();
    let names: Vec<String> = tables.iter().map(|t| format!("{}.{}", t.schema, t.name)).collect();
    as_extension_owner(owner, move || {
        Spi::get_one_with_args::<bool>(
            "SELECT EXISTS (SELECT 1 FROM nl2sql.value_columns WHERE status = 'indexed' AND indexed_values > 0
                             AND (table_schema || '.' || table_name) = ANY($1))",
            &[names.into()],
        )
    })
    .ok()
    .flatten()
    .unwrap_or(false)
}
