//! The content words of a question: what it names that the database must hold for a query to
//! answer it. Requests, function words, the lexicon's words of quantity, order and comparison, and
//! generic nouns ("name", "number", "records") name nothing by themselves; values do not have to
//! be stored ("orders from Atlantis" is answered by no rows), so quoted strings, numbers and
//! proper names are values, not content words.

use crate::lexicon;

/// One content word of a question.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Word {
    /// Lower-cased, without a possessive `'s`.
    pub text: String,
    /// A verb form (`-ed`, `-ing`, a relation verb or an irregular past of the lexicon) or an
    /// adverb (`-ly`): it may name a relation ("performed", "offers", "taught",
    /// "directed") that a schema spells as a table or a column, or nothing at all ("happened");
    /// a soft word that links to nothing is no evidence that data is missing.
    pub soft: bool,
}

/// The content words of `question`, each once, in order.
pub fn content_words(question: &str) -> Vec<Word> {
    let unquoted = without_quoted(question);
    let mut out: Vec<Word> = Vec::new();
    let mut sentence_start = true;
    for raw in unquoted.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-')) {
        let token = raw.trim_matches(|c| c == '\'' || c == '-');
        if token.is_empty() {
            continue;
        }
        let first_of_sentence = sentence_start;
        sentence_start = false;
        if token.chars().any(|c| c.is_ascii_digit()) {
            continue;
        }
        // a proper name or a code in the middle of a sentence is a value: "customers from Paris",
        // "flights of UAL"
        let capitalised = token.chars().next().is_some_and(char::is_uppercase);
        if capitalised && !first_of_sentence {
            continue;
        }
        let lower = token.to_lowercase();
        let text = lower.strip_suffix("'s").unwrap_or(&lower).to_string();
        if text.chars().count() < 3 || is_function_word(&text) || out.iter().any(|w| w.text == text) {
            continue;
        }
        let soft = text.ends_with("ed") || text.ends_with("ing") || text.ends_with("ly") || lexicon::is_verb_form(&text);
        out.push(Word { text, soft });
    }
    out
}

/// The proper names of `question`: capitalised words in the middle of a sentence ("Microsoft",
/// "Mona Lisa"), which [`content_words`] leaves out as values.
pub fn proper_names(question: &str) -> Vec<String> {
    let unquoted = without_quoted(question);
    let mut out: Vec<String> = Vec::new();
    let mut sentence_start = true;
    for raw in unquoted.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-')) {
        let token = raw.trim_matches(|c| c == '\'' || c == '-');
        if token.is_empty() {
            continue;
        }
        let first = std::mem::replace(&mut sentence_start, false);
        let token = token.strip_suffix("'s").unwrap_or(token);
        if !first && token.chars().next().is_some_and(char::is_uppercase) && !token.chars().any(|c| c.is_ascii_digit()) && !out.iter().any(|w| w == token) {
            out.push(token.to_string());
        }
    }
    out
}

/// The question with its quoted strings ('…', "…", “…”) blanked out.
fn without_quoted(question: &str) -> String {
    let mut out = String::with_capacity(question.len());
    let mut closing: Option<char> = None;
    let chars: Vec<char> = question.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match closing {
            Some(end) if c == end => {
                closing = None;
                out.push(' ');
            }
            Some(_) => out.push(' '),
            None => {
                let opening = match c {
                    '"' => Some('"'),
                    '\u{201c}' => Some('\u{201d}'),
                    '\u{2018}' => Some('\u{2019}'),
                    // an apostrophe opens a quote only at a word's start, and only if it closes
                    '\'' if i == 0 || !chars[i - 1].is_alphanumeric() => Some('\''),
                    _ => None,
                };
                match opening {
                    Some(end) if chars[i + 1..].contains(&end) => {
                        closing = Some(end);
                        out.push(' ');
                    }
                    _ => out.push(c),
                }
            }
        }
    }
    out
}

/// Words that name nothing a schema stores: the lexicon's function and generic words, its words
/// of quantity, order, comparison and negation, number words, and judged qualities.
fn is_function_word(w: &str) -> bool {
    lexicon::GENERIC_WORDS.contains(&w)
        || lexicon::superlative(w).is_some()
        || lexicon::COMPARATIVES.contains(&w)
        || lexicon::ORDERING.contains(&w)
        || lexicon::NEGATIONS.contains(&w)
        || lexicon::number(w).is_some()
        || lexicon::WHOLE_ROW.contains(&w)
        || lexicon::is_function_word(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(q: &str) -> Vec<String> {
        content_words(q).into_iter().map(|w| w.text).collect()
    }

    #[test]
    fn content_words_leave_out_requests_values_and_quantities() {
        assert_eq!(words("What are the names of the 3 most expensive books?"), ["expensive", "books"]);
        assert_eq!(words("How many orders did customers from Paris place?"), ["orders", "customers", "place"]);
        assert_eq!(words("Show the salary of each employee whose title is 'Senior Engineer'."), ["salary", "employee", "title"]);
        assert_eq!(words("What is the average customer satisfaction score?"), ["customer", "satisfaction", "score"]);
        assert_eq!(words("Which singers' songs were released after 2010?"), ["singers", "songs", "released"]);
        assert!(content_words("Which films were directed by Nolan?").iter().any(|w| w.text == "directed" && w.soft));
        // relation verbs and irregular pasts are soft; the nouns beside them are not
        let soft: Vec<(String, bool)> = content_words("Which department manages degrees taught in languages spoken at home?")
            .into_iter().map(|w| (w.text, w.soft)).collect();
        assert_eq!(soft, [("department".into(), false), ("manages".into(), true), ("degrees".into(), false), ("taught".into(), true),
            ("languages".into(), false), ("spoken".into(), true), ("home".into(), false)]);
        // a verb that is as often a noun naming stored data is content: "the coach of each gymnast"
        assert!(content_words("Who is the coach of each gymnast and how many votes did they get?").iter().all(|w| !w.soft));
        // a question in another language has words of its own (its capitalised nouns read as
        // names); the decision does not judge them (`Evidence::english`)
        assert_eq!(words("Wie viele Bücher gibt es?"), ["wie", "viele", "gibt"]);
        assert!(words("").is_empty());
    }

    #[test]
    fn quotes_and_apostrophes() {
        assert_eq!(without_quoted("name 'Bob Fosse' or \"X Y\"").split_whitespace().collect::<Vec<_>>(), ["name", "or"]);
        // an apostrophe inside a word opens no quote
        assert_eq!(words("What is the students' GPA and the dean's office?"), ["students", "dean", "office"]);
        // an unclosed quote quotes nothing
        assert_eq!(words("Find 'bobs"), ["bobs"]);
    }
}
