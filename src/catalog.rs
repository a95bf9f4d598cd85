//! The schema a caller can see, as plain values: tables and views with their columns, keys,
//! comments and row estimates, and the foreign-key graph between them.
//!
//! The extension's catalog reader fills a [`Catalog`] once per call from `pg_catalog`, keeping only
//! relations the current user may SELECT from (and only the columns they may read).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

/// A schema-qualified relation name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RelName {
    pub schema: String,
    pub name: String,
}

impl RelName {
    pub fn new(schema: impl Into<String>, name: impl Into<String>) -> Self {
        RelName { schema: schema.into(), name: name.into() }
    }
}

impl fmt::Display for RelName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", quote_ident(&self.schema), quote_ident(&self.name))
    }
}

/// Quote an identifier the way PostgreSQL's `quote_ident` does: only when needed.
pub fn quote_ident(ident: &str) -> String {
    let plain = ident
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && ident.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !is_reserved(ident);
    if plain {
        ident.to_string()
    } else {
        format!("\"{}\"", ident.replace('"', "\"\""))
    }
}

/// Keywords that can never be bare column or table names in PostgreSQL.
fn is_reserved(word: &str) -> bool {
    const RESERVED: &[&str] = &[
        "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "both", "case",
        "cast", "check", "collate", "column", "constraint", "create", "current_catalog",
        "current_date", "current_role", "current_time", "current_timestamp", "current_user",
        "default", "deferrable", "desc", "distinct", "do", "else", "end", "except", "false", "fetch",
        "for", "foreign", "from", "grant", "group", "having", "in", "initially", "intersect", "into",
        "lateral", "leading", "limit", "localtime", "localtimestamp", "not", "null", "offset", "on",
        "only", "or", "order", "placing", "primary", "references", "returning", "select",
        "session_user", "some", "symmetric", "table", "then", "to", "trailing", "true", "union",
        "unique", "user", "using", "variadic", "when", "where", "window", "with",
    ];
    RESERVED.contains(&word)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelKind {
    Table,
    PartitionedTable,
    View,
    MaterializedView,
    ForeignTable,
}

impl RelKind {
    /// From `pg_class.relkind`.
    pub fn from_relkind(c: char) -> Option<Self> {
        Some(match c {
            'r' => RelKind::Table,
            'p' => RelKind::PartitionedTable,
            'v' => RelKind::View,
            'm' => RelKind::MaterializedView,
            'f' => RelKind::ForeignTable,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    /// `format_type(atttypid, atttypmod)`, e.g. `character varying(40)`.
    pub type_name: String,
    pub nullable: bool,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub name: RelName,
    pub kind: RelKind,
    pub comment: Option<String>,
    /// `pg_class.reltuples`; `None` when the relation was never analysed.
    pub row_estimate: Option<f64>,
    pub columns: Vec<Column>,
    pub primary_key: Vec<String>,
}

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

/// A foreign key `from(from_columns) REFERENCES to(to_columns)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForeignKey {
    pub name: String,
    pub from: RelName,
    pub from_columns: Vec<String>,
    pub to: RelName,
    pub to_columns: Vec<String>,
}

/// A catalog read from its JSON (`nl2sql_schema()`) resolves names on its `search_path` as the
/// one it was written from did: the names on that path are rebuilt ([`Catalog::on_search_path`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(from = "CatalogJson")]
pub struct Catalog {
    pub tables: Vec<Table>,
    pub foreign_keys: Vec<ForeignKey>,
    /// The caller's effective `search_path` (`current_schemas(false)`: the schemas that exist and
    /// they may use, in order); empty when unknown, and then an unqualified name means the one
    /// table of that name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub search_path: Vec<String>,
    /// What an unqualified name means on that path (the table of the first schema holding it), as
    /// PostgreSQL resolves it. Set by [`Catalog::on_search_path`] and kept when the catalog is
    /// narrowed, so a name the path sends outside the narrowed part resolves to nothing there.
    #[serde(skip)]
    pub path_names: BTreeMap<String, RelName>,
}

/// The fields a catalog's JSON carries.
#[derive(Deserialize)]
struct CatalogJson {
    tables: Vec<Table>,
    foreign_keys: Vec<ForeignKey>,
    #[serde(default)]
    search_path: Vec<String>,
}

impl From<CatalogJson> for Catalog {
    fn from(c: CatalogJson) -> Self {
        Catalog { tables: c.tables, foreign_keys: c.foreign_keys, ..Default::default() }.on_search_path(c.search_path)
    }
}

impl Catalog {
    pub fn table(&self, name: &RelName) -> Option<&Table> {
        self.tables.iter().find(|t| &t.name == name)
    }

    /// This catalog with the caller's `search_path`: unqualified names then resolve as PostgreSQL
    /// resolves them.
    pub fn on_search_path(mut self, path: Vec<String>) -> Catalog {
        let mut names = BTreeMap::new();
        for schema in path.iter().rev() {
            for t in self.tables.iter().filter(|t| &t.name.schema == schema) {
                names.insert(t.name.name.clone(), t.name.clone());
            }
        }
        self.search_path = path;
        self.path_names = names;
        self
    }

    /// The schemas of the catalog's relations, in order, each once.
    pub fn schemas(&self) -> Vec<&str> {
        let set: BTreeSet<&str> = self.tables.iter().map(|t| t.name.schema.as_str()).collect();
        set.into_iter().collect()
    }

    /// Is `name` written unqualified in a query the relation the caller's `search_path` gives?
    /// Without a known path, a relation of `public` is.
    pub fn reachable_unqualified(&self, name: &RelName) -> bool {
        if self.search_path.is_empty() {
            name.schema == "public"
        } else {
            self.path_names.get(&name.name) == Some(name)
        }
    }

    /// Find a relation by the name a query would use: qualified; or unqualified, as the caller's
    /// `search_path` resolves it (when known), else the one relation of that name.
    pub fn resolve(&self, schema: Option<&str>, name: &str) -> Option<&Table> {
        if schema.is_none() && !self.search_path.is_empty() {
            return self.path_names.get(name).and_then(|r| self.table(r));
        }
        let mut hits = self
            .tables
            .iter()
            .filter(|t| t.name.name == name && schema.is_none_or(|s| t.name.schema == s));
        let first = hits.next()?;
        hits.next().is_none().then_some(first)
    }

    /// The table a FROM-clause name refers to (`t` or `s.t`, resolved as [`Catalog::resolve`]
    /// does), each part read as PostgreSQL reads it: folded to lower case unless quoted
    /// (`sales."Customers"` is `Customers`, `sales.Customers` is `customers`).
    pub fn resolve_object(&self, name: &sqlparser::ast::ObjectName) -> Option<&Table> {
        let parts: Vec<String> = name
            .0
            .iter()
            .filter_map(|p| p.as_ident())
            .map(|i| if i.quote_style.is_some() { i.value.clone() } else { i.value.to_lowercase() })
            .collect();
        match parts.as_slice() {
            [t] => self.resolve(None, t),
            [s, t] => self.resolve(Some(s), t),
            _ => None,
        }
    }

    /// The part of the catalog on `tables`: those tables and the foreign keys between them (the
    /// search path kept).
    pub fn restricted_to(&self, tables: &BTreeSet<RelName>) -> Catalog {
        Catalog {
            tables: self.tables.iter().filter(|t| tables.contains(&t.name)).cloned().collect(),
            foreign_keys: self
                .foreign_keys
                .iter()
                .filter(|fk| tables.contains(&fk.from) && tables.contains(&fk.to))
                .cloned()
                .collect(),
            search_path: self.search_path.clone(),
            path_names: self.path_names.clone(),
        }
    }

    /// The part of the catalog in `schemas`.
    pub fn in_schemas(&self, schemas: &[String]) -> Catalog {
        let tables = self.tables.iter().filter(|t| schemas.contains(&t.name.schema)).map(|t| t.name.clone()).collect();
        self.restricted_to(&tables)
    }

    /// The FK graph as undirected adjacency: for each relation, the relations one key away.
    /// Keys to or from relations the caller cannot see are not in the catalog at all.
    pub fn fk_graph(&self) -> BTreeMap<&RelName, BTreeSet<&RelName>> {
        let mut graph: BTreeMap<&RelName, BTreeSet<&RelName>> =
            self.tables.iter().map(|t| (&t.name, BTreeSet::new())).collect();
        for fk in &self.foreign_keys {
            if fk.from == fk.to {
                continue;
            }
            graph.entry(&fk.from).or_default().insert(&fk.to);
            graph.entry(&fk.to).or_default().insert(&fk.from);
        }
        graph
    }

    /// A shortest path of foreign keys from `a` to `b` over `graph` ([`Catalog::fk_graph`]), both
    /// ends included; `None` when no keys connect them.
    pub fn fk_path<'a>(graph: &BTreeMap<&'a RelName, BTreeSet<&'a RelName>>, a: &'a RelName, b: &'a RelName) -> Option<Vec<&'a RelName>> {
        pathfinding::directed::bfs::bfs(&a, |n: &&RelName| graph.get(*n).into_iter().flatten().copied().collect::<Vec<_>>(), |n| *n == b)
    }

    /// Foreign keys that connect `a` and `b`, in either direction.
    pub fn keys_between<'a>(
        &'a self,
        a: &'a RelName,
        b: &'a RelName,
    ) -> impl Iterator<Item = &'a ForeignKey> + 'a {
        self.foreign_keys
            .iter()
            .filter(move |fk| (&fk.from == a && &fk.to == b) || (&fk.from == b && &fk.to == a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(schema: &str, name: &str) -> Table {
        Table {
            name: RelName::new(schema, name),
            kind: RelKind::Table,
            comment: None,
            row_estimate: None,
            columns: vec![Column {
                name: "id".into(),
                type_name: "integer".into(),
                nullable: false,
                comment: None,
            }],
            primary_key: vec!["id".into()],
        }
    }

    #[test]
    fn quote_ident_matches_postgres() {
        assert_eq!(quote_ident("orders"), "orders");
        assert_eq!(quote_ident("Orders"), "\"Orders\"");
        assert_eq!(quote_ident("order"), "\"order\"");
        assert_eq!(quote_ident("a\"b"), "\"a\"\"b\"");
        assert_eq!(quote_ident("1st"), "\"1st\"");
        assert_eq!(quote_ident("größe"), "\"größe\"");
        assert_eq!(RelName::new("public", "User").to_string(), "public.\"User\"");
    }

    #[test]
    fn fk_graph_is_undirected_and_resolve_is_unambiguous() {
        let cat = Catalog {
            tables: vec![table("public", "a"), table("public", "b"), table("s", "b"), table("public", "c")],
            foreign_keys: vec![ForeignKey {
                name: "b_a_fk".into(),
                from: RelName::new("public", "b"),
                from_columns: vec!["a_id".into()],
                to: RelName::new("public", "a"),
                to_columns: vec!["id".into()],
            }],
            ..Default::default()
        };
        let g = cat.fk_graph();
        let a = RelName::new("public", "a");
        let b = RelName::new("public", "b");
        assert!(g[&a].contains(&b) && g[&b].contains(&a));
        assert!(g[&RelName::new("public", "c")].is_empty());
        assert_eq!(cat.keys_between(&a, &b).count(), 1);
        assert!(cat.resolve(None, "b").is_none(), "b exists in two schemas");
        assert_eq!(cat.resolve(Some("s"), "b").unwrap().name.schema, "s");
        assert_eq!(cat.resolve(None, "c").unwrap().name.name, "c");
    }

    #[test]
    fn a_catalog_read_from_its_json_resolves_on_its_search_path() {
        let cat = Catalog { tables: vec![table("sales", "b"), table("hr", "b")], ..Default::default() }.on_search_path(vec!["hr".into(), "sales".into()]);
        let read: Catalog = serde_json::from_str(&serde_json::to_string(&cat).unwrap()).unwrap();
        assert_eq!(read, cat);
        assert_eq!(read.resolve(None, "b").unwrap().name.schema, "hr");
    }

    #[test]
    fn unqualified_names_resolve_as_the_search_path_says() {
        let cat = Catalog {
            tables: vec![table("public", "a"), table("sales", "b"), table("hr", "b"), table("hr", "c")],
            ..Default::default()
        }
        .on_search_path(vec!["hr".into(), "public".into()]);
        assert_eq!(cat.resolve(None, "b").unwrap().name, RelName::new("hr", "b"), "hr comes first on the path");
        assert_eq!(cat.resolve(None, "a").unwrap().name, RelName::new("public", "a"));
        assert!(cat.resolve(None, "x").is_none());
        assert!(cat.reachable_unqualified(&RelName::new("hr", "b")));
        assert!(!cat.reachable_unqualified(&RelName::new("sales", "b")), "shadowed by hr.b");
        // narrowed to sales, `b` still means hr.b: it resolves to nothing there, not to sales.b
        let sales = cat.in_schemas(&["sales".into()]);
        assert_eq!(sales.tables.len(), 1);
        assert!(sales.resolve(None, "b").is_none());
        assert_eq!(sales.resolve(Some("sales"), "b").unwrap().name.schema, "sales");
        assert_eq!(cat.schemas(), vec!["hr", "public", "sales"]);
    }

    #[test]
    fn a_quoted_name_keeps_its_case_and_an_unquoted_one_folds() {
        let cat = Catalog { tables: vec![table("sales", "Customers"), table("sales", "orders")], ..Default::default() }
            .on_search_path(vec!["sales".into()]);
        let object = |sql: &str| match &crate::sql::check_query(&format!("SELECT 1 FROM {sql}")).unwrap().query.body.as_ref() {
            sqlparser::ast::SetExpr::Select(s) => match &s.from[0].relation {
                sqlparser::ast::TableFactor::Table { name, .. } => name.clone(),
                _ => unreachable!(),
            },
            _ => unreachable!(),
        };
        assert_eq!(cat.resolve_object(&object("sales.\"Customers\"")).unwrap().name.name, "Customers");
        assert_eq!(cat.resolve_object(&object("\"Customers\"")).unwrap().name.name, "Customers");
        assert_eq!(cat.resolve_object(&object("SALES.ORDERS")).unwrap().name.name, "orders");
        // as PostgreSQL: unquoted, `Customers` is `customers`, which does not exist
        assert!(cat.resolve_object(&object("sales.Customers")).is_none());
        assert!(cat.resolve_object(&object("\"ORDERS\"")).is_none());
    }
}
