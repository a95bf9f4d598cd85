//! Whether the database can answer a question at all, decided from evidence before any SQL is
//! written.
//!
//! Four kinds of question get no SQL: one about data the schema has no place for (a column or an
//! entity that does not exist, or exists only under a name that merely looks like it), one that
//! asks for what SQL over stored data cannot give (advice, an opinion, a prediction, a cause), one
//! of general knowledge unrelated to the database, and one that needs knowledge the database does
//! not store. A question whose *values* are absent ("orders from Atlantis") is answerable: its
//! answer is no rows.
//!
//! The evidence ([`Evidence`]): every content word of the question ([`words`]) linked to a table,
//! a column, a stored value, or nothing ([`link`]); and the lexicon's patterns of questions beyond
//! the data ([`crate::lexicon::beyond_data`]). A pattern decides alone (it names what is asked);
//! words that link to nothing are a suspicion the model is asked to confirm ([`ModelVote`]), and a
//! question is refused when both say so ([`decide`]); when the model reads the words as the
//! schema's, the query it writes is judged as a third piece of evidence ([`written`]). A question
//! in which every word links is never refused, whatever the model says.

pub mod link;
pub mod words;
pub mod written;

use serde::Serialize;
use serde_json::{json, Value};

use crate::lexicon::{self, BeyondData};
use link::{Link, Name};

/// The cosine similarity at which a word links to the nearest name by meaning (all-MiniLM-L6-v2
/// embeddings of the word and of the name's words), tuned on the `tune` half of Benchmark 10.
pub const MEANING_THRESHOLD: f32 = 0.6;

/// Why a question cannot be answered from the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The schema has no place for something the question asks about.
    MissingData,
    /// Advice, an opinion, a prediction or a cause: not a query over stored data.
    BeyondData,
    /// General knowledge, unrelated to the database.
    GeneralKnowledge,
    /// Knowledge about the database's things that the database does not store.
    OutsideKnowledge,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::MissingData => "missing_data",
            Kind::BeyondData => "beyond_data",
            Kind::GeneralKnowledge => "general_knowledge",
            Kind::OutsideKnowledge => "outside_knowledge",
        }
    }

    fn parse(s: &str) -> Option<Kind> {
        match s {
            "missing_data" => Some(Kind::MissingData),
            "beyond_data" | "beyond_sql" => Some(Kind::BeyondData),
            "general_knowledge" => Some(Kind::GeneralKnowledge),
            "outside_knowledge" => Some(Kind::OutsideKnowledge),
            _ => None,
        }
    }
}

/// What the question and the schema show, before the model is asked anything.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    /// Every content word, linked or not.
    pub links: Vec<Link>,
    /// A pattern of a question beyond the data, with the words that matched it.
    pub beyond: Option<(BeyondData, String)>,
    /// Does the question read as English? Words of another language link to nothing in an
    /// English lexicon, which is no evidence: only an English question is judged by its links.
    pub english: bool,
    /// Proper names of the question that no stored value the value index matched contains
    /// ("Microsoft" where no column stores it).
    pub unmatched_names: Vec<String>,
}

/// What the evidence alone suggests.
#[derive(Debug, Clone, PartialEq)]
pub enum Suspicion {
    /// A pattern of a question beyond the data: decided without the model.
    Beyond(BeyondData, String),
    /// Content words, none of which links: nothing in the question is about this database.
    Unrelated(Vec<String>),
    /// Some content words link to nothing (those listed).
    Missing(Vec<String>),
}

impl Evidence {
    /// Link `question`'s content words to `names` (see [`link::link`]) and read the lexicon's
    /// patterns of questions beyond the data.
    pub fn gather(question: &str, names: &[Name], values: &[(String, String)], nearest: &mut dyn FnMut(&str) -> Vec<(String, f32)>, threshold: f32) -> Evidence {
        let words = words::content_words(question);
        // a pattern whose words name something of the schema reads the schema, not a request for
        // advice: "the recommendations of each incident" where a column stores recommendations
        // (the pattern's own words are the first and the last of what it matched), named as
        // written, not abbreviated (`authorder` does not name "deserves")
        // "best" or "worst" is a stored measure only when a column that is no key or code names
        // it ("best_finish", "the worst credit score"): "the best writer" where the authors' table
        // says they are writers, or "the best author" beside `author_id`, ranks by nothing the
        // data holds
        let measure = |n: &link::Name| n.shown.contains('.') && !n.tokens.iter().any(|t| matches!(t.as_str(), "id" | "ids" | "code" | "key"));
        // new text to be written is asked with a verb and a kind of text, which a schema may well
        // name ("draft a reminder email" beside an `email_address`): it is never the schema's
        // a definition asked is the schema's when any word of the term names it ("What does the
        // abbreviation UAL stand for?" beside an `abbreviation` column), the words of asking aside
        let beyond = lexicon::beyond_data(question).filter(|(kind, phrase)| {
            if *kind == BeyondData::Writing {
                return true;
            }
            let words: Vec<&str> = phrase.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
            let columns_only = lexicon::best_or_worst(*kind, phrase);
            let names_schema = |w: &&str| {
                !(*kind == BeyondData::Prediction && lexicon::TIME_AHEAD_WORDS.contains(w))
                    && w.len() >= 4
                    && names.iter().filter(|n| !columns_only || measure(n)).any(|n| n.tokens.iter().any(|t| link::matches_as_written(w, t) || link::same_stem(w, t)))
            };
            if *kind == BeyondData::Definition {
                return !words.iter().filter(|w| !lexicon::DEFINITION_FRAME.contains(w)).any(names_schema);
            }
            !(words.first().is_some_and(names_schema) || words.last().is_some_and(names_schema))
        });
        let unmatched_names = words::proper_names(question)
            .into_iter()
            .filter(|p| !values.iter().any(|(_, v)| v.to_lowercase().contains(&p.to_lowercase())))
            .collect();
        Evidence { links: link::link(&words, names, values, nearest, threshold), beyond, english: lexicon::reads_english(question), unmatched_names }
    }

    /// The content words that link to nothing and are no verb or adverb.
    pub fn unlinked(&self) -> Vec<&Link> {
        self.links.iter().filter(|l| l.to.is_none() && !l.soft).collect()
    }

    /// The content words that link to no name of the schema and raise no suspicion: verbs and
    /// adverbs that link to nothing, and words linked only by meaning. No evidence by themselves;
    /// an answer that names an output after one may present a stand-in
    /// ([`written::unnamed_stand_ins`]).
    pub fn loose(&self) -> Vec<String> {
        self.links
            .iter()
            .filter(|l| match &l.to {
                None => l.soft,
                Some((_, by)) => *by == link::LinkedBy::Meaning,
            })
            .map(|l| l.word.clone())
            .collect()
    }

    /// The verbs and adverbs of the question that link to nothing (part of [`Self::loose`]).
    pub fn soft(&self) -> Vec<String> {
        self.links.iter().filter(|l| l.to.is_none() && l.soft).map(|l| l.word.clone()).collect()
    }

    /// What the evidence alone suggests, if anything.
    pub fn suspicion(&self) -> Option<Suspicion> {
        if let Some((kind, phrase)) = &self.beyond {
            return Some(Suspicion::Beyond(*kind, phrase.clone()));
        }
        if !self.english {
            return None;
        }
        // nothing the question names is in the schema: not a word (verbs included), and no proper
        // name that a stored value holds ("Who founded Microsoft?")
        if self.links.iter().all(|l| l.to.is_none()) && !(self.links.is_empty() && self.unmatched_names.is_empty()) {
            let mut words: Vec<String> = self.links.iter().map(|l| l.word.clone()).collect();
            words.extend(self.unmatched_names.iter().cloned());
            return Some(Suspicion::Unrelated(words));
        }
        let unlinked: Vec<String> = self.unlinked().iter().map(|l| l.word.clone()).collect();
        if unlinked.is_empty() {
            return None;
        }
        if self.links.iter().all(|l| l.to.is_none()) {
            Some(Suspicion::Unrelated(unlinked))
        } else {
            Some(Suspicion::Missing(unlinked))
        }
    }

    /// The closest names of the schema to the words that link to nothing, in words: what might
    /// answer a nearby question.
    pub fn closest(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for l in self.unlinked() {
            for (name, _) in l.nearest.iter().take(2) {
                if !out.contains(name) {
                    out.push(name.clone());
                }
            }
        }
        out
    }

    /// The evidence as the audit log keeps it.
    pub fn to_json(&self) -> Value {
        json!({
            "links": self.links.iter().map(|l| json!({"word": l.word, "soft": l.soft,
                "to": l.to.as_ref().map(|(n, _)| n), "by": l.to.as_ref().map(|(_, b)| b),
                "nearest": l.nearest.iter().take(3).map(|(n, s)| json!([n, (s * 1000.0).round() / 1000.0])).collect::<Vec<_>>()})).collect::<Vec<_>>(),
            "beyond": self.beyond.as_ref().map(|(k, p)| json!({"kind": k, "phrase": p})),
            "unmatched_names": self.unmatched_names,
        })
    }
}

/// The model's judgement of whether the question can be answered from the schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelVote {
    pub answerable: bool,
    pub kind: Option<Kind>,
    /// What the database lacks, in the model's words.
    pub missing: String,
}

impl ModelVote {
    /// The kind of a refusal this "no" makes when it confirms that something is missing (outside
    /// or general knowledge when the model names it, missing data otherwise), and how a reason
    /// opens for that kind.
    pub fn refusal(&self) -> (Kind, &'static str) {
        match self.kind {
            Some(Kind::OutsideKnowledge) => (Kind::OutsideKnowledge, "the question needs knowledge the database does not store"),
            Some(Kind::GeneralKnowledge) => (Kind::GeneralKnowledge, "the question is about general knowledge, not this database"),
            _ => (Kind::MissingData, "the database has no place for what the question asks about"),
        }
    }

    /// What the model says is missing, as a reason quotes it (` (the model: …)`), or nothing.
    pub fn lacks(&self) -> String {
        if self.missing.is_empty() { String::new() } else { format!(" (the model: {})", self.missing) }
    }
}

/// The JSON schema of the model's answer.
pub fn vote_schema() -> Value {
    json!({"type": "object", "properties": {
        "answerable": {"type": "boolean"},
        "kind": {"type": "string", "enum": ["answerable", "missing_data", "outside_knowledge", "general_knowledge", "beyond_sql"]},
        "missing": {"type": "string", "maxLength": 200}},
        "required": ["answerable", "kind", "missing"]})
}

/// What the prompt asks the model to put in `"missing"` (`ask::prompts::scope`). A small model
/// sometimes copies it back as its answer, which says nothing of the question.
pub const MISSING_PROMPT: &str = "what the database lacks, in a few words";

/// The model's vote in its answer. A `"missing"` that only repeats what the prompt asked for
/// ([`MISSING_PROMPT`]) is no answer and is left empty, so no reason quotes it.
pub fn parse_vote(content: &str) -> Result<ModelVote, String> {
    let v = crate::llm::json::extract_json(content)?;
    let answerable = v.get("answerable").and_then(Value::as_bool).ok_or("no \"answerable\" boolean in the answer")?;
    let kind = v.get("kind").and_then(Value::as_str).and_then(Kind::parse);
    let mut missing: String = v.get("missing").and_then(Value::as_str).unwrap_or_default().trim().chars().take(200).collect();
    let bare = |t: &str| t.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    if bare(&missing) == bare(MISSING_PROMPT) {
        missing.clear();
    }
    Ok(ModelVote { answerable, kind, missing })
}

/// Words as the reasons quote them: `"satisfaction", "score"`.
pub fn quoted(words: &[String]) -> String {
    words.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(", ")
}

/// A question in the future tense whose query finds nothing in the data: what will happen is in
/// the data only when the data plans it (a schedule, an expiry date), and here it does not, so the
/// answer would be a prediction. `runs`: the query the run ended with runs; `empty`: its result
/// has no row. A query that returns rows answers the question from what is planned; one that fails
/// or finds nothing shows no plan to read. `None` for a question not in the future tense.
pub fn future(question: &str, runs: bool, empty: bool) -> Option<(Kind, String)> {
    if !lexicon::reads_english(question) {
        return None;
    }
    let phrase = lexicon::future_tense(question)?;
    if runs && !empty {
        return None;
    }
    let found = if runs { "its query finds no row for it, or counts or sums none" } else { "no query over it runs" };
    Some((
        Kind::BeyondData,
        format!(
            "the question asks about the future (\"{phrase}\") and the data holds no plan of it ({found}): a query can report what the data holds, not predict"
        ),
    ))
}

/// The verdict.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Answerable,
    /// Why not, in words that name what is missing and what is close.
    Unanswerable { kind: Kind, reason: String },
}

/// Decide from the evidence and, when the evidence raised a suspicion the model was asked to
/// confirm, the model's vote: a pattern beyond the data decides alone; words that link to nothing
/// need the model's agreement; no suspicion, no refusal.
pub fn decide(evidence: &Evidence, vote: Option<&ModelVote>) -> Verdict {
    match evidence.suspicion() {
        None => Verdict::Answerable,
        Some(Suspicion::Beyond(BeyondData::History, phrase)) => Verdict::Unanswerable {
            kind: Kind::GeneralKnowledge,
            reason: format!(
                "the question asks for a fact of history (\"{phrase}\"): general knowledge, which no table or column of this database records"
            ),
        },
        Some(Suspicion::Beyond(BeyondData::Definition, phrase)) => Verdict::Unanswerable {
            kind: Kind::GeneralKnowledge,
            reason: format!(
                "the question asks what a word or an abbreviation means (\"{phrase}\"): general knowledge, which no table or column of this database records"
            ),
        },
        Some(Suspicion::Beyond(BeyondData::Writing, phrase)) => Verdict::Unanswerable {
            kind: Kind::BeyondData,
            reason: format!("the question asks for new text to be written (\"{phrase}\"): a query reports what the data holds; it writes no text"),
        },
        Some(Suspicion::Beyond(kind, phrase)) => Verdict::Unanswerable {
            kind: Kind::BeyondData,
            reason: format!(
                "the question asks for {} (\"{phrase}\"): a query can report what the data holds, not judge, advise, predict or explain causes",
                kind.words()
            ),
        },
        Some(suspicion) => {
            let Some(vote) = vote.filter(|v| !v.answerable) else { return Verdict::Answerable };
            let closest = evidence.closest();
            let close = if closest.is_empty() { String::new() } else { format!("; the closest in the schema: {}", closest.join(", ")) };
            let lacks = vote.lacks();
            match suspicion {
                Suspicion::Unrelated(words) => Verdict::Unanswerable {
                    kind: match vote.kind {
                        Some(Kind::OutsideKnowledge) => Kind::OutsideKnowledge,
                        _ => Kind::GeneralKnowledge,
                    },
                    reason: format!("nothing the question names is in this database: no table, column or stored value matches {}{lacks}", quoted(&words)),
                },
                Suspicion::Missing(words) => {
                    let (kind, what) = vote.refusal();
                    Verdict::Unanswerable { kind, reason: format!("{what}: no table, column or stored value holds {}{lacks}{close}", quoted(&words)) }
                }
                Suspicion::Beyond(..) => unreachable!("decided above"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::bookshop;

    fn evidence(q: &str) -> Evidence {
        Evidence::gather(q, &link::names(&bookshop()), &[], &mut |w: &str| if w == "satisfaction" { vec![("orders.ordered_on".into(), 0.31)] } else { vec![] }, 0.6)
    }

    fn no(kind: Option<Kind>) -> ModelVote {
        ModelVote { answerable: false, kind, missing: "customer satisfaction scores".into() }
    }

    #[test]
    fn every_word_linked_is_answerable_whatever_the_model_says() {
        let e = evidence("Which customers from Atlantis placed orders?");
        assert_eq!(e.suspicion(), None);
        assert_eq!(decide(&e, Some(&no(Some(Kind::MissingData)))), Verdict::Answerable);
    }

    #[test]
    fn words_that_link_to_nothing_need_the_model_to_agree() {
        let e = evidence("What is the average customer satisfaction score?");
        assert_eq!(e.suspicion(), Some(Suspicion::Missing(vec!["satisfaction".into(), "score".into()])));
        assert_eq!(decide(&e, None), Verdict::Answerable);
        assert_eq!(decide(&e, Some(&ModelVote { answerable: true, kind: None, missing: String::new() })), Verdict::Answerable);
        match decide(&e, Some(&no(Some(Kind::MissingData)))) {
            Verdict::Unanswerable { kind, reason } => {
                assert_eq!(kind, Kind::MissingData);
                assert_eq!(
                    reason,
                    "the database has no place for what the question asks about: no table, column or stored value holds \"satisfaction\", \"score\" (the model: customer satisfaction scores); the closest in the schema: orders.ordered_on"
                );
            }
            other => panic!("{other:?}"),
        }
        // the model may say it needs outside knowledge
        assert!(matches!(decide(&e, Some(&no(Some(Kind::OutsideKnowledge)))), Verdict::Unanswerable { kind: Kind::OutsideKnowledge, .. }));
    }

    #[test]
    fn nothing_linked_is_general_knowledge_and_patterns_decide_alone() {
        let e = evidence("What is the boiling point of water?");
        assert!(matches!(e.suspicion(), Some(Suspicion::Unrelated(_))));
        assert!(matches!(decide(&e, Some(&no(None))), Verdict::Unanswerable { kind: Kind::GeneralKnowledge, .. }));
        let e = evidence("Which author will sell the most books next year?");
        match decide(&e, None) {
            Verdict::Unanswerable { kind: Kind::BeyondData, reason } => assert!(reason.starts_with("the question asks for a prediction"), "{reason}"),
            other => panic!("{other:?}"),
        }
        let e = evidence("Why do customers in Paris order fewer books?");
        assert!(matches!(decide(&e, None), Verdict::Unanswerable { kind: Kind::BeyondData, .. }));
    }

    #[test]
    fn a_question_naming_nothing_of_the_schema_is_suspect_unless_a_value_holds_its_names() {
        let names = link::names(&bookshop());
        let e = Evidence::gather("Who owns Microsoft?", &names, &[], &mut |_| vec![], 0.6);
        assert_eq!(e.suspicion(), Some(Suspicion::Unrelated(vec!["owns".into(), "Microsoft".into()])));
        let values = vec![("customers.name".to_string(), "Ada Lovelace".to_string())];
        let e = Evidence::gather("Who is Ada?", &names, &values, &mut |_| vec![], 0.6);
        assert_eq!(e.suspicion(), None);
        // a word of the question that names the schema is enough
        let e = Evidence::gather("Which books are by Italo Calvino?", &names, &[], &mut |_| vec![], 0.6);
        assert_eq!(e.suspicion(), None);
    }

    #[test]
    fn a_pattern_whose_words_the_schema_holds_is_no_request() {
        let mut catalog = bookshop();
        catalog.tables[1].columns.push(crate::catalog::Column { name: "recommendations".into(), type_name: "text".into(), nullable: true, comment: None });
        let q = "Show the recommendations of the books by Austen.";
        assert!(lexicon::beyond_data(q).is_some());
        let e = Evidence::gather(q, &link::names(&catalog), &[], &mut |_| vec![], 0.6);
        assert_eq!((e.beyond.clone(), e.suspicion()), (None, None));
        // the same stem counts: authors who advise others, where a column names the advisor
        catalog.tables[0].columns.push(crate::catalog::Column { name: "advisor_id".into(), type_name: "integer".into(), nullable: true, comment: None });
        let q = "Which authors advise more than one other author?";
        assert!(lexicon::beyond_data(q).is_some());
        assert_eq!(Evidence::gather(q, &link::names(&catalog), &[], &mut |_| vec![], 0.6).beyond, None);
        // a name the schema only abbreviates is none: `authorder` splits into `author` and `der`,
        // whose letters "deserves" has in order, and still does not name it
        catalog.tables[0].columns.push(crate::catalog::Column { name: "authorder".into(), type_name: "integer".into(), nullable: true, comment: None });
        let q = "Which book deserves a prize?";
        let e = Evidence::gather(q, &link::names(&catalog), &[], &mut |_| vec![], 0.6);
        assert!(matches!(e.suspicion(), Some(Suspicion::Beyond(BeyondData::Opinion, _))), "{q}: {:?}", e.beyond);
    }

    #[test]
    fn how_a_thing_could_be_done_is_advice_whatever_the_schema_names_its_subject() {
        // "books" and "authors" are tables of the bookshop: the subject is no word of the phrase
        for q in ["How can books sell more copies?", "How should authors price their books?"] {
            let e = evidence(q);
            assert!(matches!(e.suspicion(), Some(Suspicion::Beyond(BeyondData::Advice, _))), "{q}: {:?}", e.beyond);
        }
        assert_eq!(evidence("How can authors list their books by genre?").beyond, None);
    }

    /// `q` on the bookshop raises the pattern `beyond` and is refused as `kind`, its reason
    /// opening with `reason_start`.
    fn refused_by_pattern(q: &str, beyond: BeyondData, kind: Kind, reason_start: &str) {
        let e = evidence(q);
        assert!(matches!(e.suspicion(), Some(Suspicion::Beyond(b, _)) if b == beyond), "{q}: {:?}", e.beyond);
        match decide(&e, None) {
            Verdict::Unanswerable { kind: k, reason } => {
                assert_eq!(k, kind, "{q}");
                assert!(reason.starts_with(reason_start), "{reason}");
            }
            other => panic!("{q}: {other:?}"),
        }
    }

    #[test]
    fn who_invented_a_thing_is_general_knowledge_unless_the_schema_records_it() {
        for q in ["Who invented the paperback?", "Who first discovered printing?", "Who founded the first bookshop?", "Name the inventor of the e-reader."] {
            refused_by_pattern(q, BeyondData::History, Kind::GeneralKnowledge, "the question asks for a fact of history (\"");
        }
        // a column that records it: the question is the schema's ("invented" and `inventor`
        // share a stem, as "founded" and `founder` do)
        let mut catalog = bookshop();
        catalog.tables[1].columns.push(crate::catalog::Column { name: "inventor".into(), type_name: "text".into(), nullable: true, comment: None });
        catalog.tables[0].columns.push(crate::catalog::Column { name: "founder_of".into(), type_name: "text".into(), nullable: true, comment: None });
        let names = link::names(&catalog);
        for q in ["Who invented the most books?", "Who founded the most bookshops?", "List the inventors of books before 1900."] {
            assert!(lexicon::beyond_data(q).is_some(), "{q}");
            assert_eq!(Evidence::gather(q, &names, &[], &mut |_| vec![], 0.6).beyond, None, "{q}");
        }
    }

    #[test]
    fn a_definition_asked_is_general_knowledge_unless_the_schema_names_the_term() {
        for q in [
            "What is a mortgage?",
            "what's an ebook",
            "What does the abbreviation ISBN stand for?",
            "What does HTML mean?",
            "Define the term royalty.",
            "What is meant by a first edition?",
        ] {
            refused_by_pattern(q, BeyondData::Definition, Kind::GeneralKnowledge, "the question asks what a word or an abbreviation means (\"");
        }
        // a term the schema names is the schema's (here `authors` and `city`)
        let names = link::names(&bookshop());
        for q in ["What is an author?", "What does the abbreviation city stand for?"] {
            assert!(matches!(lexicon::beyond_data(q), Some((BeyondData::Definition, _))), "{q}");
            assert_eq!(Evidence::gather(q, &names, &[], &mut |_| vec![], 0.6).beyond, None, "{q}");
        }
        // questions of the data: not definitions
        for q in [
            "What is the price of each book?",
            "What is a book's average price?",
            "What is an author's most recent book in 2020?",
            "What are the names of the authors?",
            "What does each customer order most often?",
            "Define a list of books under 10 euros by title.",
        ] {
            assert!(!matches!(lexicon::beyond_data(q), Some((BeyondData::Definition, _))), "{q}");
        }
    }

    #[test]
    fn a_request_to_write_new_text_is_beyond_the_data() {
        for q in [
            "Write a catchy tagline for each book.",
            "Draft a polite reminder email to the customers with the most orders.",
            "Summarize the content of each book in one sentence.",
            "Translate the titles of the books into French.",
            "Compose a short poem about our authors.",
        ] {
            refused_by_pattern(q, BeyondData::Writing, Kind::BeyondData, "the question asks for new text to be written (\"");
        }
        // a kind of text the schema names (customers have an email) is still one to be written
        let mut catalog = bookshop();
        catalog.tables[2].columns.push(crate::catalog::Column { name: "email_address".into(), type_name: "text".into(), nullable: true, comment: None });
        let q = "Draft a polite reminder email to the customers from Paris.";
        let e = Evidence::gather(q, &link::names(&catalog), &[], &mut |_| vec![], 0.6);
        assert!(matches!(e.suspicion(), Some(Suspicion::Beyond(BeyondData::Writing, _))), "{q}: {:?}", e.beyond);
        // writing as listing, or asking for SQL, is a request for data
        for q in [
            "Write down the titles of the books by Austen.",
            "Write the names of the customers from Paris.",
            "Write a query that lists the books under 10 euros.",
            "Write an SQL statement counting the orders of each customer.",
            "Write a query returning the description of each book.",
            "Summarize the orders by city.",
        ] {
            assert_eq!(lexicon::beyond_data(q), None, "{q}");
        }
    }

    #[test]
    fn a_prediction_stays_one_when_the_schema_names_its_time_words() {
        let mut catalog = bookshop();
        catalog.tables[0].columns.push(crate::catalog::Column { name: "next_entry_id".into(), type_name: "integer".into(), nullable: true, comment: None });
        catalog.tables[0].columns.push(crate::catalog::Column { name: "since_year".into(), type_name: "integer".into(), nullable: true, comment: None });
        let names = link::names(&catalog);
        for q in ["Which book will sell best next year?", "Which author will have the most books in five years?"] {
            let e = Evidence::gather(q, &names, &[], &mut |_| vec![], 0.6);
            assert!(matches!(e.suspicion(), Some(Suspicion::Beyond(BeyondData::Prediction, _))), "{q}: {:?}", e.beyond);
        }
        // a forecast the schema stores is its data
        catalog.tables[0].columns.push(crate::catalog::Column { name: "sales_forecast".into(), type_name: "integer".into(), nullable: true, comment: None });
        let e = Evidence::gather("What is the sales forecast of each book?", &link::names(&catalog), &[], &mut |_| vec![], 0.6);
        assert_eq!(e.beyond, None);
    }

    #[test]
    fn best_or_worst_by_a_measure_the_schema_stores_is_no_opinion() {
        let mut catalog = bookshop();
        catalog.tables[0].columns.push(crate::catalog::Column { name: "best_rank".into(), type_name: "integer".into(), nullable: true, comment: None });
        catalog.tables[1].columns.push(crate::catalog::Column { name: "review_score".into(), type_name: "integer".into(), nullable: true, comment: None });
        let names = link::names(&catalog);
        // the schema names the measure: "best" itself, or the word after "worst"
        for q in ["What is the best rank of each author?", "Which book has the worst review score?"] {
            assert!(lexicon::beyond_data(q).is_some(), "{q}");
            assert_eq!(Evidence::gather(q, &names, &[], &mut |_| vec![], 0.6).beyond, None, "{q}");
        }
        // nothing names what makes a book the best, nor an author: a table's name is what is
        // ranked, not by what
        let e = Evidence::gather("Which book is the best gift for a child?", &link::names(&bookshop()), &[], &mut |_| vec![], 0.6);
        assert!(matches!(e.suspicion(), Some(Suspicion::Beyond(BeyondData::Opinion, ref p)) if p == "best gift"), "{:?}", e.beyond);
        let e = Evidence::gather("Which is the best author?", &link::names(&bookshop()), &[], &mut |_| vec![], 0.6);
        assert!(matches!(e.suspicion(), Some(Suspicion::Beyond(BeyondData::Opinion, ref p)) if p == "best author"), "{:?}", e.beyond);
        // a German question's "best" is no English word
        assert_eq!(lexicon::beyond_data("Welches Buch ist das beste?"), None);
        // lower-casing that moves byte offsets and keeps the length ("İ" one byte longer in lower
        // case, "ẞ" one shorter) never splits a character: here the match's offset in the
        // lower-cased text falls inside the em space after "best" in the question as written
        let q = "İİİİİİ best\u{2003}xy ẞẞẞẞẞẞ";
        assert_eq!(q.len(), q.to_lowercase().len());
        assert!(!q.is_char_boundary(q.to_lowercase().find("best").unwrap()));
        assert!(lexicon::beyond_data(q).is_some());
    }

    #[test]
    fn the_future_is_answered_only_from_what_the_data_plans() {
        let q = "How much will the campus fees be in 2030?";
        assert_eq!(lexicon::future_tense(q).as_deref(), Some("will the campus fees be"));
        // rows: the data plans it (a schedule); no row, or no query that runs: a prediction
        assert_eq!(future("Which flights will depart tomorrow morning from Oslo?", true, false), None);
        match future(q, true, true) {
            Some((Kind::BeyondData, reason)) => assert!(reason.contains("\"will the campus fees be\"") && reason.contains("finds no row"), "{reason}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(future("Which customers will damage the products they hire?", false, false), Some((Kind::BeyondData, _))));
        assert!(matches!(future("Which orders won't ship this week?", true, true), Some((Kind::BeyondData, _))));
        // "will" as a noun, and questions in no future tense
        for q in ["Who wrote the will of the founder?", "Which heirs are named in a will?", "How many orders shipped in 2020?", "Wie viele Bestellungen will er?"] {
            assert_eq!(future(q, true, true), None, "{q}");
        }
    }

    #[test]
    fn a_question_in_another_language_is_not_judged_by_its_links() {
        let e = evidence("Wie viele Bücher gibt es?");
        assert!(!e.english && e.links.iter().all(|l| l.to.is_none()));
        assert_eq!(decide(&e, Some(&no(None))), Verdict::Answerable);
    }

    #[test]
    fn the_models_vote_is_read_from_json() {
        let v = parse_vote(r#"{"answerable": false, "kind": "missing_data", "missing": "  salaries "}"#).unwrap();
        assert_eq!(v, ModelVote { answerable: false, kind: Some(Kind::MissingData), missing: "salaries".into() });
        assert_eq!(parse_vote(r#"{"answerable": true, "kind": "answerable", "missing": ""}"#).unwrap().kind, None);
        assert!(parse_vote(r#"{"kind": "x"}"#).is_err());
        // the prompt's own words copied back say nothing
        let echoed = parse_vote(r#"{"answerable": false, "kind": "missing_data", "missing": "What the database lacks, in a few words."}"#).unwrap();
        assert_eq!((echoed.answerable, echoed.missing.as_str()), (false, ""));
        assert!(parse_vote("yes").is_err());
    }

    #[test]
    fn beyond_the_data_is_told_from_ordinary_questions() {
        for q in [
            "Which apartment building would be the best investment?",
            "Should we hire more technicians?",
            "Which film would you recommend for tonight?",
            "Who will win the next election?",
            "How many trips will start at San Jose stations next month?",
            "Which customers are likely to stop buying from us?",
            "Why did the perpetrators commit their crimes?",
            "Which decoration theme is the most beautiful?",
            "Which airline is the safest to fly with?",
            "How can we prevent software problems in the future?",
            "How could hospitals shorten their waiting times?",
            "How should the library spend its budget?",
            "Which film should have won the award?",
            "Which restaurant would we enjoy the most?",
            "Which chef makes the best pasta?",
            "Who is the worst driver in the league?",
            "Which city is the best place to live?",
            "Who invented the telephone?",
            "Who discovered penicillin?",
            "Which singer should headline the festival next year?",
            "Which department should receive more funding?",
            "Which teacher is the most inspiring?",
            "Which hotels are the least welcoming?",
            "Which browser will have the largest market share in five years?",
            "Is the base price of the rooms too high for the market?",
            "What would happen to sales if every price were cut by half?",
            "How many visitors would come if the gallery were open on Sundays?",
            "If the bank had more branches, how many customers would it have?",
            "Which catalog entries would sell better at a lower price?",
            "Which stores would earn more with longer opening hours?",
            "Which gymnast has the most graceful floor routine?",
            "Which song has the least colourful arrangement?",
        ] {
            assert!(lexicon::beyond_data(q).is_some(), "{q}");
        }
        for q in [
            "Which employees will have worked here for 10 years?",
            "What is the most popular genre?",
            "Which students should graduate in 2020?",
            "Which order should arrive after 3 days?",
            "Which product is the most expensive?",
            "Which country is the most populous?",
            "How can I find the orders placed from Paris?",
            "How do we list the customers by city?",
            "How can the store manager list the orders from Paris?",
            "How could analysts see the trips by station?",
            "Who are the nominees that were nominated at least two times?",
            "What are the names of the best 3 players?",
            // "should have" and a noun phrase: a condition on what is stored, not a judgement
            "List the invoices that should have a payment date before March.",
            "Which wells should have more than 3 inspections on record?",
            "When was the last reading of a sensor that should have 2 calibrations?",
            // "best" ranked by a number, a measure, or in a name
            "Which are the worst 5 warehouses by stock?",
            "List the best-selling albums.",
            "Which books are best sellers this year?",
            "Which stores belong to Best Buy?",
            // founded, discovered, an inventory: what the data records
            "Which schools were founded before 1850?",
            "When was the school with the largest enrollment founded?",
            "How many planets were discovered after 1990?",
            "Show the inventory of each store.",
            // "would" without a condition otherwise, "if" without "would": what is stored
            "How many players would remain in their position when the team attacked?",
            "State if they were admitted to hospital.",
        ] {
            assert!(lexicon::beyond_data(q).is_none(), "{q}");
        }
    }
}
