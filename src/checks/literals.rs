//! `literal`: a text literal the column does not hold, though it holds the same text in another
//! case (`country = 'france'` where the column stores `'France'`): the comparison matches nothing
//! the question means. Surrounding spaces are not judged: a column padded with spaces is compared
//! unpadded as often by the people who know it (Spider's flight_2 gold does so 36 times). The stored values are read as
//! the caller ([`super::Needs::literals`]); the fix replaces the literal by the one stored value
//! it matches.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use sqlparser::ast::{BinaryOperator, Expr, Query, SetExpr, Value, Visit, Visitor};

use super::{aliases, column_of, finding, terms, Finding, Severity};
use crate::catalog::{Catalog, RelName};

/// One comparison of a text column with a string literal: `col = 'x'`, `col IN ('x', …)`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Literal {
    pub rel: RelName,
    pub column: String,
    pub value: String,
}

fn is_text(type_name: &str) -> bool {
    let t = type_name.to_lowercase();
    t == "text" || t.starts_with("character") || t.starts_with("varchar") || t == "bpchar" || t.starts_with("char")
}

fn string_of(e: &Expr) -> Option<&str> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::EscapedStringLiteral(s) | Value::NationalStringLiteral(s) => Some(s),
            _ => None,
        },
        Expr::Nested(inner) => string_of(inner),
        _ => None,
    }
}

/// Every equality of a text column with a string literal in the WHERE clauses of the query's
/// blocks (subqueries included, each with its own FROM).
pub fn comparisons(query: &Query, catalog: &Catalog) -> Vec<Literal> {
    struct Blocks<'c> {
        catalog: &'c Catalog,
        out: Vec<Literal>,
    }
    impl Visitor for Blocks<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
            let SetExpr::Select(select) = q.body.as_ref() else { return ControlFlow::Continue(()) };
            let aliases = aliases(select, self.catalog);
            let Some(w) = &select.selection else { return ControlFlow::Continue(()) };
            let mut add = |col: &Expr, lit: &str| {
                if let Some((rel, column)) = column_of(col, &aliases, self.catalog) {
                    let text = self.catalog.table(&rel).and_then(|t| t.column(&column)).is_some_and(|c| is_text(&c.type_name));
                    if text {
                        self.out.push(Literal { rel, column, value: lit.to_string() });
                    }
                }
            };
            for c in terms(w, &[BinaryOperator::And, BinaryOperator::Or]) {
                match c {
                    Expr::BinaryOp { left, op: BinaryOperator::Eq, right } => {
                        if let Some(s) = string_of(right) {
                            add(left, s);
                        } else if let Some(s) = string_of(left) {
                            add(right, s);
                        }
                    }
                    Expr::InList { expr, list, negated: false } => {
                        for s in list.iter().filter_map(string_of) {
                            add(expr, s);
                        }
                    }
                    _ => {}
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut v = Blocks { catalog, out: Vec::new() };
    let _ = query.visit(&mut v);
    v.out.sort();
    v.out.dedup();
    v.out
}

/// The SQL that reads, as the caller, the stored values equal to `l.value` ignoring case (at
/// most 5).
pub fn stored_variants_sql(l: &Literal) -> String {
    let c = crate::catalog::quote_ident(&l.column);
    let v = l.value.replace('\'', "''");
    format!("SELECT DISTINCT {c}::text FROM {} WHERE lower({c}::text) = lower('{v}') LIMIT 5", l.rel)
}

/// The `literal` findings, given the stored variants read of each comparison.
pub fn check(found: &[Literal], stored: &BTreeMap<Literal, Vec<String>>) -> Vec<Finding> {
    found
        .iter()
        .filter_map(|l| {
            let variants = stored.get(l)?;
            if variants.is_empty() || variants.contains(&l.value) {
                return None;
            }
            let shown: Vec<String> = variants.iter().map(|v| format!("'{}'", v.replace('\'', "''"))).collect();
            Some(finding(
                "literal",
                Severity::Repair,
                format!(
                    "{}.{} holds no '{}', but holds {}: compare with the stored value",
                    l.rel.name,
                    l.column,
                    l.value.replace('\'', "''"),
                    shown.join(", ")
                ),
            ))
        })
        .collect()
}

/// The query with each literal that matches exactly one stored variant replaced by it.
pub fn replace(query: &Query, catalog: &Catalog, stored: &BTreeMap<Literal, Vec<String>>) -> Option<(Query, String)> {
    let mut swaps: BTreeMap<String, String> = BTreeMap::new();
    for l in comparisons(query, catalog) {
        if let Some([only]) = stored.get(&l).map(Vec::as_slice) {
            if *only != l.value {
                swaps.insert(l.value.clone(), only.clone());
            }
        }
    }
    if swaps.is_empty() {
        return None;
    }
    struct Swap<'a>(&'a BTreeMap<String, String>);
    impl sqlparser::ast::VisitorMut for Swap<'_> {
        type Break = ();
        fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
            if let Expr::Value(v) = e {
                if let Value::SingleQuotedString(s) = &mut v.value {
                    if let Some(to) = self.0.get(s.as_str()) {
                        *s = to.clone();
                    }
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut fixed = query.clone();
    let _ = sqlparser::ast::VisitMut::visit(&mut fixed, &mut Swap(&swaps));
    let what: Vec<String> = swaps.iter().map(|(a, b)| format!("'{a}' → '{b}'")).collect();
    Some((fixed, format!("{}: the value as the column stores it", what.join(", "))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::check_query;
    use crate::testing::bookshop;

    #[test]
    fn literals_the_column_holds_in_another_case_are_found_and_replaced() {
        let q = check_query("SELECT name FROM customers WHERE city = 'paris' OR city IN ('Lyon', 'nice') AND customer_id IN (SELECT customer_id FROM orders)").unwrap().query;
        let found = comparisons(&q, &bookshop());
        assert_eq!(found.iter().map(|l| l.value.as_str()).collect::<Vec<_>>(), ["Lyon", "nice", "paris"]);
        assert!(stored_variants_sql(&found[2]).contains("lower('paris')"), "{}", stored_variants_sql(&found[2]));
        let mut stored = BTreeMap::new();
        stored.insert(found[0].clone(), vec!["Lyon".to_string()]);
        stored.insert(found[1].clone(), vec![]);
        stored.insert(found[2].clone(), vec!["Paris".to_string()]);
        let f = check(&found, &stored);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].message.contains("holds no 'paris', but holds 'Paris'"), "{}", f[0].message);
        let (fixed, what) = replace(&q, &bookshop(), &stored).unwrap();
        assert!(fixed.to_string().contains("city = 'Paris'"), "{fixed}");
        assert_eq!(what, "'paris' → 'Paris': the value as the column stores it");
        // two stored variants: reported, not replaced
        stored.insert(found[2].clone(), vec!["PARIS".to_string(), "Paris".to_string()]);
        assert_eq!(check(&found, &stored).len(), 1);
        assert!(replace(&q, &bookshop(), &stored).is_none());
        // numbers and non-text columns are not judged
        let q = check_query("SELECT title FROM books WHERE price = '3' AND book_id = 2").unwrap().query;
        assert!(comparisons(&q, &bookshop()).is_empty());
    }
}
