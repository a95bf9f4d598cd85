//! `extreme_scope`: `col = (SELECT max(col) FROM t)` in a block that also keeps only some rows of
//! `t` (`continent = 'Asia' AND surfacearea = (SELECT max(surfacearea) FROM country)`). The
//! subquery takes the extreme over every row of `t`, so unless that row happens to pass the
//! other conditions the query returns nothing: the question asks for the extreme among the rows
//! it keeps. The fix is the same conditions inside the subquery, or `ORDER BY … LIMIT 1`.

use std::ops::ControlFlow;

use sqlparser::ast::{Expr, Ident, Query, Select, SelectItem, SetExpr, TableFactor, Visit, VisitMut, Visitor, VisitorMut};

use super::{conjuncts, each_select, finding, Finding, Severity};

/// The condition with every column reference reduced to its lower-case name (`T1.Continent` and
/// `continent` read alike), as text.
fn normalised(e: &Expr) -> String {
    struct Bare;
    impl VisitorMut for Bare {
        type Break = ();
        fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
            match e {
                Expr::CompoundIdentifier(parts) => {
                    let last = parts.last().map(|i| i.value.to_lowercase()).unwrap_or_default();
                    *e = Expr::Identifier(Ident::new(last));
                }
                Expr::Identifier(i) => *e = Expr::Identifier(Ident::new(i.value.to_lowercase())),
                _ => {}
            }
            ControlFlow::Continue(())
        }
    }
    let mut e = e.clone();
    let _ = VisitMut::visit(&mut e, &mut Bare);
    e.to_string()
}

fn has_subquery(e: &Expr) -> bool {
    struct Sub(bool);
    impl Visitor for Sub {
        type Break = ();
        fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.0 = true;
            ControlFlow::Break(())
        }
    }
    let mut v = Sub(false);
    let _ = e.visit(&mut v);
    v.0
}

/// The one table a block reads (by name, lower case), with no join.
fn single_table(select: &Select) -> Option<String> {
    match select.from.as_slice() {
        [t] if t.joins.is_empty() => match &t.relation {
            TableFactor::Table { name, .. } => name.0.last().and_then(|p| p.as_ident()).map(|i| i.value.to_lowercase()),
            _ => None,
        },
        _ => None,
    }
}

/// `max(col)` / `min(col)` of a subquery over one table with no grouping: (function, table, its
/// conditions normalised).
fn extreme_subquery(q: &Query) -> Option<(String, String, Vec<String>)> {
    let SetExpr::Select(s) = q.body.as_ref() else { return None };
    if super::grouped(s) || s.having.is_some() || s.projection.len() != 1 {
        return None;
    }
    let SelectItem::UnnamedExpr(Expr::Function(f)) = &s.projection[0] else { return None };
    let name = f.name.to_string().to_lowercase();
    if name != "max" && name != "min" {
        return None;
    }
    let table = single_table(s)?;
    let conditions = s.selection.as_ref().map(|w| conjuncts(w).into_iter().map(normalised).collect()).unwrap_or_default();
    Some((name, table, conditions))
}

fn findings_of_block(select: &Select, out: &mut Vec<Finding>) {
    let (Some(w), Some(table)) = (&select.selection, single_table(select)) else { return };
    let terms = conjuncts(w);
    for term in &terms {
        let Expr::BinaryOp { left, op: sqlparser::ast::BinaryOperator::Eq, right } = term else { continue };
        let sub = match (left.as_ref(), right.as_ref()) {
            (_, Expr::Subquery(q)) | (Expr::Subquery(q), _) => q,
            _ => continue,
        };
        let Some((function, sub_table, sub_conditions)) = extreme_subquery(sub) else { continue };
        if sub_table != table {
            continue;
        }
        let missing: Vec<String> = terms
            .iter()
            .filter(|t| !std::ptr::eq(**t, *term) && !has_subquery(t))
            .map(|t| (t.to_string(), normalised(t)))
            .filter(|(_, n)| !sub_conditions.contains(n))
            .map(|(written, _)| written)
            .collect();
        if !missing.is_empty() {
            out.push(finding(
                "extreme_scope",
                Severity::Repair,
                format!(
                    "`{term}` takes the {function} over every row of {table}, while the query keeps only those where {}: put the same conditions in the subquery (or ORDER BY … LIMIT 1)",
                    missing.join(" AND ")
                ),
            ));
        }
    }
}

/// The `extreme_scope` findings of every SELECT block of the query.
pub fn check(query: &Query) -> Vec<Finding> {
    let mut out = Vec::new();
    each_select(query, &mut |s| findings_of_block(s, &mut out));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::check_query;

    fn found(sql: &str) -> Vec<String> {
        check(&check_query(sql).unwrap().query).into_iter().map(|f| f.message).collect()
    }

    #[test]
    fn an_extreme_over_every_row_beside_conditions_that_keep_some() {
        let f = found("SELECT name FROM customers WHERE city = 'Paris' AND customer_id = (SELECT max(customer_id) FROM customers)");
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].contains("takes the max over every row of customers, while the query keeps only those where city = 'Paris'"), "{}", f[0]);
        // the same conditions inside the subquery (however qualified) are right
        assert!(found("SELECT name FROM customers AS c WHERE c.city = 'Paris' AND c.customer_id = (SELECT max(customer_id) FROM customers WHERE city = 'Paris')").is_empty());
        // no other condition, another table, a join: not judged
        assert!(found("SELECT name FROM customers WHERE customer_id = (SELECT max(customer_id) FROM customers)").is_empty());
        assert!(found("SELECT title FROM books WHERE price > 3 AND book_id = (SELECT max(order_id) FROM orders)").is_empty());
        assert!(found("SELECT c.name FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id WHERE c.city = 'x' AND c.customer_id = (SELECT max(customer_id) FROM customers)").is_empty());
    }
}
