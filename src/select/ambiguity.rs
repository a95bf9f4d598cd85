//! When the evidence does not decide: the candidates split into result clusters, the heaviest
//! stays below the gate (the verifier's weights included), and no duel was won by it. The choice
//! still stands (the best-supported reading), but the run says `ambiguous` and explains, in words,
//! both readings and the rows on which they differ: those of the separating instance a duel
//! played on, or else the rows of the real results that only one reading returns.

use serde_json::Value;

use super::adjudicate::Verdict;
use super::answer::{row_json, Answer};
use super::choose::Played;
use super::cluster::Cluster;

/// The reading not chosen, and why the evidence does not decide between the two.
#[derive(Debug, Clone, PartialEq)]
pub struct Ambiguity {
    /// The representative (an index into the candidates) of the other reading.
    pub alternative: usize,
    /// Both readings and the rows on which they differ, in words.
    pub explanation: String,
}

/// Rows shown of each side of a difference.
const SHOWN_ROWS: usize = 5;

fn cell(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::String(s) => format!("'{s}'"),
        other => other.to_string(),
    }
}

fn row_words(r: &Value) -> String {
    match r {
        Value::Array(cells) => format!("({})", cells.iter().map(cell).collect::<Vec<_>>().join(", ")),
        other => cell(other),
    }
}

fn rows_words(rows: &Value) -> String {
    match rows.as_array() {
        Some(r) if r.is_empty() => "no row".into(),
        Some(r) => {
            let shown: Vec<String> = r.iter().take(SHOWN_ROWS).map(row_words).collect();
            let more = if r.len() > SHOWN_ROWS { format!(" and {} more", r.len() - SHOWN_ROWS) } else { String::new() };
            format!("{}{more}", shown.join(", "))
        }
        None => "nothing".into(),
    }
}

/// The instance of a duel in words: each table's rows.
fn instance_words(instance: &Value) -> String {
    let tables = instance["tables"].as_array().cloned().unwrap_or_default();
    let parts: Vec<String> = tables
        .iter()
        .filter(|t| t["rows"].as_array().is_some_and(|r| !r.is_empty()))
        .map(|t| {
            let cols: Vec<String> = t["columns"].as_array().map(|c| c.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()).unwrap_or_default();
            format!("{}({}): {}", t["table"].as_str().unwrap_or("?"), cols.join(", "), rows_words(&t["rows"]))
        })
        .collect();
    parts.join("; ")
}

/// How two answers on the real data differ, in words: the rows only one side returns, each side
/// named by its label.
pub fn difference(x: &Answer, y: &Answer, x_label: &str, y_label: &str) -> String {
    let only = |a: &Answer, b: &Answer| -> Vec<Value> { a.rows.iter().filter(|r| !b.rows.contains(r)).map(|r| row_json(r)).collect() };
    let (only_x, only_y) = (only(x, y), only(y, x));
    if only_x.is_empty() && only_y.is_empty() {
        format!("both return the same rows ({}), in another order or number", x.rows.len())
    } else {
        format!(
            "on the data, only {x_label} returns {}; only {y_label} returns {}",
            rows_words(&Value::Array(only_x)),
            rows_words(&Value::Array(only_y))
        )
    }
}

/// Whether the evidence leaves the choice open, and if so the other reading and why.
/// `best` is the chosen cluster; `answers` are the candidates' results on the real data.
pub fn ambiguity(clusters: &[Cluster], answers: &[Option<Answer>], played: &[Played], best: usize, gate: f64) -> Option<Ambiguity> {
    if clusters.len() < 2 || clusters[best].confidence >= gate {
        return None;
    }
    let won = |p: &Played| (p.duel.a == best && p.duel.verdict == Verdict::A) || (p.duel.b == best && p.duel.verdict == Verdict::B);
    if played.iter().any(won) {
        return None;
    }
    // the other reading: the heaviest other cluster
    let other = (0..clusters.len()).filter(|&c| c != best).max_by(|&x, &y| clusters[x].confidence.total_cmp(&clusters[y].confidence).then(y.cmp(&x)))?;
    let (a, b) = (clusters[best].representative(), clusters[other].representative());
    let head = format!(
        "the evidence does not decide between two readings: candidate {} (chosen; weight share {:.2}) and candidate {} (weight share {:.2})",
        a + 1,
        clusters[best].confidence,
        b + 1,
        clusters[other].confidence
    );
    // a duel between the two with an instance: its rows, and each reading's answer there
    let duel = played.iter().find(|p| {
        ((p.duel.a == best && p.duel.b == other) || (p.duel.a == other && p.duel.b == best)) && p.record["found"] == Value::Bool(true)
    });
    let difference = match duel {
        Some(p) => {
            let (mine, theirs) = if p.duel.a == best { ("answer_a", "answer_b") } else { ("answer_b", "answer_a") };
            format!(
                "on {} row(s) cut from the data ({}) candidate {} returns {} and candidate {} returns {}{}",
                p.instance_rows.unwrap_or(0),
                instance_words(&p.record["instance"]),
                a + 1,
                rows_words(&p.record[mine]["rows"]),
                b + 1,
                rows_words(&p.record[theirs]["rows"]),
                if p.duel.verdict == Verdict::Draw { "; the model's answer there matched neither or both" } else { "" }
            )
        }
        None => match (answers.get(a).and_then(Option::as_ref), answers.get(b).and_then(Option::as_ref)) {
            (Some(x), Some(y)) => difference(x, y, &format!("candidate {}", a + 1), &format!("candidate {}", b + 1)),
            _ => String::new(),
        },
    };
    let explanation = if difference.is_empty() { head } else { format!("{head}: {difference}") };
    Some(Ambiguity { alternative: b, explanation })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::answer::RowSemantics;
    use crate::select::tournament::Duel;
    use serde_json::json;

    fn answer(rows: Value) -> Option<Answer> {
        let rows: Vec<Vec<Value>> = serde_json::from_value(rows).unwrap();
        Some(Answer::new(&rows, false, RowSemantics::Bag))
    }

    #[test]
    fn a_split_below_the_gate_without_a_won_duel_is_ambiguous() {
        let clusters = vec![Cluster { members: vec![0, 2], confidence: 0.5 }, Cluster { members: vec![1], confidence: 0.5 }];
        let answers = vec![answer(json!([["Ada"], ["Bruno"]])), answer(json!([["Ada"]])), answer(json!([["Ada"], ["Bruno"]]))];
        let a = ambiguity(&clusters, &answers, &[], 0, 0.6).unwrap();
        assert_eq!(a.alternative, 1);
        assert_eq!(
            a.explanation,
            "the evidence does not decide between two readings: candidate 1 (chosen; weight share 0.50) and candidate 2 (weight share 0.50): on the data, only candidate 1 returns ('Bruno'); only candidate 2 returns no row"
        );
        // above the gate: decided
        let decided = vec![Cluster { members: vec![0, 2], confidence: 0.67 }, Cluster { members: vec![1], confidence: 0.33 }];
        assert!(ambiguity(&decided, &answers, &[], 0, 0.6).is_none());
        // one cluster: nothing to decide
        assert!(ambiguity(&clusters[..1], &answers, &[], 0, 0.6).is_none());
    }

    #[test]
    fn a_drawn_duel_explains_with_its_instance_and_a_won_one_decides() {
        let clusters = vec![Cluster { members: vec![0], confidence: 0.5 }, Cluster { members: vec![1], confidence: 0.5 }];
        let answers = vec![answer(json!([[2]])), answer(json!([[1]]))];
        let record = json!({"found": true, "instance": {"row_count": 2, "tables": [
            {"table": "public.books", "columns": ["title", "price"], "rows": [["Dune", 12], ["Emma", 9]]}]},
            "answer_a": {"rows": [["2"]]}, "answer_b": {"rows": [["1"]]}});
        let draw = Played { duel: Duel { a: 0, b: 1, verdict: Verdict::Draw }, record: record.clone(), instance_rows: Some(2) };
        let a = ambiguity(&clusters, &answers, std::slice::from_ref(&draw), 0, 0.6).unwrap();
        assert!(
            a.explanation.ends_with("on 2 row(s) cut from the data (public.books(title, price): ('Dune', 12), ('Emma', 9)) candidate 1 returns ('2') and candidate 2 returns ('1'); the model's answer there matched neither or both"),
            "{}",
            a.explanation
        );
        let won = Played { duel: Duel { a: 0, b: 1, verdict: Verdict::A }, record, instance_rows: Some(2) };
        assert!(ambiguity(&clusters, &answers, &[won], 0, 0.6).is_none());
    }
}
