//! `nl2sql_feedback`: a user's verdict on a run updates the experts' weights (weighted majority)
//! and adds the verified question/SQL pair to `nl2sql.examples`.

use std::collections::BTreeMap;

use nl2sql_core::select::answer::{same, Answer};
use nl2sql_core::select::experts::{epsilon, penalise};
use pgrx::prelude::*;
use serde_json::{json, Value};

use crate::select::{expert_weights, run_candidate, SelectOptions};
use crate::spi::owner::{as_extension_owner, extension_owner};

struct RunRecord {
    function: String,
    question: Option<String>,
    chosen_sql: Option<String>,
    /// (sql, expert) of each candidate of an nl2sql_select run.
    candidates: Vec<(String, Option<String>)>,
}

fn load_run(run_id: i64) -> RunRecord {
    // read as the caller: row-level security shows only the caller's own runs (or all, for pg_read_all_data)
    let row = Spi::get_three_with_args::<String, String, String>(
        "SELECT function, question, chosen_sql FROM nl2sql.runs WHERE run_id = $1",
        &[run_id.into()],
    );
    let (function, question, chosen_sql) = match row {
        Ok((Some(f), q, c)) => (f, q, c),
        _ => crate::errors::raise("42704", format!("no run {run_id} that you can see"), Some("Feedback is given on your own runs (nl2sql.runs).")),
    };
    let execute = Spi::get_one_with_args::<pgrx::JsonB>(
        "SELECT output FROM nl2sql.steps WHERE run_id = $1 AND stage IN ('execute', 'candidates') ORDER BY step LIMIT 1",
        &[run_id.into()],
    )
    .ok()
    .flatten()
    .map(|j| j.0)
    .unwrap_or(Value::Null);
    // nl2sql_select's execute step lists them; nl2sql's candidates step holds them under "candidates"
    let candidates = execute
        .get("candidates")
        .unwrap_or(&execute)
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| Some((c["sql"].as_str()?.to_string(), c["expert"].as_str().map(str::to_string))))
        .collect();
    RunRecord { function, question, chosen_sql, candidates }
}

/// Record a verdict on run `run_id`; returns what changed.
pub fn feedback(run_id: i64, correct_sql: Option<&str>, verdict: Option<&str>) -> Value {
    let may = Spi::get_one::<bool>("SELECT pg_catalog.has_table_privilege('nl2sql.experts', 'UPDATE')").ok().flatten().unwrap_or(false);
    if !may {
        crate::errors::raise(
            "42501",
            "permission denied to give nl2sql feedback",
            Some("An administrator grants it with: GRANT UPDATE ON nl2sql.experts TO <role>;"),
        );
    }
    let run = load_run(run_id);
    let verdict = match (verdict, correct_sql) {
        (Some("correct"), None) => "correct",
        (Some("wrong"), _) | (None, Some(_)) => "wrong",
        (Some("correct"), Some(_)) => crate::errors::raise(
            "22023",
            "verdict 'correct' confirms the run's chosen SQL; give correct_sql only with verdict 'wrong' or none",
            None,
        ),
        (None, None) => crate::errors::raise("22023", "give a verdict ('correct' or 'wrong') or the correct SQL", None),
        (Some(other), _) => crate::errors::raise("22023", format!("unknown verdict \"{other}\""), Some("Use 'correct' or 'wrong'.")),
    };
    let chosen = run.chosen_sql.clone();
    // the reference: the SQL known to be right, or (a bare "wrong") the chosen SQL known to be wrong
    let (reference, reference_is_right) = match (verdict, correct_sql) {
        ("correct", _) => (chosen.clone().unwrap_or_else(|| crate::errors::raise("22023", "the run chose no SQL", None)), true),
        (_, Some(sql)) => (sql.to_string(), true),
        _ => (chosen.clone().unwrap_or_else(|| crate::errors::raise("22023", "the run chose no SQL", None)), false),
    };
    let opts = SelectOptions::from_json(&Value::Null);
    let reference_run = run_candidate(&reference, &opts);
    let Some(reference_answer) = reference_run.answer.clone() else {
        crate::errors::raise(
            "22023",
            format!("the {} SQL does not run: {}", if reference_is_right { "correct" } else { "chosen" }, reference_run.error.unwrap_or_default()),
            None,
        )
    };
    // which experts were mistaken (candidates run again on the current data)
    let mut mistaken: Vec<String> = Vec::new();
    let mut judged: Vec<String> = Vec::new();
    for (sql, expert) in &run.candidates {
        // an expert with several candidates is judged by its first
        let Some(expert) = expert else { continue };
        if judged.contains(expert) {
            continue;
        }
        let answer: Option<Answer> = run_candidate(sql, &opts).answer;
        let agrees = answer.as_ref().is_some_and(|a| same(a, &reference_answer));
        let wrong = if reference_is_right { !agrees } else { agrees };
        judged.push(expert.clone());
        if wrong {
            mistaken.push(expert.clone());
        }
    }
    let owner = extension_owner();
    let mut weights: BTreeMap<String, f64> = expert_weights();
    let before = weights.clone();
    for e in &judged {
        weights.entry(e.clone()).or_insert(1.0);
    }
    let feedback_rounds: i64 = as_extension_owner(owner, || Spi::get_one::<i64>("SELECT count(*) FROM nl2sql.feedback"))
        .ok()
        .flatten()
        .unwrap_or(0);
    let eps = epsilon(weights.len(), feedback_rounds as u64 + 1);
    penalise(&mut weights, &mistaken, eps);
    let who = Spi::get_one::<String>("SELECT current_user::text").ok().flatten().unwrap_or_default();
    {
        let judged = judged.clone();
        let mistaken_set = mistaken.clone();
        let weights = weights.clone();
        as_extension_owner(owner, move || {
            for e in &judged {
                let w = weights[e];
                let missed = mistaken_set.contains(e) as i32;
                Spi::run_with_args(
                    "INSERT INTO nl2sql.experts AS x (expert, weight, rounds, mistakes, updated_at) VALUES ($1, $2, 1, $3, now())
                     ON CONFLICT (expert) DO UPDATE SET weight = EXCLUDED.weight, rounds = x.rounds + 1,
                            mistakes = x.mistakes + EXCLUDED.mistakes, updated_at = now()",
                    &[e.clone().into(), w.into(), missed.into()],
                )?;
            }
            Ok::<(), pgrx::spi::Error>(())
        })
        .unwrap_or_else(|e| crate::errors::raise("55000", format!("could not update nl2sql.experts: {e}"), None));
    }
    let (who2, verdict2, correct2, mistaken2) = (who.clone(), verdict.to_string(), correct_sql.map(str::to_string), mistaken.clone());
    as_extension_owner(owner, move || {
        Spi::run_with_args(
            "INSERT INTO nl2sql.feedback (run_id, who, verdict, correct_sql, mistaken, epsilon) VALUES ($1, $2, $3, $4, $5, $6)",
            &[run_id.into(), who2.into(), verdict2.into(), correct2.into(), mistaken2.into(), eps.into()],
        )
    })
    .unwrap_or_else(|e| crate::errors::raise("55000", format!("could not record the feedback: {e}"), None));

    // a verified pair becomes an example
    let mut example_id: Option<i64> = None;
    if reference_is_right {
        if let Some(question) = run.question.clone() {
            let masked = nl2sql_core::context::mask_schema_words(&question, &crate::spi::catalog::read());
            let text = crate::values::embed_one(&masked);
            let vector_schema = crate::values::ext_schema("vector");
            let sql = format!(
                "INSERT INTO nl2sql.examples (question, sql, embedding, run_id, added_by) VALUES ($1, $2, $3::{vector_schema}.vector, $4, $5) RETURNING example_id"
            );
            let reference = reference.clone();
            example_id = as_extension_owner(owner, move || {
                Spi::get_one_with_args::<i64>(&sql, &[question.into(), reference.into(), text.into(), run_id.into(), who.into()])
            })
            .ok()
            .flatten();
        }
    }
    json!({
        "run_id": run_id,
        "function": run.function,
        "verdict": verdict,
        "epsilon": eps,
        "experts": judged.iter().map(|e| (e.clone(), json!({
            "before": before.get(e).copied().unwrap_or(1.0),
            "after": weights[e],
            "mistaken": mistaken.contains(e),
        }))).collect::<serde_json::Map<String, Value>>(),
        "example_id": example_id,
    })
}
