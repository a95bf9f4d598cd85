//! `literal`: a string literal compared with a column that does not hold it.
//!
//! Each comparison of a column with a string literal (`=`, `IN`, `<>`, `NOT IN`, `LIKE`,
//! `ILIKE`, through a cast to text too, and through `lower()` or `upper()`, which compare the
//! column ignoring case as `ILIKE` does) is read against the data, as the caller
//! ([`super::Needs::literals`]), and judged:
//! - a column folded to one case compared with a literal that has letters of the other
//!   (`lower(city) = 'Paris'`) meets no value, whatever is stored;
//! - the column holds the text only in another case (`country = 'france'`, stored `'France'`):
//!   the comparison matches nothing the question means;
//! - the column holds it in no form at all, and the data says what was meant: a stored value
//!   like it (`'Bachelors'` where `'Bachelor'` is stored, trigram similarity at least
//!   [`NEAR`]), another column of the query's tables or of a table one foreign key away that
//!   holds it (`template_type_description = 'PPT'` where the code column holds `'PPT'`), or a
//!   number column compared with a text that is no number. An absent value with none of this is
//!   not judged: the question may ask about something the data does not have;
//! - `<>` / `NOT IN` with a text the column holds in no form excludes nothing;
//! - a pattern no stored value matches in any case matches nothing;
//! - the column holds the text in no value of its own but as whole words within longer values
//!   (`hometown = 'Kentucky'` where `'Louisville, Kentucky'` is stored): the question names a part
//!   of the value, which a pattern compares (`ILIKE '%Kentucky%'`).
//!
//! Surrounding spaces are not judged: a column padded with spaces is compared unpadded as often
//! by the people who know it (Spider's flight_2 gold does so 36 times). The fix replaces the
//! literal by the one stored value it matches in another case, or by the one stored value like it
//! (each in the folded case when the column is folded: never a mixed-case value in
//! `lower(c) = …`), a folded comparison's literal by its folded case, and an equality with a text
//! held only within longer values by a pattern.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use sqlparser::ast::{BinaryOperator, DataType, Expr, ObjectName, Query, Value, Visit, Visitor};

use super::{aliases, column_of, each_select, finding, terms, Finding, Severity};
use crate::catalog::{quote_ident, Catalog, RelName};

/// Trigram similarity (pg_trgm's `similarity`) from which a stored value counts as like the
/// literal.
pub const NEAR: f64 = 0.5;

/// Rows of the column the search for like values looks at, at most.
const NEAR_SCAN: usize = 100_000;

/// Rows of each table the search for other columns holding the value looks at, at most.
const ELSEWHERE_SCAN: usize = 100_000;

/// Tables searched for other columns holding an absent value, at most.
const ELSEWHERE_TABLES: usize = 6;

/// How a literal is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Op {
    /// `=`, `IN (…)`
    Equals,
    /// `<>`, `!=`, `NOT IN (…)`
    Differs,
    /// `LIKE`, `ILIKE`: the literal is a pattern
    Matches,
    /// `NOT LIKE`, `NOT ILIKE`
    MatchesNot,
}

impl Op {
    pub fn pattern(self) -> bool {
        matches!(self, Op::Matches | Op::MatchesNot)
    }
}

/// How a query folds the case of a column before a comparison that heeds case (`=`, `IN`,
/// `LIKE`): `lower(c) = 'paris'` matches every case of 'Paris', as `c ILIKE 'paris'` does.
/// A folding under `ILIKE` changes nothing, and is read as none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Folding {
    #[default]
    None,
    /// `lower(c)`
    Lower,
    /// `upper(c)`
    Upper,
}

impl Folding {
    /// The text as the folded column can hold it.
    pub fn apply(self, s: &str) -> String {
        match self {
            Folding::None => s.to_string(),
            Folding::Lower => s.to_lowercase(),
            Folding::Upper => s.to_uppercase(),
        }
    }

    fn function(self) -> &'static str {
        match self {
            Folding::None => "",
            Folding::Lower => "lower",
            Folding::Upper => "upper",
        }
    }
}

/// One comparison of a column with a string literal.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Literal {
    pub rel: RelName,
    pub column: String,
    pub value: String,
    pub op: Op,
    /// The column is not of a text type (compared through a cast to text).
    pub cast: bool,
    /// The column's case is folded before it is compared.
    pub folding: Folding,
}

impl Literal {
    /// The text a like value is searched for: the literal, or a pattern without its wildcards.
    pub fn core(&self) -> String {
        if self.op.pattern() {
            self.value.replace(['%', '_'], " ").split_whitespace().collect::<Vec<_>>().join(" ")
        } else {
            self.value.trim().to_string()
        }
    }

    /// The column folded to one case compared with a literal that has letters of the other
    /// (`lower(name) = 'Paris'`): no value can meet it.
    pub fn case_never_met(&self) -> bool {
        self.folding != Folding::None && self.folding.apply(&self.value) != self.value
    }

    /// The column as the comparison reads it: `t.c`, or `lower(t.c)`.
    fn compared(&self) -> String {
        let tc = format!("{}.{}", self.rel.name, self.column);
        match self.folding {
            Folding::None => tc,
            f => format!("{}({tc})", f.function()),
        }
    }

    /// SQL for "this column matches the literal, ignoring case (and surrounding spaces)".
    fn matches_sql(&self, column: &str) -> String {
        let c = quote_ident(column);
        if self.op.pattern() {
            format!("{c}::text ILIKE {}", quote(&self.value))
        } else {
            format!("lower(btrim({c}::text)) = lower(btrim({}))", quote(&self.value))
        }
    }
}

/// What was read of the data for one comparison (as the caller).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stored {
    /// Stored values equal to the literal ignoring case and surrounding spaces, or, for a
    /// pattern, matching it ignoring case (at most 5).
    pub variants: Vec<String>,
    /// When there are none: stored values of the column like the literal, most like first.
    pub near: Vec<String>,
    /// When there are none: other columns (of the query's tables, or one foreign key away) that
    /// hold it.
    pub elsewhere: Vec<(RelName, String)>,
    /// When there are none: stored values of the column that hold the literal's text as whole
    /// words within a longer text (`'Louisville, Kentucky'` for `'Kentucky'`), ignoring case, at
    /// most 3.
    pub within: Vec<String>,
    /// For a pattern that matches several stored values: those equal to its text without the
    /// wildcards, ignoring case and spaces (`'%Republic%'`: `'Republic'`).
    pub same_as_core: Vec<String>,
}

impl Stored {
    /// Is the literal stored as written: an equality's value exactly, a pattern matching some
    /// stored value?
    pub fn as_written(&self, l: &Literal) -> bool {
        if l.case_never_met() {
            false
        } else if l.op.pattern() || l.folding != Folding::None {
            !self.variants.is_empty()
        } else {
            self.variants.iter().any(|v| *v == l.value)
        }
    }
}

/// A text as an SQL string literal (quotes doubled), as the reasons and the reads write it.
pub(crate) fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

pub fn is_text(type_name: &str) -> bool {
    let t = type_name.to_lowercase();
    t == "text" || t.starts_with("character") || t.starts_with("varchar") || t == "bpchar" || t.starts_with("char") || t == "name" || t == "citext"
}

fn string_of(e: &Expr) -> Option<&str> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::EscapedStringLiteral(s) | Value::NationalStringLiteral(s) => Some(s),
            _ => None,
        },
        Expr::Nested(inner) => string_of(inner),
        _ => None,
    }
}

/// A column, or a column cast to text, or either under `lower()` or `upper()`: the column,
/// whether it was cast, and how its case is folded.
fn compared_column(e: &Expr) -> Option<(&Expr, bool, Folding)> {
    match e {
        Expr::Nested(inner) => compared_column(inner),
        Expr::Function(f) => {
            let folding = match f.name.to_string().to_lowercase().as_str() {
                "lower" => Folding::Lower,
                "upper" => Folding::Upper,
                _ => return None,
            };
            // the outer folding is the one compared: upper(lower(c)) is upper-case
            let (column, cast, _) = compared_column(super::degenerate::only_argument(f)?)?;
            Some((column, cast, folding))
        }
        Expr::Cast { expr, data_type, .. } => {
            let text = matches!(data_type, DataType::Text | DataType::Varchar(_) | DataType::CharacterVarying(_) | DataType::Char(_) | DataType::Character(_) | DataType::String(_))
                || data_type.to_string().eq_ignore_ascii_case("text");
            (text && matches!(expr.as_ref(), Expr::Identifier(_) | Expr::CompoundIdentifier(_))).then_some((expr.as_ref(), true, Folding::None))
        }
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => Some((e, false, Folding::None)),
        _ => None,
    }
}

/// Every comparison of a column with a string literal in the WHERE clauses of the query's blocks
/// (subqueries and the arms of set operations included, each with its own FROM): text columns,
/// and any column cast to text.
pub fn comparisons(query: &Query, catalog: &Catalog) -> Vec<Literal> {
    compared(query, catalog, |type_name, cast| is_text(type_name) || cast)
}

/// Every comparison of a `date` or `timestamp` column with a string literal (`status_date =
/// '2020-02-29'`), read as [`comparisons`] reads them.
pub fn date_comparisons(query: &Query, catalog: &Catalog) -> Vec<Literal> {
    compared(query, catalog, |type_name, _| super::time::is_temporal(type_name))
}

/// The comparisons of a column with a string literal where `wanted` holds of the column's type
/// and of whether the query casts it to text.
fn compared(query: &Query, catalog: &Catalog, wanted: impl Fn(&str, bool) -> bool) -> Vec<Literal> {
    let mut out = Vec::new();
    each_select(query, &mut |select| {
        let aliases = aliases(select, catalog);
        let Some(w) = &select.selection else { return };
        // `ignoring_case`: ILIKE, under which a folding changes nothing
        let mut add = |col: &Expr, lit: &str, op: Op, ignoring_case: bool| {
            let Some((col, cast, folding)) = compared_column(col) else { return };
            let Some((rel, column)) = column_of(col, &aliases, catalog) else { return };
            let Some(c) = catalog.table(&rel).and_then(|t| t.column(&column)) else { return };
            if wanted(&c.type_name, cast) {
                let folding = if ignoring_case { Folding::None } else { folding };
                out.push(Literal { rel, column, value: lit.to_string(), op, cast: !is_text(&c.type_name), folding });
            }
        };
        for c in terms(w, &[BinaryOperator::And, BinaryOperator::Or]) {
            let c = match c {
                Expr::UnaryOp { op: sqlparser::ast::UnaryOperator::Not, expr } => expr.as_ref(),
                other => other,
            };
            match c {
                Expr::BinaryOp { left, op: op @ (BinaryOperator::Eq | BinaryOperator::NotEq), right } => {
                    let op = if *op == BinaryOperator::Eq { Op::Equals } else { Op::Differs };
                    if let Some(s) = string_of(right) {
                        add(left, s, op, false);
                    } else if let Some(s) = string_of(left) {
                        add(right, s, op, false);
                    }
                }
                Expr::InList { expr, list, negated } => {
                    for s in list.iter().filter_map(string_of) {
                        add(expr, s, if *negated { Op::Differs } else { Op::Equals }, false);
                    }
                }
                Expr::Like { expr, pattern, escape_char: None, any: false, negated } => {
                    if let Some(s) = string_of(pattern) {
                        add(expr, s, if *negated { Op::MatchesNot } else { Op::Matches }, false);
                    }
                }
                Expr::ILike { expr, pattern, escape_char: None, any: false, negated } => {
                    if let Some(s) = string_of(pattern) {
                        add(expr, s, if *negated { Op::MatchesNot } else { Op::Matches }, true);
                    }
                }
                _ => {}
            }
        }
    });
    out.sort();
    out.dedup();
    out
}

/// The SQL that reads, as the caller, the stored values the literal matches ignoring case (and
/// surrounding spaces), at most 5.
pub fn stored_variants_sql(l: &Literal) -> String {
    let c = quote_ident(&l.column);
    format!("SELECT DISTINCT {c}::text FROM {} WHERE {} LIMIT 5", l.rel, l.matches_sql(&l.column))
}

/// The SQL that reads, as the caller, the distinct values stored in the literal's column (not
/// null, as text, sorted), at most `at_most`, of its first [`NEAR_SCAN`] rows: enough to tell a
/// closed list of a few categories from a column of names.
pub fn few_values_sql(l: &Literal, at_most: usize) -> String {
    let c = quote_ident(&l.column);
    format!("SELECT DISTINCT v FROM (SELECT {c}::text AS v FROM {} WHERE {c} IS NOT NULL LIMIT {NEAR_SCAN}) AS stored ORDER BY v LIMIT {at_most}", l.rel)
}

/// The SQL that reads, for a pattern, the stored values equal to its text without the wildcards
/// (ignoring case and surrounding spaces), at most 5.
pub fn same_as_core_sql(l: &Literal) -> String {
    let c = quote_ident(&l.column);
    format!("SELECT DISTINCT {c}::text FROM {} WHERE lower(btrim({c}::text)) = lower(btrim({})) LIMIT 5", l.rel, quote(&l.core()))
}

/// Words by which a question asks for a part of a value, so a pattern is what it means.
static PART_WORDS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"\b(contains?|containing|includes?|including|substrings?|words?|like|starts?|starting|begins?|beginning|ends?|ending|prefix|suffix|letters?|parts?|mentions?|mentioning|pattern|any kind of|types? of|kinds? of)\b",
    )
    .expect("compiles")
});

/// A pattern that widens a value the question names: `%X%` (not negated) where `X` is itself a
/// stored value and the pattern matches other stored values too, in a question that asks for no
/// part of a value. The stored value it should equal.
fn widened<'s>(l: &Literal, s: &'s Stored, question: &str) -> Option<&'s String> {
    // the trigger is the absence of a word asking for a part: it means something only in English
    if l.op != Op::Matches
        || s.variants.len() < 2
        || !l.value.contains(['%', '_'])
        || !crate::lexicon::reads_english(question)
        || PART_WORDS.is_match(&question.to_lowercase())
    {
        return None;
    }
    match s.same_as_core.as_slice() {
        [one] => Some(one),
        _ => None,
    }
}

/// The SQL that reads the stored values of the column most like the literal (trigram
/// similarity at least [`NEAR`], pg_trgm's functions in schema `trgm`), at most 3. `None` for a
/// number column (no stored number is like a word).
pub fn near_sql(l: &Literal, trgm: &str) -> Option<String> {
    if l.cast || l.core().is_empty() {
        return None;
    }
    let c = quote_ident(&l.column);
    let sim = format!("{}.similarity(v, {})", quote_ident(trgm), quote(&l.core()));
    Some(format!(
        "SELECT v FROM (SELECT DISTINCT v FROM (SELECT {c}::text AS v FROM {} WHERE {c} IS NOT NULL LIMIT {NEAR_SCAN}) AS r) AS d WHERE {sim} >= {NEAR} ORDER BY {sim} DESC, v LIMIT 3",
        l.rel
    ))
}

/// The SQL that reads the stored values of the column that hold the literal's text as whole words
/// within a longer text, ignoring case, at most 3 (the literal is absent as a whole value when it
/// is asked). `None` for a number column, and for a text of fewer than two letters or digits
/// (`'A'` is a word of too many values to say anything).
pub fn within_sql(l: &Literal) -> Option<String> {
    let core = l.core();
    if l.cast || core.chars().filter(|c| c.is_alphanumeric()).count() < 2 {
        return None;
    }
    let c = quote_ident(&l.column);
    Some(format!(
        "SELECT v FROM (SELECT DISTINCT v FROM (SELECT {c}::text AS v FROM {} WHERE {c} IS NOT NULL LIMIT {NEAR_SCAN}) AS r) AS d WHERE v ~* {} ORDER BY v LIMIT 3",
        l.rel,
        quote(&format!("\\m{}\\M", regex_literal(&core)))
    ))
}

/// A text as a POSIX regular expression that matches it literally: every character that is not a
/// letter or a digit escaped.
fn regex_literal(w: &str) -> String {
    w.chars().map(|c| if c.is_alphanumeric() { c.to_string() } else { format!("\\{c}") }).collect()
}

/// The pattern that compares a part of a value: the literal's text between wildcards.
fn part_pattern(l: &Literal) -> String {
    part_of(&l.core())
}

/// A `LIKE` pattern that matches a text anywhere in a value: the text between wildcards, its own
/// wildcards (and the escape character) escaped.
fn part_of(text: &str) -> String {
    format!("%{}%", text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"))
}

/// Where else an absent literal is looked for: the text columns of the query's tables and of the
/// tables one foreign key away from the compared one (the compared column left out), each table
/// with the SQL that reads, in one row, whether each of its columns holds it.
pub fn elsewhere_sql(l: &Literal, query: &Query, catalog: &Catalog) -> Vec<(RelName, Vec<String>, String)> {
    text_columns_near(query, catalog, std::slice::from_ref(&l.rel), |rel, c| !(*rel == l.rel && c == l.column))
        .into_iter()
        .map(|(rel, columns)| {
            let tests: Vec<String> = columns.iter().map(|c| format!("coalesce(bool_or({}), false)", l.matches_sql(c))).collect();
            let sql = scan_sql(&rel, &tests, &columns);
            (rel, columns, sql)
        })
        .collect()
}

/// The tables and views of `catalog` that the query reads, in the order it names them (a table
/// read twice is listed twice).
pub fn tables_read(query: &Query, catalog: &Catalog) -> Vec<RelName> {
    struct Relations<'c>(&'c Catalog, Vec<RelName>);
    impl Visitor for Relations<'_> {
        type Break = ();
        fn pre_visit_relation(&mut self, name: &ObjectName) -> ControlFlow<()> {
            if let Some(t) = self.0.resolve_object(name) {
                self.1.push(t.name.clone());
            }
            ControlFlow::Continue(())
        }
    }
    let mut found = Relations(catalog, Vec::new());
    let _ = query.visit(&mut found);
    found.1
}

/// Where the words of names the value index did not match are looked for in the data: the text
/// columns of the tables the query reads and of the tables one foreign key away from them (at
/// most [`ELSEWHERE_TABLES`], the first [`ELSEWHERE_SCAN`] rows of each), each table with the SQL
/// that reads, in one row, whether any of its text columns holds each word (ignoring case,
/// anywhere in the value).
pub fn holders_sql(words: &[String], query: &Query, catalog: &Catalog) -> Vec<String> {
    holders(words, query, catalog, |w| format!("ILIKE {}", quote(&part_of(w))))
}

/// As [`holders_sql`], for words that must begin a word of the stored text (ignoring case): the
/// singular "scene" is held by "Deleted Scenes", "part" is not held by "Department".
pub fn word_start_holders_sql(words: &[String], query: &Query, catalog: &Catalog) -> Vec<String> {
    // every character that is not a letter or a digit is escaped, so the word is read literally
    holders(words, query, catalog, |w| format!("~* {}", quote(&format!("\\m{}", regex_literal(w)))))
}

/// Per table of [`text_columns_near`], the SQL that reads whether any text column holds each word,
/// `test` giving the operator and pattern a column's text is tested with.
fn holders(words: &[String], query: &Query, catalog: &Catalog, test: impl Fn(&str) -> String) -> Vec<String> {
    if words.is_empty() {
        return Vec::new();
    }
    let read = tables_read(query, catalog);
    text_columns_near(query, catalog, &read, |_, _| true)
        .into_iter()
        .map(|(rel, columns)| {
            let tests: Vec<String> = words
                .iter()
                .map(|w| {
                    let t = test(w);
                    let any: Vec<String> = columns.iter().map(|c| format!("{}::text {t}", quote_ident(c))).collect();
                    format!("coalesce(bool_or({}), false)", any.join(" OR "))
                })
                .collect();
            scan_sql(&rel, &tests, &columns)
        })
        .collect()
}

/// The tables a value is looked for in, and their text columns that `keep` keeps: the tables the
/// query reads, then the tables one foreign key away from those of `around`, each once, at most
/// [`ELSEWHERE_TABLES`] of them with such a column.
fn text_columns_near(query: &Query, catalog: &Catalog, around: &[RelName], keep: impl Fn(&RelName, &str) -> bool) -> Vec<(RelName, Vec<String>)> {
    let mut found = tables_read(query, catalog);
    for fk in &catalog.foreign_keys {
        if around.contains(&fk.from) {
            found.push(fk.to.clone());
        } else if around.contains(&fk.to) {
            found.push(fk.from.clone());
        }
    }
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for rel in found {
        if !seen.insert(rel.clone()) || out.len() >= ELSEWHERE_TABLES {
            continue;
        }
        let Some(table) = catalog.table(&rel) else { continue };
        let columns: Vec<String> = table.columns.iter().filter(|c| is_text(&c.type_name) && keep(&rel, &c.name)).map(|c| c.name.clone()).collect();
        if !columns.is_empty() {
            out.push((rel, columns));
        }
    }
    out
}

/// One scan of a table's first [`ELSEWHERE_SCAN`] rows, reading `tests` over its `columns`.
fn scan_sql(rel: &RelName, tests: &[String], columns: &[String]) -> String {
    let listed: Vec<String> = columns.iter().map(|c| quote_ident(c)).collect();
    format!("SELECT {} FROM (SELECT {} FROM {rel} LIMIT {ELSEWHERE_SCAN}) AS t", tests.join(", "), listed.join(", "))
}

fn is_number(s: &str) -> bool {
    s.trim().parse::<f64>().is_ok()
}

fn listed(values: &[String]) -> String {
    values.iter().map(|v| quote(v)).collect::<Vec<_>>().join(", ")
}

/// What the data says the literal should have been, in words (empty when it says nothing).
fn evidence(l: &Literal, s: &Stored) -> Vec<String> {
    let mut out = Vec::new();
    if !s.near.is_empty() {
        out.push(format!("it holds {} (like it)", listed(&s.near)));
    }
    if !s.elsewhere.is_empty() {
        let cols: Vec<String> = s.elsewhere.iter().map(|(r, c)| format!("{}.{c}", r.name)).collect();
        out.push(format!("{} {} it", cols.join(", "), if cols.len() == 1 { "holds" } else { "hold" }));
    }
    if l.cast && !l.op.pattern() && !is_number(&l.value) {
        out.push(format!("the column holds numbers and {} is none", quote(&l.value)));
    }
    if !s.within.is_empty() {
        out.push(format!("it holds {} within longer values: {}", quote(&l.core()), listed(&s.within)));
    }
    out
}

/// A literal the column holds only as a part of longer values, and nowhere else in a whole value:
/// the question names a part of the value (the fix compares with [`part_pattern`]).
fn part_only(s: &Stored) -> bool {
    s.variants.is_empty() && !s.within.is_empty() && s.elsewhere.is_empty()
}

/// The `literal` findings, given what was read of each comparison.
pub fn check(found: &[Literal], stored: &BTreeMap<Literal, Stored>, question: &str) -> Vec<Finding> {
    found
        .iter()
        .filter_map(|l| {
            let s = stored.get(l)?;
            let (t, c, v) = (&l.rel.name, &l.column, quote(&l.value));
            let message = if l.case_never_met() {
                // read before the data: no stored value can meet it, whatever the column holds
                let (compared, folded) = (l.compared(), quote(&l.folding.apply(&l.value)));
                match l.op {
                    Op::Equals => format!("{compared} is never {v}, which has letters in the other case: compare with {folded}"),
                    Op::Differs => format!("{compared} is never {v}, which has letters in the other case, so excluding it excludes nothing: compare with {folded}"),
                    Op::Matches => format!("{compared} never matches {v}, which has letters in the other case, so the pattern matches nothing: match {folded}"),
                    Op::MatchesNot => format!("{compared} never matches {v}, which has letters in the other case, so excluding it excludes nothing: match {folded}"),
                }
            } else if !s.variants.is_empty() {
                if let Some(value) = widened(l, s, question) {
                    let others: Vec<String> = s.variants.iter().filter(|x| *x != value).cloned().collect();
                    format!(
                        "the pattern {v} also matches {} of {t}.{c}, while the question names {}, which the column holds: compare with = {}",
                        listed(&others),
                        quote(value),
                        quote(&l.folding.apply(value))
                    )
                } else if l.op.pattern() || l.folding != Folding::None || s.variants.iter().any(|x| x.trim() == l.value.trim()) {
                    // held in some case: judged only when never in the literal's own case (a
                    // folded column meets every case of it)
                    return None;
                } else {
                    format!("{t}.{c} holds no {v}, but holds {}: compare with the stored value", listed(&s.variants))
                }
            } else {
                let said = evidence(l, s);
                let because = if said.is_empty() { String::new() } else { format!(": {}", said.join("; ")) };
                let part = quote(&part_pattern(l));
                match l.op {
                    Op::Equals if said.is_empty() => return None,
                    Op::Equals if part_only(s) => format!("{t}.{c} holds no {v} as a whole value{because}: compare a part of the value, ILIKE {part}"),
                    Op::Differs if part_only(s) => format!("{t}.{c} holds no {v} as a whole value, so excluding it excludes nothing{because}: exclude a part of the value, NOT ILIKE {part}"),
                    Op::Matches if part_only(s) && !l.value.contains(['%', '_']) => {
                        format!("no stored value of {t}.{c} matches {v} in any case, so the pattern matches nothing{because}: match a part of the value, ILIKE {part}")
                    }
                    // `<> 'null'` where no row stores the word keeps exactly the rows that hold a
                    // value, as `IS NOT NULL` does: what it was written for
                    Op::Differs if l.value.trim().eq_ignore_ascii_case("null") => return None,
                    Op::Equals => format!("{t}.{c} holds no {v} in any case{because}: compare the column that holds it, with the value as stored"),
                    Op::Differs => format!("{t}.{c} holds no {v} in any case, so excluding it excludes nothing{because}"),
                    Op::Matches => format!("no stored value of {t}.{c} matches {v} in any case, so the pattern matches nothing{because}"),
                    Op::MatchesNot => format!("no stored value of {t}.{c} matches {v} in any case, so excluding it excludes nothing{because}"),
                }
            };
            Some(finding("literal", Severity::Repair, message))
        })
        .collect()
}

/// The query with each literal replaced by the one stored value it matches in another case, or,
/// when the column holds it in no form, by the one stored value like it; and each pattern that
/// widens a value the question names ([`check`]) replaced by an equality with that value.
pub fn replace(query: &Query, catalog: &Catalog, stored: &BTreeMap<Literal, Stored>, question: &str) -> Option<(Query, String)> {
    let mut swaps: BTreeMap<String, String> = BTreeMap::new();
    let mut narrow: BTreeMap<String, String> = BTreeMap::new();
    let mut parts: BTreeMap<String, String> = BTreeMap::new();
    let mut widened_patterns: BTreeMap<String, String> = BTreeMap::new();
    for l in comparisons(query, catalog) {
        if l.case_never_met() {
            swaps.insert(l.value.clone(), l.folding.apply(&l.value));
            continue;
        }
        let Some(s) = stored.get(&l) else { continue };
        if part_only(s) {
            match l.op {
                Op::Equals | Op::Differs => {
                    parts.insert(l.value.clone(), part_pattern(&l));
                }
                Op::Matches if !l.value.contains(['%', '_']) => {
                    widened_patterns.insert(l.value.clone(), part_pattern(&l));
                }
                _ => {}
            }
            continue;
        }
        if l.op.pattern() {
            if let Some(value) = widened(&l, s, question) {
                narrow.insert(l.value.clone(), l.folding.apply(value));
            }
            continue;
        }
        let to = match (s.variants.as_slice(), s.near.as_slice()) {
            // a folded column meets every case of a stored value
            ([_, ..], _) if l.folding != Folding::None => continue,
            ([only], _) => only,
            ([], [only]) => only,
            _ => continue,
        };
        // the stored value as the folded column holds it (`lower(city) = 'pariss'` → 'paris')
        let to = l.folding.apply(to);
        if to != l.value {
            swaps.insert(l.value.clone(), to);
        }
    }
    if swaps.is_empty() && narrow.is_empty() && parts.is_empty() && widened_patterns.is_empty() {
        return None;
    }
    let stored_as: Vec<String> = swaps.iter().map(|(a, b)| format!("'{a}' → '{b}'")).chain(narrow.iter().map(|(a, b)| format!("LIKE '{a}' → = '{b}'"))).collect();
    let as_parts: Vec<String> = parts.iter().map(|(a, b)| format!("= '{a}' → ILIKE '{b}'")).chain(widened_patterns.iter().map(|(a, b)| format!("LIKE '{a}' → LIKE '{b}'"))).collect();
    swaps.extend(widened_patterns);
    struct Swap<'a> {
        swaps: &'a BTreeMap<String, String>,
        narrow: &'a BTreeMap<String, String>,
        parts: &'a BTreeMap<String, String>,
    }
    impl sqlparser::ast::VisitorMut for Swap<'_> {
        type Break = ();
        fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
            match e {
                Expr::Like { expr, pattern, negated: false, any: false, escape_char: None }
                | Expr::ILike { expr, pattern, negated: false, any: false, escape_char: None } => {
                    if let Some(to) = string_of(pattern).and_then(|p| self.narrow.get(p)) {
                        let right = Expr::Value(Value::SingleQuotedString(to.clone()).into());
                        *e = Expr::BinaryOp { left: expr.clone(), op: BinaryOperator::Eq, right: Box::new(right) };
                    }
                }
                // `c = 'Kentucky'` → `c ILIKE '%Kentucky%'`, `<>` → `NOT ILIKE`
                Expr::BinaryOp { left, op: op @ (BinaryOperator::Eq | BinaryOperator::NotEq), right } => {
                    let (column, to) = match (string_of(right).and_then(|v| self.parts.get(v)), string_of(left).and_then(|v| self.parts.get(v))) {
                        (Some(to), _) if compared_column(left).is_some() => (left.clone(), to),
                        (_, Some(to)) if compared_column(right).is_some() => (right.clone(), to),
                        _ => return ControlFlow::Continue(()),
                    };
                    let pattern = Box::new(Expr::Value(Value::SingleQuotedString(to.clone()).into()));
                    *e = Expr::ILike { negated: *op == BinaryOperator::NotEq, any: false, expr: column, pattern, escape_char: None };
                }
                Expr::Value(v) => {
                    if let Value::SingleQuotedString(s) = &mut v.value {
                        if let Some(to) = self.swaps.get(s.as_str()) {
                            *s = to.clone();
                        }
                    }
                }
                _ => {}
            }
            ControlFlow::Continue(())
        }
    }
    let mut fixed = query.clone();
    let _ = sqlparser::ast::VisitMut::visit(&mut fixed, &mut Swap { swaps: &swaps, narrow: &narrow, parts: &parts });
    let mut what = Vec::new();
    if !stored_as.is_empty() {
        what.push(format!("{}: the value as the column stores it", stored_as.join(", ")));
    }
    if !as_parts.is_empty() {
        what.push(format!("{}: a part of the values the column stores", as_parts.join(", ")));
    }
    Some((fixed, what.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::check_query;
    use crate::testing::bookshop;

    #[test]
    fn names_are_looked_for_in_the_text_columns_of_the_tables_read_and_their_neighbours() {
        let q = check_query("SELECT title FROM books").unwrap().query;
        let sql = holders_sql(&["Saffir_Simpson".into(), "100%".into()], &q, &bookshop());
        assert_eq!(sql.len(), 2, "books, and authors one foreign key away: {sql:?}");
        assert!(sql[0].contains("FROM public.books LIMIT 100000") && sql[1].contains("FROM public.authors"), "{sql:?}");
        // one test per name, its wildcards escaped
        assert!(sql[1].contains("name::text ILIKE '%Saffir\\_Simpson%' OR country::text ILIKE '%Saffir\\_Simpson%'"), "{}", sql[1]);
        assert!(sql[1].contains("ILIKE '%100\\%%'"), "{}", sql[1]);
        assert!(holders_sql(&[], &q, &bookshop()).is_empty());
    }

    #[test]
    fn a_word_is_looked_for_at_the_start_of_a_stored_word_and_read_literally() {
        let q = check_query("SELECT title FROM books").unwrap().query;
        let sql = word_start_holders_sql(&["scene".into(), "a.b".into()], &q, &bookshop());
        assert_eq!(sql.len(), 2, "{sql:?}");
        assert!(sql[1].contains("name::text ~* '\\mscene' OR country::text ~* '\\mscene'"), "{}", sql[1]);
        assert!(sql[1].contains("~* '\\ma\\.b'"), "{}", sql[1]);
        assert!(word_start_holders_sql(&[], &q, &bookshop()).is_empty());
    }

    fn stored(variants: &[&str], near: &[&str], elsewhere: &[(&RelName, &str)]) -> Stored {
        Stored {
            variants: variants.iter().map(|s| s.to_string()).collect(),
            near: near.iter().map(|s| s.to_string()).collect(),
            elsewhere: elsewhere.iter().map(|(r, c)| ((*r).clone(), c.to_string())).collect(),
            same_as_core: vec![],
            within: vec![],
        }
    }

    #[test]
    fn literals_the_column_holds_in_another_case_are_found_and_replaced() {
        let q = check_query("SELECT name FROM customers WHERE city = 'paris' OR city IN ('Lyon', 'nice') AND customer_id IN (SELECT customer_id FROM orders)").unwrap().query;
        let found = comparisons(&q, &bookshop());
        assert_eq!(found.iter().map(|l| l.value.as_str()).collect::<Vec<_>>(), ["Lyon", "nice", "paris"]);
        assert!(stored_variants_sql(&found[2]).contains("lower(btrim('paris'))"), "{}", stored_variants_sql(&found[2]));
        let mut read = BTreeMap::new();
        read.insert(found[0].clone(), stored(&["Lyon"], &[], &[]));
        read.insert(found[1].clone(), stored(&[], &[], &[]));
        read.insert(found[2].clone(), stored(&["Paris"], &[], &[]));
        let f = check(&found, &read, "");
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].message.contains("holds no 'paris', but holds 'Paris'"), "{}", f[0].message);
        let (fixed, what) = replace(&q, &bookshop(), &read, "").unwrap();
        assert!(fixed.to_string().contains("city = 'Paris'"), "{fixed}");
        assert_eq!(what, "'paris' → 'Paris': the value as the column stores it");
        // two stored variants: reported, not replaced
        read.insert(found[2].clone(), stored(&["PARIS", "Paris"], &[], &[]));
        assert_eq!(check(&found, &read, "").len(), 1);
        assert!(replace(&q, &bookshop(), &read, "").is_none());
        // a value stored with other surrounding spaces only is not judged
        read.insert(found[2].clone(), stored(&["paris "], &[], &[]));
        assert!(check(&found, &read, "").is_empty());
        // numbers and non-text columns are not judged
        let q = check_query("SELECT title FROM books WHERE price = '3' AND book_id = 2").unwrap().query;
        assert!(comparisons(&q, &bookshop()).is_empty());
    }

    #[test]
    fn an_absent_value_is_judged_only_when_the_data_says_what_was_meant() {
        let cat = bookshop();
        let q = check_query("SELECT c.name FROM customers AS c, authors AS a WHERE c.city = 'Pariss' AND c.name = 'Atlantis'").unwrap().query;
        let found = comparisons(&q, &cat);
        assert_eq!(found.len(), 2);
        let (pariss, atlantis) = (&found[0], &found[1]);
        assert_eq!((pariss.value.as_str(), atlantis.value.as_str()), ("Pariss", "Atlantis"));
        assert_eq!((atlantis.op, pariss.op), (Op::Equals, Op::Equals));
        let near = near_sql(pariss, "public").unwrap();
        assert!(near.contains("public.similarity(v, 'Pariss') >= 0.5"), "{near}");
        let mut read = BTreeMap::new();
        read.insert(pariss.clone(), stored(&[], &["Paris"], &[]));
        read.insert(atlantis.clone(), stored(&[], &[], &[]));
        let f = check(&found, &read, "");
        // the absent 'Atlantis' with nothing like it is no finding; 'Pariss' is
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].message.contains("holds no 'Pariss' in any case: it holds 'Paris' (like it)"), "{}", f[0].message);
        let (fixed, _) = replace(&q, &cat, &read, "").unwrap();
        assert!(fixed.to_string().contains("c.city = 'Paris' AND c.name = 'Atlantis'"), "{fixed}");
        // held by another column of a table in the query
        let authors = cat.tables[0].name.clone();
        read.insert(atlantis.clone(), stored(&[], &[], &[(&authors, "country")]));
        let f = check(&found, &read, "");
        assert!(f.iter().any(|x| x.message.contains("holds no 'Atlantis' in any case: authors.country holds it")), "{f:?}");
        // where it is looked for: the query's tables (and those one key away) with text
        // columns, the compared column left out
        let places = elsewhere_sql(atlantis, &q, &cat);
        let names: Vec<&str> = places.iter().map(|(r, _, _)| r.name.as_str()).collect();
        assert_eq!(names, ["customers", "authors"]);
        assert_eq!(places[0].1, ["city"]);
        assert!(places[0].2.contains("coalesce(bool_or(lower(btrim(city::text)) = lower(btrim('Atlantis'))), false)"), "{}", places[0].2);
    }

    #[test]
    fn a_column_compared_through_lower_or_upper_is_read_ignoring_case() {
        let cat = bookshop();
        let q = check_query("SELECT name FROM customers WHERE lower(city) = 'paris' AND upper(name) LIKE 'Smith%' AND lower(city::text) <> 'lyon' AND upper(name) ILIKE 'x%'").unwrap().query;
        let found = comparisons(&q, &cat);
        let get = |v: &str| found.iter().find(|l| l.value == v).unwrap().clone();
        assert_eq!((get("paris").folding, get("Smith%").folding, get("lyon").folding), (Folding::Lower, Folding::Upper, Folding::Lower));
        // ILIKE ignores case whatever the column is folded to
        assert_eq!(get("x%").folding, Folding::None);
        // a folded column meets every case of a stored value: nothing to say, nothing to replace
        let mut read = BTreeMap::new();
        for l in &found {
            read.insert(l.clone(), stored(&["x"], &[], &[]));
        }
        read.insert(get("paris"), stored(&["Paris", "PARIS"], &[], &[]));
        read.insert(get("lyon"), stored(&["Lyon"], &[], &[]));
        assert!(read[&get("paris")].as_written(&get("paris")));
        // an upper-cased column never matches a pattern with lower-case letters, whatever is stored
        read.insert(get("Smith%"), stored(&["Smithers"], &[], &[]));
        assert!(!read[&get("Smith%")].as_written(&get("Smith%")));
        let f = check(&found, &read, "");
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].message.contains("upper(customers.name) never matches 'Smith%', which has letters in the other case, so the pattern matches nothing: match 'SMITH%'"), "{}", f[0].message);
        let (fixed, what) = replace(&q, &cat, &read, "").unwrap();
        assert!(fixed.to_string().contains("lower(city) = 'paris' AND upper(name) LIKE 'SMITH%'"), "{fixed}");
        assert_eq!(what, "'Smith%' → 'SMITH%': the value as the column stores it");

        // a pattern no stored value matches in any case matches nothing, folded or not
        let q = check_query("SELECT church_id FROM customers WHERE LOWER(city) LIKE 'catholic%'").unwrap().query;
        let found = comparisons(&q, &cat);
        assert_eq!(found.len(), 1);
        assert!(stored_variants_sql(&found[0]).contains("city::text ILIKE 'catholic%'"), "{}", stored_variants_sql(&found[0]));
        let read = BTreeMap::from([(found[0].clone(), stored(&[], &[], &[]))]);
        let f = check(&found, &read, "");
        assert!(f.len() == 1 && f[0].message.contains("no stored value of customers.city matches 'catholic%' in any case"), "{f:?}");

        // a value like the stored one is written as the folded column holds it
        let q = check_query("SELECT name FROM customers WHERE lower(city) = 'pariss'").unwrap().query;
        let found = comparisons(&q, &cat);
        let read = BTreeMap::from([(found[0].clone(), stored(&[], &["Paris"], &[]))]);
        let (fixed, _) = replace(&q, &cat, &read, "").unwrap();
        assert!(fixed.to_string().contains("lower(city) = 'paris'"), "{fixed}");
        // and a folded equality with another case of its value is never met
        let q = check_query("SELECT name FROM customers WHERE lower(city) IN ('Paris')").unwrap().query;
        let found = comparisons(&q, &cat);
        let f = check(&found, &BTreeMap::from([(found[0].clone(), stored(&["Paris"], &[], &[]))]), "");
        assert!(f.len() == 1 && f[0].message.contains("lower(customers.city) is never 'Paris', which has letters in the other case: compare with 'paris'"), "{f:?}");
    }

    #[test]
    fn a_value_held_only_within_longer_values_is_compared_as_a_part() {
        let cat = bookshop();
        let q = check_query("SELECT name FROM customers WHERE city = 'Kentucky' AND city <> 'Ohio' AND name LIKE 'Smith' AND city = 'A'").unwrap().query;
        let found = comparisons(&q, &cat);
        let get = |v: &str| found.iter().find(|l| l.value == v).unwrap().clone();
        // read as whole words, ignoring case, the value's other characters literal
        let sql = within_sql(&get("Kentucky")).unwrap();
        assert!(sql.contains("WHERE v ~* '\\mKentucky\\M' ORDER BY v LIMIT 3"), "{sql}");
        assert!(within_sql(&Literal { value: "St. Louis".into(), ..get("Kentucky") }).unwrap().contains("'\\mSt\\.\\ Louis\\M'"));
        assert!(within_sql(&get("A")).is_none(), "one letter is a word of too many values");
        let within = |v: &[&str]| Stored { within: v.iter().map(|s| s.to_string()).collect(), ..Default::default() };
        let mut read = BTreeMap::new();
        read.insert(get("Kentucky"), within(&["Fort Campbell, Kentucky", "Louisville, Kentucky"]));
        read.insert(get("Ohio"), within(&["Columbus, Ohio"]));
        read.insert(get("Smith"), within(&["Ann Smith"]));
        read.insert(get("A"), Stored::default());
        let f: Vec<String> = check(&found, &read, "").into_iter().map(|f| f.message).collect();
        assert_eq!(f.len(), 3, "{f:?}");
        assert!(
            f.iter().any(|m| m == "customers.city holds no 'Kentucky' as a whole value: it holds 'Kentucky' within longer values: 'Fort Campbell, Kentucky', 'Louisville, Kentucky': compare a part of the value, ILIKE '%Kentucky%'"),
            "{f:?}"
        );
        assert!(f.iter().any(|m| m.contains("excludes nothing: it holds 'Ohio' within longer values: 'Columbus, Ohio': exclude a part of the value, NOT ILIKE '%Ohio%'")), "{f:?}");
        assert!(f.iter().any(|m| m.contains("the pattern matches nothing: it holds 'Smith' within longer values: 'Ann Smith': match a part of the value, ILIKE '%Smith%'")), "{f:?}");
        let (fixed, what) = replace(&q, &cat, &read, "").unwrap();
        assert_eq!(
            fixed.to_string(),
            "SELECT name FROM customers WHERE city ILIKE '%Kentucky%' AND city NOT ILIKE '%Ohio%' AND name LIKE '%Smith%' AND city = 'A'"
        );
        assert_eq!(what, "= 'Kentucky' → ILIKE '%Kentucky%', = 'Ohio' → ILIKE '%Ohio%', LIKE 'Smith' → LIKE '%Smith%': a part of the values the column stores");
        // another column that holds the whole value says more than a part of this one: no pattern
        let authors = cat.tables[0].name.clone();
        let mut both = within(&["Louisville, Kentucky"]);
        both.elsewhere = vec![(authors, "country".into())];
        read.insert(get("Kentucky"), both);
        let f: Vec<String> = check(&found, &read, "").into_iter().map(|f| f.message).collect();
        assert!(f.iter().any(|m| m.contains("authors.country holds it; it holds 'Kentucky' within longer values") && m.ends_with("compare the column that holds it, with the value as stored")), "{f:?}");
        let (fixed, _) = replace(&q, &cat, &read, "").unwrap();
        assert!(fixed.to_string().contains("city = 'Kentucky'"), "{fixed}");
    }

    #[test]
    fn exclusions_patterns_and_casts() {
        let cat = bookshop();
        let q = check_query(
            "SELECT name FROM customers WHERE city <> 'Lyonn' AND name LIKE '%Smiht%' AND CAST(customer_id AS TEXT) = 'Ann' EXCEPT SELECT name FROM customers WHERE city NOT IN ('Nice')",
        )
        .unwrap()
        .query;
        let found = comparisons(&q, &cat);
        let ops: Vec<(Op, &str, bool)> = found.iter().map(|l| (l.op, l.value.as_str(), l.cast)).collect();
        assert!(ops.contains(&(Op::Differs, "Lyonn", false)) && ops.contains(&(Op::Differs, "Nice", false)), "{ops:?}");
        assert!(ops.contains(&(Op::Matches, "%Smiht%", false)) && ops.contains(&(Op::Equals, "Ann", true)), "{ops:?}");
        let get = |v: &str| found.iter().find(|l| l.value == v).unwrap().clone();
        assert_eq!(get("%Smiht%").core(), "Smiht");
        assert!(stored_variants_sql(&get("%Smiht%")).contains("name::text ILIKE '%Smiht%'"));
        assert!(near_sql(&get("Ann"), "public").is_none(), "no number is like a word");
        let mut read = BTreeMap::new();
        read.insert(get("Lyonn"), stored(&[], &[], &[]));
        read.insert(get("Nice"), stored(&["Nice"], &[], &[]));
        read.insert(get("%Smiht%"), stored(&[], &["Smith"], &[]));
        read.insert(get("Ann"), stored(&[], &[], &[]));
        let f: Vec<String> = check(&found, &read, "").into_iter().map(|f| f.message).collect();
        assert_eq!(f.len(), 3, "{f:?}");
        assert!(f.iter().any(|m| m.contains("holds no 'Lyonn' in any case, so excluding it excludes nothing")), "{f:?}");
        assert!(f.iter().any(|m| m.contains("matches '%Smiht%' in any case, so the pattern matches nothing: it holds 'Smith'")), "{f:?}");
        assert!(f.iter().any(|m| m.contains("the column holds numbers and 'Ann' is none")), "{f:?}");
        // a pattern is never rewritten
        read.insert(get("Lyonn"), stored(&[], &[], &[]));
        assert!(replace(&q, &cat, &read, "").is_none());
        // a pattern that matches is no finding
        read.insert(get("%Smiht%"), stored(&["Smith"], &[], &[]));
        assert_eq!(check(&found, &read, "").len(), 2);
    }

    #[test]
    fn differing_from_the_word_null_keeps_the_rows_with_a_value() {
        let cat = bookshop();
        let q = check_query("SELECT name FROM customers WHERE CAST(city AS TEXT) <> 'null' AND name <> 'NULL' AND city = 'null'").unwrap().query;
        let found = comparisons(&q, &cat);
        let read: BTreeMap<Literal, Stored> = found.iter().map(|l| (l.clone(), stored(&[], &[], &[]))).collect();
        let f: Vec<String> = check(&found, &read, "").into_iter().map(|f| f.message).collect();
        // `<> 'null'` is `IS NOT NULL` when no row stores the word; `= 'null'` still matches nothing
        assert!(f.iter().all(|m| !m.contains("excluding it")), "{f:?}");
        let cast_equal = check_query("SELECT name FROM customers WHERE CAST(customer_id AS TEXT) = 'null'").unwrap().query;
        let found = comparisons(&cast_equal, &cat);
        let read: BTreeMap<Literal, Stored> = found.iter().map(|l| (l.clone(), stored(&[], &[], &[]))).collect();
        assert_eq!(check(&found, &read, "").len(), 1);
    }

    #[test]
    fn a_pattern_that_widens_a_value_the_question_names() {
        let cat = bookshop();
        let q = check_query("SELECT count(*) FROM customers WHERE city ILIKE '%paris%' AND name NOT LIKE '%Zed%'").unwrap().query;
        let found = comparisons(&q, &cat);
        let get = |v: &str| found.iter().find(|l| l.value == v).unwrap().clone();
        assert_eq!((get("%paris%").op, get("%Zed%").op), (Op::Matches, Op::MatchesNot));
        assert!(same_as_core_sql(&get("%paris%")).contains("lower(btrim('paris'))"));
        let mut read = BTreeMap::new();
        let mut paris = stored(&["Paris", "Paris-Plage"], &[], &[]);
        paris.same_as_core = vec!["Paris".into()];
        read.insert(get("%paris%"), paris);
        read.insert(get("%Zed%"), stored(&[], &[], &[]));
        let f: Vec<String> = check(&found, &read, "How many customers live in Paris?").into_iter().map(|f| f.message).collect();
        assert_eq!(f.len(), 2, "{f:?}");
        assert!(f.iter().any(|m| m.contains("the pattern '%paris%' also matches 'Paris-Plage' of customers.city, while the question names 'Paris'")), "{f:?}");
        assert!(f.iter().any(|m| m.contains("matches '%Zed%' in any case, so excluding it excludes nothing")), "{f:?}");
        let (fixed, what) = replace(&q, &cat, &read, "How many customers live in Paris?").unwrap();
        assert!(fixed.to_string().contains("WHERE city = 'Paris' AND name NOT LIKE '%Zed%'"), "{fixed}");
        assert_eq!(what, "LIKE '%paris%' → = 'Paris': the value as the column stores it");
        // asked for a part of the value: the pattern is what the question means
        assert_eq!(check(&found, &read, "How many customers live in a city whose name contains paris?").len(), 1);
        assert!(replace(&q, &cat, &read, "Which cities include paris?").is_none());
    }
}
