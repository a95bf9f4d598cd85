//! The model as judge of one duel: it answers the question on the separating instance, and its
//! answer is compared with both candidates' answers on that instance by soft F1.

use serde_json::{json, Value};

use super::answer::{cell, Answer};
use super::softf1::{soft_f1, Row};
use crate::llm::json::extract_json;
use crate::llm::Message;

/// What one vote, or a duel, decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    A,
    B,
    Draw,
}

/// The JSON schema of the model's answer: a short reasoning, then at most 50 answer rows of
/// exactly `width` values each.
pub fn answer_schema(width: usize) -> Value {
    let width = width.max(1);
    json!({
        "type": "object",
        "properties": {
            "reasoning": {"type": "string", "maxLength": 600},
            "rows": {"type": "array", "maxItems": 50, "items": {
                "type": "array", "minItems": width, "maxItems": width,
                "items": {"type": ["string", "number", "boolean", "null"]}
            }}
        },
        "required": ["reasoning", "rows"]
    })
}

/// The messages of one vote. `schema` describes the instance's tables; `instance` holds their rows
/// (`{"table": [{"column": value, ...}, ...]}`); `width` is how many values an answer row has, and
/// `names` their names when both candidates name their output columns alike (else empty): it
/// tells the model what to return without favouring either candidate.
pub fn messages(question: &str, evidence: Option<&str>, schema: &str, instance: &Value, width: usize, names: &[String]) -> Vec<Message> {
    let system = "You are an expert in SQL databases and careful reading. You are given a very small database: \
                  every row of every table is shown. Answer the question by reading these rows only, as a correct \
                  SQL query on this database would: apply every condition of the question to each row, join rows \
                  through their keys, count, sum or compare exactly. Reply with JSON only: {\"reasoning\": \"...\", \
                  \"rows\": [[...], ...]} where rows are the answer tuples (an empty list if nothing qualifies).";
    let mut user = format!("Tables:\n{schema}\n\nRows (JSON):\n{}\n\nQuestion: {question}\n", instance);
    if let Some(e) = evidence.filter(|e| !e.trim().is_empty()) {
        user.push_str(&format!("Hint: {e}\n"));
    }
    let named = if names.len() == width && !names.is_empty() { format!(" ({})", names.join(", ")) } else { String::new() };
    user.push_str(&format!(
        "Each answer tuple has exactly {width} value{}{named}. Check each row against the question in \"reasoning\" (briefly), then give \"rows\".",
        if width == 1 { "" } else { "s" }
    ));
    vec![Message::system(system), Message::user(user)]
}

/// The answer rows of a reply, in the normal form of [`cell`]; `None` if the reply is not one.
pub fn parse_answer(content: &str) -> Option<Vec<Row>> {
    let v = extract_json(content).ok()?;
    let rows = v.get("rows")?.as_array()?;
    rows.iter()
        .map(|r| match r {
            Value::Array(cells) => Some(cells.iter().map(cell).collect()),
            scalar => Some(vec![cell(scalar)]),
        })
        .collect::<Option<Vec<Row>>>()
        .map(|rows| rows.into_iter().filter(|r: &Row| r.iter().any(Option::is_some)).collect())
}

/// Scores of one model answer against both candidates' answers on the instance.
pub fn scores(answer: &[Row], a: &Answer, b: &Answer) -> (f64, f64) {
    (soft_f1(answer, &a.rows), soft_f1(answer, &b.rows))
}

/// One vote: the candidate whose answer is closer to the model's by more than `margin`.
pub fn vote(answer: &[Row], a: &Answer, b: &Answer, margin: f64) -> Verdict {
    let (fa, fb) = scores(answer, a, b);
    if fa > fb + margin {
        Verdict::A
    } else if fb > fa + margin {
        Verdict::B
    } else {
        Verdict::Draw
    }
}

/// The duel's outcome: the side with more votes; equal counts are a draw.
pub fn majority(votes: &[Verdict]) -> Verdict {
    let a = votes.iter().filter(|v| **v == Verdict::A).count();
    let b = votes.iter().filter(|v| **v == Verdict::B).count();
    match a.cmp(&b) {
        std::cmp::Ordering::Greater => Verdict::A,
        std::cmp::Ordering::Less => Verdict::B,
        std::cmp::Ordering::Equal => Verdict::Draw,
    }
}

#[cfg(test)]
mod tests {
    use super::super::answer::RowSemantics;
    use super::*;

    #[test]
    fn prompt_names_the_columns_only_when_given() {
        let m = messages("q?", Some("hint"), "t(a int)", &json!({"t": [{"a": 1}]}), 2, &["name".into(), "n".into()]);
        assert!(m[1].content.contains("exactly 2 values (name, n)") && m[1].content.contains("Hint: hint"));
        let m = messages("q?", None, "t(a int)", &json!({}), 1, &[]);
        assert!(m[1].content.contains("exactly 1 value.") && !m[1].content.contains("Hint"));
        assert_eq!(answer_schema(3)["properties"]["rows"]["items"]["minItems"], 3);
    }

    #[test]
    fn parses_rows_in_normal_form() {
        let rows = parse_answer("```json\n{\"reasoning\": \"x\", \"rows\": [[\"B\", 12.0], [null], 7]}\n```").unwrap();
        assert_eq!(rows, vec![vec![Some("B".to_string()), Some("12".to_string())], vec![Some("7".to_string())]]);
        assert_eq!(parse_answer("{\"reasoning\": \"x\", \"rows\": []}").unwrap(), Vec::<Row>::new());
        assert!(parse_answer("no json here").is_none());
        assert!(parse_answer("{\"answer\": 1}").is_none());
    }

    #[test]
    fn votes_follow_soft_f1_and_majority() {
        let a = Answer::new(&[vec![json!("B")]], false, RowSemantics::Set);
        let b = Answer::new(&[vec![json!("A")], vec![json!("B")]], false, RowSemantics::Set);
        let model = parse_answer("{\"reasoning\":\"\",\"rows\":[[\"B\"]]}").unwrap();
        assert_eq!(vote(&model, &a, &b, 0.01), Verdict::A);
        let model = parse_answer("{\"reasoning\":\"\",\"rows\":[[\"A\"],[\"B\"]]}").unwrap();
        assert_eq!(vote(&model, &a, &b, 0.01), Verdict::B);
        let model = parse_answer("{\"reasoning\":\"\",\"rows\":[[\"C\"]]}").unwrap();
        assert_eq!(vote(&model, &a, &b, 0.01), Verdict::Draw);
        assert_eq!(majority(&[Verdict::A, Verdict::B, Verdict::A]), Verdict::A);
        assert_eq!(majority(&[Verdict::Draw, Verdict::B, Verdict::Draw]), Verdict::B);
        assert_eq!(majority(&[Verdict::A, Verdict::B, Verdict::Draw]), Verdict::Draw);
        assert_eq!(majority(&[]), Verdict::Draw);
    }
}
