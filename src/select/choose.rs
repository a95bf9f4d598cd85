//! Choosing among candidate SQL, end to end (`nl2sql_select`): run every candidate → cluster by
//! result (weighted by the experts behind them, if named) → the gate, or duels between cluster
//! representatives on separating instances judged by the model → the tournament score → one
//! chosen candidate and a reason for every candidate.
//!
//! A duel whose instance cannot be built, or whose model call fails, is a draw, recorded with its
//! cause: the choice then falls back to the clusters' sizes, and the reason says so.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::adjudicate::{self, Verdict};
use super::ambiguity::{ambiguity, Ambiguity};
use super::answer::{preview, Answer};
use super::candidates::{run_candidate, Ran, RunStatus};
use super::cluster::{cluster, Cluster};
use super::experts;
use super::pair::separate_pair;
use super::tournament::{self, Duel};
use super::verified;
use crate::catalog::Catalog;
use crate::effects::{Database, Model};
use crate::error::{Error, Result};
use crate::llm::json::excerpt;
use crate::llm::ChatRequest;
use crate::options::SelectOptions;
use crate::trace::{Stage, Status, Trace};

/// One played duel between two clusters.
#[derive(Debug, Clone)]
pub struct Played {
    pub duel: Duel,
    /// The duel's record: instance, answers, votes (or why there is no verdict).
    pub record: Value,
    /// Rows of the instance, when one was found.
    pub instance_rows: Option<usize>,
}

/// What the question asks and who asks it, for the duels.
#[derive(Debug, Clone, Copy)]
pub struct Question<'a> {
    pub text: &'a str,
    pub evidence: Option<&'a str>,
}

fn vote_label(v: Verdict) -> &'static str {
    match v {
        Verdict::A => "a",
        Verdict::B => "b",
        Verdict::Draw => "draw",
    }
}

/// Play the scheduled duels between the clusters' representatives. Each duel: a separating
/// instance of the two representatives, the model's answer on it (`votes` requests sent
/// together), the majority of the votes by soft F1.
#[allow(clippy::too_many_arguments)]
pub fn play<D: Database + ?Sized, M: Model + ?Sized>(
    db: &mut D,
    model: &mut M,
    trace: &mut Trace,
    question: Question,
    ran: &[Ran],
    clusters: &[Cluster],
    catalog: &Catalog,
    opts: &SelectOptions,
) -> Result<Vec<Played>> {
    let mut played = Vec::new();
    for (i, j) in tournament::schedule(clusters, opts.top_clusters, opts.select_max_pairs) {
        let (ra, rb) = (clusters[i].representative(), clusters[j].representative());
        let (qa, qb) = (ran[ra].query.as_ref().expect("a cluster's member ran"), ran[rb].query.as_ref().expect("a cluster's member ran"));
        let width = ran[ra].columns.len().max(1);
        let names: Vec<String> = if ran[ra].columns == ran[rb].columns { ran[ra].columns.clone() } else { vec![] };
        let mut status = Status::Ok;
        let (verdict, record, instance_rows) = match separate_pair(db, qa, qb, catalog, opts) {
            Err(e) => (Verdict::Draw, json!({"error": e}), None),
            Ok(pair) => match &pair.report.found {
                None => (Verdict::Draw, json!({"found": false, "search": pair.search_json()}), None),
                Some(found) => {
                    let msgs = adjudicate::messages(question.text, question.evidence, &pair.schema_text, &pair.for_model, width, &names);
                    // the votes go out together: the first greedy, the others sampled with their own seeds
                    let requests: Vec<ChatRequest> = (0..opts.votes)
                        .map(|v| ChatRequest {
                            messages: msgs.clone(),
                            temperature: if v == 0 { 0.0 } else { opts.vote_temperature },
                            max_tokens: Some(700),
                            json_schema: Some(("answer".into(), adjudicate::answer_schema(width))),
                            seed: Some(v as u64 + 1),
                            ..Default::default()
                        })
                        .collect();
                    let mut votes = Vec::new();
                    let mut model_answers = Vec::new();
                    let mut failures = Vec::new();
                    for reply in model.chat_all(requests) {
                        let reply = match reply {
                            Ok(r) => r,
                            Err(e) => {
                                failures.push(e.to_string());
                                continue;
                            }
                        };
                        trace.count(&reply);
                        match adjudicate::parse_answer(&reply.content) {
                            Some(rows) => {
                                let (fa, fb) = adjudicate::scores(&rows, &found.answers[0], &found.answers[1]);
                                let verdict = adjudicate::vote(&rows, &found.answers[0], &found.answers[1], 0.01);
                                votes.push(verdict);
                                model_answers.push(json!({"rows": rows, "soft_f1_a": fa, "soft_f1_b": fb, "vote": vote_label(verdict)}));
                            }
                            None => model_answers.push(json!({"unparsable": excerpt(&reply.content, 200)})),
                        }
                    }
                    if !failures.is_empty() && votes.is_empty() {
                        status = Status::Error;
                    }
                    let mut record = json!({
                        "found": true,
                        "instance": pair.shown,
                        "answer_a": preview(&found.answers[0], 20),
                        "answer_b": preview(&found.answers[1], 20),
                        "model_answers": model_answers,
                        "search": pair.search_json(),
                        "instance_ms": pair.elapsed_ms,
                    });
                    if !failures.is_empty() {
                        record["model_errors"] = json!(failures);
                    }
                    (adjudicate::majority(&votes), record, Some(found.rows.len()))
                }
            },
        };
        let outcome = match (verdict, instance_rows) {
            (Verdict::A, Some(n)) => format!("candidate {} wins on a {n}-row instance", ra + 1),
            (Verdict::B, Some(n)) => format!("candidate {} wins on a {n}-row instance", rb + 1),
            (Verdict::Draw, Some(n)) if status == Status::Error => {
                format!("draw: the model could not judge the {n}-row instance ({})", record["model_errors"][0].as_str().unwrap_or(""))
            }
            (Verdict::Draw, Some(n)) => format!("draw on a {n}-row instance"),
            _ => "draw: no separating instance".to_string(),
        };
        trace.step(Stage::Duel, status, format!("candidate {} vs candidate {}: {outcome}", ra + 1, rb + 1), None, record.clone())?;
        played.push(Played { duel: Duel { a: i, b: j, verdict }, record, instance_rows });
    }
    Ok(played)
}

/// Why cluster `ci` won its duels, citing the instance, or that none was decisive.
pub fn duel_reason(ci: usize, clusters: &[Cluster], played: &[Played]) -> Option<String> {
    let won: Vec<&Played> = played
        .iter()
        .filter(|p| (p.duel.a == ci && p.duel.verdict == Verdict::A) || (p.duel.b == ci && p.duel.verdict == Verdict::B))
        .collect();
    let mine = played.iter().filter(|p| p.duel.a == ci || p.duel.b == ci).count();
    let p = won.first()?;
    let other = if p.duel.a == ci { p.duel.b } else { p.duel.a };
    let model_rows = p.record["model_answers"]
        .as_array()
        .and_then(|v| v.iter().find(|m| m.get("rows").is_some()))
        .map(|m| m["rows"].to_string())
        .unwrap_or_default();
    let (own, theirs) = if p.duel.a == ci { ("answer_a", "answer_b") } else { ("answer_b", "answer_a") };
    Some(format!(
        "won {} of {mine} duels; on a {}-row instance cut from the data the model answered {model_rows}, which matches this candidate's result {} and not candidate {}'s {}",
        won.len(),
        p.instance_rows.unwrap_or(0),
        p.record[own]["rows"],
        clusters[other].representative() + 1,
        p.record[theirs]["rows"],
    ))
}

/// One row of `nl2sql_select`'s result.
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateRow {
    pub candidate: i32,
    pub sql: String,
    pub status: RunStatus,
    pub error: Option<String>,
    pub cluster: Option<i32>,
    pub cluster_size: Option<i32>,
    pub confidence: Option<f64>,
    pub wins: Option<f64>,
    pub score: Option<f64>,
    pub chosen: bool,
    pub reason: String,
    pub instance: Option<Value>,
}

/// The outcome of a selection.
#[derive(Debug, Clone)]
pub struct Selection {
    pub rows: Vec<CandidateRow>,
    /// The index of the chosen candidate; `None` when no candidate ran.
    pub chosen: Option<usize>,
    /// The other reading, when the evidence does not decide ([`ambiguity`]).
    pub ambiguous: Option<Ambiguity>,
}

/// What to choose among.
#[derive(Debug, Clone, Copy)]
pub struct Choice<'a> {
    pub question: Question<'a>,
    pub candidates: &'a [Option<String>],
    /// Seeds the draw of randomised weighted majority (the run's id: reproducible per run).
    pub seed: u64,
}

/// Check the arguments of a selection before anything runs.
pub fn validate(candidates: &[Option<String>], opts: &SelectOptions) -> Result<()> {
    if candidates.is_empty() {
        return Err(Error::invalid("no candidates").with_hint("Pass an array of SQL texts, e.g. ARRAY['SELECT …', 'SELECT …']."));
    }
    if let Some(e) = &opts.experts {
        if e.len() != candidates.len() {
            return Err(Error::invalid(format!("option \"experts\" names {} experts for {} candidates", e.len(), candidates.len()))
                .with_hint("Give one expert name per candidate, in the same order."));
        }
    }
    Ok(())
}

/// Choose among `choice.candidates`: every step recorded in `trace`.
pub fn choose<D: Database + ?Sized, M: Model + ?Sized>(
    db: &mut D,
    model: &mut M,
    trace: &mut Trace,
    choice: Choice,
    opts: &SelectOptions,
) -> Result<Selection> {
    validate(choice.candidates, opts)?;
    let candidates = choice.candidates;
    let expert = |i: usize| opts.experts.as_ref().map(|e| e[i].as_str());

    // 1. run every candidate
    let ran: Vec<Ran> = candidates
        .iter()
        .map(|c| match c {
            Some(sql) => run_candidate(db, sql, opts.compare, opts.max_rows),
            None => Ran::refused("the candidate is NULL"),
        })
        .collect();
    let ok = ran.iter().filter(|r| r.status == RunStatus::Ok).count();
    trace.step(
        Stage::Execute,
        if ok > 0 { Status::Ok } else { Status::Error },
        format!("{ok} of {} candidates ran", ran.len()),
        None,
        json!({"candidates": ran.iter().enumerate().map(|(i, r)| r.record(i + 1, candidates[i].as_deref(), expert(i))).collect::<Vec<_>>()}),
    )?;

    // 2. cluster; with experts, confidence is the weight of a cluster's experts, and clusters rank by it
    let answers: Vec<Option<Answer>> = ran.iter().map(|r| r.answer.clone()).collect();
    let mut clusters: Vec<Cluster> = cluster(&answers);
    if let Some(names) = &opts.experts {
        let expert_of: Vec<Option<String>> = names.iter().cloned().map(Some).collect();
        experts::rank(&mut clusters, &expert_of, &db.expert_weights()?);
    }
    // the verifier: candidates with findings weigh less (before the gate and the draw)
    let mut catalog: Option<Catalog> = None;
    let mut found: Vec<Vec<String>> = vec![Vec::new(); ran.len()];
    if opts.verify && clusters.len() > 1 {
        let cat = db.catalog()?;
        found = verified::findings(db, choice.question.text, &ran, &cat);
        let weights: BTreeMap<usize, f64> = match &opts.experts {
            Some(names) => {
                let w = db.expert_weights()?;
                names.iter().enumerate().map(|(i, n)| (i, w.get(n).copied().unwrap_or(1.0))).collect()
            }
            None => BTreeMap::new(),
        };
        verified::demote_flagged(&mut clusters, &found, &weights);
        catalog = Some(cat);
    }
    let flagged = found.iter().filter(|f| !f.is_empty()).count();
    if opts.randomised && clusters.len() > 1 {
        // RWMA: draw a cluster in proportion to its (weighted) confidence, reproducibly per run
        let conf: Vec<f64> = clusters.iter().map(|c| c.confidence).collect();
        if let Some(k) = experts::sample_cluster(&conf, experts::unit(choice.seed)) {
            let drawn = clusters.remove(k);
            clusters.insert(0, drawn);
        }
    }
    let cluster_of: BTreeMap<usize, usize> =
        clusters.iter().enumerate().flat_map(|(ci, c)| c.members.iter().map(move |&m| (m, ci))).collect();
    trace.step(
        Stage::Cluster,
        Status::Ok,
        format!(
            "{} result cluster{}; the first holds {} (confidence {:.2}){}",
            clusters.len(),
            if clusters.len() == 1 { "" } else { "s" },
            clusters.first().map_or(0, |c| c.members.len()),
            clusters.first().map_or(0.0, |c| c.confidence),
            if flagged > 0 { format!("; {flagged} candidate(s) with findings weigh {}", verified::FLAGGED_WEIGHT) } else { String::new() }
        ),
        None,
        json!(clusters
            .iter()
            .map(|c| json!({"members": c.members.iter().map(|m| m + 1).collect::<Vec<_>>(), "confidence": c.confidence,
                            "findings": c.members.iter().map(|&m| json!(found[m])).collect::<Vec<_>>()}))
            .collect::<Vec<_>>()),
    )?;

    // 3. the gate, or the tournament
    let top_conf = clusters.first().map_or(0.0, |c| c.confidence);
    let gate_decides = clusters.len() <= 1 || top_conf >= opts.select_gate || !opts.adjudicate || opts.select_max_pairs == 0;
    let played = if gate_decides {
        Vec::new()
    } else {
        let catalog = match catalog.take() {
            Some(c) => c,
            None => db.catalog()?,
        };
        play(db, model, trace, choice.question, &ran, &clusters, &catalog, opts)?
    };
    let duels: Vec<Duel> = played.iter().map(|p| p.duel).collect();
    let (scores, best) = tournament::choose(&clusters, &duels);
    let wins = tournament::wins(clusters.len(), &duels);
    let chosen = best.map(|ci| clusters[ci].representative());
    let ambiguous = match best {
        Some(ci) if !opts.randomised => ambiguity(&clusters, &answers, &played, ci, opts.select_gate),
        _ => None,
    };

    // 4. reasons
    let chosen_reason = |ci: usize| -> String {
        let c = &clusters[ci];
        if clusters.len() == 1 {
            return format!("all {} candidates that ran return the same result", c.members.len());
        }
        if gate_decides {
            if opts.randomised {
                return format!("drawn by randomised weighted majority: its experts hold {:.2} of the weight", c.confidence);
            }
            let why = if !opts.adjudicate || opts.select_max_pairs == 0 {
                "adjudication is off".to_string()
            } else {
                format!("confidence {:.2} ≥ gate {:.2}; no model call needed", c.confidence, opts.select_gate)
            };
            let weighed = if flagged > 0 {
                format!("; with the {flagged} candidate(s) whose SQL has findings weighing {}, its weight share is {:.2}", verified::FLAGGED_WEIGHT, c.confidence)
            } else {
                String::new()
            };
            return format!("its result is shared by {} of {ok} candidates that ran ({why}){weighed}", c.members.len());
        }
        duel_reason(ci, &clusters, &played).unwrap_or_else(|| {
            let mine = played.iter().filter(|p| p.duel.a == ci || p.duel.b == ci).count();
            format!("no duel was decisive ({mine} played); chosen as the largest result cluster (confidence {:.2})", c.confidence)
        })
    };
    let mut rows = Vec::new();
    for (i, r) in ran.iter().enumerate() {
        let ci = cluster_of.get(&i).copied();
        let is_rep = ci.is_some_and(|ci| clusters[ci].representative() == i);
        let duels_json: Vec<Value> = match ci {
            Some(ci) if is_rep => played
                .iter()
                .filter(|p| p.duel.a == ci || p.duel.b == ci)
                .map(|p| {
                    let (me, other) = if p.duel.a == ci { ("a", p.duel.b) } else { ("b", p.duel.a) };
                    let result = match (p.duel.verdict, me) {
                        (Verdict::Draw, _) => "draw",
                        (Verdict::A, "a") | (Verdict::B, "b") => "won",
                        _ => "lost",
                    };
                    json!({"against": clusters[other].representative() + 1, "side": me, "result": result, "duel": p.record})
                })
                .collect(),
            _ => vec![],
        };
        let reason = match (ci, ambiguous.as_ref().filter(|a| a.alternative == i)) {
            (None, _) => r.error.clone().unwrap_or_default(),
            (Some(ci), _) if chosen == Some(i) => chosen_reason(ci),
            (Some(ci), _) if !is_rep => format!("same result as candidate {} (cluster {})", clusters[ci].representative() + 1, ci + 1),
            (Some(_), Some(other)) => format!("the other reading, not chosen: {}", other.explanation),
            (Some(ci), None) => {
                let lost = played.iter().find(|p| (p.duel.a == ci && p.duel.verdict == Verdict::B) || (p.duel.b == ci && p.duel.verdict == Verdict::A));
                match lost {
                    Some(p) => {
                        let other = if p.duel.a == ci { p.duel.b } else { p.duel.a };
                        format!("lost to candidate {} on a {}-row instance", clusters[other].representative() + 1, p.instance_rows.unwrap_or(0))
                    }
                    None if gate_decides && !found[i].is_empty() => format!(
                        "a lighter result cluster than candidate {}'s: its SQL breaks {} (weighs {})",
                        chosen.map_or(0, |c| c + 1),
                        found[i].join(", "),
                        verified::FLAGGED_WEIGHT
                    ),
                    None if gate_decides => format!("a smaller result cluster than candidate {}'s", chosen.map_or(0, |c| c + 1)),
                    None => format!("scored {:.2}, below the chosen candidate", scores[ci]),
                }
            }
        };
        rows.push(CandidateRow {
            candidate: i as i32 + 1,
            sql: candidates[i].clone().unwrap_or_default(),
            status: r.status,
            error: r.error.clone(),
            cluster: ci.map(|c| c as i32 + 1),
            cluster_size: ci.map(|c| clusters[c].members.len() as i32),
            confidence: ci.map(|c| clusters[c].confidence),
            wins: ci.map(|c| wins[c]),
            score: ci.map(|c| scores[c]),
            chosen: chosen == Some(i),
            reason,
            instance: (!duels_json.is_empty()).then(|| json!({"duels": duels_json})),
        });
    }
    let status = match (chosen, &ambiguous) {
        (None, _) => Status::Error,
        (Some(_), Some(_)) => Status::Ambiguous,
        (Some(_), None) => Status::Ok,
    };
    let mut data = json!({"scores": scores, "wins": wins, "formula": "score = wins + confidence"});
    if let Some(a) = &ambiguous {
        data["alternative"] = json!({"candidate": a.alternative + 1, "sql": candidates[a.alternative], "explanation": a.explanation});
    }
    trace.step(
        Stage::Chosen,
        status,
        match (chosen, &ambiguous) {
            (Some(i), Some(a)) => format!("candidate {}: {}; ambiguous: {}", i + 1, rows[i].reason, a.explanation),
            (Some(i), None) => format!("candidate {}: {}", i + 1, rows[i].reason),
            (None, _) => "no candidate ran".to_string(),
        },
        chosen.and_then(|i| candidates[i].clone()),
        data,
    )?;
    Ok(Selection { rows, chosen, ambiguous })
}
