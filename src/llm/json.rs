//! Robust extraction of JSON and code from model output.
//!
//! Small models wrap answers in Markdown code fences, add prose before or after, or stop mid-way.
//! These functions find the intended payload or say precisely why there is none.

use serde_json::Value;

/// Strip one surrounding Markdown code fence (```` ```json ... ``` ````, ```` ```sql ````, ...)
/// if the text has one; otherwise return the trimmed text. A fence opened but never closed
/// (a truncated answer) is stripped too.
pub fn strip_code_fences(text: &str) -> &str {
    let t = text.trim();
    let Some(start) = t.find("```") else { return t };
    let after_open = &t[start + 3..];
    // skip the info string (e.g. "json", "sql") up to the end of the line
    let body_start = after_open.find('\n').map(|i| i + 1).unwrap_or(after_open.len());
    let body = &after_open[body_start..];
    match body.find("```") {
        Some(end) => body[..end].trim(),
        None => body.trim(),
    }
}

/// Find the JSON object or array a model meant to return.
///
/// Tries, in order: the whole text, the text inside a code fence, then the first position at
/// which a complete JSON object or array parses (trailing prose is ignored).
pub fn extract_json(text: &str) -> Result<Value, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("the model returned an empty answer".to_string());
    }
    for candidate in [trimmed, strip_code_fences(trimmed)] {
        if let Ok(v @ (Value::Object(_) | Value::Array(_))) = serde_json::from_str::<Value>(candidate) {
            return Ok(v);
        }
    }
    let mut last_error = None;
    for (i, c) in trimmed.char_indices() {
        if c != '{' && c != '[' {
            continue;
        }
        let mut stream = serde_json::Deserializer::from_str(&trimmed[i..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(v)) => return Ok(v),
            Some(Err(e)) => {
                last_error.get_or_insert_with(|| e.to_string());
            }
            None => {}
        }
    }
    Err(match last_error {
        Some(e) => format!("the model's answer holds no complete JSON value ({e})"),
        None => "the model's answer holds no JSON object or array".to_string(),
    })
}

/// Shorten text for error messages and logs, on a character boundary.
pub fn excerpt(text: &str, max_chars: usize) -> String {
    let mut out: String = text.chars().take(max_chars).collect();
    if text.chars().count() > max_chars {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strips_fences() {
        assert_eq!(strip_code_fences("```sql\nSELECT 1\n```"), "SELECT 1");
        assert_eq!(strip_code_fences("Here:\n```\nSELECT 2;\n```\nDone."), "SELECT 2;");
        assert_eq!(strip_code_fences("```json\n{\"a\":1"), "{\"a\":1");
        assert_eq!(strip_code_fences("  SELECT 3  "), "SELECT 3");
    }

    #[test]
    fn extracts_json_from_what_models_say() {
        assert_eq!(extract_json(r#"{"a": 1}"#).unwrap(), json!({"a": 1}));
        assert_eq!(extract_json("```json\n{\"a\": [1, 2]}\n```").unwrap(), json!({"a": [1, 2]}));
        assert_eq!(
            extract_json("Sure! Here is the JSON: {\"action\": \"done\"} Hope it helps {x}").unwrap(),
            json!({"action": "done"})
        );
        assert_eq!(extract_json("[1, {\"b\": \"}\"}]").unwrap(), json!([1, {"b": "}"}]));
        // a brace inside prose before the real object is skipped
        assert_eq!(extract_json("use {braces} like {\"k\": true}").unwrap(), json!({"k": true}));
    }

    #[test]
    fn says_why_there_is_no_json() {
        assert!(extract_json("").unwrap_err().contains("empty"));
        assert!(extract_json("SELECT * FROM t").unwrap_err().contains("no JSON"));
        assert!(extract_json("{\"a\": 1, \"b\": ").unwrap_err().contains("no complete JSON"));
    }

    #[test]
    fn excerpt_respects_char_boundaries() {
        assert_eq!(excerpt("äöü", 2), "äö…");
        assert_eq!(excerpt("ab", 5), "ab");
    }
}
