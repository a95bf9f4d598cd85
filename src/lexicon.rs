//! The one lexicon of the English words the rules read: superlatives with the sense they rank in,
//! comparatives and bounds, negations, counting and aggregate words, ordering words, number words,
//! and the function words that tell whether a question is English at all.
//!
//! Every rule over question text (the constraints of [`crate::constraints`], the checkers of
//! [`crate::checks`], the schema ranking of [`crate::context`]) takes its words from here, so a
//! word added or removed changes every rule at once. The rules are English: a rule that fires on
//! the *absence* of a word ("no number of rows asked", "the question does not name the table",
//! "does not ask for ids") means something only when the question is English, so it asks
//! [`reads_english`] first; a rule that fires on a word's presence needs no such test (a German
//! question holds no "how many").

use once_cell::sync::Lazy;
use regex::Regex;

/// What a superlative ranks by, for the checks that judge a ranking's direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sense {
    /// An amount, largest first ("highest", "most").
    More,
    /// An amount, smallest first ("lowest", "cheapest").
    Less,
    /// Age: the oldest (earliest date, largest age).
    Older,
    Younger,
    /// Time: the latest (latest date).
    Later,
    Earlier,
    /// A superlative whose direction depends on what is measured ("longest", "fastest").
    Other,
}

impl Sense {
    /// The direction of an amount: `Some(true)` largest first, `Some(false)` smallest first,
    /// `None` when the column's kind decides (age, time, other).
    pub fn largest(self) -> Option<bool> {
        match self {
            Sense::More => Some(true),
            Sense::Less => Some(false),
            _ => None,
        }
    }
}

/// One superlative.
#[derive(Debug, Clone, Copy)]
pub struct Superlative {
    pub word: &'static str,
    pub sense: Sense,
    /// Ranks only beside a count or as a loose word ("top 3", "the best 5", "max"): not a
    /// superlative of its own, nor judged for direction ("best" rank is the smallest number).
    pub loose: bool,
}

const fn s(word: &'static str, sense: Sense) -> Superlative {
    Superlative { word, sense, loose: false }
}

const fn loose(word: &'static str, sense: Sense) -> Superlative {
    Superlative { word, sense, loose: true }
}

/// Every superlative, multi-word ones first (so an alternation built from them prefers them).
pub const SUPERLATIVES: &[Superlative] = &[
    s("most recent", Sense::Later),
    s("highest", Sense::More),
    s("most", Sense::More),
    s("largest", Sense::More),
    s("biggest", Sense::More),
    s("greatest", Sense::More),
    s("maximum", Sense::More),
    s("lowest", Sense::Less),
    s("least", Sense::Less),
    s("fewest", Sense::Less),
    s("smallest", Sense::Less),
    s("minimum", Sense::Less),
    s("cheapest", Sense::Less),
    s("oldest", Sense::Older),
    s("youngest", Sense::Younger),
    s("earliest", Sense::Earlier),
    s("latest", Sense::Later),
    s("newest", Sense::Later),
    s("longest", Sense::Other),
    s("shortest", Sense::Other),
    s("fastest", Sense::Other),
    s("slowest", Sense::Other),
    s("heaviest", Sense::Other),
    s("lightest", Sense::Other),
    s("richest", Sense::Other),
    s("poorest", Sense::Other),
    loose("best", Sense::More),
    loose("top", Sense::More),
    loose("max", Sense::More),
    loose("worst", Sense::Less),
    loose("min", Sense::Less),
];

/// The superlative `word` is, if any.
pub fn superlative(word: &str) -> Option<&'static Superlative> {
    SUPERLATIVES.iter().find(|s| s.word == word)
}

/// Words that end in "-est" and are no superlatives.
pub const NOT_SUPERLATIVES: &[&str] = &[
    "interest", "interested", "test", "request", "guest", "west", "forest", "honest", "modest", "manifest", "contest",
    "suggest", "harvest", "protest", "rest", "nest", "chest", "quest", "digest", "southwest", "northwest", "earnest",
    "arrest", "invest", "conquest", "everest", "latest", "midwest", "pest", "vest", "zest", "crest", "priest",
];

/// Comparatives and bounds: words that choose rows by an amount ("more than", "over 5").
pub const COMPARATIVES: &[&str] = &[
    "more", "less", "fewer", "greater", "higher", "lower", "larger", "smaller", "bigger", "older", "younger", "over",
    "under", "above", "below", "exceeding", "exceeds", "exceed",
];

/// Comparatives that bound from above ("less than 5", "under 5", "at most 5").
pub const BOUNDS_BELOW: &[&str] = &["less", "fewer", "lower", "smaller", "younger", "under", "below", "at most"];

/// Words that order rows.
pub const ORDERING: &[&str] = &["ordered", "sorted", "order", "sort", "ranked", "rank", "arranged", "arrange", "ascending", "descending"];

/// Negations of a verb or a relation ("never", "without", "do not", "isn't").
pub const NEGATIONS: &[&str] = &["never", "without", "not", "n't", "no"];

/// A negated verb: "never", "without", "do not", "does not", "isn't", …
pub static NEGATED_VERB: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(never|without|(?:do|does|did|have|has|is|are|was|were)\s+not|(?:do|does|did|have|has|is|are|was|were)n't)\b").expect("compiles")
});

/// Words that ask for a count.
pub const COUNTING: &[&str] = &["how many", "number of", "count"];

/// The words that ask for each aggregate, by the SQL function that computes it.
pub const AGGREGATE_WORDS: &[(&str, &[&str])] = &[
    ("count", &["how many", "number", "count", "total"]),
    ("sum", &["total", "sum", "overall"]),
    ("avg", &["average", "mean"]),
    ("max", &["maximum", "highest", "max"]),
    ("min", &["minimum", "lowest", "min"]),
];

/// Words that ask for an aggregate of some kind (a number computed over rows).
pub const AGGREGATE_CUES: &[&str] = &[
    "how many", "number", "count", "counts", "total", "sum", "average", "mean", "maximum", "minimum", "max", "min", "most",
    "least", "fewest", "percentage", "ratio", "amount", "quantity",
];

/// Number words, with their values.
pub const NUMBER_WORDS: &[(&str, u64)] = &[
    ("one", 1), ("two", 2), ("three", 3), ("four", 4), ("five", 5), ("six", 6), ("seven", 7), ("eight", 8), ("nine", 9),
    ("ten", 10), ("eleven", 11), ("twelve", 12), ("fifteen", 15), ("twenty", 20), ("fifty", 50), ("hundred", 100),
];

/// A number written in digits or as a number word.
pub fn number(word: &str) -> Option<u64> {
    word.parse().ok().or_else(|| NUMBER_WORDS.iter().find(|(w, _)| *w == word).map(|(_, n)| *n))
}

/// The alternation of `words` for a regular expression (`a|b|c`), longest first so a
/// multi-word entry wins over its first word.
pub fn alternation<'a>(words: impl IntoIterator<Item = &'a str>) -> String {
    let mut v: Vec<&str> = words.into_iter().collect();
    v.sort_by_key(|w| std::cmp::Reverse(w.len()));
    v.iter().map(|w| regex::escape(w)).collect::<Vec<_>>().join("|")
}

/// English function words: a question that holds them is English.
const FUNCTION_WORDS: &[&str] = &[
    "the", "of", "and", "a", "an", "in", "to", "is", "are", "was", "were", "what", "which", "who", "whom", "whose", "how",
    "many", "much", "with", "for", "by", "from", "that", "each", "all", "every", "list", "show", "give", "find", "name",
    "names", "there", "have", "has", "had", "do", "does", "did", "me", "their", "its", "than", "or", "on", "at", "as",
    "be", "been", "where", "when", "it", "they", "this", "these", "those", "them", "any", "not", "no", "return", "tell",
    "i", "we", "you", "our", "my", "your", "please", "need", "want", "get", "count", "number", "between", "also",
];

/// Does the question read as English? At least one English function word, and at least a fifth
/// of its words (so a German or French question with a borrowed "in" or "a" is not).
pub fn reads_english(question: &str) -> bool {
    let words: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() {
        return false;
    }
    let function = words.iter().filter(|w| FUNCTION_WORDS.contains(&w.as_str())).count();
    function >= 1 && function * 5 >= words.len()
}

/// Words that ask for every column of a row: "all the information", "the details", "all data".
pub const WHOLE_ROW: &[&str] = &[
    "information", "info", "details", "detail", "data", "everything", "all columns", "all attributes", "all fields", "all records",
    "full record", "full records",
];

/// Does the question ask for whole rows ("all the customer information", "the details of")?
pub fn asks_whole_rows(question: &str) -> bool {
    let q = question.to_lowercase();
    let words: Vec<&str> = q.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let text = words.join(" ");
    WHOLE_ROW.iter().any(|w| if w.contains(' ') { text.contains(w) } else { words.contains(w) })
}

/// Words that open a relative clause.
pub const RELATIVE: &[&str] = &["who", "whom", "whose", "that", "which"];
/// Words in -ing that are no verb of a clause.
const NOT_PARTICIPLES: &[&str] = &[
    "ascending", "descending", "during", "according", "including", "excluding", "following", "remaining", "existing",
    "nothing", "something", "anything", "everything", "thing", "things", "string", "strings", "king", "kings", "ring", "spring",
];

/// Does the question carry a clause after its first word, a relative ("students *who tried out*")
/// or a participle ("professors *teaching* in …")? Its verb may name a table the question's
/// nouns do not.
pub fn has_clause(question: &str) -> bool {
    question
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .skip(1)
        .any(|w| RELATIVE.contains(&w) || (w.len() >= 5 && w.ends_with("ing") && !NOT_PARTICIPLES.contains(&w)))
}

/// The numbers a question names, in digits or words ("five customers", "top 10").
pub fn numbers_named(question: &str) -> Vec<u64> {
    question
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter_map(|w| if w.chars().all(|c| c.is_ascii_digit()) { w.parse().ok() } else { number(w) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_questions_are_told_from_others() {
        for q in [
            "How many orders did customers from Paris place?",
            "Count the singers.",
            "I need five customers from Paris",
            "Titles of books, cheapest first?",
            "List all employees",
        ] {
            assert!(reads_english(q), "{q}");
        }
        for q in [
            "Welche Kunden haben mehr als 5 Bestellungen aufgegeben?",
            "Wie viele Bücher kosten mehr als 10 Euro?",
            "Quels sont les titres des 3 livres les plus chers ?",
            "¿Cuántos clientes viven en París?",
            "Die fünf teuersten Bücher und ihre Autoren",
            "",
            "42",
        ] {
            assert!(!reads_english(q), "{q}");
        }
    }

    #[test]
    fn every_superlative_once_and_the_alternation_prefers_long_entries() {
        let mut words: Vec<&str> = SUPERLATIVES.iter().map(|s| s.word).collect();
        let n = words.len();
        words.sort();
        words.dedup();
        assert_eq!(words.len(), n);
        let re = Regex::new(&format!(r"\b({})\b", alternation(SUPERLATIVES.iter().map(|s| s.word)))).unwrap();
        assert_eq!(&re.captures("the most recent order").unwrap()[1], "most recent");
        assert_eq!(superlative("cheapest").map(|s| s.sense), Some(Sense::Less));
        assert!(superlative("best").is_some_and(|s| s.loose));
    }

    #[test]
    fn numbers_in_digits_and_words() {
        assert_eq!(numbers_named("I need five customers from Paris"), vec![5]);
        assert_eq!(numbers_named("top 10 of 2015"), vec![10, 2015]);
        assert!(numbers_named("Welche Kunden?").is_empty());
    }

    #[test]
    fn clauses() {
        assert!(has_clause("What are the names of all students who tried out?"));
        assert!(has_clause("Professors teaching in the history department"));
        assert!(!has_clause("Which authors are from Peru?"));
        assert!(!has_clause("List the names of teachers in ascending order of age"));
    }

    #[test]
    fn whole_rows() {
        assert!(asks_whole_rows("Find all the customer information in state NY."));
        assert!(asks_whole_rows("Find the details for all chip models."));
        assert!(asks_whole_rows("Select all the data from the products"));
        assert!(!asks_whole_rows("Which books are cheap?"));
        assert!(!asks_whole_rows("List the database names"));
    }
}
