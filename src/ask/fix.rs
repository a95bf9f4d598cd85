//! Repair by rewrite: problems whose fix is mechanical are fixed on the syntax tree, without the
//! model. Each fix is proposed only when its problem was found; the pipeline keeps a fixed query
//! only if it plans, runs and has fewer problems ([`accept`]), and records it as a `fix` step.
//!
//! | fix | problem | rewrite |
//! |---|---|---|
//! | `alias` | a column qualified with an alias whose table lacks it (`T1.order_id`, `order_id` in `T2`'s table) | the alias of the one table in scope that has it; only in a query with one scope (no subqueries), and only when exactly one table in scope has the column. A run whose answer needed it and then reads nothing from a joined table ends `unverified`: the model misread the schema |
//! | `limit` | a LIMIT the question does not ask for (`all_rows`), or one without ORDER BY | the outer LIMIT removed |
//! | `top_k` | "top k" asked, the query ranks (ORDER BY) but has no LIMIT | `LIMIT k` |
//! | `nulls_last` | `null_order`: a nullable column ranked DESC holds NULLs, which PostgreSQL sorts first | `NULLS LAST` on the DESC keys without a NULLS clause |
//! | `group_by` | PostgreSQL: a column "must appear in the GROUP BY clause" | the column added to the GROUP BY |
//! | `distinct_order` | PostgreSQL: "for SELECT DISTINCT, ORDER BY expressions must appear in select list" | a grouping by the selected expressions, each other ORDER BY key under `max` (DESC) or `min` (ASC) |
//! | `needless_join` | a table joined in that the answer takes nothing from and the question does not name, whose join changes the rows (`check:needless_join`), or in a query that fails to plan | the join removed (leaf first, so a bridge to it goes too) |
//! | `fan_out` | a count a one-to-many join inflates, shown by the data (`check:fan_out`) | `COUNT(DISTINCT <key>)` of the counted table |
//! | `columns` | a column the question does not ask for (`check:columns`: a ranking or HAVING key named only in the phrase that ranks, an identifier beside other columns of its table) | the column removed from the output (an ORDER BY that named it by its alias names the expression) |
//! | `literal` | a text literal the column holds only in another case or with other spaces (`check:literal`) | the literal replaced by the one stored value it matches (from the stored values the verification read as the caller; `Verified::literal_fix`) |
//! | `both` | either of two values where the question asks for what has both, the data showing it matters (`check:both`) | the intersection of the query's block for each value |
//! | `direction` | a superlative against the ranking direction (`check:direction`) | the first ORDER BY key's direction reversed, or MAX and MIN swapped |

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, GroupByExpr, Ident, OrderByKind, OrderBySort, Query, SetExpr, TableFactor, TableWithJoins, Visit, VisitMut,
    Visitor,
};

use super::repair::Attempt;
use crate::catalog::{Catalog, Table};
use crate::constraints::{Constraint, Kind};
use crate::sql::check_query;

/// A fixed query and what was fixed.
#[derive(Debug, Clone, PartialEq)]
pub struct Fix {
    /// `alias`, `limit`, `top_k`, `nulls_last`, `group_by`.
    pub name: &'static str,
    pub sql: String,
    /// What was changed, in words.
    pub what: String,
}

/// Whether a fixed query is kept: it runs, and it has fewer problems than the one it fixes:
/// neither its directives nor its violated requirements grow, and one of them shrinks (the
/// checker chain reports only its first finding as a directive, so a fix of one of two findings
/// shows in the violated requirements alone). A query that failed and now runs is kept whatever
/// the checks then find: they could not judge it before (its one problem was the failure), and the
/// next round fixes what they find (`T2.name` requalified to `T1.name`, then the join the answer no
/// longer reads removed).
pub fn accept(current: &Attempt, fixed: &Attempt) -> bool {
    if fixed.fails {
        return false;
    }
    if current.fails {
        return true;
    }
    let (p, v) = (fixed.problems.len(), fixed.violated.len());
    let (p0, v0) = (current.problems.len(), current.violated.len());
    p <= p0 && v <= v0 && (p < p0 || v < v0)
}

/// The mechanical fixes of `current`'s problems, in the order they are tried; each applies to
/// `current` alone.
pub fn propose(current: &Attempt, catalog: &Catalog, question: &str, constraints: &[Constraint]) -> Vec<Fix> {
    let Ok(checked) = check_query(&current.sql) else { return vec![] };
    let q = &checked.query;
    let violated = |name: &str| current.violated.iter().any(|v| v == name);
    let mut out = Vec::new();
    // no rewrite may make a comparison of an expression with itself, of two constants, or a
    // join that does not connect its two sides
    let mut push = |name: &'static str, fixed: Option<(Query, String)>| {
        if let Some((query, what)) = fixed {
            if crate::sql::degenerate::introduced(q, &query).is_empty() {
                out.push(Fix { name, sql: query.to_string(), what });
            }
        }
    };
    if current.fails {
        push("alias", requalify(q, catalog));
        if let Some(column) = current.problems.iter().find_map(|p| missing_from_group_by(p)) {
            push("group_by", add_to_group_by(q, &column));
        }
        if current.problems.iter().any(|p| p.contains("for SELECT DISTINCT, ORDER BY expressions must appear in select list")) {
            push("distinct_order", distinct_ordered(q));
        }
    }
    if violated("all_rows") || violated("limit_without_order") {
        push("limit", drop_limit(q));
    }
    if violated("top_k") {
        if let Some(k) = constraints.iter().find_map(|c| match c.kind {
            Kind::TopK { k, .. } => Some(k),
            _ => None,
        }) {
            push("top_k", add_limit(q, k));
        }
    }
    if violated("check:null_order") {
        push("nulls_last", nulls_last(q));
    }
    if violated("check:direction") {
        push("direction", reverse_direction(q));
    }
    if violated("check:columns") {
        push("columns", drop_unasked(q, catalog, question));
    }
    // a join the answer takes nothing from: judged by the data when the query runs; when it
    // fails, its removal is tried anyway (kept only if the query then runs: the failure was in
    // the join, `ON T1.uid = T2.airline` where T2 has no such column)
    if current.fails || violated("check:needless_join") {
        push(
            "needless_join",
            crate::checks::needless_join::needless(q, catalog, question).map(|n| {
                let what = format!("the join of {} removed: the answer takes nothing from it, and it dropped or repeated rows", n.tables.join(", "));
                (n.without, what)
            }),
        );
    }
    if violated("check:both") {
        push(
            "both",
            crate::checks::both::either(q, question)
                .map(|b| (b.intersect, format!("`{}` split into the rows with each value, intersected: the question asks for both", b.condition))),
        );
    }
    if violated("check:fan_out") {
        push("fan_out", crate::checks::shape::fan_out(q, catalog, question).map(|f| (f.distinct, "COUNT(DISTINCT …) of the counted table's key: the join repeated each row".to_string())));
    }
    out
}

// --- alias -----------------------------------------------------------------------------------------

/// The tables of one query block's FROM clause by the name a column qualifier uses (the alias, or
/// the table's own name), lower-cased, with that name as written.
fn scope<'a>(from: &[TableWithJoins], catalog: &'a Catalog) -> Option<BTreeMap<String, (Ident, &'a Table)>> {
    let mut tables = BTreeMap::new();
    for f in from {
        for factor in std::iter::once(&f.relation).chain(f.joins.iter().map(|j| &j.relation)) {
            let TableFactor::Table { name, alias, .. } = factor else { return None };
            let table = catalog.resolve_object(name)?;
            let written = alias.as_ref().map_or_else(|| Ident::new(&table.name.name), |a| a.name.clone());
            tables.insert(written.value.to_lowercase(), (written, table));
        }
    }
    Some(tables)
}

fn has_column(t: &Table, column: &str) -> bool {
    t.columns.iter().any(|c| c.name.eq_ignore_ascii_case(column))
}

/// Counts the query blocks of a statement.
struct Blocks(usize);

impl Visitor for Blocks {
    type Break = ();
    fn pre_visit_query(&mut self, _q: &Query) -> ControlFlow<()> {
        self.0 += 1;
        ControlFlow::Continue(())
    }
}

/// Requalify `q.c` where `q`'s table lacks `c` and exactly one table in scope has it, unless that
/// makes a comparison of the column with itself or a join that no longer connects its two sides
/// (`ON T1.makeid = T2.makeid` with `makeid` only in `T2`'s table stays as it is: which column of
/// `T1` was meant is not for a rewrite to guess).
fn requalify(query: &Query, catalog: &Catalog) -> Option<(Query, String)> {
    let mut blocks = Blocks(0);
    let _ = query.visit(&mut blocks);
    let SetExpr::Select(select) = query.body.as_ref() else { return None };
    if blocks.0 != 1 {
        return None;
    }
    let tables = scope(&select.from, catalog)?;
    // each wrong qualifier, and the one table in scope that has the column
    let mut moves: BTreeMap<(String, String), Ident> = BTreeMap::new();
    let _ = query.visit(&mut ExprReader(|e: &Expr| {
        let Expr::CompoundIdentifier(parts) = e else { return };
        let [qualifier, column] = parts.as_slice() else { return };
        let Some((_, table)) = tables.get(&qualifier.value.to_lowercase()) else { return };
        if has_column(table, &column.value) {
            return;
        }
        let owners: Vec<&Ident> = tables.values().filter(|(_, t)| has_column(t, &column.value)).map(|(w, _)| w).collect();
        if let [owner] = owners.as_slice() {
            moves.insert((qualifier.value.to_lowercase(), column.value.to_lowercase()), (*owner).clone());
        }
    }));
    let apply = |moves: &BTreeMap<(String, String), Ident>| {
        let mut fixed = query.clone();
        let _ = VisitMut::visit(&mut fixed, &mut ExprRewriter(|e: &mut Expr| {
            let Expr::CompoundIdentifier(parts) = e else { return };
            if let [qualifier, column] = parts.as_mut_slice() {
                if let Some(owner) = moves.get(&(qualifier.value.to_lowercase(), column.value.to_lowercase())) {
                    *qualifier = owner.clone();
                }
            }
        }));
        fixed
    };
    // keep the moves that make nothing degenerate, each judged alone
    moves.retain(|k, owner| {
        let one = BTreeMap::from([(k.clone(), owner.clone())]);
        crate::sql::degenerate::introduced(query, &apply(&one)).is_empty()
    });
    if moves.is_empty() {
        return None;
    }
    let changes: Vec<String> = moves.iter().map(|((q, c), owner)| format!("{q}.{c} → {owner}.{c}")).collect();
    Some((apply(&moves), format!("a column qualified with the wrong table: {}", changes.join(", "))))
}

struct ExprReader<F>(F);

impl<F: FnMut(&Expr)> Visitor for ExprReader<F> {
    type Break = ();
    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        (self.0)(e);
        ControlFlow::Continue(())
    }
}

struct ExprRewriter<F>(F);

impl<F: FnMut(&mut Expr)> sqlparser::ast::VisitorMut for ExprRewriter<F> {
    type Break = ();
    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        (self.0)(e);
        ControlFlow::Continue(())
    }
}

// --- LIMIT -----------------------------------------------------------------------------------------

fn drop_limit(query: &Query) -> Option<(Query, String)> {
    let mut fixed = query.clone();
    let removed = fixed.limit_clause.take().is_some() | fixed.fetch.take().is_some();
    removed.then(|| (fixed, "the outer LIMIT removed: the question asks for every matching row".to_string()))
}

fn add_limit(query: &Query, k: u64) -> Option<(Query, String)> {
    if query.order_by.is_none() || query.limit_clause.is_some() || query.fetch.is_some() {
        return None;
    }
    let mut fixed = query.clone();
    crate::sql::limit::impose_limit(&mut fixed, k);
    Some((fixed, format!("LIMIT {k} added: the question asks for the top {k}")))
}

// --- NULLS LAST ------------------------------------------------------------------------------------

fn nulls_last(query: &Query) -> Option<(Query, String)> {
    let mut fixed = query.clone();
    let Some(order) = fixed.order_by.as_mut() else { return None };
    let OrderByKind::Expressions(exprs) = &mut order.kind else { return None };
    let mut changed = Vec::new();
    for e in exprs.iter_mut() {
        if matches!(e.options.sort, Some(OrderBySort::Desc)) && e.options.nulls_first.is_none() {
            e.options.nulls_first = Some(false);
            changed.push(e.expr.to_string());
        }
    }
    (!changed.is_empty()).then(|| (fixed, format!("NULLS LAST on {}: PostgreSQL sorts NULLs first in DESC order", changed.join(", "))))
}

// --- columns -------------------------------------------------------------------------------------

fn drop_unasked(query: &Query, catalog: &Catalog, question: &str) -> Option<(Query, String)> {
    let unasked = crate::checks::columns::unasked_items(query, catalog, question);
    let mut fixed = query.clone();
    let SetExpr::Select(select) = fixed.body.as_mut() else { return None };
    if unasked.is_empty() || unasked.len() >= select.projection.len() {
        return None;
    }
    let mut dropped = Vec::new();
    for (n, _) in unasked.iter().rev() {
        let item = select.projection.remove(*n);
        if let sqlparser::ast::SelectItem::ExprWithAlias { expr, alias } = &item {
            // ORDER BY the alias: order by the expression itself (HAVING cannot name an output
            // alias in PostgreSQL, so it needs nothing)
            if let Some(OrderByKind::Expressions(keys)) = fixed.order_by.as_mut().map(|o| &mut o.kind) {
                for k in keys.iter_mut() {
                    if matches!(&k.expr, Expr::Identifier(i) if i.value.eq_ignore_ascii_case(&alias.value)) {
                        k.expr = expr.clone();
                    }
                }
            }
        }
        dropped.push(item.to_string());
    }
    dropped.reverse();
    Some((fixed, format!("{} removed from the output: the question does not ask for it", dropped.join(", "))))
}

// --- direction -------------------------------------------------------------------------------------

fn reverse_direction(query: &Query) -> Option<(Query, String)> {
    let mut fixed = query.clone();
    if let Some(order) = fixed.order_by.as_mut() {
        let OrderByKind::Expressions(exprs) = &mut order.kind else { return None };
        let first = exprs.first_mut()?;
        let (sort, words) = match first.options.sort {
            Some(OrderBySort::Desc) => (Some(OrderBySort::Asc), "DESC → ASC"),
            Some(OrderBySort::Using(_)) => return None,
            _ => (Some(OrderBySort::Desc), "ASC → DESC"),
        };
        first.options.sort = sort;
        first.options.nulls_first = None;
        let what = format!("ORDER BY {} {words}: the direction the question's superlative asks for", first.expr);
        return Some((fixed, what));
    }
    let SetExpr::Select(select) = fixed.body.as_mut() else { return None };
    let mut swapped = Vec::new();
    for item in select.projection.iter_mut() {
        let (sqlparser::ast::SelectItem::UnnamedExpr(Expr::Function(f)) | sqlparser::ast::SelectItem::ExprWithAlias { expr: Expr::Function(f), .. }) = item else { continue };
        let name = f.name.to_string().to_lowercase();
        let to = match name.as_str() {
            "max" => "min",
            "min" => "max",
            _ => continue,
        };
        f.name = sqlparser::ast::ObjectName::from(vec![Ident::new(to.to_uppercase())]);
        swapped.push(format!("{} → {}", name.to_uppercase(), to.to_uppercase()));
    }
    (swapped.len() == 1).then(|| (fixed, format!("{}: the extreme the question's superlative asks for", swapped[0])))
}

// --- GROUP BY --------------------------------------------------------------------------------------

/// The column of PostgreSQL's `column "t.name" must appear in the GROUP BY clause or be used in
/// an aggregate function`.
fn missing_from_group_by(problem: &str) -> Option<String> {
    let (before, _) = problem.split_once("must appear in the GROUP BY clause")?;
    let quoted = before.rsplit("column ").next()?.trim();
    let column = quoted.trim_matches('"').trim();
    (!column.is_empty() && column.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.')).then(|| column.to_string())
}

fn add_to_group_by(query: &Query, column: &str) -> Option<(Query, String)> {
    let mut fixed = query.clone();
    let SetExpr::Select(select) = fixed.body.as_mut() else { return None };
    let GroupByExpr::Expressions(exprs, _) = &mut select.group_by else { return None };
    if exprs.is_empty() {
        return None;
    }
    let parts: Vec<Ident> = column.split('.').map(Ident::new).collect();
    let expr = if parts.len() == 1 { Expr::Identifier(parts[0].clone()) } else { Expr::CompoundIdentifier(parts) };
    exprs.push(expr);
    Some((fixed, format!("{column} added to the GROUP BY: every selected column that is not aggregated must be grouped")))
}

/// `SELECT DISTINCT a … ORDER BY b`, which PostgreSQL refuses, as the grouping it means: each
/// distinct row once, ranked by its largest `b` when descending and its smallest when ascending
/// (`SELECT a … GROUP BY a ORDER BY max(b) DESC`).
fn distinct_ordered(query: &Query) -> Option<(Query, String)> {
    use sqlparser::ast::{Distinct, Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, ObjectName, OrderByKind, SelectItem};
    let mut fixed = query.clone();
    let SetExpr::Select(select) = fixed.body.as_mut() else { return None };
    if !matches!(select.distinct, Some(Distinct::Distinct)) || !matches!(&select.group_by, GroupByExpr::Expressions(e, _) if e.is_empty()) {
        return None;
    }
    let mut keys = Vec::new();
    for item in &select.projection {
        match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => keys.push(e.clone()),
            _ => return None,
        }
    }
    // a projection that aggregates is no list of rows to group
    if keys.iter().any(|k| matches!(k, Expr::Function(_))) {
        return None;
    }
    let Some(OrderByKind::Expressions(items)) = fixed.order_by.as_mut().map(|o| &mut o.kind) else { return None };
    let mut changed = Vec::new();
    for item in items.iter_mut() {
        if keys.contains(&item.expr) {
            continue;
        }
        let descending = matches!(item.options.sort, Some(sqlparser::ast::OrderBySort::Desc));
        let name = if descending { "max" } else { "min" };
        let wrapped = Expr::Function(Function {
            name: ObjectName::from(vec![Ident::new(name)]),
            uses_odbc_syntax: false,
            parameters: FunctionArguments::None,
            args: FunctionArguments::List(FunctionArgumentList {
                duplicate_treatment: None,
                args: vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(item.expr.clone()))],
                clauses: vec![],
            }),
            filter: None,
            null_treatment: None,
            over: None,
            within_group: vec![],
        });
        changed.push(format!("{} → {wrapped}", item.expr));
        item.expr = wrapped;
    }
    if changed.is_empty() {
        return None;
    }
    let SetExpr::Select(select) = fixed.body.as_mut() else { return None };
    select.distinct = None;
    select.group_by = GroupByExpr::Expressions(keys, vec![]);
    Some((fixed, format!("DISTINCT with an ORDER BY on other columns written as a grouping: {}", changed.join(", "))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::extract;
    use crate::testing::bookshop;

    fn attempt(sql: &str, violated: &[&str], problems: &[&str], fails: bool) -> Attempt {
        Attempt {
            sql: sql.into(),
            violated: violated.iter().map(|v| v.to_string()).collect(),
            problems: problems.iter().map(|p| p.to_string()).collect(),
            fails,
        }
    }

    fn fixes(a: &Attempt, question: &str) -> Vec<(&'static str, String)> {
        propose(a, &bookshop(), question, &extract(question, None)).into_iter().map(|f| (f.name, f.sql)).collect()
    }

    #[test]
    fn a_column_under_the_wrong_alias_moves_to_the_one_table_that_has_it() {
        let sql = "SELECT COUNT(T1.order_id) FROM customers AS T1 JOIN orders AS T2 ON T1.customer_id = T2.customer_id WHERE T1.city = 'Paris'";
        let a = attempt(sql, &[], &["PostgreSQL cannot plan it: column t1.order_id does not exist"], true);
        assert_eq!(
            fixes(&a, "How many orders did customers from Paris place?"),
            [("alias", "SELECT COUNT(T2.order_id) FROM customers AS T1 JOIN orders AS T2 ON T1.customer_id = T2.customer_id WHERE T1.city = 'Paris'".to_string())]
        );
        // a column in no table, or in two, is not guessed; nor inside a subquery's scope
        let neither = attempt("SELECT T1.isbn FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.author_id WHERE T2.price > 3", &[], &["x"], true);
        assert!(fixes(&neither, "q").is_empty());
        let ambiguous = attempt("SELECT T2.name FROM authors AS T1 JOIN customers AS T2 ON true JOIN books AS T3 ON true", &[], &["x"], true);
        assert!(fixes(&ambiguous, "q").is_empty(), "name is in authors and customers");
        let nested = attempt("SELECT T1.order_id FROM customers AS T1 WHERE T1.customer_id IN (SELECT customer_id FROM orders)", &[], &["x"], true);
        assert!(fixes(&nested, "q").is_empty());
        // a query that runs is never requalified
        assert!(fixes(&attempt(sql, &[], &["x"], false), "q").is_empty());
    }

    #[test]
    fn a_requalified_column_never_makes_a_join_compare_a_column_with_itself() {
        // the column is only in the joined table: moving the other side to it would make
        // `T2.makeid = T2.makeid`, a cross join; which column of T1 was meant is not guessed
        let sql = "SELECT T2.title FROM customers AS T1 JOIN books AS T2 ON T1.book_id = T2.book_id WHERE T1.city = 'Lima'";
        let a = attempt(sql, &[], &["PostgreSQL cannot plan it: column t1.book_id does not exist"], true);
        assert!(fixes(&a, "Which books did customers from Lima buy?").iter().all(|(name, _)| *name != "alias"));
        // a move elsewhere in the same query is still made
        let sql = "SELECT T1.title FROM customers AS T1 JOIN books AS T2 ON T1.book_id = T2.book_id";
        let a = attempt(sql, &[], &["x"], true);
        assert!(fixes(&a, "q").iter().all(|(_, fixed)| !fixed.contains("T2.book_id = T2.book_id")));
        assert!(fixes(&a, "q").iter().any(|(name, fixed)| *name == "alias" && fixed.starts_with("SELECT T2.title")), "{:?}", fixes(&a, "q"));
        // every proposal of every fix keeps its joins connected and compares nothing with itself
        for (_, fixed) in fixes(&a, "q") {
            assert!(crate::sql::degenerate::degenerate(&check_query(&fixed).unwrap().query).is_empty(), "{fixed}");
        }
    }

    #[test]
    fn a_join_the_answer_takes_nothing_from_is_removed_when_the_data_or_the_planner_speaks() {
        let sql = "SELECT T1.name FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.writer_id WHERE T1.country = 'Peru'";
        let removed = [("needless_join", "SELECT T1.name FROM authors AS T1 WHERE T1.country = 'Peru'".to_string())];
        // the join condition names a column books lacks: the query fails, the removal is tried
        assert_eq!(fixes(&attempt(sql, &[], &["column t2.writer_id does not exist"], true), "Which authors are from Peru?"), removed);
        // a query that runs: only when the data showed the join changes the rows
        assert!(fixes(&attempt(sql, &["x"], &["x"], false), "Which authors are from Peru?").is_empty());
        assert_eq!(fixes(&attempt(sql, &["check:needless_join"], &["x"], false), "Which authors are from Peru?"), removed);
        // named by the question: the join stays
        assert!(fixes(&attempt(sql, &["check:needless_join"], &["x"], false), "Which authors from Peru wrote books?").is_empty());
    }

    #[test]
    fn limits_are_removed_or_added_as_the_question_says() {
        let a = attempt("SELECT name FROM authors WHERE country = 'Nigeria' LIMIT 5", &["limit_without_order"], &["x"], false);
        assert_eq!(fixes(&a, "Which authors are from Nigeria?"), [("limit", "SELECT name FROM authors WHERE country = 'Nigeria'".to_string())]);
        let a = attempt("SELECT title FROM books ORDER BY price DESC", &["top_k"], &["x"], false);
        assert_eq!(fixes(&a, "What are the 3 most expensive books?"), [("top_k", "SELECT title FROM books ORDER BY price DESC LIMIT 3".to_string())]);
        // without a ranking there is nothing mechanical to add
        assert!(fixes(&attempt("SELECT title FROM books", &["top_k"], &["x"], false), "What are the 3 most expensive books?").is_empty());
    }

    #[test]
    fn nulls_last_and_group_by() {
        let a = attempt("SELECT title FROM books ORDER BY price DESC, title LIMIT 1", &["check:null_order"], &["x"], false);
        assert_eq!(fixes(&a, "q")[0].1, "SELECT title FROM books ORDER BY price DESC NULLS LAST, title LIMIT 1");
        let p = "running it failed: column \"books.title\" must appear in the GROUP BY clause or be used in an aggregate function";
        assert_eq!(missing_from_group_by(p).as_deref(), Some("books.title"));
        let a = attempt("SELECT books.title, count(*) FROM books GROUP BY books.book_id", &[], &[p], true);
        assert_eq!(fixes(&a, "q"), [("group_by", "SELECT books.title, count(*) FROM books GROUP BY books.book_id, books.title".to_string())]);
    }

    #[test]
    fn a_fanned_out_count_counts_distinct_keys() {
        let sql = "SELECT count(*) FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id";
        let a = attempt(sql, &["check:fan_out"], &["x"], false);
        assert_eq!(
            fixes(&a, "How many customers have orders?"),
            [("fan_out", "SELECT count(DISTINCT c.customer_id) FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id".to_string())]
        );
    }

    #[test]
    fn distinct_ordered_by_another_column_becomes_a_grouping() {
        let sql = "SELECT DISTINCT a.name FROM authors AS a JOIN books AS b ON b.author_id = a.author_id ORDER BY b.price DESC LIMIT 3";
        let problem = "PostgreSQL cannot plan it: for SELECT DISTINCT, ORDER BY expressions must appear in select list";
        let a = attempt(sql, &[], &[problem], true);
        assert_eq!(
            fixes(&a, "Which 3 authors wrote the dearest books?"),
            [("distinct_order", "SELECT a.name FROM authors AS a JOIN books AS b ON b.author_id = a.author_id GROUP BY a.name ORDER BY max(b.price) DESC LIMIT 3".to_string())]
        );
        let a = attempt(&sql.replace("DESC", "ASC"), &[], &[problem], true);
        assert!(fixes(&a, "q")[0].1.contains("ORDER BY min(b.price) ASC"));
        // ordered by what it selects: nothing to do
        assert!(fixes(&attempt("SELECT DISTINCT name FROM authors ORDER BY name", &[], &[problem], true), "q").is_empty());
    }

    #[test]
    fn unasked_columns_are_dropped() {
        let a = attempt("SELECT title, price AS p FROM books ORDER BY p DESC LIMIT 1", &["check:columns"], &["x"], false);
        assert_eq!(fixes(&a, "Which book is the most expensive?"), [("columns", "SELECT title FROM books ORDER BY price DESC LIMIT 1".to_string())]);
        let a = attempt("SELECT author_id, name FROM authors", &["check:columns"], &["x"], false);
        assert_eq!(fixes(&a, "List the names of authors"), [("columns", "SELECT name FROM authors".to_string())]);
    }

    #[test]
    fn a_reversed_direction_is_flipped() {
        let a = attempt("SELECT name FROM authors ORDER BY author_id ASC LIMIT 1", &["check:direction"], &["x"], false);
        assert_eq!(fixes(&a, "q")[0].1, "SELECT name FROM authors ORDER BY author_id DESC LIMIT 1");
        let a = attempt("SELECT name FROM authors ORDER BY author_id DESC NULLS LAST, name LIMIT 1", &["check:direction"], &["x"], false);
        assert_eq!(fixes(&a, "q")[0].1, "SELECT name FROM authors ORDER BY author_id ASC, name LIMIT 1");
        let a = attempt("SELECT max(price) FROM books", &["check:direction"], &["x"], false);
        assert_eq!(fixes(&a, "q")[0].1, "SELECT MIN(price) FROM books");
    }

    #[test]
    fn a_fix_is_kept_only_if_it_runs_with_fewer_problems() {
        let failing = attempt("a", &[], &["p1"], true);
        assert!(accept(&failing, &attempt("b", &[], &[], false)));
        // it runs now: what the checks find of it is for the next round
        assert!(accept(&failing, &attempt("b", &["check:needless_join"], &["p2"], false)));
        assert!(!accept(&attempt("a", &[], &["p1"], false), &attempt("b", &[], &["p2"], false)), "as many problems");
        assert!(!accept(&attempt("a", &["x"], &["p1", "p2"], false), &attempt("b", &[], &[], true)), "fails");
        // one of two findings fixed: the directive is the other one's, the violations fewer
        let two = attempt("a", &["check:columns", "check:null_order"], &["p1"], false);
        assert!(accept(&two, &attempt("b", &["check:null_order"], &["p2"], false)));
        assert!(!accept(&two, &attempt("b", &["check:null_order", "top_k"], &["p2"], false)), "a new violation");
    }
}
