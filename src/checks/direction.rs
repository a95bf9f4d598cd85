//! The `direction` checker: the direction a superlative of the question asks for ("highest",
//! "cheapest", "oldest", "most recent") against the direction the query ranks in (`ORDER BY …
//! LIMIT`) or aggregates with (`MAX`/`MIN`), reading the ranked column's type from the catalog:
//! "oldest" is the largest age but the earliest birth date.
//!
//! It judges only what it can: one sense of superlative in the question, one ranking key that is
//! a column of a table in scope or an aggregate, and a column whose kind fits the word (a time
//! word on a date or year column, an age word on a date or an age column, an amount word on a
//! number or an aggregate). Anything else is left alone.

use std::sync::LazyLock;

use regex::Regex;
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments, LimitClause, OrderByKind, OrderBySort, Query, SelectItem, SetExpr};

use super::{finding, scope, Finding, Severity};
use crate::catalog::{Catalog, Column};

/// What a superlative ranks by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sense {
    /// An amount: largest first ("highest", "most").
    More,
    /// An amount: smallest first ("lowest", "cheapest").
    Less,
    /// Age: the oldest (earliest date, largest age).
    Older,
    Younger,
    /// Time: the latest (latest date).
    Later,
    Earlier,
}

static WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(highest|most recent|most|largest|biggest|greatest|maximum|lowest|least|fewest|smallest|minimum|cheapest|oldest|youngest|earliest|latest|newest)\b")
        .expect("direction words compile")
});
/// Wordings where the words are not superlatives of a ranking.
static NOT_RANKING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(at (?:most|least)|not (?:more|less)|most of|at the latest|the least (?:one|amount)|from (?:the )?\w+ to (?:the )?\w+)\b")
        .expect("non-ranking wordings compile")
});

fn sense(word: &str) -> Sense {
    match word {
        "highest" | "most" | "largest" | "biggest" | "greatest" | "maximum" => Sense::More,
        "lowest" | "least" | "fewest" | "smallest" | "minimum" | "cheapest" => Sense::Less,
        "oldest" => Sense::Older,
        "youngest" => Sense::Younger,
        "earliest" => Sense::Earlier,
        _ => Sense::Later, // latest, newest, most recent
    }
}

/// The one sense of superlative the question uses, and its word; none when it uses none, or
/// several senses ("the oldest and the youngest").
fn question_sense(question: &str) -> Option<(Sense, String)> {
    let q = NOT_RANKING.replace_all(&question.to_lowercase(), " ").to_string();
    let mut found: Vec<(Sense, String)> = Vec::new();
    for m in WORDS.find_iter(&q) {
        let w = m.as_str().to_string();
        if !found.iter().any(|(s, _)| *s == sense(&w)) {
            found.push((sense(&w), w));
        }
    }
    match found.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// The kind of values a ranked expression holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A date, a time, a year.
    Time,
    /// An age.
    Age,
    /// A number (or an aggregate).
    Amount,
    /// A position in an order (`rank`, `position`, `place`, `seed`): 1 is the top, so "highest"
    /// may mean the smallest number; no amount word is judged on it.
    Ordinal,
    /// Text, or unknown.
    Other,
}

/// Does the column's name say it holds a position in an order, where 1 is the top?
fn is_ordinal(name: &str) -> bool {
    name.split(|c: char| !c.is_alphanumeric()).any(|w| ["rank", "ranking", "position", "place", "seed", "standing", "pos"].contains(&w))
}

fn column_kind(c: &Column) -> Kind {
    let (t, n) = (c.type_name.to_lowercase(), c.name.to_lowercase());
    let numeric = ["int", "numeric", "decimal", "real", "double", "float", "money"].iter().any(|w| t.contains(w));
    if t.contains("date") || t.contains("time") || ["birth", "born", "year", "founded", "established", "opened", "since"].iter().any(|w| n.contains(w)) {
        Kind::Time
    } else if is_ordinal(&n) {
        Kind::Ordinal
    } else if n == "age" || n.ends_with("_age") || n.starts_with("age_") {
        Kind::Age
    } else if numeric {
        Kind::Amount
    } else {
        Kind::Other
    }
}

/// The kind of `e`: an aggregate is an amount; a column is resolved among the tables in scope.
fn kind_of(e: &Expr, scope: &[(String, &crate::catalog::Table)]) -> Kind {
    match e {
        Expr::Function(f) => {
            let name = f.name.to_string().to_lowercase();
            match name.as_str() {
                "count" | "sum" | "avg" => Kind::Amount,
                "max" | "min" => first_arg(e).map_or(Kind::Other, |a| kind_of(a, scope)),
                _ => Kind::Other,
            }
        }
        Expr::Nested(inner) => kind_of(inner, scope),
        Expr::Identifier(i) => {
            let owners: Vec<&Column> = scope.iter().filter_map(|(_, t)| t.column(&i.value).or_else(|| t.columns.iter().find(|c| c.name.eq_ignore_ascii_case(&i.value)))).collect();
            match owners.as_slice() {
                [c] => column_kind(c),
                _ => Kind::Other,
            }
        }
        Expr::CompoundIdentifier(parts) => {
            let [q, c] = parts.as_slice() else { return Kind::Other };
            scope
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(&q.value))
                .and_then(|(_, t)| t.columns.iter().find(|col| col.name.eq_ignore_ascii_case(&c.value)))
                .map_or(Kind::Other, column_kind)
        }
        _ => Kind::Other,
    }
}

fn first_arg(e: &Expr) -> Option<&Expr> {
    let Expr::Function(f) = e else { return None };
    let FunctionArguments::List(list) = &f.args else { return None };
    match list.args.first()? {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(a)) => Some(a),
        _ => None,
    }
}

/// Whether the sense wants the largest value of a column of this kind first; `None` when the
/// word does not fit the kind, so nothing is judged.
fn wants_largest(sense: Sense, kind: Kind) -> Option<bool> {
    match (sense, kind) {
        (Sense::More, Kind::Amount | Kind::Age) => Some(true),
        (Sense::Less, Kind::Amount | Kind::Age) => Some(false),
        (Sense::Older, Kind::Time) | (Sense::Younger, Kind::Age) => Some(false),
        (Sense::Younger, Kind::Time) | (Sense::Older, Kind::Age) => Some(true),
        (Sense::Later, Kind::Time) => Some(true),
        (Sense::Earlier, Kind::Time) => Some(false),
        _ => None,
    }
}


/// The finding, if the query ranks or aggregates against the question's superlative.
pub fn check(query: &Query, catalog: &Catalog, question: &str) -> Option<Finding> {
    let (sense, word) = question_sense(question)?;
    let SetExpr::Select(select) = query.body.as_ref() else { return None };
    let scope = scope(query, catalog);
    let limited = matches!(&query.limit_clause, Some(LimitClause::LimitOffset { limit: Some(_), .. })) || query.fetch.is_some();
    let first_key = match query.order_by.as_ref().map(|o| &o.kind) {
        Some(OrderByKind::Expressions(items)) if limited => items.first(),
        _ => None,
    };
    if let Some(key) = first_key {
        let largest = wants_largest(sense, kind_of(&key.expr, &scope))?;
        let desc = matches!(key.options.sort, Some(OrderBySort::Desc));
        if matches!(key.options.sort, Some(OrderBySort::Using(_))) || desc == largest {
            return None;
        }
        let (want, have) = if largest { ("DESC", "ASC") } else { ("ASC", "DESC") };
        return Some(finding(
            "direction",
            Severity::Repair,
            format!("\"{word}\" ranks {} first, but ORDER BY {} {have} puts the {} first: write ORDER BY {} {want}", order_words(largest), key.expr, order_words(!largest), key.expr),
        ));
    }
    if query.order_by.is_some() {
        return None;
    }
    // MAX/MIN without a ranking: exactly one of them in the output
    let aggregates: Vec<&Expr> = select
        .projection
        .iter()
        .filter_map(|i| match i {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
            _ => None,
        })
        .filter(|e| matches!(e, Expr::Function(f) if ["max", "min"].contains(&f.name.to_string().to_lowercase().as_str())))
        .collect();
    let [agg] = aggregates.as_slice() else { return None };
    let Expr::Function(f) = agg else { return None };
    let is_max = f.name.to_string().eq_ignore_ascii_case("max");
    let largest = wants_largest(sense, kind_of(first_arg(agg)?, &scope))?;
    (is_max != largest).then(|| {
        let want = if largest { "MAX" } else { "MIN" };
        finding("direction", Severity::Repair, format!("\"{word}\" asks for the {} value, but {agg} gives the {}: use {want}", order_words(largest), order_words(!largest)))
    })
}

fn order_words(largest: bool) -> &'static str {
    if largest {
        "largest"
    } else {
        "smallest"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, RelKind, RelName, Table};
    use crate::sql::check_query;

    fn catalog() -> Catalog {
        let col = |n: &str, t: &str| Column { name: n.into(), type_name: t.into(), nullable: true, comment: None };
        Catalog {
            tables: vec![
                Table {
                    name: RelName::new("public", "singer"),
                    kind: RelKind::Table,
                    comment: None,
                    row_estimate: None,
                    columns: vec![col("name", "text"), col("age", "integer"), col("birth_date", "date"), col("sales", "numeric"), col("country", "text"), col("chart_rank", "integer")],
                    primary_key: vec![],
                },
                Table {
                    name: RelName::new("public", "concert"),
                    kind: RelKind::Table,
                    comment: None,
                    row_estimate: None,
                    columns: vec![col("concert_name", "text"), col("year", "text"), col("singer_name", "text")],
                    primary_key: vec![],
                },
            ],
            foreign_keys: vec![],
            ..Default::default()
        }
    }

    fn fires(question: &str, sql: &str) -> bool {
        check(&check_query(sql).unwrap().query, &catalog(), question).is_some()
    }

    #[test]
    fn superlatives_against_the_ranking_direction_read_the_column_kind() {
        assert!(fires("Who is the oldest singer?", "SELECT name FROM singer ORDER BY age ASC LIMIT 1"));
        assert!(!fires("Who is the oldest singer?", "SELECT name FROM singer ORDER BY age DESC LIMIT 1"));
        // a birth date reverses "oldest"
        assert!(!fires("Who is the oldest singer?", "SELECT name FROM singer ORDER BY birth_date LIMIT 1"));
        assert!(fires("Who is the oldest singer?", "SELECT name FROM singer ORDER BY birth_date DESC LIMIT 1"));
        assert!(fires("Which singer has the highest sales?", "SELECT name FROM singer ORDER BY sales LIMIT 1"));
        assert!(fires("Which country has the fewest singers?", "SELECT country FROM singer GROUP BY country ORDER BY count(*) DESC LIMIT 1"));
        assert!(fires("What is the most recent concert?", "SELECT c.concert_name FROM concert AS c ORDER BY c.year ASC LIMIT 1"));
        assert!(fires("What is the lowest sales figure?", "SELECT max(sales) FROM singer"));
        assert!(!fires("What is the lowest sales figure?", "SELECT min(sales) FROM singer"));
        assert!(fires("When was the youngest singer born?", "SELECT min(birth_date) FROM singer"));
    }

    #[test]
    fn what_it_cannot_judge_is_left_alone() {
        // two senses; text ranked; no LIMIT; a word that does not fit the column; "at least"
        assert!(!fires("Show the oldest and the youngest singers", "SELECT name FROM singer ORDER BY age LIMIT 2"));
        assert!(!fires("Which singer has the highest name?", "SELECT name FROM singer ORDER BY name ASC LIMIT 1"));
        assert!(!fires("List singers by the highest sales", "SELECT name FROM singer ORDER BY sales ASC"));
        assert!(!fires("Who is the oldest singer?", "SELECT name FROM singer ORDER BY sales ASC LIMIT 1"));
        assert!(!fires("Which singers sold at least 10?", "SELECT name FROM singer ORDER BY sales ASC LIMIT 1"));
        assert!(!fires("List singers from the youngest to the oldest", "SELECT name FROM singer ORDER BY age DESC LIMIT 3"));
        assert!(fires("Which is the most common country?", "SELECT country FROM singer GROUP BY country ORDER BY count(*) ASC LIMIT 1"));
        // a position in an order: the highest rank may be number 1
        assert!(!fires("Which singer has the highest chart rank?", "SELECT name FROM singer ORDER BY chart_rank ASC LIMIT 1"));
        assert!(!fires("Which singer has the highest chart rank?", "SELECT name FROM singer ORDER BY chart_rank DESC LIMIT 1"));
        assert!(!fires("What is the best chart rank?", "SELECT min(chart_rank) FROM singer"));
    }
}
