//! What a query contains, read off its sqlparser AST once: aggregates, window functions, ordering,
//! limits, grouping, comparisons with their literal operands, literals, negations, identifiers.
//! The verifier checks constraints against these facts, never against the SQL text.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, Expr, Function, GroupByExpr, LimitClause, Query, Select, SetExpr, UnaryOperator,
    Value, Visit, Visitor,
};
use sqlparser::dialect::{Dialect, PostgreSqlDialect, SQLiteDialect};
use sqlparser::parser::Parser;

/// A comparison between an expression and a numeric literal, normalised so the literal is on the
/// right: `5 < x` is recorded as `x > 5`.
#[derive(Debug, Clone, PartialEq)]
pub struct NumericComparison {
    pub op: CompareOp,
    pub value: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    Gt,
    GtEq,
    Lt,
    LtEq,
    Eq,
    NotEq,
}

impl CompareOp {
    fn from_binary(op: &BinaryOperator) -> Option<Self> {
        Some(match op {
            BinaryOperator::Gt => CompareOp::Gt,
            BinaryOperator::GtEq => CompareOp::GtEq,
            BinaryOperator::Lt => CompareOp::Lt,
            BinaryOperator::LtEq => CompareOp::LtEq,
            BinaryOperator::Eq => CompareOp::Eq,
            BinaryOperator::NotEq => CompareOp::NotEq,
            _ => return None,
        })
    }

    fn flipped(self) -> Self {
        match self {
            CompareOp::Gt => CompareOp::Lt,
            CompareOp::GtEq => CompareOp::LtEq,
            CompareOp::Lt => CompareOp::Gt,
            CompareOp::LtEq => CompareOp::GtEq,
            other => other,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct QueryFacts {
    /// Lower-cased names of every function called (`count`, `max`, `rank`, ...).
    pub functions: BTreeSet<String>,
    pub distinct: bool,
    pub group_by: bool,
    pub set_operation: bool,
    pub window: bool,
    /// Directions of every ORDER BY item (true = descending), at any depth.
    pub order_desc: Vec<bool>,
    /// Every LIMIT value (and FETCH FIRST n), at any depth.
    pub limits: Vec<u64>,
    /// Whether the outermost query has a LIMIT / FETCH.
    pub outer_limit: bool,
    seen_outer: bool,
    pub comparisons: Vec<NumericComparison>,
    pub between: Vec<(f64, f64)>,
    pub numbers: Vec<String>,
    /// Lower-cased string literals.
    pub strings: Vec<String>,
    pub division: bool,
    pub multiply_by_100: bool,
    /// NOT, NOT IN, NOT EXISTS, NOT LIKE, <>, IS NULL, EXCEPT, ...
    pub negation: bool,
    /// `a + b`: a total written out.
    pub addition: bool,
    /// `flag = 0`, `= 'F'`, `= 'N'`, `= '-'`: how a stored flag says "not".
    pub falsy_equality: bool,
    /// Lower-cased identifiers (tables, columns, aliases).
    pub identifiers: BTreeSet<String>,
    /// Lower-cased names of the columns read anywhere (the last part of every column reference;
    /// an output alias referred to by name is one too).
    pub columns: BTreeSet<String>,
    /// Lower-cased names of the columns the outermost block returns as they are (`T1.kids` →
    /// `kids`).
    pub projected: BTreeSet<String>,
}

impl QueryFacts {
    pub fn has_function(&self, names: &[&str]) -> bool {
        names.iter().any(|n| self.functions.contains(*n))
    }

    /// Does any identifier contain one of these words (e.g. a `highest_point` column)?
    pub fn identifier_mentions(&self, words: &[&str]) -> bool {
        self.identifiers.iter().any(|i| words.iter().any(|w| i.contains(w)))
    }
}

/// The SQL dialect a text is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlDialect {
    Postgres,
    /// SQLite (BIRD's gold SQL): backtick identifiers, double-quoted strings.
    Sqlite,
}

/// Parse one statement and collect its facts.
pub fn facts_of(sql: &str, dialect: SqlDialect) -> Result<QueryFacts, String> {
    let d: Box<dyn Dialect> = match dialect {
        SqlDialect::Postgres => Box::new(PostgreSqlDialect {}),
        SqlDialect::Sqlite => Box::new(SQLiteDialect {}),
    };
    let statements = Parser::parse_sql(d.as_ref(), sql).map_err(|e| e.to_string())?;
    let mut facts = QueryFacts::default();
    for s in &statements {
        let _ = s.visit(&mut Collector { facts: &mut facts });
    }
    Ok(facts)
}

struct Collector<'a> {
    facts: &'a mut QueryFacts,
}

fn number(expr: &Expr) -> Option<f64> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse().ok(),
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.trim().parse().ok(),
            _ => None,
        },
        Expr::UnaryOp { op: UnaryOperator::Minus, expr } => number(expr).map(|n| -n),
        Expr::Nested(e) => number(e),
        Expr::Cast { expr, .. } => number(expr),
        _ => None,
    }
}

fn cmp_is_eq(op: &BinaryOperator) -> bool {
    matches!(op, BinaryOperator::Eq)
}

fn is_falsy(expr: &Expr) -> bool {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n == "0",
            Value::Boolean(false) => true,
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
                matches!(s.to_lowercase().as_str(), "f" | "n" | "no" | "false" | "-" | "0" | "none")
            }
            _ => false,
        },
        _ => false,
    }
}

impl Visitor for Collector<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
        if !self.facts.seen_outer {
            self.facts.seen_outer = true;
            self.facts.outer_limit = q.fetch.is_some()
                || matches!(&q.limit_clause, Some(LimitClause::LimitOffset { limit: Some(_), .. }) | Some(LimitClause::OffsetCommaLimit { .. }));
            if let sqlparser::ast::SetExpr::Select(select) = q.body.as_ref() {
                for item in &select.projection {
                    let e = match item {
                        sqlparser::ast::SelectItem::UnnamedExpr(e) | sqlparser::ast::SelectItem::ExprWithAlias { expr: e, .. } => e,
                        _ => continue,
                    };
                    match e {
                        Expr::Identifier(i) => {
                            self.facts.projected.insert(i.value.to_lowercase());
                        }
                        Expr::CompoundIdentifier(parts) => {
                            self.facts.projected.extend(parts.last().map(|i| i.value.to_lowercase()));
                        }
                        _ => {}
                    }
                }
            }
        }
        if let Some(ob) = &q.order_by {
            if let sqlparser::ast::OrderByKind::Expressions(items) = &ob.kind {
                for item in items {
                    self.facts.order_desc.push(matches!(item.options.sort, Some(sqlparser::ast::OrderBySort::Desc)));
                }
            }
        }
        match &q.limit_clause {
            Some(LimitClause::LimitOffset { limit: Some(l), .. }) => {
                if let Some(n) = number(l) {
                    self.facts.limits.push(n as u64);
                }
            }
            Some(LimitClause::OffsetCommaLimit { limit, .. }) => {
                if let Some(n) = number(limit) {
                    self.facts.limits.push(n as u64);
                }
            }
            _ => {}
        }
        if let Some(fetch) = &q.fetch {
            if let Some(n) = fetch.quantity.as_ref().and_then(number) {
                self.facts.limits.push(n as u64);
            }
        }
        if let SetExpr::SetOperation { op, .. } = q.body.as_ref() {
            self.facts.set_operation = true;
            if matches!(op, sqlparser::ast::SetOperator::Except | sqlparser::ast::SetOperator::Minus) {
                self.facts.negation = true;
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, s: &Select) -> ControlFlow<()> {
        if s.distinct.is_some() {
            self.facts.distinct = true;
        }
        match &s.group_by {
            GroupByExpr::All(_) => self.facts.group_by = true,
            GroupByExpr::Expressions(e, _) if !e.is_empty() => self.facts.group_by = true,
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_ident(&mut self, ident: &sqlparser::ast::Ident) -> ControlFlow<()> {
        self.facts.identifiers.insert(ident.value.to_lowercase());
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        match expr {
            Expr::Function(Function { name, args, over, .. }) => {
                if let Some(last) = name.0.last().and_then(|p| p.as_ident()) {
                    self.facts.functions.insert(last.value.to_lowercase());
                }
                if over.is_some() {
                    self.facts.window = true;
                }
                if let sqlparser::ast::FunctionArguments::List(l) = args {
                    if l.duplicate_treatment == Some(sqlparser::ast::DuplicateTreatment::Distinct) {
                        self.facts.distinct = true;
                    }
                }
            }
            Expr::Identifier(i) => {
                self.facts.identifiers.insert(i.value.to_lowercase());
                self.facts.columns.insert(i.value.to_lowercase());
            }
            Expr::CompoundIdentifier(parts) => {
                for i in parts {
                    self.facts.identifiers.insert(i.value.to_lowercase());
                }
                self.facts.columns.extend(parts.last().map(|i| i.value.to_lowercase()));
            }
            Expr::BinaryOp { left, op, right } => {
                if let Some(cmp) = CompareOp::from_binary(op) {
                    if let Some(v) = number(right) {
                        self.facts.comparisons.push(NumericComparison { op: cmp, value: v });
                    } else if let Some(v) = number(left) {
                        self.facts.comparisons.push(NumericComparison { op: cmp.flipped(), value: v });
                    }
                    if cmp == CompareOp::NotEq {
                        self.facts.negation = true;
                    }
                }
                if cmp_is_eq(op) && (is_falsy(left) || is_falsy(right)) {
                    self.facts.falsy_equality = true;
                }
                match op {
                    BinaryOperator::Plus => self.facts.addition = true,
                    BinaryOperator::Divide => self.facts.division = true,
                    BinaryOperator::Multiply
                        if number(left) == Some(100.0) || number(right) == Some(100.0) =>
                    {
                        self.facts.multiply_by_100 = true
                    }
                    _ => {}
                }
            }
            Expr::Between { low, high, negated, .. } => {
                if let (Some(l), Some(h)) = (number(low), number(high)) {
                    self.facts.between.push((l, h));
                }
                if *negated {
                    self.facts.negation = true;
                }
            }
            Expr::UnaryOp { op: UnaryOperator::Not, .. }
            | Expr::IsNull(_)
            | Expr::IsNotTrue(_)
            | Expr::IsFalse(_)
            | Expr::IsDistinctFrom(..) => self.facts.negation = true,
            Expr::InList { negated: true, .. }
            | Expr::InSubquery { negated: true, .. }
            | Expr::Exists { negated: true, .. }
            | Expr::Like { negated: true, .. }
            | Expr::ILike { negated: true, .. } => self.facts.negation = true,
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => self.facts.numbers.push(n.clone()),
                Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
                    self.facts.strings.push(s.to_lowercase())
                }
                _ => {}
            },
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_what_the_verifier_needs() {
        let f = facts_of(
            "SELECT DISTINCT name, count(*) FROM t WHERE 5 < age AND city <> 'Paris' \
             GROUP BY name HAVING avg(x) >= 2.5 ORDER BY 2 DESC LIMIT 3",
            SqlDialect::Postgres,
        )
        .unwrap();
        assert!(f.distinct && f.group_by && f.negation);
        assert!(f.has_function(&["count"]) && f.has_function(&["avg"]));
        assert_eq!(f.limits, vec![3]);
        assert_eq!(f.order_desc, vec![true]);
        assert!(f.comparisons.contains(&NumericComparison { op: CompareOp::Gt, value: 5.0 }));
        assert!(f.comparisons.contains(&NumericComparison { op: CompareOp::GtEq, value: 2.5 }));
        assert_eq!(f.strings, vec!["paris"]);
        assert!(f.identifiers.contains("age"));
    }

    #[test]
    fn a_credit_limit_column_is_not_a_limit() {
        let f = facts_of("SELECT credit_limit FROM customers", SqlDialect::Postgres).unwrap();
        assert!(f.limits.is_empty());
        assert!(f.identifiers.contains("credit_limit"));
    }

    #[test]
    fn reads_sqlite_gold() {
        let f = facts_of(
            "SELECT `Free Meal Count` / `Enrollment` FROM frpm WHERE `County` = 'Alameda' ORDER BY 1 DESC LIMIT 1",
            SqlDialect::Sqlite,
        )
        .unwrap();
        assert!(f.division && f.limits == vec![1]);
        assert!(f.identifiers.contains("free meal count"));
    }
}
