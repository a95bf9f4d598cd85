//! Weighted majority over experts (Littlestone and Warmuth; SSEV's WMA and RWMA).
//!
//! An expert is whatever produced a candidate (a generator with a model, a named system). Its weight
//! starts at 1. When a user says which SQL was correct, every expert whose candidate returned a
//! different result made a mistake and its weight is multiplied by `1 − ε`, with
//! `ε = min(1/2, sqrt(ln n / T))` (the setting that minimises WMA's mistake bound
//! `M ≤ 2(1 + ε)·m + 2·ln n / ε` for `n` experts over `T` rounds; the horizon `T` is not known in
//! advance, so the rounds seen so far, counting this one, stand in for it). A cluster's weighted
//! confidence is the weight of the experts in it over the weight of all experts that ran; RWMA
//! instead samples one expert in proportion to its weight and takes its cluster.

use std::collections::BTreeMap;

use super::cluster::Cluster;

/// The penalty rate after `rounds` rounds of feedback (this one included) with `n` experts.
pub fn epsilon(n: usize, rounds: u64) -> f64 {
    if n < 2 {
        return 0.5;
    }
    ((n as f64).ln() / rounds.max(1) as f64).sqrt().min(0.5)
}

/// Multiply the weight of each mistaken expert by `1 − ε`.
pub fn penalise(weights: &mut BTreeMap<String, f64>, mistaken: &[String], eps: f64) {
    for e in mistaken {
        if let Some(w) = weights.get_mut(e) {
            *w *= 1.0 - eps;
        }
    }
}

/// Which experts a verdict shows mistaken. Each expert is judged by its first candidate's answer
/// (`None`: it did not run): against a result known to be right, a different answer is a mistake;
/// against a result known to be wrong, the same answer is. Returns (judged, mistaken).
pub fn mistaken(candidates: &[(String, Option<super::answer::Answer>)], reference: &super::answer::Answer, reference_is_right: bool) -> (Vec<String>, Vec<String>) {
    let (mut judged, mut mistaken): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for (expert, answer) in candidates {
        if judged.contains(expert) {
            continue;
        }
        let agrees = answer.as_ref().is_some_and(|a| super::answer::same(a, reference));
        judged.push(expert.clone());
        if agrees != reference_is_right {
            mistaken.push(expert.clone());
        }
    }
    (judged, mistaken)
}

/// Weighted confidence of each cluster: the weight of the distinct experts among its members over
/// the weight of every expert whose candidate ran. Candidates without an expert count as weight 1
/// each (their own expert).
pub fn weighted_confidence(clusters: &[Cluster], expert_of: &[Option<String>], weights: &BTreeMap<String, f64>) -> Vec<f64> {
    let weight = |e: &Option<String>| e.as_ref().and_then(|e| weights.get(e)).copied().unwrap_or(1.0);
    let mut total = 0.0;
    let mut seen: Vec<&str> = Vec::new();
    let mut per: Vec<f64> = Vec::with_capacity(clusters.len());
    for c in clusters {
        let mut sum = 0.0;
        let mut mine: Vec<&str> = Vec::new();
        for &m in &c.members {
            match expert_of.get(m).and_then(|e| e.as_deref()) {
                Some(name) if mine.contains(&name) => {}
                Some(name) => {
                    mine.push(name);
                    sum += weight(&Some(name.to_string()));
                }
                None => sum += 1.0,
            }
        }
        for name in mine {
            if !seen.contains(&name) {
                seen.push(name);
            }
        }
        total += sum;
        per.push(sum);
    }
    per.into_iter().map(|s| if total > 0.0 { s / total } else { 0.0 }).collect()
}

/// Give each cluster its weighted confidence and rank them by it (then size, then first member):
/// the weighted-majority order.
pub fn rank(clusters: &mut [Cluster], expert_of: &[Option<String>], weights: &BTreeMap<String, f64>) {
    let conf = weighted_confidence(clusters, expert_of, weights);
    for (c, w) in clusters.iter_mut().zip(conf) {
        c.confidence = w;
    }
    super::cluster::rank_by_confidence(clusters);
}

/// RWMA: the cluster of an expert drawn in proportion to the clusters' weights, with a
/// deterministic draw `u` in [0, 1) (e.g. from the run id) so a run can be replayed.
pub fn sample_cluster(confidence: &[f64], u: f64) -> Option<usize> {
    let total: f64 = confidence.iter().sum();
    if total <= 0.0 {
        return None;
    }
    let mut acc = 0.0;
    for (i, c) in confidence.iter().enumerate() {
        acc += c / total;
        if u < acc {
            return Some(i);
        }
    }
    Some(confidence.len() - 1)
}

/// A deterministic number in [0, 1) from a seed (splitmix64).
pub fn unit(seed: u64) -> f64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_judges_each_expert_by_its_first_answer() {
        use crate::select::answer::{Answer, RowSemantics};
        let a = |v: i64| Some(Answer::new(&[vec![serde_json::json!(v)]], false, RowSemantics::Set));
        let candidates = vec![("x".to_string(), a(1)), ("y".to_string(), a(2)), ("x".to_string(), a(2)), ("z".to_string(), None)];
        let reference = a(1).unwrap();
        assert_eq!(mistaken(&candidates, &reference, true), (vec!["x".into(), "y".into(), "z".into()], vec!["y".into(), "z".into()]));
        // the chosen result was wrong: agreeing with it is the mistake
        assert_eq!(mistaken(&candidates, &reference, false).1, vec!["x".to_string()]);
    }

    #[test]
    fn epsilon_follows_the_mistake_bound_setting() {
        assert!((epsilon(4, 100) - ((4f64).ln() / 100.0).sqrt()).abs() < 1e-12);
        assert_eq!(epsilon(4, 1), 0.5);
        assert_eq!(epsilon(1, 10), 0.5);
    }

    #[test]
    fn penalties_shift_the_weighted_confidence() {
        let clusters = vec![Cluster { members: vec![0, 1], confidence: 2.0 / 3.0 }, Cluster { members: vec![2], confidence: 1.0 / 3.0 }];
        let experts = vec![Some("a".to_string()), Some("b".to_string()), Some("c".to_string())];
        let mut w: BTreeMap<String, f64> = [("a", 1.0), ("b", 1.0), ("c", 1.0)].iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let before = weighted_confidence(&clusters, &experts, &w);
        assert!((before[0] - 2.0 / 3.0).abs() < 1e-12);
        for _ in 0..3 {
            penalise(&mut w, &["a".into(), "b".into()], 0.5);
        }
        let after = weighted_confidence(&clusters, &experts, &w);
        assert!(after[1] > after[0], "{after:?}");
        let mut ranked = clusters.clone();
        rank(&mut ranked, &experts, &w);
        assert_eq!(ranked[0].members, vec![2]);
        // one expert with two candidates in a cluster counts once
        let dup = weighted_confidence(&[Cluster { members: vec![0, 1], confidence: 1.0 }], &[Some("a".into()), Some("a".into())], &w);
        assert_eq!(dup, vec![1.0]);
    }

    #[test]
    fn rwma_samples_in_proportion() {
        assert_eq!(sample_cluster(&[0.75, 0.25], 0.5), Some(0));
        assert_eq!(sample_cluster(&[0.75, 0.25], 0.8), Some(1));
        assert_eq!(sample_cluster(&[], 0.3), None);
        let n = 10_000;
        let hits = (0..n).filter(|i| sample_cluster(&[0.75, 0.25], unit(*i)) == Some(1)).count();
        assert!((hits as f64 / n as f64 - 0.25).abs() < 0.02, "{hits}");
    }
}
