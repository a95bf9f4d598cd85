//! One pair of queries: the separating instance cut from the real rows on which they differ
//! (`nl2sql_distinguish`, and each duel of `nl2sql_select`), with what a person and the model
//! need to see of it.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sqlparser::ast::{ObjectName, Query};

use super::answer::{preview, same, RowSemantics};
use super::candidates::{orders_output, run_candidate, Ran, RunStatus};
use super::rewrite::{base_relations, lineage_queries, name_key, redirect};
use super::separate::{rows_sql, separate, Budget, Problem, Report, RowId};
use crate::catalog::{Catalog, RelName};
use crate::effects::Instances;
use crate::error::{Error, Kind, Result};
use crate::options::SelectOptions;
use crate::result::Outcome;
use crate::sql::check_query;

/// A pair's separating-instance search, with what a person or the model needs to see of it.
#[derive(Debug, Clone)]
pub struct PairInstance {
    pub report: Report,
    pub relations: Vec<RelName>,
    /// `{row_count, tables: [{table, columns, rows, fk_closure}]}`, or null when none was found.
    pub shown: Value,
    /// `{"schema.table": [{column: value}]}` for the model.
    pub for_model: Value,
    /// The instance's tables as schema lines for the model.
    pub schema_text: String,
    pub elapsed_ms: f64,
}

impl PairInstance {
    /// The search as the audit log and `nl2sql_distinguish` show it.
    pub fn search_json(&self) -> Value {
        let r = &self.report;
        json!({
            "strategy": r.found.as_ref().map(|f| f.strategy),
            "trials": r.trials,
            "unshrunk_rows": r.found.as_ref().map(|f| f.unshrunk_rows),
            "witnesses": r.witnesses,
            "notes": r.notes,
            "tables": self.relations.iter().map(ToString::to_string).collect::<Vec<_>>(),
        })
    }
}

/// A table as one schema line for the model: columns, types, primary key, references.
pub fn schema_line(catalog: &Catalog, rel: &RelName) -> String {
    let Some(t) = catalog.table(rel) else { return format!("{rel}") };
    let cols: Vec<String> = t
        .columns
        .iter()
        .map(|c| {
            let mut s = format!("{} {}", c.name, c.type_name);
            if t.primary_key.len() == 1 && t.primary_key[0] == c.name {
                s.push_str(" PRIMARY KEY");
            }
            for fk in catalog.foreign_keys.iter().filter(|f| &f.from == rel && f.from_columns.len() == 1 && f.from_columns[0] == c.name) {
                s.push_str(&format!(" REFERENCES {}({})", fk.to, fk.to_columns.join(", ")));
            }
            s
        })
        .collect();
    format!("{rel}({})", cols.join(", "))
}

/// `(block,offset)` of a ctid text, for ordering as `ORDER BY ctid` does.
fn tid_order(c: &str) -> (u64, u64) {
    let inner = c.trim_matches(|ch| ch == '(' || ch == ')');
    let mut it = inner.split(',').map(|p| p.trim().parse::<u64>().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}

/// The search problem of `a` and `b`: the tables they read (resolved as the caller resolves
/// them), the foreign keys among those, the lineage of each, and both redirected to the instance
/// tables.
fn problem<D: Instances + ?Sized>(db: &mut D, a: &Query, b: &Query, catalog: &Catalog, compare: RowSemantics) -> std::result::Result<(Problem, [String; 2]), String> {
    let mut relations: Vec<RelName> = Vec::new();
    let mut rel_of: BTreeMap<String, usize> = BTreeMap::new();
    for name in base_relations(a).into_iter().chain(base_relations(b)) {
        let key = name_key(&name);
        if rel_of.contains_key(&key) {
            continue;
        }
        let rel = db.resolve_table(&name)?;
        let i = relations.iter().position(|r| r == &rel).unwrap_or_else(|| {
            relations.push(rel);
            relations.len() - 1
        });
        rel_of.insert(key, i);
    }
    if relations.is_empty() {
        return Err("neither query reads a table".into());
    }
    let targets: BTreeMap<String, ObjectName> = rel_of.iter().map(|(k, &i)| (k.clone(), db.instance_table(i))).collect();
    let sides = [redirect(a, &targets).to_string(), redirect(b, &targets).to_string()];
    let problem = Problem {
        links: Problem::links_from(&relations, &catalog.foreign_keys),
        relations,
        rel_of,
        lineage: [lineage_queries(a), lineage_queries(b)],
        ordered: [orders_output(a), orders_output(b)],
        semantics: compare,
    };
    Ok((problem, sides))
}

/// Find, shrink and read back a separating instance of `a` and `b`.
pub fn separate_pair<D: Instances + ?Sized>(db: &mut D, a: &Query, b: &Query, catalog: &Catalog, opts: &SelectOptions) -> std::result::Result<PairInstance, String> {
    let started = Instant::now();
    let (problem, sides) = problem(db, a, b, catalog, opts.compare)?;
    let budget = Budget {
        max_trials: opts.max_trials,
        max_shrink_trials: 4 * opts.max_trials,
        lineage_rows: 5000,
        deadline: Instant::now() + Duration::from_millis(opts.instance_time_ms),
    };
    let relations = problem.relations.clone();
    let report = db.instance_space(&relations, sides, opts.max_rows, &mut |ws| separate(&problem, ws, budget))?;
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;

    let (mut shown, mut for_model, mut schema_lines) = (Value::Null, json!({}), Vec::new());
    if let Some(found) = &report.found {
        let mut tables = Vec::new();
        for (i, rel) in relations.iter().enumerate() {
            schema_lines.push(schema_line(catalog, rel));
            let mut ctids: Vec<&str> = found.rows.iter().filter(|r: &&RowId| r.rel == i).map(|r| r.ctid.as_str()).collect();
            ctids.sort_by_key(|c| tid_order(c));
            let (columns, values, closure) = if ctids.is_empty() {
                let cols: Vec<String> = catalog.table(rel).map(|t| t.columns.iter().map(|c| c.name.clone()).collect()).unwrap_or_default();
                (cols, Vec::new(), Vec::new())
            } else {
                let r = match db.run(&rows_sql(rel, &ctids), ctids.len()) {
                    Ok(Outcome::Rows(r)) => r,
                    Ok(Outcome::Failed(f)) => return Err(format!("could not read the instance rows of {rel}: {}", f.message)),
                    Err(refusal) => return Err(refusal.to_string()),
                };
                let closure: Vec<bool> = ctids.iter().map(|c| found.closure.iter().any(|r| r.rel == i && r.ctid == *c)).collect();
                for_model[rel.to_string()] = Value::Array(r.objects());
                (r.columns.iter().map(|c| c.name.clone()).collect(), r.rows, closure)
            };
            if for_model.get(rel.to_string()).is_none() {
                for_model[rel.to_string()] = json!([]);
            }
            tables.push(json!({"table": rel.to_string(), "columns": columns, "rows": values, "fk_closure": closure}));
        }
        shown = json!({"row_count": found.rows.len(), "tables": tables});
    }
    Ok(PairInstance { report, relations, shown, for_model, schema_text: schema_lines.join("\n"), elapsed_ms })
}

/// Run one of the two queries of `nl2sql_distinguish`; it must pass the gate and run.
fn ran_or_error<D: Instances + ?Sized>(db: &mut D, which: &str, sql: &str, opts: &SelectOptions) -> Result<Ran> {
    let checked = check_query(sql).map_err(|r| Error::from(r.clone()).context(&format!("query {which} is refused")))?;
    let ran = run_candidate(db, &checked.to_sql(), opts.compare, opts.max_rows);
    if ran.status != RunStatus::Ok {
        return Err(Error::invalid(format!("query {which} failed on the database: {}", ran.error.unwrap_or_default()))
            .with_hint("Both queries must run before they can be told apart."));
    }
    Ok(ran)
}

/// The smallest instance found on which `sql_a` and `sql_b` differ, or the evidence that they do
/// not differ on the current data.
pub fn distinguish<D: Instances + ?Sized>(db: &mut D, catalog: &Catalog, sql_a: &str, sql_b: &str, opts: &SelectOptions) -> Result<Value> {
    let started = Instant::now();
    let a = ran_or_error(db, "A", sql_a, opts)?;
    let b = ran_or_error(db, "B", sql_b, opts)?;
    let (ans_a, ans_b) = (a.answer.as_ref().expect("it ran"), b.answer.as_ref().expect("it ran"));
    let full = json!({
        "row_count_a": a.row_count, "row_count_b": b.row_count,
        "truncated": a.truncated || b.truncated, "compared_as": opts.compare,
    });
    if same(ans_a, ans_b) {
        let mut reason = format!(
            "both queries return the same result on the current data ({} row{}, compared as a {})",
            ans_a.rows.len(),
            if ans_a.rows.len() == 1 { "" } else { "s" },
            if opts.compare == RowSemantics::Set { "set" } else { "bag" }
        );
        if a.truncated || b.truncated {
            reason.push_str(&format!("; only the first {} rows of each were compared", opts.max_rows));
        }
        return Ok(json!({
            "differ": false, "found": false, "reason": reason, "full_database": full,
            "elapsed_ms": started.elapsed().as_secs_f64() * 1000.0,
        }));
    }
    let pair = separate_pair(db, a.query.as_ref().expect("it ran"), b.query.as_ref().expect("it ran"), catalog, opts)
        .map_err(|e| Error::new(Kind::NotSupported, format!("no separating instance can be built: {e}")))?;
    let mut out = json!({
        "differ": true,
        "found": pair.report.found.is_some(),
        "full_database": full,
        "search": pair.search_json(),
        "elapsed_ms": started.elapsed().as_secs_f64() * 1000.0,
        "instance_ms": pair.elapsed_ms,
    });
    match &pair.report.found {
        Some(f) => {
            out["instance"] = pair.shown.clone();
            out["answer_a"] = preview(&f.answers[0], 50);
            out["answer_b"] = preview(&f.answers[1], 50);
        }
        None => {
            out["reason"] = json!(format!(
                "the queries differ on the full database, but no instance was found within the budget: {}",
                pair.report.notes.join("; ")
            ));
        }
    }
    Ok(out)
}
