//! Repair by rewrite: problems whose fix is mechanical are fixed on the syntax tree, without the
//! model. Each fix is proposed only when its problem was found; the pipeline keeps a fixed query
//! only if it plans, runs and has fewer problems ([`accept`]), and records it as a `fix` step. A
//! fix of a query that fails to plan which fails on a new problem is a step of a chain, whose own
//! fixes are tried (`ask::verify::fix_mechanically`).
//!
//! | fix | problem | rewrite |
//! |---|---|---|
//! | `alias` | a column qualified with an alias whose table lacks it (`T1.order_id`, `order_id` in `T2`'s table) | the alias of the one table in scope that has it; only the outer block's own columns (a subquery is a scope of its own, left as written), and only when exactly one table in its FROM clause has the column; when the query then ranks by an aggregate without a GROUP BY, grouped as `group_by` does, in the same fix. A run whose answer needed it and then reads nothing from a joined table ends `unverified`: the model misread the schema |
//! | `join_in` | (also) a qualified column whose own table's keys lead to no table that has it, or whose qualifier the FROM clause does not define | read through the key of another table the query reads, when exactly one places it (to the table the qualifier names, when it names one) |
//! | `join_key` | a join condition `X.c = Y.d` where `X`'s table lacks `c` | `X.k`, where the one single-column foreign key between the two tables on `Y.d` links `X.k`; tried after `needless_join` |
//! | `numeric_text` | PostgreSQL: "operator does not exist: text > integer": a column stored as text compared with a number | the column cast to `NUMERIC`, when every table the query reads that has it stores it as text |
//! | `shared` | PostgreSQL: "column reference is ambiguous": an unqualified column two joined tables have | qualified with the first of them in the FROM clause, when the join conditions equate all of them on it; never over a RIGHT or FULL join |
//! | `limit` | a LIMIT the question does not ask for (`all_rows`), or one without ORDER BY | the outer LIMIT removed |
//! | `top_k` | "top k" asked, the query ranks (ORDER BY) but has no LIMIT | `LIMIT k` |
//! | `nulls_last` | `null_order`: a nullable column ranked DESC holds NULLs, which PostgreSQL sorts first | `NULLS LAST` on the DESC keys without a NULLS clause |
//! | `group_by` | PostgreSQL: a column "must appear in the GROUP BY clause" | the column added to the GROUP BY; in a query that ranks by an aggregate (`ORDER BY COUNT(*) DESC LIMIT 1`) and has no GROUP BY, a grouping by what it selects (and any column it also ranks by) |
//! | `distinct_order` | PostgreSQL: "for SELECT DISTINCT, ORDER BY expressions must appear in select list" | a grouping by the selected expressions, each other ORDER BY key under `max` (DESC) or `min` (ASC) |
//! | `needless_join` | a table joined in that the answer takes nothing from and the question does not name, whose join changes the rows (`check:needless_join`), or is on columns that cannot join (`check:join`), or in a query that fails to plan | the join removed (leaf first, so a bridge to it goes too) |
//! | `filter_table` | a condition on a column of a joined table the question does not name, when the answer's own table has that column (`check:filter_table`) | the answer's table's column compared instead; the join, which then gives nothing, removed as `needless_join` removes it |
//! | `fan_out` | a count a one-to-many join inflates, shown by the data (`check:fan_out`) | `COUNT(DISTINCT <key>)` of the counted table |
//! | `columns` | a column the question does not ask for (`check:columns`: a ranking or HAVING key named only in the phrase that ranks, an identifier beside other columns of its table) | the column removed from the output (an ORDER BY that named it by its alias names the expression) |
//! | `literal` | a text literal the column holds only in another case or with other spaces (`check:literal`) | the literal replaced by the one stored value it matches (from the stored values the verification read as the caller; `Verified::literal_fix`); an equality with a text the column holds only within longer values (and no other column holds whole) as `ILIKE '%text%'` |
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
use crate::checks;
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
    // join that does not connect its two sides; nor an aggregate that computes nothing (a key
    // summed, a count over groups of one row: grouping one table by its primary key)
    let aggregates_before = checks::degenerate::check(q, catalog);
    let mut push = |name: &'static str, fixed: Option<(Query, String)>| {
        if let Some((query, what)) = fixed {
            let computes_nothing = checks::degenerate::check(&query, catalog).into_iter().any(|f| !aggregates_before.contains(&f));
            if crate::sql::degenerate::introduced(q, &query).is_empty() && !computes_nothing {
                out.push(Fix { name, sql: query.to_string(), what });
            }
        }
    };
    if current.fails {
        // a requalified query that ranks groups it does not form fails next on its GROUP BY:
        // both rewrites go together, since neither alone makes it run
        push(
            "alias",
            each_block(q, |b| {
                requalify(b, catalog).map(|(moved, what)| match group_ranked(&moved) {
                    Some((grouped, how)) => (grouped, format!("{what}; {how}")),
                    None => (moved, what),
                })
            }),
        );
        push("join_in", each_block(q, |b| join_in(b, catalog)));
        if current.problems.iter().any(|p| p.contains("operator does not exist:") && (p.contains("text") || p.contains("character varying"))) {
            push("numeric_text", numeric_text(q, catalog));
        }
        if current.problems.iter().any(|p| p.contains("is ambiguous")) {
            push("shared", qualify_shared(q, catalog));
        }
        if let Some(column) = current.problems.iter().find_map(|p| missing_from_group_by(p)) {
            push("group_by", add_to_group_by(q, &column).or_else(|| group_ranked(q)));
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
    // the join, `ON T1.uid = T2.airline` where T2 has no such column); so when the join is on
    // columns that cannot join (`check:join`: not the key, or the ids of two different things),
    // where its rows are chance and the answer may equal the one without it only by chance
    if current.fails || violated("check:needless_join") || violated("check:join") {
        push(
            "needless_join",
            crate::checks::needless_join::needless(q, catalog, question).map(|n| {
                let what = format!("the join of {} removed: the answer takes nothing from it, and it dropped or repeated rows", n.tables.join(", "));
                (n.without, what)
            }),
        );
    }
    // a condition read from a joined table the question does not name: read from the answer's
    // own table instead, and the join, which then gives nothing, removed in the same fix
    if violated("check:filter_table") {
        push(
            "filter_table",
            crate::checks::filter_table::requalified(q, catalog, question).map(|(moved, found)| {
                let what = found.iter().map(|m| format!("{}.{c} read instead of {}.{c}", m.own.1.name, m.read.1.name, c = m.column)).collect::<Vec<_>>().join("; ");
                match crate::checks::needless_join::needless(&moved, catalog, question) {
                    Some(n) => (n.without, format!("{what}; the join of {} removed: the answer takes nothing from it", n.tables.join(", "))),
                    None => (moved, what),
                }
            }),
        );
    }
    // after the join's removal: a join the answer reads nothing from goes before its key is mended
    if current.fails {
        push("join_key", join_key(q, catalog));
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

/// A fix of one query block, applied to each block of a set operation too (`… EXCEPT …`,
/// `… INTERSECT …`: each block is its own scope, and the model often repeats one wrong name in
/// every block): the blocks it fixes are replaced, the others stay. Only blocks that are plain
/// SELECTs; the set operation's own ORDER BY and LIMIT stay as they are.
fn each_block(query: &Query, fix: impl Fn(&Query) -> Option<(Query, String)>) -> Option<(Query, String)> {
    fn blocks<'q>(e: &'q mut SetExpr, out: &mut Vec<&'q mut Box<sqlparser::ast::Select>>) -> bool {
        match e {
            SetExpr::Select(s) => {
                out.push(s);
                true
            }
            SetExpr::SetOperation { left, right, .. } => blocks(left, out) && blocks(right, out),
            _ => false,
        }
    }
    if matches!(query.body.as_ref(), SetExpr::Select(_)) {
        return fix(query);
    }
    let mut fixed = query.clone();
    let mut whats: Vec<String> = Vec::new();
    let mut found = Vec::new();
    if !blocks(fixed.body.as_mut(), &mut found) {
        return None;
    }
    for select in found {
        let mut alone = query.clone();
        *alone.body = SetExpr::Select(select.clone());
        alone.order_by = None;
        alone.limit_clause = None;
        alone.fetch = None;
        if let Some((block, what)) = fix(&alone) {
            let SetExpr::Select(s) = *block.body else { return None };
            **select = *s;
            if !whats.contains(&what) {
                whats.push(what);
            }
        }
    }
    (!whats.is_empty()).then(|| (fixed, whats.join("; ")))
}

/// The tables of one query block's FROM clause by the name a column qualifier uses (the alias, or
/// the table's own name), lower-cased, with that name as written.
fn scope<'a>(from: &[TableWithJoins], catalog: &'a Catalog) -> Option<BTreeMap<String, (Ident, &'a Table)>> {
    Some(scope_in_order(from, catalog)?.into_iter().collect())
}

/// [`scope`], in the order of the FROM clause.
fn scope_in_order<'a>(from: &[TableWithJoins], catalog: &'a Catalog) -> Option<Vec<(String, (Ident, &'a Table))>> {
    let mut tables = Vec::new();
    for f in from {
        for factor in std::iter::once(&f.relation).chain(f.joins.iter().map(|j| &j.relation)) {
            let TableFactor::Table { name, alias, .. } = factor else { return None };
            let table = catalog.resolve_object(name)?;
            let written = alias.as_ref().map_or_else(|| Ident::new(&table.name.name), |a| a.name.clone());
            tables.push((written.value.to_lowercase(), (written, table)));
        }
    }
    Some(tables)
}

fn has_column(t: &Table, column: &str) -> bool {
    t.columns.iter().any(|c| c.name.eq_ignore_ascii_case(column))
}

/// The names a query block gives its outputs (`AS n`), lower-cased: an ORDER BY that names one
/// names no column.
fn output_aliases(select: &sqlparser::ast::Select) -> Vec<String> {
    use sqlparser::ast::SelectItem;
    select
        .projection
        .iter()
        .filter_map(|i| match i {
            SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.to_lowercase()),
            _ => None,
        })
        .collect()
}


/// Requalify `q.c` where `q`'s table lacks `c` and exactly one table in scope has it, unless that
/// makes a comparison of the column with itself or a join that no longer connects its two sides
/// (`ON T1.makeid = T2.makeid` with `makeid` only in `T2`'s table stays as it is: which column of
/// `T1` was meant is not for a rewrite to guess). Only the outer block's own columns: a subquery is
/// a scope of its own (it may name other tables by the same aliases), left as written, and a
/// column only a subquery's table has is not the outer block's to take (`T2.song_name … WHERE
/// T1.age > (SELECT AVG(age) FROM singer)` moves to `T1`; the average stays as it is).
fn requalify(query: &Query, catalog: &Catalog) -> Option<(Query, String)> {
    let SetExpr::Select(select) = query.body.as_ref() else { return None };
    let tables = scope(&select.from, catalog)?;
    // each wrong qualifier, and the one table in scope that has the column
    let mut moves: BTreeMap<(String, String), Ident> = BTreeMap::new();
    let _ = query.visit(&mut OuterExprReader { f: |e: &Expr| {
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
    }, depth: 0 });
    let apply = |moves: &BTreeMap<(String, String), Ident>| {
        let mut fixed = query.clone();
        let _ = VisitMut::visit(&mut fixed, &mut OuterExprRewriter { f: |e: &mut Expr| {
            let Expr::CompoundIdentifier(parts) = e else { return };
            if let [qualifier, column] = parts.as_mut_slice() {
                if let Some(owner) = moves.get(&(qualifier.value.to_lowercase(), column.value.to_lowercase())) {
                    *qualifier = owner.clone();
                }
            }
        }, depth: 0 });
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

// --- shared ----------------------------------------------------------------------------------------

/// An unqualified column two or more joined tables have (`COUNT(singer_id)` over `singer_in_concert
/// JOIN singer ON singer_in_concert.singer_id = singer.singer_id`: PostgreSQL's "column reference
/// is ambiguous"), where the join conditions equate every one of them on that column: qualified
/// with the first of them in the FROM clause, whose value the others equal (and which a LEFT JOIN
/// keeps). Only in a query with one scope and without RIGHT or FULL joins; a column the joins do
/// not equate (two tables' `name`) is not for a rewrite to choose.
fn qualify_shared(query: &Query, catalog: &Catalog) -> Option<(Query, String)> {
    use sqlparser::ast::{BinaryOperator, JoinOperator};
    let SetExpr::Select(select) = query.body.as_ref() else { return None };
    if !crate::sql::one_block(query) {
        return None;
    }
    let in_order = scope_in_order(&select.from, catalog)?;
    // the FROM clause's tables in order, by the name a qualifier uses
    let order: Vec<String> = in_order.iter().map(|(k, _)| k.clone()).collect();
    let tables: BTreeMap<String, (Ident, &Table)> = in_order.into_iter().collect();
    // (column, qualifier, qualifier) of each equality of two columns of one name in a join condition
    let mut equal: Vec<(String, String, String)> = Vec::new();
    for op in select.from.iter().flat_map(|f| &f.joins).map(|j| &j.join_operator) {
        if matches!(op, JoinOperator::Right(_) | JoinOperator::RightOuter(_) | JoinOperator::FullOuter(_)) {
            return None;
        }
        let Some(on) = crate::checks::join_condition(op) else { continue };
        let _ = on.visit(&mut ExprReader(|e: &Expr| {
            let Expr::BinaryOp { left, op: BinaryOperator::Eq, right } = e else { return };
            if let (Expr::CompoundIdentifier(a), Expr::CompoundIdentifier(b)) = (left.as_ref(), right.as_ref()) {
                if let ([qa, ca], [qb, cb]) = (a.as_slice(), b.as_slice()) {
                    if ca.value.eq_ignore_ascii_case(&cb.value) {
                        equal.push((ca.value.to_lowercase(), qa.value.to_lowercase(), qb.value.to_lowercase()));
                    }
                }
            }
        }));
    }
    let outputs = output_aliases(select);
    // each shared column the joins equate, and the table that answers for it
    let mut chosen: BTreeMap<String, Ident> = BTreeMap::new();
    let mut unjoined = false;
    let _ = query.visit(&mut ExprReader(|e: &Expr| {
        let Expr::Identifier(c) = e else { return };
        let column = c.value.to_lowercase();
        if outputs.contains(&column) || chosen.contains_key(&column) {
            return;
        }
        let owners: Vec<&String> = order.iter().filter(|o| tables.get(*o).is_some_and(|(_, t)| has_column(t, &column))).collect();
        if owners.len() < 2 {
            return;
        }
        // the owners connected by equalities on this column, from the first
        let reached: Vec<String> = pathfinding::directed::bfs::bfs_reach(owners[0].clone(), |at: &String| {
            equal
                .iter()
                .filter(|(col, _, _)| *col == column)
                .filter_map(|(_, a, b)| if a == at { Some(b.clone()) } else if b == at { Some(a.clone()) } else { None })
                .collect::<Vec<_>>()
        })
        .collect();
        if owners.iter().all(|o| reached.contains(*o)) {
            chosen.insert(column, tables[owners[0]].0.clone());
        } else {
            unjoined = true;
        }
    }));
    if chosen.is_empty() || unjoined {
        return None;
    }
    let mut fixed = query.clone();
    let _ = VisitMut::visit(&mut fixed, &mut ExprRewriter(|e: &mut Expr| {
        if let Expr::Identifier(c) = &*e {
            if let Some(owner) = chosen.get(&c.value.to_lowercase()) {
                *e = Expr::CompoundIdentifier(vec![owner.clone(), c.clone()]);
            }
        }
    }));
    let what: Vec<String> = chosen.iter().map(|(c, owner)| format!("{c} → {owner}.{c}")).collect();
    Some((fixed, format!("a column two joined tables share, which the join makes equal, read from the first of them: {}", what.join(", "))))
}

// --- numeric_text ----------------------------------------------------------------------------------

/// PostgreSQL: "operator does not exist: text > integer": a column stored as text compared with a
/// number (`age > 50` where `host.age` is text): the column cast to `numeric` (`CAST(age AS
/// NUMERIC) > 50`), compared as the number it holds. Only a column that every table the query
/// reads and that has it stores as text; a stored value that is no number makes the fixed query
/// fail, and then it is not kept.
fn numeric_text(query: &Query, catalog: &Catalog) -> Option<(Query, String)> {
    use sqlparser::ast::{BinaryOperator, Value};
    let tables: Vec<&Table> = crate::select::rewrite::base_relations(query).iter().filter_map(|n| catalog.resolve_object(n)).collect();
    let text_only = |e: &Expr| -> Option<String> {
        let name = match e {
            Expr::Identifier(c) => c,
            Expr::CompoundIdentifier(parts) => parts.last()?,
            _ => return None,
        };
        let owners: Vec<&crate::catalog::Column> = tables.iter().filter_map(|t| t.columns.iter().find(|c| c.name.eq_ignore_ascii_case(&name.value))).collect();
        (!owners.is_empty() && owners.iter().all(|c| crate::checks::literals::is_text(&c.type_name))).then(|| e.to_string())
    };
    let number = |e: &Expr| match e {
        Expr::Value(v) => matches!(v.value, Value::Number(..)),
        Expr::UnaryOp { expr, .. } => matches!(expr.as_ref(), Expr::Value(v) if matches!(v.value, Value::Number(..))),
        _ => false,
    };
    let as_number = |column: &str| -> Option<Expr> {
        sqlparser::parser::Parser::new(&sqlparser::dialect::PostgreSqlDialect {}).try_with_sql(&format!("CAST({column} AS NUMERIC)")).ok()?.parse_expr().ok()
    };
    let mut cast: Vec<String> = Vec::new();
    let mut fixed = query.clone();
    let _ = VisitMut::visit(&mut fixed, &mut ExprRewriter(|e: &mut Expr| {
        let Expr::BinaryOp { left, op, right } = e else { return };
        if !matches!(op, BinaryOperator::Gt | BinaryOperator::Lt | BinaryOperator::GtEq | BinaryOperator::LtEq | BinaryOperator::Eq | BinaryOperator::NotEq) {
            return;
        }
        let (left_number, right_number) = (number(left), number(right));
        for (side, other_is_number) in [(&mut **left, right_number), (&mut **right, left_number)] {
            if !other_is_number {
                continue;
            }
            if let Some(column) = text_only(side) {
                if let Some(numeric) = as_number(&column) {
                    *side = numeric;
                    cast.push(column);
                }
            }
        }
    }));
    if cast.is_empty() {
        return None;
    }
    cast.dedup();
    Some((fixed, format!("a column stored as text compared with a number, read as the number it holds: {}", cast.join(", "))))
}

// --- join_key --------------------------------------------------------------------------------------

/// A join condition `X.c = Y.d` where `X`'s table has no column `c` and exactly one single-column
/// foreign key links `Y.d` with `X`'s table (`Y.d` references `X.k`, or `X.k` references `Y.d`):
/// `X.c` becomes `X.k`, the join on that key (`employee AS T1 JOIN customer AS T2 ON
/// T1.supportrepid = T2.supportrepid`, where `customer.supportrepid REFERENCES employee
/// (employeeid)`: `T1.employeeid`). Only in a query with one scope, and only in the condition of a
/// join; `X.c` anywhere else in the query is the alias fix's or the join fix's.
fn join_key(query: &Query, catalog: &Catalog) -> Option<(Query, String)> {
    use sqlparser::ast::BinaryOperator;
    let SetExpr::Select(select) = query.body.as_ref() else { return None };
    if !crate::sql::one_block(query) {
        return None;
    }
    let tables = scope(&select.from, catalog)?;
    let column_of = |e: &Expr| -> Option<(String, String)> {
        let Expr::CompoundIdentifier(parts) = e else { return None };
        let [q, c] = parts.as_slice() else { return None };
        tables.contains_key(&q.value.to_lowercase()).then(|| (q.value.to_lowercase(), c.value.clone()))
    };
    // (qualifier, missing column) → the key column of that table
    let mut moves: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut unsure = false;
    for j in select.from.iter().flat_map(|f| &f.joins) {
        let Some(on) = crate::checks::join_condition(&j.join_operator) else { continue };
        let _ = on.visit(&mut ExprReader(|e: &Expr| {
            let Expr::BinaryOp { left, op: BinaryOperator::Eq, right } = e else { return };
            let (Some(a), Some(b)) = (column_of(left), column_of(right)) else { return };
            for ((xq, xc), (yq, yd)) in [(&a, &b), (&b, &a)] {
                let (x, y) = (tables[xq].1, tables[yq].1);
                if xq == yq || has_column(x, xc) || !has_column(y, yd) {
                    continue;
                }
                let keys: Vec<&String> = catalog
                    .foreign_keys
                    .iter()
                    .filter(|fk| fk.from_columns.len() == 1)
                    .filter_map(|fk| {
                        if fk.from == y.name && fk.to == x.name && fk.from_columns[0].eq_ignore_ascii_case(yd) {
                            Some(&fk.to_columns[0])
                        } else if fk.from == x.name && fk.to == y.name && fk.to_columns[0].eq_ignore_ascii_case(yd) {
                            Some(&fk.from_columns[0])
                        } else {
                            None
                        }
                    })
                    .collect();
                match keys.as_slice() {
                    [k] => {
                        moves.insert((xq.clone(), xc.to_lowercase()), (*k).clone());
                    }
                    _ => unsure = true,
                }
            }
        }));
    }
    if moves.is_empty() || unsure {
        return None;
    }
    let mut fixed = query.clone();
    let SetExpr::Select(fixed_select) = fixed.body.as_mut() else { return None };
    for j in fixed_select.from.iter_mut().flat_map(|f| f.joins.iter_mut()) {
        let Some(on) = crate::checks::join_condition_mut(&mut j.join_operator) else { continue };
        let _ = VisitMut::visit(on, &mut ExprRewriter(|e: &mut Expr| {
            let Expr::CompoundIdentifier(parts) = e else { return };
            if let [q, c] = parts.as_mut_slice() {
                if let Some(k) = moves.get(&(q.value.to_lowercase(), c.value.to_lowercase())) {
                    *c = crate::sql::names::ident(k);
                }
            }
        }));
    }
    let what: Vec<String> = moves.iter().map(|((q, c), k)| format!("{q}.{c} → {q}.{k}")).collect();
    Some((fixed, format!("a join on a column its table lacks, joined on the foreign key between the two tables instead: {}", what.join(", "))))
}

// --- join_in ---------------------------------------------------------------------------------------

/// A column no table of the query has, which exactly one table it does not read has, one foreign
/// key away from the table the column was asked of (`documents.template_type_code`, where
/// `documents.template_id REFERENCES templates` and `templates` has it): that table joined on that
/// key, the column read from it, every other unqualified column qualified with its table (the new
/// table may share its name). Only keys from the query's table to the other (each row meets at
/// most one row there, so the join repeats none), only where one key joins the two, only in a
/// query with one scope and no `*`; a column that no such table places leaves the query as it is.
fn join_in(query: &Query, catalog: &Catalog) -> Option<(Query, String)> {
    use sqlparser::ast::SelectItem;
    let SetExpr::Select(select) = query.body.as_ref() else { return None };
    if !crate::sql::one_block(query) || select.projection.iter().any(|i| matches!(i, SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..))) {
        return None;
    }
    let tables = scope(&select.from, catalog)?;
    let read: Vec<&crate::catalog::RelName> = tables.values().map(|(_, t)| &t.name).collect();
    let outputs = output_aliases(select);
    let in_scope = |column: &str| tables.values().any(|(_, t)| has_column(t, column));
    // the table a missing column is read from: (anchor's scope key, key, table)
    let place = |anchors: Vec<&String>, column: &str| -> Option<(String, &crate::catalog::ForeignKey)> {
        let mut found = Vec::new();
        for anchor in anchors {
            let (_, from) = &tables[anchor];
            for fk in catalog.foreign_keys.iter().filter(|fk| fk.from == from.name && !read.contains(&&fk.to)) {
                let single = catalog.foreign_keys.iter().filter(|k| k.from == fk.from && k.to == fk.to).count() == 1;
                if single && catalog.table(&fk.to).is_some_and(|t| has_column(t, column)) {
                    found.push((anchor.clone(), fk));
                }
            }
        }
        (found.len() == 1).then(|| found.remove(0))
    };
    // (qualifier, column), lower-cased → where it is read from
    let mut needs: BTreeMap<(Option<String>, String), (String, &crate::catalog::ForeignKey)> = BTreeMap::new();
    let mut unplaced = false;
    let _ = query.visit(&mut ExprReader(|e: &Expr| {
        let (qualifier, column) = match e {
            Expr::Identifier(c) if !outputs.contains(&c.value.to_lowercase()) => (None, c.value.to_lowercase()),
            Expr::CompoundIdentifier(parts) => match parts.as_slice() {
                [q, c] => (Some(q.value.to_lowercase()), c.value.to_lowercase()),
                _ => return,
            },
            _ => return,
        };
        if in_scope(&column) || needs.contains_key(&(qualifier.clone(), column.clone())) {
            return;
        }
        // a qualified column is read through its own table's keys, else (`T1.course` where
        // `T1` is the teacher and `T2`, the bridge, has the key to the courses) through any
        // table's, when exactly one places it; a qualifier the FROM clause does not define
        // (PostgreSQL: "missing FROM-clause entry"), through any table's, and when it names a
        // table, only to that table
        let placed = match qualifier.as_deref().map(|q| (q, tables.get_key_value(q))) {
            Some((_, Some((own, _)))) => place(vec![own], &column).or_else(|| place(tables.keys().collect(), &column)),
            Some((q, None)) => place(tables.keys().collect(), &column).filter(|(_, fk)| catalog.resolve(None, q).is_none_or(|t| t.name == fk.to)),
            None => place(tables.keys().collect(), &column),
        };
        match placed {
            Some(p) => {
                needs.insert((qualifier, column), p);
            }
            None => unplaced = true,
        }
    }));
    if needs.is_empty() || unplaced {
        return None;
    }
    // one join per key, under a name no table of the query uses
    let mut joins: BTreeMap<(String, String), (Ident, &crate::catalog::ForeignKey)> = BTreeMap::new();
    let mut taken: Vec<String> = tables.keys().cloned().collect();
    for (anchor, fk) in needs.values() {
        if joins.contains_key(&(anchor.clone(), fk.name.clone())) {
            continue;
        }
        let base = fk.to.name.to_lowercase();
        let name = std::iter::once(base.clone()).chain((1..).map(|n| format!("{base}_{n}"))).find(|n| !taken.contains(n))?;
        taken.push(name.clone());
        joins.insert((anchor.clone(), fk.name.clone()), (crate::sql::names::ident(&name), *fk));
    }
    let mut fixed = query.clone();
    let SetExpr::Select(select) = fixed.body.as_mut() else { return None };
    for ((anchor, _), (alias, fk)) in &joins {
        let target = catalog.table(&fk.to)?;
        let relation = if catalog.reachable_unqualified(&target.name) { crate::catalog::quote_ident(&target.name.name) } else { target.name.to_string() };
        let (written, _) = &tables[anchor];
        let on: Vec<String> = fk
            .from_columns
            .iter()
            .zip(&fk.to_columns)
            .map(|(f, t)| format!("{written}.{} = {alias}.{}", crate::catalog::quote_ident(f), crate::catalog::quote_ident(t)))
            .collect();
        // `JOIN authors`, not `JOIN authors AS authors`
        let named = if relation == alias.to_string() { relation } else { format!("{relation} AS {alias}") };
        let snippet = check_query(&format!("SELECT 1 FROM x JOIN {named} ON {}", on.join(" AND "))).ok()?;
        let SetExpr::Select(parsed) = snippet.query.body.as_ref() else { return None };
        let join = parsed.from.first()?.joins.first()?.clone();
        // after the FROM item that holds the anchor
        let holder = select.from.iter().position(|f| scope(std::slice::from_ref(f), catalog).is_some_and(|t| t.contains_key(anchor)))?;
        select.from[holder].joins.push(join);
    }
    let owner_of = |column: &str| -> Option<Ident> {
        let owners: Vec<&Ident> = tables.values().filter(|(_, t)| has_column(t, column)).map(|(w, _)| w).collect();
        (owners.len() == 1).then(|| owners[0].clone())
    };
    let _ = VisitMut::visit(&mut fixed, &mut ExprRewriter(|e: &mut Expr| {
        let (qualifier, column) = match &*e {
            Expr::Identifier(c) if !outputs.contains(&c.value.to_lowercase()) => (None, c.clone()),
            Expr::CompoundIdentifier(parts) if parts.len() == 2 => (Some(parts[0].value.to_lowercase()), parts[1].clone()),
            _ => return,
        };
        if let Some((anchor, fk)) = needs.get(&(qualifier.clone(), column.value.to_lowercase())) {
            *e = Expr::CompoundIdentifier(vec![joins[&(anchor.clone(), fk.name.clone())].0.clone(), column]);
        } else if qualifier.is_none() {
            if let Some(owner) = owner_of(&column.value) {
                *e = Expr::CompoundIdentifier(vec![owner, column]);
            }
        }
    }));
    let read_from: Vec<String> = needs
        .iter()
        .map(|((_, c), (anchor, fk))| format!("{c} from {} (joined on {}.{} → {})", fk.to.name, tables[anchor].0, fk.from_columns.join(", "), fk.to.name))
        .collect();
    Some((fixed, format!("a column the query's tables lack, read from the one table a key of theirs leads to that has it: {}", read_from.join("; "))))
}

struct ExprReader<F>(F);

impl<F: FnMut(&Expr)> Visitor for ExprReader<F> {
    type Break = ();
    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        (self.0)(e);
        ControlFlow::Continue(())
    }
}

/// [`ExprReader`] over the expressions of the outer query block only: a subquery's are its own.
struct OuterExprReader<F> {
    f: F,
    depth: usize,
}

impl<F: FnMut(&Expr)> Visitor for OuterExprReader<F> {
    type Break = ();
    fn pre_visit_query(&mut self, _q: &Query) -> ControlFlow<()> {
        self.depth += 1;
        ControlFlow::Continue(())
    }
    fn post_visit_query(&mut self, _q: &Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }
    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if self.depth == 1 {
            (self.f)(e);
        }
        ControlFlow::Continue(())
    }
}

/// [`ExprRewriter`] over the expressions of the outer query block only.
struct OuterExprRewriter<F> {
    f: F,
    depth: usize,
}

impl<F: FnMut(&mut Expr)> sqlparser::ast::VisitorMut for OuterExprRewriter<F> {
    type Break = ();
    fn pre_visit_query(&mut self, _q: &mut Query) -> ControlFlow<()> {
        self.depth += 1;
        ControlFlow::Continue(())
    }
    fn post_visit_query(&mut self, _q: &mut Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }
    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if self.depth == 1 {
            (self.f)(e);
        }
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

/// A block that ranks by an aggregate (`ORDER BY COUNT(*) DESC LIMIT 1`) without a GROUP BY, beside
/// columns it does not aggregate, which PostgreSQL refuses: an aggregate ranks groups, so the
/// groups are the rows of what it selects (`SELECT a.name … GROUP BY a.name ORDER BY COUNT(*)
/// DESC`), with any other column it ranks by. Nothing when the block groups already, aggregates
/// every output column, selects `*`, or ranks by no aggregate. Such a block never plans, so the
/// grouping changes no answer that ran.
fn group_ranked(query: &Query) -> Option<(Query, String)> {
    use crate::checks::calls_aggregate;
    use sqlparser::ast::{OrderByKind, SelectItem};
    let mut fixed = query.clone();
    let Some(OrderByKind::Expressions(order)) = query.order_by.as_ref().map(|o| &o.kind) else { return None };
    let SetExpr::Select(select) = fixed.body.as_mut() else { return None };
    // an ORDER BY key may name an aggregated output column by its alias
    let aggregated: Vec<String> = select
        .projection
        .iter()
        .filter_map(|i| match i {
            SelectItem::ExprWithAlias { expr, alias } if calls_aggregate(expr) => Some(alias.value.to_lowercase()),
            _ => None,
        })
        .collect();
    let ranks_aggregate = |e: &Expr| calls_aggregate(e) || matches!(e, Expr::Identifier(i) if aggregated.contains(&i.value.to_lowercase()));
    if !order.iter().any(|o| ranks_aggregate(&o.expr)) {
        return None;
    }
    if select.distinct.is_some() || !matches!(&select.group_by, GroupByExpr::Expressions(k, _) if k.is_empty()) {
        return None;
    }
    let mut keys: Vec<Expr> = Vec::new();
    for item in &select.projection {
        let expr = match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
            _ => return None,
        };
        if !calls_aggregate(expr) && !matches!(expr, Expr::Value(_)) && !keys.contains(expr) {
            keys.push(expr.clone());
        }
    }
    if keys.is_empty() {
        return None;
    }
    for o in order {
        if matches!(o.expr, Expr::Identifier(_) | Expr::CompoundIdentifier(_)) && !ranks_aggregate(&o.expr) && !keys.contains(&o.expr) {
            keys.push(o.expr.clone());
        }
    }
    let named: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    select.group_by = GroupByExpr::Expressions(keys, vec![]);
    Some((fixed, format!("grouped by {}: the query ranks by an aggregate, which ranks groups, and selects them", named.join(", "))))
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
    fn a_condition_read_from_a_table_the_question_does_not_name_reads_the_answers_own_column() {
        let catalog = crate::checks::filter_table::tests::catalog();
        let sql = "SELECT T1.birthdate FROM employee AS T1 JOIN customer AS T2 ON T1.employeeid = T2.supportrepid WHERE T2.city = 'Edmonton'";
        let fixed = |question: &str| -> Vec<(&'static str, String)> {
            propose(&attempt(sql, &["check:filter_table"], &["x"], false), &catalog, question, &[]).into_iter().map(|f| (f.name, f.sql)).collect()
        };
        // the join then gives nothing and is removed
        assert_eq!(
            fixed("Find the birth dates of employees in the city of Edmonton."),
            vec![("filter_table", "SELECT T1.birthdate FROM employee AS T1 WHERE t1.city = 'Edmonton'".to_string())]
        );
        // under a clause that may ask for it ("employees who …"), the join stays
        assert_eq!(
            fixed("Find the birth dates of employees who live in the city of Edmonton."),
            vec![("filter_table", "SELECT T1.birthdate FROM employee AS T1 JOIN customer AS T2 ON T1.employeeid = T2.supportrepid WHERE t1.city = 'Edmonton'".to_string())]
        );
        // not proposed without the finding
        assert!(propose(&attempt(sql, &[], &["x"], false), &catalog, "Find the birth dates of employees in the city of Edmonton.", &[]).is_empty());
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
        // the outer block's own columns beside a subquery move; the subquery, a scope of its own
        // that names another table by the same alias, stays as written
        let beside = attempt(
            "SELECT T2.name FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.author_id WHERE T2.price > (SELECT AVG(T2.price) FROM books AS T2 WHERE T2.name <> '')",
            &[],
            &["PostgreSQL cannot plan it: column t2.name does not exist"],
            true,
        );
        assert_eq!(
            fixes(&beside, "q").into_iter().filter(|(n, _)| *n == "alias").map(|(_, s)| s).collect::<Vec<_>>(),
            ["SELECT T1.name FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.author_id WHERE T2.price > (SELECT AVG(T2.price) FROM books AS T2 WHERE T2.name <> '')"]
        );
        // a query that runs is never requalified
        assert!(fixes(&attempt(sql, &[], &["x"], false), "q").is_empty());
    }

    #[test]
    fn each_block_of_a_set_operation_is_fixed_in_its_own_scope() {
        let missing = "PostgreSQL cannot plan it: column t2.name does not exist";
        let sql = "SELECT T2.name FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.author_id WHERE T2.price > 10 \
                   EXCEPT SELECT T2.name FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.author_id WHERE T2.price > 50 ORDER BY name";
        assert_eq!(
            fixes(&attempt(sql, &[], &[missing], true), "q").into_iter().filter(|(n, _)| *n == "alias").map(|(_, s)| s).collect::<Vec<_>>(),
            ["SELECT T1.name FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.author_id WHERE T2.price > 10 \
              EXCEPT SELECT T1.name FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.author_id WHERE T2.price > 50 ORDER BY name"]
        );
        // one block read from a table its key leads to, the other left as it is
        let sql = "SELECT title, country FROM books WHERE price > 10 UNION SELECT title, genre FROM books";
        let joined: Vec<String> = fixes(&attempt(sql, &[], &["x"], true), "q").into_iter().filter(|(n, _)| *n == "join_in").map(|(_, s)| s).collect();
        assert_eq!(
            joined,
            ["SELECT books.title, authors.country FROM books JOIN authors ON books.author_id = authors.author_id WHERE books.price > 10 UNION SELECT title, genre FROM books"]
        );
    }

    #[test]
    fn a_ranking_by_an_aggregate_without_groups_is_grouped_by_what_it_selects() {
        let group_error = "PostgreSQL cannot plan it: column \"t1.name\" must appear in the GROUP BY clause or be used in an aggregate function";
        let q = "Which author wrote the most books?";
        let sql = "SELECT T1.name FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.author_id ORDER BY COUNT(*) DESC LIMIT 1";
        assert_eq!(
            fixes(&attempt(sql, &[], &[group_error], true), q),
            [("group_by", "SELECT T1.name FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.author_id GROUP BY T1.name ORDER BY COUNT(*) DESC LIMIT 1".to_string())]
        );
        // ranked by an aggregate's alias, another column ranked too, a constant selected
        let sql = "SELECT T1.name, 1, COUNT(*) AS n FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.author_id ORDER BY n DESC, T1.country LIMIT 3";
        assert_eq!(
            fixes(&attempt(sql, &[], &[group_error], true), q),
            [("group_by", "SELECT T1.name, 1, COUNT(*) AS n FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.author_id GROUP BY T1.name, T1.country ORDER BY n DESC, T1.country LIMIT 3".to_string())]
        );
        // nothing to group by, `*`, a grouping already there (its own fix), no aggregate ranked,
        // DISTINCT: not this fix
        for sql in [
            "SELECT COUNT(*) FROM books ORDER BY COUNT(*) DESC LIMIT 1",
            "SELECT * FROM books ORDER BY COUNT(*) DESC LIMIT 1",
            "SELECT title, price FROM books GROUP BY title ORDER BY COUNT(*) DESC",
            "SELECT title, COUNT(*) FROM books ORDER BY title",
            "SELECT DISTINCT title FROM books ORDER BY COUNT(*) DESC",
        ] {
            assert!(group_ranked(&check_query(sql).unwrap().query).is_none(), "{sql}");
        }
        // a query that runs is never regrouped
        assert!(fixes(&attempt("SELECT T1.name FROM authors AS T1 ORDER BY T1.name", &[], &["x"], false), q).is_empty());
    }

    #[test]
    fn a_column_the_query_lacks_is_read_from_the_one_table_its_key_leads_to() {
        let missing = |c: &str| format!("PostgreSQL cannot plan it: column \"{c}\" does not exist");
        // unqualified, one table: the referenced table joined on the key, every column qualified
        let a = attempt("SELECT title, name FROM books WHERE country = 'Peru'", &[], &[&missing("name")], true);
        assert_eq!(
            fixes(&a, "Which books are by authors from Peru, and by whom?"),
            [("join_in", "SELECT books.title, authors.name FROM books JOIN authors ON books.author_id = authors.author_id WHERE authors.country = 'Peru'".to_string())]
        );
        // qualified with an alias whose table lacks it, in a query that joins another table
        let sql = "SELECT T1.ordered_on, T1.name FROM orders AS T1 JOIN customers AS T2 ON T1.customer_id = T2.customer_id WHERE T2.city = 'Lima'";
        // name is in customers, which is in scope: the alias fix's business, not this one
        assert!(fixes(&attempt(sql, &[], &[&missing("t1.name")], true), "q").iter().all(|(n, _)| *n != "join_in"));
        // the retail schema: mixed-case quoted names and a schema that is not on the path
        let retail = crate::testing::retail();
        let sql = "SELECT order_id, \"FullName\" FROM sales.orders WHERE status = 'open'";
        let a = attempt(sql, &[], &[&missing("FullName")], true);
        let proposed: Vec<_> = propose(&a, &retail, "q", &[]).into_iter().filter(|f| f.name == "join_in").map(|f| f.sql).collect();
        assert_eq!(proposed.len(), 1, "{proposed:?}");
        assert_eq!(
            proposed[0],
            "SELECT orders.order_id, customers.\"FullName\" FROM sales.orders JOIN sales.\"Customers\" AS customers ON orders.\"CustomerID\" = customers.\"CustomerID\" WHERE orders.status = 'open'"
        );
        assert!(check_query(&proposed[0]).is_ok());
    }

    #[test]
    fn a_qualified_column_its_table_cannot_reach_is_read_through_the_key_of_another_table_in_scope() {
        // the retail schema: `o.name` where orders lead to customers and coupons, neither with a
        // `name`, and the order lines lead to the products, which have one
        let retail = crate::testing::retail();
        let sql = "SELECT o.status, o.name FROM sales.orders AS o JOIN sales.order_lines AS l ON o.order_id = l.order_id";
        let a = attempt(sql, &[], &["PostgreSQL cannot plan it: column o.name does not exist"], true);
        let proposed: Vec<_> = propose(&a, &retail, "q", &[]).into_iter().filter(|f| f.name == "join_in").map(|f| f.sql).collect();
        assert_eq!(
            proposed,
            ["SELECT o.status, products.name FROM sales.orders AS o JOIN sales.order_lines AS l ON o.order_id = l.order_id JOIN catalog.products AS products ON l.product_id = products.product_id"]
        );
        // its own table's key comes first: `T2.name` of the orders is the customer's
        let bookshop = bookshop();
        let own = attempt("SELECT T1.title, T2.name FROM books AS T1 JOIN orders AS T2 ON T1.book_id = T2.order_id", &[], &["x"], true);
        let proposed: Vec<_> = propose(&own, &bookshop, "q", &[]).into_iter().filter(|f| f.name == "join_in").map(|f| f.sql).collect();
        assert_eq!(proposed, ["SELECT T1.title, customers.name FROM books AS T1 JOIN orders AS T2 ON T1.book_id = T2.order_id JOIN customers ON T2.customer_id = customers.customer_id"]);
        // a qualifier the FROM clause does not define: an alias the model never wrote, or a table it did not join
        let undefined = attempt("SELECT b.title, a.country FROM books AS b WHERE b.price > 10", &[], &["PostgreSQL cannot plan it: missing FROM-clause entry for table \"a\""], true);
        let proposed: Vec<_> = propose(&undefined, &bookshop, "q", &[]).into_iter().filter(|f| f.name == "join_in").map(|f| f.sql).collect();
        assert_eq!(proposed, ["SELECT b.title, authors.country FROM books AS b JOIN authors ON b.author_id = authors.author_id WHERE b.price > 10"]);
        let table = attempt("SELECT o.ordered_on FROM orders AS o WHERE customers.city = 'Lima'", &[], &["x"], true);
        let proposed: Vec<_> = propose(&table, &bookshop, "q", &[]).into_iter().filter(|f| f.name == "join_in").map(|f| f.sql).collect();
        assert_eq!(proposed, ["SELECT o.ordered_on FROM orders AS o JOIN customers ON o.customer_id = customers.customer_id WHERE customers.city = 'Lima'"]);
        // a table named that the key does not lead to: no guess (books lead to authors, not customers)
        let wrong = attempt("SELECT b.title FROM books AS b WHERE customers.name = 'Ann'", &[], &["x"], true);
        assert!(propose(&wrong, &bookshop, "q", &[]).iter().all(|f| f.name != "join_in"));
        // a column no key of the query's tables leads to: left as it is
        let none = attempt("SELECT o.status, o.manager_id FROM sales.orders AS o JOIN sales.order_lines AS l ON o.order_id = l.order_id", &[], &["x"], true);
        assert!(propose(&none, &retail, "q", &[]).iter().all(|f| f.name != "join_in"));
    }

    #[test]
    fn a_join_on_a_column_its_table_lacks_is_joined_on_the_foreign_key_instead() {
        let missing = "PostgreSQL cannot plan it: column x does not exist";
        let join_key = |sql: &str| -> Vec<String> {
            fixes(&attempt(sql, &[], &[missing], true), "q").into_iter().filter(|(n, _)| *n == "join_key").map(|(_, s)| s).collect()
        };
        // the other side references this table, from either side of the `=`
        assert_eq!(
            join_key("SELECT T1.city FROM customers AS T1 JOIN orders AS T2 ON T1.order_id = T2.customer_id"),
            ["SELECT T1.city FROM customers AS T1 JOIN orders AS T2 ON T1.customer_id = T2.customer_id"]
        );
        assert_eq!(
            join_key("SELECT T2.city FROM orders AS T1 JOIN customers AS T2 ON T1.customer_id = T2.order_id"),
            ["SELECT T2.city FROM orders AS T1 JOIN customers AS T2 ON T1.customer_id = T2.customer_id"]
        );
        // this table references the other side's key
        assert_eq!(
            join_key("SELECT T1.title FROM books AS T1 JOIN authors AS T2 ON T1.writer_id = T2.author_id WHERE T2.country = 'Peru'"),
            ["SELECT T1.title FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id WHERE T2.country = 'Peru'"]
        );
        // no key between them on that column, or the column the other side lacks too: no guess
        assert!(join_key("SELECT T1.city FROM customers AS T1 JOIN orders AS T2 ON T1.order_id = T2.ordered_on").is_empty());
        assert!(join_key("SELECT T2.title FROM authors AS T1 JOIN books AS T2 ON T1.book_id = T2.book_id").is_empty());
        assert!(join_key("SELECT T1.city FROM customers AS T1 JOIN orders AS T2 ON T1.order_id = T2.customer_no").is_empty());
        // a query that runs is never rejoined
        let runs = attempt("SELECT T1.city FROM customers AS T1 JOIN orders AS T2 ON T1.order_id = T2.customer_id", &[], &["x"], false);
        assert!(fixes(&runs, "q").iter().all(|(n, _)| *n != "join_key"));
    }

    #[test]
    fn a_text_column_compared_with_a_number_is_read_as_a_number() {
        let mismatch = "PostgreSQL cannot plan it: operator does not exist: text > integer";
        let numeric = |sql: &str, problem: &str| -> Vec<String> {
            fixes(&attempt(sql, &[], &[problem], true), "q").into_iter().filter(|(n, _)| *n == "numeric_text").map(|(_, s)| s).collect()
        };
        // in a subquery, qualified or not, either side of the comparison
        assert_eq!(
            numeric("SELECT title FROM books WHERE author_id IN (SELECT author_id FROM authors WHERE country > 50)", mismatch),
            ["SELECT title FROM books WHERE author_id IN (SELECT author_id FROM authors WHERE CAST(country AS NUMERIC) > 50)"]
        );
        assert_eq!(
            numeric("SELECT T1.name FROM customers AS T1 WHERE 3 <= T1.city AND T1.city <> -1", mismatch),
            ["SELECT T1.name FROM customers AS T1 WHERE 3 <= CAST(T1.city AS NUMERIC) AND CAST(T1.city AS NUMERIC) <> -1"]
        );
        // a number column, a text compared with text, another failure: not this fix
        assert!(numeric("SELECT title FROM books WHERE price > 50", mismatch).is_empty());
        assert!(numeric("SELECT name FROM authors WHERE country > 'M'", mismatch).is_empty());
        assert!(numeric("SELECT name FROM authors WHERE country > 50", "PostgreSQL cannot plan it: column x does not exist").is_empty());
    }

    #[test]
    fn a_column_two_joined_tables_share_is_read_from_the_first_when_the_join_makes_them_equal() {
        let retail = crate::testing::retail();
        let ambiguous = |c: &str| format!("PostgreSQL cannot plan it: column reference \"{c}\" is ambiguous");
        let shared = |sql: &str, problem: &str| -> Vec<String> {
            propose(&attempt(sql, &[], &[problem], true), &retail, "q", &[]).into_iter().filter(|f| f.name == "shared").map(|f| f.sql).collect()
        };
        // mixed-case quoted names, an inner join and a LEFT JOIN: the first table's column
        for (join, expected) in [("JOIN", "JOIN"), ("LEFT JOIN", "LEFT JOIN")] {
            let sql = format!("SELECT \"CustomerID\", COUNT(order_id) FROM sales.\"Customers\" AS c {join} sales.orders AS o ON c.\"CustomerID\" = o.\"CustomerID\" GROUP BY \"CustomerID\"");
            assert_eq!(
                shared(&sql, &ambiguous("CustomerID")),
                [format!("SELECT c.\"CustomerID\", COUNT(order_id) FROM sales.\"Customers\" AS c {expected} sales.orders AS o ON c.\"CustomerID\" = o.\"CustomerID\" GROUP BY c.\"CustomerID\"")]
            );
        }
        // three tables, equated in a chain
        let sql = "SELECT order_id, COUNT(*) FROM sales.orders AS o JOIN sales.order_lines AS l ON o.order_id = l.order_id GROUP BY order_id";
        assert_eq!(
            shared(sql, &ambiguous("order_id")),
            ["SELECT o.order_id, COUNT(*) FROM sales.orders AS o JOIN sales.order_lines AS l ON o.order_id = l.order_id GROUP BY o.order_id"]
        );
        // the same name the join does not equate, a RIGHT JOIN, a subquery: not for a rewrite
        let bookshop = bookshop();
        let not_equated = attempt("SELECT name FROM authors JOIN customers ON authors.author_id = customers.customer_id", &[], &[&ambiguous("name")], true);
        assert!(propose(&not_equated, &bookshop, "q", &[]).iter().all(|f| f.name != "shared"));
        let right = "SELECT \"CustomerID\" FROM sales.\"Customers\" AS c RIGHT JOIN sales.orders AS o ON c.\"CustomerID\" = o.\"CustomerID\"";
        assert!(shared(right, &ambiguous("CustomerID")).is_empty());
        let nested = "SELECT \"CustomerID\" FROM sales.\"Customers\" AS c JOIN sales.orders AS o ON c.\"CustomerID\" = o.\"CustomerID\" WHERE o.total > (SELECT AVG(total) FROM sales.orders)";
        assert!(shared(nested, &ambiguous("CustomerID")).is_empty());
        // only for the ambiguity PostgreSQL reported
        let sql = "SELECT \"CustomerID\" FROM sales.\"Customers\" AS c JOIN sales.orders AS o ON c.\"CustomerID\" = o.\"CustomerID\"";
        assert!(shared(sql, "PostgreSQL cannot plan it: column x does not exist").is_empty());
    }

    #[test]
    fn a_missing_column_is_not_guessed_when_no_key_or_two_keys_or_a_key_from_the_other_side_would_lead_to_it() {
        let missing = "PostgreSQL cannot plan it: column \"x\" does not exist";
        for sql in [
            // in no table at all
            "SELECT title, isbn FROM books",
            // customers has city, but no key leads from books to customers
            "SELECT title FROM books WHERE city = 'Lima'",
            // authors has no key to books: a join from the referenced side would repeat rows
            "SELECT name, title FROM authors",
            // a subquery: more than one scope
            "SELECT title FROM books WHERE author_id IN (SELECT author_id FROM authors) AND country = 'Peru'",
            // `*` would widen
            "SELECT * FROM books WHERE country = 'Peru'",
        ] {
            let a = attempt(sql, &[], &[missing], true);
            assert!(fixes(&a, "q").iter().all(|(n, _)| *n != "join_in"), "{sql}");
        }
        // two keys from one table to another: which one is meant is not guessed
        let mut catalog = bookshop();
        catalog.tables[1].columns.push(crate::catalog::Column { name: "editor_id".into(), type_name: "integer".into(), nullable: true, comment: None });
        let mut editor = catalog.foreign_keys[0].clone();
        editor.name = "books_editor_id_fkey".into();
        editor.from_columns = vec!["editor_id".into()];
        catalog.foreign_keys.push(editor);
        let a = attempt("SELECT title FROM books WHERE country = 'Peru'", &[], &[missing], true);
        assert!(propose(&a, &catalog, "q", &[]).iter().all(|f| f.name != "join_in"));
        // a query that runs is never given a join
        assert!(fixes(&attempt("SELECT title FROM books WHERE country = 'Peru'", &[], &["x"], false), "q").iter().all(|(n, _)| *n != "join_in"));
    }

    #[test]
    fn a_column_on_the_wrong_alias_of_a_ranking_is_moved_and_grouped_in_one_fix() {
        // `T2.name` is the author's: moved alone, the query fails next on its missing GROUP BY
        let sql = "SELECT T2.name FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.author_id ORDER BY COUNT(T2.book_id) DESC LIMIT 1";
        let a = attempt(sql, &[], &["PostgreSQL cannot plan it: column t2.name does not exist"], true);
        assert_eq!(
            fixes(&a, "Which author wrote the most books?"),
            [("alias", "SELECT T1.name FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.author_id GROUP BY T1.name ORDER BY COUNT(T2.book_id) DESC LIMIT 1".to_string())]
        );
    }

    #[test]
    fn a_ranking_is_never_grouped_into_groups_of_one_row() {
        // grouping what it selects would group customers by their key: a count of 1 in every
        // group, which ranks nothing; the query is left to repair
        let problem = "PostgreSQL cannot plan it: column \"customers.customer_id\" must appear in the GROUP BY clause or be used in an aggregate function";
        let one_table = attempt("SELECT customer_id FROM customers ORDER BY count(*) DESC LIMIT 1", &[], &[problem], true);
        assert!(fixes(&one_table, "Which customer placed the most orders?").is_empty(), "{:?}", fixes(&one_table, "q"));
        // over the join, the groups hold each customer's orders: grouped
        let sql = "SELECT c.customer_id FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id ORDER BY count(*) DESC LIMIT 1";
        let joined = attempt(sql, &[], &[&problem.replace("customers.customer_id", "c.customer_id")], true);
        assert!(fixes(&joined, "Which customer placed the most orders?").iter().any(|(_, f)| f.contains("GROUP BY c.customer_id")), "{:?}", fixes(&joined, "q"));
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
        // first, then the join on the key
        let failing = fixes(&attempt(sql, &[], &["column t2.writer_id does not exist"], true), "Which authors are from Peru?");
        assert_eq!(failing[..1], removed);
        assert_eq!(failing[1].0, "join_key");
        // a query that runs: only when the data showed the join changes the rows
        assert!(fixes(&attempt(sql, &["x"], &["x"], false), "Which authors are from Peru?").is_empty());
        assert_eq!(fixes(&attempt(sql, &["check:needless_join"], &["x"], false), "Which authors are from Peru?"), removed);
        // named by the question: the join stays
        assert!(fixes(&attempt(sql, &["check:needless_join"], &["x"], false), "Which authors from Peru wrote books?").is_empty());
        // a join on columns that cannot join (an author's id equal to a book's): its rows are
        // chance, whatever the data shows today
        let by_chance = "SELECT T1.name FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.book_id WHERE T1.country = 'Peru'";
        assert_eq!(fixes(&attempt(by_chance, &["check:join"], &["x"], false), "Which authors are from Peru?"), removed);
        assert!(fixes(&attempt(by_chance, &["check:join"], &["x"], false), "Which authors from Peru wrote books?").is_empty());
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
