//! `contradiction`: a WHERE clause no row can satisfy, because it asks one column of one row for
//! two things at once: `language = 'English' AND language = 'Dutch'`, `birth_year < 1945 AND
//! birth_year > 1955`, `x IN (1, 2) AND x = 3`. Such a query always returns nothing (or a count of
//! zero); the question almost always means two rows (countries that speak both languages,
//! citizenships shared by a singer born before and one born after), which takes `INTERSECT`, a
//! self-join or `GROUP BY … HAVING`.
//!
//! Only the top-level conjunction of each SELECT block's WHERE is read (a term under `OR` or
//! `NOT` proves nothing), and a column is one reference as written and resolved in its block:
//! `a.x` and `b.x` of a self-join are two columns.

use std::collections::BTreeMap;

use sqlparser::ast::{BinaryOperator, Expr, Query, Select, UnaryOperator, Value};

use super::{aliases, conjuncts, each_select, finding, Finding, Severity};
use crate::catalog::Catalog;

/// A constant a column is compared with.
#[derive(Debug, Clone, PartialEq, PartialOrd)]
enum Constant {
    Number(f64),
    Text(String),
}

fn constant(e: &Expr) -> Option<Constant> {
    match e {
        Expr::Nested(inner) => constant(inner),
        Expr::UnaryOp { op: UnaryOperator::Minus, expr } => match constant(expr)? {
            Constant::Number(n) => Some(Constant::Number(-n)),
            Constant::Text(_) => None,
        },
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse().ok().map(Constant::Number),
            Value::SingleQuotedString(s) => Some(Constant::Text(s.clone())),
            _ => None,
        },
        _ => None,
    }
}

impl std::fmt::Display for Constant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Constant::Number(n) => write!(f, "{n}"),
            Constant::Text(s) => write!(f, "'{}'", s.replace('\'', "''")),
        }
    }
}

/// What the conjunction asks of one column.
#[derive(Default)]
struct Asks<'e> {
    /// The values it may take (`=`, `IN`), each term narrowing it.
    allowed: Option<Vec<Constant>>,
    /// Lower and upper bounds on a number (value, inclusive).
    lower: Option<(f64, bool)>,
    upper: Option<(f64, bool)>,
    /// The terms, as written.
    terms: Vec<&'e Expr>,
}

impl Asks<'_> {
    fn allow(&mut self, values: Vec<Constant>) {
        self.allowed = Some(match self.allowed.take() {
            None => values,
            Some(before) => before.into_iter().filter(|v| values.contains(v)).collect(),
        });
    }

    fn bound(&mut self, op: &BinaryOperator, n: f64, column_on_left: bool) {
        use BinaryOperator::*;
        let op = match (op, column_on_left) {
            (op, true) => op.clone(),
            (Lt, false) => Gt,
            (LtEq, false) => GtEq,
            (Gt, false) => Lt,
            (GtEq, false) => LtEq,
            (op, false) => op.clone(),
        };
        match op {
            Gt | GtEq => {
                let b = (n, op == GtEq);
                if self.lower.is_none_or(|(m, inc)| n > m || (n == m && !b.1 && inc)) {
                    self.lower = Some(b);
                }
            }
            Lt | LtEq => {
                let b = (n, op == LtEq);
                if self.upper.is_none_or(|(m, inc)| n < m || (n == m && !b.1 && inc)) {
                    self.upper = Some(b);
                }
            }
            _ => {}
        }
    }

    /// Can no value satisfy every term?
    fn impossible(&self) -> bool {
        let within = |n: f64| {
            self.lower.is_none_or(|(l, inc)| n > l || (inc && n == l)) && self.upper.is_none_or(|(u, inc)| n < u || (inc && n == u))
        };
        if let Some(allowed) = &self.allowed {
            return allowed.iter().all(|v| match v {
                Constant::Number(n) => !within(*n),
                Constant::Text(_) => false,
            }) && (allowed.is_empty() || self.lower.is_some() || self.upper.is_some());
        }
        match (self.lower, self.upper) {
            (Some((l, li)), Some((u, ui))) => l > u || (l == u && !(li && ui)),
            _ => false,
        }
    }
}

fn findings_of_block(select: &Select, catalog: &Catalog, out: &mut Vec<Finding>) {
    let Some(w) = &select.selection else { return };
    let aliases = aliases(select, catalog);
    // a column reference as written, resolved to its qualifier in the block when unqualified
    let key = |mut e: &Expr| -> Option<String> {
        while let Expr::Nested(inner) = e {
            e = inner;
        }
        match e {
            Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                Some(format!("{}.{}", parts[parts.len() - 2].value.to_lowercase(), parts[parts.len() - 1].value.to_lowercase()))
            }
            Expr::Identifier(i) => {
                let col = i.value.to_lowercase();
                // the one relation in scope that has it; its alias as the qualifier
                let owners: Vec<&String> = aliases
                    .iter()
                    .filter(|(_, rel)| catalog.table(rel).is_some_and(|t| t.columns.iter().any(|c| c.name.to_lowercase() == col)))
                    .map(|(a, _)| a)
                    .collect();
                Some(match owners.as_slice() {
                    [one] => format!("{one}.{col}"),
                    _ => col,
                })
            }
            _ => None,
        }
    };
    let mut asks: BTreeMap<String, Asks> = BTreeMap::new();
    for term in conjuncts(w) {
        match term {
            Expr::BinaryOp { left, op, right } => {
                let (col, value, on_left) = match (key(left), constant(right), key(right), constant(left)) {
                    (Some(k), Some(v), _, _) => (k, v, true),
                    (_, _, Some(k), Some(v)) => (k, v, false),
                    _ => continue,
                };
                let a = asks.entry(col).or_default();
                match (op, value) {
                    (BinaryOperator::Eq, v) => a.allow(vec![v]),
                    (BinaryOperator::Lt | BinaryOperator::LtEq | BinaryOperator::Gt | BinaryOperator::GtEq, Constant::Number(n)) => {
                        a.bound(op, n, on_left)
                    }
                    _ => continue,
                }
                a.terms.push(term);
            }
            Expr::InList { expr, list, negated: false } => {
                let Some(col) = key(expr) else { continue };
                let Some(values) = list.iter().map(constant).collect::<Option<Vec<_>>>() else { continue };
                let a = asks.entry(col).or_default();
                a.allow(values);
                a.terms.push(term);
            }
            Expr::Between { expr, negated: false, low, high } => {
                let (Some(col), Some(Constant::Number(lo)), Some(Constant::Number(hi))) = (key(expr), constant(low), constant(high)) else { continue };
                let a = asks.entry(col).or_default();
                a.bound(&BinaryOperator::GtEq, lo, true);
                a.bound(&BinaryOperator::LtEq, hi, true);
                a.terms.push(term);
            }
            _ => {}
        }
    }
    for (col, a) in asks {
        if a.terms.len() >= 2 && a.impossible() {
            let written: Vec<String> = a.terms.iter().map(|t| t.to_string()).collect();
            out.push(finding(
                "contradiction",
                Severity::Repair,
                format!(
                    "`{}` holds for no row: one row's {col} cannot be both; for things that have one row of each \
                     (both …, … and …, shared by …), compare two rows: INTERSECT, a self-join, or GROUP BY … HAVING",
                    written.join(" AND ")
                ),
            ));
        }
    }
}

/// The `contradiction` findings of every SELECT block of the query (subqueries included).
pub fn check(query: &Query, catalog: &Catalog) -> Vec<Finding> {
    let mut out = Vec::new();
    each_select(query, &mut |s| findings_of_block(s, catalog, &mut out));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::check_query;
    use crate::testing::bookshop;

    fn found(sql: &str) -> Vec<String> {
        check(&check_query(sql).unwrap().query, &bookshop()).into_iter().map(|f| f.message).collect()
    }

    #[test]
    fn one_column_asked_for_two_things_at_once() {
        let f = found("SELECT count(*) FROM customers WHERE city = 'Paris' AND city = 'Lyon'");
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].starts_with("`city = 'Paris' AND city = 'Lyon'` holds for no row: one row's customers.city cannot be both"), "{}", f[0]);
        assert_eq!(found("SELECT title FROM books WHERE price < 10 AND price > 20").len(), 1);
        assert_eq!(found("SELECT title FROM books WHERE 10 > price AND price >= 10").len(), 1);
        assert_eq!(found("SELECT title FROM books WHERE price BETWEEN 30 AND 40 AND price = 10").len(), 1);
        assert_eq!(found("SELECT title FROM books WHERE book_id IN (1, 2) AND book_id = 3").len(), 1);
        // inside a subquery and an arm of a set operation
        assert_eq!(found("SELECT name FROM customers WHERE customer_id IN (SELECT customer_id FROM customers WHERE city = 'a' AND city = 'b')").len(), 1);
        assert_eq!(found("SELECT name FROM customers EXCEPT SELECT name FROM customers WHERE city = 'a' AND city = 'b'").len(), 1);
    }

    #[test]
    fn conditions_some_row_can_meet_are_no_finding() {
        for sql in [
            "SELECT title FROM books WHERE price > 10 AND price < 20",
            "SELECT title FROM books WHERE price >= 10 AND price <= 10",
            "SELECT count(*) FROM customers WHERE city = 'Paris' OR city = 'Lyon'",
            "SELECT count(*) FROM customers WHERE city = 'Paris' AND name = 'Lyon'",
            "SELECT title FROM books WHERE book_id IN (1, 2) AND book_id = 2",
            // two rows of a self-join
            "SELECT a.name FROM customers AS a JOIN customers AS b ON a.city = b.city WHERE a.name = 'x' AND b.name = 'y'",
            // a row each in two blocks
            "SELECT name FROM customers WHERE city = 'a' INTERSECT SELECT name FROM customers WHERE city = 'b'",
            "SELECT title FROM books WHERE NOT (price < 10) AND price < 5",
        ] {
            assert!(found(sql).is_empty(), "{sql}: {:?}", found(sql));
        }
    }
}
