//! What curators taught nl2sql, in its own tables: the verified examples (`nl2sql.examples`) and
//! the glossary (`nl2sql.glossary`). Written and read with the extension owner's privileges; what
//! of them a caller sees is decided by the core (`nl2sql_core::ground::taught`).

use nl2sql_core::error::Result;
use pgrx::datum::TimestampWithTimeZone;
use pgrx::pg_sys;
use pgrx::prelude::*;

use super::experts::failed;
use super::owner::as_extension_owner;

/// A stored example, as listed.
pub struct StoredExample {
    pub id: i64,
    pub question: String,
    pub sql: String,
    pub run_id: Option<i64>,
    pub added_by: String,
    pub added_at: Option<TimestampWithTimeZone>,
}

/// A stored glossary entry, as listed.
pub struct StoredTerm {
    pub term: String,
    pub meaning: String,
    pub sql: Option<String>,
    pub added_by: String,
    pub added_at: Option<TimestampWithTimeZone>,
}

/// Add a verified example (its masked question's embedding as a pgvector literal), replacing the
/// examples of the same question (ignoring case and surrounding space); its id and the ids it
/// replaced.
pub fn add_example(owner: pg_sys::Oid, question: String, sql: String, embedding: String, run_id: Option<i64>, who: String) -> Result<(i64, Vec<i64>)> {
    let vs = super::value_index::ext_schema("vector")?;
    let insert = format!(
        "INSERT INTO nl2sql.examples (question, sql, embedding, run_id, added_by) VALUES ($1, $2, $3::{vs}.vector, $4, $5) RETURNING example_id"
    );
    as_extension_owner(owner, move || {
        let replaced: Vec<i64> = Spi::connect_mut(|c| {
            let rows = c.update(
                "DELETE FROM nl2sql.examples WHERE lower(btrim(question)) = lower(btrim($1)) RETURNING example_id",
                None,
                &[question.clone().into()],
            )?;
            let mut ids = Vec::new();
            for r in rows {
                ids.extend(r.get::<i64>(1)?);
            }
            Ok::<_, pgrx::spi::Error>(ids)
        })?;
        let id = Spi::get_one_with_args::<i64>(&insert, &[question.into(), sql.into(), embedding.into(), run_id.into(), who.into()])?;
        Ok::<_, pgrx::spi::Error>((id.unwrap_or_default(), replaced))
    })
    .map_err(failed("add the example"))
}

/// Every stored example, oldest first.
pub fn examples(owner: pg_sys::Oid) -> Result<Vec<StoredExample>> {
    as_extension_owner(owner, || {
        Spi::connect(|c| {
            let rows = c.select("SELECT example_id, question, sql, run_id, added_by::text, added_at FROM nl2sql.examples ORDER BY example_id", None, &[])?;
            let mut out = Vec::new();
            for r in rows {
                out.push(StoredExample {
                    id: r.get::<i64>(1)?.unwrap_or_default(),
                    question: r.get::<String>(2)?.unwrap_or_default(),
                    sql: r.get::<String>(3)?.unwrap_or_default(),
                    run_id: r.get::<i64>(4)?,
                    added_by: r.get::<String>(5)?.unwrap_or_default(),
                    added_at: r.get::<TimestampWithTimeZone>(6)?,
                });
            }
            Ok::<_, pgrx::spi::Error>(out)
        })
    })
    .map_err(failed("read nl2sql.examples"))
}

/// Remove one example; whether it existed.
pub fn forget(owner: pg_sys::Oid, id: i64) -> Result<bool> {
    as_extension_owner(owner, move || {
        Spi::get_one_with_args::<bool>("WITH gone AS (DELETE FROM nl2sql.examples WHERE example_id = $1 RETURNING 1) SELECT count(*) > 0 FROM gone", &[id.into()])
    })
    .map(|b| b.unwrap_or(false))
    .map_err(failed("remove the example"))
}

/// Define (or redefine) a term; whether it replaced a definition.
pub fn define(owner: pg_sys::Oid, term: String, meaning: String, sql: Option<String>, who: String) -> Result<bool> {
    as_extension_owner(owner, move || {
        Spi::get_one_with_args::<bool>(
            "WITH old AS (SELECT 1 FROM nl2sql.glossary WHERE term = $1),
                  put AS (INSERT INTO nl2sql.glossary AS g (term, meaning, sql, added_by) VALUES ($1, $2, $3, $4)
                          ON CONFLICT (term) DO UPDATE SET meaning = EXCLUDED.meaning, sql = EXCLUDED.sql,
                                 added_by = EXCLUDED.added_by, added_at = now()
                          RETURNING 1)
             SELECT EXISTS (SELECT 1 FROM old) FROM put",
            &[term.into(), meaning.into(), sql.into(), who.into()],
        )
    })
    .map(|b| b.unwrap_or(false))
    .map_err(failed("write nl2sql.glossary"))
}

/// Remove a term; whether it existed.
pub fn undefine(owner: pg_sys::Oid, term: String) -> Result<bool> {
    as_extension_owner(owner, move || {
        Spi::get_one_with_args::<bool>("WITH gone AS (DELETE FROM nl2sql.glossary WHERE term = $1 RETURNING 1) SELECT count(*) > 0 FROM gone", &[term.into()])
    })
    .map(|b| b.unwrap_or(false))
    .map_err(failed("remove the term"))
}

/// Every term, in order.
pub fn glossary(owner: pg_sys::Oid) -> Result<Vec<StoredTerm>> {
    as_extension_owner(owner, || {
        Spi::connect(|c| {
            let rows = c.select("SELECT term, meaning, sql, added_by::text, added_at FROM nl2sql.glossary ORDER BY term", None, &[])?;
            let mut out = Vec::new();
            for r in rows {
                out.push(StoredTerm {
                    term: r.get::<String>(1)?.unwrap_or_default(),
                    meaning: r.get::<String>(2)?.unwrap_or_default(),
                    sql: r.get::<String>(3)?,
                    added_by: r.get::<String>(4)?.unwrap_or_default(),
                    added_at: r.get::<TimestampWithTimeZone>(5)?,
                });
            }
            Ok::<_, pgrx::spi::Error>(out)
        })
    })
    .map_err(failed("read nl2sql.glossary"))
}
