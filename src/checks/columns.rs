//! The columns a query returns against what the question asks for.
//!
//! - `columns`: a column the question does not ask for.
//!   - A key the query ranks or filters its groups by (`ORDER BY`, `HAVING`), echoed in the
//!     output though the question names it only in the phrase that ranks, orders or bounds
//!     ("the country with the *largest area*", "*ordered by* age", "*fewer than 200* flights"):
//!     that phrase says how to choose the rows, not what to show.
//!   - An identifier column (`id`, `…_id`, `uid`) selected beside other columns of the same table
//!     though the question never asks for ids: the entity is already named by those columns.
//! - `attributes`: the question's request enumerates N things ("the *name, population, and head
//!   of state* of …", "list both the *id and the summary*") and the query returns fewer columns.
//! - `name`: the question asks for the names of a table's things ("the *names* of all stadiums"), the
//!   query reads that table, which has a `name` column, and returns none with "name" in it.
//! - `attribute`: the question asks for a thing a column of a table the query reads holds ("the
//!   *gender* of the student": `student.sex`), and the query returns other columns.
//! - `whole_row`: the query returns a table's name as if it were a column (`SELECT college FROM
//!   college`, where `college` has no column `college`): PostgreSQL reads it as the whole row, one
//!   record of every column, so the query runs and shows no attribute of what was asked.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;
use sqlparser::ast::{Expr, GroupByExpr, OrderByKind, Query, SelectItem, SetExpr};

use super::{aliases, column_of, finding, named_in_question, Finding, Severity};
use crate::catalog::Catalog;

/// How many of [`RANKING`]'s words, from its start, are superlatives.
const SUPERLATIVES_END: usize = 26;
/// Words that rank: a superlative, or a bound on a count or amount.
const RANKING: &[&str] = &[
    "most", "least", "fewest", "highest", "lowest", "largest", "smallest", "biggest", "greatest", "maximum", "minimum",
    "longest", "shortest", "oldest", "youngest", "newest", "latest", "earliest", "best", "worst", "cheapest",
    "heaviest", "lightest", "richest", "poorest", "top", "more", "less", "fewer", "greater", "higher", "lower",
    "larger", "smaller", "over", "under", "above", "below", "exceeding", "exceeds", "exceed",
];
/// Words that order.
const ORDERING: &[&str] = &["ordered", "sorted", "order", "sort", "ranked", "rank", "arranged", "arrange", "ascending", "descending"];
/// Words that end a ranking or ordering phrase.
const PHRASE_END: &[&str] = &[
    "and", "or", "of", "in", "for", "with", "who", "whose", "that", "which", "where", "what", "is", "are", "was", "were",
    "has", "have", "had", "does", "do", "did", "from", "to", "at", "on", "then", "list", "show", "give", "return",
];
/// Words that open a request, before "the": "what is the", "return the", "give me the".
const REQUEST_VERBS: &[&str] = &["what", "is", "are", "was", "were", "return", "show", "find", "give", "list", "me", "display", "report", "tell"];
const MEASURE: &[&str] = &["number", "amount", "count", "total", "sum", "average", "numbers"];

/// The question's lower-case words with the phrases that rank, order or bound removed: what is
/// left names what the question wants to see.
pub fn without_ranking_phrases(question: &str) -> String {
    ranking_phrases(question).0
}

/// The question's lower-case words split in two: (what is left once the phrases that rank, order
/// or bound are removed, the words of those phrases). A comma ends a phrase.
pub fn ranking_phrases(question: &str) -> (String, String) {
    let words: Vec<String> = question
        .to_lowercase()
        .replace([',', ';'], " , ")
        .split(|c: char| !c.is_alphanumeric() && c != ',')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    let mut keep = vec![true; words.len()];
    let stops = |w: &str| w == "," || PHRASE_END.contains(&w);
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        // a superlative or bound, "than", a number, "the number of", then up to two words
        // a superlative that heads the request is what is asked ("what is the smallest version
        // number", "return the lowest price"), not how to choose
        let heads_request = i >= 2 && words[i - 1] == "the" && REQUEST_VERBS.contains(&words[i - 2].as_str());
        let start = if RANKING.contains(&w) && !heads_request {
            Some(i + 1)
        } else if ORDERING.contains(&w) {
            // "ordered [ascending] by X", "in descending order of X": from "by"/"of" on; "an
            // ordered list of X" lists X
            (i + 1..(i + 4).min(words.len()))
                .take_while(|&j| words[j] != "list")
                .find(|&j| words[j] == "by" || words[j] == "of")
                .map(|j| j + 1)
        } else {
            None
        };
        let Some(mut j) = start else {
            i += 1;
            continue;
        };
        // the ranking word, and the words up to the phrase's object ("ordered [ascending] by")
        keep[i..j.min(words.len())].fill(false);
        for skip in ["than", "the", "a"] {
            if words.get(j).is_some_and(|x| x == skip) {
                keep[j] = false;
                j += 1;
            }
        }
        while words.get(j).is_some_and(|x| x.chars().all(|c| c.is_ascii_digit())) {
            keep[j] = false;
            j += 1;
        }
        if words.get(j).is_some_and(|x| MEASURE.contains(&x.as_str())) && words.get(j + 1).is_some_and(|x| x == "of") {
            keep[j] = false;
            keep[j + 1] = false;
            j += 2;
        }
        let mut taken = 0;
        while taken < 2 && words.get(j).is_some_and(|x| !stops(x)) {
            keep[j] = false;
            j += 1;
            taken += 1;
        }
        i = j.max(i + 1);
    }
    let (mut kept, mut removed) = (Vec::new(), Vec::new());
    for (w, k) in words.into_iter().zip(keep) {
        if w != "," {
            if k { kept.push(w) } else { removed.push(w) }
        }
    }
    (kept.join(" "), removed.join(" "))
}

/// A second request after the first ("… and what are the rates?", "… and how long did they
/// last?", "… and their names"): what the query ranks by may be what it asks back.
static ASKS_BACK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:\band|\balso|,)\s+(?:also\s+)?(?:what|how\s+(?:many|much|long|old|big|large|often)|which|list|show|give|return|display|their|its|those|these|the\s+(?:number|count|total|amount|value)s?)\b")
        .expect("compiles")
});

/// Is this column name an identifier's?
fn is_id_column(name: &str) -> bool {
    let n = name.to_lowercase();
    n == "id" || n == "uid" || n.ends_with("_id")
}

static ASKS_IDS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(ids?|identifiers?|identification)\b").expect("compiles"));

/// Why a projected item is not asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unasked {
    /// A key of the ranking or of HAVING, named only in the phrase that ranks or bounds.
    Key,
    /// An identifier beside other columns of its table.
    Id,
}

/// The projection items of the outer block the question does not ask for: (index, why).
pub fn unasked_items(query: &Query, catalog: &Catalog, question: &str) -> Vec<(usize, Unasked)> {
    let mut out = Vec::new();
    let SetExpr::Select(select) = query.body.as_ref() else { return out };
    // a question that asks for whole rows ("all the information", "the details of") asks for every
    // column: none of them is unasked
    if select.projection.len() < 2 || crate::lexicon::asks_whole_rows(question) {
        return out;
    }
    let (asked, ranking) = ranking_phrases(question);
    let asks_back = ASKS_BACK.is_match(&question.to_lowercase());
    // a superlative ranks by what it implies ("the oldest" by birth date, "the most expensive" by
    // price): evidence for a key the phrase does not name
    let superlative = question.to_lowercase().split(|c: char| !c.is_alphanumeric()).any(|w| RANKING[..SUPERLATIVES_END].contains(&w));
    // the keys: ORDER BY expressions, and both sides of HAVING's comparisons
    let mut keys: Vec<&Expr> = match query.order_by.as_ref().map(|o| &o.kind) {
        Some(OrderByKind::Expressions(items)) => items.iter().map(|o| &o.expr).collect(),
        _ => vec![],
    };
    if let Some(h) = &select.having {
        keys.extend(super::conjuncts(h).into_iter().flat_map(|c| match c {
            Expr::BinaryOp { left, right, .. } => vec![left.as_ref(), right.as_ref()],
            other => vec![other],
        }));
    }
    let is_key = |e: &Expr, alias: Option<&str>| {
        keys.iter().any(|k| *k == e || matches!(k, Expr::Identifier(i) if alias.is_some_and(|a| a.eq_ignore_ascii_case(&i.value))))
    };
    // the request enumerates as many things as the query returns ("the name, latitude, and city
    // of the station with the lowest latitude", `lat`; "the employee number, name and job title":
    // the number may be the id): each output is one of them, however it is named
    let enumerated = asked_attributes(question).is_some_and(|a| a.len() >= select.projection.len());
    for (n, item) in select.projection.iter().enumerate() {
        let (e, alias) = match item {
            SelectItem::UnnamedExpr(e) => (e, None),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.as_str())),
            _ => continue,
        };
        // only with evidence that the key belongs to the ranking phrase: an aggregate (its
        // measure is what ranks), or a column the phrase names; never when the question asks
        // something back after its first request
        let in_phrase = matches!(e, Expr::Function(_)) || superlative || named_in_question(e, &ranking);
        if !matches!(e, Expr::Value(_)) && is_key(e, alias) && in_phrase && !asks_back && !enumerated && !named_in_question(e, &asked) {
            out.push((n, Unasked::Key));
        }
    }
    // identifiers beside other columns of their table, unless the request enumerates as many
    // things as the query returns
    if !ASKS_IDS.is_match(&question.to_lowercase()) && !enumerated {
        let aliases = aliases(select, catalog);
        let sole_group_key = |e: &Expr| matches!(&select.group_by, GroupByExpr::Expressions(k, _) if k.len() == 1 && k[0] == *e);
        let plain: Vec<(usize, &Expr, (crate::catalog::RelName, String))> = select
            .projection
            .iter()
            .enumerate()
            .filter_map(|(n, i)| match i {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => column_of(e, &aliases, catalog).map(|c| (n, e, c)),
                _ => None,
            })
            .collect();
        for (n, e, (rel, col)) in &plain {
            if is_id_column(col) && !sole_group_key(e) && !out.iter().any(|(m, _)| m == n) && plain.iter().any(|(_, _, (r, c))| r == rel && !is_id_column(c)) {
                out.push((*n, Unasked::Id));
            }
        }
    }
    out.sort_by_key(|(n, _)| *n);
    out
}

/// The `columns` findings: keys of the ranking or the group filter echoed in the output, and
/// identifiers nobody asked for.
pub fn unasked(query: &Query, catalog: &Catalog, question: &str) -> Vec<Finding> {
    let SetExpr::Select(select) = query.body.as_ref() else { return vec![] };
    unasked_items(query, catalog, question)
        .into_iter()
        .map(|(n, why)| {
            let item = &select.projection[n];
            finding(
                "columns",
                Severity::Repair,
                match why {
                    Unasked::Key => format!("`{item}` is what the query ranks or filters by, and the question does not ask for its value: select only what the question asks for and keep it in ORDER BY/HAVING"),
                    Unasked::Id => format!("`{item}` is an identifier the question does not ask for, beside other columns of its table: select only what the question asks for"),
                },
            )
        })
        .collect()
}

/// Lead words of a request for attributes.
static REQUEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:what (?:is|are|was|were) (?:the |their |its )?|show (?:me )?(?:the )?|list (?:all )?(?:the )?|give (?:me )?(?:the )?|find (?:out )?(?:the )?|return (?:the )?|tell me (?:the )?|display (?:the )?|report (?:the )?|which )(.*)$")
        .expect("compiles")
});
/// Words that end the enumeration of what is asked.
const REQUEST_END: &[&str] = &[
    "of", "for", "in", "from", "who", "whose", "that", "which", "with", "where", "when", "by", "ordered", "sorted", "is",
    "are", "was", "were", "has", "have", "had", "do", "does", "did", "to", "on", "at", "among", "across", "between",
    "each", "per", "than", "if", "whether", "all", "except", "but", "without", "not", "listed", "order", "sorted",
    "ranked", "arranged",
];

/// The things a request enumerates ("name, population, and head of state" → 3), when it
/// enumerates at least two.
pub fn asked_attributes(question: &str) -> Option<Vec<String>> {
    let mut best: Option<Vec<String>> = None;
    for sentence in question.to_lowercase().split(['.', '?', ';', '!']) {
        let Some(items) = request_items(sentence.trim()) else { continue };
        if items.len() >= 2 && best.as_ref().is_none_or(|b| items.len() > b.len()) {
            best = Some(items);
        }
    }
    best
}

/// Every thing the question's requests ask for, one or more per request, in order ("What is the
/// production budget of each film?" → "production budget"): the items of [`asked_attributes`]
/// whatever their number, and the attribute of a question that asks who holds a role ("Who is
/// the principal investigator of each project?" → "principal investigator").
pub fn requested_items(question: &str) -> Vec<String> {
    let mut out = Vec::new();
    for sentence in question.to_lowercase().split(['.', '?', ';', '!']) {
        let sentence = sentence.trim();
        let sentence = match WHO_HOLDS.captures(sentence).and_then(|c| c.get(1)) {
            Some(rest) => format!("what is the {}", rest.as_str()),
            None => sentence.to_string(),
        };
        out.extend(request_items(&sentence).unwrap_or_default());
    }
    out
}

/// "Who is the …": a question that asks for the holder of a role, an attribute of a thing.
static WHO_HOLDS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^who (?:is|are|was|were) the (.*)$").expect("compiles"));

/// The things one request (a lower-case sentence) enumerates, when the sentence is a request.
fn request_items(sentence: &str) -> Option<Vec<String>> {
    let rest = REQUEST.captures(sentence)?.get(1)?;
    let mut tokens: Vec<&str> = rest.as_str().split_whitespace().collect();
    // "show each student's name and age": the things are what follows the owner, whose "each"
    // would otherwise end the enumeration before it begins
    if tokens.len() > 2 && ["each", "every", "all"].contains(&tokens[0]) && (tokens[1].ends_with("'s") || tokens[1].ends_with("s'")) {
        tokens.drain(..2);
    }
    let mut span = Vec::new();
    for token in tokens {
        let word = token.trim_matches(|c: char| !c.is_alphanumeric());
        // "both" after the request's first word joins what a verb of the clause takes ("which
        // authors wrote both Dune and Emma"), not the things asked ("list both the id and the name")
        if REQUEST_END.contains(&word) || (word == "both" && !span.is_empty()) {
            break;
        }
        span.push(token);
    }
    let text = span.join(" ");
    Some(
        text.split(',')
            // a total's parts are one thing: "the total checking and savings balance" asks for one sum
            .flat_map(|part| joined(part.split(" and ").map(str::to_string).collect(), |prev, _| bare_item(prev).split_whitespace().next().is_some_and(sums)))
            .flat_map(|part| part.split(" as well as ").map(str::to_string).collect::<Vec<_>>())
            .map(|p| bare_item(&p))
            .filter(|p| !p.is_empty())
            .collect(),
    )
}

/// An item of a request without its articles and joining words ("the first name" → "first name").
fn bare_item(item: &str) -> String {
    item.split_whitespace()
        .filter(|w| !["both", "the", "their", "its", "his", "her", "and", "also", "a", "an"].contains(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Is this a word that asks for a sum ("total")?
fn sums(word: &str) -> bool {
    crate::lexicon::AGGREGATE_WORDS.iter().any(|(f, words)| *f == "sum" && words.contains(&word))
}

/// The items with each one that `joins` its predecessor (given the two) appended to it after
/// "and", as one thing.
fn joined(items: Vec<String>, joins: impl Fn(&str, &str) -> bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in items {
        match out.last_mut() {
            Some(prev) if joins(prev, &item) => {
                prev.push_str(" and ");
                prev.push_str(&item);
            }
            _ => out.push(item),
        }
    }
    out
}

/// The words of the column names the query's outer block returns (`clean_jerk` → clean, jerk).
fn output_name_words(select: &sqlparser::ast::Select) -> Vec<Vec<String>> {
    select
        .projection
        .iter()
        .filter_map(|i| match i {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => crate::scope::written::column_name(e),
            _ => None,
        })
        .map(|name| name.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect())
        .collect()
}

/// The things asked, with two neighbours read as one when one returned name holds the last word
/// of the first and the first word of the second ("clean and jerk" is the column `clean_jerk`).
fn asked_of_outputs(asked: Vec<String>, names: &[Vec<String>]) -> Vec<String> {
    joined(asked, |prev, item| {
        let (Some(end), Some(start)) = (prev.split_whitespace().last(), item.split_whitespace().next()) else { return false };
        names.iter().any(|n| n.iter().any(|w| w == end) && n.iter().any(|w| w == start))
    })
}

/// The `whole_row` finding: an output of a block is a bare name of one of its tables (its alias,
/// or its name when it has none) that no table of the block has as a column: PostgreSQL returns
/// that table's whole row as one record (`SELECT DISTINCT college FROM college WHERE
/// college_location = 'Ivy League'` runs and returns records). Only blocks that read tables of
/// the catalog alone are read: a derived table's or a function's columns are not known here.
pub fn whole_rows(query: &Query, catalog: &Catalog) -> Vec<Finding> {
    let mut named: Vec<(String, crate::catalog::RelName)> = Vec::new();
    super::each_select(query, &mut |select| {
        let factors = select.from.iter().flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)));
        let read = aliases(select, catalog);
        if factors.count() != read.len() {
            return;
        }
        for item in &select.projection {
            let (SelectItem::UnnamedExpr(Expr::Identifier(i)) | SelectItem::ExprWithAlias { expr: Expr::Identifier(i), .. }) = item else { continue };
            let name = i.value.to_lowercase();
            let Some(rel) = read.get(&name) else { continue };
            let a_column = read.values().any(|r| catalog.table(r).is_some_and(|t| t.columns.iter().any(|c| c.name.to_lowercase() == name)));
            if !a_column && !named.iter().any(|(n, _)| *n == i.value) {
                named.push((i.value.clone(), rel.clone()));
            }
        }
    });
    named
        .into_iter()
        .map(|(name, rel)| {
            let columns = catalog.table(&rel).map(|t| t.columns.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")).unwrap_or_default();
            let table = &rel.name;
            finding(
                "whole_row",
                Severity::Repair,
                format!(
                    "`{name}` in the SELECT list is the table {table} itself, not a column of it: PostgreSQL returns its whole row as one record; select the columns the question asks for ({table} has {columns})"
                ),
            )
        })
        .collect()
}

/// The `attributes` finding: the request enumerates more things than the query returns columns.
pub fn missing(query: &Query, question: &str) -> Option<Finding> {
    let mut body = query.body.as_ref();
    while let SetExpr::SetOperation { left, .. } = body {
        body = left.as_ref();
    }
    let SetExpr::Select(select) = body else { return None };
    if select.projection.iter().any(|i| !matches!(i, SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAlias { .. })) {
        return None;
    }
    let asked = asked_of_outputs(asked_attributes(question)?, &output_name_words(select));
    let n = select.projection.len();
    (n < asked.len()).then(|| {
        finding(
            "attributes",
            Severity::Repair,
            format!(
                "the question asks for {} things ({}), and the query returns {n} column{}: select one column for each",
                asked.len(),
                asked.join("; "),
                if n == 1 { "" } else { "s" }
            ),
        )
    })
}

/// "the names of the stadiums": a request for the names of a table's things, with the word that
/// names the things.
static NAMES_OF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bnames? of (?:all |each |every |the |these |those )*(?:different |distinct |unique )?([a-z]+)").expect("compiles")
});

/// The `name` finding: the question asks for the names of a table's things ("the names of all
/// stadiums"), the query reads that table, which has a column called `name`, and it returns no
/// column with "name" in it: it answers with another attribute ("SELECT location FROM stadium").
/// The things are matched to the table as the linking matches words (a plural, a prefix, an
/// abbreviation). Read in English only.
pub fn name_not_returned(query: &Query, catalog: &Catalog, question: &str) -> Option<Finding> {
    let SetExpr::Select(select) = query.body.as_ref() else { return None };
    let q = question.to_lowercase();
    let things: Vec<String> = NAMES_OF.captures_iter(&q).map(|c| c[1].to_string()).collect();
    if things.is_empty() || !requested_items(question).iter().any(|i| i == "name" || i == "names") {
        return None;
    }
    let mut returned: Vec<String> = Vec::new();
    for item in &select.projection {
        let (e, alias) = match item {
            SelectItem::UnnamedExpr(e) => (e, None),
            SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.value.to_lowercase())),
            _ => return None,
        };
        // a name column, an alias or an expression over one ("first_name || ' ' || last_name")
        let name = crate::scope::written::column_name(e);
        if alias.iter().any(|a| a.contains("name")) || e.to_string().to_lowercase().contains("name") {
            return None;
        }
        returned.push(alias.or(name).unwrap_or_else(|| e.to_string()));
    }
    // the table read whose name's last word is the things' word, as the question writes it
    let aliases = aliases(select, catalog);
    let (rel, thing) = aliases.values().find_map(|rel| {
        let table = catalog.table(rel)?;
        let last = rel.name.to_lowercase().rsplit('_').find(|t| !t.is_empty())?.to_string();
        let thing = things.iter().find(|w| crate::scope::link::matches(w, &last))?;
        table.columns.iter().any(|c| c.name.eq_ignore_ascii_case("name")).then(|| (rel, thing.clone()))
    })?;
    Some(finding(
        "name",
        Severity::Repair,
        format!(
            "the question asks for the names of {thing}, and the query returns {} instead: {}.name holds their names",
            returned.join(", "),
            rel.name
        ),
    ))
}

/// The `attribute` finding: the question asks for a thing that a column of a table the query
/// reads holds ("What is the gender of the student Linda Smith?": `student.sex`), and the query
/// returns other columns, none of which carries a word of it (`fname`): it answers another
/// question. The thing is one the question's requests ask for ([`requested_items`]), matched to
/// the column as the linking matches words or by an attribute of the lexicon, and carried as the
/// scope stage reads an answer ([`crate::scope::written::unanswered_items`]: a word of a returned
/// column, its table or an alias). Keys name no attribute (`student_id` is no "student"), nor do
/// the words of the table's own name, nor a word that names a column's other words than its last
/// (`product_stock_number` is a number) or a unit of a column named after another attribute
/// (`price_in_pounds` holds no weight, [`crate::scope::written::names_what_column_holds`]); the column is of a table whose columns the query
/// returns (a table joined in to filter holds no attribute of the things answered), and not one
/// the query reads elsewhere (a filter's word: "female (sex is F)"); one block only, of plain
/// columns (`*`, a computation or an aggregate may hold anything). Read in English only.
pub fn attribute_not_returned(query: &Query, catalog: &Catalog, question: &str) -> Option<Finding> {
    let SetExpr::Select(select) = query.body.as_ref() else { return None };
    // a count or another aggregate returned may be the thing asked ("how many school locations")
    if super::projects_aggregate(select) {
        return None;
    }
    let aliases = aliases(select, catalog);
    let items = requested_items(question);
    if items.is_empty() {
        return None;
    }
    // the columns the query reads anywhere: a word whose column filters, groups or ranks is the
    // condition's ("female (sex is F)"), not a thing left out
    let mut read: BTreeSet<(crate::catalog::RelName, String)> = BTreeSet::new();
    let _ = sqlparser::ast::visit_expressions(select.as_ref(), |e| {
        if let Some(rc) = column_of(e, &aliases, catalog) {
            read.insert(rc);
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    let words: BTreeSet<String> =
        items.iter().flat_map(|i| i.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 3).map(str::to_string).collect::<Vec<_>>()).collect();
    // the tables whose columns the query returns: the thing asked for is an attribute of the
    // things answered, not of a table joined in to filter them
    let mut answered: BTreeSet<crate::catalog::RelName> = BTreeSet::new();
    for item in &select.projection {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            let _ = sqlparser::ast::visit_expressions(e, |e| {
                if let Some((rel, _)) = column_of(e, &aliases, catalog) {
                    answered.insert(rel);
                }
                std::ops::ControlFlow::<()>::Continue(())
            });
        }
    }
    // each word of the things asked for with the columns of those tables that it names
    let mut holders: BTreeSet<(String, String)> = BTreeSet::new();
    for rel in aliases.values().filter(|r| answered.contains(*r)) {
        let Some(table) = catalog.table(rel) else { continue };
        let own = crate::scope::link::tokens(&rel.name);
        let keys: BTreeSet<&str> = catalog
            .foreign_keys
            .iter()
            .filter(|fk| fk.from == *rel)
            .flat_map(|fk| fk.from_columns.iter().map(String::as_str))
            .chain(table.primary_key.iter().map(String::as_str))
            .collect();
        for c in table.columns.iter().filter(|c| !keys.contains(c.name.as_str()) && !read.contains(&(rel.clone(), c.name.clone()))) {
            for w in &words {
                if own.iter().any(|t| crate::scope::link::matches(w, t) || crate::scope::link::matches(t, w)) {
                    continue;
                }
                if crate::scope::written::names_what_column_holds(w, &c.name) {
                    holders.insert((w.clone(), format!("{}.{}", rel.name, c.name)));
                }
            }
        }
    }
    let named: Vec<String> = holders.iter().map(|(w, _)| w.clone()).collect();
    let (item, returned) = crate::scope::written::unanswered_items(query, catalog, question, &named).into_iter().next()?;
    let held: Vec<&str> = holders.iter().filter(|(w, _)| item.split(|c: char| !c.is_alphanumeric()).any(|iw| iw == w)).map(|(_, h)| h.as_str()).collect();
    Some(finding(
        "attribute",
        Severity::Repair,
        format!("the question asks for the {item}, and the query returns {} instead: {} holds it", returned.join(", "), held.join(" or ")),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::check_query;

    #[test]
    fn an_attribute_a_column_holds_asked_and_another_returned() {
        let table = |n: &str, cols: &[&str]| crate::testing::table(n, &cols.iter().map(|c| (*c, "text")).collect::<Vec<_>>(), cols[0]);
        let catalog = Catalog {
            tables: vec![table("student", &["stuid", "fname", "lname", "sex", "major", "city_code"]), table("class", &["class_id", "stuid", "class_time"])],
            ..Default::default()
        };
        let found = |sql: &str, question: &str| attribute_not_returned(&check_query(sql).unwrap().query, &catalog, question).map(|f| f.message);
        let why = found("SELECT fname FROM student WHERE lname = 'Smith' AND fname = 'Linda'", "What is the gender of the student Linda Smith?").expect("found");
        assert!(why.contains("gender") && why.contains("student.sex") && why.contains("fname"), "{why}");
        // returned, under its own name or the lexicon's
        assert!(found("SELECT sex FROM student WHERE lname = 'Smith'", "What is the gender of the student Linda Smith?").is_none());
        assert!(found("SELECT major FROM student WHERE lname = 'Smith'", "What is the major of the student Linda Smith?").is_none());
        // the table's own name, a key, a name asked for: no attribute of its own
        assert!(found("SELECT fname, lname FROM student", "List all the students.").is_none());
        assert!(found("SELECT fname, lname FROM student WHERE sex = 'F'", "What are the names of the female students?").is_none());
        // a count returned, a column the query filters on, a word of a name that is not its head
        assert!(found("SELECT count(*) FROM student WHERE city_code = 'NY'", "How many student majors are there in NY?").is_none());
        assert!(found("SELECT fname FROM student WHERE sex = 'F'", "List all female (sex is F) student first names.").is_none());
        assert!(found("SELECT fname FROM student", "What is the city of each student?").is_none());
        // a unit of another attribute's column: `price_in_pounds` holds no weight
        let priced = Catalog { tables: vec![table("catalog_contents", &["entry_id", "entry_name", "capacity", "price_in_pounds", "weight_in_kg"])], ..Default::default() };
        let in_catalog = |sql: &str| attribute_not_returned(&check_query(sql).unwrap().query, &priced, "What is the weight of each catalog entry?").map(|f| f.message);
        let why = in_catalog("SELECT capacity FROM catalog_contents").expect("found");
        assert!(why.contains("weight_in_kg") && !why.contains("price_in_pounds"), "{why}");
        // a column of a table joined in to filter is no attribute of the things answered
        assert!(found("SELECT s.fname FROM student s JOIN class c ON c.stuid = s.stuid WHERE c.class_id = 3", "What are the first names and the time of the students of class 3?").is_none());
        assert!(found("SELECT s.fname FROM student s JOIN class c ON c.stuid = s.stuid", "What is the major of the students in a class?").is_some());
        // `*` or a computation may hold anything
        assert!(found("SELECT * FROM student", "What is the gender of the student Linda Smith?").is_none());
        assert!(found("SELECT fname || lname FROM student", "What is the major of each student?").is_none());
    }

    #[test]
    fn ranking_phrases_are_removed() {
        assert_eq!(without_ranking_phrases("the country that has the largest area"), "the country that has the");
        assert_eq!(without_ranking_phrases("names of players ordered ascending by the number of final tables"), "names of players");
        assert_eq!(without_ranking_phrases("airlines that have fewer than 200 flights"), "airlines that have");
        assert_eq!(without_ranking_phrases("the program which most number of students are enrolled in"), "the program which are enrolled in");
        assert_eq!(without_ranking_phrases("the 2 authors with the highest total price"), "the 2 authors with the");
        assert_eq!(without_ranking_phrases("name and age of the oldest singer"), "name and age of the");
        // a superlative heading the request is asked for
        assert_eq!(without_ranking_phrases("What is the smallest version number and its type?"), "what is the smallest version number and its type");
    }

    #[test]
    fn attributes_enumerated_by_the_request() {
        let n = |q: &str| asked_attributes(q).map(|a| a.len());
        assert_eq!(n("Give the name, population, and head of state for the country that has the largest area."), Some(3));
        assert_eq!(n("Find the program which most students are enrolled in. List both the id and the summary."), Some(2));
        assert_eq!(n("Which city and country is the Alton airport at?"), Some(2));
        assert_eq!(n("What are the first name and last name of all students?"), Some(2));
        assert_eq!(n("What are the names of the stadiums with capacity between 5000 and 10000?"), None);
        assert_eq!(n("How many singers and songs are there?"), None);
        assert_eq!(n("Show the name of singers older than 40 and younger than 60"), None);
        assert_eq!(n("Which authors wrote both 'Dune' and 'Emma'?"), None);
        assert_eq!(n("What are the names of people who own both a car and a bike?"), None);
    }

    #[test]
    fn the_names_asked_and_another_column_returned() {
        use crate::testing::table;
        let catalog = Catalog {
            tables: vec![
                table("stadium", &[("stadium_id", "integer"), ("name", "text"), ("location", "text"), ("capacity", "integer")], "stadium_id"),
                table("concert", &[("concert_id", "integer"), ("concert_name", "text"), ("stadium_id", "integer"), ("year", "text")], "concert_id"),
                table("countrylanguage", &[("countrycode", "text"), ("language", "text")], "countrycode"),
                table("country", &[("code", "text"), ("name", "text")], "code"),
            ],
            ..Default::default()
        };
        let flag = |q: &str, sql: &str| name_not_returned(&check_query(sql).unwrap().query, &catalog, q).map(|f| f.message);
        let q = "What are the names of all stadiums that did not have a concert in 2014?";
        assert_eq!(
            flag(q, "SELECT DISTINCT location FROM stadium WHERE stadium_id NOT IN (SELECT stadium_id FROM concert WHERE year = '2014')").as_deref(),
            Some("the question asks for the names of stadiums, and the query returns location instead: stadium.name holds their names")
        );
        // the name, a column with "name" in it, an alias or an expression over one: no finding
        for sql in [
            "SELECT name FROM stadium",
            "SELECT s.name, s.location FROM stadium s",
            "SELECT c.concert_name FROM stadium s JOIN concert c ON s.stadium_id = c.stadium_id",
            "SELECT location AS stadium_name FROM stadium",
            "SELECT upper(name) FROM stadium",
        ] {
            assert_eq!(flag(q, sql), None, "{sql}");
        }
        // the things named are not that table's: a language has no name column
        assert_eq!(flag("What are the names of the languages spoken in Aruba?", "SELECT language FROM country JOIN countrylanguage ON code = countrycode WHERE country.name = 'Aruba'"), None);
        // no request for names: "named" or a name in a condition
        assert_eq!(flag("Which stadiums are in a city named Ayr?", "SELECT location FROM stadium WHERE location = 'Ayr'"), None);
        assert_eq!(flag("Show the capacity of the stadium with the name Glebe Park.", "SELECT capacity FROM stadium WHERE name = 'Glebe Park'"), None);
        // the name of another thing of the table ("the names of the concerts" read from stadium)
        assert_eq!(flag("What are the names of concerts in 2014?", "SELECT location FROM stadium"), None);
    }

    #[test]
    fn things_requested_one_or_more() {
        assert_eq!(requested_items("What is the production budget of each film?"), ["production budget"]);
        assert_eq!(requested_items("Who is the principal investigator of each project?"), ["principal investigator"]);
        assert_eq!(requested_items("Show the dates, places, and names of events."), ["dates", "places", "names"]);
        assert_eq!(requested_items("Show each student's name and blood type."), ["name", "blood type"]);
        assert_eq!(requested_items("List every employees' first name."), ["first name"]);
        // every request of the question, in order
        assert_eq!(requested_items("Which city hosts the most? Give its name and population."), ["city hosts most", "name", "population"]);
        // no request: none
        assert!(requested_items("How many singers are there?").is_empty());
        assert!(requested_items("Wer ist der Leiter jedes Projekts?").is_empty());
    }

    fn columns(sql: &str, q: &str) -> Vec<String> {
        let catalog = super::super::tests::catalog();
        let query = check_query(sql).unwrap().query;
        unasked(&query, &catalog, q).into_iter().chain(missing(&query, q)).map(|f| f.checker.to_string()).collect()
    }

    #[test]
    fn unasked_and_missing_columns() {
        // the ranking key named only in the ranking phrase
        assert_eq!(columns("SELECT name, born FROM authors ORDER BY born LIMIT 1", "Which author is the oldest?"), ["columns"]);
        assert_eq!(columns("SELECT a.name, count(*) AS n FROM authors a JOIN books b ON b.author_id = a.author_id GROUP BY a.name ORDER BY n DESC LIMIT 1", "Which author wrote the most number of books?"), ["columns"]);
        assert_eq!(columns("SELECT author_id, count(*) FROM books GROUP BY author_id HAVING count(*) < 3", "Authors with fewer than 3 books"), ["columns"]);
        assert!(columns("SELECT name, born FROM authors ORDER BY born LIMIT 1", "What is the name and year born of the oldest author?").is_empty());
        assert!(columns("SELECT a.name, count(*) FROM authors a JOIN books b ON b.author_id = a.author_id GROUP BY a.name ORDER BY count(*) DESC LIMIT 1", "Which author wrote the most books, and how many?").is_empty());
        // a count of identifiers is no "id" the question asks for
        assert_eq!(
            columns("SELECT a.author_id, a.name, count(b.book_id) AS n FROM authors a JOIN books b ON b.author_id = a.author_id GROUP BY a.author_id ORDER BY n DESC LIMIT 1", "Which author wrote the most books? Show the name and the id."),
            ["columns"]
        );
        // an identifier beside the name
        assert_eq!(columns("SELECT author_id, name FROM authors", "List the authors' names"), ["columns"]);
        assert!(columns("SELECT author_id, name FROM authors", "List the ids and names of authors").is_empty());
        assert!(columns("SELECT author_id, count(*) FROM books GROUP BY author_id", "How many books does each author have?").is_empty());
        // fewer columns than the things asked
        assert_eq!(columns("SELECT name FROM authors", "What are the name and birth year of every author?"), ["attributes"]);
        // a total of two things is one thing asked
        assert!(columns("SELECT a.name, sum(b.price) + sum(b.tax) FROM authors a JOIN books b ON b.author_id = a.author_id GROUP BY a.name", "List the names and total price and tax of the books of each author").is_empty());
        assert_eq!(columns("SELECT a.name FROM authors a", "List the names and total price and tax of the books of each author"), ["attributes"]);
        // two words of one returned name are one thing ("clean and jerk" is `clean_jerk`)
        assert!(columns("SELECT clean_jerk FROM lifts ORDER BY total DESC LIMIT 1", "What is the clean and jerk of the lifter with the highest total?").is_empty());
        assert_eq!(columns("SELECT snatch FROM lifts ORDER BY total DESC LIMIT 1", "What are the snatch and jerk of the lifter with the highest total?"), ["attributes"]);
        assert!(columns("SELECT name, born FROM authors", "What are the name and birth year of every author?").is_empty());
    }

    fn retail_columns(sql: &str, q: &str) -> Vec<String> {
        let catalog = crate::testing::retail();
        let query = check_query(sql).unwrap().query;
        unasked(&query, &catalog, q).into_iter().map(|f| f.checker.to_string()).collect()
    }

    #[test]
    fn a_key_is_unasked_only_with_evidence_from_the_ranking_phrase() {
        let by_price = "SELECT name, price FROM catalog.products ORDER BY price DESC LIMIT 5";
        // the phrase that ranks names the key, and nothing asks for it
        assert_eq!(retail_columns(by_price, "Which 5 products have the highest price?"), ["columns"]);
        // asked back after the first request
        assert!(retail_columns(by_price, "Which 5 products have the highest price, and what are those prices?").is_empty());
        // enumerated among the things asked, under another word than the column's
        assert!(retail_columns(by_price, "What are the name and cost of the 5 products with the highest price?").is_empty());
        assert_eq!(retail_columns("SELECT name, category, price FROM catalog.products ORDER BY price DESC LIMIT 5", "What are the name and kind of the 5 products with the highest price?"), ["columns"]);
        assert!(retail_columns(by_price, "Name the 5 products with the highest price and also the price itself").is_empty());
        // the key is not named by any ranking phrase: no evidence
        assert!(retail_columns("SELECT name, category FROM catalog.products ORDER BY category", "List products and their kinds in alphabetical order").is_empty());
        // a count asked after a bound: "at least 2 orders, how many"
        assert!(retail_columns(
            "SELECT c.\"FullName\", count(*) FROM sales.\"Customers\" c JOIN sales.orders o ON o.\"CustomerID\" = c.\"CustomerID\" GROUP BY c.\"FullName\" HAVING count(*) >= 2",
            "For each customer with at least 2 orders, how many orders did they place?"
        )
        .is_empty());
        // an ordered list of ids asks for the ids
        assert!(retail_columns("SELECT employee_id FROM hr.employees ORDER BY employee_id", "What is the ordered list of employee ids?").is_empty());
        // an id the enumeration may name ("employee number")
        assert!(retail_columns("SELECT employee_id, name, salary FROM hr.employees", "Show the employee number, name and salary of every employee").is_empty());
        assert_eq!(retail_columns("SELECT employee_id, name, salary FROM hr.employees", "Show the names and salaries of employees"), ["columns"]);
        // whole rows asked for: every column is, the ranking key and the id too
        assert!(retail_columns("SELECT employee_id, name, salary FROM hr.employees ORDER BY salary", "List the information of all employees ordered by their salary.").is_empty());
        assert!(retail_columns(by_price, "Show the details of the 5 products with the highest price.").is_empty());
    }
}
