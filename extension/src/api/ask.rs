//! The ask pipeline's SQL face: `nl2sql`, `nl2sql_run`, `nl2sql_execute`, `nl2sql_explain`, and
//! `nl2sql_verify`, the checklist without a model.

use nl2sql_core::ask::{self, Explanation, Question};
use nl2sql_core::checks::Severity;
use nl2sql_core::constraints::{self, facts};
use nl2sql_core::effects::Database;
use nl2sql_core::error::{Error, Kind, Result};
use nl2sql_core::options::AskOptions;
use nl2sql_core::result::Outcome;
use nl2sql_core::trace::Status;
use pgrx::prelude::*;
use pgrx::JsonB;
use serde_json::Value;

use crate::error::{required, IntoSql};
use pgrx::pg_sys::panic::ErrorReport;
use crate::model::EndpointModel;
use crate::settings;
use crate::spi::audit::{self, Audit, Finish};
use crate::spi::database::SpiDatabase;
use crate::spi::{catalog, executor};

const QUESTION_HINT: &str = "Pass a question in words.";

/// One audited run of the pipeline.
fn run(function: &'static str, question: Option<&str>, evidence: Option<&str>, options: Option<JsonB>) -> Result<(Option<i64>, Explanation, AskOptions)> {
    let question = required(question, "the question", QUESTION_HINT)?;
    let opts = AskOptions::parse(&options.map(|j| j.0).unwrap_or(Value::Null), &settings::defaults())?;
    let mut model = EndpointModel::from_settings(Some(&opts.llm_model))?;
    let mut recorded = opts.effective();
    recorded["endpoint"] = model.shown_endpoint().into();
    recorded["limits"] = settings::limits_json();
    let mut audit = Audit::begin(function, Some(question), evidence, recorded)?;
    let e = ask::ask(&mut SpiDatabase, &mut model, &mut audit, Question { text: question, evidence }, &opts)?;
    let run_id = audit.run_id();
    let elsewhere = audit.elsewhere();
    audit.finish(Finish {
        status: e.status().as_str().into(),
        error: (!e.verified).then(|| e.reason()),
        // the best attempt of a run that ended in error is in its steps, not handed over as the run's SQL
        chosen_sql: e.answered().then(|| e.chosen_sql.clone()),
        usage: e.usage,
        llm_calls: e.llm_calls,
    })?;
    let verdict = match e.status() {
        Status::Ok => "verified",
        Status::Ambiguous => "ambiguous",
        Status::Error => "no query that runs",
        Status::Unanswerable => "the database cannot answer the question",
        _ => "unverified",
    };
    match run_id {
        Some(id) => pgrx::notice!("nl2sql run {id}: {verdict} (SELECT * FROM nl2sql_explain({id}) shows why)"),
        None => pgrx::notice!("nl2sql: {verdict} ({elsewhere})"),
    }
    Ok((run_id, e, opts))
}

/// The words of a run that gave no SQL to hand over: which run, and why. `undone`: the call ends
/// in an error, which takes the run's audit rows back with the transaction; the server log keeps
/// the run ([`audit::log_undone`]).
fn no_answer(run_id: Option<i64>, e: &Explanation, undone: bool) -> String {
    let run = match run_id {
        Some(id) if undone => format!(" (run {id}: this error undoes its audit rows, the server log keeps the run)"),
        Some(id) => format!(" (run {id}; SELECT * FROM nl2sql_explain({id}) shows every step)"),
        None => String::new(),
    };
    format!("nl2sql has no answer to give{run}: {}", e.reason())
}

/// Answer a question with SQL, ready for psql's `\gexec`. The run is in the audit log; a NOTICE
/// gives its id. A run that found no query that runs returns NULL (nothing for `\gexec` to run)
/// with a WARNING saying why; the run stays in the audit log.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql(question: Option<&str>, evidence: default!(Option<&str>, "NULL"), options: default!(Option<JsonB>, "'{}'")) -> std::result::Result<Option<String>, ErrorReport> {
    let (run_id, e, _) = run("nl2sql", question, evidence, options).sql()?;
    if !e.answered() {
        pgrx::warning!("{}", no_answer(run_id, &e, false));
        return Ok(None);
    }
    Ok(Some(e.chosen_sql))
}

type StepRow = (Option<i64>, i32, String, String, String, Option<String>, Option<JsonB>);

/// The same work as `nl2sql`, returned as its explanation: one row per step, the last one the
/// chosen SQL.
#[pg_extern(volatile, parallel_unsafe)]
#[allow(clippy::type_complexity)]
fn nl2sql_run(
    question: Option<&str>,
    evidence: default!(Option<&str>, "NULL"),
    options: default!(Option<JsonB>, "'{}'"),
) -> std::result::Result<TableIterator<'static, (
    name!(run_id, Option<i64>),
    name!(step, i32),
    name!(stage, String),
    name!(status, String),
    name!(detail, String),
    name!(sql, Option<String>),
    name!(data, Option<JsonB>),
)>, ErrorReport> {
    let (run_id, e, _) = run("nl2sql_run", question, evidence, options).sql()?;
    let rows: Vec<StepRow> = e
        .steps
        .into_iter()
        .map(|s| (run_id, s.number, s.stage.as_str().to_string(), s.status.as_str().to_string(), s.detail, s.sql, Some(JsonB(s.data))))
        .collect();
    Ok(TableIterator::new(rows))
}

/// The explanation of a past run, from the audit log.
#[pg_extern(stable, parallel_safe)]
#[allow(clippy::type_complexity)]
fn nl2sql_explain(run_id: Option<i64>) -> std::result::Result<TableIterator<'static, (
    name!(run_id, Option<i64>),
    name!(step, i32),
    name!(stage, String),
    name!(status, String),
    name!(detail, String),
    name!(sql, Option<String>),
    name!(data, Option<JsonB>),
)>, ErrorReport> {
    let run_id = required(run_id, "run_id", "Pass the id of a run (nl2sql.runs).").sql()?;
    let steps = audit::steps_of(run_id).sql()?;
    let rows: Vec<StepRow> = steps.into_iter().map(|s| (Some(run_id), s.step, s.stage, s.status, s.detail, s.sql, Some(JsonB(s.data)))).collect();
    Ok(TableIterator::new(rows))
}

/// Answer a question and return the chosen SQL's rows (one jsonb object per row) through the
/// safe executor: for tools that can only call a function.
#[pg_extern(volatile, parallel_unsafe)]
fn nl2sql_execute(
    question: Option<&str>,
    evidence: default!(Option<&str>, "NULL"),
    options: default!(Option<JsonB>, "'{}'"),
) -> std::result::Result<SetOfIterator<'static, JsonB>, ErrorReport> {
    let (run_id, e, opts) = run("nl2sql_execute", question, evidence, options).sql()?;
    if !e.answered() {
        // a BI tool must see why, not an empty result it would take for "no rows"; the error rolls
        // the audit rows back with the transaction, so the server log keeps the run
        audit::log_undone(run_id, "nl2sql_execute", question.unwrap_or_default(), e.status().as_str(), &e.steps);
        let error = if e.status() == Status::Unanswerable {
            Error::new(Kind::NotSupported, no_answer(run_id, &e, true)).with_hint(
                "Ask about what the tables hold (nl2sql_schema() lists them); to get SQL whatever the question, pass the option {\"refuse\": false} or SET nl2sql.refuse = off.",
            )
        } else if e.withheld {
            Error::new(Kind::Model, no_answer(run_id, &e, true)).with_hint(
                "Only verified answers are handed over: nl2sql_run(question) shows the unverified SQL and its open problems; to get it, pass the option {\"answer_unverified\": true} or SET nl2sql.answer_unverified = on.",
            )
        } else {
            Error::new(Kind::Model, no_answer(run_id, &e, true))
                .with_hint("nl2sql_run(question) shows every step and the best attempt; rephrase the question or name the tables and columns it is about.")
        };
        return Err(error).sql();
    }
    let outcome = executor::run(&e.chosen_sql, &executor::ExecOptions::from_settings(opts.max_rows)).map_err(Error::from).sql()?;
    match outcome {
        Outcome::Failed(f) => {
            Err(Error::reported(&f.sqlstate, format!("the chosen SQL failed: {}", f.message), f.hint)).sql()
        }
        Outcome::Rows(r) => Ok(SetOfIterator::new(r.objects().into_iter().map(JsonB))),
    }
}

/// The checklist of one SQL for one question, without any model: what the question requires, the
/// phrase that says so, and whether the SQL's syntax tree satisfies it; then the checker chain
/// (`check:<name>` rows), which reads the catalog and, for the time and null_order checkers, a
/// little stored data, as the caller.
#[pg_extern(volatile, parallel_unsafe)]
#[allow(clippy::type_complexity)]
fn nl2sql_verify(
    question: Option<&str>,
    sql: Option<&str>,
) -> std::result::Result<TableIterator<'static, (name!(requirement, String), name!(source_phrase, String), name!(satisfied, bool), name!(message, String))>, ErrorReport> {
    let question = required(question, "the question", QUESTION_HINT).sql()?;
    let sql = required(sql, "sql", "Pass the SQL to check.").sql()?;
    let f = facts::facts_of(sql, facts::SqlDialect::Postgres)
        .map_err(|e| Error::new(Kind::Syntax, format!("SQL could not be parsed: {e}")))
        .sql()?;
    let verdicts = nl2sql_core::ask::verify::constraint_verdicts(&mut SpiDatabase, sql, &constraints::extract(question, None), &f, question);
    let mut rows: Vec<(String, String, bool, String)> = verdicts
        .into_iter()
        .map(|v| {
            let message = if v.satisfied { "satisfied".to_string() } else { v.message.clone() };
            (v.constraint.name().to_string(), v.constraint.phrase.clone(), v.satisfied, message)
        })
        .collect();
    // the checker chain: a repair directive is a failed row, a note a satisfied one that says so;
    // then whether the executor accepts it (check:gate) and PostgreSQL can plan it (check:plan)
    let unusable = |check: &str, message: String| (format!("check:{check}"), String::new(), false, message);
    match nl2sql_core::sql::check_query(sql) {
        Ok(checked) => {
            let catalog = catalog::read().sql()?;
            let (findings, _) = nl2sql_core::ask::verify::run_checkers(&mut SpiDatabase, &checked.query, &catalog, question);
            rows.extend(findings.into_iter().map(|f| {
                let repair = f.severity == Severity::Repair;
                (format!("check:{}", f.checker), String::new(), !repair, if repair { f.message } else { format!("note: {}", f.message) })
            }));
            match SpiDatabase.plan(sql) {
                Ok(Outcome::Failed(f)) => rows.push(unusable("plan", format!("PostgreSQL cannot plan it: {} (SQLSTATE {})", f.message, f.sqlstate))),
                Err(refusal) => rows.push(unusable("gate", format!("{refusal} (SQLSTATE {})", refusal.sqlstate()))),
                Ok(Outcome::Rows(_)) => {}
            }
        }
        Err(refusal) => rows.push(unusable("gate", format!("{refusal} (SQLSTATE {})", refusal.sqlstate()))),
    }
    Ok(TableIterator::new(rows))
}

/// The mechanical repairs nl2sql would make to one SQL for one question, without any model: the
/// verification (as `nl2sql_verify`), each fix tried on the syntax tree with whether it was kept,
/// and the SQL that stands. Reads the catalog and a little data, as the caller; runs nothing but
/// through the safe executor.
#[pg_extern(volatile, parallel_unsafe)]
#[allow(clippy::type_complexity)]
fn nl2sql_fix(
    question: Option<&str>,
    sql: Option<&str>,
) -> std::result::Result<TableIterator<'static, (
    name!(step, i32),
    name!(stage, String),
    name!(fix, Option<String>),
    name!(kept, bool),
    name!(detail, String),
    name!(sql, String),
)>, ErrorReport> {
    let question = required(question, "the question", QUESTION_HINT).sql()?;
    let sql = required(sql, "sql", "Pass the SQL to repair.").sql()?;
    nl2sql_core::sql::check_query(sql).map_err(Error::from).sql()?;
    let catalog = catalog::read().sql()?;
    let constraints = constraints::extract(question, None);
    let mut db = SpiDatabase;
    let verified = nl2sql_core::ask::verify::verify(&mut db, sql, &constraints, &catalog, question);
    let mut rows = vec![(1, "verify".to_string(), None, true, verified.summary(), sql.to_string())];
    let (standing, _) = nl2sql_core::ask::verify::fix_mechanically(&mut db, verified, &constraints, &catalog, question, &mut |f| {
        rows.push((rows.len() as i32 + 1, "fix".to_string(), Some(f.name.to_string()), f.kept, f.detail, f.sql));
        Ok(())
    })
    .sql()?;
    let detail = if standing.is_clean() { "every check passes".to_string() } else { standing.problems.join("; ") };
    rows.push((rows.len() as i32 + 1, "chosen".to_string(), None, true, detail, standing.sql));
    Ok(TableIterator::new(rows))
}
