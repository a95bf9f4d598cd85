//! Selection hears the verifier: a candidate whose SQL breaks a requirement of the question (the
//! rule-extracted constraints) or draws a repair directive from the checker chain weighs less in
//! its cluster's confidence.
//!
//! - Each candidate that ran is checked on its syntax tree, the catalog and (for the data-judged
//!   checkers, as the caller) the data: the same findings `nl2sql_verify` lists.
//! - A candidate with a finding weighs [`FLAGGED_WEIGHT`] of a clean one (times its expert's weight,
//!   when experts are named). A cluster's confidence becomes its share of the total weight, and the
//!   clusters are ranked by it (then size, then first member), before the gate.
//! - The findings are evidence, not proof: a flagged cluster is demoted, never removed, so a large
//!   flagged majority can still win. The weight is the odds the data gives: on Benchmark 7's 4,800
//!   Spider candidates (all labels) a flagged candidate is right 22% of the time and a clean one 89%,
//!   a ratio of 0.25.

use std::collections::BTreeMap;

use super::candidates::Ran;
use super::cluster::{rank_by_confidence, Cluster};
use crate::ask::verify::run_checkers;
use crate::catalog::Catalog;
use crate::checks::Severity;
use crate::constraints::{self, facts};
use crate::effects::Executor;
use crate::result::Outcome;
use crate::sql::Refusal;

/// The weight of a candidate with a finding, relative to a clean one: how often a flagged
/// candidate is right over how often a clean one is (Benchmark 7).
pub const FLAGGED_WEIGHT: f64 = 0.25;

/// The findings of each candidate: requirement names (`top_k`, `check:direction`, ...); empty for a
/// clean candidate and for one that did not run.
pub fn findings<E: Executor + ?Sized>(db: &mut E, question: &str, ran: &[Ran], catalog: &Catalog) -> Vec<Vec<String>> {
    let wanted = constraints::extract(question, None);
    // candidates compare the same literals: each read of the data is made once for all of them
    let db = &mut ReadOnce { db, done: BTreeMap::new() };
    // candidates often write the same query: check each text once (the checkers may read data)
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    ran.iter()
        .map(|r| {
            let Some(query) = r.query.as_deref() else { return Vec::new() };
            let sql = query.to_string();
            if let Some(found) = seen.get(&sql) {
                return found.clone();
            }
            let mut found: Vec<String> = match facts::facts_of(&sql, facts::SqlDialect::Postgres) {
                Ok(f) => constraints::verify_all(&wanted, &f).into_iter().filter(|v| !v.satisfied).map(|v| v.constraint.name().to_string()).collect(),
                Err(_) => Vec::new(),
            };
            let (checks, _) = run_checkers(db, query, catalog, question);
            found.extend(checks.into_iter().filter(|f| f.severity == Severity::Repair).map(|f| format!("check:{}", f.checker)));
            seen.insert(sql, found.clone());
            found
        })
        .collect()
}

/// An executor that runs each distinct read once and answers repeats from what it read (the
/// checkers' reads of one selection: the same stored values, looked up for each candidate).
struct ReadOnce<'d, E: Executor + ?Sized> {
    db: &'d mut E,
    done: BTreeMap<(String, usize), std::result::Result<Outcome, Refusal>>,
}

impl<E: Executor + ?Sized> Executor for ReadOnce<'_, E> {
    fn run(&mut self, sql: &str, max_rows: usize) -> std::result::Result<Outcome, Refusal> {
        let key = (sql.to_string(), max_rows);
        if let Some(done) = self.done.get(&key) {
            return done.clone();
        }
        let outcome = self.db.run(sql, max_rows);
        self.done.insert(key, outcome.clone());
        outcome
    }
}

/// Re-weigh `clusters` by `weight_of` each member (1 clean, [`FLAGGED_WEIGHT`] flagged, times the
/// expert's weight) and rank them. Confidence: the cluster's share of the total weight.
pub fn reweigh(clusters: &mut [Cluster], weight_of: impl Fn(usize) -> f64) {
    let sums: Vec<f64> = clusters.iter().map(|c| c.members.iter().map(|&m| weight_of(m)).sum()).collect();
    let total: f64 = sums.iter().sum();
    for (c, s) in clusters.iter_mut().zip(&sums) {
        c.confidence = if total > 0.0 { s / total } else { 0.0 };
    }
    rank_by_confidence(clusters);
}

/// Demote the clusters of flagged candidates: `expert_weight` of each candidate (1 without
/// experts) times [`FLAGGED_WEIGHT`] when it has a finding. Returns whether any was flagged.
pub fn demote_flagged(clusters: &mut [Cluster], found: &[Vec<String>], expert_weight: &BTreeMap<usize, f64>) -> bool {
    if found.iter().all(Vec::is_empty) {
        return false;
    }
    reweigh(clusters, |m| {
        let w = expert_weight.get(&m).copied().unwrap_or(1.0);
        if found.get(m).is_some_and(|f| !f.is_empty()) {
            w * FLAGGED_WEIGHT
        } else {
            w
        }
    });
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(members: &[usize], confidence: f64) -> Cluster {
        Cluster { members: members.to_vec(), confidence }
    }

    #[test]
    fn a_flagged_majority_yields_to_a_clean_minority_only_when_the_weight_says_so() {
        // 3 flagged vs 2 clean: 0.75 against 2, the clean cluster leads
        let mut cl = vec![c(&[0, 1, 2], 0.6), c(&[3, 4], 0.4)];
        let found = vec![vec!["top_k".to_string()], vec!["top_k".to_string()], vec!["top_k".to_string()], vec![], vec![]];
        assert!(demote_flagged(&mut cl, &found, &BTreeMap::new()));
        assert_eq!(cl[0].members, vec![3, 4]);
        assert!((cl[0].confidence - 2.0 / 2.75).abs() < 1e-9, "{cl:?}");
        // 9 flagged vs 2 clean: 2.25 against 2, the majority keeps its lead
        let mut cl = vec![c(&[0, 1, 2, 3, 4, 5, 6, 7, 8], 9.0 / 11.0), c(&[9, 10], 2.0 / 11.0)];
        let mut found = vec![vec!["check:direction".to_string()]; 9];
        found.extend([vec![], vec![]]);
        demote_flagged(&mut cl, &found, &BTreeMap::new());
        assert_eq!(cl[0].members, vec![0, 1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn nothing_flagged_changes_nothing() {
        let mut cl = vec![c(&[0, 1], 0.5), c(&[2], 0.25), c(&[3], 0.25)];
        let before = cl.clone();
        assert!(!demote_flagged(&mut cl, &[vec![], vec![], vec![], vec![]], &BTreeMap::new()));
        assert_eq!(cl, before);
    }

    #[test]
    fn expert_weights_multiply() {
        // one heavy flagged expert (8 x 0.25 = 2) against two clean light ones (1 + 1 = 2): a tie in
        // weight goes to the larger cluster
        let mut cl = vec![c(&[0], 0.5), c(&[1, 2], 0.5)];
        let weights: BTreeMap<usize, f64> = [(0, 8.0), (1, 1.0), (2, 1.0)].into();
        demote_flagged(&mut cl, &[vec!["count".into()], vec![], vec![]], &weights);
        assert_eq!(cl[0].members, vec![1, 2]);
        assert!((cl[0].confidence - 0.5).abs() < 1e-9);
    }

    #[test]
    fn candidates_that_compare_the_same_literal_read_it_once() {
        let ran = |sql: &str| Ran {
            status: super::super::candidates::RunStatus::Ok,
            error: None,
            query: Some(crate::sql::check_query(sql).unwrap().query),
            answer: None,
            columns: vec![],
            row_count: 0,
            truncated: false,
            elapsed_ms: 0.0,
        };
        let mut db = crate::testing::ScriptedDb::bookshop();
        let cands = [ran("SELECT name FROM customers WHERE city = 'Paris'"), ran("SELECT customer_id FROM customers WHERE city = 'Paris'")];
        findings(&mut db, "Who lives in Paris?", &cands, &crate::testing::bookshop());
        let reads = db.ran.iter().filter(|s| s.contains("lower(btrim(city::TEXT))")).count();
        assert_eq!(reads, 1, "{:?}", db.ran);
    }
}
