//! Choosing among candidates: `nl2sql_select` and `nl2sql_distinguish`.

use nl2sql_core::effects::Database;
use nl2sql_core::error::Result;
use nl2sql_core::options::SelectOptions;
use nl2sql_core::select::choose::{self, Choice, Question};
use nl2sql_core::select::pair;
use nl2sql_core::trace::Trace;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::Value;

use crate::error::{required, IntoSql};
use pgrx::pg_sys::panic::ErrorReport;
use crate::model::EndpointModel;
use crate::settings;
use crate::spi::audit::{Audit, Finish};
use crate::spi::database::SpiDatabase;

type CandidateTuple = (i32, String, String, Option<String>, Option<i32>, Option<i32>, Option<f64>, Option<f64>, Option<f64>, bool, String, Option<JsonB>);

fn select(question: Option<&str>, candidates: Option<Vec<Option<String>>>, evidence: Option<&str>, options: Option<JsonB>) -> Result<Vec<CandidateTuple>> {
    let question = required(question, "the question", "Pass a question in words.")?;
    let candidates = required(candidates, "candidates", "Pass an array of SQL texts.")?;
    let opts = SelectOptions::parse(&options.map(|j| j.0).unwrap_or(Value::Null), &settings::defaults())?;
    choose::validate(&candidates, &opts)?;
    let mut model = EndpointModel::from_settings(Some(&opts.llm_model))?;
    let mut recorded = opts.effective();
    recorded["endpoint"] = model.shown_endpoint().into();
    recorded["limits"] = settings::limits_json();
    let mut audit = Audit::begin("nl2sql_select", Some(question), evidence, recorded)?;
    let run_id = audit.run_id();
    let mut trace = Trace::new(&mut audit);
    let choice = Choice { question: Question { text: question, evidence }, candidates: &candidates, seed: run_id.unwrap_or(0) as u64 };
    let selection = choose::choose(&mut SpiDatabase, &mut model, &mut trace, choice, &opts)?;
    let (usage, llm_calls) = (trace.usage, trace.llm_calls);
    drop(trace);
    let chosen_sql = selection.chosen.and_then(|i| candidates[i].clone());
    let elsewhere = audit.elsewhere();
    audit.finish(Finish {
        status: match (&selection.chosen, &selection.ambiguous) {
            (None, _) => "error",
            (Some(_), Some(_)) => "ambiguous",
            (Some(_), None) => "ok",
        }
        .into(),
        error: selection.chosen.is_none().then(|| "no candidate ran".to_string()),
        chosen_sql,
        usage,
        llm_calls,
    })?;
    match run_id {
        Some(id) => pgrx::notice!("nl2sql run {id}: SELECT * FROM nl2sql_explain({id}) shows the duels"),
        None => pgrx::notice!("nl2sql_select: {elsewhere}"),
    }
    Ok(selection
        .rows
        .into_iter()
        .map(|r| {
            (r.candidate, r.sql, r.status.as_str().to_string(), r.error, r.cluster, r.cluster_size, r.confidence, r.wins, r.score, r.chosen, r.reason, r.instance.map(JsonB))
        })
        .collect())
}

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
) -> std::result::Result<TableIterator<'static, (
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
)>, ErrorReport> {
    Ok(TableIterator::new(select(question, candidates, evidence, options).sql()?))
}

/// The smallest instance found, cut from the real rows, on which two queries differ: its rows
/// (foreign-key closure rows marked), both answers on it and the time it took; or the evidence
/// that the two queries return the same result on the current data.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_distinguish(sql_a: Option<&str>, sql_b: Option<&str>, options: default!(Option<JsonB>, "'{}'")) -> std::result::Result<JsonB, ErrorReport> {
    let a = required(sql_a, "sql_a", "Pass two queries to tell apart.").sql()?;
    let b = required(sql_b, "sql_b", "Pass two queries to tell apart.").sql()?;
    let opts = SelectOptions::parse(&options.map(|j| j.0).unwrap_or(Value::Null), &settings::defaults()).sql()?;
    let mut db = SpiDatabase;
    let catalog = db.catalog().sql()?;
    Ok(JsonB(pair::distinguish(&mut db, &catalog, a, b, &opts).sql()?))
}
