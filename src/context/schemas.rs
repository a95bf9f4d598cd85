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
//!    are *readings*: a verified answer says so (`ambiguous`, with the same query read from the
//!    other schema when it plans there, the schemas named otherwise) instead of a silent pick.
//!
//! Schemas joined to the scope by foreign keys come with it (one data model across schemas). When
//! the path holds nothing the caller can read and no schema fits, every schema is the scope and
//! the schema context's budget chooses among their tables.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::{stem, stems};
use crate::catalog::Catalog;
use crate::error::{Error, Kind, Result};
use crate::lexicon;
use crate::scope::link;

/// At most this many stored values are checked as the caller to settle the choice among schemas.
pub const SETTLING_CHECKS: usize = 24;

/// How far below the best coverage a schema may be and still be chosen for the values it stores:
/// a value the question names counts as a table's name (2), so it can break a tie, or overturn a
/// lead of one column's word. Measured on every `spider_train` question in one database
/// (`bench/many_schemas.rs --choice`): margins 0, 1, 2, 3 ask 76.2%, 76.9%, 77.0%, 77.0% of the
/// questions of their own schema, and 9.2%, 8.3%, 8.1%, 8.1% of another.
pub const VALUE_MARGIN: usize = 2;

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
    /// The question's words that values stored in the chosen schema name, when they settled a tie
    /// between schemas whose names fit as well ([`settle_by_values`]).
    pub values: Vec<String>,
    /// Best fit only: the schemas whose names cover the question within [`VALUE_MARGIN`] of the
    /// best, with their coverage, best first (the chosen schema and its readings among them):
    /// the schemas the values it stores may settle the choice among.
    pub contenders: Vec<(String, usize)>,
}

impl SchemaScope {
    /// The other readings in words: the first [`READINGS_SHOWN`], and how many more.
    pub fn readings_named(&self) -> String {
        let shown: Vec<&str> = self.readings.iter().take(READINGS_SHOWN).map(String::as_str).collect();
        let more = self.readings.len().saturating_sub(READINGS_SHOWN);
        if more > 0 { format!("{} (and {more} more)", shown.join(", ")) } else { shown.join(", ") }
    }

    /// The scope in words, for the explanation.
    pub fn describe(&self) -> String {
        let list = self.schemas.join(", ");
        let mut text = match self.origin {
            Origin::Single => return format!("schema {list}"),
            Origin::Named => format!("schemas {list} (named by the option schemas or nl2sql.schemas)"),
            Origin::SearchPath => format!("schemas {list} (the search_path)"),
            Origin::BestFit if self.values.is_empty() => format!("schema {list}: its names fit the question best, and no table on the search_path does"),
            Origin::BestFit => format!(
                "schema {list}: its names fit the question best or nearly, and no table on the search_path does; it stores values the question names ({})",
                self.values.join(", ")
            ),
            Origin::Everything => format!("every schema ({list}): no schema's names fit the question"),
        };
        if self.outside > 0 && self.origin != Origin::Everything {
            text.push_str(&format!("; {} other schemas not considered", self.outside));
        }
        if !self.readings.is_empty() {
            text.push_str(&format!("; {} fit{} as well", self.readings_named(), if self.readings.len() == 1 { "s" } else { "" }));
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
               "outside": self.outside, "unknown": self.unknown, "values": self.values})
    }
}

/// The words of a schema's names: of each table, its name's and its columns' words.
struct SchemaWords {
    tables: Vec<(BTreeSet<String>, BTreeSet<String>)>,
}

impl SchemaWords {
    /// Every word of the schema's names, tables' and columns'.
    fn all(&self) -> impl Iterator<Item = &String> {
        self.tables.iter().flat_map(|(t, c)| t.iter().chain(c.iter()))
    }
}

/// The words the catalog's names are made of (tokens of at least 4 letters, singular, and the
/// lexicon's identifier parts): what a name written as one word is split by.
fn vocabulary(catalog: &Catalog) -> BTreeSet<String> {
    let mut words: BTreeSet<String> = lexicon::IDENTIFIER_PARTS.iter().map(|w| w.to_string()).collect();
    for t in &catalog.tables {
        for name in std::iter::once(&t.name.name).chain(t.columns.iter().map(|c| &c.name)) {
            words.extend(link::tokens(name).iter().map(|w| stem(w)).filter(|w| w.len() >= 4));
        }
    }
    words
}

/// The stems of a name, with the parts of a token written as one word that the vocabulary shows
/// (`firstname`: first; `classroom`: class, room), as the `scope` stage's linking splits them, and
/// the forms a question writes the name's words in: the stem of its plural (`movie`: what
/// "movies" stems to) and the verb of a past participle (`date_opened`: open).
fn name_stems(name: &str, vocabulary: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = stems(name);
    for token in link::tokens(name) {
        out.extend(stems(&link::compound_parts(&token, vocabulary).join(" ")));
    }
    let forms: Vec<String> = out
        .iter()
        .flat_map(|w| {
            let mut f = vec![stem(&format!("{w}s"))];
            if let Some(verb) = w.strip_suffix("ed").filter(|v| v.len() >= 3) {
                f.push(verb.to_string());
                f.push(format!("{verb}e"));
            }
            f
        })
        .collect();
    out.extend(forms);
    out
}

/// The words of the names of every schema `keep` keeps (one written as one word split by the
/// whole catalog's vocabulary).
fn schema_words(catalog: &Catalog, keep: impl Fn(&str) -> bool) -> BTreeMap<String, SchemaWords> {
    let vocabulary = vocabulary(catalog);
    let mut out: BTreeMap<String, SchemaWords> = BTreeMap::new();
    for t in catalog.tables.iter().filter(|t| keep(&t.name.schema)) {
        let name = name_stems(&t.name.name, &vocabulary);
        let cols: BTreeSet<String> = t.columns.iter().flat_map(|c| name_stems(&c.name, &vocabulary)).collect();
        out.entry(t.name.schema.clone()).or_insert_with(|| SchemaWords { tables: Vec::new() }).tables.push((name, cols));
    }
    out
}

/// How well a schema's names fit a question: (coverage, best single table).
fn fit(schema: &str, words: &SchemaWords, question: &BTreeSet<String>) -> (usize, usize) {
    let mut named: BTreeSet<&String> = BTreeSet::new();
    let schema_stems = stems(schema);
    let mut columns: BTreeSet<&String> = BTreeSet::new();
    let mut best_table = 0;
    for (name, cols) in &words.tables {
        best_table = best_table.max(3 * question.intersection(name).count() + question.intersection(cols).count());
        named.extend(name);
        columns.extend(cols);
    }
    let coverage = question
        .iter()
        .map(|w| if named.contains(w) || schema_stems.contains(w) { 2 } else { usize::from(columns.contains(w)) })
        .sum();
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
        SchemaScope { schemas, origin, readings, outside, unknown, values: Vec::new(), contenders: Vec::new() }
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
    let names = schema_words(catalog, |_| true);
    let fits: BTreeMap<&str, (usize, usize)> = names.iter().map(|(s, n)| (s.as_str(), fit(s, n, &words))).collect();
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
    let mut chosen = scope(vec![first], Origin::BestFit, readings, vec![]);
    // the schemas within the margin of the best, best first: what stored values may settle
    let mut near: Vec<(&str, (usize, usize))> =
        fits.iter().filter(|(s, f)| f.0 > 0 && f.0 + VALUE_MARGIN >= best.0 && !path.iter().any(|p| p == *s)).map(|(s, f)| (*s, *f)).collect();
    near.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    chosen.contenders = near.into_iter().map(|(s, f)| (s.to_string(), f.0)).collect();
    Ok(chosen)
}

/// The words a question writes as a value's: in quotes, or capitalized after its first word
/// ("customers from California", "the 'Paper' type"). A word written in lower case ("something",
/// "held") is as likely a word of a long stored text (a song's title) as a value named, so it is
/// no evidence of where the question's data lives.
fn value_words(question: &str) -> BTreeSet<String> {
    stems(&value_tokens(question).join(" "))
}

/// The words of [`value_words`] as written, trimmed of punctuation.
fn value_tokens(question: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut quoted = false;
    for (i, word) in question.split_whitespace().enumerate() {
        let opens = word.starts_with(['\'', '"', '‘', '“']);
        let closes = word.trim_end_matches(|c: char| c.is_ascii_punctuation() && c != '\'' && c != '"').ends_with(['\'', '"', '’', '”']);
        let letters = word.trim_matches(|c: char| !c.is_alphanumeric());
        let capital = i > 0 && letters.chars().next().is_some_and(char::is_uppercase);
        if (quoted || opens || capital) && !letters.is_empty() {
            out.push(letters);
        }
        if opens && !closes {
            quoted = true;
        } else if closes {
            quoted = false;
        }
    }
    out
}

/// What the value index is searched for to settle a tie: the question's words written as a
/// value's ([`value_words`]); none, nothing to search.
pub fn value_terms(question: &str) -> Option<String> {
    let tokens = value_tokens(question);
    (!tokens.is_empty()).then(|| tokens.join(" "))
}

/// Of the values the value index found for [`value_terms`], those worth checking as the caller
/// before settling: the ones that hold a value word of the question (the question's words
/// computed once), at most [`SETTLING_CHECKS`], in the order found.
pub fn worth_checking<T>(question: &str, found: Vec<T>, value: impl Fn(&T) -> &str) -> Vec<T> {
    let words = value_words(question);
    found.into_iter().filter(|m| !stems(value(m)).is_disjoint(&words)).take(SETTLING_CHECKS).collect()
}

/// Settle the choice among the schemas whose names fit the question best or nearly
/// ([`SchemaScope::contenders`]) by the values they store: `stored` holds (schema, value) of values
/// the value index found for the question's value words ([`value_terms`]), in columns the caller
/// may read and visible to them. A schema's score is its coverage plus 2 for each value word its
/// stored values hold as a word (leaving out words that name a contender's table or column, and
/// function words); the best score is asked of (the first in the contenders' order), the others
/// with that score are its readings. When no contender holds such a word, or the best is the
/// schema chosen by names and holds none, the choice is left as it was: a value is evidence,
/// not a default.
pub fn settle_by_values(scope: SchemaScope, catalog: &Catalog, question: &str, stored: &[(String, String)]) -> SchemaScope {
    if scope.origin != Origin::BestFit || scope.contenders.len() < 2 {
        return scope;
    }
    let names = schema_words(catalog, |s| scope.contenders.iter().any(|(c, _)| c == s));
    let named: BTreeSet<&String> = names.values().flat_map(SchemaWords::all).collect();
    let asked: BTreeSet<String> = value_words(question)
        .into_iter()
        .filter(|w| !named.contains(w) && !lexicon::is_function_word(w) && !w.chars().all(|c| c.is_ascii_digit()))
        .collect();
    let held = |schema: &str| -> BTreeSet<String> {
        let values: BTreeSet<String> = stored.iter().filter(|(s, _)| s == schema).flat_map(|(_, v)| stems(v)).collect();
        asked.intersection(&values).cloned().collect()
    };
    let scored: Vec<(String, usize, BTreeSet<String>)> =
        scope.contenders.iter().map(|(s, coverage)| { let h = held(s); (s.clone(), coverage + 2 * h.len(), h) }).collect();
    if scored.iter().all(|(_, _, h)| h.is_empty()) {
        return scope;
    }
    let best = scored.iter().map(|(_, score, _)| *score).max().unwrap_or(0);
    let mut winners = scored.into_iter().filter(|(_, score, _)| *score == best);
    let (chosen, _, words) = winners.next().expect("a best contender");
    let readings: Vec<String> = winners.map(|(s, _, _)| s).collect();
    if words.is_empty() && chosen == scope.schemas[0] {
        return scope;
    }
    let schemas = joined(catalog, vec![chosen]);
    let outside = catalog.schemas().iter().filter(|s| !schemas.iter().any(|x| x == *s)).count();
    SchemaScope { schemas, readings, outside, values: words.into_iter().collect(), ..scope }
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
    fn a_name_written_as_one_word_counts_by_its_parts() {
        let c = Catalog {
            tables: vec![
                table("school", "list", &["lastname", "firstname", "grade"]),
                table("league", "teams", &["team_id", "grade", "coach_name"]),
            ],
            ..Default::default()
        }
        .on_search_path(vec!["public".into()]);
        // `firstname` is first + name: "first" fits school only
        let s = choose(&c, &[], "Which first names appear in grade 4?").unwrap();
        assert_eq!((s.schemas.clone(), s.readings.clone()), (vec!["school".to_string()], vec![]), "{s:?}");
    }

    #[test]
    fn stored_values_settle_a_tie_and_only_a_tie() {
        let c = many(&["public"]);
        let q = "How many cities does the country Freedonia have?";
        let tie = choose(&c, &[], "How many countries are named Freedonia?").unwrap();
        assert_eq!((tie.schemas.clone(), tie.readings.len()), (vec!["car_1".to_string()], 2), "{tie:?}");
        let settled = settle_by_values(tie.clone(), &c, "How many countries are named Freedonia?", &[("geo".into(), "Freedonia".into())]);
        assert_eq!((settled.schemas.clone(), settled.readings.clone()), (vec!["geo".to_string()], vec![]), "{settled:?}");
        assert_eq!(settled.values, vec!["freedonia".to_string()]);
        assert_eq!(settled.outside, 3);
        assert!(settled.describe().contains("it stores values the question names (freedonia)"), "{}", settled.describe());
        // two tied schemas holding the value both stay, in the tie's order
        let both = settle_by_values(tie.clone(), &c, "How many countries are named Freedonia?", &[("world_1".into(), "Freedonia".into()), ("geo".into(), "Freedonia".into())]);
        assert_eq!((both.schemas.clone(), both.readings.clone()), (vec!["geo".to_string()], vec!["world_1".to_string()]));
        // a value that only repeats a word naming a contender's table, or a function word,
        // settles nothing
        for stored in [("geo", "Countries"), ("geo", "the")] {
            let same = settle_by_values(tie.clone(), &c, "How many countries are named Freedonia?", &[(stored.0.into(), stored.1.into())]);
            assert_eq!(same, tie, "{stored:?}");
        }
        // a word in lower case is no value named: a long stored text (a title) holds it as well
        let lower = settle_by_values(tie.clone(), &c, "How many countries are named something?", &[("geo".into(), "Something".into())]);
        assert_eq!(lower, tie);
        // a lead of more than one column's word is not overturned: world_1 names cities and
        // countries (4), geo countries only (2), and a value of geo's brings it level, not ahead
        let clear = choose(&c, &[], q).unwrap();
        assert!(clear.readings.is_empty() && clear.schemas == ["world_1"], "{clear:?}");
        assert_eq!(settle_by_values(clear.clone(), &c, q, &[("geo".into(), "Freedonia".into())]), clear);
        // a lead of one column's word is: car_1 and world_1 name the continent (a column) as
        // well, but geo stores the country named
        let q = "Which continent holds the countries named Freedonia?";
        let lead = choose(&c, &[], q).unwrap();
        assert_eq!((lead.schemas.clone(), lead.readings.clone()), (vec!["car_1".to_string()], vec!["world_1".to_string()]), "{lead:?}");
        let overturned = settle_by_values(lead, &c, q, &[("geo".into(), "Freedonia".into())]);
        assert_eq!(overturned.schemas, vec!["geo".to_string()]);
        // a schema whose names fit nothing of the question is no contender, whatever it stores
        let q = "How many countries are named Freedonia?";
        let tie = choose(&c, &[], q).unwrap();
        let none = Catalog { tables: [c.tables.clone(), vec![table("misc", "notes", &["id", "text"])]].concat(), ..c.clone() };
        assert_eq!(settle_by_values(tie.clone(), &none, q, &[("misc".into(), "Freedonia".into())]), tie);
    }

    #[test]
    fn values_are_words_quoted_or_capitalized_after_the_first() {
        let w = |q: &str| value_words(q).into_iter().collect::<Vec<_>>();
        assert_eq!(w("How many customers are from California?"), vec!["california"]);
        assert_eq!(w("Which documents have the type 'paper bag' or \"Box\"?"), vec!["bag", "box", "paper"]);
        assert_eq!(w("Paris customers who bought something"), Vec::<String>::new());
        assert_eq!(w("what movies are rated as r?"), Vec::<String>::new());
        assert_eq!(value_terms("Which documents have the type 'paper bag', or \"Box\"?").as_deref(), Some("paper bag Box"));
        assert_eq!(value_terms("how many books?"), None);
    }

    #[test]
    fn names_match_the_forms_questions_write_them_in() {
        let v = BTreeSet::new();
        assert!(name_stems("movie", &v).contains(&stems("movies").into_iter().next().unwrap()));
        assert!(name_stems("date_opened", &v).contains("open"));
        assert!(name_stems("date_closed", &v).contains("close"));
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
