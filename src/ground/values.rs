//! The value index's decisions: which text columns are worth indexing, the SQL that profiles a
//! column and reads its values, and how matches from the embedding and trigram searches combine.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::catalog::{quote_ident, Catalog, RelName};
use crate::effects::{Database, Model, ValueSearch};
use crate::error::Result;
use crate::result::Outcome;

/// What a sample of a column's non-NULL values looks like.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct ColumnProfile {
    pub non_null: u64,
    pub distinct: u64,
    pub avg_length: f64,
    /// Share of values that look like numbers, dates or phone numbers.
    pub numeric_share: f64,
    /// Share of values that look like UUIDs.
    pub uuid_share: f64,
}

/// Why a column is not indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Skip {
    NotText,
    Key,
    Identifier,
    Uuid,
    NumericText,
    LongText,
    Empty,
}

impl Skip {
    pub fn reason(self) -> &'static str {
        match self {
            Skip::NotText => "not a text column",
            Skip::Key => "a primary or foreign key column",
            Skip::Identifier => "named like an identifier",
            Skip::Uuid => "holds UUIDs",
            Skip::NumericText => "holds numbers, dates or codes written as text",
            Skip::LongText => "long free text (average over 80 characters)",
            Skip::Empty => "no values",
        }
    }
}

/// Text types whose values are worth matching against words.
pub fn is_text_type(type_name: &str) -> bool {
    type_name == "text"
        || type_name == "citext"
        || type_name.starts_with("character varying")
        || type_name.starts_with("character(")
        || type_name == "character"
}

/// Names that say "this is an identifier".
fn identifier_name(column: &str) -> bool {
    let c = column.to_lowercase();
    c == "id" || c.ends_with("_id") || c.ends_with("uuid") || c.ends_with("guid") || c == "key" || c.ends_with("_key")
        || c.ends_with("_hash") || c == "hash"
}

/// Decide whether a column goes into the value index.
pub fn worth_indexing(column: &str, type_name: &str, is_key: bool, p: &ColumnProfile) -> Result<(), Skip> {
    if !is_text_type(type_name) {
        return Err(Skip::NotText);
    }
    if is_key {
        return Err(Skip::Key);
    }
    if identifier_name(column) {
        return Err(Skip::Identifier);
    }
    if p.non_null == 0 {
        return Err(Skip::Empty);
    }
    if p.uuid_share > 0.5 {
        return Err(Skip::Uuid);
    }
    if p.numeric_share > 0.8 {
        return Err(Skip::NumericText);
    }
    if p.avg_length > 80.0 {
        return Err(Skip::LongText);
    }
    Ok(())
}

/// Profile of a column over a sample of at most `sample` non-NULL values: one row
/// `(non_null, distinct, avg_length, numeric_share, uuid_share)`.
pub fn profile_sql(rel: &RelName, column: &str, sample: usize) -> String {
    let c = quote_ident(column);
    format!(
        "SELECT count(*) AS non_null, count(DISTINCT v) AS distinct_values, \
                coalesce(avg(length(v)), 0)::float8 AS avg_length, \
                coalesce(avg((v ~ '^[-+]?[0-9][0-9.,:/ ()+-]*$')::int), 0)::float8 AS numeric_share, \
                coalesce(avg((v ~* '^[0-9a-f]{{8}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{4}}-[0-9a-f]{{12}}$')::int), 0)::float8 AS uuid_share \
         FROM (SELECT {c}::text AS v FROM {rel} WHERE {c} IS NOT NULL LIMIT {sample}) AS s"
    )
}

/// The column's most frequent distinct values (at most `max`), trimmed, 1..=200 characters.
pub fn values_sql(rel: &RelName, column: &str, max: usize) -> String {
    let c = quote_ident(column);
    format!(
        "SELECT v FROM (SELECT btrim({c}::text) AS v FROM {rel} WHERE {c} IS NOT NULL) AS s \
         WHERE length(v) BETWEEN 1 AND 200 GROUP BY v ORDER BY count(*) DESC, v LIMIT {max}"
    )
}

/// A SQL string literal.
pub fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Does the caller see `value` in the column now? One row if so (run as the caller).
pub fn visible_sql(rel: &RelName, column: &str, value: &str) -> String {
    let c = quote_ident(column);
    format!("SELECT 1 FROM {rel} WHERE btrim({c}::text) = {} LIMIT 1", literal(value))
}

/// The trigram search of the value index (pg_trgm's schema `trgm`): the values that text `$1`
/// holds as a word (`<%`, word similarity), best first, in the schemas of `$2` (empty: every
/// schema). The SPI adapter runs it as the extension's owner; what it finds is kept only for
/// columns the caller may read and values visible to them.
pub fn trigram_sql(trgm: &str) -> String {
    format!(
        "SELECT table_schema::text, table_name::text, column_name::text, value, {trgm}.word_similarity(value, $1)::float8
           FROM nl2sql.value_index WHERE value OPERATOR({trgm}.<%) $1 AND (cardinality($2::text[]) = 0 OR table_schema::text = ANY($2))
          ORDER BY 5 DESC LIMIT 100"
    )
}

/// A match of a search.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValueMatch {
    pub table: RelName,
    pub column: String,
    pub value: String,
    /// Cosine similarity of the embeddings, if found by the embedding search.
    pub semantic: Option<f64>,
    /// pg_trgm word similarity of the value within the text, if found by the trigram search.
    pub lexical: Option<f64>,
}

impl ValueMatch {
    pub fn score(&self) -> f64 {
        self.semantic.unwrap_or(0.0).max(self.lexical.unwrap_or(0.0))
    }
    pub fn matched_by(&self) -> &'static str {
        match (self.semantic.is_some(), self.lexical.is_some()) {
            (true, true) => "both",
            (true, false) => "embedding",
            _ => "trigram",
        }
    }
}

/// Does the question share words with this stored value only where they are names of the schema?
/// "the ship with the largest tonnage" shares only "ship", the table's name, with the stored type
/// 'Cargo ship': the question names the table, not the value. A value it shares no word with
/// (a misspelling, a meaning found by the embedding) is not judged here.
pub fn named_only_by_schema(value: &str, question: &str, schema_words: &BTreeSet<String>) -> bool {
    let asked = crate::context::stems(question);
    let shared: Vec<String> = crate::context::stems(value).into_iter().filter(|w| asked.contains(w)).collect();
    !shared.is_empty() && shared.iter().all(|w| schema_words.contains(w))
}

/// Merge the matches of both searches and of every search term (same column and value → one match
/// with each search's best score), keep
/// those scoring at least `min_score`, at most `per_column` per column, best first.
pub fn combine(matches: Vec<ValueMatch>, min_score: f64, per_column: usize) -> Vec<ValueMatch> {
    let mut merged: Vec<ValueMatch> = Vec::new();
    for m in matches {
        match merged.iter_mut().find(|x| x.table == m.table && x.column == m.column && x.value == m.value) {
            Some(x) => {
                // several search terms may find the same value: keep each search's best score
                let best = |a: Option<f64>, b: Option<f64>| match (a, b) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                };
                x.semantic = best(x.semantic, m.semantic);
                x.lexical = best(x.lexical, m.lexical);
            }
            None => merged.push(m),
        }
    }
    merged.retain(|m| m.score() >= min_score);
    merged.sort_by(|a, b| b.score().partial_cmp(&a.score()).unwrap_or(std::cmp::Ordering::Equal).then(a.value.cmp(&b.value)));
    let mut per: std::collections::BTreeMap<(RelName, String), usize> = Default::default();
    merged.retain(|m| {
        let n = per.entry((m.table.clone(), m.column.clone())).or_default();
        *n += 1;
        *n <= per_column
    });
    merged
}

/// Limits of one value search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchLimits {
    pub max_results: usize,
    pub per_column: usize,
    pub min_score: f64,
}

/// Values any of `terms` names, that the caller may see: each term is embedded and searched by
/// embedding and by trigrams ([`Database::value_candidates`]), the matches merged
/// ([`combine`]), and a match kept only if its column is in the caller's catalog (they may
/// SELECT it) and the value is visible to them in the live table now (row-level security,
/// deletions since the index was built), read through the executor. Best first.
pub fn search<D: Database + ?Sized, M: Model + ?Sized>(
    db: &mut D,
    model: &mut M,
    catalog: &Catalog,
    terms: &[String],
    limits: SearchLimits,
    schemas: &[String],
) -> Result<Vec<ValueMatch>> {
    let terms: Vec<String> = terms.iter().map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect();
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let vectors = model.embed(&terms)?.vectors;
    let searches: Vec<ValueSearch> =
        terms.into_iter().zip(vectors).map(|(term, embedding)| ValueSearch { term, embedding, schemas: schemas.to_vec() }).collect();
    let found = db.value_candidates(&searches)?;
    let mut allowed = Vec::new();
    for m in combine(found, limits.min_score, limits.per_column) {
        if allowed.len() >= limits.max_results {
            break;
        }
        if catalog.table(&m.table).and_then(|t| t.column(&m.column)).is_none() {
            continue;
        }
        if let Ok(Outcome::Rows(r)) = db.run(&visible_sql(&m.table, &m.column, &m.value), 1) {
            if !r.rows.is_empty() {
                allowed.push(m);
            }
        }
    }
    Ok(allowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(non_null: u64, avg_length: f64, numeric: f64, uuid: f64) -> ColumnProfile {
        ColumnProfile { non_null, distinct: non_null, avg_length, numeric_share: numeric, uuid_share: uuid }
    }

    #[test]
    fn decides_what_to_index() {
        let ok = p(100, 9.0, 0.0, 0.0);
        assert_eq!(worth_indexing("genre", "text", false, &ok), Ok(()));
        assert_eq!(worth_indexing("city", "character varying(40)", false, &ok), Ok(()));
        assert_eq!(worth_indexing("pages", "integer", false, &ok), Err(Skip::NotText));
        assert_eq!(worth_indexing("code", "text", true, &ok), Err(Skip::Key));
        assert_eq!(worth_indexing("customer_id", "text", false, &ok), Err(Skip::Identifier));
        assert_eq!(worth_indexing("ref", "text", false, &p(100, 36.0, 0.0, 1.0)), Err(Skip::Uuid));
        assert_eq!(worth_indexing("phone", "text", false, &p(100, 12.0, 0.95, 0.0)), Err(Skip::NumericText));
        assert_eq!(worth_indexing("review", "text", false, &p(100, 400.0, 0.0, 0.0)), Err(Skip::LongText));
        assert_eq!(worth_indexing("note", "text", false, &p(0, 0.0, 0.0, 0.0)), Err(Skip::Empty));
    }

    #[test]
    fn sql_quotes_names_and_values() {
        let rel = RelName::new("public", "Books");
        assert!(values_sql(&rel, "Genre", 10).contains("btrim(\"Genre\"::text) AS v FROM public.\"Books\""));
        assert_eq!(visible_sql(&rel, "title", "O'Hara"), "SELECT 1 FROM public.\"Books\" WHERE btrim(title::text) = 'O''Hara' LIMIT 1");
        assert!(profile_sql(&rel, "title", 500).contains("LIMIT 500"));
    }

    #[test]
    fn a_value_the_question_names_only_by_the_schema_s_words_is_no_value_of_it() {
        let catalog = crate::testing::retail();
        let tables: Vec<RelName> = catalog.tables.iter().map(|t| t.name.clone()).collect();
        let words = crate::context::name_stems(&catalog, &tables);
        assert!(words.contains("product") && words.contains("employee"), "{words:?}");
        let only = |v: &str, q: &str| named_only_by_schema(v, q, &words);
        // the table's own name inside a stored value
        assert!(only("Product of the month", "Which product has the highest price?"));
        // a word of the value the schema does not name: the question names the value
        assert!(!only("Product of the month", "Which products were product of the month?"));
        assert!(!only("Paris", "Which customers live in Paris?"));
        // nothing shared (a misspelling, a meaning): not judged here
        assert!(!only("Paris", "Which customers live in Pariss?"));
    }

    #[test]
    fn combines_both_searches_per_column() {
        let t = RelName::new("public", "books");
        let m = |col: &str, v: &str, s: Option<f64>, l: Option<f64>| ValueMatch {
            table: t.clone(),
            column: col.into(),
            value: v.into(),
            semantic: s,
            lexical: l,
        };
        let out = combine(
            vec![
                m("genre", "fantasy", Some(0.8), None),
                m("genre", "fantasy", None, Some(0.9)),
                m("genre", "horror", Some(0.5), None),
                m("genre", "poetry", Some(0.45), None),
                m("title", "Fantasia", None, Some(0.6)),
                m("genre", "noise", Some(0.1), None),
            ],
            0.3,
            2,
        );
        let got: Vec<(&str, &str)> = out.iter().map(|m| (m.column.as_str(), m.value.as_str())).collect();
        assert_eq!(got, vec![("genre", "fantasy"), ("title", "Fantasia"), ("genre", "horror")]);
        assert_eq!(out[0].matched_by(), "both");
        assert!((out[0].score() - 0.9).abs() < 1e-9);
        // two search terms finding one value: the better score of each search counts
        let out = combine(vec![m("genre", "fantasy", Some(0.4), None), m("genre", "fantasy", Some(0.7), Some(0.2))], 0.5, 3);
        assert_eq!((out.len(), out[0].semantic, out[0].lexical), (1, Some(0.7), Some(0.2)));
    }
}
