//! Aggregates that compute nothing, whatever the data: read from the syntax tree and the declared
//! keys alone, in every SELECT block.
//!
//! - `key_aggregate`: `SUM` or `AVG` of a key column (a one-column primary key, or a column of a
//!   foreign key, either side). A key names a row; adding names up is no quantity ("how many
//!   paragraphs in total?" answered by `SUM(paragraph_id)`). Counting rows is `COUNT`.
//! - `one_row_groups`: a block that reads one table, groups by every column of its primary key,
//!   and counts: each group is one row, so the count is 1 in every group and ranks or bounds
//!   nothing (`SELECT airportcode FROM airports GROUP BY airportcode ORDER BY count(*) DESC
//!   LIMIT 1` for "the airport with the most flights"). What is counted per key lives in a table
//!   that references it, which the finding names.
//! - `with_itself`: arithmetic of an expression with itself (`assessment_date - assessment_date`
//!   for "How long did each assessment take?", where one date is stored): 0 (or 1) on every row,
//!   a computation of nothing ([`crate::sql::degenerate::arithmetic_with_itself`]).

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr, OrderByKind, Query, Select, SetExpr, Visit, Visitor};

use super::{aliases, column_of, finding, Finding, Severity};
use crate::catalog::{Catalog, RelName};

/// Calls `f` with every function call in `node` outside the subqueries it holds.
fn calls_here(node: &impl Visit, f: &mut dyn FnMut(&sqlparser::ast::Function)) {
    crate::sql::exprs_outside_subqueries(node, &mut |e| {
        if let Expr::Function(func) = e {
            f(func);
        }
    });
}

/// The one argument of a call, when it is an expression.
pub(crate) fn only_argument(f: &sqlparser::ast::Function) -> Option<&Expr> {
    let FunctionArguments::List(list) = &f.args else { return None };
    match list.args.as_slice() {
        [FunctionArg::Unnamed(FunctionArgExpr::Expr(e))] => Some(e),
        _ => None,
    }
}

/// Is `rel.col` a key: the whole of a one-column primary key, or a column of a declared foreign
/// key, on either side?
fn is_key(rel: &RelName, col: &str, catalog: &Catalog) -> bool {
    let primary = catalog.table(rel).is_some_and(|t| t.primary_key.len() == 1 && t.primary_key[0] == col);
    primary
        || catalog.foreign_keys.iter().any(|fk| {
            (fk.from == *rel && fk.from_columns.iter().any(|c| c == col)) || (fk.to == *rel && fk.to_columns.iter().any(|c| c == col))
        })
}

/// The parts of a block (and, for a query's own block, its ORDER BY) where aggregates are read.
fn block_calls(select: &Select, order_by: Option<&sqlparser::ast::OrderBy>, f: &mut dyn FnMut(&sqlparser::ast::Function)) {
    for item in &select.projection {
        calls_here(item, f);
    }
    if let Some(h) = &select.having {
        calls_here(h, f);
    }
    if let Some(OrderByKind::Expressions(items)) = order_by.map(|o| &o.kind) {
        for item in items {
            calls_here(&item.expr, f);
        }
    }
}

fn key_aggregates(select: &Select, order_by: Option<&sqlparser::ast::OrderBy>, catalog: &Catalog, out: &mut Vec<Finding>) {
    let aliases = aliases(select, catalog);
    block_calls(select, order_by, &mut |f| {
        let name = f.name.to_string().to_lowercase();
        if !matches!(name.as_str(), "sum" | "avg") || f.over.is_some() {
            return;
        }
        let Some((rel, col)) = only_argument(f).and_then(|e| column_of(e, &aliases, catalog)) else { return };
        if !is_key(&rel, &col, catalog) {
            return;
        }
        let message = format!(
            "`{f}` adds up {}.{col}, a key: a key names a row and its {} is no quantity; to count rows write COUNT, or aggregate a column that holds an amount",
            rel.name,
            if name == "sum" { "sum" } else { "average" }
        );
        if !out.iter().any(|x| x.message == message) {
            out.push(finding("key_aggregate", Severity::Repair, message));
        }
    });
}

fn one_row_groups(select: &Select, order_by: Option<&sqlparser::ast::OrderBy>, catalog: &Catalog, out: &mut Vec<Finding>) {
    let aliases: BTreeMap<String, RelName> = aliases(select, catalog);
    let [from] = select.from.as_slice() else { return };
    if !from.joins.is_empty() || aliases.len() != 1 {
        return;
    }
    let Some(rel) = aliases.values().next() else { return };
    let Some(table) = catalog.table(rel) else { return };
    // (a grouping with modifiers, ROLLUP and the like, adds groups of many rows)
    let GroupByExpr::Expressions(keys, modifiers) = &select.group_by else { return };
    if table.primary_key.is_empty() || keys.is_empty() || !modifiers.is_empty() {
        return;
    }
    let grouped: Vec<String> = keys.iter().filter_map(|k| column_of(k, &aliases, catalog)).map(|(_, c)| c).collect();
    if !table.primary_key.iter().all(|k| grouped.contains(k)) {
        return;
    }
    let mut counts = false;
    block_calls(select, order_by, &mut |f| counts |= f.name.to_string().eq_ignore_ascii_case("count") && f.over.is_none());
    if !counts {
        return;
    }
    let mut referencing: Vec<&str> = catalog.foreign_keys.iter().filter(|fk| fk.to == *rel && fk.from != *rel).map(|fk| fk.from.name.as_str()).collect();
    referencing.sort_unstable();
    referencing.dedup();
    let whom = if referencing.is_empty() {
        String::new()
    } else {
        format!("; to count what refers to each, join {} and group by the key", referencing.join(" or "))
    };
    out.push(finding(
        "one_row_groups",
        Severity::Repair,
        format!(
            "the query groups {} by its primary key ({}), so every group is one row and COUNT is 1 in each: it counts nothing{whom}",
            rel.name,
            table.primary_key.join(", ")
        ),
    ));
}

/// Both checks, on every SELECT block of the query (subqueries and set-operation arms included).
pub fn check(query: &Query, catalog: &Catalog) -> Vec<Finding> {
    struct Blocks<'a> {
        catalog: &'a Catalog,
        out: Vec<Finding>,
    }
    impl Blocks<'_> {
        fn body(&mut self, body: &SetExpr, order_by: Option<&sqlparser::ast::OrderBy>) {
            match body {
                SetExpr::Select(s) => {
                    key_aggregates(s, order_by, self.catalog, &mut self.out);
                    one_row_groups(s, order_by, self.catalog, &mut self.out);
                }
                SetExpr::SetOperation { left, right, .. } => {
                    self.body(left, None);
                    self.body(right, None);
                }
                _ => {}
            }
        }
    }
    impl Visitor for Blocks<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
            self.body(&q.body, q.order_by.as_ref());
            ControlFlow::Continue(())
        }
    }
    let mut v = Blocks { catalog, out: Vec::new() };
    let _ = query.visit(&mut v);
    v.out.extend(
        crate::sql::degenerate::arithmetic_with_itself(query)
            .into_iter()
            .map(|what| finding("with_itself", Severity::Repair, format!("{what}: compute what the question asks from the columns that hold it"))),
    );
    v.out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, ForeignKey, RelKind, Table};
    use crate::sql::check_query;

    /// A small shop: customers, orders (composite-key lines), products; an audit table keyed by a
    /// date, and a table without a declared key.
    fn catalog() -> Catalog {
        let col = |n: &str, t: &str| Column { name: n.into(), type_name: t.into(), nullable: false, comment: None };
        let table = |n: &str, cols: &[(&str, &str)], pk: &[&str]| Table {
            name: RelName::new("sales", n),
            kind: RelKind::Table,
            comment: None,
            row_estimate: None,
            columns: cols.iter().map(|(c, t)| col(c, t)).collect(),
            primary_key: pk.iter().map(|c| c.to_string()).collect(),
        };
        let fk = |from: &str, fc: &[&str], to: &str, tc: &[&str]| ForeignKey {
            name: format!("{from}_fkey"),
            from: RelName::new("sales", from),
            from_columns: fc.iter().map(|c| c.to_string()).collect(),
            to: RelName::new("sales", to),
            to_columns: tc.iter().map(|c| c.to_string()).collect(),
        };
        Catalog {
            tables: vec![
                table("customers", &[("customer_no", "integer"), ("name", "text"), ("credit", "numeric")], &["customer_no"]),
                table("orders", &[("order_id", "integer"), ("customer_no", "integer"), ("total", "numeric")], &["order_id"]),
                table("order_lines", &[("order_id", "integer"), ("line", "integer"), ("qty", "integer")], &["order_id", "line"]),
                table("visits", &[("day", "date"), ("count", "integer")], &[]),
            ],
            foreign_keys: vec![fk("orders", &["customer_no"], "customers", &["customer_no"]), fk("order_lines", &["order_id"], "orders", &["order_id"])],
            search_path: vec!["sales".into()],
            ..Default::default()
        }
    }

    fn fired(sql: &str) -> Vec<&'static str> {
        check(&check_query(sql).unwrap().query, &catalog()).iter().map(|f| f.checker).collect()
    }

    #[test]
    fn a_sum_or_average_of_a_key_is_no_quantity() {
        assert_eq!(fired("SELECT sum(order_id) FROM orders"), vec!["key_aggregate"]);
        assert_eq!(fired("SELECT c.name, avg(o.customer_no) FROM customers c JOIN orders o ON o.customer_no = c.customer_no GROUP BY c.name"), vec!["key_aggregate"]);
        // a key of several columns: its columns are judged only as foreign keys
        assert_eq!(fired("SELECT sum(line) FROM order_lines"), Vec::<&str>::new());
        assert_eq!(fired("SELECT sum(order_id) FROM order_lines"), vec!["key_aggregate"]);
        // inside a subquery, by that block's own tables
        assert_eq!(fired("SELECT name FROM customers WHERE credit > (SELECT sum(order_id) FROM orders)"), vec!["key_aggregate"]);
        // amounts, counts of keys and extremes of keys are quantities
        assert!(fired("SELECT sum(total), avg(qty) FROM orders JOIN order_lines USING (order_id)").is_empty());
        assert!(fired("SELECT count(order_id), max(order_id) FROM orders").is_empty());
        assert!(fired("SELECT sum(order_id) OVER () FROM orders").is_empty());
        // a column named like a count, in a table without a key, is judged by nothing here
        assert!(fired("SELECT sum(count) FROM visits").is_empty());
    }

    #[test]
    fn arithmetic_of_an_expression_with_itself_computes_nothing() {
        assert_eq!(fired("SELECT day - day AS duration FROM visits"), vec!["with_itself"]);
        assert_eq!(fired("SELECT name FROM customers WHERE credit / (credit) > 1"), vec!["with_itself"]);
        let f = check(&check_query("SELECT v.day - V.day FROM visits v").unwrap().query, &catalog());
        assert!(f[0].message.starts_with("`v.day - V.day` subtracts an expression from itself: it is 0 or NULL on every row"), "{}", f[0].message);
        // two columns, a constant, a sum: something
        assert!(fired("SELECT max(day) - min(day), total - 1, credit + credit FROM visits, orders, customers").is_empty());
        assert!(fired("SELECT 2 - 2").is_empty());
    }

    #[test]
    fn counting_groups_of_one_row_counts_nothing() {
        let f = check(&check_query("SELECT customer_no FROM customers GROUP BY customer_no ORDER BY count(*) DESC LIMIT 1").unwrap().query, &catalog());
        assert_eq!(f.iter().map(|f| f.checker).collect::<Vec<_>>(), vec!["one_row_groups"]);
        assert!(f[0].message.contains("join orders"), "{}", f[0].message);
        assert_eq!(fired("SELECT name, count(*) FROM customers GROUP BY customer_no, name"), vec!["one_row_groups"]);
        assert_eq!(fired("SELECT order_id FROM order_lines GROUP BY order_id, line HAVING count(*) > 1"), vec!["one_row_groups"]);
        // a part of a composite key, a join, a group by another column: groups of many rows
        assert!(fired("SELECT order_id, count(*) FROM order_lines GROUP BY order_id").is_empty());
        assert!(fired("SELECT c.customer_no FROM customers c JOIN orders o ON o.customer_no = c.customer_no GROUP BY c.customer_no ORDER BY count(*) DESC LIMIT 1").is_empty());
        assert!(fired("SELECT name, count(*) FROM customers GROUP BY name").is_empty());
        // a total row beside the groups counts them all
        assert!(fired("SELECT customer_no, count(*) FROM customers GROUP BY ROLLUP (customer_no)").is_empty());
        // grouped by the key without counting: nothing to say here
        assert!(fired("SELECT customer_no, max(credit) FROM customers GROUP BY customer_no").is_empty());
        // a table without a declared key is not judged
        assert!(fired("SELECT day, count(*) FROM visits GROUP BY day").is_empty());
    }
}
