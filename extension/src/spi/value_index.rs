//! The value index's tables (pgvector + pg_trgm): what `nl2sql_index_values` reads and writes,
//! and the raw nearest-value searches behind `nl2sql_search_values` and the ask pipeline's values
//! stage.
//!
//! Privileges: values are read as the caller (through the safe executor), so only columns and rows
//! the caller can SELECT are indexed by that caller; the index is written and searched with the
//! extension owner's privileges, and nobody reads it directly. Which matches a caller gets back is
//! decided by the core (`nl2sql_core::ground::values::search`): a value only if the caller may
//! SELECT its column and sees it in the live table now.

use std::collections::BTreeSet;

use nl2sql_core::catalog::{quote_ident, RelName};
use nl2sql_core::effects::ValueSearch;
use nl2sql_core::error::{Error, Kind, Result};
use nl2sql_core::ground::values::{self, ColumnProfile, ValueMatch};
use nl2sql_core::result::Outcome;
use pgrx::prelude::*;
use serde_json::Value;

use super::executor::{self, ExecOptions};
use super::owner::as_extension_owner;

/// Dimensions of `nl2sql.value_index.embedding` and `nl2sql.examples.embedding` (all-MiniLM-L6-v2).
pub const DIMENSIONS: usize = 384;

fn write_failed(table: &str) -> impl Fn(pgrx::spi::Error) -> Error + '_ {
    move |e| Error::new(Kind::ObjectState, format!("could not write nl2sql.{table}: {e}"))
}

/// pgvector's text form of an embedding, if it has the dimensions nl2sql's vector columns store.
pub fn vector_literal(v: &[f32]) -> Result<String> {
    if v.len() != DIMENSIONS {
        return Err(Error::new(Kind::ObjectState, format!("the embedding model returns {} dimensions; nl2sql stores {DIMENSIONS}", v.len()))
            .with_hint("Use an embedding model with 384 dimensions (all-MiniLM-L6-v2) for nl2sql.embedding_model."));
    }
    Ok(format!("[{}]", v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")))
}

/// The schema an extension lives in, quoted (for its types and operators).
pub fn ext_schema(name: &str) -> Result<String> {
    let schema = Spi::connect(|c| {
        c.select(
            "SELECT n.nspname::text FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
              WHERE e.extname = $1",
            None,
            &[name.into()],
        )?
        .first()
        .get_one::<String>()
    })
    .ok()
    .flatten()
    .ok_or_else(|| Error::new(Kind::ObjectState, format!("extension {name} is not installed")))?;
    Ok(quote_ident(&schema))
}

/// The relation with this OID.
pub fn relation(oid: pg_sys::Oid) -> Result<RelName> {
    let row = Spi::connect(|c| {
        let rows = c.select(
            "SELECT n.nspname::text, c.relname::text FROM pg_catalog.pg_class c
               JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = $1",
            None,
            &[oid.into()],
        )?;
        let mut found = None;
        for r in rows {
            found = Some((r.get::<String>(1)?, r.get::<String>(2)?));
        }
        Ok::<_, pgrx::spi::Error>(found)
    })
    .map_err(|e| Error::internal(e.to_string()))?;
    match row {
        Some((Some(s), Some(n))) => Ok(RelName::new(s, n)),
        _ => Err(Error::new(Kind::UndefinedObject, format!("relation with OID {} does not exist", oid.to_u32()))),
    }
}

fn one_row(sql: &str) -> std::result::Result<Vec<Value>, String> {
    match executor::run(sql, &ExecOptions::from_settings(1)) {
        Ok(Outcome::Rows(r)) => r.rows.into_iter().next().ok_or_else(|| "no row".to_string()),
        Ok(Outcome::Failed(f)) => Err(f.message),
        Err(refusal) => Err(refusal.to_string()),
    }
}

/// A sample profile of a column, read as the caller.
pub fn profile(rel: &RelName, column: &str) -> std::result::Result<ColumnProfile, String> {
    let row = one_row(&values::profile_sql(rel, column, 5000))?;
    let n = |i: usize| row.get(i).and_then(Value::as_f64).unwrap_or(0.0);
    Ok(ColumnProfile { non_null: n(0) as u64, distinct: n(1) as u64, avg_length: n(2), numeric_share: n(3), uuid_share: n(4) })
}

/// The distinct values of a column (the most frequent first, at most `max`), read as the caller.
pub fn current_values(rel: &RelName, column: &str, max: usize) -> std::result::Result<Vec<String>, String> {
    match executor::run(&values::values_sql(rel, column, max), &ExecOptions::from_settings(max)) {
        Ok(Outcome::Rows(r)) => Ok(r.rows.into_iter().filter_map(|row| row.into_iter().next()?.as_str().map(str::to_string)).collect()),
        Ok(Outcome::Failed(f)) => Err(f.message),
        Err(r) => Err(r.to_string()),
    }
}

/// A column's state in `nl2sql.value_columns`.
pub struct ColumnState<'a> {
    pub table: &'a RelName,
    pub column: &'a str,
    pub status: &'a str,
    pub reason: Option<String>,
    pub distinct: Option<i64>,
    pub indexed: i64,
    pub model: &'a str,
}

/// Record a column's state (as the owner).
pub fn record(owner: pg_sys::Oid, c: ColumnState) -> Result<()> {
    let (schema, table, column) = (c.table.schema.clone(), c.table.name.clone(), c.column.to_string());
    let (status, reason, distinct, indexed, model) = (c.status.to_string(), c.reason, c.distinct, c.indexed, c.model.to_string());
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
            &[schema.into(), table.into(), column.into(), status.into(), reason.into(), distinct.into(), indexed.into(), model.into()],
        )
    })
    .map_err(write_failed("value_columns"))
}

/// Remove a column's values that are not in `keep` (all of them when `keep` is empty) or were
/// embedded by another model; returns how many.
pub fn remove_except(owner: pg_sys::Oid, rel: &RelName, column: &str, keep: Vec<String>, model: &str) -> Result<i64> {
    let (schema, table, column, model) = (rel.schema.clone(), rel.name.clone(), column.to_string(), model.to_string());
    as_extension_owner(owner, move || {
        Spi::get_one_with_args::<i64>(
            "WITH d AS (DELETE FROM nl2sql.value_index WHERE table_schema = $1 AND table_name = $2 AND column_name = $3
                         AND (value <> ALL($4) OR model <> $5) RETURNING 1)
             SELECT count(*) FROM d",
            &[schema.into(), table.into(), column.into(), keep.into(), model.into()],
        )
    })
    .map(|n| n.unwrap_or(0))
    .map_err(write_failed("value_index"))
}

/// The values of a column already in the index for `model`.
pub fn indexed_values(owner: pg_sys::Oid, rel: &RelName, column: &str, model: &str) -> Result<BTreeSet<String>> {
    let (schema, table, column, model) = (rel.schema.clone(), rel.name.clone(), column.to_string(), model.to_string());
    as_extension_owner(owner, move || {
        Spi::connect(|client| {
            let rows = client.select(
                "SELECT value FROM nl2sql.value_index WHERE table_schema = $1 AND table_name = $2 AND column_name = $3 AND model = $4",
                None,
                &[schema.into(), table.into(), column.into(), model.into()],
            )?;
            let mut out = BTreeSet::new();
            for r in rows {
                if let Some(v) = r.get::<String>(1)? {
                    out.insert(v);
                }
            }
            Ok::<_, pgrx::spi::Error>(out)
        })
    })
    .map_err(|e| Error::internal(format!("reading nl2sql.value_index: {e}")))
}

/// Add (or re-embed) values with their embeddings (pgvector literals).
pub fn insert_values(owner: pg_sys::Oid, rel: &RelName, column: &str, values: Vec<String>, embeddings: Vec<String>, model: &str) -> Result<()> {
    let vector = ext_schema("vector")?;
    let (schema, table, column, model) = (rel.schema.clone(), rel.name.clone(), column.to_string(), model.to_string());
    let sql = format!(
        "INSERT INTO nl2sql.value_index (table_schema, table_name, column_name, value, embedding, model)
         SELECT $1, $2, $3, u.v, u.e::{vector}.vector, $6 FROM unnest($4::text[], $5::text[]) AS u(v, e)
         ON CONFLICT (table_schema, table_name, column_name, value)
         DO UPDATE SET embedding = EXCLUDED.embedding, model = EXCLUDED.model, indexed_at = now()"
    );
    as_extension_owner(owner, move || {
        Spi::run_with_args(&sql, &[schema.into(), table.into(), column.into(), values.into(), embeddings.into(), model.into()])
    })
    .map_err(write_failed("value_index"))
}

/// The index's nearest values to each search, by embedding and by trigrams (as the owner,
/// unfiltered: the core keeps what the caller may see).
pub fn candidates(searches: &[ValueSearch]) -> Result<Vec<ValueMatch>> {
    let (vector, trgm) = (ext_schema("vector")?, ext_schema("pg_trgm")?);
    let semantic_sql = format!(
        "SELECT table_schema::text, table_name::text, column_name::text, value,
                (1 - (embedding OPERATOR({vector}.<=>) $1::{vector}.vector))::float8
           FROM nl2sql.value_index ORDER BY embedding OPERATOR({vector}.<=>) $1::{vector}.vector LIMIT 100"
    );
    // within some schemas: their rows first (the primary key's prefix), then the exact distance,
    // so the approximate index cannot filter them away after its scan
    let semantic_within_sql = format!(
        "SELECT table_schema::text, table_name::text, column_name::text, value,
                (1 - (embedding OPERATOR({vector}.<=>) $1::{vector}.vector))::float8
           FROM (SELECT * FROM nl2sql.value_index WHERE table_schema::text = ANY($2) OFFSET 0) v
          ORDER BY embedding OPERATOR({vector}.<=>) $1::{vector}.vector LIMIT 100"
    );
    let lexical_sql = values::trigram_sql(&trgm);
    // (argument, by embedding?, schemas) of each search: every term's embedding, then the term's text
    let mut args: Vec<(String, bool, Vec<String>)> = Vec::new();
    for s in searches {
        // no embedding: the trigram search only
        if !s.embedding.is_empty() {
            args.push((vector_literal(&s.embedding)?, true, s.schemas.clone()));
        }
        args.push((s.term.clone(), false, s.schemas.clone()));
    }
    as_extension_owner(super::owner::extension_owner()?, move || {
        Spi::connect(|client| {
            let mut out = Vec::new();
            for (arg, semantic, schemas) in args {
                let rows = match (semantic, schemas.is_empty()) {
                    (true, true) => client.select(&semantic_sql, None, &[arg.into()])?,
                    (true, false) => client.select(&semantic_within_sql, None, &[arg.into(), schemas.into()])?,
                    (false, _) => client.select(&lexical_sql, None, &[arg.into(), schemas.into()])?,
                };
                for r in rows {
                    let s = |i: usize| r.get::<String>(i).ok().flatten().unwrap_or_default();
                    let score = r.get::<f64>(5)?.unwrap_or(0.0);
                    out.push(ValueMatch {
                        table: RelName::new(s(1), s(2)),
                        column: s(3),
                        value: s(4),
                        semantic: semantic.then_some(score),
                        lexical: (!semantic).then_some(score),
                    });
                }
            }
            Ok::<_, pgrx::spi::Error>(out)
        })
    })
    .map_err(|e| Error::internal(format!("value index search failed: {e}")))
}

/// Whether any column of `tables` is in the value index.
pub fn indexed_any(tables: &[RelName]) -> Result<bool> {
    let names: Vec<String> = tables.iter().map(|t| format!("{}.{}", t.schema, t.name)).collect();
    as_extension_owner(super::owner::extension_owner()?, move || {
        Spi::connect(|c| {
            c.select(
                "SELECT EXISTS (SELECT 1 FROM nl2sql.value_columns WHERE status = 'indexed' AND indexed_values > 0
                                 AND (table_schema || '.' || table_name) = ANY($1))",
                None,
                &[names.into()],
            )?
            .first()
            .get_one::<bool>()
        })
    })
    .map(|b| b.unwrap_or(false))
    .map_err(|e| Error::internal(format!("reading nl2sql.value_columns: {e}")))
}
