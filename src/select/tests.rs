//! Selection's control flow (`choose`, `distinguish`), driven by the scripted database and model
//! of [`crate::testing`]: agreement, the gate, refused and NULL candidates, argument errors,
//! duels decided, drawn for want of an instance, drawn because the model failed, weighted and
//! randomised majority.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::answer::{Answer, RowSemantics};
use super::choose::{choose, Choice, Question, Selection};
use super::pair::distinguish;
use super::separate::{Found, Report, RowId};
use crate::error::Result;
use crate::options::{SelectOptions, Settings};
use crate::testing::{rows, text_reply, unreachable, ScriptedDb, ScriptedModel};
use crate::trace::{Numbering, Stage, Trace};

const CHEAP: &str = "SELECT title FROM books WHERE price < 10";
const DEAR: &str = "SELECT title FROM books WHERE price > 10";
const CHEAP_TOO: &str = "SELECT title FROM books WHERE NOT price >= 10";

fn db() -> ScriptedDb {
    ScriptedDb::bookshop()
        .answer("price < 10", rows(&["title"], json!([["Dune"]])))
        .answer("price >= 10", rows(&["title"], json!([["Dune"]])))
        .answer("price > 10", rows(&["title"], json!([["Emma"]])))
}

/// A question none of the candidates breaks (the verifier stays out of the way of the mechanics
/// these tests check; `the_verifier_settles_a_split` is about the verifier).
const NEUTRAL: &str = "Which books should we stock?";

fn select(db: &mut ScriptedDb, model: &mut ScriptedModel, candidates: &[Option<&str>], options: Value) -> (Result<Selection>, Vec<(&'static str, &'static str)>) {
    select_asking(NEUTRAL, db, model, candidates, options)
}

fn select_asking(
    question: &str,
    db: &mut ScriptedDb,
    model: &mut ScriptedModel,
    candidates: &[Option<&str>],
    options: Value,
) -> (Result<Selection>, Vec<(&'static str, &'static str)>) {
    let opts = SelectOptions::parse(&options, &Settings::default()).expect("valid options");
    let candidates: Vec<Option<String>> = candidates.iter().map(|c| c.map(str::to_string)).collect();
    let mut numbering = Numbering::default();
    let mut trace = Trace::new(&mut numbering);
    let choice = Choice { question: Question { text: question, evidence: None }, candidates: &candidates, seed: 1 };
    let result = choose(db, model, &mut trace, choice, &opts);
    let steps = trace.steps.iter().map(|s| (s.stage.as_str(), s.status.as_str())).collect();
    (result, steps)
}

fn found(a: &str, b: &str) -> Report {
    let answer = |v: &str| Answer::new(&[vec![json!(v)]], false, RowSemantics::Set);
    Report {
        found: Some(Found {
            rows: [RowId { rel: 0, ctid: "(0,1)".into() }].into(),
            closure: Default::default(),
            answers: [answer(a), answer(b)],
            strategy: "lineage",
            unshrunk_rows: 3,
        }),
        trials: 2,
        witnesses: [1, 1],
        notes: vec![],
    }
}

#[test]
fn candidates_that_agree_need_no_model() {
    let mut model = ScriptedModel::new(vec![unreachable()]);
    let (s, steps) = select(&mut db(), &mut model, &[Some(CHEAP), Some(CHEAP_TOO)], json!({}));
    let s = s.unwrap();
    assert_eq!(steps, [("execute", "ok"), ("cluster", "ok"), ("chosen", "ok")]);
    assert_eq!(s.chosen, Some(0));
    assert_eq!(s.rows[0].reason, "all 2 candidates that ran return the same result");
    assert_eq!(s.rows[1].reason, "same result as candidate 1 (cluster 1)");
    assert!(model.requests.is_empty());
}

#[test]
fn the_gate_decides_a_clear_majority_and_refused_candidates_say_why() {
    let mut model = ScriptedModel::new(vec![unreachable()]);
    let cands = [Some(CHEAP), Some(CHEAP_TOO), Some(DEAR), None, Some("DELETE FROM books")];
    let (s, _) = select(&mut db(), &mut model, &cands, json!({"select_gate": 0.6}));
    let s = s.unwrap();
    assert_eq!(s.chosen, Some(0));
    assert!(s.rows[0].reason.contains("confidence 0.67 ≥ gate 0.60; no model call needed"), "{}", s.rows[0].reason);
    assert_eq!(s.rows[2].reason, "a smaller result cluster than candidate 1's");
    assert_eq!((s.rows[3].status.as_str(), s.rows[3].reason.as_str()), ("refused", "the candidate is NULL"));
    assert!(s.rows[4].reason.starts_with("only read-only queries are accepted, got DELETE (SQLSTATE 25006)"), "{}", s.rows[4].reason);
    assert!(model.requests.is_empty());
    // adjudication off: the largest cluster, saying so
    let (s, _) = select(&mut db(), &mut model, &[Some(CHEAP), Some(DEAR)], json!({"adjudicate": false}));
    assert!(s.unwrap().rows[0].reason.ends_with("(adjudication is off)"));
}

#[test]
fn a_duel_on_a_separating_instance_decides_a_split() {
    let mut db = db();
    // side A is candidate 1 (DEAR), side B candidate 2 (CHEAP)
    db.instances = vec![Ok(found("Emma", "Dune"))].into();
    let vote = text_reply(r#"{"reasoning": "Dune costs 8", "rows": [["Dune"]]}"#);
    let mut model = ScriptedModel::new(vec![vote]);
    let (s, steps) = select(&mut db, &mut model, &[Some(DEAR), Some(CHEAP)], json!({}));
    let s = s.unwrap();
    assert_eq!(steps, [("execute", "ok"), ("cluster", "ok"), ("duel", "ok"), ("chosen", "ok")]);
    assert_eq!(s.chosen, Some(1));
    assert!(s.rows[1].reason.starts_with("won 1 of 1 duels; on a 1-row instance cut from the data the model answered [[\"Dune\"]]"), "{}", s.rows[1].reason);
    assert_eq!(s.rows[0].reason, "lost to candidate 2 on a 1-row instance");
    assert_eq!(s.rows[1].wins, Some(1.0));
    let duel = &s.rows[1].instance.as_ref().unwrap()["duels"][0];
    assert_eq!((duel["against"].clone(), duel["result"].clone()), (json!(1), json!("won")));
    assert_eq!(model.fanouts, [3]);
    assert_eq!(model.requests[1].temperature, 0.7);
}

#[test]
fn a_duel_without_an_instance_or_a_verdict_is_a_draw_and_the_larger_cluster_stands() {
    // no instance within the budget
    let mut db = db();
    db.instances = vec![Ok(Report { found: None, trials: 60, witnesses: [0, 0], notes: vec!["budget".into()] })].into();
    let mut model = ScriptedModel::new(vec![unreachable()]);
    let (s, steps) = select(&mut db, &mut model, &[Some(DEAR), Some(CHEAP)], json!({}));
    assert_eq!(steps[2], ("duel", "ok"));
    let s = s.unwrap();
    assert_eq!(s.chosen, Some(0));
    assert!(s.rows[0].reason.starts_with("no duel was decisive (1 played)"), "{}", s.rows[0].reason);
    // the workspace fails: a draw with the cause recorded
    let mut db = self::db();
    db.instances = vec![Err("relation public.shelves does not exist".into())].into();
    let mut numbering = Numbering::default();
    let mut trace = Trace::new(&mut numbering);
    let opts = SelectOptions::defaults(&Settings::default());
    let cands = [Some(DEAR.to_string()), Some(CHEAP.to_string())];
    let choice = Choice { question: Question { text: "q", evidence: None }, candidates: &cands, seed: 1 };
    choose(&mut db, &mut model, &mut trace, choice, &opts).unwrap();
    let duel = trace.of(Stage::Duel).next().unwrap();
    assert_eq!(duel.data["error"], json!("relation public.shelves does not exist"));
    // the model fails during the votes: a draw, recorded as an error, and selection goes on
    let mut db = self::db();
    db.instances = vec![Ok(found("Dune", "Emma"))].into();
    let mut model = ScriptedModel::new(vec![unreachable()]);
    let (s, steps) = select(&mut db, &mut model, &[Some(DEAR), Some(CHEAP)], json!({}));
    // the evidence does not decide: the larger cluster stands, and the run says it is ambiguous
    assert_eq!(steps, [("execute", "ok"), ("cluster", "ok"), ("duel", "error"), ("chosen", "ambiguous")]);
    let s = s.unwrap();
    assert_eq!(s.chosen, Some(0));
    assert_eq!(s.ambiguous.as_ref().map(|a| a.alternative), Some(1));
    assert!(s.rows[1].reason.starts_with("the other reading, not chosen: the evidence does not decide"), "{}", s.rows[1].reason);
    // unparsable votes are recorded, not counted
    let mut db = self::db();
    db.instances = vec![Ok(found("Dune", "Emma"))].into();
    let mut model = ScriptedModel::new(vec![text_reply("Dune, I think")]);
    let (s, steps) = select(&mut db, &mut model, &[Some(DEAR), Some(CHEAP)], json!({}));
    assert_eq!(steps[2], ("duel", "ok"));
    assert_eq!(s.unwrap().chosen, Some(0));
}

#[test]
fn experts_weigh_clusters_and_randomised_majority_draws_one() {
    let experts = json!(["a", "b", "c"]);
    let mut db = db();
    db.weights = BTreeMap::from([("a".to_string(), 1.0), ("b".to_string(), 0.1), ("c".to_string(), 0.1)]);
    let mut model = ScriptedModel::new(vec![unreachable()]);
    let (s, _) = select(&mut db, &mut model, &[Some(DEAR), Some(CHEAP), Some(CHEAP_TOO)], json!({"experts": experts}));
    let s = s.unwrap();
    assert_eq!(s.chosen, Some(0));
    assert!((s.rows[0].confidence.unwrap() - 1.0 / 1.2).abs() < 1e-9);
    let (s, _) = select(&mut db, &mut model, &[Some(DEAR), Some(CHEAP), Some(CHEAP_TOO)], json!({"experts": experts, "voting": "rwma"}));
    assert!(s.unwrap().rows.iter().find(|r| r.chosen).unwrap().reason.starts_with("drawn by randomised weighted majority"));
    // the weights cannot be read: the error
    db.failing = vec!["weights"];
    let (s, _) = select(&mut db, &mut model, &[Some(DEAR), Some(CHEAP), Some(CHEAP_TOO)], json!({"experts": experts}));
    assert!(s.is_err());
}

#[test]
fn bad_arguments_are_errors_before_anything_runs() {
    let mut model = ScriptedModel::new(vec![unreachable()]);
    let mut db = db();
    let (s, steps) = select(&mut db, &mut model, &[], json!({}));
    assert_eq!((s.unwrap_err().message, steps.len()), ("no candidates".to_string(), 0));
    let (s, _) = select(&mut db, &mut model, &[Some(CHEAP)], json!({"experts": ["a", "b"]}));
    assert_eq!(s.unwrap_err().message, "option \"experts\" names 2 experts for 1 candidates");
    assert!(db.ran.is_empty());
    // nothing ran: no choice, said so
    let (s, steps) = select(&mut db, &mut model, &[None, Some("UPDATE books SET price = 0")], json!({}));
    assert_eq!((s.unwrap().chosen, steps.last().unwrap()), (None, &("chosen", "error")));
}

#[test]
fn distinguish_shows_the_instance_or_the_agreement() {
    let opts = SelectOptions::defaults(&Settings::default());
    let catalog = crate::testing::bookshop();
    let mut db = db();
    let same = distinguish(&mut db, &catalog, CHEAP, CHEAP_TOO, &opts).unwrap();
    assert_eq!((same["differ"].clone(), same["found"].clone()), (json!(false), json!(false)));
    assert!(same["reason"].as_str().unwrap().starts_with("both queries return the same result on the current data (1 row"));
    db.instances = vec![Ok(found("Dune", "Emma"))].into();
    let d = distinguish(&mut db, &catalog, CHEAP, DEAR, &opts).unwrap();
    assert_eq!((d["differ"].clone(), d["found"].clone()), (json!(true), json!(true)));
    assert_eq!(d["instance"]["row_count"], json!(1));
    assert_eq!(d["answer_a"]["rows"], json!([["Dune"]]));
    // the instance rows are read back by ctid through the executor
    assert!(db.ran.iter().any(|s| s.contains("ctid = ANY")), "{:?}", db.ran);
    let e = distinguish(&mut db, &catalog, "DELETE FROM books", DEAR, &opts).unwrap_err();
    assert_eq!((e.sqlstate.as_str(), e.message.as_str()), ("25006", "query A is refused: only read-only queries are accepted, got DELETE"));
    let mut db = db_failing_b();
    let e = distinguish(&mut db, &catalog, CHEAP, "SELECT nosuch FROM books", &opts).unwrap_err();
    assert!(e.message.starts_with("query B failed on the database: column \"nosuch\" does not exist"), "{}", e.message);
    let mut db = self::db();
    db.instances = vec![Err("neither query reads a table".into())].into();
    assert_eq!(distinguish(&mut db, &catalog, CHEAP, DEAR, &opts).unwrap_err().sqlstate, "0A000");
}

fn db_failing_b() -> ScriptedDb {
    db().answer("nosuch", crate::testing::failed("column \"nosuch\" does not exist"))
}

#[test]
fn the_verifier_settles_a_split() {
    // "less than 10": the candidate comparing with > breaks the question's comparison, weighs a
    // quarter, and the clean one passes the gate (1 against 0.25: confidence 0.80) without a duel
    let mut model = ScriptedModel::new(vec![unreachable()]);
    let (s, steps) = select_asking("Which books cost less than 10?", &mut db(), &mut model, &[Some(DEAR), Some(CHEAP)], json!({}));
    let s = s.unwrap();
    assert_eq!(steps, [("execute", "ok"), ("cluster", "ok"), ("chosen", "ok")]);
    assert_eq!(s.chosen, Some(1));
    assert!(s.rows[1].reason.contains("its weight share is 0.80"), "{}", s.rows[1].reason);
    assert!(s.rows[0].reason.contains("its SQL breaks comparison"), "{}", s.rows[0].reason);
    assert!(model.requests.is_empty());
    // without the verifier the same split goes to a duel
    let mut db = db();
    db.instances = vec![Ok(found("Emma", "Dune"))].into();
    let mut model = ScriptedModel::new(vec![text_reply(r#"{"reasoning": "", "rows": [["Dune"]]}"#)]);
    let (s, steps) = select_asking("Which books cost less than 10?", &mut db, &mut model, &[Some(DEAR), Some(CHEAP)], json!({"verify": false}));
    assert_eq!(steps, [("execute", "ok"), ("cluster", "ok"), ("duel", "ok"), ("chosen", "ok")]);
    assert_eq!(s.unwrap().chosen, Some(1));
}
