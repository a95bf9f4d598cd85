//! Whether a verified example asks what the question asks: the same question in other words,
//! whose verified SQL then answers it, or a question of the same pattern about other things,
//! which it does not.
//!
//! The embeddings' distance alone cannot tell them apart (on spider_train databases, the nearest
//! example within cosine distance 0.15 was the same query 61 times in 100), so the judge compares
//! what the two questions ask, read by the lexicon and the linking that read every question: the
//! numbers and values they name, the tables and columns their words link to, the operations their
//! words ask for (a count, a superlative and its direction, an order, a bound, a negation, ...),
//! and the words that qualify or link to nothing. Two questions that differ in any of these ask
//! different things, whatever their wording.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::constraints;
use crate::lexicon;
use crate::scope::link::{self, LinkedBy, Name};
use crate::scope::words;

/// What a question asks, as the rules read it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Signature {
    /// The numbers it names, in digits ("three" is 3).
    pub numbers: BTreeSet<String>,
    /// The words of the values it names (quoted strings and proper names), lower-cased.
    pub values: BTreeSet<String>,
    /// The tables and columns its content words link to by name or attribute.
    pub names: BTreeSet<String>,
    /// What it does with the data, in the lexicon's words read as one operation each: `count`
    /// for "how many", "number of" and "count"; the aggregate, the direction of a superlative,
    /// an order and its direction, a bound, a negation, "before" or "after".
    pub operators: BTreeSet<String>,
    /// Its content words ([`words::content_words`]) that link to no name, in their singular: a
    /// word the schema does not name is a value or a qualifier ("cat allergies", "food
    /// allergies"), which two questions must share; and the lexicon's generic words that qualify
    /// what is asked ("long books", "the new customers", "only", "different").
    pub unlinked: BTreeSet<String>,
}

/// A part of two signatures that differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Difference {
    Numbers,
    Values,
    Names,
    Operators,
    Unlinked,
}


/// The signature of `question` over the schema's `names` ([`link::names`]).
pub fn signature(question: &str, names: &[Name]) -> Signature {
    let mut numbers = BTreeSet::new();
    for token in question.split(|c: char| !(c.is_alphanumeric() || c == '.')).map(|t| t.trim_matches('.').to_lowercase()) {
        if token.chars().any(|c| c.is_ascii_digit()) {
            numbers.insert(token);
        } else if let Some(n) = lexicon::number(&token) {
            numbers.insert(n.to_string());
        }
    }
    // word by word: "Peter Jones" quoted or not is the same value
    let mut values = BTreeSet::new();
    for v in words::proper_names(question).into_iter().chain(constraints::quoted_strings(question)) {
        values.extend(v.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase));
    }
    let content = words::content_words(question);
    let links = link::link(&content, names, &[], &mut |_| Vec::new(), f32::INFINITY);
    let mut linked_names = BTreeSet::new();
    let mut unlinked = BTreeSet::new();
    for l in links {
        match l.to.filter(|(_, by)| matches!(by, LinkedBy::Name | LinkedBy::Attribute)) {
            Some((shown, _)) => {
                linked_names.insert(shown);
            }
            None => {
                unlinked.insert(singular(&l.word));
            }
        }
    }
    let lower = question.to_lowercase();
    unlinked.extend(lower.split(|c: char| !c.is_alphanumeric()).filter(|w| lexicon::QUALIFIERS.contains(w)).map(str::to_string));
    Signature { numbers, values, names: linked_names, operators: operators(question), unlinked }
}

/// The operations the lexicon's words in `question` ask for, each under one name.
pub fn operators(question: &str) -> BTreeSet<String> {
    let lower = question.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|t| !t.is_empty()).collect();
    // phrases read as one operation first: a bound written with a superlative's or a
    // conjunction's word ("at least 2" is "two or more"), and "total number" (a count, not a sum)
    let mut tokens: Vec<&str> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let pair = (words[i], words.get(i + 1).copied().unwrap_or(""));
        let bound = match pair {
            ("at", "least") | ("or", "more") | ("or", "greater") | ("or", "higher") | ("or", "over") => Some(BOUND_ABOVE),
            ("at", "most") | ("or", "fewer") | ("or", "less") | ("or", "lower") | ("or", "under") => Some(BOUND_BELOW),
            ("total", "number") => Some("number"),
            _ => None,
        };
        match bound {
            Some(token) => {
                tokens.push(token);
                i += 2;
            }
            None => {
                tokens.push(words[i]);
                i += 1;
            }
        }
    }
    let has = |phrase: &str| {
        let p: Vec<&str> = phrase.split(' ').collect();
        tokens.windows(p.len()).any(|w| w == p.as_slice())
    };
    let mut out = BTreeSet::new();
    if lexicon::COUNTING.iter().any(|w| has(w)) {
        out.insert("count".to_string());
    }
    for (function, words) in lexicon::AGGREGATE_WORDS {
        if *function != "count" && words.iter().any(|w| has(w)) {
            out.insert((*function).to_string());
        }
    }
    for s in lexicon::SUPERLATIVES.iter().filter(|s| has(s.word)) {
        out.insert(format!("superlative {:?}", s.sense));
    }
    // "the most number of events" and "the most events" rank by the same count
    if out.iter().any(|o| o.starts_with("superlative")) {
        out.remove("count");
    }
    if lexicon::ORDERING.iter().any(|w| has(w)) || ["alphabetical", "alphabetically"].iter().any(|w| has(w)) {
        out.insert("order".to_string());
    }
    if ["descending", "decreasing", "reverse", "desc"].iter().any(|w| has(w)) {
        out.insert("order descending".to_string());
    }
    if ["ascending", "increasing", "alphabetical", "alphabetically", "asc"].iter().any(|w| has(w)) {
        out.insert("order ascending".to_string());
    }
    for w in lexicon::COMPARATIVES.iter().filter(|w| has(w)) {
        out.insert(if lexicon::BOUNDS_BELOW.contains(w) { "bound below" } else { "bound above" }.to_string());
    }
    if has(BOUND_ABOVE) {
        out.insert("bound above".to_string());
    }
    if has(BOUND_BELOW) {
        out.insert("bound below".to_string());
    }
    if lexicon::NEGATIONS.iter().any(|w| has(w)) || lexicon::NEGATED_VERB.is_match(&lower) {
        out.insert("negation".to_string());
    }
    for (word, name) in [("before", "before"), ("earlier", "before"), ("until", "before"), ("after", "after"), ("later", "after"), ("since", "after")] {
        if has(word) {
            out.insert(name.to_string());
        }
    }
    for word in ["both", "either", "or", "and"] {
        if has(word) {
            out.insert(word.to_string());
        }
    }
    out
}

/// The tokens a bound's phrase is read as ("at least", "or more"; "at most", "or fewer").
const BOUND_ABOVE: &str = "\u{1}bound_above";
const BOUND_BELOW: &str = "\u{1}bound_below";

/// A word in its singular, by the spelling rules the schema names are read with.
fn singular(word: &str) -> String {
    crate::context::stems(word).into_iter().next().unwrap_or_else(|| word.to_string())
}

/// The parts in which two signatures differ, in a fixed order; empty when they ask the same.
pub fn differences(a: &Signature, b: &Signature) -> Vec<Difference> {
    let mut out = Vec::new();
    if a.numbers != b.numbers {
        out.push(Difference::Numbers);
    }
    if a.values != b.values {
        out.push(Difference::Values);
    }
    if a.names != b.names {
        out.push(Difference::Names);
    }
    if a.operators != b.operators {
        out.push(Difference::Operators);
    }
    if a.unlinked != b.unlinked {
        out.push(Difference::Unlinked);
    }
    out
}

/// Examples farther than this from the question (cosine distance of the two questions as
/// written, all-MiniLM-L6-v2) are never taken as the question asked again. Tuned on 40
/// spider_train databases that Benchmark 11 does not measure (`learning --judge`): the nearest
/// example without a difference within 0.3 gave the asked question's result 120 times in 125
/// (96%), for 36% of the questions some example answered; within 0.2, 106 in 110 for 32%; at 0.4
/// no more right and one more wrong.
pub const REUSE_DISTANCE: f64 = 0.3;

/// The example of `examples` (nearest first) that asks `question` again: the first within
/// [`REUSE_DISTANCE`] whose signature has no difference from the question's, and that mentions the
/// same glossary terms (`terms_of` gives the terms a question mentions: "long books" asks more
/// than "books" when "long book" is defined). `usable` is the caller's check of an example (its
/// tables visible, its SQL planned as them); it runs only on an example the judge accepts.
pub fn asked_again<'e, E>(
    question: &str,
    examples: &'e [E],
    example: impl Fn(&E) -> (&str, f64),
    names: &[Name],
    terms_of: impl Fn(&str) -> BTreeSet<String>,
    mut usable: impl FnMut(&E) -> bool,
) -> Option<&'e E> {
    let asked = signature(question, names);
    let terms = terms_of(question);
    examples.iter().filter(|e| example(e).1 <= REUSE_DISTANCE).find(|e| {
        let (text, _) = example(e);
        differences(&asked, &signature(text, names)).is_empty() && terms_of(text) == terms && usable(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::retail;

    fn sig(q: &str) -> Signature {
        signature(q, &link::names(&retail()))
    }

    #[test]
    fn the_same_question_in_other_words_has_the_same_signature() {
        let a = sig("How many customers are there?");
        let b = sig("Count the number of customers.");
        assert_eq!(differences(&a, &b), []);
    }

    #[test]
    fn another_number_another_value_or_another_direction_differs() {
        assert_eq!(differences(&sig("Show the 3 most expensive products."), &sig("Show the 5 most expensive products.")), [Difference::Numbers]);
        assert_eq!(differences(&sig("Which customers live in 'Paris'?"), &sig("Which customers live in 'Lyon'?")), [Difference::Values]);
        assert!(differences(&sig("What is the most expensive product?"), &sig("What is the cheapest product?")).contains(&Difference::Operators));
        assert_eq!(differences(&sig("Which product has the highest price?"), &sig("Which product has the lowest price?")), [Difference::Operators]);
        assert_eq!(differences(&sig("List the orders placed before 2024."), &sig("List the orders placed after 2024.")), [Difference::Operators]);
        assert_eq!(differences(&sig("List the products by price."), &sig("List the products by price in descending order.")), [Difference::Operators]);
        // a qualifier the lexicon counts as generic still asks something else
        assert_eq!(differences(&sig("How many products are there?"), &sig("How many new products are there?")), [Difference::Unlinked]);
        // a bound written two ways, a ranking by a count written two ways, "total number" is a count
        assert_eq!(operators("parties with at least 2 events"), operators("parties that have two or more events"));
        assert_eq!(operators("the member in charge of the greatest number of events"), operators("the member in charge of the most events"));
        assert_eq!(operators("What is the total number of stations?"), operators("How many stations are there?"));
        assert_ne!(operators("parties with at least 2 events"), operators("parties with at most 2 events"));
        // a value quoted or not is the same value
        assert_eq!(differences(&sig("Which customers live in New York?"), &sig("Which customers live in 'New York'?")), []);
    }

    #[test]
    fn a_question_about_other_things_differs_in_its_names() {
        assert_eq!(differences(&sig("How many customers are there?"), &sig("How many products are there?")), [Difference::Names]);
        // a word the schema does not name is a qualifier two questions must share
        assert_eq!(differences(&sig("How many customers have cat allergies?"), &sig("How many customers have food allergies?")), [Difference::Unlinked]);
    }

    #[test]
    fn the_nearest_example_without_a_difference_within_the_cut_is_asked_again() {
        let names = link::names(&retail());
        let none = |_: &str| BTreeSet::new();
        let examples = [("How many products are there?", 0.05), ("Count the customers.", 0.2), ("How many customers are there?", 0.25)];
        let found = asked_again("How many customers do we have?", &examples, |e| *e, &names, none, |_| true);
        assert_eq!(found, Some(&examples[1]));
        // the caller's check rules out the first: the next
        let found = asked_again("How many customers do we have?", &examples, |e| *e, &names, none, |e| e.1 > 0.2);
        assert_eq!(found, Some(&examples[2]));
        // beyond the cut, nothing
        let far = [("Count the customers.", REUSE_DISTANCE + 0.01)];
        assert_eq!(asked_again("How many customers do we have?", &far, |e| *e, &names, none, |_| true), None);
        // a glossary term one question mentions and the other does not
        let terms = |q: &str| if q.contains("big") { BTreeSet::from(["big spender".to_string()]) } else { BTreeSet::new() };
        let spenders = [("How many customers are there?", 0.1)];
        assert_eq!(asked_again("How many big spenders are customers?", &spenders, |e| *e, &names, terms, |_| true), None);
    }

    #[test]
    fn quoted_strings_are_read_without_apostrophes_inside_words() {
        assert_eq!(constraints::quoted_strings("the customer's orders from 'New York' or \"Boston\""), ["New York", "Boston"]);
        assert_eq!(constraints::quoted_strings("an 'unclosed quote"), Vec::<String>::new());
    }
}
