//! Which schemas a question is asked of, decided before its schema context is built.
//!
//! PostgreSQL resolves an unqualified name on the caller's `search_path`; a question is scoped
//! the same way, so a database of many schemas reads like the part of it the caller works in:
//!
//! 1. **Named**: the schemas of the option `schemas` (setting `nl2sql.schemas`) are the scope;
//!    `*` is every schema the caller may use.
//! 2. **The search path**: otherwise the schemas on the caller's `search_path` that hold a
//!    relation they can read, unless no word of the question fits them while some schema off
//!    the path fits (then 3.). The path wins every tie: the caller chose it.
//! 3. **The best fit**: the schema whose names cover most of the question's words (a word that
//!    names a table, or the schema, counts 2; one that names only a column, 1); among schemas
//!    that cover it as well, the one whose single best table fits best is asked of, and the others
//!    are *readings*: the run says so (`ambiguous`) when the same query reads them too, instead of
//!    a silent pick.
//!
//! Schemas joined to the scope by foreign keys come with it (one data model across schemas). When
//! the path holds nothing the caller can read and no schema fits, every schema is the scope and
//! the schema context's budget chooses among their tables.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::stems;
use crate::catalog::Catalog;
use crate::error::{Error, Kind, Result};

/// How many of the other readings the explanation names.
const READINGS_SHOWN: usize = 3;

/// Why the scope is what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The caller can read relations of one schema only.
    Single,
    /// The option `schemas` or the setting `nl2sql.schemas`.
    Named,
    /// The caller's `search_path`.
    SearchPath,
    /// The schema that fits the question best (the path holds nothing that fits).
    BestFit,
    /// Nothing fits anywhere: every schema.
    Everything,
}

/// The schemas a question is asked of.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaScope {
    pub schemas: Vec<String>,
    pub origin: Origin,
    /// Other schemas that fit the question exactly as well as the chosen one (best fit only).
    pub readings: Vec<String>,
    /// Schemas the caller may use that are outside the scope.
    pub outside: usize,
    /// Schemas named (option or setting) that hold nothing the caller can read.
    pub unknown: Vec<String>,
}

impl SchemaScope {
    /// The scope in words, for the explanation.
    pub fn describe(&self) -> String {
        let list = self.schemas.join(", ");
        let mut text = match self.origin {
            Origin::Single => return format!("schema {list}"),
            Origin::Named => format!("schemas {list} (named by the option schemas or nl2sql.schemas)"),
            Origin::SearchPath => format!("schemas {list} (the search_path)"),
            Origin::BestFit => format!("schema {list}: its names fit the question best, and no table on the search_path does"),
            Origin::Everything => format!("every schema ({list}): no schema's names fit the question"),
        };
        if self.outside > 0 && self.origin != Origin::Everything {
            text.push_str(&format!("; {} other schemas not considered", self.outside));
        }
        if !self.readings.is_empty() {
            let shown: Vec<&str> = self.readings.iter().take(READINGS_SHOWN).map(String::as_str).collect();
            let more = self.readings.len().saturating_sub(READINGS_SHOWN);
            text.push_str(&format!(
                "; {} fit{} as well{}",
                shown.join(", "),
                if self.readings.len() == 1 { "s" } else { "" },
                if more > 0 { format!(" (and {more} more)") } else { String::new() }
            ));
        }
        if !self.unknown.is_empty() {
            text.push_str(&format!("; named but holding nothing you can read: {}", self.unknown.join(", ")));
        }
        text
    }

    pub fn to_json(&self) -> Value {
        let origin = match self.origin {
            Origin::Single => "single",
            Origin::Named => "named",
            Origin::SearchPath => "search_path",
            Origin::BestFit => "best_fit",
            Origin::Everything => "everything",
        };
        json!({"schemas": self.schemas, "origin": origin, "readings": self.readings,
               "outside": self.outside, "unknown": self.unknown})
    }
}

/// How well a schema's names fit a question: (coverage, best single table).
fn fit(catalog: &Catalog, schema: &str, question: &BTreeSet<String>) -> (usize, usize) {
    let tables: Vec<_> = catalog.tables.iter().filter(|t| t.name.schema == schema).collect();
    let mut named: BTreeSet<String> = stems(schema);
    let mut columns: BTreeSet<String> = BTreeSet::new();
    let mut best_table = 0;
    for t in &tables {
        let name = stems(&t.name.name);
        let cols: BTreeSet<String> = t.columns.iter().flat_map(|c| stems(&c.name)).collect();
        best_table = best_table.max(3 * question.intersection(&name).count() + question.intersection(&cols).count());
        named.extend(name);
        columns.extend(cols);
    }
    let coverage = question.iter().map(|w| if named.contains(w) { 2 } else { usize::from(columns.contains(w)) }).sum();
    (coverage, best_table)
}

/// `schemas` and every schema joined to them by a foreign key, transitively.
fn joined(catalog: &Catalog, schemas: Vec<String>) -> Vec<String> {
    let mut set: BTreeSet<String> = schemas.into_iter().collect();
    loop {
        let before = set.len();
        for fk in &catalog.foreign_keys {
            if set.contains(&fk.from.schema) || set.contains(&fk.to.schema) {
                set.insert(fk.from.schema.clone());
                set.insert(fk.to.schema.clone());
            }
        }
        if set.len() == before {
            return set.into_iter().collect();
        }
    }
}

/// The schemas `question` is asked of in `catalog` (the caller's, with their `search_path`), with
/// `named` the schemas the option or setting names (empty: none named).
pub fn choose(catalog: &Catalog, named: &[String], question: &str) -> Result<SchemaScope> {
    let visible: Vec<String> = catalog.schemas().into_iter().map(str::to_string).collect();
    let scope = |schemas: Vec<String>, origin: Origin, readings: Vec<String>, unknown: Vec<String>| {
        let schemas = if origin == Origin::Named { schemas } else { joined(catalog, schemas) };
        let outside = visible.iter().filter(|s| !schemas.contains(s)).count();
        SchemaScope { schemas, origin, readings, outside, unknown }
    };
    if !named.is_empty() {
        if named.iter().any(|n| n == "*") {
            return Ok(scope(visible.clone(), Origin::Named, vec![], vec![]));
        }
        let (known, unknown): (Vec<String>, Vec<String>) = named.iter().cloned().partition(|n| visible.contains(n));
        if known.is_empty() {
            return Err(Error::new(Kind::UndefinedObject, format!("none of the schemas named ({}) holds a relation you can SELECT", named.join(", ")))
                .with_hint("Name schemas you may use in the option schemas or the setting nl2sql.schemas (comma-separated, * for all), or leave both empty to follow search_path."));
        }
        return Ok(scope(known, Origin::Named, vec![], unknown));
    }
    if visible.len() <= 1 {
        return Ok(scope(visible.clone(), Origin::Single, vec![], vec![]));
    }
    let path: Vec<String> = if catalog.search_path.is_empty() {
        // no path known: every schema is as reachable as any other
        visible.clone()
    } else {
        catalog.search_path.iter().filter(|s| visible.contains(s)).cloned().collect()
    };
    let words = stems(question);
    let fits: BTreeMap<&str, (usize, usize)> = visible.iter().map(|s| (s.as_str(), fit(catalog, s, &words))).collect();
    let path_fits = path.iter().any(|s| fits[s.as_str()].0 > 0);
    if !path.is_empty() && (path_fits || path.len() == visible.len()) {
        return Ok(scope(path, Origin::SearchPath, vec![], vec![]));
    }
    let best = fits.iter().filter(|(s, _)| !path.iter().any(|p| p == *s)).map(|(_, f)| *f).max().unwrap_or((0, 0));
    if best.0 == 0 {
        // nothing fits: on the path if it holds anything, else everywhere
        return Ok(if path.is_empty() { scope(visible.clone(), Origin::Everything, vec![], vec![]) } else { scope(path, Origin::SearchPath, vec![], vec![]) });
    }
    // every schema whose names cover the question as well is a reading; the one whose single
    // table fits best is asked of first
    let tied: Vec<String> = fits.iter().filter(|(s, f)| f.0 == best.0 && !path.iter().any(|p| p == *s)).map(|(s, _)| s.to_string()).collect();
    let first = fits.iter().filter(|(s, f)| **f == best && !path.iter().any(|p| p == *s)).map(|(s, _)| s.to_string()).next().expect("the best fit");
    let readings = tied.into_iter().filter(|s| *s != first).collect();
    Ok(scope(vec![first], Origin::BestFit, readings, vec![]))
}

/// The `schemas` option or `nl2sql.schemas` setting: comma-separated schema names (as written,
/// unquoted, or in double quotes to keep their case), `*` for every schema; empty for none named.
pub fn parse_list(text: &str) -> std::result::Result<Vec<String>, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let name = if let Some(inner) = part.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
            inner.replace("\"\"", "\"")
        } else if part == "*" || part.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            part.to_lowercase()
        } else {
            return Err(format!("\"{part}\" is not a schema name (write names separated by commas, in double quotes when they hold other characters)"));
        };
        if !out.contains(&name) {
            out.push(name);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, RelKind, RelName, Table};

    fn table(schema: &str, name: &str, cols: &[&str]) -> Table {
        Table {
            name: RelName::new(schema, name),
            kind: RelKind::Table,
            comment: None,
            row_estimate: Some(10.0),
            columns: cols.iter().map(|c| Column { name: c.to_string(), type_name: "text".into(), nullable: true, comment: None }).collect(),
            primary_key: vec![cols[0].to_string()],
        }
    }

    /// Three schemas with look-alike names, as benchmark databases loaded side by side are.
    fn many(path: &[&str]) -> Catalog {
        Catalog {
            tables: vec![
                table("car_1", "countries", &["countryid", "countryname", "continent"]),
                table("car_1", "cars_data", &["id", "mpg", "horsepower", "year"]),
                table("car_1", "car_makers", &["id", "maker", "country"]),
                table("world_1", "country", &["code", "name", "continent", "population"]),
                table("world_1", "city", &["id", "name", "countrycode", "population"]),
                table("geo", "countries", &["id", "name", "area"]),
                table("concert_singer", "singer", &["singer_id", "name", "country", "age"]),
                table("concert_singer", "concert", &["concert_id", "concert_name", "year"]),
            ],
            ..Default::default()
        }
        .on_search_path(path.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn the_search_path_is_the_scope_when_it_fits_the_question() {
        let s = choose(&many(&["car_1"]), &[], "How many countries are there?").unwrap();
        assert_eq!((s.schemas.clone(), s.origin), (vec!["car_1".to_string()], Origin::SearchPath));
        assert!(s.readings.is_empty(), "the path decides; no other reading is offered");
        assert_eq!(s.outside, 3);
        assert!(s.describe().contains("the search_path"), "{}", s.describe());
        assert_eq!(s.to_json()["origin"], json!("search_path"));
    }

    #[test]
    fn off_the_path_the_best_fitting_schema_is_chosen() {
        let s = choose(&many(&["public"]), &[], "What is the average horsepower of cars made in 1970?").unwrap();
        assert_eq!((s.schemas.clone(), s.origin), (vec!["car_1".to_string()], Origin::BestFit));
        assert!(s.readings.is_empty());
        let s = choose(&many(&["public"]), &[], "Which singers are older than 40?").unwrap();
        assert_eq!(s.schemas, vec!["concert_singer".to_string()]);
        // a path that holds tables the question does not fit does not keep it from the schema that fits
        let s = choose(&many(&["geo"]), &[], "Which singers are older than 40?").unwrap();
        assert_eq!((s.schemas.clone(), s.origin), (vec!["concert_singer".to_string()], Origin::BestFit));
    }

    #[test]
    fn schemas_that_fit_equally_well_are_readings() {
        let s = choose(&many(&["public"]), &[], "How many countries are there?").unwrap();
        assert_eq!(s.origin, Origin::BestFit);
        assert_eq!(s.schemas, vec!["car_1".to_string()]);
        assert_eq!(s.readings, vec!["geo".to_string(), "world_1".to_string()], "{s:?}");
        assert!(s.describe().contains("geo, world_1 fit as well"), "{}", s.describe());
    }

    #[test]
    fn named_schemas_are_the_scope_and_unknown_names_are_reported() {
        let s = choose(&many(&["car_1"]), &["world_1".into(), "nowhere".into()], "How many countries?").unwrap();
        assert_eq!((s.schemas.clone(), s.origin), (vec!["world_1".to_string()], Origin::Named));
        assert_eq!(s.unknown, vec!["nowhere".to_string()]);
        let all = choose(&many(&["car_1"]), &["*".into()], "How many countries?").unwrap();
        assert_eq!(all.schemas.len(), 4);
        let e = choose(&many(&["car_1"]), &["nowhere".into()], "How many countries?").unwrap_err();
        assert_eq!(e.sqlstate, "42704");
    }

    #[test]
    fn nothing_fits_anywhere_means_every_schema_and_one_schema_is_the_scope() {
        let s = choose(&many(&["public"]), &[], "Wie viele gibt es?").unwrap();
        assert_eq!(s.origin, Origin::Everything);
        assert_eq!(s.schemas.len(), 4);
        let one = Catalog { tables: vec![table("public", "singer", &["id", "name"])], ..Default::default() }.on_search_path(vec!["public".into()]);
        assert_eq!(choose(&one, &[], "anything").unwrap().origin, Origin::Single);
    }

    #[test]
    fn foreign_keys_bring_the_schemas_they_join() {
        let retail = crate::testing::retail().on_search_path(vec!["sales".into()]);
        let s = choose(&retail, &[], "Which products sold the most units to customers?").unwrap();
        assert_eq!(s.origin, Origin::SearchPath);
        assert_eq!(s.schemas, vec!["catalog".to_string(), "sales".to_string()], "order_lines references catalog.products");
        // without a known path, every schema is reachable: nothing is narrowed
        let s = choose(&crate::testing::retail(), &[], "How many employees?").unwrap();
        assert_eq!(s.schemas.len(), 3);
    }

    #[test]
    fn the_list_parses_like_identifiers() {
        assert_eq!(parse_list(" Sales, \"Mixed Case\" ,hr,sales").unwrap(), vec!["sales", "Mixed Case", "hr"]);
        assert_eq!(parse_list("*").unwrap(), vec!["*"]);
        assert!(parse_list("").unwrap().is_empty());
        assert!(parse_list("a;b").is_err());
    }
}
