//! What running a query produces: typed columns and rows normalised to JSON, or a failure.
//!
//! The executor reads each value through its type's output function (with `DateStyle = ISO`) and
//! hands the text here with the type's [`TypeClass`]; [`ResultBuilder`] bounds rows and bytes.

use std::str::FromStr;

use serde::Serialize;
use serde_json::{json, Number, Value};

/// How a PostgreSQL type's text output maps to JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeClass {
    Bool,
    /// int2, int4, int8, oid: a JSON integer.
    Integer,
    /// float4, float8, numeric: a JSON number, or a string for NaN and infinities.
    Number,
    /// json, jsonb: embedded as JSON.
    Json,
    /// Everything else (text, dates as ISO strings, arrays, ...): a JSON string.
    Text,
}

/// Convert one non-NULL value's text output to JSON.
pub fn cell_to_json(class: TypeClass, text: &str) -> Value {
    match class {
        TypeClass::Bool => match text {
            "t" | "true" => Value::Bool(true),
            "f" | "false" => Value::Bool(false),
            other => Value::String(other.to_string()),
        },
        TypeClass::Integer | TypeClass::Number => match Number::from_str(text) {
            Ok(n) => Value::Number(n),
            Err(_) => Value::String(text.to_string()),
        },
        TypeClass::Json => {
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
        }
        TypeClass::Text => Value::String(text.to_string()),
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnInfo {
    pub name: String,
    #[serde(rename = "type")]
    pub type_name: String,
}

/// Limits on what a result may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultBudget {
    pub max_rows: usize,
    /// Rough size of the rows as JSON text.
    pub max_bytes: usize,
}

/// Why a result holds fewer rows than the query produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Truncation {
    MaxRows,
    MaxBytes,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResultSet {
    pub columns: Vec<ColumnInfo>,
    pub rows: Vec<Vec<Value>>,
    pub truncated: Option<Truncation>,
    pub elapsed_ms: f64,
}

/// An error raised while running the query, as PostgreSQL reported it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExecFailure {
    pub sqlstate: String,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
    /// The executor's own time limit ended the query.
    pub timed_out: bool,
    pub elapsed_ms: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Rows(ResultSet),
    Failed(ExecFailure),
}

impl Outcome {
    pub fn is_ok(&self) -> bool {
        matches!(self, Outcome::Rows(_))
    }

    /// The `nl2sql_try` JSON shape:
    /// `{ok, columns:[{name,type}], rows:[[...]], row_count, truncated, elapsed_ms}` or
    /// `{ok:false, sqlstate, error, detail?, hint?, timed_out, elapsed_ms}`.
    pub fn to_json(&self) -> Value {
        match self {
            Outcome::Rows(r) => json!({
                "ok": true,
                "columns": r.columns,
                "rows": r.rows,
                "row_count": r.rows.len(),
                "truncated": r.truncated.is_some(),
                "truncated_by": r.truncated,
                "elapsed_ms": round_ms(r.elapsed_ms),
            }),
            Outcome::Failed(f) => {
                let mut v = json!({
                    "ok": false,
                    "sqlstate": f.sqlstate,
                    "error": f.message,
                    "timed_out": f.timed_out,
                    "elapsed_ms": round_ms(f.elapsed_ms),
                });
                if let Some(d) = &f.detail {
                    v["detail"] = json!(d);
                }
                if let Some(h) = &f.hint {
                    v["hint"] = json!(h);
                }
                v
            }
        }
    }
}

impl ResultSet {
    /// The rows as JSON objects keyed by column name; a repeated name gets a suffix (`name_2`).
    pub fn objects(&self) -> Vec<Value> {
        let mut names: Vec<String> = Vec::new();
        let mut seen: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for c in &self.columns {
            let n = seen.entry(c.name.as_str()).or_insert(0);
            *n += 1;
            names.push(if *n == 1 { c.name.clone() } else { format!("{}_{}", c.name, n) });
        }
        self.rows
            .iter()
            .map(|row| Value::Object(names.iter().cloned().zip(row.iter().cloned()).collect()))
            .collect()
    }
}

fn round_ms(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

/// Accumulates rows until the budget is spent.
#[derive(Debug)]
pub struct ResultBuilder {
    budget: ResultBudget,
    columns: Vec<ColumnInfo>,
    rows: Vec<Vec<Value>>,
    bytes: usize,
    truncated: Option<Truncation>,
}

impl ResultBuilder {
    pub fn new(columns: Vec<ColumnInfo>, budget: ResultBudget) -> Self {
        ResultBuilder { budget, columns, rows: Vec::new(), bytes: 0, truncated: None }
    }

    /// Offer the next row. Returns `false` once the budget is spent: the row was not kept and
    /// the caller should stop fetching.
    pub fn push(&mut self, row: Vec<Value>) -> bool {
        if self.truncated.is_some() {
            return false;
        }
        if self.rows.len() >= self.budget.max_rows {
            self.truncated = Some(Truncation::MaxRows);
            return false;
        }
        let size: usize = row.iter().map(approx_json_len).sum::<usize>() + row.len() + 2;
        if self.bytes + size > self.budget.max_bytes {
            self.truncated = Some(Truncation::MaxBytes);
            return false;
        }
        self.bytes += size;
        self.rows.push(row);
        true
    }

    /// How many more rows can be taken, plus one to detect truncation.
    pub fn wanted(&self) -> usize {
        self.budget.max_rows.saturating_sub(self.rows.len()) + 1
    }

    pub fn finish(self, elapsed_ms: f64) -> ResultSet {
        ResultSet { columns: self.columns, rows: self.rows, truncated: self.truncated, elapsed_ms }
    }
}

fn approx_json_len(v: &Value) -> usize {
    match v {
        Value::Null => 4,
        Value::Bool(_) => 5,
        Value::Number(n) => n.to_string().len(),
        Value::String(s) => s.len() + 2,
        other => other.to_string().len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_keep_their_type() {
        assert_eq!(cell_to_json(TypeClass::Bool, "t"), json!(true));
        assert_eq!(cell_to_json(TypeClass::Integer, "-42"), json!(-42));
        assert_eq!(cell_to_json(TypeClass::Number, "1.5"), json!(1.5));
        assert_eq!(cell_to_json(TypeClass::Number, "NaN"), json!("NaN"));
        assert_eq!(cell_to_json(TypeClass::Number, "-Infinity"), json!("-Infinity"));
        assert_eq!(cell_to_json(TypeClass::Json, r#"{"a": [1]}"#), json!({"a": [1]}));
        assert_eq!(cell_to_json(TypeClass::Text, "2024-01-02"), json!("2024-01-02"));
        // numeric keeps every digit
        let big = "123456789012345678901234567890.000000000000000001";
        assert_eq!(cell_to_json(TypeClass::Number, big).to_string(), big);
    }

    #[test]
    fn builder_stops_at_rows_then_bytes() {
        let cols = vec![ColumnInfo { name: "a".into(), type_name: "integer".into() }];
        let mut b = ResultBuilder::new(cols.clone(), ResultBudget { max_rows: 2, max_bytes: 1000 });
        assert!(b.push(vec![json!(1)]));
        assert!(b.push(vec![json!(2)]));
        assert!(!b.push(vec![json!(3)]));
        let r = b.finish(1.0);
        assert_eq!((r.rows.len(), r.truncated), (2, Some(Truncation::MaxRows)));

        let mut b = ResultBuilder::new(cols, ResultBudget { max_rows: 100, max_bytes: 30 });
        assert!(b.push(vec![json!("0123456789")]));
        assert!(b.push(vec![json!("0123456789")]));
        assert!(!b.push(vec![json!("0123456789")]));
        assert_eq!(b.finish(0.0).truncated, Some(Truncation::MaxBytes));
    }

    #[test]
    fn outcome_json_shapes() {
        let ok = Outcome::Rows(ResultSet {
            columns: vec![ColumnInfo { name: "n".into(), type_name: "bigint".into() }],
            rows: vec![vec![json!(7)]],
            truncated: None,
            elapsed_ms: 0.5,
        })
        .to_json();
        assert_eq!(ok["ok"], json!(true));
        assert_eq!(ok["columns"], json!([{"name": "n", "type": "bigint"}]));
        assert_eq!(ok["row_count"], json!(1));
        assert_eq!(ok["truncated"], json!(false));
        let failed = Outcome::Failed(ExecFailure {
            sqlstate: "57014".into(),
            message: "timeout".into(),
            detail: None,
            hint: Some("h".into()),
            timed_out: true,
            elapsed_ms: 3.0,
        })
        .to_json();
        assert_eq!(failed["ok"], json!(false));
        assert_eq!(failed["sqlstate"], json!("57014"));
        assert_eq!(failed["hint"], json!("h"));
        assert!(failed.get("detail").is_none());
    }
}
