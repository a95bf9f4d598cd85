//! Schema linking: the tables and columns a question needs, from several sources, closed over the
//! foreign-key graph so that every needed join is possible.
//!
//! Sources (each a [`Linked`]): *reversed* linking reads the schema a draft SQL references from its
//! syntax tree ([`referenced`]); *value* linking takes the columns whose values the question names
//! (the value index); *direct* linking is what the model names. Their union is closed by
//! [`close_over_foreign_keys`]: every pair of linked tables is connected through a shortest path in
//! the (undirected) FK graph, adding the bridge tables and the key columns of every edge used.
//! DeepEye-SQL only adds keys between tables already selected; a bridge table the draft missed
//! (students → enrolments → courses) is what this adds.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use serde::Serialize;
use sqlparser::ast::{Expr, Query, Visit, Visitor};

use crate::catalog::{Catalog, RelName};
use crate::select::rewrite::base_relations;

/// Linked tables and columns.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Linked {
    pub tables: BTreeSet<RelName>,
    pub columns: BTreeSet<(RelName, String)>,
    /// Tables added by the closure (not linked by any source).
    pub bridges: BTreeSet<RelName>,
}

impl Linked {
    pub fn union(mut self, other: &Linked) -> Linked {
        self.tables.extend(other.tables.iter().cloned());
        self.columns.extend(other.columns.iter().cloned());
        self.bridges.extend(other.bridges.iter().cloned());
        self
    }

    pub fn add_column(&mut self, table: RelName, column: String) {
        self.tables.insert(table.clone());
        self.columns.insert((table, column));
    }
}

/// The schema a query references: its tables (resolved in the catalog by name, unqualified names
/// by the unique match) and the columns of those tables its identifiers name.
pub fn referenced(query: &Query, catalog: &Catalog) -> Linked {
    let mut out = Linked::default();
    for name in base_relations(query) {
        let parts: Vec<String> = name.0.iter().filter_map(|p| p.as_ident()).map(|i| i.value.to_lowercase()).collect();
        let table = match parts.as_slice() {
            [t] => catalog.tables.iter().find(|x| x.name.name.to_lowercase() == *t && catalog.resolve(None, &x.name.name).is_some()),
            [s, t] => catalog.tables.iter().find(|x| x.name.schema.to_lowercase() == *s && x.name.name.to_lowercase() == *t),
            _ => None,
        };
        if let Some(t) = table {
            out.tables.insert(t.name.clone());
        }
    }
    struct Idents(BTreeSet<String>);
    impl Visitor for Idents {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            match e {
                Expr::Identifier(i) => {
                    self.0.insert(i.value.to_lowercase());
                }
                Expr::CompoundIdentifier(parts) => {
                    if let Some(last) = parts.last() {
                        self.0.insert(last.value.to_lowercase());
                    }
                }
                _ => {}
            }
            ControlFlow::Continue(())
        }
    }
    let mut idents = Idents(BTreeSet::new());
    let _ = query.visit(&mut idents);
    for t in catalog.tables.iter().filter(|t| out.tables.contains(&t.name)) {
        for c in &t.columns {
            if idents.0.contains(&c.name.to_lowercase()) {
                out.columns.insert((t.name.clone(), c.name.clone()));
            }
        }
    }
    out
}

/// Direct linking: the tables and columns the model named, resolved in the catalog without regard
/// to case (`table`, `schema.table`; `table.column`, `schema.table.column`, or a bare column that
/// exactly one table has). Also returns the names that resolve to nothing (a model's inventions).
pub fn named(tables: &[String], columns: &[String], catalog: &Catalog) -> (Linked, Vec<String>) {
    let mut out = Linked::default();
    let mut unknown = Vec::new();
    let find_table = |parts: &[&str]| -> Option<&crate::catalog::Table> {
        let is = |a: &str, b: &str| a.eq_ignore_ascii_case(b.trim_matches('"'));
        let mut hits = catalog.tables.iter().filter(|t| match parts {
            [name] => is(&t.name.name, name),
            [schema, name] => is(&t.name.schema, schema) && is(&t.name.name, name),
            _ => false,
        });
        let first = hits.next()?;
        hits.next().is_none().then_some(first)
    };
    for name in tables {
        match find_table(&name.split('.').collect::<Vec<_>>()) {
            Some(t) => {
                out.tables.insert(t.name.clone());
            }
            None => unknown.push(name.clone()),
        }
    }
    for name in columns {
        let parts: Vec<&str> = name.split('.').collect();
        let (table, column) = match parts.split_last() {
            Some((col, [])) => {
                let mut owners = catalog.tables.iter().filter(|t| t.columns.iter().any(|c| c.name.eq_ignore_ascii_case(col)));
                match (owners.next(), owners.next()) {
                    (Some(t), None) => (Some(t), *col),
                    _ => (None, *col),
                }
            }
            Some((col, table)) => (find_table(table), *col),
            None => (None, ""),
        };
        match table.and_then(|t| t.columns.iter().find(|c| c.name.eq_ignore_ascii_case(column.trim_matches('"'))).map(|c| (t, c))) {
            Some((t, c)) => out.add_column(t.name.clone(), c.name.clone()),
            None => unknown.push(name.clone()),
        }
    }
    (out, unknown)
}

/// Close `linked` over the foreign keys: connect every pair of its tables through a shortest FK
/// path, adding bridge tables and the key columns of each edge on the paths.
pub fn close_over_foreign_keys(linked: &Linked, catalog: &Catalog) -> Linked {
    let graph: BTreeMap<&RelName, BTreeSet<&RelName>> = catalog.fk_graph();
    let mut out = linked.clone();
    let selected: Vec<&RelName> = linked.tables.iter().collect();
    for (i, a) in selected.iter().enumerate() {
        for b in &selected[i + 1..] {
            let Some(path) = Catalog::fk_path(&graph, a, b) else {
                continue;
            };
            for edge in path.windows(2) {
                let (u, v) = (edge[0], edge[1]);
                for t in [u, v] {
                    if out.tables.insert(t.clone()) {
                        out.bridges.insert(t.clone());
                    }
                }
                for fk in catalog.keys_between(u, v) {
                    for c in &fk.from_columns {
                        out.columns.insert((fk.from.clone(), c.clone()));
                    }
                    for c in &fk.to_columns {
                        out.columns.insert((fk.to.clone(), c.clone()));
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, ForeignKey, RelKind, Table};
    use crate::sql::check_query;

    fn table(name: &str, cols: &[&str]) -> Table {
        Table {
            name: RelName::new("public", name),
            kind: RelKind::Table,
            comment: None,
            row_estimate: None,
            columns: cols.iter().map(|c| Column { name: c.to_string(), type_name: "integer".into(), nullable: true, comment: None }).collect(),
            primary_key: vec![cols[0].to_string()],
        }
    }

    fn fk(from: &str, col: &str, to: &str, to_col: &str) -> ForeignKey {
        ForeignKey {
            name: format!("{from}_{col}_fk"),
            from: RelName::new("public", from),
            from_columns: vec![col.into()],
            to: RelName::new("public", to),
            to_columns: vec![to_col.into()],
        }
    }

    /// students ← enrolments → courses → departments; rooms unconnected.
    fn school() -> Catalog {
        Catalog {
            tables: vec![
                table("students", &["student_id", "name"]),
                table("enrolments", &["enrolment_id", "student_id", "course_id"]),
                table("courses", &["course_id", "title", "dept_id"]),
                table("departments", &["dept_id", "dept_name"]),
                table("rooms", &["room_id", "label"]),
            ],
            foreign_keys: vec![
                fk("enrolments", "student_id", "students", "student_id"),
                fk("enrolments", "course_id", "courses", "course_id"),
                fk("courses", "dept_id", "departments", "dept_id"),
            ],
            ..Default::default()
        }
    }

    #[test]
    fn reversed_linking_reads_tables_and_columns_from_the_ast() {
        let cat = school();
        let q = check_query("SELECT s.name FROM students s JOIN courses c ON c.title = s.name WHERE c.dept_id = 3").unwrap().query;
        let l = referenced(&q, &cat);
        let tables: Vec<&str> = l.tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(tables, vec!["courses", "students"]);
        assert!(l.columns.contains(&(RelName::new("public", "courses"), "dept_id".into())));
        assert!(l.columns.contains(&(RelName::new("public", "students"), "name".into())));
        assert!(!l.columns.iter().any(|(_, c)| c == "student_id"));
    }

    #[test]
    fn direct_linking_resolves_what_the_model_names_and_reports_inventions() {
        let cat = school();
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let (l, unknown) = named(
            &strings(&["Students", "public.courses", "teachers"]),
            &strings(&["students.name", "public.courses.TITLE", "dept_name", "course_id", "rooms.colour"]),
            &cat,
        );
        let tables: Vec<&str> = l.tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(tables, vec!["courses", "departments", "students"]);
        assert!(l.columns.contains(&(RelName::new("public", "courses"), "title".into())));
        assert!(l.columns.contains(&(RelName::new("public", "departments"), "dept_name".into())));
        // course_id is in two tables: ambiguous bare names are not guessed
        assert_eq!(unknown, strings(&["teachers", "course_id", "rooms.colour"]));
    }

    #[test]
    fn closure_adds_the_bridge_table_and_its_keys() {
        let cat = school();
        let mut l = Linked::default();
        l.add_column(RelName::new("public", "students"), "name".into());
        l.add_column(RelName::new("public", "departments"), "dept_name".into());
        l.tables.insert(RelName::new("public", "rooms"));
        let closed = close_over_foreign_keys(&l, &cat);
        let bridges: Vec<&str> = closed.bridges.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(bridges, vec!["courses", "enrolments"]);
        for (t, c) in [("enrolments", "student_id"), ("enrolments", "course_id"), ("courses", "dept_id"), ("departments", "dept_id")] {
            assert!(closed.columns.contains(&(RelName::new("public", t), c.into())), "{t}.{c}");
        }
        // an unconnected table stays, alone
        assert!(closed.tables.contains(&RelName::new("public", "rooms")));
        assert_eq!(closed.tables.len(), 5);
        // nothing to connect: unchanged
        let single = close_over_foreign_keys(&referenced(&check_query("SELECT name FROM students").unwrap().query, &cat), &cat);
        assert!(single.bridges.is_empty());
        // the pruned schema generation sees: the linked tables and the keys among them
        let part = cat.restricted_to(&close_over_foreign_keys(&l, &cat).tables);
        assert_eq!((part.tables.len(), part.foreign_keys.len()), (5, 3));
        let part = cat.restricted_to(&single.tables);
        assert_eq!((part.tables.len(), part.foreign_keys.len()), (1, 0));
    }
}
