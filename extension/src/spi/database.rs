//! The database interface of the decision code ([`nl2sql_core::effects`]) over SPI: the safe
//! executor, the catalog as the caller sees it, the value index, the experts' weights, the
//! verified examples, the glossary and the separating-instance workspace.
//!
//! Reads of the catalog use read-only SPI connections. The value index, the experts and the
//! examples are nl2sql's own tables, read with the extension owner's privileges; what of them a
//! caller gets to see is decided by the core (a value only if the caller may SELECT it now, an
//! example only if its SQL reads tables the caller can see).

use std::collections::BTreeMap;

use nl2sql_core::catalog::{Catalog, RelName};
use nl2sql_core::effects::{Database, Executor, Instances, ValueSearch};
use nl2sql_core::error::{Error, Kind, Result};
use nl2sql_core::ground::taught::{Example, Term};
use nl2sql_core::ground::values::ValueMatch;
use nl2sql_core::result::Outcome;
use nl2sql_core::select::separate::{Report, Workspace};
use nl2sql_core::sql::Refusal;
use nl2sql_core::sqlparser::ast::{Ident, ObjectName};
use pgrx::prelude::*;

use super::executor::{self, ExecOptions};
use super::instance::{instance_table, with_instance_space};
use super::owner::{as_extension_owner, extension_owner};
use super::value_index;

/// The database as the calling user sees it.
#[derive(Debug, Default)]
pub struct SpiDatabase;

fn spi_error(what: &str) -> impl Fn(pgrx::spi::Error) -> Error + '_ {
    move |e| Error::internal(format!("{what}: {e}"))
}

impl Executor for SpiDatabase {
    fn run(&mut self, sql: &str, max_rows: usize) -> std::result::Result<Outcome, Refusal> {
        executor::run(sql, &ExecOptions::from_settings(max_rows))
    }
}

impl Instances for SpiDatabase {
    fn resolve_table(&mut self, name: &ObjectName) -> std::result::Result<RelName, String> {
        let shown = name.to_string();
        let row = Spi::connect(|c| {
            let rows = c.select(
                "SELECT n.nspname::text, c.relname::text, c.relkind::text
                   FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                  WHERE c.oid = pg_catalog.to_regclass($1)",
                None,
                &[shown.clone().into()],
            )?;
            let mut found = None;
            for r in rows {
                found = Some((r.get::<String>(1)?, r.get::<String>(2)?, r.get::<String>(3)?));
            }
            Ok::<_, pgrx::spi::Error>(found)
        })
        .map_err(|e| format!("resolving {shown}: {e}"))?;
        match row {
            Some((Some(schema), Some(rel), Some(kind))) => match kind.as_str() {
                "r" | "m" => Ok(RelName::new(schema, rel)),
                "v" => Err(format!("{shown} is a view; separating instances are cut from tables only")),
                "p" => Err(format!("{shown} is a partitioned table; separating instances are cut from plain tables only")),
                _ => Err(format!("{shown} is not a table")),
            },
            _ => Err(format!("relation {shown} does not exist")),
        }
    }

    fn instance_table(&self, i: usize) -> ObjectName {
        if super::read_only_transaction() {
            // a CTE of the same name, put before each query (see spi::instance)
            ObjectName::from(vec![Ident::new(instance_table(i))])
        } else {
            ObjectName::from(vec![Ident::new("pg_temp"), Ident::new(instance_table(i))])
        }
    }

    fn instance_space(
        &mut self,
        relations: &[RelName],
        sides: [String; 2],
        max_rows: usize,
        search: &mut dyn FnMut(&mut dyn Workspace) -> std::result::Result<Report, String>,
    ) -> std::result::Result<Report, String> {
        with_instance_space(relations, sides, &ExecOptions::from_settings(max_rows), |ws| search(ws))
    }
}

impl Database for SpiDatabase {
    fn plan(&mut self, sql: &str) -> std::result::Result<Outcome, Refusal> {
        executor::explain(sql, &ExecOptions::from_settings(5))
    }

    fn catalog(&mut self) -> Result<Catalog> {
        super::catalog::read()
    }

    fn indexed_any(&mut self, tables: &[RelName]) -> Result<bool> {
        value_index::indexed_any(tables)
    }

    fn value_candidates(&mut self, searches: &[ValueSearch]) -> Result<Vec<ValueMatch>> {
        value_index::candidates(searches)
    }

    fn expert_weights(&mut self) -> Result<BTreeMap<String, f64>> {
        expert_weights()
    }

    fn example_count(&mut self) -> Result<usize> {
        // a read-only SPI connection: `Spi::get_one` executes as a writer, which a hot standby refuses
        as_extension_owner(extension_owner()?, || {
            Spi::connect(|c| c.select("SELECT count(*) FROM nl2sql.examples", None, &[])?.first().get_one::<i64>())
        })
        .map(|n| n.unwrap_or(0).max(0) as usize)
        .map_err(spi_error("counting nl2sql.examples"))
    }

    fn nearest_examples(&mut self, embedding: &[f32], limit: usize) -> Result<Vec<Example>> {
        let literal = value_index::vector_literal(embedding)?;
        let vs = value_index::ext_schema("vector")?;
        let sql = format!(
            "SELECT example_id, question, sql, (embedding OPERATOR({vs}.<=>) $1::{vs}.vector)::float8 AS distance \
               FROM nl2sql.examples ORDER BY distance, example_id LIMIT {limit}"
        );
        as_extension_owner(extension_owner()?, move || {
            Spi::connect(|c| {
                let rows = c.select(&sql, None, &[literal.into()])?;
                let mut out = Vec::new();
                for r in rows {
                    if let (Some(id), Some(question), Some(sql), Some(distance)) = (r.get::<i64>(1)?, r.get::<String>(2)?, r.get::<String>(3)?, r.get::<f64>(4)?) {
                        out.push(Example { id, question, sql, distance });
                    }
                }
                Ok::<_, pgrx::spi::Error>(out)
            })
        })
        .map_err(spi_error("reading nl2sql.examples"))
    }

    fn glossary(&mut self) -> Result<Vec<Term>> {
        as_extension_owner(extension_owner()?, || {
            Spi::connect(|c| {
                let rows = c.select("SELECT term, meaning, sql FROM nl2sql.glossary ORDER BY term", None, &[])?;
                let mut out = Vec::new();
                for r in rows {
                    if let (Some(term), Some(meaning)) = (r.get::<String>(1)?, r.get::<String>(2)?) {
                        out.push(Term { term, meaning, sql: r.get::<String>(3)? });
                    }
                }
                Ok::<_, pgrx::spi::Error>(out)
            })
        })
        .map_err(spi_error("reading nl2sql.glossary"))
    }

    fn stored_embeddings(&mut self, texts: &[String], model: &str) -> Result<BTreeMap<String, Vec<f32>>> {
        let (texts, model) = (texts.to_vec(), model.to_string());
        as_extension_owner(extension_owner()?, move || {
            Spi::connect(|c| {
                let rows = c.select(
                    "SELECT text, embedding::text FROM nl2sql.name_embeddings WHERE model = $1 AND text = ANY($2)",
                    None,
                    &[model.into(), texts.into()],
                )?;
                let mut out = BTreeMap::new();
                for r in rows {
                    if let (Some(t), Some(Some(v))) = (r.get::<String>(1)?, r.get::<String>(2)?.map(|v| parse_vector(&v))) {
                        out.insert(t, v);
                    }
                }
                Ok::<_, pgrx::spi::Error>(out)
            })
        })
        .map_err(spi_error("reading nl2sql.name_embeddings"))
    }

    fn store_embeddings(&mut self, entries: &[(String, Vec<f32>)], model: &str) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        if super::read_only_transaction() {
            return Err(Error::new(Kind::ReadOnly, "a read-only transaction stores no embeddings"));
        }
        let texts: Vec<String> = entries.iter().map(|(t, _)| t.clone()).collect();
        let vectors: Vec<String> = entries.iter().map(|(_, v)| value_index::vector_literal(v)).collect::<Result<_>>()?;
        let vs = value_index::ext_schema("vector")?;
        let sql = format!(
            "INSERT INTO nl2sql.name_embeddings (model, text, embedding)
             SELECT $1, u.t, u.e::{vs}.vector FROM unnest($2::text[], $3::text[]) AS u(t, e)
             ON CONFLICT (model, text) DO NOTHING"
        );
        let model = model.to_string();
        as_extension_owner(extension_owner()?, move || Spi::run_with_args(&sql, &[model.into(), texts.into(), vectors.into()]))
            .map_err(spi_error("writing nl2sql.name_embeddings"))
    }
}

/// Parse pgvector's text form (`[0.1,0.2]`).
fn parse_vector(text: &str) -> Option<Vec<f32>> {
    text.trim().strip_prefix('[')?.strip_suffix(']')?.split(',').map(|x| x.trim().parse::<f32>().ok()).collect()
}

/// The experts' weights (`nl2sql.experts`; an expert not there yet weighs 1).
pub fn expert_weights() -> Result<BTreeMap<String, f64>> {
    Spi::connect(|c| {
        let rows = c.select("SELECT expert, weight FROM nl2sql.experts", None, &[])?;
        let mut out = BTreeMap::new();
        for r in rows {
            if let (Some(e), Some(w)) = (r.get::<String>(1)?, r.get::<f64>(2)?) {
                out.insert(e, w);
            }
        }
        Ok::<_, pgrx::spi::Error>(out)
    })
    .map_err(|e| Error::new(Kind::ObjectState, format!("reading nl2sql.experts: {e}")))
}
