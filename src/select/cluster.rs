//! Candidates grouped by what they return.
//!
//! Candidates whose answers are the [`same`](super::answer::same) form one cluster. Because order
//! counts only between two ordered answers, "same" is not transitive across ordered and unordered
//! answers; clusters are therefore built in two steps: first by the rows without their order, then
//! the ordered answers of one group are split by their sequence, and the unordered ones join the
//! largest of those splits. Confidence is a cluster's share of the candidates that ran.

use std::collections::BTreeMap;

use serde::Serialize;

use super::answer::Answer;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cluster {
    /// Candidate indexes, in input order; the first is the representative.
    pub members: Vec<usize>,
    /// Share of the candidates that ran (0..1).
    pub confidence: f64,
}

impl Cluster {
    pub fn representative(&self) -> usize {
        self.members[0]
    }
}

/// Rank clusters by confidence, then size, then first member: the weighted-majority order.
pub fn rank_by_confidence(clusters: &mut [Cluster]) {
    clusters.sort_by(|a, b| {
        b.confidence
            .partial_cmp(&a.confidence)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(b.members.len().cmp(&a.members.len()))
            .then(a.members[0].cmp(&b.members[0]))
    });
}

/// Cluster the candidates that ran (`Some` answers). Clusters come largest first; ties go to the
/// cluster whose first member comes first.
pub fn cluster(answers: &[Option<Answer>]) -> Vec<Cluster> {
    let ran = answers.iter().filter(|a| a.is_some()).count();
    let mut by_rows: BTreeMap<Vec<Vec<Option<String>>>, Vec<usize>> = BTreeMap::new();
    for (i, a) in answers.iter().enumerate() {
        if let Some(a) = a {
            by_rows.entry(a.unordered().rows).or_default().push(i);
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for members in by_rows.into_values() {
        let mut by_sequence: BTreeMap<&Vec<Vec<Option<String>>>, Vec<usize>> = BTreeMap::new();
        let mut unordered = Vec::new();
        for &i in &members {
            let a = answers[i].as_ref().expect("ran");
            if a.ordered {
                by_sequence.entry(&a.rows).or_default().push(i);
            } else {
                unordered.push(i);
            }
        }
        let mut splits: Vec<Vec<usize>> = by_sequence.into_values().collect();
        splits.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
        match splits.first_mut() {
            Some(largest) => largest.extend(unordered),
            None => splits.push(unordered),
        }
        for mut s in splits {
            s.sort_unstable();
            groups.push(s);
        }
    }
    groups.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
    groups
        .into_iter()
        .map(|members| Cluster { confidence: members.len() as f64 / ran.max(1) as f64, members })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::answer::RowSemantics;
    use super::*;
    use serde_json::json;

    fn a(v: serde_json::Value, ordered: bool) -> Option<Answer> {
        Some(Answer::new(&serde_json::from_value::<Vec<Vec<serde_json::Value>>>(v).unwrap(), ordered, RowSemantics::Set))
    }

    #[test]
    fn clusters_by_result_largest_first() {
        let answers = vec![a(json!([[1]]), false), None, a(json!([[2]]), false), a(json!([[2.0]]), false), a(json!([[1]]), false), a(json!([[2]]), false)];
        let c = cluster(&answers);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].members, vec![2, 3, 5]);
        assert_eq!(c[1].members, vec![0, 4]);
        assert!((c[0].confidence - 0.6).abs() < 1e-9);
        assert_eq!(c[0].representative(), 2);
    }

    #[test]
    fn ties_go_to_the_earlier_cluster_and_order_splits() {
        let answers = vec![
            a(json!([[1], [2]]), true),
            a(json!([[2], [1]]), true),
            a(json!([[2], [1]]), false),
            a(json!([[2], [1]]), true),
        ];
        let c = cluster(&answers);
        // [2,1] ordered twice is the largest split; the unordered answer joins it
        assert_eq!(c[0].members, vec![1, 2, 3]);
        assert_eq!(c[1].members, vec![0]);
        let tie = cluster(&[a(json!([[5]]), false), a(json!([[4]]), false)]);
        assert_eq!(tie[0].members, vec![0]);
    }
}
