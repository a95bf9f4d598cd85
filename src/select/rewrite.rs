//! Rewrites of candidate queries on their AST, for separating instances.
//!
//! - [`base_relations`]: the relations a query reads (CTE names excluded), for the instance.
//! - [`redirect`]: the same query reading instance tables instead: each table reference gets the
//!   instance table's name and keeps its old name as its alias, so every column reference still
//!   resolves. The query text is otherwise unchanged.
//! - [`lineage_queries`]: queries returning the `ctid` of the base-table rows that feed a query's
//!   result (its *lineage*), one query per `SELECT` block. For the outermost block, `GROUP BY …
//!   HAVING` and `ORDER BY … LIMIT` are kept (only rows of the kept groups or output rows), with a
//!   plain `FROM … WHERE` variant as fallback; inner blocks (subqueries, CTE bodies, set-operation
//!   branches) use the plain variant and are run on their own, so a correlated subquery gives no
//!   lineage. Lineage over-approximates; it only guides which rows to try, and every instance is
//!   checked by running both queries on it.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, GroupByExpr, Ident, ObjectName, ObjectNamePart, Query, Select, SetExpr, TableAlias, TableFactor,
    TableWithJoins, Visit, VisitMut, Visitor, VisitorMut,
};

/// An identifier as PostgreSQL folds it: unquoted names are lower-cased.
pub fn ident_key(i: &Ident) -> String {
    if i.quote_style.is_some() {
        i.value.clone()
    } else {
        i.value.to_lowercase()
    }
}

/// A relation name as PostgreSQL folds it, parts joined by `.`.
pub fn name_key(n: &ObjectName) -> String {
    n.0.iter()
        .map(|p| match p {
            ObjectNamePart::Identifier(i) => ident_key(i),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Names of all CTEs defined anywhere in the query.
pub(crate) fn cte_names(query: &Query) -> BTreeSet<String> {
    struct Ctes(BTreeSet<String>);
    impl Visitor for Ctes {
        type Break = ();
        fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
            if let Some(with) = &q.with {
                for cte in &with.cte_tables {
                    self.0.insert(ident_key(&cte.alias.name));
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut v = Ctes(BTreeSet::new());
    let _ = query.visit(&mut v);
    v.0
}

/// A table factor that names a relation (not a CTE, not a table function).
fn table_name<'a>(tf: &'a TableFactor, ctes: &BTreeSet<String>) -> Option<&'a ObjectName> {
    match tf {
        TableFactor::Table { name, args: None, .. } => {
            let is_cte = name.0.len() == 1 && ctes.contains(&name_key(name));
            (!is_cte).then_some(name)
        }
        _ => None,
    }
}

/// The relations the query reads, once each (by folded name), in order of appearance.
pub fn base_relations(query: &Query) -> Vec<ObjectName> {
    struct Rels<'c> {
        ctes: &'c BTreeSet<String>,
        seen: BTreeSet<String>,
        out: Vec<ObjectName>,
    }
    impl Visitor for Rels<'_> {
        type Break = ();
        fn pre_visit_table_factor(&mut self, tf: &TableFactor) -> ControlFlow<()> {
            if let Some(name) = table_name(tf, self.ctes) {
                if self.seen.insert(name_key(name)) {
                    self.out.push(name.clone());
                }
            }
            ControlFlow::Continue(())
        }
    }
    let ctes = cte_names(query);
    let mut v = Rels { ctes: &ctes, seen: BTreeSet::new(), out: Vec::new() };
    let _ = query.visit(&mut v);
    v.out
}

/// The query reading other tables: `to` maps a folded relation name ([`name_key`]) to the name of
/// the table to read instead. A reference without an alias keeps its old (last) name as alias.
pub fn redirect(query: &Query, to: &BTreeMap<String, ObjectName>) -> Query {
    struct Redirect<'a> {
        ctes: BTreeSet<String>,
        to: &'a BTreeMap<String, ObjectName>,
    }
    impl VisitorMut for Redirect<'_> {
        type Break = ();
        fn pre_visit_table_factor(&mut self, tf: &mut TableFactor) -> ControlFlow<()> {
            let target = table_name(tf, &self.ctes).and_then(|n| self.to.get(&name_key(n))).cloned();
            if let (Some(target), TableFactor::Table { name, alias, .. }) = (target, tf) {
                if alias.is_none() {
                    if let Some(last) = name.0.last().and_then(|p| p.as_ident()) {
                        *alias = Some(TableAlias { explicit: true, name: last.clone(), columns: vec![], at: None });
                    }
                }
                *name = target;
            }
            ControlFlow::Continue(())
        }
    }
    let mut q = query.clone();
    let mut v = Redirect { ctes: cte_names(query), to };
    let _ = VisitMut::visit(&mut q, &mut v);
    q
}

/// `query` with `ctes` (name, body) put first in its WITH clause: how an instance is read without
/// temp tables (on a hot standby), each instance table being a CTE over the real table's rows.
/// A query with its own WITH keeps it, after these; a RECURSIVE one stays recursive.
pub fn with_ctes_first(query: &Query, ctes: &[(String, String)]) -> Result<Query, String> {
    if ctes.is_empty() {
        return Ok(query.clone());
    }
    let body: Vec<String> = ctes.iter().map(|(name, sql)| format!("{} AS ({sql})", Ident::with_quote('"', name))).collect();
    let template = format!("WITH {} SELECT 1", body.join(", "));
    let parsed = sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::PostgreSqlDialect {}, &template).map_err(|e| format!("instance CTEs: {e}"))?;
    let Some(sqlparser::ast::Statement::Query(t)) = parsed.into_iter().next() else {
        return Err("instance CTEs: not a query".into());
    };
    let Some(mut with) = t.with else { return Err("instance CTEs: no WITH".into()) };
    let mut q = query.clone();
    match q.with.as_mut() {
        Some(own) => {
            with.cte_tables.append(&mut own.cte_tables);
            own.cte_tables = with.cte_tables;
        }
        None => q.with = Some(with),
    }
    Ok(q)
}

/// One lineage query: it returns, per result row, one `ctid` (or NULL) per entry of `tables`,
/// in its last `tables.len()` columns.
#[derive(Debug, Clone, PartialEq)]
pub struct LineageQuery {
    /// Which SELECT block of the candidate this is (blocks in order of appearance).
    pub block: usize,
    /// Keeps the block's grouping or ORDER BY … LIMIT; its plain variant has the same `block`.
    pub precise: bool,
    pub sql: String,
    /// Folded relation name of each ctid column.
    pub tables: Vec<String>,
}

/// Base-table occurrences of a FROM list: (folded relation name, reference to qualify `ctid`).
fn occurrences(from: &[TableWithJoins], ctes: &BTreeSet<String>) -> Vec<(String, String)> {
    fn factor(tf: &TableFactor, ctes: &BTreeSet<String>, out: &mut Vec<(String, String)>) {
        match tf {
            TableFactor::Table { alias, .. } => {
                if let Some(name) = table_name(tf, ctes) {
                    let reference = match alias {
                        Some(a) => a.name.to_string(),
                        None => name.to_string(),
                    };
                    out.push((name_key(name), reference));
                }
            }
            TableFactor::NestedJoin { table_with_joins, alias: None } => twj(table_with_joins, ctes, out),
            _ => {}
        }
    }
    fn twj(t: &TableWithJoins, ctes: &BTreeSet<String>, out: &mut Vec<(String, String)>) {
        factor(&t.relation, ctes, out);
        for j in &t.joins {
            factor(&j.relation, ctes, out);
        }
    }
    let mut out = Vec::new();
    for t in from {
        twj(t, ctes, &mut out);
    }
    out
}

fn comma<T: std::fmt::Display>(items: &[T]) -> String {
    items.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// The lineage queries of a query; see the module documentation.
pub fn lineage_queries(query: &Query) -> Vec<LineageQuery> {
    let ctes = cte_names(query);
    let with = query.with.as_ref().map(|w| format!("{w} ")).unwrap_or_default();

    // every SELECT block, in order; the outermost query's own block first
    struct Blocks(Vec<Select>);
    impl Visitor for Blocks {
        type Break = ();
        fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
            fn selects(body: &SetExpr, out: &mut Vec<Select>) {
                match body {
                    SetExpr::Select(s) => out.push((**s).clone()),
                    SetExpr::SetOperation { left, right, .. } => {
                        selects(left, out);
                        selects(right, out);
                    }
                    _ => {} // nested queries are visited on their own
                }
            }
            selects(&q.body, &mut self.0);
            ControlFlow::Continue(())
        }
    }
    let mut blocks = Blocks(Vec::new());
    let _ = query.visit(&mut blocks);

    let mut out = Vec::new();
    for (b, select) in blocks.0.iter().enumerate() {
        let occ = occurrences(&select.from, &ctes);
        if occ.is_empty() {
            continue;
        }
        let tables: Vec<String> = occ.iter().map(|(k, _)| k.clone()).collect();
        let tids: Vec<String> = occ.iter().map(|(_, r)| format!("{r}.ctid")).collect();
        let from = comma(&select.from);
        let where_ = select.selection.as_ref().map(|e| format!(" WHERE {e}")).unwrap_or_default();
        let is_top = b == 0 && matches!(*query.body, SetExpr::Select(_));
        if is_top {
            if let Some(sql) = precise_top(query, select, &tids, &with, &from) {
                out.push(LineageQuery { block: b, precise: true, sql, tables: tables.clone() });
            }
        }
        out.push(LineageQuery {
            block: b,
            precise: false,
            sql: format!("{with}SELECT {} FROM {from}{where_}", tids.join(", ")),
            tables,
        });
    }
    out
}

fn group_keys(select: &Select) -> Option<&[Expr]> {
    match &select.group_by {
        GroupByExpr::Expressions(keys, mods) if !keys.is_empty() && mods.is_empty() => Some(keys),
        _ => None,
    }
}

/// The outermost block's lineage keeping its groups or its ORDER BY … LIMIT, if it has either.
fn precise_top(query: &Query, select: &Select, tids: &[String], with: &str, from: &str) -> Option<String> {
    let order_limit = {
        let mut s = String::new();
        if let Some(o) = &query.order_by {
            s.push_str(&format!(" {o}"));
        }
        if let Some(l) = &query.limit_clause {
            s.push_str(&format!("{l}"));
        }
        if let Some(f) = &query.fetch {
            s.push_str(&format!(" {f}"));
        }
        s
    };
    let limited = query.limit_clause.is_some() || query.fetch.is_some();
    match group_keys(select) {
        Some(keys) if select.having.is_some() || limited => {
            if keys.iter().any(|k| matches!(k, Expr::Value(_))) {
                return None; // GROUP BY 1: the key is a projection item
            }
            let mut inner = select.clone();
            inner.projection.extend(keys.iter().enumerate().map(|(i, k)| sqlparser::ast::SelectItem::ExprWithAlias {
                expr: k.clone(),
                alias: Ident::new(format!("__nl2sql_g{i}")),
            }));
            let key_cols: Vec<String> = (0..keys.len()).map(|i| format!("__nl2sql_g{i}")).collect();
            let cond = format!(
                "({}) IN (SELECT {} FROM ({inner}{order_limit}) AS __nl2sql_groups)",
                comma(keys),
                key_cols.join(", ")
            );
            let where_ = match &select.selection {
                Some(e) => format!(" WHERE ({e}) AND {cond}"),
                None => format!(" WHERE {cond}"),
            };
            Some(format!("{with}SELECT {} FROM {from}{where_}", tids.join(", ")))
        }
        None if limited && select.having.is_none() => {
            // DISTINCT is dropped: each output row keeps its own lineage
            let mut items: Vec<String> = select.projection.iter().map(ToString::to_string).collect();
            items.extend(tids.iter().enumerate().map(|(i, t)| format!("{t} AS __nl2sql_t{i}")));
            let where_ = select.selection.as_ref().map(|e| format!(" WHERE {e}")).unwrap_or_default();
            Some(format!("{with}SELECT {} FROM {from}{where_}{order_limit}", items.join(", ")))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::check_query;

    fn q(sql: &str) -> Box<Query> {
        check_query(sql).unwrap().query
    }

    #[test]
    fn relations_skip_ctes_and_functions() {
        let rels = base_relations(&q(
            "WITH b AS (SELECT * FROM books) SELECT * FROM b JOIN public.authors a ON true, generate_series(1,2) g \
             WHERE a.id IN (SELECT author_id FROM Books)",
        ));
        let keys: Vec<String> = rels.iter().map(name_key).collect();
        assert_eq!(keys, vec!["books", "public.authors"]);
    }

    #[test]
    fn ctes_go_first_and_keep_the_query_own() {
        let ctes = vec![("__i0".to_string(), "SELECT * FROM books WHERE ctid = ANY(ARRAY['(0,1)']::tid[])".to_string())];
        let plain = with_ctes_first(&q("SELECT b.title FROM __i0 AS b"), &ctes).unwrap();
        assert_eq!(plain.to_string(), "WITH \"__i0\" AS (SELECT * FROM books WHERE ctid = ANY(ARRAY['(0,1)']::tid[])) SELECT b.title FROM __i0 AS b");
        let own = with_ctes_first(&q("WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT n + 1 FROM t WHERE n < 3) SELECT n FROM t, __i0"), &ctes).unwrap();
        assert_eq!(
            own.to_string(),
            "WITH RECURSIVE \"__i0\" AS (SELECT * FROM books WHERE ctid = ANY(ARRAY['(0,1)']::tid[])), t (n) AS (SELECT 1 UNION SELECT n + 1 FROM t WHERE n < 3) SELECT n FROM t, __i0"
        );
        assert_eq!(with_ctes_first(&q("SELECT 1"), &[]).unwrap().to_string(), "SELECT 1");
    }

    #[test]
    fn redirect_keeps_references_resolving() {
        let mut to = BTreeMap::new();
        to.insert("books".to_string(), ObjectName::from(vec![Ident::new("pg_temp"), Ident::new("nl2sql_i0")]));
        to.insert("public.authors".to_string(), ObjectName::from(vec![Ident::new("pg_temp"), Ident::new("nl2sql_i1")]));
        let r = redirect(
            &q("WITH books2 AS (SELECT 1) SELECT books.title, a.name FROM books JOIN public.authors a ON a.id = books.author_id, books2"),
            &to,
        );
        assert_eq!(
            r.to_string(),
            "WITH books2 AS (SELECT 1) SELECT books.title, a.name FROM pg_temp.nl2sql_i0 AS books \
             JOIN pg_temp.nl2sql_i1 a ON a.id = books.author_id, books2"
        );
    }

    #[test]
    fn lineage_of_blocks() {
        let l = lineage_queries(&q("SELECT b.title FROM books b JOIN authors a ON a.id = b.author_id WHERE a.name = 'X'"));
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].sql, "SELECT b.ctid, a.ctid FROM books b JOIN authors a ON a.id = b.author_id WHERE a.name = 'X'");
        assert_eq!(l[0].tables, vec!["books", "authors"]);

        let l = lineage_queries(&q("SELECT title FROM books WHERE id NOT IN (SELECT book_id FROM sales) ORDER BY price DESC LIMIT 3"));
        assert_eq!(l.len(), 3);
        assert!(l[0].precise);
        assert_eq!(
            l[0].sql,
            "SELECT title, books.ctid AS __nl2sql_t0 FROM books WHERE id NOT IN (SELECT book_id FROM sales) ORDER BY price DESC LIMIT 3"
        );
        assert_eq!(l[2].sql, "SELECT sales.ctid FROM sales");

        let l = lineage_queries(&q(
            "SELECT author_id, count(*) FROM books GROUP BY author_id HAVING count(*) > 1 ORDER BY 2 DESC LIMIT 1",
        ));
        assert!(l[0].precise);
        assert_eq!(
            l[0].sql,
            "SELECT books.ctid FROM books WHERE (author_id) IN (SELECT __nl2sql_g0 FROM (SELECT author_id, count(*), \
             author_id AS __nl2sql_g0 FROM books GROUP BY author_id HAVING count(*) > 1 ORDER BY 2 DESC LIMIT 1) AS __nl2sql_groups)"
        );
        // a set operation: each branch on its own
        let l = lineage_queries(&q("SELECT id FROM a UNION SELECT id FROM b"));
        assert_eq!(l.iter().map(|x| x.sql.as_str()).collect::<Vec<_>>(), vec!["SELECT a.ctid FROM a", "SELECT b.ctid FROM b"]);
    }
}
