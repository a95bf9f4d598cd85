//! `needless_join`: a table joined in although the answer takes nothing from it. "List the names
//! of teachers in ascending order of age" answered by `SELECT t.name FROM teacher AS t JOIN
//! course_arrange AS c ON c.teacher_id = t.teacher_id ORDER BY t.age`: no column of
//! `course_arrange` is returned, filtered, grouped or ranked, yet the join drops every teacher
//! without an arrangement and repeats those with several. Small models add such joins often.
//!
//! A table is needless in a block when
//! - its columns appear only in its own join condition, and that condition only equates its
//!   columns with those of one other table (a key join: no filter on the table hides there);
//! - no other join goes through it (a bridge is judged after what it bridges to is gone: in
//!   `singer ⋈ singer_in_concert ⋈ concert`, `concert` first, then `singer_in_concert`);
//! - the question does not name it: no word of its name that the names of the tables the answer
//!   reads lack (`concert` of `singer_in_concert` beside `singer`) matches a word of the question, so
//!   "singers who performed in a concert" keeps the join as the filter it asks for.
//!
//! A block that counts, sums or averages is not judged: its answer reads how many rows the join
//! makes ("the number of employees of each shop" counts the rows of `hiring`).
//!
//! The finding needs the data: the query without the needless joins ([`Needless::without`]) is
//! run as the caller, and only when its rows differ from the query's does the join change the
//! answer (a many-to-one join on a NOT NULL key changes nothing and is not reported). The fix is
//! that query.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, Expr, JoinConstraint, JoinOperator, Query, Select, SelectItem, SetExpr, TableFactor, Visit, Visitor,
};

use super::{calls_function, conjuncts, join_condition, question_names};
use crate::catalog::{Catalog, Table};

/// The query without its needless joins.
#[derive(Debug, Clone, PartialEq)]
pub struct Needless {
    /// The tables left out, as the query names them (alias, or table name).
    pub tables: Vec<String>,
    pub without: Query,
}

impl Needless {
    pub fn message(&self) -> String {
        let names = self.tables.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ");
        let (is, it) = if self.tables.len() == 1 { ("is", "it") } else { ("are", "them") };
        format!(
            "{names} {is} joined, but the answer takes nothing from {it} and the question does not name {it}: on the data the join \
             drops the rows that have no match and repeats those with several; remove the join: {}",
            self.without
        )
    }
}

/// The needless joins of the query's blocks (the top-level block, or each arm of a top-level set
/// operation; subqueries are left alone), if any.
pub fn needless(query: &Query, catalog: &Catalog, question: &str) -> Option<Needless> {
    let mut without = query.clone();
    let mut tables = Vec::new();
    let order_by: Vec<Expr> = match (&*query.body, query.order_by.as_ref().map(|o| &o.kind)) {
        (SetExpr::Select(_), Some(sqlparser::ast::OrderByKind::Expressions(items))) => items.iter().map(|i| i.expr.clone()).collect(),
        _ => vec![],
    };
    prune_blocks(&mut without.body, &order_by, catalog, question, &mut tables);
    (!tables.is_empty()).then_some(Needless { tables, without })
}

fn prune_blocks(body: &mut SetExpr, order_by: &[Expr], catalog: &Catalog, question: &str, out: &mut Vec<String>) {
    match body {
        SetExpr::Select(s) => out.extend(prune(s, order_by, catalog, question)),
        SetExpr::SetOperation { left, right, .. } => {
            prune_blocks(left, &[], catalog, question, out);
            prune_blocks(right, &[], catalog, question, out);
        }
        _ => {}
    }
}

/// One table of a block's FROM: the name columns are qualified with, and the table.
struct InScope<'c> {
    qualifier: String,
    table: &'c Table,
}

/// Removes the block's needless joins, one leaf at a time; returns the tables removed.
fn prune(select: &mut Select, order_by: &[Expr], catalog: &Catalog, question: &str) -> Vec<String> {
    let mut removed = Vec::new();
    loop {
        let Some(i) = needless_one(select, order_by, catalog, question) else { return removed };
        let from = &mut select.from[0];
        let gone = if i == 0 {
            let first = from.joins.remove(0);
            std::mem::replace(&mut from.relation, first.relation)
        } else {
            from.joins.remove(i - 1).relation
        };
        if let TableFactor::Table { name, alias, .. } = gone {
            removed.push(alias.map_or_else(|| name.to_string(), |a| a.name.value));
        }
    }
}

/// The index (0: the FROM's first table, i: the i-th join) of a needless table of the block.
fn needless_one(select: &Select, order_by: &[Expr], catalog: &Catalog, question: &str) -> Option<usize> {
    let [from] = select.from.as_slice() else { return None };
    if from.joins.is_empty() {
        return None;
    }
    let mut scope = Vec::new();
    for factor in std::iter::once(&from.relation).chain(from.joins.iter().map(|j| &j.relation)) {
        let TableFactor::Table { name, alias, args: None, .. } = factor else { return None };
        let table = catalog.resolve_object(name)?;
        let qualifier = alias.as_ref().map_or_else(|| table.name.name.to_lowercase(), |a| a.name.value.to_lowercase());
        scope.push(InScope { qualifier, table });
    }
    let mut conditions = Vec::new();
    for j in &from.joins {
        // inner and left joins on a condition; anything else (USING, NATURAL, RIGHT, FULL, CROSS) is not judged
        match &j.join_operator {
            JoinOperator::Join(_) | JoinOperator::Inner(_) | JoinOperator::Left(_) | JoinOperator::LeftOuter(_) => {}
            _ => return None,
        }
        conditions.push(join_condition(&j.join_operator)?);
    }
    // a count, sum or average reads how many rows the join makes: "the number of employees of
    // each shop" counts the rows of `hiring` without naming it
    if counts_rows(select) || order_by.iter().any(counts_rows) {
        return None;
    }
    let used = used_outside_joins(select, order_by, &scope);
    'candidates: for (i, t) in scope.iter().enumerate() {
        if used.contains(&t.qualifier) {
            continue;
        }
        // the one join condition that names it
        let naming: Vec<usize> = conditions.iter().enumerate().filter(|(_, c)| qualifiers_in(**c, &scope).contains(&t.qualifier)).map(|(k, _)| k).collect();
        let [k] = naming.as_slice() else { continue };
        // its own condition (the first join's, for the FROM's first table, which then must be inner)
        let own = if i == 0 { *k == 0 && matches!(from.joins[0].join_operator, JoinOperator::Join(_) | JoinOperator::Inner(_)) } else { *k == i - 1 };
        if !own {
            continue;
        }
        // only column equalities with one other table
        let mut other: Option<String> = None;
        for term in conjuncts(conditions[*k]) {
            let Expr::BinaryOp { left, op: BinaryOperator::Eq, right } = term else { continue 'candidates };
            let (Some(a), Some(b)) = (qualifier_of(left, &scope), qualifier_of(right, &scope)) else { continue 'candidates };
            let o = match (a == t.qualifier, b == t.qualifier) {
                (true, false) => b,
                (false, true) => a,
                _ => continue 'candidates,
            };
            if other.get_or_insert_with(|| o.clone()) != &o {
                continue 'candidates;
            }
        }
        if other.is_none() {
            continue;
        }
        // not named by the question: a word of its name that the names of the tables the answer
        // reads lack
        let kept: BTreeSet<String> = scope.iter().filter(|s| used.contains(&s.qualifier)).flat_map(|s| name_words(&s.table.name.name)).collect();
        let own_words: Vec<String> = name_words(&t.table.name.name).into_iter().filter(|w| !kept.contains(w)).collect();
        let lower = question.to_lowercase();
        if own_words.iter().any(|w| question_names(&lower, w)) {
            continue;
        }
        // a table that references the one it joins, under a clause ("students who tried out",
        // "professors teaching in …"): the clause's verb may name it as the filter asked for
        let parent = other.as_ref().and_then(|o| scope.iter().find(|s| &s.qualifier == o)).map(|s| &s.table.name);
        let references_other = parent.is_none_or(|p| !catalog.foreign_keys.iter().any(|fk| &fk.from == p && fk.to == t.table.name));
        if references_other && crate::lexicon::has_clause(question) {
            continue;
        }
        return Some(i);
    }
    None
}

/// Does the expression (or block) call COUNT, SUM or AVG, whose results depend on how many rows
/// there are?
fn counts_rows(node: &impl Visit) -> bool {
    calls_function(node, |name, _| ["count", "sum", "avg"].contains(&name))
}

/// The words of a table's name worth matching (three letters or more, not a linking word).
fn name_words(name: &str) -> Vec<String> {
    const LINKING: &[&str] = &["and", "the", "for", "has", "with", "from", "ref"];
    name.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 3 && !LINKING.contains(w))
        .map(str::to_string)
        .collect()
}

/// The tables in scope that have a column of this name.
fn holders<'s, 'c>(scope: &'s [InScope<'c>], column: &'s str) -> impl Iterator<Item = &'s InScope<'c>> {
    scope.iter().filter(move |s| s.table.columns.iter().any(|col| col.name.eq_ignore_ascii_case(column)))
}

/// The qualifier of the table in scope a column reference belongs to: its qualifier when it has
/// one in scope, else the one table in scope with a column of that name.
fn qualifier_of(e: &Expr, scope: &[InScope]) -> Option<String> {
    match e {
        Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
            let q = parts[parts.len() - 2].value.to_lowercase();
            scope.iter().any(|s| s.qualifier == q).then_some(q)
        }
        Expr::Identifier(c) => {
            let mut hits = holders(scope, &c.value);
            let first = hits.next()?;
            hits.next().is_none().then(|| first.qualifier.clone())
        }
        Expr::Nested(inner) => qualifier_of(inner, scope),
        _ => None,
    }
}

/// The qualifiers of the tables in scope an expression reads (an unqualified column: every table
/// in scope that has it).
fn qualifiers_in(e: &impl Visit, scope: &[InScope]) -> BTreeSet<String> {
    struct Refs<'a, 'c> {
        scope: &'a [InScope<'c>],
        out: BTreeSet<String>,
    }
    impl Visitor for Refs<'_, '_> {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                    self.out.insert(parts[parts.len() - 2].value.to_lowercase());
                }
                Expr::Identifier(c) => self.out.extend(holders(self.scope, &c.value).map(|s| s.qualifier.clone())),
                _ => {}
            }
            ControlFlow::Continue(())
        }
    }
    let mut refs = Refs { scope, out: BTreeSet::new() };
    let _ = e.visit(&mut refs);
    refs.out
}

/// The tables of the outer block's FROM that the block reads nothing from outside their join
/// conditions (as the query names them), whatever the question says: joined only to filter or
/// to repeat rows, or for nothing.
pub fn idle_tables(query: &Query, catalog: &Catalog) -> Vec<String> {
    let SetExpr::Select(select) = query.body.as_ref() else { return vec![] };
    let [from] = select.from.as_slice() else { return vec![] };
    if from.joins.is_empty() {
        return vec![];
    }
    let mut scope = Vec::new();
    for factor in std::iter::once(&from.relation).chain(from.joins.iter().map(|j| &j.relation)) {
        let TableFactor::Table { name, alias, args: None, .. } = factor else { return vec![] };
        let Some(table) = catalog.resolve_object(name) else { return vec![] };
        let qualifier = alias.as_ref().map_or_else(|| table.name.name.to_lowercase(), |a| a.name.value.to_lowercase());
        scope.push(InScope { qualifier, table });
    }
    let order_by: Vec<Expr> = match query.order_by.as_ref().map(|o| &o.kind) {
        Some(sqlparser::ast::OrderByKind::Expressions(items)) => items.iter().map(|i| i.expr.clone()).collect(),
        _ => vec![],
    };
    let used = used_outside_joins(select, &order_by, &scope);
    scope.into_iter().filter(|s| !used.contains(&s.qualifier)).map(|s| s.qualifier).collect()
}

/// The qualifiers the block reads anywhere but in its join conditions (`*`: every table).
fn used_outside_joins(select: &Select, order_by: &[Expr], scope: &[InScope]) -> BTreeSet<String> {
    let mut bare = select.clone();
    for f in &mut bare.from {
        for j in &mut f.joins {
            j.join_operator = JoinOperator::CrossJoin(JoinConstraint::None);
        }
    }
    let mut used = qualifiers_in(&bare, scope);
    for e in order_by {
        used.extend(qualifiers_in(e, scope));
    }
    for item in &select.projection {
        match item {
            SelectItem::Wildcard(_) => used.extend(scope.iter().map(|s| s.qualifier.clone())),
            SelectItem::QualifiedWildcard(sqlparser::ast::SelectItemQualifiedWildcardKind::ObjectName(n), _) => {
                used.extend(n.0.last().and_then(|p| p.as_ident()).map(|i| i.value.to_lowercase()));
            }
            _ => {}
        }
    }
    used
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, ForeignKey, RelKind, RelName};
    use crate::sql::check_query;

    fn catalog() -> Catalog {
        let col = |n: &str| Column { name: n.into(), type_name: "integer".into(), nullable: false, comment: None };
        let table = |n: &str, cols: &[&str], pk: &[&str]| Table {
            name: RelName::new("public", n),
            kind: RelKind::Table,
            comment: None,
            row_estimate: None,
            columns: cols.iter().map(|c| col(c)).collect(),
            primary_key: pk.iter().map(|c| c.to_string()).collect(),
        };
        let fk = |from: &str, c: &str, to: &str| ForeignKey {
            name: format!("{from}_{c}_fkey"),
            from: RelName::new("public", from),
            from_columns: vec![c.into()],
            to: RelName::new("public", to),
            to_columns: vec![c.into()],
        };
        Catalog {
            tables: vec![
                table("singer", &["singer_id", "name", "age", "song_name"], &["singer_id"]),
                table("concert", &["concert_id", "theme", "year", "stadium_id"], &["concert_id"]),
                table("singer_in_concert", &["singer_id", "concert_id"], &["singer_id", "concert_id"]),
                table("stadium", &["stadium_id", "name", "capacity"], &["stadium_id"]),
            ],
            foreign_keys: vec![fk("singer_in_concert", "singer_id", "singer"), fk("singer_in_concert", "concert_id", "concert"), fk("concert", "stadium_id", "stadium")],
            ..Default::default()
        }
    }

    fn pruned(sql: &str, question: &str) -> Option<(Vec<String>, String)> {
        let q = check_query(sql).unwrap().query;
        needless(&q, &catalog(), question).map(|n| (n.tables, n.without.to_string()))
    }

    #[test]
    fn a_chain_of_joins_the_answer_does_not_read_is_removed_leaf_first() {
        let sql = "SELECT s.name, s.age FROM singer AS s JOIN singer_in_concert AS sic ON s.singer_id = sic.singer_id \
                   JOIN concert AS c ON sic.concert_id = c.concert_id ORDER BY s.age DESC";
        assert_eq!(
            pruned(sql, "Show name and age of all singers ordered by age from the oldest"),
            Some((vec!["c".to_string(), "sic".to_string()], "SELECT s.name, s.age FROM singer AS s ORDER BY s.age DESC".to_string()))
        );
        // the FROM's first table can go too
        assert_eq!(
            pruned("SELECT T2.name FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id WHERE T2.age > 30", "names of singers older than 30"),
            Some((vec!["T1".to_string()], "SELECT T2.name FROM singer AS T2 WHERE T2.age > 30".to_string()))
        );
        // in each arm of a set operation
        let (gone, _) = pruned(
            "SELECT s.name FROM singer s JOIN singer_in_concert x ON x.singer_id = s.singer_id WHERE s.age < 20 \
             INTERSECT SELECT s.name FROM singer s JOIN singer_in_concert x ON x.singer_id = s.singer_id WHERE s.age > 10",
            "names of singers younger than 20 and older than 10",
        )
        .unwrap();
        assert_eq!(gone, ["x", "x"]);
    }

    #[test]
    fn a_join_the_answer_reads_or_the_question_names_stays() {
        let q = "Show the names of singers";
        for sql in [
            // a column of the joined table returned, filtered, ranked or grouped
            "SELECT s.name, c.theme FROM singer s JOIN singer_in_concert x ON x.singer_id = s.singer_id JOIN concert c ON c.concert_id = x.concert_id",
            "SELECT s.name FROM singer s JOIN singer_in_concert x ON x.singer_id = s.singer_id JOIN concert c ON c.concert_id = x.concert_id WHERE c.year = 2014",
            "SELECT s.name FROM singer s JOIN singer_in_concert x ON x.singer_id = s.singer_id GROUP BY s.name ORDER BY count(x.concert_id) DESC",
            "SELECT s.name FROM singer s JOIN singer_in_concert x ON x.singer_id = s.singer_id JOIN concert c ON c.concert_id = x.concert_id ORDER BY c.year",
            // a filter inside the join condition
            "SELECT s.name FROM singer s JOIN singer_in_concert x ON x.singer_id = s.singer_id AND x.concert_id = 3",
            // SELECT *, a correlated subquery
            "SELECT * FROM singer s JOIN singer_in_concert x ON x.singer_id = s.singer_id",
            "SELECT s.name, x.* FROM singer s JOIN singer_in_concert x ON x.singer_id = s.singer_id",
            "SELECT s.name FROM singer s JOIN singer_in_concert x ON x.singer_id = s.singer_id WHERE EXISTS (SELECT 1 FROM concert c WHERE c.concert_id = x.concert_id)",
            // counted rows: "the number of employees of each shop" counts the joined table's rows
            "SELECT s.name, count(*) FROM singer s JOIN singer_in_concert x ON x.singer_id = s.singer_id GROUP BY s.name",
            "SELECT s.name FROM singer s JOIN singer_in_concert x ON x.singer_id = s.singer_id GROUP BY s.name ORDER BY count(*) DESC LIMIT 1",
            // a right join is not judged
            "SELECT s.name FROM singer s RIGHT JOIN singer_in_concert x ON x.singer_id = s.singer_id",
        ] {
            assert_eq!(pruned(sql, q), None, "{sql}");
        }
        // the question names the joined table: the join is the filter it asks for
        let sql = "SELECT s.name FROM singer s JOIN singer_in_concert x ON x.singer_id = s.singer_id";
        assert_eq!(pruned(sql, "names of singers who performed in a concert"), None);
        assert_eq!(pruned(sql, "names of singers in concerts"), None);
        assert!(pruned(sql, "names of all singers").is_some());
        // a bridge stays while the table it leads to is named
        let sql = "SELECT s.name FROM singer s JOIN singer_in_concert x ON x.singer_id = s.singer_id JOIN concert c ON c.concert_id = x.concert_id";
        assert_eq!(pruned(sql, "singers that had a concert"), None);
    }
}
