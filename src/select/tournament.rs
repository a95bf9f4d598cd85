//! The round robin over cluster representatives and the final choice.
//!
//! Each duel between clusters `i` and `j` gives the winner 1 point, a draw (or a duel that could
//! not be decided: no separating instance, no usable vote) 0.5 to each. A cluster's score is
//!
//! ```text
//! score = wins + confidence
//! ```
//!
//! so a won duel outweighs any difference in cluster size (confidence < 1), and between equal win
//! counts the larger cluster leads. Remaining ties go to the larger cluster, then the earlier one.

use super::adjudicate::Verdict;
use super::cluster::Cluster;

/// One played duel between clusters `a` and `b` (indexes into the cluster list).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Duel {
    pub a: usize,
    pub b: usize,
    pub verdict: Verdict,
}

/// The pairs to play among the first `top` clusters, at most `max_pairs`, strongest pairs first
/// (by the sum of the clusters' sizes, then their order).
pub fn schedule(clusters: &[Cluster], top: usize, max_pairs: usize) -> Vec<(usize, usize)> {
    let n = clusters.len().min(top);
    let mut pairs: Vec<(usize, usize)> = (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect();
    pairs.sort_by_key(|&(i, j)| (std::cmp::Reverse(clusters[i].members.len() + clusters[j].members.len()), i, j));
    pairs.truncate(max_pairs);
    pairs
}

/// Wins per cluster from the duels.
pub fn wins(n_clusters: usize, duels: &[Duel]) -> Vec<f64> {
    let mut w = vec![0.0; n_clusters];
    for d in duels {
        match d.verdict {
            Verdict::A => w[d.a] += 1.0,
            Verdict::B => w[d.b] += 1.0,
            Verdict::Draw => {
                w[d.a] += 0.5;
                w[d.b] += 0.5;
            }
        }
    }
    w
}

/// Scores (`wins + confidence`) and the index of the chosen cluster.
pub fn choose(clusters: &[Cluster], duels: &[Duel]) -> (Vec<f64>, Option<usize>) {
    let w = wins(clusters.len(), duels);
    let scores: Vec<f64> = clusters.iter().zip(&w).map(|(c, w)| w + c.confidence).collect();
    let best = (0..clusters.len()).max_by(|&i, &j| {
        scores[i]
            .partial_cmp(&scores[j])
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(clusters[i].members.len().cmp(&clusters[j].members.len()))
            .then(j.cmp(&i))
    });
    (scores, best)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(members: Vec<usize>, total: usize) -> Cluster {
        Cluster { confidence: members.len() as f64 / total as f64, members }
    }

    #[test]
    fn a_won_duel_beats_a_bigger_cluster() {
        let clusters = vec![c(vec![0, 1, 2], 5), c(vec![3, 4], 5)];
        let (scores, best) = choose(&clusters, &[Duel { a: 0, b: 1, verdict: Verdict::B }]);
        assert_eq!(best, Some(1));
        assert!((scores[1] - 1.4).abs() < 1e-9 && (scores[0] - 0.6).abs() < 1e-9);
        // a draw leaves the larger cluster ahead
        let (_, best) = choose(&clusters, &[Duel { a: 0, b: 1, verdict: Verdict::Draw }]);
        assert_eq!(best, Some(0));
        // no duels at all: the largest cluster
        assert_eq!(choose(&clusters, &[]).1, Some(0));
        assert_eq!(choose(&[], &[]).1, None);
    }

    #[test]
    fn schedule_is_bounded_round_robin() {
        let clusters = vec![c(vec![0, 1], 6), c(vec![2, 3], 6), c(vec![4], 6), c(vec![5], 6)];
        assert_eq!(schedule(&clusters, 3, 10), vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(schedule(&clusters, 4, 2), vec![(0, 1), (0, 2)]);
        assert_eq!(schedule(&clusters, 1, 10), Vec::<(usize, usize)>::new());
    }
}
