//! The `time` checker: date literals against the way the column stores its dates.
//!
//! Many databases keep dates as text (`'2010/01/05'`, `'05-01-2010'`, `'2010-01-05 00:00:00'`). A
//! query that compares such a column with a literal written in another layout matches nothing, or
//! orders text that is not in date order. The checker works in two steps so that the reading of
//! data stays in the SPI adapter: [`compared_text_columns`] names the text columns a query compares
//! with string literals; the adapter reads a few of their stored values (as the caller, like a
//! probe); [`check`] compares the layouts. On `date`/`timestamp` columns PostgreSQL parses the
//! literal itself; the one risk left there is a slash date both of whose first fields could be a
//! month, which `DateStyle` reads month-first (a note).
//!
//! A layout is the sequence of digit groups and separators of a value, digit groups classed as a
//! year (4 digits) or a short field (1–2 digits): `'2010-1-5'` and `'2010-01-05'` share the layout
//! `Y-n-n`; `'2010/01/05'` (`Y/n/n`) and `'05/01/2010'` (`n/n/Y`) do not.

use std::collections::BTreeMap;

use once_cell::sync::Lazy;
use regex::Regex;
use sqlparser::ast::{BinaryOperator, Expr, Query, SetExpr, Value};

use super::{aliases, column_of, finding, Finding, Severity};
use crate::catalog::{Catalog, RelName};

/// How a literal meets a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// `=`, `<>`, `IN (…)`.
    Equal,
    /// `<`, `<=`, `>`, `>=`, `BETWEEN`.
    Order,
    /// `LIKE` / `ILIKE` with the literal as the pattern.
    Like,
}

/// One comparison of a column with a string literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    pub table: RelName,
    pub column: String,
    pub literal: String,
    pub usage: Use,
    /// The column's type is text-like (else a date/time type).
    pub text: bool,
}

fn is_text(type_name: &str) -> bool {
    type_name == "text" || type_name.starts_with("character") || type_name == "name"
}

pub(crate) fn is_temporal(type_name: &str) -> bool {
    type_name == "date" || type_name.starts_with("timestamp")
}

fn string_literal(e: &Expr) -> Option<&str> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => Some(s),
            _ => None,
        },
        Expr::Nested(inner) => string_literal(inner),
        _ => None,
    }
}

/// Every comparison of a text or date/time column of the top-level SELECT with a string literal
/// that looks like a date (or, on text, a year), in WHERE, JOIN … ON and HAVING.
pub fn comparisons(query: &Query, catalog: &Catalog) -> Vec<Comparison> {
    let SetExpr::Select(select) = &*query.body else { return vec![] };
    let aliases = aliases(select, catalog);
    let mut out: Vec<Comparison> = Vec::new();
    let mut add = |col: &Expr, lit: &Expr, usage: Use| {
        let (Some((table, column)), Some(literal)) = (column_of(col, &aliases, catalog), string_literal(lit)) else {
            return;
        };
        let Some(type_name) = catalog.table(&table).and_then(|t| t.column(&column)).map(|c| c.type_name.clone()) else {
            return;
        };
        let text = is_text(&type_name);
        let datey = if usage == Use::Like { like_is_datey(literal) } else { Layout::of(literal).is_date() || (text && Layout::of(literal).is_year()) };
        if (text || is_temporal(&type_name)) && datey {
            out.push(Comparison { table, column, literal: literal.to_string(), usage, text });
        }
    };
    // Inside a subquery, columns resolve against its own FROM list, not ours.
    let mut visit = |e: &Expr| {
        crate::sql::exprs_outside_subqueries(e, &mut |e| match e {
            Expr::BinaryOp { left, op, right } => {
                let usage = match op {
                    BinaryOperator::Eq | BinaryOperator::NotEq => Use::Equal,
                    BinaryOperator::Lt | BinaryOperator::LtEq | BinaryOperator::Gt | BinaryOperator::GtEq => Use::Order,
                    _ => return,
                };
                add(left, right, usage);
                add(right, left, usage);
            }
            Expr::Between { expr, low, high, .. } => {
                add(expr, low, Use::Order);
                add(expr, high, Use::Order);
            }
            Expr::InList { expr, list, .. } => {
                for item in list {
                    add(expr, item, Use::Equal);
                }
            }
            Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } => add(expr, pattern, Use::Like),
            _ => {}
        });
    };
    if let Some(w) = &select.selection {
        visit(w);
    }
    if let Some(h) = &select.having {
        visit(h);
    }
    for t in &select.from {
        for j in &t.joins {
            if let Some(on) = super::join_condition(&j.join_operator) {
                visit(on);
            }
        }
    }
    out.dedup();
    out
}

/// The text columns whose stored values [`check`] needs.
pub fn needed(comparisons: &[Comparison]) -> Vec<(RelName, String)> {
    let mut out: Vec<(RelName, String)> = comparisons.iter().filter(|c| c.text).map(|c| (c.table.clone(), c.column.clone())).collect();
    out.sort();
    out.dedup();
    out
}

/// Digit groups and separators, digit groups classed by length.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Layout(String);

static DATE: Lazy<Regex> = Lazy::new(|| {
    // year first or year last, day-month fields of 1–2 digits, optional time of day
    Regex::new(r"^(Y[-/.]n([-/.]n)?|n[-/.]n[-/.]Y)([ T]n:n(:n([.,]\d+)?)?)?$").expect("static regex")
});

impl Layout {
    fn of(s: &str) -> Layout {
        let mut out = String::new();
        let mut digits = 0usize;
        let flush = |out: &mut String, digits: &mut usize| {
            match *digits {
                0 => {}
                1 | 2 => out.push('n'),
                4 => out.push('Y'),
                n => out.push_str(&n.to_string()),
            }
            *digits = 0;
        };
        for ch in s.trim().chars() {
            if ch.is_ascii_digit() {
                digits += 1;
            } else {
                flush(&mut out, &mut digits);
                out.push(if ch.is_alphabetic() { 'a' } else { ch });
            }
        }
        flush(&mut out, &mut digits);
        Layout(out)
    }

    fn is_date(&self) -> bool {
        DATE.is_match(&self.0)
    }

    fn is_year(&self) -> bool {
        self.0 == "Y"
    }

    fn year_first(&self) -> bool {
        self.0.starts_with('Y')
    }

    /// Does a value of this layout begin with one of `prefix`'s layout (text order agrees)?
    fn starts_with(&self, prefix: &Layout) -> bool {
        self.0.starts_with(&prefix.0)
    }
}

/// A LIKE pattern with a date-like fixed part: four digits, or digits around a separator.
fn like_is_datey(pattern: &str) -> bool {
    static DATEY: Lazy<Regex> = Lazy::new(|| Regex::new(r"\d{4}|\d[-/.]\d").expect("static regex"));
    DATEY.is_match(pattern)
}

/// Does a LIKE pattern match a value's layout? Digits become digit classes on both sides.
fn like_matches(pattern: &str, value: &str) -> bool {
    let mut re = String::from("^");
    for ch in pattern.chars() {
        match ch {
            '%' => re.push_str(".*"),
            '_' => re.push('.'),
            c if c.is_ascii_digit() => re.push_str(r"\d"),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    let digits_as_any = value.chars().map(|c| if c.is_ascii_digit() { '0' } else { c }).collect::<String>();
    Regex::new(&re).is_ok_and(|r| r.is_match(&digits_as_any))
}

/// Findings for the comparisons, given stored values of their text columns.
pub fn check(comparisons: &[Comparison], stored: &BTreeMap<(RelName, String), Vec<String>>) -> Vec<Finding> {
    let mut out = Vec::new();
    for c in comparisons {
        let name = format!("{}.{}", c.table.name, c.column);
        if !c.text {
            let l = Layout::of(&c.literal);
            let fields: Vec<u32> = c.literal.split(['/', '-', '.']).filter_map(|p| p.trim().parse().ok()).collect();
            if c.literal.contains('/') && !l.year_first() && fields.len() >= 2 && fields[0] <= 12 && fields[1] <= 12 && fields[0] != fields[1] {
                out.push(finding(
                    "time",
                    Severity::Note,
                    format!(
                        "'{}' compared with {name} (a date) is read month-first under the default DateStyle; write it as YYYY-MM-DD to say which day is meant",
                        c.literal
                    ),
                ));
            }
            continue;
        }
        let Some(values) = stored.get(&(c.table.clone(), c.column.clone())) else { continue };
        let layouts: Vec<Layout> = values.iter().map(|v| Layout::of(v)).collect();
        let dates = layouts.iter().filter(|l| l.is_date()).count();
        if dates == 0 || dates * 2 < layouts.len() {
            continue; // not a column of dates
        }
        let example = values.iter().zip(&layouts).find(|(_, l)| l.is_date()).map(|(v, _)| v.as_str()).unwrap_or_default();
        let lit = Layout::of(&c.literal);
        let problem = match c.usage {
            Use::Equal if !layouts.contains(&lit) => Some(if layouts.iter().any(|l| l.starts_with(&lit)) {
                format!(
                    "{name} stores values like '{example}', so = '{}' matches no value that carries more than that: compare a prefix (LIKE '{}%') or convert the column",
                    c.literal, c.literal
                )
            } else {
                format!(
                    "{name} stores dates as text like '{example}', and '{}' is written in another layout, so it matches nothing: write the literal as the column stores it, or convert the column (to_date/to_timestamp with its format)",
                    c.literal
                )
            }),
            Use::Order if !layouts.iter().any(|l| l.year_first()) => Some(format!(
                "{name} stores dates as text like '{example}', which does not sort in date order: compare to_date({}, '<its format>') with a date instead of the text",
                c.column
            )),
            Use::Order if !layouts.iter().any(|l| l.starts_with(&lit)) => Some(format!(
                "{name} stores dates as text like '{example}', and '{}' is written in another layout, so the text comparison does not follow the dates: write the literal as the column stores it",
                c.literal
            )),
            Use::Like if !values.iter().any(|v| like_matches(&c.literal, v)) => Some(format!(
                "{name} stores dates as text like '{example}', and the pattern '{}' fits none of its values' layouts: write the pattern in the column's layout",
                c.literal
            )),
            _ => None,
        };
        if let Some(message) = problem {
            out.push(finding("time", Severity::Repair, message));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, RelKind, Table};
    use crate::sql::check_query;

    fn catalog() -> Catalog {
        let col = |n: &str, t: &str| Column { name: n.into(), type_name: t.into(), nullable: true, comment: None };
        Catalog {
            tables: vec![Table {
                name: RelName::new("public", "orders"),
                kind: RelKind::Table,
                comment: None,
                row_estimate: None,
                columns: vec![col("id", "integer"), col("placed", "text"), col("shipped", "date"), col("note", "text")],
                primary_key: vec!["id".into()],
            }],
            foreign_keys: vec![],
            ..Default::default()
        }
    }

    fn stored(values: &[&str]) -> BTreeMap<(RelName, String), Vec<String>> {
        BTreeMap::from([((RelName::new("public", "orders"), "placed".to_string()), values.iter().map(|v| v.to_string()).collect())])
    }

    fn fired(sql: &str, values: &[&str]) -> Vec<(Severity, String)> {
        let q = check_query(sql).unwrap().query;
        check(&comparisons(&q, &catalog()), &stored(values)).into_iter().map(|f| (f.severity, f.message)).collect()
    }

    const SLASHED: &[&str] = &["2010/01/05", "2011/12/31", "2009/07/04"];
    const DAY_FIRST: &[&str] = &["05-01-2010", "31-12-2011"];
    const WITH_TIME: &[&str] = &["2010-01-05 00:00:00", "2011-12-31 13:45:00"];

    #[test]
    fn finds_the_comparisons_with_date_literals_and_what_to_read() {
        let q = check_query(
            "SELECT o.id FROM orders o WHERE o.placed = '2010-01-05' AND note = 'fragile' AND shipped > '2010-01-01' \
             AND placed LIKE '2010%' AND o.id IN (SELECT id FROM orders WHERE placed < '2000-01-01')",
        )
        .unwrap()
        .query;
        let found = comparisons(&q, &catalog());
        let got: Vec<(&str, &str, Use, bool)> = found.iter().map(|c| (c.column.as_str(), c.literal.as_str(), c.usage, c.text)).collect();
        assert_eq!(got, vec![("placed", "2010-01-05", Use::Equal, true), ("shipped", "2010-01-01", Use::Order, false), ("placed", "2010%", Use::Like, true)]);
        assert_eq!(needed(&found), vec![(RelName::new("public", "orders"), "placed".to_string())]);
    }

    #[test]
    fn fires_on_literals_in_another_layout() {
        let f = fired("SELECT id FROM orders WHERE placed = '2010-01-05'", SLASHED);
        assert_eq!(f.len(), 1);
        assert!(f[0].1.contains("like '2010/01/05'") && f[0].1.contains("another layout"), "{f:?}");
        assert_eq!(fired("SELECT id FROM orders WHERE placed BETWEEN '2010-01-01' AND '2010-12-31'", SLASHED).len(), 2);
        assert_eq!(fired("SELECT id FROM orders WHERE placed LIKE '%-2010'", SLASHED).len(), 1);
        // a year alone against full dates
        assert!(fired("SELECT id FROM orders WHERE placed = '2010'", SLASHED)[0].1.contains("LIKE '2010%'"));
        // a date against values that carry a time of day
        assert!(fired("SELECT id FROM orders WHERE placed = '2010-01-05'", WITH_TIME)[0].1.contains("LIKE '2010-01-05%'"));
        // day-first text does not sort as dates, whatever the literal
        assert!(fired("SELECT id FROM orders WHERE placed > '01-01-2010'", DAY_FIRST)[0].1.contains("does not sort in date order"));
    }

    #[test]
    fn silent_when_the_layouts_agree_or_the_column_holds_no_dates() {
        for (sql, values) in [
            ("SELECT id FROM orders WHERE placed = '2010/1/5'", SLASHED),
            ("SELECT id FROM orders WHERE placed >= '2010/01/01' AND placed < '2011'", SLASHED),
            ("SELECT id FROM orders WHERE placed LIKE '2010/%'", SLASHED),
            ("SELECT id FROM orders WHERE placed LIKE '2010%'", WITH_TIME),
            ("SELECT id FROM orders WHERE placed BETWEEN '2010-01-01' AND '2010-12-31 23:59:59'", WITH_TIME),
            ("SELECT id FROM orders WHERE placed = '05-01-2010'", DAY_FIRST),
            ("SELECT id FROM orders WHERE placed = '2010-01-05'", &["pending", "shipped", "lost"]),
            ("SELECT id FROM orders WHERE shipped = '2010-01-05'", SLASHED),
        ] {
            assert!(fired(sql, values).is_empty(), "{sql}: {:?}", fired(sql, values));
        }
    }

    #[test]
    fn notes_ambiguous_slash_dates_on_date_columns() {
        let f = fired("SELECT id FROM orders WHERE shipped = '05/01/2010'", &[]);
        assert_eq!(f, vec![(Severity::Note, "'05/01/2010' compared with orders.shipped (a date) is read month-first under the default DateStyle; write it as YYYY-MM-DD to say which day is meant".to_string())]);
        assert!(fired("SELECT id FROM orders WHERE shipped = '25/01/2010'", &[]).is_empty());
    }
}
