//! Linking a question's content words to the schema: each word to the table or column that holds
//! what it names, or to nothing.
//!
//! A word links by the names of tables and columns (and their comments), matched the ways schemas
//! spell them: the same word or its plural, a prefix ("nation" in "nationality"), an abbreviation
//! (`dept` for "department", `crs` for "course"); by an attribute the lexicon knows under another
//! word ("expensive" → a `price` column, "born" → `birth_date`); by a stored value the value index
//! matched; and, failing those, by meaning: the nearest name by embedding, when close enough.

use std::collections::BTreeSet;

use crate::catalog::Catalog;
use crate::lexicon;

use super::words::Word;

/// How a word was linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkedBy {
    /// A table or column name (or a word of its comment).
    Name,
    /// A name the lexicon knows for the attribute the word names.
    Attribute,
    /// A value stored in a column (from the value index).
    Value,
    /// The nearest name by embedding, above the threshold.
    Meaning,
}

/// One content word and what it links to.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Link {
    pub word: String,
    pub soft: bool,
    /// `table` or `table.column`, and how.
    pub to: Option<(String, LinkedBy)>,
    /// The nearest names by meaning, best first, with their cosine similarity (for the
    /// explanation of a word that links to nothing).
    pub nearest: Vec<(String, f32)>,
}

/// A name of the schema in words: `table` or `table.column`, with the tokens of its name and
/// comment.
#[derive(Debug, Clone)]
pub struct Name {
    pub shown: String,
    pub tokens: Vec<String>,
}

/// Every table and column of the catalog as names to link to. A name written as one word that
/// joins several (`destairport`, `stuid`, `airportcode`: a schema whose names were lower-cased
/// loses the case that [`tokens`] splits at) also gets the parts that the rest of the schema, or
/// the lexicon's identifier parts, show it is made of ([`compound_parts`]).
pub fn names(catalog: &Catalog) -> Vec<Name> {
    let mut out = Vec::new();
    for t in &catalog.tables {
        let mut words = tokens(&t.name.name);
        words.extend(t.comment.iter().flat_map(|c| tokens_of_text(c)));
        out.push(Name { shown: t.name.name.clone(), tokens: words });
        for c in &t.columns {
            let mut words = tokens(&c.name);
            words.extend(c.comment.iter().flat_map(|c| tokens_of_text(c)));
            out.push(Name { shown: format!("{}.{}", t.name.name, c.name), tokens: words });
        }
    }
    let vocabulary = vocabulary(&out);
    for name in &mut out {
        let mut parts: Vec<String> = name.tokens.iter().flat_map(|t| compound_parts(t, &vocabulary)).collect();
        parts.extend(name.tokens.iter().filter_map(|t| predicate_part(t)));
        for p in parts {
            if !name.tokens.contains(&p) {
                name.tokens.push(p);
            }
        }
    }
    out
}

/// The words a schema's names are made of: every token of at least 4 letters (singular), and the
/// lexicon's identifier parts (`id`, `code`, `no`, …).
fn vocabulary(names: &[Name]) -> BTreeSet<String> {
    let mut words: BTreeSet<String> = lexicon::IDENTIFIER_PARTS.iter().map(|w| w.to_string()).collect();
    words.extend(names.iter().flat_map(|n| n.tokens.iter().map(|t| singular(t))).filter(|s| s.len() >= 4));
    words
}

/// The parts of a token that joins a word of `vocabulary` to at least 3 more letters, at its end
/// (`destairport`: `dest`, `airport`; `stuid`: `stu`, `id`) or at its start (`airportcode`:
/// `airport`, `code`). Each split point is looked up once, so the cost is the token's length,
/// not the vocabulary's size.
pub fn compound_parts(token: &str, vocabulary: &BTreeSet<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if !token.is_ascii() {
        return out;
    }
    for i in 1..token.len() {
        let (head, tail) = token.split_at(i);
        let splits = (vocabulary.contains(tail) && head.len() >= 3) || (vocabulary.contains(head) && tail.len() >= 3);
        if splits {
            for p in [head, tail] {
                if !out.iter().any(|o| o == p) {
                    out.push(p.to_string());
                }
            }
        }
    }
    out
}

/// The word a yes/no column is named after, behind a predicate prefix written as one word with it
/// (`isofficial`: `official`; `hasparking`: `parking`): at least 4 letters after the prefix, so
/// `isbn` or `hash` give none.
pub fn predicate_part(token: &str) -> Option<String> {
    lexicon::PREDICATE_PREFIXES.iter().find_map(|p| {
        let rest = token.strip_prefix(p)?;
        (rest.len() >= 4 && rest.chars().all(|c| c.is_ascii_lowercase())).then(|| rest.to_string())
    })
}

/// The words of an identifier: split at `_`, digits and lower-to-upper case changes, lower-cased.
pub fn tokens(ident: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in ident.chars() {
        if !c.is_alphabetic() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The words of a name (`table` or `table.column`) as a phrase, for its embedding:
/// `head.born_state` is "head born state".
pub fn name_text(shown: &str) -> String {
    tokens(shown).join(" ")
}

fn tokens_of_text(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() >= 3).map(str::to_lowercase).collect()
}

/// A word without a plural or possessive ending.
pub fn singular(w: &str) -> String {
    if let Some(base) = w.strip_suffix("ies") {
        if base.len() >= 2 {
            return format!("{base}y");
        }
    }
    for suffix in ["es", "s"] {
        if let Some(base) = w.strip_suffix(suffix) {
            if base.len() >= 3 && !base.ends_with('s') {
                return base.to_string();
            }
        }
    }
    w.to_string()
}

/// Do two words share a stem: a common beginning of at least 5 letters that leaves at most two
/// letters of the shorter word ("advise" and "advisor", "recommend" and "recommendations")?
pub fn same_stem(a: &str, b: &str) -> bool {
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let shorter = a.chars().count().min(b.chars().count());
    common >= 5 && common + 2 >= shorter
}

/// Does a word of the question match a token of a name? The same word (singular or plural), one
/// a prefix of the other (the shorter at least 4 letters), or the token an abbreviation of the
/// word (at least 3 letters, the same first letter, its letters in the word in order: `dept`,
/// `emp`, `crs`, `num`).
pub fn matches(word: &str, token: &str) -> bool {
    matches_as_written(word, token) || (token.len() >= 3 && token.len() < word.len() && abbreviates(token, word))
}

/// [`matches`] without abbreviations: the same word (singular or plural), or one a prefix of the
/// other, the shorter at least 4 letters. An abbreviation is read for a word that asks for data
/// ("dept" for "department"); for a word of the lexicon's patterns it would make a pattern read a
/// schema that never names it (`der`, the rest of `authorder` once `author` is split off, has
/// the letters of "deserves" in order).
pub fn matches_as_written(word: &str, token: &str) -> bool {
    if token.len() < 2 {
        return false;
    }
    let (w, t) = (singular(word), singular(token));
    let (w, t) = (w.as_str(), t.as_str());
    if w == t || word == token {
        return true;
    }
    let shorter = w.len().min(t.len());
    shorter >= 4 && (w.starts_with(t) || t.starts_with(w))
}

/// A word of a lexicon group, or of the question against a stored value, compared with a token as
/// written: the same word (singular or plural), or one ending letter more that makes a form of it
/// (`n` of a people's adjective, "Asian" and `Asia`; `d` of a past, "rated" and `rate`; `s`; the
/// `e` a plural's `-es` took off, "females" and `female`); no
/// abbreviation and no longer prefix (`charge` is no `char`, `earn` no `end`, "salary" no `sala`,
/// "star" no `start`).
fn spelled_alike(word: &str, token: &str) -> bool {
    let (w, t) = (singular(word), singular(token));
    let (short, long) = if w.len() <= t.len() { (&w, &t) } else { (&t, &w) };
    w == t || (short.len() >= 4 && long.len() == short.len() + 1 && long.starts_with(short.as_str()) && long.ends_with(['n', 'd', 's', 'e']))
}

/// The tokens of a name that may hold an attribute the lexicon names under another word: all of
/// them, but for a yes/no column named with its predicate (`is_main_in_charge`, `has_parking`)
/// only the word after the prefix, which says what is true (`is_male` holds a gender; "in charge"
/// of `is_main_in_charge` holds no cost).
fn attribute_tokens(n: &Name) -> &[String] {
    match n.tokens.first() {
        Some(first) if n.shown.contains('.') && n.tokens.len() > 1 && lexicon::PREDICATE_PREFIXES.contains(&first.as_str()) => &n.tokens[1..2],
        _ => &n.tokens,
    }
}

/// The table of a name (`table` or `table.column`).
fn table_of(shown: &str) -> &str {
    shown.split('.').next().unwrap_or(shown)
}

/// Are `short`'s letters in `long` in order, starting with the same letter?
fn abbreviates(short: &str, long: &str) -> bool {
    let mut l = long.chars();
    let mut s = short.chars();
    if s.next() != l.next() {
        return false;
    }
    s.all(|c| l.by_ref().any(|x| x == c))
}

/// Link each content word. `values` are the stored values the value index matched in the
/// question (`table.column`, value); `nearest` gives a word's nearest names by meaning, best
/// first (empty when no embeddings are at hand); a word links by meaning when the best is at
/// least `threshold`.
///
/// A link by attribute is weaker than one by name: the word names a kind of value ("age",
/// "price"). When the question names tables, it counts only on one of them ("the age of each
/// customer" is not read from the employees' birth dates). A stored value links a word as written
/// ("the salary of each driver" does not link to a driver whose reference is `sala`), and never
/// links a word asked as an attribute of every row ([`Word::of_each`]): "the tempo of each track"
/// is not answered by the track named "Tempo", nor "the author of each document" by a structure
/// described as "Author section" (on `spider_train`, no answerable question's attribute of each
/// row linked by a value alone; three unanswerable ones of the tuning half did).
pub fn link(words: &[Word], names: &[Name], values: &[(String, String)], nearest: &mut dyn FnMut(&str) -> Vec<(String, f32)>, threshold: f32) -> Vec<Link> {
    // every name each word matches: the first is its link; their tables are the tables the
    // question names, all of them ("product" names `products` as well as `product_suppliers`)
    let matched: Vec<Vec<&Name>> = words.iter().map(|w| names.iter().filter(|n| n.tokens.iter().any(|t| matches(&w.text, t))).collect()).collect();
    let named: BTreeSet<&str> = matched.iter().flatten().map(|n| table_of(&n.shown)).collect();
    let on_named = |shown: &str| named.is_empty() || named.contains(table_of(shown));
    words
        .iter()
        .zip(&matched)
        .map(|(w, matched)| {
            let by_attribute = || {
                lexicon::attribute_groups(&w.text).find_map(|group| {
                    names
                        .iter()
                        .find(|n| on_named(&n.shown) && attribute_tokens(n).iter().any(|t| group.iter().any(|g| spelled_alike(g, t))))
                        .map(|n| (n.shown.clone(), LinkedBy::Attribute))
                })
            };
            let by_value = || {
                if w.of_each {
                    return None;
                }
                values
                    .iter()
                    .find(|(_, v)| tokens_of_text(v).iter().any(|t| spelled_alike(&w.text, t)))
                    .map(|(column, _)| (column.clone(), LinkedBy::Value))
            };
            let mut to = matched.first().map(|n| (n.shown.clone(), LinkedBy::Name)).or_else(by_attribute).or_else(by_value);
            let mut close = Vec::new();
            if to.is_none() {
                close = nearest(&w.text);
                if let Some((name, score)) = close.first() {
                    if *score >= threshold {
                        to = Some((name.clone(), LinkedBy::Meaning));
                    }
                }
            }
            Link { word: w.text.clone(), soft: w.soft, to, nearest: close }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{bookshop, retail};

    fn linked(question: &str, catalog: &Catalog) -> Vec<(String, Option<String>)> {
        let words = super::super::words::content_words(question);
        link(&words, &names(catalog), &[], &mut |_| vec![], 0.5).into_iter().map(|l| (l.word, l.to.map(|t| t.0))).collect()
    }

    #[test]
    fn identifiers_split_into_words() {
        assert_eq!(tokens("customer_first_name"), ["customer", "first", "name"]);
        assert_eq!(tokens("CustomerID"), ["customer", "id"]);
        assert_eq!(tokens("sales_in_billion2"), ["sales", "in", "billion"]);
        assert_eq!(tokens("HTTPStatus"), ["httpstatus"]);
    }

    #[test]
    fn names_written_as_one_word_are_split_into_the_words_of_the_schema() {
        let vocabulary: BTreeSet<String> = ["airport", "city", "id", "code"].iter().map(|s| s.to_string()).collect();
        assert_eq!(compound_parts("destairport", &vocabulary), ["dest", "airport"]);
        assert_eq!(compound_parts("sourceairport", &vocabulary), ["source", "airport"]);
        assert_eq!(compound_parts("stuid", &vocabulary), ["stu", "id"]);
        let mut parts = compound_parts("airportcode", &vocabulary);
        parts.sort();
        assert_eq!(parts, ["airport", "code"]);
        // a plural of a word of the schema, or a split that leaves fewer than 3 letters, is none
        assert!(compound_parts("airports", &vocabulary).is_empty());
        assert!(compound_parts("cityid", &vocabulary).iter().all(|p| p != "cit"));
        assert!(compound_parts("paid", &vocabulary).is_empty());
        assert!(compound_parts("città", &vocabulary).is_empty());
        // a yes/no column named with its predicate: the word after it
        assert_eq!(predicate_part("isofficial").as_deref(), Some("official"));
        assert_eq!(predicate_part("hasparking").as_deref(), Some("parking"));
        assert_eq!(predicate_part("isbn"), None);
        assert_eq!(predicate_part("hash"), None);
        assert_eq!(predicate_part("name"), None);
        // in a catalog: "destination" links to the flights' destination airport
        let catalog = crate::catalog::Catalog {
            tables: vec![
                crate::testing::table("airports", &[("airportcode", "text"), ("city", "text")], "airportcode"),
                crate::testing::table("flights", &[("flightno", "integer"), ("sourceairport", "text"), ("destairport", "text")], "flightno"),
            ],
            foreign_keys: vec![],
            ..Default::default()
        };
        assert_eq!(linked("How many flights have destination ATO?", &catalog), [
            ("flights".into(), Some("flights".into())), ("destination".into(), Some("flights.destairport".into()))]);
        // a yes/no column written as one word with its predicate links the word after it
        let languages = crate::catalog::Catalog {
            tables: vec![crate::testing::table("countrylanguage", &[("countrycode", "text"), ("language", "text"), ("isofficial", "text")], "countrycode")],
            foreign_keys: vec![],
            ..Default::default()
        };
        assert_eq!(linked("Which official languages are there?", &languages), [
            ("official".into(), Some("countrylanguage.isofficial".into())), ("languages".into(), Some("countrylanguage".into()))]);
    }

    #[test]
    fn attributes_and_values_link_as_written_and_on_the_tables_the_question_names() {
        let shop = bookshop();
        // an attribute of another table than the one named is no link
        assert_eq!(linked("What is the age of each customer?", &shop), [("age".into(), None), ("customer".into(), Some("customers".into()))]);
        // on the table named, it is
        assert_eq!(linked("What is the price of each book?", &shop), [("price".into(), Some("books.price".into())), ("book".into(), Some("books".into()))]);
        // a word names every table whose name it matches, not only the first ("author" names
        // `authors` and, through `author_id`, `books`)
        assert_eq!(linked("What is the most expensive author?", &shop)[0], ("expensive".into(), Some("books.price".into())));
        // a stored value links a word as written, not a longer word it begins
        let words = super::super::words::content_words("the salary of each customer");
        let values = [("customers.name".to_string(), "Sala Ito".to_string())];
        assert_eq!(link(&words, &names(&shop), &values, &mut |_| vec![], 0.5)[0].to, None);
        let words = super::super::words::content_words("customers of asian descent");
        let values = [("customers.city".to_string(), "Asia".to_string())];
        assert_eq!(link(&words, &names(&shop), &values, &mut |_| vec![], 0.5)[1].to, Some(("customers.city".into(), LinkedBy::Value)));
        assert!(spelled_alike("asian", "asia") && !spelled_alike("charge", "char") && !spelled_alike("salary", "sala"));
        assert!(spelled_alike("rated", "rate") && spelled_alike("females", "female") && spelled_alike("drives", "drive") && !spelled_alike("star", "start"));
        // a yes/no column holds what its predicate says: `is_male` a gender, not the "charge" of
        // `is_main_in_charge` a cost
        let parties = crate::catalog::Catalog {
            tables: vec![crate::testing::table("party_host", &[("party_id", "integer"), ("is_main_in_charge", "text"), ("is_male", "text")], "party_id")],
            foreign_keys: vec![],
            ..Default::default()
        };
        assert_eq!(linked("How much did each party host cost?", &parties)[2], ("cost".into(), None));
        assert_eq!(linked("How many party hosts are women?", &parties)[2], ("women".into(), Some("party_host.is_male".into())));
        // "rating" is no start date: a word of its group ("star") is no prefix of `start`
        let bookings = crate::catalog::Catalog {
            tables: vec![crate::testing::table("bookings", &[("booking_id", "integer"), ("booking_start_date", "date")], "booking_id")],
            foreign_keys: vec![],
            ..Default::default()
        };
        assert_eq!(linked("What is the rating of each booking?", &bookings), [("rating".into(), None), ("booking".into(), Some("bookings".into()))]);
    }

    #[test]
    fn words_match_names_as_schemas_spell_them() {
        for (w, t) in [("books", "book"), ("countries", "country"), ("nationality", "nation"), ("department", "dept"),
                       ("employees", "emp"), ("course", "crs"), ("number", "num"), ("addresses", "address"), ("classes", "class"), ("cities", "city"), ("companies", "company")] {
            assert!(matches(w, t), "{w} ~ {t}");
        }
        for (w, t) in [("salary", "sales"), ("satisfaction", "status"), ("weather", "weight"), ("tempo", "time"), ("isbn", "issues")] {
            assert!(!matches(w, t), "{w} !~ {t}");
        }
    }

    #[test]
    fn words_link_by_name_attribute_and_value_or_not_at_all() {
        let shop = bookshop();
        assert_eq!(linked("Which books are the most expensive?", &shop), [("books".into(), Some("books".into())), ("expensive".into(), Some("books.price".into()))]);
        assert_eq!(linked("List the cheap titles", &shop), [("cheap".into(), Some("books.price".into())), ("titles".into(), Some("books.title".into()))]);
        assert_eq!(linked("Where do the authors live?", &shop), [("authors".into(), Some("authors".into())), ("live".into(), Some("authors.country".into()))]);
        assert_eq!(
            linked("What is the average customer satisfaction score?", &shop),
            [("customer".into(), Some("customers".into())), ("satisfaction".into(), None), ("score".into(), None)]
        );
        // mixed-case quoted names, several schemas
        let r = retail();
        assert_eq!(
            linked("What is each customer's balance and email?", &r),
            [("customer".into(), Some("Customers".into())), ("balance".into(), Some("Customers.balance".into())), ("email".into(), None)]
        );
        // a stored value links a word of it
        let words = super::super::words::content_words("orders of science fiction");
        let l = link(&words, &names(&shop), &[("books.genre".into(), "science fiction".into())], &mut |_| vec![], 0.5);
        assert_eq!(l[1].to, Some(("books.genre".into(), LinkedBy::Value)));
        // but not a word asked as an attribute of every row: a book titled "Tempo" is no tempo
        let values = [("books.title".to_string(), "Tempo".to_string())];
        for (question, linked) in [("the tempo of each book", false), ("the tempo for every book", false), ("books with tempo in the title", true), ("the tempo of the book", true)] {
            let words = super::super::words::content_words(question);
            let l = link(&words, &names(&shop), &values, &mut |_| vec![], 0.5);
            let tempo = l.iter().find(|l| l.word == "tempo").unwrap();
            assert_eq!(tempo.to.is_some(), linked, "{question}: {tempo:?}");
        }
        // by meaning, at or above the threshold only
        let words = super::super::words::content_words("the wages of authors");
        let close = |w: &str| if w == "wages" { vec![("authors.royalty".to_string(), 0.62)] } else { vec![] };
        let l = link(&words, &names(&shop), &[], &mut { close }, 0.6);
        assert_eq!(l[0].to, Some(("authors.royalty".into(), LinkedBy::Meaning)));
        let l = link(&words, &names(&shop), &[], &mut { close }, 0.7);
        assert_eq!((l[0].to.clone(), l[0].nearest.len()), (None, 1));
    }
}
