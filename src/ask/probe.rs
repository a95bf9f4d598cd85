//! The probe loop (PV-SQL): the model asks bounded read-only queries to ground values and formats.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use serde::Serialize;
use serde_json::{json, Value};

use sqlparser::ast::{visit_expressions, Expr, Query, Value as SqlValue};

use super::prompts::{EXAMPLE_VALUE, EXAMPLE_WORDS};
use crate::catalog::Catalog;
use crate::checks::calls_aggregate;
use crate::result::Outcome;
use crate::ground::taught::Taught;

/// The JSON schema of one probe step.
pub fn step_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["probe", "done"]},
            "probe_sql": {"type": "string"},
            "relevant_columns": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
            "value_mappings": {"type": "object", "additionalProperties": {"type": "string"}}
        },
        "required": ["action"]
    })
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProbeStep {
    /// `Some(sql)` when the model wants to run a probe; `None` when it is done.
    pub probe_sql: Option<String>,
    pub relevant_columns: BTreeMap<String, Vec<String>>,
    pub value_mappings: BTreeMap<String, String>,
}

/// Read a probe step from the model's JSON. Unknown shapes are an error, never a silent "done".
pub fn parse_step(v: &Value) -> Result<ProbeStep, String> {
    let obj = v.as_object().ok_or("a probe step must be a JSON object")?;
    let action = obj.get("action").and_then(Value::as_str).unwrap_or("done").to_ascii_lowercase();
    if action != "probe" && action != "done" {
        return Err(format!("unknown probe action \"{action}\" (expected probe or done)"));
    }
    let probe_sql = obj
        .get("probe_sql")
        .and_then(Value::as_str)
        .map(|s| s.trim().trim_end_matches(';').trim().to_string())
        .filter(|s| !s.is_empty() && action == "probe");
    let relevant_columns = obj
        .get("relevant_columns")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(t, cols)| {
                    let cols = match cols {
                        Value::Array(a) => a.iter().filter_map(|c| c.as_str().map(str::to_string)).collect(),
                        Value::String(s) => vec![s.clone()],
                        _ => vec![],
                    };
                    (t.clone(), cols)
                })
                .collect()
        })
        .unwrap_or_default();
    let value_mappings = obj
        .get("value_mappings")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| match v {
                    Value::String(s) => Some((k.clone(), s.clone())),
                    Value::Number(n) => Some((k.clone(), n.to_string())),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(ProbeStep { probe_sql, relevant_columns, value_mappings })
}

impl ProbeStep {
    /// The step with only what it says about this database: relevant columns that are columns of
    /// its tables, and value mappings other than the prompt's own example (which a small model
    /// copies; counted as learned, it kept the loop asking).
    pub fn about(mut self, catalog: &Catalog) -> ProbeStep {
        self.relevant_columns = std::mem::take(&mut self.relevant_columns)
            .into_iter()
            .filter_map(|(table, cols)| {
                let (schema, name) = match table.rsplit_once('.') {
                    Some((s, n)) => (Some(s.to_lowercase()), n.to_lowercase()),
                    None => (None, table.to_lowercase()),
                };
                let t = catalog.resolve(schema.as_deref(), &name)?;
                let cols: Vec<String> = cols.into_iter().filter(|c| t.column(&c.to_lowercase()).is_some()).collect();
                (!cols.is_empty()).then_some((table, cols))
            })
            .collect();
        self.value_mappings.retain(|k, v| k != EXAMPLE_WORDS && v != EXAMPLE_VALUE);
        self
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbeRecord {
    pub sql: String,
    pub observation: String,
}

/// What the probes established, accumulated over the loop and handed to generation and repair.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Grounding {
    pub relevant_columns: BTreeMap<String, Vec<String>>,
    pub value_mappings: BTreeMap<String, String>,
    pub probes: Vec<ProbeRecord>,
    /// Constants (lower case) that a probe compared with and found rows for: the data holds them
    /// as the probe wrote them, so the question's words they spell are grounded.
    pub confirmed: BTreeSet<String>,
    /// The verified examples and glossary entries this question is shown (`ground::taught`).
    #[serde(skip_serializing_if = "Taught::is_empty")]
    pub taught: Taught,
}

impl Grounding {
    /// Merge a step's columns and mappings; returns whether anything was new.
    pub fn merge(&mut self, step: &ProbeStep) -> bool {
        let mut new = false;
        for (table, cols) in &step.relevant_columns {
            let entry = self.relevant_columns.entry(table.clone()).or_default();
            for c in cols {
                if !entry.contains(c) {
                    entry.push(c.clone());
                    new = true;
                }
            }
        }
        for (k, v) in &step.value_mappings {
            if self.value_mappings.insert(k.clone(), v.clone()).as_ref() != Some(v) {
                new = true;
            }
        }
        new
    }

    /// Record a probe's observation; returns whether it told something not seen before.
    pub fn record(&mut self, sql: String, observation: String) -> bool {
        // an empty result or a repeated observation tells nothing new; a first error does
        let new = !self.probes.iter().any(|p| p.observation == observation) && !observation.ends_with("(0 rows)");
        self.probes.push(ProbeRecord { sql, observation });
        new
    }

    /// A probe that returned rows confirms the constants it compared with (string literals, with
    /// a pattern's wildcards taken off, and numbers). Not a probe that aggregates: a count returns
    /// its row whether or not anything matched.
    pub fn confirm(&mut self, probe: &Query, outcome: &Outcome) {
        if matches!(outcome, Outcome::Rows(r) if !r.rows.is_empty()) && !calls_aggregate(probe) {
            self.confirmed.extend(constants(probe));
        }
    }

    /// Is a word of the question grounded: does a value mapping (from the value index or the model)
    /// or a confirmed constant spell it? "Asian" is grounded by a stored "Asia".
    pub fn grounds(&self, word: &str) -> bool {
        let word = word.to_lowercase();
        let spells = |value: &str| {
            let value = value.to_lowercase();
            value.contains(&word) || (value.chars().count() >= 4 && word.starts_with(&value) && word.chars().count() <= value.chars().count() + 2)
        };
        self.value_mappings.keys().any(|k| spells(k)) || self.confirmed.iter().any(|c| spells(c))
    }

    /// Was this exact probe already run?
    pub fn already_ran(&self, sql: &str) -> bool {
        self.probes.iter().any(|p| p.sql == sql)
    }

    pub fn is_empty(&self) -> bool {
        self.relevant_columns.is_empty() && self.value_mappings.is_empty() && self.probes.is_empty()
    }

    /// The grounding as prompt text; empty when nothing was established.
    pub fn to_prompt(&self) -> String {
        let mut out = Vec::new();
        if !self.value_mappings.is_empty() {
            out.push(format!("Value mappings (use these exact values): {}", json!(self.value_mappings)));
        }
        if !self.relevant_columns.is_empty() {
            out.push(format!("Relevant columns: {}", json!(self.relevant_columns)));
        }
        for p in &self.probes {
            out.push(format!("Probe: {}\n  -> {}", p.sql, p.observation));
        }
        out.join("\n")
    }
}

/// The constants a query compares with, lower case: string literals (a LIKE pattern's `%` and `_`
/// taken off) and numbers; not its outer LIMIT, ORDER BY or OFFSET.
fn constants(query: &Query) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let _ = visit_expressions(&*query.body, |e| {
        if let Expr::Value(v) = e {
            let text = match &v.value {
                SqlValue::SingleQuotedString(s) | SqlValue::EscapedStringLiteral(s) | SqlValue::NationalStringLiteral(s) => {
                    s.trim_matches(|c| c == '%' || c == '_').to_string()
                }
                SqlValue::Number(n, _) => n.to_string(),
                _ => String::new(),
            };
            if !text.trim().is_empty() {
                out.insert(text.trim().to_lowercase());
            }
        }
        ControlFlow::<()>::Continue(())
    });
    out
}

/// A probe's result as the model will read it: columns and up to `max_rows` rows, or the error.
pub fn observation(outcome: &Outcome, max_rows: usize) -> String {
    match outcome {
        Outcome::Rows(r) => {
            let cols: Vec<&str> = r.columns.iter().map(|c| c.name.as_str()).collect();
            let rows: Vec<String> = r
                .rows
                .iter()
                .take(max_rows)
                .map(|row| Value::Array(row.iter().map(shorten).collect()).to_string())
                .collect();
            format!("columns {}; rows {} ({} rows)", cols.join(", "), rows.join(" "), r.rows.len())
        }
        Outcome::Failed(f) => format!("ERROR: {}", f.message),
    }
}

fn shorten(v: &Value) -> Value {
    match v {
        Value::String(s) if s.chars().count() > 60 => Value::String(format!("{}…", s.chars().take(60).collect::<String>())),
        other => other.clone(),
    }
}

/// Words that start a question or a clause, capitalised or not, and never name a value.
const NOT_VALUES: &[&str] = &[
    "i", "a", "an", "the", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "list", "show", "give",
    "find", "return", "name", "count", "tell", "please", "is", "are", "was", "were", "do", "does", "did", "in", "of", "for",
    "and", "or", "not", "id", "ids", "sql",
];

/// What in the question a probe could ground: the values of its literal constraints (quoted
/// strings, years) and the capitalised words after the first (names: "Paris", "Nigeria") that
/// are neither words of the schema's names nor already matched by the value index. Empty when
/// there is nothing a probe could add.
pub fn to_ground(question: &str, constraints: &[crate::constraints::Constraint], grounding: &Grounding, catalog: &Catalog) -> Vec<String> {
    let grounded = |w: &str| grounding.grounds(w);
    let mut schema_words: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for t in &catalog.tables {
        schema_words.extend(t.name.name.to_lowercase().split('_').map(str::to_string));
        for c in &t.columns {
            schema_words.extend(c.name.to_lowercase().split('_').map(str::to_string));
        }
    }
    let mut out: Vec<String> = Vec::new();
    for c in constraints {
        if let crate::constraints::Kind::Literal { value } = &c.kind {
            if !grounded(value) && !out.contains(value) {
                out.push(value.clone());
            }
        }
    }
    let words: Vec<&str> = question.split(|ch: char| !(ch.is_alphanumeric() || ch == '\'' || ch == '-')).filter(|w| !w.is_empty()).collect();
    for w in words.iter().skip(1) {
        let w = w.trim_matches(|ch: char| ch == '\'' || ch == '-');
        let capitalised = w.chars().next().is_some_and(char::is_uppercase);
        let lower = w.to_lowercase();
        let singular = lower.strip_suffix('s').unwrap_or(&lower).to_string();
        if !capitalised || NOT_VALUES.contains(&lower.as_str()) || schema_words.contains(&lower) || schema_words.contains(&singular) {
            continue;
        }
        if !grounded(w) && !out.iter().any(|o| o.eq_ignore_ascii_case(w)) {
            out.push(w.to_string());
        }
    }
    out
}

/// The query of a probe that grounded what the question names, as the run's candidate: the
/// 1.5B model's probe is most often its answer, with the display bound the probe prompt names
/// (`LIMIT 5`), and the generation that follows copied it or made it worse (on 14 such questions
/// of Benchmark 2's raw results, the probe without its bound was right 13 times, the generated
/// answer 11; the generation never turned a wrong probe right). Its display bound comes off (a
/// LIMIT of another number is the model's own and stays; the verification judges either against
/// the question). None for a probe that only looks a value up (every column it selects is one it
/// compares with a constant: `SELECT DISTINCT city FROM customers WHERE city ILIKE '%Paris%'`),
/// one that selects `*`, and one that does not parse: those leave the answer to the generation.
pub fn as_answer(raw: &str, display_rows: usize) -> Option<String> {
    use sqlparser::ast::{BinaryOperator, SelectItem, SetExpr};
    let query: Query = *crate::sql::check_query(raw).ok()?.query;
    let SetExpr::Select(select) = query.body.as_ref() else {
        // a set operation (INTERSECT, EXCEPT, UNION) of selections is an answer, not a lookup
        return strip_display_bound(query, display_rows);
    };
    let column = crate::scope::written::column_name;
    let constant = |e: &Expr| matches!(e, Expr::Value(_));
    let mut compared: BTreeSet<String> = BTreeSet::new();
    let _ = visit_expressions(&query, |e: &Expr| {
        let c = match e {
            Expr::BinaryOp { left, op: BinaryOperator::Eq, right } if constant(right) => column(left),
            Expr::BinaryOp { left, op: BinaryOperator::Eq, right } if constant(left) => column(right),
            Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } if constant(pattern) => column(expr),
            Expr::InList { expr, list, .. } if list.iter().all(constant) => column(expr),
            _ => None,
        };
        compared.extend(c);
        ControlFlow::<()>::Continue(())
    });
    let mut selected = Vec::new();
    for item in &select.projection {
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => selected.push(column(e)),
            _ => return None,
        }
    }
    if selected.iter().all(|c| c.as_ref().is_some_and(|c| compared.contains(c))) {
        return None;
    }
    strip_display_bound(query, display_rows)
}

fn strip_display_bound(mut query: Query, display_rows: usize) -> Option<String> {
    use sqlparser::ast::LimitClause;
    let offset = matches!(&query.limit_clause, Some(LimitClause::LimitOffset { offset: Some(_), .. } | LimitClause::OffsetCommaLimit { .. }));
    if !offset && crate::sql::limit::outer_limit(&query) == Some(display_rows as u64) {
        query.limit_clause = None;
        query.fetch = None;
    }
    Some(query.to_string())
}

/// When the probe loop stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    Done,
    NoNewInformation,
    Budget,
    /// The model repeated a probe with nothing new learned: at temperature 0 the same prompt gets
    /// the same answer, so asking again is a call whose answer is already known.
    Repeated,
    /// Every value the question names that the value index did not ground was found in the data
    /// by a probe (see [`Grounding::confirm`]).
    Grounded,
}

/// The loop's state: stop on "done", on two probes in a row without new information, or when
/// the budget is spent.
#[derive(Debug, Clone)]
pub struct ProbeBudget {
    pub max_probes: usize,
    used: usize,
    stale: usize,
}

impl ProbeBudget {
    pub fn new(max_probes: usize) -> Self {
        ProbeBudget { max_probes, used: 0, stale: 0 }
    }

    pub fn exhausted(&self) -> Option<StopReason> {
        if self.used >= self.max_probes {
            Some(StopReason::Budget)
        } else if self.stale >= 2 {
            Some(StopReason::NoNewInformation)
        } else {
            None
        }
    }

    /// Count a probe; `informative` is whether the step or its result added anything.
    pub fn spend(&mut self, informative: bool) {
        self.used += 1;
        self.stale = if informative { 0 } else { self.stale + 1 };
    }

    pub fn used(&self) -> usize {
        self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::{ColumnInfo, ResultSet};

    #[test]
    fn a_probe_that_answers_is_a_candidate_without_its_display_bound_and_a_lookup_is_not() {
        // the answer, with the bound the probe prompt asked for taken off
        assert_eq!(as_answer("SELECT name FROM customers WHERE city = 'Paris' LIMIT 5", 5).as_deref(), Some("SELECT name FROM customers WHERE city = 'Paris'"));
        assert_eq!(as_answer("SELECT name FROM customers WHERE city = 'Paris'", 5).as_deref(), Some("SELECT name FROM customers WHERE city = 'Paris'"));
        // a LIMIT of another number is the model's own and stays; so does one with an OFFSET
        assert_eq!(as_answer("SELECT title FROM books ORDER BY price DESC LIMIT 3", 5).as_deref(), Some("SELECT title FROM books ORDER BY price DESC LIMIT 3"));
        assert!(as_answer("SELECT title FROM books ORDER BY price LIMIT 5 OFFSET 5", 5).unwrap().contains("OFFSET 5"));
        // a set operation of selections answers ("both", "except")
        let both = "SELECT DISTINCT city FROM customers WHERE name = 'Ana' INTERSECT SELECT DISTINCT city FROM customers WHERE name = 'Bo' LIMIT 5";
        assert!(as_answer(both, 5).is_some_and(|a| a.ends_with("'Bo'")));
        // a lookup of the value itself is not the answer: the generation writes it
        assert_eq!(as_answer("SELECT DISTINCT city FROM customers WHERE city ILIKE '%Paris%' LIMIT 5", 5), None);
        assert_eq!(as_answer("SELECT DISTINCT c.city FROM customers AS c WHERE c.city IN ('Paris', 'Lyon')", 5), None);
        // but a probe that selects another column beside it is
        assert!(as_answer("SELECT DISTINCT customer_id, city FROM customers WHERE city ILIKE '%Paris%'", 5).is_some());
        // `*` and what does not parse are not
        assert_eq!(as_answer("SELECT * FROM customers WHERE city = 'Paris'", 5), None);
        assert_eq!(as_answer("SELEC name FROM customers", 5), None);
        assert_eq!(as_answer("DELETE FROM customers", 5), None);
    }

    #[test]
    fn a_probe_is_worth_it_only_for_a_value_not_yet_grounded() {
        use crate::constraints::extract;
        let catalog = crate::testing::bookshop();
        let g = Grounding::default();
        let ground = |q: &str, g: &Grounding| to_ground(q, &extract(q, None), g, &catalog);
        assert!(ground("How many books are there?", &g).is_empty());
        assert!(ground("What are the titles of the 3 most expensive books?", &g).is_empty());
        assert_eq!(ground("How many orders did customers from Paris place?", &g), ["Paris"]);
        assert_eq!(ground("Which books were published after 2000?", &g), ["2000"]);
        assert_eq!(ground("Which authors wrote 'The Summer Book'?", &g), ["The Summer Book", "Summer"], "Book names a table");
        // a value the value index matched needs no probe; nor does a schema word written with a capital
        let mut grounded = Grounding::default();
        grounded.value_mappings.insert("Paris".into(), "public.customers.city = 'Paris'".into());
        assert!(ground("How many orders did customers from Paris place?", &grounded).is_empty());
        assert!(ground("List the Title of every Book", &g).is_empty());
    }

    #[test]
    fn parses_steps_leniently_but_not_silently() {
        let s = parse_step(&json!({"action": "probe", "probe_sql": "SELECT DISTINCT city FROM t;",
            "relevant_columns": {"t": ["city"], "u": "id"}, "value_mappings": {"paris": "Paris", "n": 3}}))
        .unwrap();
        assert_eq!(s.probe_sql.as_deref(), Some("SELECT DISTINCT city FROM t"));
        assert_eq!(s.relevant_columns["u"], vec!["id"]);
        assert_eq!(s.value_mappings["n"], "3");
        assert_eq!(parse_step(&json!({"action": "done", "probe_sql": "SELECT 1"})).unwrap().probe_sql, None);
        assert!(parse_step(&json!({"action": "explode"})).is_err());
        assert!(parse_step(&json!(["x"])).is_err());
    }

    #[test]
    fn grounding_merges_and_knows_what_is_new() {
        let mut g = Grounding::default();
        let step = ProbeStep {
            probe_sql: None,
            relevant_columns: [("t".to_string(), vec!["a".to_string()])].into(),
            value_mappings: [("x".to_string(), "X".to_string())].into(),
        };
        assert!(g.merge(&step));
        assert!(!g.merge(&step));
        assert!(g.record("SELECT 1".into(), "columns a; rows [1] (1 rows)".into()));
        assert!(!g.record("SELECT 1 AS a".into(), "columns a; rows [1] (1 rows)".into()));
        assert!(!g.record("SELECT a FROM t WHERE false".into(), "columns a; rows  (0 rows)".into()));
        assert!(g.to_prompt().contains("Value mappings (use these exact values): {\"x\":\"X\"}"));
    }

    #[test]
    fn a_step_keeps_only_what_it_says_about_this_database() {
        let catalog = crate::testing::bookshop();
        let step = parse_step(&json!({"action": "probe", "probe_sql": "SELECT DISTINCT col FROM t WHERE col ILIKE '%word%'",
            "relevant_columns": {"table": ["column"], "public.customers": ["city", "col"], "Authors": ["COUNTRY"], "ghost": ["name"]},
            "value_mappings": {EXAMPLE_WORDS: EXAMPLE_VALUE, "Paris": "Paris", "x": EXAMPLE_VALUE}}))
        .unwrap()
        .about(&catalog);
        assert_eq!(step.relevant_columns, [("Authors".to_string(), vec!["COUNTRY".to_string()]), ("public.customers".to_string(), vec!["city".to_string()])].into());
        assert_eq!(step.value_mappings, [("Paris".to_string(), "Paris".to_string())].into());
        // the prompt's example, copied whole, teaches nothing
        let copied = parse_step(&json!({"action": "probe", "relevant_columns": {"table": ["column"]}, "value_mappings": {EXAMPLE_WORDS: EXAMPLE_VALUE}}))
            .unwrap()
            .about(&catalog);
        assert!(!Grounding::default().merge(&copied));
    }

    #[test]
    fn a_probe_that_finds_rows_confirms_the_constants_it_compared_with() {
        let found = Outcome::Rows(ResultSet { columns: vec![ColumnInfo { name: "city".into(), type_name: "text".into() }], rows: vec![vec![json!("Paris")]], truncated: None, elapsed_ms: 1.0 });
        let none = Outcome::Rows(ResultSet { columns: vec![], rows: vec![], truncated: None, elapsed_ms: 1.0 });
        let query = |sql: &str| crate::sql::check_query(sql).unwrap().query;
        let mut g = Grounding::default();
        g.confirm(&query("SELECT DISTINCT city FROM customers WHERE city ILIKE '%Paris%' OR founded > 1999 ORDER BY 1 LIMIT 5"), &found);
        assert_eq!(g.confirmed, ["1999".to_string(), "paris".to_string()].into(), "not the LIMIT");
        assert!(g.grounds("Paris") && g.grounds("1999") && !g.grounds("5") && !g.grounds("Lyon"));
        // no rows, or a count (which has its row whatever matched), confirm nothing
        let mut g = Grounding::default();
        g.confirm(&query("SELECT city FROM customers WHERE city = 'Lyon'"), &none);
        g.confirm(&query("SELECT count(*) FROM customers WHERE city = 'Lyon'"), &found);
        assert!(g.confirmed.is_empty() && !g.grounds("Lyon"));
        // a stored value spells the question's word with at most two letters more: "Asian" is "Asia"
        g.value_mappings.insert("Asia".into(), "public.country.continent = 'Asia'".into());
        assert!(g.grounds("Asian") && g.grounds("asia") && !g.grounds("Asiatic"));
        g.value_mappings.insert("Bali".into(), "x".into());
        assert!(!g.grounds("Balinese"), "three letters more is another word");
        g.value_mappings.insert("USA".into(), "x".into());
        assert!(!g.grounds("USAF"), "a value under four letters only grounds itself");
    }

    #[test]
    fn budget_stops_on_staleness_or_count() {
        let mut b = ProbeBudget::new(5);
        b.spend(false);
        assert_eq!(b.exhausted(), None);
        b.spend(false);
        assert_eq!(b.exhausted(), Some(StopReason::NoNewInformation));
        let mut b = ProbeBudget::new(2);
        b.spend(true);
        b.spend(true);
        assert_eq!(b.exhausted(), Some(StopReason::Budget));
    }

    #[test]
    fn observations_are_compact() {
        let o = Outcome::Rows(ResultSet {
            columns: vec![ColumnInfo { name: "city".into(), type_name: "text".into() }],
            rows: vec![vec![json!("Paris")], vec![json!("x".repeat(100))]],
            truncated: None,
            elapsed_ms: 1.0,
        });
        let text = observation(&o, 5);
        assert!(text.starts_with("columns city; rows [\"Paris\"]"));
        assert!(text.contains('…') && text.ends_with("(2 rows)"));
    }
}
