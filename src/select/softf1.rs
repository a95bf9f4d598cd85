//! Soft F1 of two answers over an optimal row matching (DPC's BS-F1, with column order ignored).
//!
//! For a predicted row `p` and a reference row `g`, `matches` counts the cells they share as
//! multisets (a value matches a value in any column). `m = matches/|g|`; the row pair adds `m` to
//! TP, `(|p|-matches)/|g|` to FP and `(|g|-matches)/|g|` to FN. Rows are paired by a maximum-weight
//! assignment on `m` (Hungarian method, `pathfinding::kuhn_munkres`); unpaired predicted rows add
//! 1 to FP, unpaired reference rows 1 to FN. F1 = 2PR/(P+R); both empty → 1; one empty → 0.
//! Bag semantics, as in DPC: duplicate rows count.

use pathfinding::kuhn_munkres::kuhn_munkres;
use pathfinding::matrix::Matrix;

pub type Row = Vec<Option<String>>;

fn matches(p: &Row, g: &Row) -> usize {
    let mut rest: Vec<&Option<String>> = g.iter().collect();
    let mut n = 0;
    for cell in p {
        if let Some(pos) = rest.iter().position(|c| *c == cell) {
            rest.swap_remove(pos);
            n += 1;
        }
    }
    n
}

/// Soft F1 of `pred` against `gold`, in 0..=1.
pub fn soft_f1(pred: &[Row], gold: &[Row]) -> f64 {
    match (pred.is_empty(), gold.is_empty()) {
        (true, true) => return 1.0,
        (true, false) | (false, true) => return 0.0,
        _ => {}
    }
    const SCALE: f64 = 1_000_000.0;
    // the row similarity m of (pred i, gold j), scaled to integers for the assignment
    let m = |i: usize, j: usize| -> f64 {
        let g = &gold[j];
        if g.is_empty() {
            return if pred[i].is_empty() { 1.0 } else { 0.0 };
        }
        matches(&pred[i], g) as f64 / g.len() as f64
    };
    let transpose = pred.len() > gold.len();
    let (rows, cols) = if transpose { (gold.len(), pred.len()) } else { (pred.len(), gold.len()) };
    let mut weights = Matrix::new(rows, cols, 0i64);
    for r in 0..rows {
        for c in 0..cols {
            let (i, j) = if transpose { (c, r) } else { (r, c) };
            weights[(r, c)] = (m(i, j) * SCALE).round() as i64;
        }
    }
    let (_, assignment) = kuhn_munkres(&weights);
    let (mut tp, mut fp, mut fn_) = (0.0, 0.0, 0.0);
    for (r, &c) in assignment.iter().enumerate() {
        let (i, j) = if transpose { (c, r) } else { (r, c) };
        let g = &gold[j];
        let p = &pred[i];
        if g.is_empty() {
            if p.is_empty() { tp += 1.0 } else { fp += 1.0 }
            continue;
        }
        let k = matches(p, g) as f64;
        let glen = g.len() as f64;
        tp += k / glen;
        fp += (p.len() as f64 - k) / glen;
        fn_ += (glen - k) / glen;
    }
    // unmatched rows: the longer side's rows not in the assignment
    let matched = assignment.len();
    fp += (pred.len() - matched) as f64;
    fn_ += (gold.len() - matched) as f64;
    let precision = if tp + fp > 0.0 { tp / (tp + fp) } else { 0.0 };
    let recall = if tp + fn_ > 0.0 { tp / (tp + fn_) } else { 0.0 };
    if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(v: &[&[&str]]) -> Vec<Row> {
        v.iter().map(|r| r.iter().map(|c| if *c == "NULL" { None } else { Some(c.to_string()) }).collect()).collect()
    }

    #[test]
    fn identical_disjoint_and_empty() {
        let a = rows(&[&["1", "x"], &["2", "y"]]);
        assert_eq!(soft_f1(&a, &a), 1.0);
        assert_eq!(soft_f1(&a, &rows(&[&["3", "z"]])), 0.0);
        assert_eq!(soft_f1(&[], &[]), 1.0);
        assert_eq!(soft_f1(&a, &[]), 0.0);
        assert_eq!(soft_f1(&[], &a), 0.0);
    }

    #[test]
    fn partial_credit_and_optimal_matching() {
        // one of two cells right in one row: P = R = 0.5
        let f = soft_f1(&rows(&[&["1", "x"]]), &rows(&[&["1", "y"]]));
        assert!((f - 0.5).abs() < 1e-9, "{f}");
        // greedy pairing in input order would pair (a,1)-(a,2); the optimum pairs each row exactly
        let pred = rows(&[&["a", "1"], &["a", "2"]]);
        let gold = rows(&[&["a", "2"], &["a", "1"]]);
        assert_eq!(soft_f1(&pred, &gold), 1.0);
        // column order does not matter
        assert_eq!(soft_f1(&rows(&[&["x", "1"]]), &rows(&[&["1", "x"]])), 1.0);
    }

    #[test]
    fn extra_and_missing_rows_cost() {
        let gold = rows(&[&["1"], &["2"]]);
        let more = rows(&[&["1"], &["2"], &["3"], &["4"]]);
        let f = soft_f1(&more, &gold); // P = 0.5, R = 1
        assert!((f - 2.0 / 3.0).abs() < 1e-9, "{f}");
        let f = soft_f1(&gold, &more); // P = 1, R = 0.5
        assert!((f - 2.0 / 3.0).abs() < 1e-9, "{f}");
        // duplicates count (bag)
        let f = soft_f1(&rows(&[&["1"], &["1"]]), &rows(&[&["1"]]));
        assert!((f - 2.0 / 3.0).abs() < 1e-9, "{f}");
    }
}
