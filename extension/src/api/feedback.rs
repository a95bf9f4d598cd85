//! `nl2sql_feedback`: a user's verdict on a run updates the experts' weights (weighted majority)
//! and adds the verified question/SQL pair to `nl2sql.examples`.

use std::collections::BTreeMap;

use nl2sql_core::effects::{Database, Model};
use nl2sql_core::error::{Error, Kind, Result};
use nl2sql_core::options::SelectOptions;
use nl2sql_core::select::answer::Answer;
use nl2sql_core::select::candidates::run_candidate;
use nl2sql_core::select::experts::{epsilon, mistaken, penalise};
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::{json, Value};

use crate::error::{required, IntoSql};
use pgrx::pg_sys::panic::ErrorReport;
use crate::model::EndpointModel;
use crate::settings;
use crate::spi::database::SpiDatabase;
use crate::spi::experts::{self as store, Round};
use crate::spi::owner::extension_owner;
use crate::spi::value_index::vector_literal;

/// The verdict, and the SQL it is about: the right SQL, or (a bare "wrong") the chosen SQL known
/// to be wrong.
fn reference(verdict: Option<&str>, correct_sql: Option<&str>, chosen: Option<&str>) -> Result<(&'static str, String, bool)> {
    let chosen = || chosen.map(str::to_string).ok_or_else(|| Error::invalid("the run chose no SQL"));
    match (verdict, correct_sql) {
        (Some("correct"), None) => Ok(("correct", chosen()?, true)),
        (Some("wrong"), Some(sql)) | (None, Some(sql)) => Ok(("wrong", sql.to_string(), true)),
        (Some("wrong"), None) => Ok(("wrong", chosen()?, false)),
        (Some("correct"), Some(_)) => {
            Err(Error::invalid("verdict 'correct' confirms the run's chosen SQL; give correct_sql only with verdict 'wrong' or none"))
        }
        (None, None) => Err(Error::invalid("give a verdict ('correct' or 'wrong') or the correct SQL")),
        (Some(other), _) => Err(Error::invalid(format!("unknown verdict \"{other}\"")).with_hint("Use 'correct' or 'wrong'.")),
    }
}

fn feedback(run_id: i64, correct_sql: Option<&str>, verdict: Option<&str>) -> Result<Value> {
    if !store::may_give_feedback()? {
        return Err(Error::new(Kind::Privilege, "permission denied to give nl2sql feedback")
            .with_hint("An administrator grants it with: GRANT UPDATE ON nl2sql.experts TO <role>;"));
    }
    let run = store::load_run(run_id)?;
    let (verdict, reference_sql, reference_is_right) = reference(verdict, correct_sql, run.chosen_sql.as_deref())?;
    let mut db = SpiDatabase;
    let opts = SelectOptions::defaults(&settings::defaults());
    let reference_run = run_candidate(&mut db, &reference_sql, opts.compare, opts.max_rows);
    let Some(reference_answer) = reference_run.answer.clone() else {
        let which = if reference_is_right { "correct" } else { "chosen" };
        return Err(Error::invalid(format!("the {which} SQL does not run: {}", reference_run.error.unwrap_or_default())));
    };
    // each expert's candidate, run again on the current data
    let answers: Vec<(String, Option<Answer>)> = run
        .candidates
        .iter()
        .filter_map(|(sql, expert)| Some((expert.clone()?, sql)))
        .map(|(expert, sql)| (expert, run_candidate(&mut db, sql, opts.compare, opts.max_rows).answer))
        .collect();
    let (judged, missed) = mistaken(&answers, &reference_answer, reference_is_right);
    let owner = extension_owner()?;
    let mut weights: BTreeMap<String, f64> = db.expert_weights()?;
    let before = weights.clone();
    for e in &judged {
        weights.entry(e.clone()).or_insert(1.0);
    }
    let eps = epsilon(weights.len(), store::feedback_rounds(owner)? as u64 + 1);
    penalise(&mut weights, &missed, eps);
    store::save_weights(owner, judged.iter().map(|e| (e.clone(), weights[e], missed.contains(e))).collect())?;
    let who = store::current_user()?;
    let round = Round { run_id, who: who.clone(), verdict: verdict.into(), correct_sql: correct_sql.map(str::to_string), mistaken: missed.clone(), epsilon: eps };
    store::record_round(owner, round)?;
    // a verified pair becomes an example
    let mut example_id = None;
    if let (true, Some(question)) = (reference_is_right, run.question.clone()) {
        let masked = nl2sql_core::context::mask_schema_words(&question, &db.catalog()?);
        let mut model = EndpointModel::from_settings(None)?;
        let vector = model.embed(&[masked])?.vectors.pop().unwrap_or_default();
        example_id = Some(crate::spi::taught::add_example(owner, question, reference_sql, vector_literal(&vector)?, Some(run_id), who)?.0);
    }
    Ok(json!({
        "run_id": run_id,
        "function": run.function,
        "verdict": verdict,
        "epsilon": eps,
        "experts": judged.iter().map(|e| (e.clone(), json!({
            "before": before.get(e).copied().unwrap_or(1.0),
            "after": weights[e],
            "mistaken": missed.contains(e),
        }))).collect::<serde_json::Map<String, Value>>(),
        "example_id": example_id,
    }))
}

/// A verdict on a run: `verdict => 'correct'` confirms its chosen SQL, `correct_sql` gives the right
/// one (`verdict` then defaults to 'wrong'), a bare `'wrong'` rejects the chosen SQL. Experts whose
/// candidate disagrees with the right result (or agrees with a rejected one) lose weight; a
/// verified question/SQL pair joins nl2sql.examples. Needs UPDATE on nl2sql.experts.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_feedback(run_id: Option<i64>, correct_sql: default!(Option<&str>, "NULL"), verdict: default!(Option<&str>, "NULL")) -> std::result::Result<JsonB, ErrorReport> {
    let run_id = required(run_id, "run_id", "Pass the id of a run (nl2sql.runs).").sql()?;
    crate::spi::require_writable("nl2sql_feedback", "records the verdict and moves the experts' weights", "Give feedback on the primary.").sql()?;
    Ok(JsonB(feedback(run_id, correct_sql, verdict).sql()?))
}
