//! The relations a query names, resolved against the catalog the question is asked of, on the
//! syntax tree, before anything runs.
//!
//! A model that sees `car_1.cars` may write `cars`, which PostgreSQL resolves on the caller's
//! `search_path` (to another schema's `cars`, or to nothing), or qualify it with the wrong schema
//! (`public.cars`). A relation name that means nothing in scope, or something outside it, is
//! qualified with the schema of the one relation in scope that has that name; one that several
//! relations in scope have is left for the checks and the repair to report (never guessed).
//! Common table expressions are not relations and are left alone.

use std::ops::ControlFlow;

use sqlparser::ast::{Ident, ObjectName, ObjectNamePart};

use super::check_query;
use crate::catalog::{quote_ident, Catalog, RelName};
use crate::select::rewrite::{cte_names, ident_key};

/// A query whose relation names were resolved, and each change in words.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub sql: String,
    pub changes: Vec<String>,
}

/// An identifier for `name`, quoted when PostgreSQL needs it.
pub fn ident(name: &str) -> Ident {
    if quote_ident(name) == name {
        Ident::new(name)
    } else {
        Ident::with_quote('"', name)
    }
}

fn parts(name: &ObjectName) -> Option<Vec<String>> {
    name.0.iter().map(|p| p.as_ident().map(ident_key)).collect()
}

/// `sql` with every relation name that resolves to nothing in `catalog` (or, unqualified, to a
/// relation outside it) qualified with the schema of the one relation in `catalog` of that name.
/// `None` when nothing needed it, or the SQL does not parse.
pub fn resolve(sql: &str, catalog: &Catalog) -> Option<Resolved> {
    let mut query = check_query(sql).ok()?.query;
    let ctes = cte_names(&query);
    let mut changes: Vec<String> = Vec::new();
    let _ = sqlparser::ast::visit_relations_mut(&mut *query, |name: &mut ObjectName| {
        let Some(written) = parts(name) else { return ControlFlow::<()>::Continue(()) };
        let table = match written.as_slice() {
            [t] if ctes.contains(t) => return ControlFlow::Continue(()),
            [t] if catalog.resolve(None, t).is_some() => return ControlFlow::Continue(()),
            [s, t] if catalog.table(&RelName::new(s.clone(), t.clone())).is_some() => return ControlFlow::Continue(()),
            [t] | [_, t] => t.clone(),
            _ => return ControlFlow::Continue(()),
        };
        let mut holders = catalog.tables.iter().filter(|x| x.name.name == table);
        if let (Some(only), None) = (holders.next(), holders.next()) {
            let before = name.to_string();
            *name = ObjectName(vec![ObjectNamePart::Identifier(ident(&only.name.schema)), ObjectNamePart::Identifier(ident(&only.name.name))]);
            let why = if written.len() == 1 {
                if catalog.search_path.is_empty() || catalog.path_names.contains_key(&table) {
                    "the search_path resolves it outside the schemas asked of"
                } else {
                    "the search_path does not reach it"
                }
            } else {
                "no such relation in that schema"
            };
            changes.push(format!("{before} → {name} ({why})"));
        }
        ControlFlow::Continue(())
    });
    (!changes.is_empty()).then(|| Resolved { sql: query.to_string(), changes })
}

/// `sql` with its relations of schema `from` read from schema `to` instead (the same names), for
/// asking whether another schema's reading of a question is the same query. `None` when the SQL
/// does not parse, reads nothing of `from`, or names a relation `to` lacks in `catalog`.
pub fn moved(sql: &str, from: &str, to: &str, catalog: &Catalog) -> Option<String> {
    let mut query = check_query(sql).ok()?.query;
    let (mut any, mut missing) = (false, false);
    let _ = sqlparser::ast::visit_relations_mut(&mut *query, |name: &mut ObjectName| {
        if let Some([s, t]) = parts(name).as_deref() {
            if s == from {
                missing |= catalog.table(&RelName::new(to, t.clone())).is_none();
                *name = ObjectName(vec![ObjectNamePart::Identifier(ident(to)), ObjectNamePart::Identifier(ident(t))]);
                any = true;
            }
        }
        ControlFlow::<()>::Continue(())
    });
    (any && !missing).then(|| query.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, RelKind, Table};

    fn table(schema: &str, name: &str) -> Table {
        Table {
            name: RelName::new(schema, name),
            kind: RelKind::Table,
            comment: None,
            row_estimate: None,
            columns: vec![Column { name: "id".into(), type_name: "integer".into(), nullable: false, comment: None }],
            primary_key: vec!["id".into()],
        }
    }

    fn full() -> Catalog {
        Catalog {
            tables: vec![table("public", "cars"), table("car_1", "cars"), table("car_1", "car_makers"), table("car_1", "Model List"), table("geo", "countries")],
            ..Default::default()
        }
        .on_search_path(vec!["public".into()])
    }

    #[test]
    fn names_the_path_sends_elsewhere_or_nowhere_are_qualified_with_the_one_schema_in_scope() {
        let scoped = full().in_schemas(&["car_1".into()]);
        let r = resolve("SELECT count(*) FROM cars AS c JOIN car_makers AS m ON c.id = m.id", &scoped).unwrap();
        assert_eq!(r.sql, "SELECT count(*) FROM car_1.cars AS c JOIN car_1.car_makers AS m ON c.id = m.id");
        assert_eq!(r.changes.len(), 2);
        assert!(r.changes[0].contains("outside the schemas asked of"), "{:?}", r.changes);
        assert!(r.changes[1].contains("does not reach it"), "{:?}", r.changes);
        // a wrong schema is replaced; a mixed-case name keeps its quotes
        let r = resolve("SELECT * FROM public.\"Model List\"", &scoped).unwrap();
        assert_eq!(r.sql, "SELECT * FROM car_1.\"Model List\"");
    }

    #[test]
    fn resolved_names_ctes_and_names_several_relations_share_are_left_alone() {
        let scoped = full().in_schemas(&["car_1".into()]);
        assert_eq!(resolve("SELECT * FROM car_1.cars", &scoped), None);
        assert_eq!(resolve("WITH cars AS (SELECT 1 AS id) SELECT * FROM cars", &scoped), None);
        assert_eq!(resolve("SELECT * FROM nowhere", &scoped), None, "a name nothing has is for the repair to report");
        // in the whole catalog `cars` is public's on the path: it resolves, nothing changes
        assert_eq!(resolve("SELECT * FROM cars", &full()), None);
        // two schemas in scope hold `cars` and the path reaches neither: no guess
        let both = Catalog { tables: vec![table("a", "cars"), table("b", "cars")], ..Default::default() }.on_search_path(vec!["public".into()]);
        assert_eq!(resolve("SELECT * FROM cars", &both), None);
        assert_eq!(resolve("not sql", &both), None);
    }

    #[test]
    fn a_query_moves_to_another_schema_by_its_qualified_names() {
        let mut cat = full();
        cat.tables.push(table("geo", "cars"));
        assert_eq!(
            moved("SELECT count(*) FROM car_1.countries AS c WHERE c.id IN (SELECT id FROM car_1.cars)", "car_1", "geo", &cat).unwrap(),
            "SELECT count(*) FROM geo.countries AS c WHERE c.id IN (SELECT id FROM geo.cars)"
        );
        assert_eq!(moved("SELECT 1 FROM other.t", "car_1", "geo", &cat), None);
        assert_eq!(moved("SELECT 1 FROM car_1.car_makers", "car_1", "geo", &cat), None, "geo has no car_makers");
    }
}
