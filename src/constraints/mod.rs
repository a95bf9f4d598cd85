//! Constraints a question puts on its SQL, found by rules over the question text (precision
//! before recall), and their verification on the SQL's AST.
//!
//! Each [`Constraint`] records the phrase that triggered it. [`verify`] checks one against the
//! [`facts::QueryFacts`] of a query; a violation says precisely what is missing, so a repair
//! prompt can ask for exactly that.

pub mod facts;

use once_cell::sync::Lazy;
use regex::Regex;
use serde::Serialize;

use facts::{CompareOp, QueryFacts};

use crate::lexicon;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Kind {
    /// "distinct", "different", "unique": duplicates removed.
    Distinct,
    /// "top 3", "three highest", "first five": ORDER BY and LIMIT k.
    TopK { k: u64, largest: Option<bool> },
    /// "highest", "most", "youngest": ORDER BY ... LIMIT or MAX/MIN.
    Extreme { largest: Option<bool> },
    /// "rank": a ranking window function or an ordering.
    Ranking,
    /// "how many", "number of": COUNT.
    Count,
    /// "percentage", "percent", "ratio": a division. `of`: the words that may name what it is a
    /// share of ("the percentage of *hispanics*", "the *black* percentage"), singular; a column of
    /// that name stores the share itself.
    Percentage { of: Vec<String> },
    /// "total", "sum of": SUM (or COUNT for "total number").
    Sum,
    /// "average", "mean": AVG.
    Average,
    /// "more than 5", "at least three": a comparison with that value; `inclusive` when the bound
    /// holds the value itself ("at least", "at most", "no more than", "not less than").
    /// `excluded`: the question takes the rows the words name away ("except those whose amount
    /// is less than 9"), so `op` and `inclusive` are those of the rows kept (`>= 9`).
    Comparison { op: Direction, value: f64, inclusive: bool, excluded: bool },
    /// A quoted string or a year the SQL must use as a literal.
    Literal { value: String },
    /// "for each", "per": GROUP BY (or a window partition).
    Grouping,
    /// "never", "without", "not": an anti-join, NOT IN/EXISTS, <>, IS NULL or EXCEPT.
    Negation,
    /// "list all", "show all", "every": the whole result, no LIMIT on the outermost query.
    AllRows,
}

/// The direction of a comparison the question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Greater,
    Less,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Constraint {
    #[serde(flatten)]
    pub kind: Kind,
    /// The words of the question that triggered it.
    pub phrase: String,
}

impl Constraint {
    /// What the SQL must do, phrased as a directive for generation and repair.
    pub fn requirement(&self) -> String {
        let p = &self.phrase;
        match &self.kind {
            Kind::Distinct => format!("\"{p}\": remove duplicates (DISTINCT, COUNT(DISTINCT ...) or GROUP BY)"),
            Kind::TopK { k, largest } => format!(
                "\"{p}\": ORDER BY the ranking expression{} and LIMIT {k}",
                match largest { Some(true) => " DESC", Some(false) => " ASC", None => "" }
            ),
            Kind::Extreme { largest } => format!(
                "\"{p}\": an extreme value: ORDER BY ...{} LIMIT 1, or {}",
                match largest { Some(true) => " DESC", Some(false) => " ASC", None => "" },
                match largest { Some(true) => "MAX(...)", Some(false) => "MIN(...)", None => "MAX/MIN(...)" }
            ),
            Kind::Ranking => format!("\"{p}\": rank with RANK()/DENSE_RANK() or ORDER BY"),
            Kind::Count => format!("\"{p}\": count with COUNT(...)"),
            Kind::Percentage { .. } => format!("\"{p}\": a ratio: divide as numeric (and multiply by 100 for a percentage)"),
            Kind::Sum => format!("\"{p}\": add up with SUM(...)"),
            Kind::Average => format!("\"{p}\": use AVG(...)"),
            Kind::Comparison { op, value, inclusive, excluded } => {
                let kept = format!("{}{} {value}", if *op == Direction::Greater { ">" } else { "<" }, if *inclusive { "=" } else { "" });
                if *excluded {
                    // the rows named: the complement of those kept
                    let named = format!("{}{} {value}", if *op == Direction::Greater { "<" } else { ">" }, if *inclusive { "" } else { "=" });
                    format!("\"{p}\": keep only the rows with {kept} (or take those with {named} away with NOT, NOT IN or EXCEPT)")
                } else {
                    format!("\"{p}\": a condition {kept}")
                }
            }
            Kind::Literal { value } => format!("use the value '{value}' from the question in a condition"),
            Kind::Grouping => format!("\"{p}\": GROUP BY the entity the question iterates over"),
            Kind::Negation => format!("\"{p}\": exclude with NOT EXISTS, NOT IN, an anti-join, <> or EXCEPT"),
            Kind::AllRows => format!("\"{p}\": return every matching row: no LIMIT on the outer query"),
        }
    }

    pub fn name(&self) -> &'static str {
        match self.kind {
            Kind::Distinct => "distinct",
            Kind::TopK { .. } => "top_k",
            Kind::Extreme { .. } => "extreme",
            Kind::Ranking => "ranking",
            Kind::Count => "count",
            Kind::Percentage { .. } => "percentage",
            Kind::Sum => "sum",
            Kind::Average => "average",
            Kind::Comparison { .. } => "comparison",
            Kind::Literal { .. } => "literal",
            Kind::Grouping => "grouping",
            Kind::Negation => "negation",
            Kind::AllRows => "all_rows",
        }
    }
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("constraint pattern compiles")
}

fn parse_count(word: &str) -> Option<u64> {
    lexicon::number(word)
}

/// A number in digits or words (the lexicon's).
static NUM: Lazy<String> = Lazy::new(|| format!(r"(\d+|{})", lexicon::alternation(lexicon::NUMBER_WORDS.iter().map(|(w, _)| *w))));

/// The superlatives that follow a count ("the three cheapest", "top 5 highest"): every one but
/// the multi-word ones and the loose abbreviations.
static COUNTED_SUPERLATIVES: Lazy<String> = Lazy::new(|| {
    lexicon::alternation(lexicon::SUPERLATIVES.iter().filter(|s| !s.word.contains(' ') && !matches!(s.word, "top" | "max" | "min")).map(|s| s.word))
});

static TOP_K: Lazy<Regex> = Lazy::new(|| {
    re(&format!(r"\b(?:top|first|the)\s+{}\s+(?:(?:\w+\s+)?({})\b)?", *NUM, *COUNTED_SUPERLATIVES))
});
static TOP_ONLY: Lazy<Regex> = Lazy::new(|| re(&format!(r"\btop\s+{}\b", *NUM)));
/// A superlative of its own (not a loose word).
static SUPERLATIVE: Lazy<Regex> = Lazy::new(|| {
    re(&format!(r"\b(?:the\s+)?({})\b", lexicon::alternation(lexicon::SUPERLATIVES.iter().filter(|s| !s.loose).map(|s| s.word))))
});
static AT_MOST_LEAST: Lazy<Regex> = Lazy::new(|| re(r"\bat\s+(?:most|least)\b|\b(?:no|not)\s+(?:more|less|fewer)\b"));
static DISTINCT: Lazy<Regex> = Lazy::new(|| re(r"\b(distinct|different|unique)\b"));
static NOT_DISTINCT: Lazy<Regex> = Lazy::new(|| {
    re(r"^(?:different\s+(?:from|than)\b|unique\s+(?:id|ids|identifier|identifiers|identification|number|numbers|code|codes|key|keys)\b)")
});
/// "ordered from the oldest to the youngest": a sort order, not a pick of the extreme row.
/// So are "starting with the oldest", "from greatest to least", "with the highest revenue first",
/// and a superlative word before a number is a bound ("least 10", missing its "at").
static ORDER_RANGE: Lazy<Regex> = Lazy::new(|| {
    re(r"\bfrom\s+(?:the\s+)?\w+\s+to\s+(?:the\s+)?(?:most\s+)?\w+\b|\b(?:starting|beginning)\s+(?:with|from)\s+(?:the\s+)?\w+|\b(?:the\s+)?(?:ones?\s+with\s+(?:the\s+)?)?\w+(?:\s+\w+)?\s+first\s*(?:$|[,.;?!])|\b(?:most|least)\s+\d")
});
/// A percentage of another quantity: `80% of the average`.
static RELATIVE_AFTER: Lazy<Regex> = Lazy::new(|| re(r"^(?:%|\s*percent)\s+of\b"));
/// Words that take away the rows a comparison right after them names: "except (for) those whose
/// donation amount is less than 9" (a word for the rows, then at most six words, none ending a
/// clause), "but not under 30". Not "people other than Bob older than 30", whose comparison
/// chooses among the people kept.
static EXCLUDED_BEFORE: Lazy<Regex> = Lazy::new(|| {
    let (words, at_once) = (lexicon::alternation(lexicon::EXCLUDING.iter().copied()), lexicon::alternation(lexicon::EXCLUDING_AT_ONCE.iter().copied()));
    re(&format!(r"(?:\b(?:{words})\s+(?:for\s+)?(?:those|the ones|ones|any|all)\b(?:\s+[^\s,;.!?]+){{0,6}}|\b(?:{at_once})(?:\s+[^\s,;.!?]+){{0,2}})\s*$"))
});
/// A verb that asks for a number of rows: "list at least five ..." is not a comparison.
static ROWS_VERB_BEFORE: Lazy<Regex> = Lazy::new(|| re(r"\b(?:name|list|pick|show|give|find|select|state)\s+(?:down\s+)?$"));
static COUNT: Lazy<Regex> = Lazy::new(|| {
    re(r"^\s*(how many)\b|\b(?:what is|what's|find|show|give|return|list|count|tell me)\s+(?:me\s+)?(?:the\s+)?(?:total\s+)?(number of)\b|^\s*(count)\b")
});
/// A count asked for beside other columns: "the name and the number of followers", "each
/// citizenship with how many singers hold it".
static COUNT_ALONGSIDE: Lazy<Regex> = Lazy::new(|| {
    re(&format!(
        r"\b(?:and|with|along with|as well as|together with|plus)\s+(?:also\s+)?(?:the\s+|their\s+|its\s+)?(?:total\s+)?({})\b",
        lexicon::alternation(lexicon::COUNT_HEADS.iter().copied())
    ))
});
/// The noun a count phrase counts: "how many [different] kids".
static COUNTED: Lazy<Regex> = Lazy::new(|| re(r"^\s+(?:of\s+)?(?:the\s+)?(?:different\s+|distinct\s+|total\s+)?([a-z][a-z_]+)\b"));
static ON_AVERAGE: Lazy<Regex> = Lazy::new(|| re(r"\b(?:on average|in average|an average|the average|average number)\b"));
static PERCENT: Lazy<Regex> = Lazy::new(|| re(r"\b(percentage|percent|ratio|proportion)\b"));
static AVERAGE: Lazy<Regex> = Lazy::new(|| re(r"\b(average|mean)\b"));
static SUM: Lazy<Regex> = Lazy::new(|| re(r"\b(sum of|sum up|in total|total amount of|total sum of)\b"));
static RANK: Lazy<Regex> = Lazy::new(|| re(r"\b(rank|ranking)\b"));
/// "more than 5", "not less than 3", "over 100", "at least two": a comparison word, then a number.
static COMPARISON: Lazy<Regex> = Lazy::new(|| {
    let than = lexicon::alternation(lexicon::COMPARATIVES.iter().copied().filter(|w| THAN_WORDS.contains(w)));
    let bare = lexicon::alternation(lexicon::COMPARATIVES.iter().copied().filter(|w| !THAN_WORDS.contains(w)));
    re(&format!(
        r"\b((?:not |no )?(?:(?:{than}) than)|{bare}|at least|at most)\s+(\d+(?:,\d{{3}})*(?:\.\d+)?|{})(?:\s|$|[.,;?!)%])",
        lexicon::alternation(lexicon::NUMBER_WORDS.iter().map(|(w, _)| *w))
    ))
});
/// The comparatives that take "than".
const THAN_WORDS: &[&str] = &["more", "less", "fewer", "greater", "higher", "lower", "larger", "smaller", "bigger", "older", "younger"];
static QUOTED: Lazy<Regex> = Lazy::new(|| {
    re(r#"(?:^|[\s(])(?:'([^']{1,80})'|"([^"]{1,80})")(?:$|[\s).,;:?!])"#)
});
/// The strings a question quotes ('…' or "…"), without their quotes, in order.
pub fn quoted_strings(question: &str) -> Vec<String> {
    QUOTED
        .captures_iter(question)
        .map(|m| m.get(1).or(m.get(2)).map_or("", |v| v.as_str()).trim().to_string())
        .filter(|v| !v.is_empty())
        .collect()
}

static YEAR: Lazy<Regex> = Lazy::new(|| re(r"\b(?:in|during|of|since|before|after|from|year)\s+((?:19|20)\d\d)\b"));
static ALL_ROWS: Lazy<Regex> = Lazy::new(|| re(r"\b(list all|show all|list every|show every|find all|return all|give all|all the|list the names of all|names of all)\b"));
/// Wordings that pick one row without a superlative ("which one", "the first", "any one").
static SINGULAR_PICK: Lazy<Regex> = Lazy::new(|| re(r"\b(first|last|one of|any one|which one|a single|second|third|top|bottom|sample|example|some)\b"));
/// Comparatives, other superlatives and counted picks ("the tallest", "which is older, A or B",
/// "name 10 users"): the question may want fewer rows than match, so "all rows" is not asserted.
static PICK_CUES: Lazy<Regex> = Lazy::new(|| {
    re(r"\b(\w{3,}est|best|worst|common|at most|\d+(?:st|nd|rd|th)|mostly|predominantly|majority|peak|more|less|higher|lower|older|younger|bigger|smaller|larger|greater|better|worse)\b|\b(?:name|list|pick|show|give|find|select|state)\s+(?:down\s+)?(?:at least\s+)?(?:\d+|two|three|four|five|six|seven|eight|nine|ten)\b")
});

fn picks_some(q: &str) -> bool {
    PICK_CUES.captures_iter(q).any(|m| match m.get(1) {
        Some(w) => !(w.as_str().ends_with("est") && lexicon::NOT_SUPERLATIVES.contains(&w.as_str())),
        None => true,
    })
}

static LIST_TOO: Lazy<Regex> = Lazy::new(|| re(r"\b(list|name all|name them|state all|show all)\b"));
static GROUPING: Lazy<Regex> = Lazy::new(|| re(r"\b(for each|for every|in each|of each|per)\b"));
/// "each" after any other word ("how many followers does *each* user have", "the number of
/// flights to *each* destination"): a count per group when a count is asked and no average (an
/// average of each one's value is one number over them all: "how many students, on average, does
/// each college have").
static EACH: Lazy<Regex> = Lazy::new(|| re(r"\b(each)\b"));
static COUNT_HEAD: Lazy<Regex> = Lazy::new(|| re(&format!(r"\b({})\b", lexicon::alternation(lexicon::COUNT_HEADS.iter().copied()))));
static RATE_BEFORE: Lazy<Regex> = Lazy::new(|| re(r"\d\s*$"));
static PER_AROUND: Lazy<Regex> = Lazy::new(|| re(r"\b[a-z]+\s+per\s+[a-z]+\b"));
static AGGREGATE_CUE: Lazy<Regex> = Lazy::new(|| re(&format!(r"\b({})\b", lexicon::alternation(lexicon::AGGREGATE_CUES.iter().copied()))));

/// Does the question name a number that may count the rows it wants ("five customers", "3
/// books")? Not a year, not a number compared with ("more than 5"), not a decimal.
fn names_a_count(q: &str) -> bool {
    !named_counts(q).is_empty()
}

/// The numbers a question names that may count the rows it wants ("five customers", "3 books",
/// in digits in any language): not years, not numbers compared with ("more than 5"), not decimals.
pub fn named_counts(question: &str) -> Vec<u64> {
    let q = question.to_lowercase();
    let masked = COMPARISON.replace_all(&q, " ");
    masked
        .split(|c: char| !c.is_alphanumeric() && c != '.')
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.contains('.'))
        .filter_map(lexicon::number)
        .filter(|n| !(1000..=2100).contains(n))
        .collect()
}

/// The constraints a question (and its evidence, if any) puts on the SQL.
pub fn extract(question: &str, evidence: Option<&str>) -> Vec<Constraint> {
    // quoted values are literals, not wording: mask them before mining the wording
    let q = QUOTED.replace_all(&question.to_lowercase(), " \"\" ").into_owned();
    let evidence_lower = evidence.unwrap_or("").to_lowercase();
    let mut out = Vec::new();
    let mut push = |kind: Kind, phrase: &str| {
        if !out.iter().any(|c: &Constraint| c.kind == kind) {
            out.push(Constraint { kind, phrase: phrase.trim().to_string() });
        }
    };
    let direction_of = |word: &str| lexicon::superlative(word).and_then(|s| s.sense.largest());

    // top-k before the single superlative: "top 3" and "the three highest"
    let mut has_top_k = false;
    for m in TOP_K.captures_iter(&q) {
        let Some(k) = parse_count(&m[1]) else { continue };
        let superlative = m.get(2).map(|s| s.as_str());
        let is_top = m[0].starts_with("top");
        if k >= 2 && (is_top || superlative.is_some()) {
            push(Kind::TopK { k, largest: superlative.and_then(direction_of).or(is_top.then_some(true)) }, &m[0]);
            has_top_k = true;
        }
    }
    if !has_top_k {
        if let Some(m) = TOP_ONLY.captures(&q) {
            if let Some(k) = parse_count(&m[1]).filter(|k| *k >= 2) {
                push(Kind::TopK { k, largest: Some(true) }, &m[0]);
                has_top_k = true;
            }
        }
    }
    let mut limited = has_top_k;
    if !has_top_k {
        let masked = AT_MOST_LEAST.replace_all(&q, " ");
        let masked = ORDER_RANGE.replace_all(&masked, " ");
        if let Some(m) = SUPERLATIVE.captures(&masked) {
            let word = m[1].to_string();
            let largest = direction_of(&word);
            push(Kind::Extreme { largest }, &word);
            limited = true;
        }
    }
    // "different from" is an inequality, "unique id" an attribute: neither asks for DISTINCT
    if let Some(m) = distinct_phrase(&q) {
        push(Kind::Distinct, m.as_str());
    }
    // "How many ...? List them." asks for the rows as well: no single count then
    // "how many songs, on average": an average, not a count
    // a count beside other columns ("list the names and the number of ...") is asked for whatever
    // the verb
    let counts = COUNT.captures(&q).filter(|_| !LIST_TOO.is_match(&q)).or_else(|| COUNT_ALONGSIDE.captures(&q));
    if let Some(m) = counts.filter(|_| !ON_AVERAGE.is_match(&q)) {
        let head = m.get(1).or(m.get(2)).or(m.get(3)).expect("one group matches");
        // with the thing counted ("how many kids"): a stored column of that name answers it
        let counted = COUNTED.captures(&q[head.end()..]).map(|c| c[1].to_string());
        let phrase = match &counted {
            Some(noun) => format!("{} {noun}", head.as_str()),
            None => head.as_str().to_string(),
        };
        push(Kind::Count, &phrase);
    }
    if let Some(m) = PERCENT.captures(&q) {
        let whole = m.get(1).expect("one group");
        // a ratio of one thing to another is a division whatever the columns are named
        let of = if whole.as_str() == "ratio" { Vec::new() } else { share_of(&q[..whole.start()], &q[whole.end()..]) };
        push(Kind::Percentage { of }, whole.as_str());
    }
    // evidence that names "average ..." as a stored attribute (no formula) maps it to a column
    let evidence_defines_average = AVERAGE.is_match(&evidence_lower)
        && !["avg", "divide", "/", "sum"].iter().any(|w| evidence_lower.contains(w));
    if let Some(m) = AVERAGE.captures(&q).filter(|_| !evidence_defines_average) {
        push(Kind::Average, &m[1]);
    }
    if let Some(m) = SUM.captures(&q) {
        push(Kind::Sum, &m[1]);
    }
    if let Some(m) = RANK.captures(&q) {
        push(Kind::Ranking, &m[1]);
    }
    for m in COMPARISON.captures_iter(&q) {
        // (byte offsets of the match and of the number's end: both on character boundaries)
        let (start, number_end) = (m.get(0).expect("match").start(), m.get(2).expect("number").end());
        // "list at least five ..." counts rows; "greater than 80% of the average" is relative
        if ROWS_VERB_BEFORE.is_match(&q[..start]) || RELATIVE_AFTER.is_match(&q[number_end..]) {
            continue;
        }
        let number = m[2].replace(',', "");
        let Some(value) = number.parse::<f64>().ok().or_else(|| parse_count(&number).map(|n| n as f64)) else {
            continue;
        };
        let phrase = &m[1];
        let less = lexicon::BOUNDS_BELOW.iter().any(|w| phrase.contains(w));
        let negated = phrase.starts_with("not ") || phrase.starts_with("no ");
        // "at least one course", "more than at least one engineer": existence (a join, EXISTS, a
        // comparison with some row), which no number in the SQL need show
        if value == 1.0 && !less && !negated && phrase.ends_with("at least") {
            continue;
        }
        let op = if less != negated { Direction::Less } else { Direction::Greater };
        // "at least 5" and "no more than 5" hold 5 itself; "more than 5" and "under 5" do not
        let inclusive = phrase.starts_with("at ") || negated;
        let words = m[0].trim_end_matches(|c: char| !c.is_alphanumeric());
        // "except those whose amount is less than 9": the rows kept are the others, `>= 9`
        match EXCLUDED_BEFORE.find(&q[..start]) {
            Some(x) => {
                let flipped = if op == Direction::Less { Direction::Greater } else { Direction::Less };
                push(Kind::Comparison { op: flipped, value, inclusive: !inclusive, excluded: true }, &format!("{}{words}", &q[x.start()..start]));
            }
            None => push(Kind::Comparison { op, value, inclusive, excluded: false }, words),
        }
    }
    for m in QUOTED.captures_iter(question) {
        // (read from the original text: the mined copy has them masked)
        let value = m.get(1).or(m.get(2)).map_or("", |v| v.as_str()).trim().to_string();
        if !value.is_empty() {
            push(Kind::Literal { value: value.clone() }, &m[0]);
        }
    }
    // a year the evidence talks about is mapped by the evidence (often to a column), not a literal
    for m in YEAR.captures_iter(&q) {
        if !evidence_lower.contains(&m[1]) {
            push(Kind::Literal { value: m[1].to_string() }, &m[0]);
        }
    }
    // "250,000 per account" is a rate, not a grouping
    let rate = |m: &regex::Captures| m[1].starts_with("per") && RATE_BEFORE.is_match(&q[..m.get(0).expect("match").start()]);
    if let Some(m) = GROUPING.captures_iter(&q).find(|m| !rate(m)) {
        if AGGREGATE_CUE.is_match(&q) {
            // "per" with the words around it, which may name a stored rate ("pages per minute")
            let around = PER_AROUND.captures(&q).filter(|_| &m[1] == "per").and_then(|a| a.get(0));
            push(Kind::Grouping, around.map_or(&m[1], |a| a.as_str()));
        }
    } else if let Some(m) = EACH.captures(&q) {
        if COUNT_HEAD.is_match(&q) && !AVERAGE.is_match(&q) {
            push(Kind::Grouping, &m[1]);
        }
    }
    // "list all ..." with nothing that limits the rows
    if !limited && !RANK.is_match(&q) {
        match ALL_ROWS.captures(&q) {
            Some(m) => push(Kind::AllRows, &m[1]),
            // nothing in an English question limits the rows: neither should the SQL (the
            // absence of a word means nothing in another language, nor beside a number that
            // may count the rows: "I need five customers from Paris")
            None if lexicon::reads_english(question) && !names_a_count(&q) && !SINGULAR_PICK.is_match(&q) && !picks_some(&q) => {
                push(Kind::AllRows, NO_COUNT_ASKED)
            }
            None => {}
        }
    }
    // BIRD-style evidence maps negated attributes to values ("not carcinogenic refers to label = '-'")
    if let Some(m) = lexicon::NEGATED_VERB.captures(&q) {
        if evidence.is_none() {
            push(Kind::Negation, &m[1]);
        }
    }
    out
}

/// The outcome of checking one constraint on one query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub constraint: Constraint,
    pub satisfied: bool,
    /// What is missing, phrased as a directive for a repair.
    pub message: String,
}

/// A literal that names this year (`2012`, `'2012-03-01'`, `201203`), or after "after", "before"
/// and "since" also the year next to it ("after 1996" is often `>= '1997-01-01'`).
fn year_in(text: &str, year: &str, phrase: &str) -> bool {
    let y: i32 = year.parse().unwrap_or(0);
    let open_ended = ["after", "before", "since"].iter().any(|w| phrase.starts_with(w));
    let years: &[i32] = if open_ended { &[y - 1, y, y + 1] } else { &[y] };
    years.iter().any(|c| text.contains(&c.to_string()))
}

fn number_matches(text: &str, value: f64) -> bool {
    text.parse::<f64>().is_ok_and(|n| (n - value).abs() < 1e-9)
}

/// Check one constraint against the facts of a query.
/// Column names that hold a rank.
const RANK_WORDS: &[&str] = &["rank", "position", "place", "standing"];

pub fn verify(c: &Constraint, f: &QueryFacts) -> Verdict {
    let ordered_limit = !f.order_desc.is_empty() && !f.limits.is_empty();
    let satisfied = match &c.kind {
        Kind::Distinct => f.distinct || f.group_by || f.set_operation,
        Kind::TopK { k, .. } => {
            // or a rank threshold: `rnk <= k`, `rank < k + 1`
            let k = *k as f64;
            let threshold = f.comparisons.iter().any(|c| {
                (c.op == CompareOp::LtEq && c.value == k) || (c.op == CompareOp::Lt && c.value == k + 1.0)
            });
            (f.limits.contains(&(k as u64)) && !f.order_desc.is_empty())
                || (threshold && (f.has_function(&["rank", "dense_rank", "row_number"]) || f.identifier_mentions(RANK_WORDS)))
        }
        Kind::Extreme { largest } => {
            let agg = match largest {
                Some(true) => f.has_function(&["max"]),
                Some(false) => f.has_function(&["min"]),
                None => f.has_function(&["max", "min"]),
            };
            let words = [
                "max", "min", "high", "low", "most", "least", "large", "small", "old", "young", "late", "early",
                "recent", "long", "short", "best", "worst", "fast", "slow", "cheap",
            ];
            // "ranked the highest" is rank 1
            let rank_one = f.identifier_mentions(RANK_WORDS)
                && f.comparisons.iter().any(|c| c.op == CompareOp::Eq && c.value == 1.0);
            ordered_limit || agg || f.window || f.identifier_mentions(&words) || rank_one
        }
        Kind::Ranking => {
            f.has_function(&["rank", "dense_rank", "row_number"])
                || !f.order_desc.is_empty()
                || f.identifier_mentions(RANK_WORDS)
        }
        // or a column that stores the count asked for, returned as it is ("how many kids stay
        // in the room" answered by `reservations.kids`)
        Kind::Count => {
            f.has_function(&["count", "sum"])
                || f.identifier_mentions(&["count", "num", "number"])
                || counted_noun(&c.phrase).is_some_and(|n| f.projected.iter().any(|p| stores_count_of(p, &n)))
        }
        // or a column that stores the share, read as it is ("the percentage of hispanics" as
        // `city.hispanic`)
        Kind::Percentage { of } => {
            f.division
                || f.multiply_by_100
                || f.identifier_mentions(&["percent", "ratio", "rate", "proportion", "pct"])
                || f.columns.iter().any(|col| of.contains(&crate::context::stem(col)))
        }
        Kind::Sum => f.has_function(&["sum", "count", "total"]) || f.addition || f.identifier_mentions(&["total", "sum"]),
        Kind::Average => f.has_function(&["avg"]) || f.division || f.identifier_mentions(&["avg", "average", "mean"]),
        Kind::Comparison { op, value, excluded, .. } => {
            let greater: &[CompareOp] = &[CompareOp::Gt, CompareOp::GtEq];
            let less: &[CompareOp] = &[CompareOp::Lt, CompareOp::LtEq];
            let ok_ops = if *op == Direction::Greater { greater } else { less };
            // rows taken away may be named as the question names them, under a negation or
            // EXCEPT (`EXCEPT … WHERE amount < 9`, `NOT amount < 9`)
            let named_ops = if *op == Direction::Greater { less } else { greater };
            // "more than 5" is `> 5` or `>= 6`; a bound within one either way passes, whether
            // the question includes it or not: Spider's golds write 13 of 618 `spider_train`
            // comparisons and 3 of 51 dev ones the other way ("at least 10 flights" as `> 10`),
            // and a check that strict would repair answers into ones scored wrong (see
            // docs/benchmarks.md). What to write is said exactly in `requirement`.
            let near = |v: f64| [0.0, 1.0, -1.0].iter().any(|d| (v - (value + d)).abs() < 1e-9);
            // a count stored per threshold: "test takers with a score over 1500" is `NumGE1500`
            let in_name = *value >= 10.0 && value.fract() == 0.0 && f.identifier_mentions(&[&format!("{}", *value as u64)]);
            f.comparisons.iter().any(|cmp| ok_ops.contains(&cmp.op) && near(cmp.value))
                || (*excluded && (f.negation || f.set_operation) && f.comparisons.iter().any(|cmp| named_ops.contains(&cmp.op) && near(cmp.value)))
                || f.between.iter().any(|(l, h)| near(*l) || near(*h))
                || in_name
                || f.limits.iter().any(|l| (*l as f64 - value).abs() < 1e-9)
        }
        Kind::Literal { value } => {
            let v = value.to_lowercase().replace("''", "'");
            let year = value.len() == 4 && value.chars().all(|c| c.is_ascii_digit());
            f.strings.iter().any(|s| {
                let core = s.trim_matches('%');
                s.contains(&v) || (!core.is_empty() && v.contains(core))
            }) || value.parse::<f64>().is_ok_and(|n| f.numbers.iter().any(|t| number_matches(t, n)))
                || (year && f.numbers.iter().chain(f.strings.iter()).any(|t| year_in(t, &v, &c.phrase)))
                || f.identifiers.contains(&v)
                || (!year && f.strings.iter().chain(f.identifiers.iter()).any(|t| written_alike(t, &v)))
        }
        // with no aggregate at all, every row is already one per entity
        Kind::Grouping => {
            f.group_by || f.window || f.distinct || !f.has_function(&["count", "sum", "avg", "min", "max", "total"]) || stored_rate(&c.phrase, f)
        }
        Kind::Negation => f.negation || f.set_operation || f.falsy_equality,
        // read from an absence, the rule cannot tell a pick of one extreme the lexicon has no word
        // for ("the candidate who has the oppose rate") from a display limit: ORDER BY … LIMIT 1
        // passes
        Kind::AllRows => !f.outer_limit || (c.phrase == NO_COUNT_ASKED && !f.order_desc.is_empty() && f.limits.contains(&1)),
    };
    Verdict { constraint: c.clone(), satisfied, message: if satisfied { String::new() } else { c.requirement() } }
}

/// Does the SQL read a column named for the rate "X per Y" names (`pages_per_minute_color` for
/// "pages per minute"): a stored rate, not a group per Y?
fn stored_rate(phrase: &str, f: &QueryFacts) -> bool {
    use crate::scope::link::singular;
    let words: Vec<&str> = phrase.split_whitespace().collect();
    let [before, "per", after] = words.as_slice() else { return false };
    let rate = format!("{}_per_{}", singular(before), singular(after));
    f.identifiers.iter().any(|i| i.split('_').map(singular).collect::<Vec<_>>().join("_").contains(&rate))
}

/// Is a literal or a name of the SQL the question's quoted value, written otherwise: alike in
/// letters and digits once case, spaces and punctuation are dropped ("Tokyo , Japan" for
/// 'Tokyo,Japan'; `date_in_location_from` for 'the date in location from'), or one edit away
/// when that is at least six of them ('activitor' for 'activator'). Whether the data stores the
/// SQL's form is the `literal` check's to judge, on the data.
fn written_alike(sql: &str, quoted: &str) -> bool {
    let bare = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect::<String>();
    let quoted = quoted.strip_prefix("the ").unwrap_or(quoted);
    let (a, b) = (bare(sql.trim_matches('%')), bare(quoted));
    !b.is_empty() && (a == b || (b.chars().count() >= 6 && strsim::osa_distance(&a, &b) <= 1))
}

/// The word right after the question's `distinct` phrase: what it says to tell apart ("how many
/// different *colleges*"), as written.
pub fn distinct_noun(question: &str) -> Option<String> {
    static AFTER: Lazy<Regex> = Lazy::new(|| re(r"^\s+([a-z]{3,})\b"));
    let q = question.to_lowercase();
    let m = distinct_phrase(&q)?;
    AFTER.captures(&q[m.end()..]).map(|c| c[1].to_string())
}

/// The first `distinct` phrase of a lower-cased question that asks to remove duplicates:
/// "different from" is an inequality, "unique id" an attribute.
fn distinct_phrase(q: &str) -> Option<regex::Match<'_>> {
    DISTINCT.find_iter(q).find(|m| !NOT_DISTINCT.is_match(&q[m.start()..]))
}

/// The singular of the noun a count phrase names ("how many kids" → `kid`), if it names one.
fn counted_noun(phrase: &str) -> Option<String> {
    let rest = lexicon::COUNT_HEADS.iter().find_map(|h| phrase.strip_prefix(h)?.strip_prefix(' '))?;
    let noun = rest.trim().trim_end_matches('s');
    (noun.len() >= 3 && !STOP_NOUNS.contains(&noun)).then(|| noun.to_string())
}

/// The words that may name what a percentage is a share of: the word after "of [the]" and the
/// word before it, singular ("the percentage of hispanics" → `hispanic`, `the`; "the black
/// percentage" → `black`). Which of them is a column is the SQL's to say. A share of one thing
/// to another ("the proportion of wins to losses") names no stored share.
fn share_of(before: &str, after: &str) -> Vec<String> {
    static OF: Lazy<Regex> = Lazy::new(|| re(r"^\s+of\s+(?:the\s+)?([a-z][a-z_]+)\b"));
    static TO: Lazy<Regex> = Lazy::new(|| re(r"^\s+of\s+(?:the\s+)?[a-z][a-z_ ]*?\bto\b"));
    static BEFORE: Lazy<Regex> = Lazy::new(|| re(r"\b([a-z][a-z_]+)\s+$"));
    if TO.is_match(after) {
        return Vec::new();
    }
    OF.captures(after)
        .into_iter()
        .chain(BEFORE.captures(before))
        .map(|c| crate::context::stem(&c[1]))
        .collect()
}

/// Does a projected column store a number of the counted noun: its name ends in the noun
/// (`followers`, `crs_credit`), or begins with the noun in the plural (`years_played`)? A name
/// that begins with the noun in the singular names an attribute of one (`order_total`, `kid_id`).
fn stores_count_of(column: &str, noun: &str) -> bool {
    let words: Vec<&str> = column.split('_').collect();
    let Some((last, before)) = words.split_last() else { return false };
    last.trim_end_matches('s') == noun || before.iter().any(|w| w.strip_suffix('s') == Some(noun))
}

/// Words after "how many" that are no stored quantity.
const STOP_NOUNS: &[&str] = &["time", "different", "distinct", "unique", "the", "other", "more", "people", "row", "record", "entrie"];

/// The phrase of an `all_rows` read from the absence of any word that limits the rows.
const NO_COUNT_ASKED: &str = "no number of rows asked";

/// Problems of the SQL alone, whatever the question: a LIMIT without an ORDER BY returns arbitrary
/// rows (and is usually a probe's display limit copied into the answer).
/// A LIMIT the question names ("five customers from Paris": any five) is no problem.
pub fn sql_checks(f: &QueryFacts, question: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let named = named_counts(question);
    if f.outer_limit && f.order_desc.is_empty() && !f.limits.iter().any(|l| named.contains(l)) {
        problems.push(
            "LIMIT without ORDER BY returns arbitrary rows: order the rows, or drop the LIMIT if the question \
             does not ask for a number of rows"
                .to_string(),
        );
    }
    problems
}

/// Check every constraint.
pub fn verify_all(constraints: &[Constraint], f: &QueryFacts) -> Vec<Verdict> {
    constraints.iter().map(|c| verify(c, f)).collect()
}

#[cfg(test)]
mod tests {
    use super::facts::{facts_of, SqlDialect};
    use super::*;

    fn kinds(q: &str) -> Vec<&'static str> {
        extract(q, None).iter().map(Constraint::name).collect()
    }

    /// Does the SQL meet every constraint of this kind the question yields?
    fn kind_holds(kind: &str, q: &str, sql: &str) -> bool {
        let f = facts_of(sql, SqlDialect::Postgres).unwrap();
        extract(q, None).iter().filter(|c| c.name() == kind).all(|c| verify(c, &f).satisfied)
    }

    fn holds(q: &str, sql: &str) -> bool {
        let f = facts_of(sql, SqlDialect::Postgres).unwrap();
        extract(q, None).iter().all(|c| verify(c, &f).satisfied)
    }

    #[test]
    fn a_comparison_under_except_names_the_rows_taken_away() {
        let q = "Show the names of all the donors except those whose donation amount less than 9.";
        let c = extract(q, None);
        let cmp = c.iter().find(|c| c.name() == "comparison").expect("a comparison");
        assert_eq!(cmp.kind, Kind::Comparison { op: Direction::Greater, value: 9.0, inclusive: true, excluded: true });
        assert_eq!(cmp.phrase, "except those whose donation amount less than 9");
        assert!(cmp.requirement().contains("keep only the rows with >= 9 (or take those with < 9 away"), "{}", cmp.requirement());
        // the rows named kept is the misreading; the rows kept, or those named taken away, hold
        assert!(!kind_holds("comparison", q, "SELECT donator_name FROM endowment WHERE amount < 9"));
        for right in [
            "SELECT donator_name FROM endowment WHERE amount >= 9",
            "SELECT donator_name FROM endowment WHERE NOT amount < 9",
            "SELECT donator_name FROM endowment EXCEPT SELECT donator_name FROM endowment WHERE amount < 9",
        ] {
            assert!(kind_holds("comparison", q, right), "{right}");
        }
        let q = "Show all storm names except for those with at least two affected regions.";
        assert!(kind_holds("comparison", q, "SELECT name FROM storm EXCEPT SELECT s.name FROM storm s JOIN affected_region a ON s.storm_id = a.storm_id GROUP BY s.name HAVING COUNT(*) >= 2"));
        assert!(!kind_holds("comparison", q, "SELECT s.name FROM storm s JOIN affected_region a ON s.storm_id = a.storm_id GROUP BY s.name HAVING COUNT(*) >= 2"));
        let q = "Find the people who have friends aged above 40 but not under 30.";
        assert!(extract(q, None).iter().any(|c| c.kind == Kind::Comparison { op: Direction::Greater, value: 30.0, inclusive: true, excluded: true }));
        assert!(extract(q, None).iter().any(|c| c.kind == Kind::Comparison { op: Direction::Greater, value: 40.0, inclusive: false, excluded: false }));
        // a comparison that chooses among the rows kept is read as it is
        let q = "Which people other than Bob are older than 30?";
        assert!(extract(q, None).iter().any(|c| c.kind == Kind::Comparison { op: Direction::Greater, value: 30.0, inclusive: false, excluded: false }));
        // "but not more than": a bound, not an exclusion
        let q = "List the shops with some staff but not more than 5 employees.";
        assert!(extract(q, None).iter().any(|c| c.kind == Kind::Comparison { op: Direction::Less, value: 5.0, inclusive: true, excluded: false }));
    }

    #[test]
    fn wordings_that_only_look_like_constraints() {
        // inequality and an attribute name, not DISTINCT
        assert!(!kinds("Whose permanent address is different from his current address?").contains(&"distinct"));
        assert!(!kinds("What is the unique id of the set with the most cards?").contains(&"distinct"));
        assert!(kinds("How many different cities are there?").contains(&"distinct"));
        // a sort order, not the extreme row
        assert!(!kinds("Show the names ordered by age from the oldest to the youngest.").contains(&"extreme"));
        // a number of rows, not a comparison; a relative threshold, not a literal one
        assert!(!kinds("List down at least five names of heroes.").contains(&"comparison"));
        assert!(!kinds("Which heroes are taller than 80% of the average height?").contains(&"comparison"));
        let c = extract("How many schools have a rate less than 0.18%?", None);
        assert!(c.iter().any(|c| c.kind == Kind::Comparison { op: Direction::Less, value: 0.18, inclusive: false, excluded: false }), "{c:?}");
        // "per" after a number is a rate
        assert!(!kinds("How many loans of at least 250,000 per account were approved?").contains(&"grouping"));
        assert!(kinds("How many loans per account were approved?").contains(&"grouping"));
    }

    #[test]
    fn checks_accept_equivalent_forms() {
        // top-k as a rank threshold
        assert!(holds("List the top 5 schools by score.", "SELECT s FROM (SELECT s, rank() OVER (ORDER BY x DESC) AS r FROM t) q WHERE r <= 5"));
        assert!(!holds("List the top 5 schools by score.", "SELECT s FROM t WHERE x <= 5"));
        // "for each" without any aggregate: every row is per entity already
        assert!(holds("What is the score of each school with the highest budget?", "SELECT school, score FROM t ORDER BY budget DESC LIMIT 1"));
        assert!(!holds("What is the average score of each school?", "SELECT avg(score) FROM t"));
        // a threshold stored in a column name
        assert!(holds("Which school has the most test takers with a score over 1500?", "SELECT s FROM t ORDER BY numge1500 DESC LIMIT 1"));
        // ranked the highest: rank 1
        assert!(holds("In which race did Lewis rank the highest?", "SELECT name FROM races WHERE rank = 1"));
    }

    #[test]
    fn extracts_top_k_with_digits_and_words() {
        assert_eq!(extract("Show the top 3 singers by sales", None)[0].kind, Kind::TopK { k: 3, largest: Some(true) });
        assert_eq!(extract("List the three youngest players", None)[0].kind, Kind::TopK { k: 3, largest: None });
        assert_eq!(extract("the five lowest prices", None)[0].kind, Kind::TopK { k: 5, largest: Some(false) });
    }

    #[test]
    fn does_not_fire_on_look_alikes() {
        assert!(kinds("Which hotels offer top-notch service?").is_empty());
        assert!(kinds("Show customers with at most 2 orders").contains(&"comparison"));
        assert!(!kinds("Show customers with at most 2 orders").contains(&"extreme"));
        assert_eq!(kinds("List the name of each singer"), ["all_rows"], "\"each\" without an aggregate is not grouping");
    }

    #[test]
    fn verification_reads_the_ast() {
        assert!(holds("What are the top 3 products by price?", "SELECT name FROM p ORDER BY price DESC LIMIT 3"));
        assert!(!holds("What are the top 3 products by price?", "SELECT name FROM p ORDER BY price DESC LIMIT 5"));
        // a credit_limit column is not a LIMIT
        assert!(!holds("Top 3 customers by credit", "SELECT credit_limit FROM customers ORDER BY credit_limit DESC"));
        assert!(holds("How many singers are there?", "SELECT count(*) FROM singer"));
        assert!(!holds("How many singers are there?", "SELECT name FROM singer"));
        // "older than 30" is a comparison too
        assert!(holds("Which singers are older than 30?", "SELECT name FROM singer WHERE age > 30"));
        assert!(!holds("Which singers are older than 30?", "SELECT name FROM singer"));
        assert!(holds("Singers with more than 3 albums", "SELECT s.name FROM s JOIN a ON a.sid = s.id GROUP BY s.name HAVING count(*) > 3"));
        assert!(!holds("Singers with more than 3 albums", "SELECT s.name FROM s JOIN a ON a.sid = s.id GROUP BY s.name HAVING count(*) < 3"));
        assert!(holds("Which students never took a course?", "SELECT id FROM s WHERE id NOT IN (SELECT sid FROM t)"));
        assert!(!holds("Which students never took a course?", "SELECT id FROM s"));
        assert!(holds("Find stadiums opened in 2014", "SELECT name FROM stadium WHERE year = 2014"));
        assert!(!holds("Find stadiums opened in 2014", "SELECT name FROM stadium WHERE year = 2015"));
        assert!(holds("Find songs in 'English'", "SELECT title FROM songs WHERE lang = 'english'"));
        assert!(holds("What is the average age for each country?", "SELECT country, avg(age) FROM s GROUP BY country"));
        assert!(!holds("What is the average age for each country?", "SELECT avg(age) FROM s"));
    }

    #[test]
    fn a_quoted_value_written_otherwise_in_the_sql_is_used() {
        let holds = |q: &str, sql: &str| kind_holds("literal", q, sql);
        // spaces and punctuation
        assert!(holds("Which hotels are not in 'Lyon,France'?", "SELECT name FROM hotel WHERE city <> 'Lyon , France'"));
        // one edit in a value of six letters or more: the data check judges which spelling is stored
        assert!(holds("Which drugs act as an 'inhibitor'?", "SELECT name FROM drug WHERE action = 'inhibiter'"));
        // a quoted column name, as the SQL names it
        assert!(holds("What is 'the order date' of order 7?", "SELECT order_date FROM orders WHERE id = 7"));
        // another value, or a short one misspelt, is not the quoted one
        assert!(!holds("Which drugs act as an 'inhibitor'?", "SELECT name FROM drug WHERE action = 'agonist'"));
        assert!(!holds("Books by 'Amos'", "SELECT title FROM books WHERE author = 'Amis'"));
        assert!(!holds("Which hotels are in 'Lyon'?", "SELECT name FROM hotel"));
    }

    #[test]
    fn a_rate_stored_per_unit_is_no_grouping() {
        let holds = |q: &str, sql: &str| kind_holds("grouping", q, sql);
        assert!(kinds("What is the average pages per minute of the printers?").contains(&"grouping"));
        assert!(holds("What is the average pages per minute of the printers?", "SELECT avg(pages_per_minute) FROM printer"));
        assert!(holds("What is the average number of goals per match of the players?", "SELECT avg(goal_per_match) FROM player"));
        // no such column: a group per the thing named
        assert!(!holds("What is the average price per category?", "SELECT avg(price) FROM products"));
        assert!(holds("What is the average price per category?", "SELECT category, avg(price) FROM products GROUP BY category"));
    }

    #[test]
    fn a_limit_needs_an_order() {
        let f = |sql: &str| sql_checks(&facts_of(sql, SqlDialect::Postgres).unwrap(), "Which authors are from Nigeria?");
        assert_eq!(f("SELECT a FROM t LIMIT 5").len(), 1);
        assert!(f("SELECT a FROM t ORDER BY a LIMIT 5").is_empty());
        assert!(f("SELECT a FROM t").is_empty());
    }

    #[test]
    fn every_constraint_records_its_phrase() {
        for c in extract("How many different countries have more than two singers, not counting those born in 1990?", None) {
            assert!(!c.phrase.is_empty(), "{c:?}");
        }
    }

    #[test]
    fn a_share_is_answered_by_the_column_that_stores_it() {
        let holds = |q: &str, sql: &str| kind_holds("percentage", q, sql);
        // a column named after what the share is of, read as it is
        assert!(holds("What is the percentage of hispanics in cities with the black percentage higher than 10?",
            "SELECT hispanic FROM city WHERE black > 10"));
        assert!(holds("Which five cities have the greatest proportion of white people?",
            "SELECT name FROM city ORDER BY white DESC LIMIT 5"));
        assert!(holds("Which district has the highest Asian percentage?", "SELECT d.name FROM district AS d ORDER BY d.asian DESC LIMIT 1"));
        // a table of that name is no stored share, and a count is no share
        assert!(!holds("What percentage of students are female?", "SELECT count(*) FROM students WHERE sex = 'F'"));
        assert!(!holds("What percentage of students are female?", "SELECT count(*) FROM student AS students WHERE sex = 'F'"));
        // one thing to another: a division, whatever the columns are named
        assert!(!holds("What is the ratio of wins to losses?", "SELECT wins FROM team"));
        assert!(!holds("What is the proportion of wins to losses of each team?", "SELECT name, wins FROM team"));
        assert!(holds("What is the ratio of wins to losses?", "SELECT wins::numeric / losses FROM team"));
    }

    #[test]
    fn a_count_is_answered_by_the_column_that_stores_it() {
        let holds = |q: &str, sql: &str| kind_holds("count", q, sql);
        assert!(holds("How many kids stay in the room reserved by Roy Sweazy?", "SELECT r.kids FROM reservations AS r WHERE r.lastname = 'SWEAZY'"));
        assert!(holds("What is the number of faculty lines at Long Beach in 2002?", "SELECT faculty FROM faculty WHERE year = 2002"));
        // the stored column must be returned, and be the thing counted
        assert!(!holds("How many customers are there?", "SELECT name FROM customers"));
        assert!(!holds("How many orders did Ada place?", "SELECT order_total FROM orders"));
        // an average of counts is no count
        assert!(!kinds("How many songs, on average, does a female artist sing?").contains(&"count"));
    }

    #[test]
    fn a_count_asked_beside_other_columns_is_a_count() {
        let holds = |q: &str, sql: &str| kind_holds("count", q, sql);
        let q = "List each warehouse region and the number of shipments sent from it.";
        assert!(kinds(q).contains(&"count"), "{:?}", kinds(q));
        assert!(holds(q, "SELECT w.region, count(*) FROM shipments s JOIN warehouses w ON w.id = s.warehouse_id GROUP BY w.region"));
        assert!(!holds(q, "SELECT DISTINCT region FROM warehouses"));
        assert!(kinds("Give every supplier's name along with how many invoices it issued").contains(&"count"));
        // a stored number of the thing counted answers it, wherever its name puts the noun
        assert!(holds("Show the clubs with their number of members", "SELECT name, member_count FROM clubs"));
        assert!(holds("Which drivers raced, and how many years has each raced?", "SELECT name, years_raced FROM drivers"));
        // a key names one of the things, it counts none
        assert!(!holds("Show each ticket with the number of seats", "SELECT ticket_no, seat_id FROM tickets"));
        // no count asked: "number" as an attribute of the row
        assert!(!kinds("List the name and phone number of every branch").contains(&"count"));
    }

    #[test]
    fn the_thing_a_distinct_phrase_tells_apart_is_the_word_after_it() {
        assert_eq!(distinct_noun("How many different colleges are there?").as_deref(), Some("colleges"));
        assert_eq!(distinct_noun("Find the number of DISTINCT stages in claim processing.").as_deref(), Some("stages"));
        // "different from" and "unique id" ask for no DISTINCT; the next phrase that does is read
        assert_eq!(distinct_noun("Which cities are different from Paris?"), None);
        assert_eq!(distinct_noun("List the unique id and the distinct names of the pets").as_deref(), Some("names"));
        assert_eq!(distinct_noun("Wie viele verschiedene Hochschulen gibt es?"), None);
    }

    #[test]
    fn a_count_of_each_is_a_count_per_group() {
        let holds = |q: &str, sql: &str| kind_holds("grouping", q, sql);
        let q = "How many parcels does each courier deliver?";
        assert!(kinds(q).contains(&"grouping"), "{:?}", kinds(q));
        assert!(holds(q, "SELECT courier_id, count(*) FROM parcels GROUP BY courier_id"));
        assert!(!holds(q, "SELECT count(*) FROM parcels"));
        // a count stored per row answers it with no aggregate
        assert!(holds(q, "SELECT name, parcels_delivered FROM couriers"));
        assert!(kinds("Show every depot and the number of vans parked at each.").contains(&"grouping"));
        // an average of what each has is one number over them all
        assert!(!kinds("How many vans, on average, does each depot own?").contains(&"grouping"));
        // "each" with no count asked is no grouping
        assert!(!kinds("List the name of each courier").contains(&"grouping"));
    }

    #[test]
    fn the_requirement_says_whether_the_bound_holds_its_value() {
        let requirement = |q: &str| extract(q, None).into_iter().find(|c| c.name() == "comparison").expect("a comparison").requirement();
        // "at least 2" once asked the model for `> 2`, which leaves out 2 itself
        assert!(requirement("Which depots own at least 2 vans?").ends_with("a condition >= 2"));
        assert!(requirement("Which depots own more than 2 vans?").ends_with("a condition > 2"));
        assert!(requirement("Which depots own at most three vans?").ends_with("a condition <= 3"));
        assert!(requirement("Which depots own no more than 3 vans?").ends_with("a condition <= 3"));
        assert!(requirement("Which depots own fewer than 3 vans?").ends_with("a condition < 3"));
        assert!(requirement("Which depots own not less than 3 vans?").ends_with("a condition >= 3"));
        // the check itself keeps its tolerance of one either way (Spider's golds; see `verify`)
        let sql = "SELECT depot FROM vans GROUP BY depot HAVING count(*) > 2";
        assert!(kind_holds("comparison", "Which depots own at least 2 vans?", sql));
    }

    #[test]
    fn at_least_one_is_existence_not_a_bound() {
        assert!(!kinds("Which customers placed at least one order?").contains(&"comparison"));
        assert!(!kinds("Which products are dearer than at least one product in the toys category?").contains(&"comparison"));
        assert!(kinds("Which customers placed at least two orders?").contains(&"comparison"));
        assert!(kinds("Which customers placed more than one order?").contains(&"comparison"));
    }

    #[test]
    fn sort_orders_are_no_extremes() {
        for q in [
            "List the clubs starting with the oldest",
            "List the students ordered by age from greatest to least",
            "List the years from oldest to most recent",
            "Show all manufacturers sorted by the ones with highest revenue first",
            "Show the churches that hosted least 2 weddings",
        ] {
            assert!(!kinds(q).contains(&"extreme"), "{q}: {:?}", kinds(q));
        }
        assert!(kinds("Which club is the oldest?").contains(&"extreme"));
        assert!(kinds("Show the manufacturer with the highest revenue").contains(&"extreme"));
        assert!(kinds("What is the first name of the oldest student?").contains(&"extreme"));
    }
}
