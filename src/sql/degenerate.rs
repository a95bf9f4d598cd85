//! Degenerate constructs a rewrite must never introduce: a comparison of an expression with itself
//! (`T2.makeid = T2.makeid`, true on every row where it is not NULL, or false), a comparison of two
//! constants (`1 = 1`), and a join whose condition does not connect the joined table with the
//! tables before it (`JOIN car_names AS T2 ON T2.makeid = T2.makeid`: a cross join in disguise),
//! and arithmetic of an expression with itself (`assessment_date - assessment_date`, 0 or NULL on
//! every row; `x / x`, 1 or NULL).
//!
//! The fix stage ([`crate::ask::fix`]) rejects a rewrite that has a construct of these its input
//! did not have.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use sqlparser::ast::{BinaryOperator, Expr, Query, Select, SetExpr, TableFactor, Visit, Visitor};

/// The degenerate constructs of `query`, each in words (the same construct twice is listed twice).
pub fn degenerate(query: &Query) -> Vec<String> {
    struct Finder(Vec<String>);
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            if let Expr::BinaryOp { left, op, right } = e {
                if is_comparison(op) {
                    if same_expr(left, right) && !is_constant(left) {
                        self.0.push(format!("`{e}` compares an expression with itself"));
                    } else if is_constant(left) && is_constant(right) {
                        self.0.push(format!("`{e}` compares two constants"));
                    }
                }
                self.0.extend(with_itself(e));
            }
            ControlFlow::Continue(())
        }
        fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
            let mut blocks = Vec::new();
            selects(&q.body, &mut blocks);
            for s in blocks {
                self.0.extend(disconnected_joins(s));
            }
            ControlFlow::Continue(())
        }
    }
    let mut f = Finder(Vec::new());
    let _ = query.visit(&mut f);
    f.0
}

/// The constructs of `after` that `before` did not have (as multisets).
pub fn introduced(before: &Query, after: &Query) -> Vec<String> {
    let mut had = degenerate(before);
    let mut out = Vec::new();
    for d in degenerate(after) {
        match had.iter().position(|h| *h == d) {
            Some(i) => {
                had.remove(i);
            }
            None => out.push(d),
        }
    }
    out
}

/// An expression that subtracts an expression from itself or divides one by itself, in words:
/// whatever the rows, its value is 0 (1) or NULL.
fn with_itself(e: &Expr) -> Option<String> {
    let Expr::BinaryOp { left, op, right } = e else { return None };
    let what = match op {
        BinaryOperator::Minus => "subtracts an expression from itself: it is 0 or NULL on every row",
        BinaryOperator::Divide => "divides an expression by itself: it is 1 or NULL on every row",
        _ => return None,
    };
    (same_expr(left, right) && !is_constant(left)).then(|| format!("`{e}` {what}"))
}

/// The arithmetic of `query` that computes nothing ([`with_itself`]), each in words.
pub fn arithmetic_with_itself(query: &Query) -> Vec<String> {
    let mut out = Vec::new();
    let _ = sqlparser::ast::visit_expressions(query, |e| {
        out.extend(with_itself(e));
        ControlFlow::<()>::Continue(())
    });
    out
}

fn is_comparison(op: &BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::Eq | BinaryOperator::NotEq | BinaryOperator::Lt | BinaryOperator::LtEq | BinaryOperator::Gt | BinaryOperator::GtEq
    )
}

fn is_constant(e: &Expr) -> bool {
    match e {
        Expr::Value(_) => true,
        Expr::Nested(inner) => is_constant(inner),
        Expr::UnaryOp { expr, .. } => is_constant(expr),
        _ => false,
    }
}

/// Structural equality, identifiers compared ignoring case unless quoted.
fn same_expr(a: &Expr, b: &Expr) -> bool {
    normal(a) == normal(b)
}

fn normal(e: &Expr) -> String {
    let mut e = e.clone();
    while let Expr::Nested(inner) = e {
        e = *inner;
    }
    let mut lowered = e;
    let _ = sqlparser::ast::VisitMut::visit(&mut lowered, &mut Lower);
    lowered.to_string()
}

struct Lower;

impl sqlparser::ast::VisitorMut for Lower {
    type Break = ();
    fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        let lower = |i: &mut sqlparser::ast::Ident| {
            if i.quote_style.is_none() {
                i.value = i.value.to_lowercase();
            }
        };
        match e {
            Expr::Identifier(i) => lower(i),
            Expr::CompoundIdentifier(parts) => parts.iter_mut().for_each(lower),
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

fn selects<'q>(body: &'q SetExpr, out: &mut Vec<&'q Select>) {
    match body {
        SetExpr::Select(s) => out.push(s),
        SetExpr::SetOperation { left, right, .. } => {
            selects(left, out);
            selects(right, out);
        }
        _ => {}
    }
}

/// The name a column qualifier uses for a table factor (its alias, else its last name part).
fn qualifier(factor: &TableFactor) -> Option<String> {
    match factor {
        TableFactor::Table { name, alias, .. } => Some(match alias {
            Some(a) => a.name.value.to_lowercase(),
            None => name.0.last()?.as_ident()?.value.to_lowercase(),
        }),
        TableFactor::Derived { alias: Some(a), .. } => Some(a.name.value.to_lowercase()),
        _ => None,
    }
}

/// The qualifiers the column references of `e` name (outside subqueries); `None` when a column is
/// unqualified (its table is not known from the syntax alone).
fn qualifiers(e: &Expr) -> Option<BTreeSet<String>> {
    let (mut named, mut unqualified) = (BTreeSet::new(), false);
    crate::sql::exprs_outside_subqueries(e, &mut |e| match e {
        Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
            named.insert(parts[parts.len() - 2].value.to_lowercase());
        }
        Expr::Identifier(_) => unqualified = true,
        _ => {}
    });
    (!unqualified).then_some(named)
}

/// Joins of a block whose ON condition, with every column qualified, names the joined table but
/// none of the tables before it, or none of it: no condition between the two sides.
fn disconnected_joins(select: &Select) -> Vec<String> {
    let mut out = Vec::new();
    for from in &select.from {
        let mut before: BTreeSet<String> = qualifier(&from.relation).into_iter().collect();
        for j in &from.joins {
            let own = qualifier(&j.relation);
            if let (Some(own), Some(on)) = (&own, crate::checks::join_condition(&j.join_operator)) {
                if let Some(named) = qualifiers(on) {
                    let names_own = named.contains(own);
                    let names_before = named.iter().any(|q| before.contains(q));
                    let constant_only = named.is_empty();
                    if !constant_only && (!names_own || !names_before) {
                        out.push(format!("the join of `{}` on `{on}` does not connect it with the tables before it", j.relation));
                    }
                }
            }
            before.extend(own);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::check_query;

    fn found(sql: &str) -> Vec<String> {
        degenerate(&check_query(sql).unwrap().query)
    }

    #[test]
    fn self_comparisons_constants_and_disconnected_joins() {
        let d = found("SELECT T1.model FROM model_list AS T1 JOIN car_names AS T2 ON T2.makeid = T2.makeid");
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d.iter().any(|x| x.contains("compares an expression with itself")), "{d:?}");
        assert!(d.iter().any(|x| x.contains("does not connect")), "{d:?}");
        assert_eq!(found("SELECT a FROM t WHERE 1 = 1").len(), 1);
        assert_eq!(found("SELECT a FROM t WHERE (T.A) = t.a").len(), 1, "case of unquoted names does not matter");
        assert!(found(r#"SELECT a FROM t WHERE "A" = a"#).is_empty(), "a quoted name is another column");
        // a join on the other side only
        assert_eq!(found("SELECT 1 FROM a JOIN b ON a.x = a.y").len(), 1);
    }

    #[test]
    fn ordinary_queries_are_not_degenerate() {
        for sql in [
            "SELECT T1.model FROM model_list AS T1 JOIN car_names AS T2 ON T1.model = T2.model",
            "SELECT a.name FROM authors a LEFT JOIN books b ON b.author_id = a.author_id AND b.price > 3 WHERE b.book_id IS NULL",
            "SELECT x FROM a JOIN b ON x = y",
            "SELECT 1 FROM a JOIN b ON true",
            "SELECT s.name FROM s WHERE s.id IN (SELECT t.sid FROM t JOIN u ON u.id = t.uid WHERE t.x = s.x)",
            "SELECT a FROM t WHERE a = 1 UNION SELECT b FROM u WHERE b <> 2",
        ] {
            assert!(found(sql).is_empty(), "{sql}: {:?}", found(sql));
        }
    }

    #[test]
    fn introduced_counts_only_what_is_new() {
        let q = |s: &str| check_query(s).unwrap().query;
        let before = q("SELECT a FROM t WHERE 1 = 1");
        assert!(introduced(&before, &q("SELECT b FROM t WHERE 1 = 1")).is_empty());
        assert_eq!(introduced(&before, &q("SELECT b FROM t WHERE 1 = 1 AND t.b = t.b")).len(), 1);
    }
}
