//! Results made comparable: the normal form in which two queries' answers are equal or not.
//!
//! A cell becomes a canonical string: NULL one form, numbers rounded to 4 decimals (so `3`,
//! `3.0` and `3.00001` agree, and an integer equals a numeric of the same value), booleans `t`/`f`,
//! strings trimmed, JSON compact. Dates and timestamps are already ISO text (the executor sets
//! `DateStyle = ISO`). Rows in which every cell is NULL are dropped (an aggregate over no rows).
//! Column order is ignored: columns are put in a canonical order by their values, so
//! `SELECT a, b` and `SELECT b, a` give one answer. Rows are compared as a set (the default, as
//! the separating-instance paper does), as a bag, or as a sequence when the query orders its
//! output.

use serde::Serialize;
use serde_json::Value;

/// How the rows of two answers are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RowSemantics {
    /// Duplicates and row order ignored.
    Set,
    /// Duplicates count, row order ignored.
    Bag,
}

impl RowSemantics {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "set" => Some(RowSemantics::Set),
            "bag" => Some(RowSemantics::Bag),
            _ => None,
        }
    }
}

/// The canonical text of one cell; `None` is SQL NULL.
pub fn cell(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Bool(b) => Some(if *b { "t" } else { "f" }.to_string()),
        Value::Number(n) => Some(number(&n.to_string())),
        Value::String(s) => Some(s.trim().to_string()),
        other => Some(other.to_string()),
    }
}

/// A number's canonical text: rounded to 4 decimals, no trailing zeros, no `-0`.
fn number(text: &str) -> String {
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() && f.abs() < 1e15 => {
            let s = format!("{:.4}", (f * 10_000.0).round() / 10_000.0);
            let s = s.trim_end_matches('0').trim_end_matches('.');
            if s == "-0" { "0".to_string() } else { s.to_string() }
        }
        _ => text.to_string(),
    }
}

/// One answer in normal form.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Answer {
    /// Rows of canonical cells, columns in canonical order; sorted unless `ordered`.
    pub rows: Vec<Vec<Option<String>>>,
    /// The query orders its output, so `rows` is in the query's order.
    pub ordered: bool,
}

impl Answer {
    /// Normalise JSON rows (as the executor returns them). `ordered`: the query has a top-level
    /// `ORDER BY`, so the sequence is part of the answer.
    pub fn new(rows: &[Vec<Value>], ordered: bool, semantics: RowSemantics) -> Self {
        let mut rows: Vec<Vec<Option<String>>> = rows
            .iter()
            .map(|r| r.iter().map(cell).collect::<Vec<_>>())
            .filter(|r: &Vec<Option<String>>| r.iter().any(Option::is_some))
            .collect();
        canonical_column_order(&mut rows);
        if !ordered {
            rows.sort();
            if semantics == RowSemantics::Set {
                rows.dedup();
            }
        } else if semantics == RowSemantics::Set {
            // keep the first occurrence of each row, in order
            let mut seen = std::collections::BTreeSet::new();
            rows.retain(|r| seen.insert(r.clone()));
        }
        Answer { rows, ordered }
    }

    /// The same rows without their order (sorted, duplicates kept as they are).
    pub fn unordered(&self) -> Answer {
        let mut rows = self.rows.clone();
        rows.sort();
        Answer { rows, ordered: false }
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// Two answers are the same when their rows are; the order counts only when both queries order
/// their output.
pub fn same(a: &Answer, b: &Answer) -> bool {
    if a.ordered && b.ordered {
        a.rows == b.rows
    } else {
        a.unordered().rows == b.unordered().rows
    }
}

/// Sort the columns by their content (the column vectors in row order), so a permutation of
/// columns gives the same rows. Rows must all have one length; ragged rows are left as they are.
fn canonical_column_order(rows: &mut [Vec<Option<String>>]) {
    let Some(width) = rows.first().map(Vec::len) else { return };
    if width < 2 || rows.iter().any(|r| r.len() != width) {
        return;
    }
    // sort the column vectors of the *sorted* rows so the choice does not depend on row order
    let mut sorted_rows: Vec<Vec<Option<String>>> = rows.to_vec();
    sorted_rows.sort();
    let mut order: Vec<usize> = (0..width).collect();
    order.sort_by(|&i, &j| {
        let ci = sorted_rows.iter().map(|r| &r[i]);
        let cj = sorted_rows.iter().map(|r| &r[j]);
        let mut vi: Vec<_> = ci.collect();
        let mut vj: Vec<_> = cj.collect();
        vi.sort();
        vj.sort();
        vi.cmp(&vj).then(i.cmp(&j))
    });
    for r in rows.iter_mut() {
        let permuted: Vec<Option<String>> = order.iter().map(|&i| r[i].clone()).collect();
        *r = permuted;
    }
}

/// One canonical row as JSON (NULL as null).
pub fn row_json(r: &[Option<String>]) -> Value {
    Value::Array(r.iter().map(|c| c.clone().map_or(Value::Null, Value::String)).collect())
}

/// Text of an answer for a person: at most `max_rows` rows.
pub fn preview(a: &Answer, max_rows: usize) -> Value {
    let rows: Vec<Value> = a.rows.iter().take(max_rows).map(|r| row_json(r)).collect();
    serde_json::json!({"rows": rows, "row_count": a.rows.len(), "ordered": a.ordered})
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rows(v: Value) -> Vec<Vec<Value>> {
        serde_json::from_value(v).unwrap()
    }

    fn ans(v: Value) -> Answer {
        Answer::new(&rows(v), false, RowSemantics::Set)
    }

    #[test]
    fn numbers_nulls_strings_normalise() {
        let n: Value = serde_json::from_str("3.00001").unwrap();
        assert_eq!(cell(&n).unwrap(), "3");
        assert_eq!(cell(&json!(2.5)).unwrap(), "2.5");
        assert_eq!(cell(&json!(-0.00001)).unwrap(), "0");
        assert_eq!(cell(&json!(7)).unwrap(), "7");
        assert_eq!(cell(&json!(" Ann ")).unwrap(), "Ann");
        assert_eq!(cell(&json!(true)).unwrap(), "t");
        assert_eq!(cell(&Value::Null), None);
        let big: Value = serde_json::from_str("123456789012345678901234567890").unwrap();
        assert_eq!(cell(&big).unwrap(), "123456789012345678901234567890");
        // an integer and a numeric of the same value are one answer
        assert_eq!(ans(json!([[3]])), ans(json!([[3.0]])));
    }

    #[test]
    fn all_null_rows_dropped_and_set_semantics() {
        assert!(ans(json!([[null, null]])).is_empty());
        assert_eq!(ans(json!([[1], [1], [2]])), ans(json!([[2], [1]])));
        let bag_a = Answer::new(&rows(json!([[1], [1], [2]])), false, RowSemantics::Bag);
        let bag_b = Answer::new(&rows(json!([[1], [2]])), false, RowSemantics::Bag);
        assert!(!same(&bag_a, &bag_b));
        assert!(same(&ans(json!([[1], [1], [2]])), &ans(json!([[1], [2]]))));
    }

    #[test]
    fn column_order_is_ignored() {
        assert_eq!(ans(json!([["a", 1], ["b", 2]])), ans(json!([[2, "b"], [1, "a"]])));
        // but the pairing of values in a row is kept
        assert_ne!(ans(json!([["a", 1], ["b", 2]])), ans(json!([["a", 2], ["b", 1]])));
    }

    #[test]
    fn order_counts_only_when_both_order() {
        let asc = Answer::new(&rows(json!([[1], [2]])), true, RowSemantics::Set);
        let desc = Answer::new(&rows(json!([[2], [1]])), true, RowSemantics::Set);
        let unordered = Answer::new(&rows(json!([[2], [1]])), false, RowSemantics::Set);
        assert!(!same(&asc, &desc));
        assert!(same(&asc, &unordered) && same(&desc, &unordered));
    }
}
