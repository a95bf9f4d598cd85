//! The catalog reader: relations the current user can SELECT, their visible columns, keys,
//! comments and row estimates, the foreign keys between them, and the caller's effective
//! `search_path`, in one SPI query per call.

use nl2sql_core::catalog::{Catalog, Column, ForeignKey, RelKind, RelName, Table};
use nl2sql_core::error::{Error, Result};
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::Value;

/// Everything is gathered as one jsonb document. Privileges are checked here, by the server:
/// a table appears when the user may SELECT it (or some of its columns) and use its schema;
/// a column appears only when the user may SELECT it.
const CATALOG_QUERY: &str = r#"
WITH rels AS (
    SELECT c.oid, n.nspname, c.relname, c.relkind, c.reltuples
    FROM pg_catalog.pg_class c
    JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
      AND NOT c.relispartition
      AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'nl2sql')
      AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp%'
      AND pg_catalog.has_schema_privilege(n.oid, 'USAGE')
      AND (pg_catalog.has_table_privilege(c.oid, 'SELECT')
           OR pg_catalog.has_any_column_privilege(c.oid, 'SELECT'))
)
SELECT jsonb_build_object(
  'search_path', to_jsonb(pg_catalog.current_schemas(false)::text[]),
  'tables', coalesce((
    SELECT jsonb_agg(jsonb_build_object(
      'schema', r.nspname, 'name', r.relname, 'kind', r.relkind::text,
      'comment', pg_catalog.obj_description(r.oid, 'pg_class'),
      'rows', CASE WHEN r.reltuples >= 0 THEN r.reltuples::float8 END,
      'columns', coalesce((
        SELECT jsonb_agg(jsonb_build_object(
          'name', a.attname, 'type', pg_catalog.format_type(a.atttypid, a.atttypmod),
          'nullable', NOT a.attnotnull, 'comment', pg_catalog.col_description(r.oid, a.attnum))
          ORDER BY a.attnum)
        FROM pg_catalog.pg_attribute a
        WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
          AND pg_catalog.has_column_privilege(r.oid, a.attnum, 'SELECT')), '[]'),
      'pk', coalesce((
        SELECT jsonb_agg(a.attname ORDER BY k.ord)
        FROM pg_catalog.pg_constraint p
        CROSS JOIN LATERAL unnest(p.conkey) WITH ORDINALITY AS k(attnum, ord)
        JOIN pg_catalog.pg_attribute a ON a.attrelid = p.conrelid AND a.attnum = k.attnum
        WHERE p.conrelid = r.oid AND p.contype = 'p'), '[]'))
      ORDER BY r.nspname, r.relname)
    FROM rels r), '[]'),
  'fks', coalesce((
    SELECT jsonb_agg(jsonb_build_object(
      'name', con.conname,
      'from_schema', fr.nspname, 'from', fr.relname,
      'to_schema', tr.nspname, 'to', tr.relname,
      'from_columns', (SELECT jsonb_agg(a.attname ORDER BY k.ord)
                       FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
                       JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum),
      'to_columns', (SELECT jsonb_agg(a.attname ORDER BY k.ord)
                     FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
                     JOIN pg_catalog.pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum))
      ORDER BY fr.nspname, fr.relname, con.conname)
    FROM pg_catalog.pg_constraint con
    JOIN rels fr ON fr.oid = con.conrelid
    JOIN rels tr ON tr.oid = con.confrelid
    WHERE con.contype = 'f' AND con.conparentid = 0), '[]'))
"#;

/// Read the catalog as the current user sees it (a read-only SPI connection, so it works on a
/// standby too).
pub fn read() -> Result<Catalog> {
    let doc = Spi::connect(|c| c.select(CATALOG_QUERY, None, &[])?.first().get_one::<JsonB>())
        .map_err(|e| Error::internal(format!("reading the catalog failed: {e}")))?
        .map(|j| j.0)
        .unwrap_or(Value::Null);
    Ok(from_document(&doc))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_string)).collect()
}

fn opt_string(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

fn from_document(doc: &Value) -> Catalog {
    let tables: Vec<Table> = doc["tables"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            Some(Table {
                name: RelName::new(t["schema"].as_str()?, t["name"].as_str()?),
                kind: RelKind::from_relkind(t["kind"].as_str()?.chars().next()?)?,
                comment: opt_string(&t["comment"]),
                row_estimate: t["rows"].as_f64(),
                columns: t["columns"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| {
                        Some(Column {
                            name: c["name"].as_str()?.to_string(),
                            type_name: c["type"].as_str()?.to_string(),
                            nullable: c["nullable"].as_bool().unwrap_or(true),
                            comment: opt_string(&c["comment"]),
                        })
                    })
                    .collect(),
                primary_key: strings(&t["pk"]),
            })
        })
        .collect();
    let visible = |schema: &str, name: &str, cols: &[String]| {
        tables.iter().any(|t| {
            t.name.schema == schema && t.name.name == name && cols.iter().all(|c| t.column(c).is_some())
        })
    };
    let foreign_keys = doc["fks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| {
            let fk = ForeignKey {
                name: f["name"].as_str()?.to_string(),
                from: RelName::new(f["from_schema"].as_str()?, f["from"].as_str()?),
                from_columns: strings(&f["from_columns"]),
                to: RelName::new(f["to_schema"].as_str()?, f["to"].as_str()?),
                to_columns: strings(&f["to_columns"]),
            };
            // a key whose columns the user cannot read reveals nothing usable: leave it out
            (visible(&fk.from.schema, &fk.from.name, &fk.from_columns)
                && visible(&fk.to.schema, &fk.to.name, &fk.to_columns))
            .then_some(fk)
        })
        .collect();
    Catalog { tables, foreign_keys, ..Default::default() }.on_search_path(strings(&doc["search_path"]))
}
