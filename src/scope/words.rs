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
    /// A verb form (`-ed`, `-ing`, a relation verb or an irregular past of the lexicon, a
    /// homograph such as "offers" where the sentence uses it as a verb) or an adverb (`-ly`): it may name a relation ("performed", "offers", "taught",
    /// "directed") that a schema spells as a table or a column, or nothing at all ("happened");
    /// a soft word that links to nothing is no evidence that data is missing.
    pub soft: bool,
    /// The word heads an attribute asked of every row: "the tempo *of each* track", "the author
    /// *for every* document", "the price *of all* products". What it names must be a column
    /// (or what one computes), not a stored value: a row whose value holds the word is what a
    /// filter finds, not an attribute of each row.
    pub of_each: bool,
}

/// The content words of `question`, each once, in order.
pub fn content_words(question: &str) -> Vec<Word> {
    let unquoted = without_quoted(question);
    let mut out: Vec<Word> = Vec::new();
    let tokens = words_of(&unquoted);
    let lower_at = |i: usize| tokens.get(i).map(|t: &Token| t.text.to_lowercase());
    for (i, t) in tokens.iter().enumerate() {
        let token = t.text;
        if token.chars().any(|c| c.is_ascii_digit()) {
            continue;
        }
        // a proper name or a code in the middle of a sentence is a value: "customers from Paris",
        // "flights of UAL"
        if is_proper(token, t.sentence_start) {
            continue;
        }
        let lower = token.to_lowercase();
        let text = lower.strip_suffix("'s").unwrap_or(&lower).to_string();
        if text.chars().count() < 3 || is_function_word(&text) || out.iter().any(|w| w.text == text) {
            continue;
        }
        let (before, after) = (i.checked_sub(1).and_then(lower_at), lower_at(i + 1));
        // an -ing form after a determiner is no verb: a noun or a modifier ("the running time",
        // "the winning candidate", "their opening hours"); a past participle there is a state
        // ("their registered students", "a shared vocal") that a schema records as a relation, as
        // it does a verb, and a hyphenated form is a compound adjective ("longest-lasting")
        // and an -ing form before "of" is a noun that heads a phrase ("the customer rating of
        // each product", "the beginning of the season")
        let determined = before.as_deref().is_some_and(|b| lexicon::DETERMINERS.contains(&b)) && !text.contains('-');
        let nominal = after.as_deref() == Some("of");
        // the verb of a question that opens with "who" names what is asked: its doer ("Who
        // moderated each debate?" asks for a moderator, "Who won each race?" for a winner), which
        // the schema must hold as it must a noun ("Who directed Avatar?" beside `director`)
        let asks_doer = i == 1 && tokens[0].text.eq_ignore_ascii_case("who") && !text.ends_with("ly");
        let soft = !asks_doer
            && (text.ends_with("ed")
                || (text.ends_with("ing") && !determined && !nominal)
                || text.ends_with("ly")
                || lexicon::is_verb_form(&text)
                || (!t.sentence_start && lexicon::homograph_as_verb(before.as_deref(), &text, after.as_deref())));
        let of_each = matches!(after.as_deref(), Some("of" | "for")) && matches!(lower_at(i + 2).as_deref(), Some("each" | "every" | "all"));
        out.push(Word { text, soft, of_each });
    }
    out
}

/// The proper names of `question`: capitalised words in the middle of a sentence ("Microsoft",
/// "Mona Lisa"), which [`content_words`] leaves out as values.
pub fn proper_names(question: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for phrase in proper_name_phrases(question) {
        for word in phrase.split(' ') {
            if !out.iter().any(|w| w == word) {
                out.push(word.to_string());
            }
        }
    }
    out
}

/// The proper names of `question` as the phrases it writes them in: the words [`proper_names`]
/// reads, those next to each other with nothing but spaces between them taken together ("the
/// paintings of Mona Lisa's painter" names "Mona Lisa"; "Paris, Lyon" names two).
pub fn proper_name_phrases(question: &str) -> Vec<String> {
    proper_names_with_next(question).into_iter().map(|(phrase, _)| phrase).collect()
}

/// The phrases of [`proper_name_phrases`], each with the word right after it, lower-cased, when
/// nothing but spaces parts them, it is no proper name and the name is no possessive: the noun
/// the name modifies, which says what kind of thing it names ("the Pacific coast", "an Ivy League
/// university", "the Big Ten conference"), or a verb ("did the Titanic sink").
pub fn proper_names_with_next(question: &str) -> Vec<(String, Option<String>)> {
    let unquoted = without_quoted(question);
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    for t in words_of(&unquoted) {
        let possessive = t.text.strip_suffix("'s");
        let token = possessive.unwrap_or(t.text);
        let proper = is_proper(token, t.sentence_start);
        if !run.is_empty() && !(proper && t.joined) {
            let next = (t.joined && !proper && !t.sentence_start).then(|| token.to_lowercase());
            out.push((run.join(" "), next));
            run.clear();
        }
        if proper {
            run.push(token);
            // a possessive ends the name ("Mona Lisa's painter")
            if possessive.is_some() {
                out.push((run.join(" "), None));
                run.clear();
            }
        }
    }
    if !run.is_empty() {
        out.push((run.join(" "), None));
    }
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// The words of `question` that are neither quoted nor proper names, lower-cased, in order.
pub fn common_words(question: &str) -> Vec<String> {
    let unquoted = without_quoted(question);
    words_of(&unquoted).into_iter().filter(|t| !is_proper(t.text, t.sentence_start)).map(|t| t.text.to_lowercase()).collect()
}

/// A capitalised word that does not begin a sentence and holds no digit: a proper name.
fn is_proper(token: &str, sentence_start: bool) -> bool {
    !sentence_start && token.chars().next().is_some_and(char::is_uppercase) && !token.chars().any(|c| c.is_ascii_digit())
}

/// One word of a text, as [`words_of`] reads it.
struct Token<'t> {
    text: &'t str,
    /// The first word, or the first after a `?`, a `!` or a `.` that ends a word not
    /// capitalised ("... in 2005. Show ...", "... their dates. Also ...", not "St. Louis", "U.S.
    /// Navy" or "Comp. Sci.").
    sentence_start: bool,
    /// Nothing but spaces between it and the word before.
    joined: bool,
}

/// The words of `text` (letters, digits, inner apostrophes and hyphens), in order.
fn words_of(text: &str) -> Vec<Token<'_>> {
    let is_word = |c: char| c.is_alphanumeric() || c == '\'' || c == '-';
    let mut out: Vec<Token> = Vec::new();
    let (mut sentence_start, mut joined) = (true, false);
    let mut rest = text;
    while !rest.is_empty() {
        let start = rest.find(is_word).unwrap_or(rest.len());
        for c in rest[..start].chars() {
            let ends = match c {
                '?' | '!' => true,
                // a period after a capitalised word may end an abbreviation ("St. Louis", "Comp.
                // Sci."), so only one after a lower-case word or a number ends a sentence
                '.' => out.last().is_some_and(|t: &Token| !t.text.starts_with(char::is_uppercase)),
                _ => false,
            };
            sentence_start |= ends;
            joined &= c.is_whitespace();
        }
        rest = &rest[start..];
        let end = rest.find(|c: char| !is_word(c)).unwrap_or(rest.len());
        let token = rest[..end].trim_matches(|c| c == '\'' || c == '-');
        if !token.is_empty() {
            out.push(Token { text: token, sentence_start, joined });
            (sentence_start, joined) = (false, true);
        } else if end > 0 {
            // a lone apostrophe or hyphen separates like punctuation
            joined = false;
        }
        rest = &rest[end..];
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
    fn proper_names_are_read_as_the_phrases_they_are_written_in() {
        assert_eq!(proper_name_phrases("Which customers live in New York or Buenos Aires?"), ["New York", "Buenos Aires"]);
        assert_eq!(proper_name_phrases("Show the paintings of Mona Lisa's painter."), ["Mona Lisa"]);
        assert_eq!(proper_name_phrases("Flights from Paris, Lyon and 'Nice'?"), ["Paris", "Lyon"]);
        assert_eq!(proper_name_phrases("Paris has how many hotels?"), Vec::<String>::new());
        // a capitalised word that begins a sentence is no name; an abbreviation's period ends none
        assert_eq!(proper_name_phrases("Which schools have more than 1 player? Give me their locations."), Vec::<String>::new());
        assert_eq!(proper_name_phrases("Which claim was made in 2005. Also tell me its date."), Vec::<String>::new());
        assert_eq!(proper_name_phrases("Which hotels are in St. Louis?"), ["St", "Louis"]);
        assert_eq!(proper_name_phrases("Which students study Comp. Sci. Systems?"), ["Comp", "Sci", "Systems"]);
        // the words that are neither quoted nor names
        assert_eq!(common_words("The new customers in New York named 'New Age'"), ["the", "new", "customers", "in", "named"]);
    }

    #[test]
    fn a_name_is_read_with_the_word_right_after_it() {
        let next = |q: &str| proper_names_with_next(q);
        assert_eq!(next("Which counties are on the Pacific coast?"), [("Pacific".to_string(), Some("coast".to_string()))]);
        assert_eq!(next("Which heads studied at an Ivy League university?"), [("Ivy League".to_string(), Some("university".to_string()))]);
        // a name at the end, one before punctuation, a possessive, one before another name or a quote: no next word
        assert_eq!(next("Which customers live in New York?"), [("New York".to_string(), None)]);
        assert_eq!(next("Flights from Paris, Lyon and 'Nice'?"), [("Paris".to_string(), None), ("Lyon".to_string(), Some("and".to_string()))]);
        assert_eq!(next("Show the paintings of Mona Lisa's painter."), [("Mona Lisa".to_string(), None)]);
        assert_eq!(next("Which hotels are in Paris 'Le Marais'?"), [("Paris".to_string(), None)]);
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
        // ... unless the sentence uses it as a verb: a subject before it, an object after it that
        // opens with a determiner or a quantifier
        let soft_word = |q: &str, w: &str| content_words(q).iter().find(|c| c.text == w).map(|c| c.soft);
        assert_eq!(soft_word("Which department offers the most degrees?", "offers"), Some(true));
        // the verb after an opening "who" names what is asked, its doer
        assert_eq!(soft_word("Who moderated each debate?", "moderated"), Some(false));
        assert_eq!(soft_word("Who won each race?", "won"), Some(false));
        assert_eq!(soft_word("List the students who registered for a course.", "registered"), Some(true));
        assert_eq!(soft_word("List the players who play the Defender position.", "play"), Some(true));
        assert_eq!(soft_word("Which hotels host more events than conferences?", "host"), Some(true));
        for (q, w) in [
            ("Which offers are still valid?", "offers"),             // asked for
            ("How many votes did each party receive?", "votes"),     // counted
            ("What is the monthly rent of each apartment?", "rent"), // an attribute
            ("Show the orders by date.", "orders"),                  // no object after it
            ("List candidates with more than 10000 votes in the election.", "votes"),
            ("How many employees work at each store?", "work"),      // no determiner after it
        ] {
            assert_eq!(soft_word(q, w), Some(false), "{q}");
        }
        // an -ing form after a determiner names a thing or qualifies one: content
        for (q, w) in [
            ("What is the running time of each film?", "running"),
            ("Which counties voted for the winning candidate?", "winning"),
            ("What are the opening hours of each restaurant?", "opening"),
            ("What is the rating customers gave to each performer?", "rating"),
        ] {
            assert_eq!(soft_word(q, w), Some(false), "{q}");
        }
        // a past participle or a hyphenated form after a determiner stays soft
        assert_eq!(soft_word("List the number of their registered courses.", "registered"), Some(true));
        assert_eq!(soft_word("How many songs have a shared vocal?", "shared"), Some(true));
        assert_eq!(soft_word("Which friend has the longest-lasting friendship?", "longest-lasting"), Some(true));
        // ... and a verb's form after anything else stays soft
        assert_eq!(soft_word("Which races occurred in 2017?", "occurred"), Some(true));
        assert_eq!(soft_word("Which stations are within walking distance?", "walking"), Some(true));
        // an -ing form before "of" heads a noun phrase, whatever comes before it
        assert_eq!(soft_word("What is the customer rating of each product?", "rating"), Some(false));
        assert_eq!(soft_word("Which customers are rating the products?", "rating"), Some(true));
        assert_eq!(soft_word("Show the students that registered most recently.", "registered"), Some(true));
        // the words for a part of a value name no data
        assert_eq!(words("Which papers have the substring 'ML' in their titles?"), ["papers", "titles"]);
        assert_eq!(words("Which names contain the string 'ALA'?"), Vec::<String>::new());
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
