//! The `scope` stage of the ask pipeline: whether the database can answer the question at all,
//! before any SQL is written (the decision is [`crate::scope`]'s; this is where its evidence is
//! gathered and recorded).
//!
//! The meaning of the schema's names comes from embeddings of their words, stored in the database
//! the first time they are needed (`Database::store_embeddings`) and read back afterwards, so a
//! schema's names are embedded once, not per question; a renamed column is a new text, embedded
//! on its first use.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use sqlparser::ast::Query;

use super::pipeline::Ask;
use super::prompts;
use crate::effects::{Database, Model};
use crate::error::Result;
use crate::llm::ChatRequest;
use crate::result::Outcome;
use crate::scope::written::Gap;
use crate::scope::{self, link, quoted, Evidence, Verdict, MEANING_THRESHOLD};
use crate::trace::{Stage, Status};

/// What was found that puts an answer to the model's vote ([`Ask::answer_scope`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Found {
    /// A check found that the query returns another thing than was asked.
    AnotherThing,
    /// Readings of the question looked for names the database has nowhere.
    InventedNames,
}

impl Found {
    /// How the prompt introduces the findings.
    fn lead(self) -> &'static str {
        match self {
            Found::AnotherThing => "A check of that query found that it returns another thing than what the question asks for",
            Found::InventedNames => "Another reading of the question, written independently, used a column that does not exist in the schema above",
        }
    }

    /// What the finding says, in the scope step's detail and the refusal's reason.
    fn summary(self) -> &'static str {
        match self {
            Found::AnotherThing => "the query written for it returns another thing than was asked",
            Found::InventedNames => "the readings of the question looked for what the database has no name for",
        }
    }

    /// The `by` of the scope step's data.
    fn by(self) -> &'static str {
        match self {
            Found::AnotherThing => "what the query written returns, and the model",
            Found::InventedNames => "the names the readings looked for, and the model",
        }
    }
}

/// Names of the schema compared with a word by meaning, the best shown.
const NEAREST: usize = 3;

/// The stand-ins an answer presents ([`Ask::unnamed_stand_ins`]): each output as written
/// (`COUNT(*) as "stream_count"`), and the question's words they are named after.
pub(super) struct StandIns {
    shown: Vec<String>,
    words: Vec<String>,
}

impl StandIns {
    /// The open problem: the answer is not verified (`unverified`, not `ok`).
    pub(super) fn problem(&self) -> String {
        format!(
            "it presents {}: named after {} of the question, which no table or column of the database names, and computed from what holds none of it",
            self.shown.join(", "),
            quoted(&self.words)
        )
    }
}

/// The open problem of an answer that reads nothing for words the vote let through (`left`,
/// [`Ask::unwritten_words`]); none when there are none.
pub(super) fn unwritten_problem(left: &[String]) -> Option<String> {
    let it = if left.len() == 1 { "it" } else { "them" };
    (!left.is_empty()).then(|| {
        format!(
            "the query reads nothing for {}: no table, column or stored value holds {it}, the model read {it} as the schema's, and no name the query reads or string it compares carries {it}",
            quoted(left)
        )
    })
}

/// How many words let through on the vote an answer must read nothing for to be refused
/// ([`Ask::unread_scope`]).
const UNREAD: usize = 2;

/// Distinct values at most a column stores for it to read as a closed list of categories
/// ([`Ask::common_value_scope`]). Read off `spider_train` (`answerability common`): of its 5,302
/// gold queries, 16 write common words of the question that the data holds nowhere, 15 over
/// empty tables (no list) and one over product names (more than 12: "product voluptatem"); the
/// answers to unanswerable questions it reaches compare lists of two to four categories.
const CATEGORIES: usize = 12;

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let (na, nb) = (a.iter().map(|x| x * x).sum::<f32>().sqrt(), b.iter().map(|x| x * x).sum::<f32>().sqrt());
    if na == 0.0 || nb == 0.0 { 0.0 } else { dot / (na * nb) }
}

impl<D: Database + ?Sized, M: Model + ?Sized> Ask<'_, '_, D, M> {
    /// Record a refusal as a `scope` step (`unanswerable`, with the query it read, if any, and
    /// what decided it in `data`), and hand it on: every rule of refusal ends so.
    fn refused(&mut self, kind: scope::Kind, reason: String, sql: Option<&str>, data: Value) -> Result<Option<(scope::Kind, String)>> {
        self.trace.step(Stage::Scope, Status::Unanswerable, reason.clone(), sql.map(str::to_string), data)?;
        Ok(Some((kind, reason)))
    }

    /// The `scope` stage. `Some(reason)` when the question cannot be answered: the run ends
    /// `unanswerable`.
    pub(super) fn scope(&mut self) -> Result<Option<(scope::Kind, String)>> {
        if !self.opts.refuse {
            self.trace.step(Stage::Scope, Status::Skipped, "refusal is off (option refuse, setting nl2sql.refuse): every question gets SQL", None, Value::Null)?;
            return Ok(None);
        }
        let names = link::names(&self.catalog);
        let words: Vec<String> = scope::words::content_words(self.question.text).into_iter().map(|w| w.text).collect();
        let (nearest, note) = match self.meanings(&names, &words) {
            Ok(n) => (n, None),
            Err(e) => (BTreeMap::new(), Some(format!("names were compared by their words only: no embeddings ({e})"))),
        };
        let evidence = Evidence::gather(self.question.text, &names, &self.value_hits, &mut |w: &str| nearest.get(w).cloned().unwrap_or_default(), MEANING_THRESHOLD);
        self.loose_words = evidence.loose();
        self.soft_words = evidence.soft();
        self.unheld_names = evidence.unmatched_names.clone();
        let mut data = json!({"evidence": evidence.to_json(), "note": note});
        let vote = match evidence.suspicion() {
            Some(scope::Suspicion::Missing(unlinked) | scope::Suspicion::Unrelated(unlinked)) => {
                let messages = prompts::scope(&self.schema.text, self.question.text, self.question.evidence, &unlinked);
                match self.vote(messages) {
                    Ok(v) => Some(v),
                    // the model could not be asked, or its answer is no vote: no refusal on the
                    // words alone
                    Err(e) => {
                        data["vote_error"] = json!(e);
                        None
                    }
                }
            }
            _ => None,
        };
        data["vote"] = json!(vote);
        match scope::decide(&evidence, vote.as_ref()) {
            Verdict::Answerable => {
                // a question whose words all link but that names what no stored value holds
                // ("states that voted Republican"): the query written shows whether the model
                // kept the name (its answer is no rows), put knowledge of its own in its place, or
                // left it out (the query answers another question)
                let unmatched = evidence.unmatched_names.clone();
                if evidence.english && !unmatched.is_empty() {
                    self.let_through = Some(Gap { unlinked: unmatched.clone(), names: unmatched.clone(), closest: Vec::new() });
                }
                let detail = match (&vote, evidence.suspicion()) {
                    (_, None) => format!("every word the question names links to the schema ({} words)", evidence.links.len()),
                    // the words the model was shown: those that link to nothing, or, when nothing
                    // links, every word the question names (verbs and unmatched names included)
                    (Some(v), Some(scope::Suspicion::Missing(words) | scope::Suspicion::Unrelated(words))) if v.answerable => {
                        self.let_through = Some(Gap { unlinked: words.clone(), names: unmatched, closest: evidence.closest() });
                        format!("{} link to nothing, but the model reads them as the schema's: answerable", quoted(&words))
                    }
                    _ => "some words link to nothing, and no vote confirmed it: answerable".into(),
                };
                self.trace.step(Stage::Scope, Status::Ok, detail, None, data)?;
                Ok(None)
            }
            Verdict::Unanswerable { kind, reason } => {
                data["kind"] = json!(kind);
                self.refused(kind, reason, None, data)
            }
        }
    }

    /// The model's vote on whether the database can answer (one short JSON answer to
    /// `messages`, [`scope::vote_schema`]): `Err` with why when the model cannot be asked or its
    /// answer is no vote.
    fn vote(&mut self, messages: Vec<crate::llm::Message>) -> std::result::Result<scope::ModelVote, String> {
        let request = ChatRequest {
            messages,
            temperature: 0.0,
            max_tokens: Some(120),
            json_schema: Some(("answerable".into(), scope::vote_schema())),
            seed: self.opts.seed,
            ..Default::default()
        };
        let reply = self.model.chat(request).map_err(|e| e.to_string())?;
        self.trace.count(&reply);
        scope::parse_vote(&reply.content)
    }

    /// The query the model wrote for an English question the scope stage let through with words
    /// that link to nothing (read by the vote as the schema's) or names that no stored value
    /// holds, judged as further evidence ([`scope::written`]): `Some` when it shows that the
    /// database cannot answer (a column that no table has, named after such a word, or a value
    /// the question does not name), recorded as a second `scope` step with the query.
    pub(super) fn written_scope(&mut self, sql: &str) -> Result<Option<(scope::Kind, String)>> {
        let Some(mut gap) = self.let_through.clone() else { return Ok(None) };
        let Ok(checked) = crate::sql::check_query(sql) else { return Ok(None) };
        // a name the value index did not match may still be stored (an index holds a column's
        // commonest values): one that the tables the query reads, or their neighbours, hold is
        // the data's, and leaving it out or replacing it is a mistake of the query's, not a gap
        let held = self.held_in_data(&gap.names, &checked.query);
        if !held.is_empty() {
            gap.names.retain(|n| !held.contains(n));
            gap.unlinked.retain(|w| !held.contains(w));
            if gap.names.is_empty() && gap.unlinked.is_empty() {
                return Ok(None);
            }
        }
        let curated = self.curated();
        let Some((kind, reason)) = scope::written::judge(&checked.query, &self.catalog, self.question.text, &gap, &self.value_hits, &curated) else {
            return Ok(None);
        };
        let data = json!({"kind": kind, "unlinked": gap.unlinked, "names": gap.names, "held": held, "by": "the query written"});
        self.refused(kind, reason, Some(sql), data)
    }

    /// What curators taught this database and the run was shown (the verified examples' SQL, the
    /// glossary's meanings and expressions, the example that asks the question again): its
    /// knowledge, not the model's.
    fn curated(&self) -> Vec<String> {
        let taught = &self.grounding.taught;
        let mut curated: Vec<String> = taught.examples.iter().map(|e| e.sql.clone()).collect();
        curated.extend(taught.terms.iter().flat_map(|t| std::iter::once(t.meaning.clone()).chain(t.sql.clone())));
        curated.extend(self.asked_again.iter().flat_map(|a| [a.example.sql.clone(), a.sql.clone()]));
        curated
    }

    /// The open problem of an answer that writes nothing for a word the scope stage let through
    /// on the model's vote ([`scope::written::unwritten_words`]): no table, column or stored value
    /// holds the word, the model read it as the schema's, and no name the query reads or string
    /// it compares carries it. Either the answer leaves out what the word asks ("Which
    /// publications were released as e-books?" → every publication) or the schema holds it under
    /// a name nothing links it to (`average` for "attendance"); the data cannot tell which, so the
    /// answer is `unverified`, not `ok` ([`unwritten_problem`]). One such word asks no vote and
    /// refuses nothing: on Benchmark 2's recorded answerable runs such answers are mostly right,
    /// so only the status says what was not shown; two or more refuse ([`Self::unread_scope`]).
    pub(super) fn unwritten_words(&self, query: &Query) -> Vec<String> {
        let Some(gap) = self.let_through.as_ref() else { return Vec::new() };
        scope::written::unwritten_words(query, &self.catalog, self.question.text, &gap.words())
    }

    /// The open problem of an answer that compares a column with a value the question does not
    /// name ([`scope::written::invented_values`]: not in its words, not matched in it by the value
    /// index, not the data's encoding of one of its words) and that no curator taught: which rows
    /// the question means then rests on the model's own knowledge, so the answer is not verified
    /// (`unverified`, not `ok`). Whether or not refusal is on: it says what the answer rests on,
    /// not that the database cannot answer. On every recorded answer of Benchmark 2 (3,044 right
    /// `ok` answers, no value taken as grounded) it keeps none from `ok`.
    pub(super) fn assumed_values(&self, query: &Query) -> Option<String> {
        let curated: Vec<String> = self.curated().iter().map(|t| t.to_lowercase()).collect();
        let assumed: Vec<(String, String)> = scope::written::invented_values(query, &self.catalog, self.question.text, &self.value_hits)
            .into_iter()
            .filter(|(_, v)| !curated.iter().any(|t| t.contains(&v.to_lowercase())))
            .collect();
        if assumed.is_empty() {
            return None;
        }
        let shown: Vec<String> = assumed.iter().take(4).map(|(column, value)| format!("{column} = '{}'", value.replace('\'', "''"))).collect();
        let more = if assumed.len() > 4 { format!(" and {} more", assumed.len() - 4) } else { String::new() };
        let (what, it) = if assumed.len() == 1 { ("a value", "it") } else { ("values", "them") };
        Some(format!(
            "it compares {}{more}, {what} the question does not name: which rows it means rests on the model's own knowledge; name {it} in the question, or define the term that means {it} (nl2sql_define)",
            shown.join(", ")
        ))
    }

    /// The open problem of an answer that computes with a number the question does not give
    /// ([`scope::written::invented_numbers`]: `bedroom_count * 1000 AS monthly_rent` for "the rent
    /// of each apartment") and no curator taught: the formula is the model's, so the answer is not
    /// verified (`unverified`, not `ok`), whether or not refusal is on.
    pub(super) fn assumed_numbers(&self, query: &Query) -> Option<String> {
        let assumed = scope::written::invented_numbers(query, self.question.text, &self.curated());
        if assumed.is_empty() {
            return None;
        }
        let (shown, what, it) = numbers_in(&assumed, ("a number", "numbers"));
        Some(format!(
            "it computes with {shown}, {what} the question does not give: the formula is the model's own; give {it} in the question, or define the term it computes (nl2sql_define)"
        ))
    }

    /// The open problem of an answer that returns a year, a month or an age for a date the
    /// question asks for ([`scope::written::coarser_answers`]: `birth_year` for "the exact birth
    /// date of each singer"): it gives less than was asked, so it is not verified (`unverified`,
    /// not `ok`), whether or not refusal is on.
    pub(super) fn coarser_answers(&self, query: &Query) -> Option<String> {
        let coarser = scope::written::coarser_answers(query, &self.catalog, self.question.text);
        let (asked, _) = coarser.first()?;
        let columns: Vec<&str> = coarser.iter().map(|(_, c)| c.as_str()).collect();
        Some(format!(
            "the question asks for \"{asked}\", and it returns {}, which {} only a part of a date (a year, a month or an age): the answer gives less than was asked; \
             no column it returns holds the day",
            columns.join(", "),
            if columns.len() == 1 { "holds" } else { "hold" }
        ))
    }

    /// The open problem of an answer that returns, for "each" thing of the question, a column of
    /// a table holding many rows per thing ([`scope::written::many_per_each`]: `concert.year` for
    /// "the year each stadium was built"): it answers with what each of those rows holds, not an
    /// attribute of the thing, so it is not verified (`unverified`, not `ok`), whether or not
    /// refusal is on.
    pub(super) fn many_per_each(&self, query: &Query) -> Option<String> {
        let many = scope::written::many_per_each(query, &self.catalog, self.question.text);
        let (each, _) = many.first()?;
        let columns: Vec<&str> = many.iter().map(|(_, c)| c.as_str()).collect();
        Some(format!(
            "it returns {} for {each}, from a table that holds many rows for each of them and that the question does not name: \
             what each of those rows holds, not an attribute of the thing asked about; name that table in the question to ask for it",
            columns.join(", ")
        ))
    }

    /// The open problem of an answer that names an output after a word of the question while
    /// returning, as it is, a column that holds none of the name's words
    /// ([`scope::written::relabelled_columns`]: `course AS ending_date` for "the end date of each
    /// course"): it presents another thing as what was asked, so it is not verified
    /// (`unverified`, not `ok`), whether or not refusal is on.
    pub(super) fn relabelled_columns(&self, query: &Query) -> Option<String> {
        let relabelled = scope::written::relabelled_columns(query, &self.catalog, self.question.text);
        if relabelled.is_empty() {
            return None;
        }
        let shown: Vec<String> = relabelled.iter().map(|(alias, column)| format!("{column} as \"{alias}\"")).collect();
        Some(format!(
            "it presents {}: a column that holds none of what its new name says, given as what the question asks for",
            shown.join(", ")
        ))
    }

    /// The open problem of an answer that returns no time for a question that asks for one
    /// ([`scope::written::untimed_answers`]: `stadium.highest` for "In which year was each stadium
    /// built?"): it answers with another thing, so it is not verified (`unverified`, not `ok`),
    /// whether or not refusal is on.
    pub(super) fn untimed_answers(&self, query: &Query) -> Option<String> {
        let (asked, returned) = scope::written::untimed_answers(query, &self.catalog, self.question.text)?;
        // a duration is not held by a date: say what would hold one
        let (what, holders) = if scope::written::asks_for_a_duration(&asked) {
            ("a duration", "no interval, no column named after a duration, no difference of two values")
        } else {
            ("a time", "no column of a date or time type or named after one, no function of time")
        };
        Some(format!("the question asks \"{asked}\", and nothing it returns holds {what} ({}): {holders}", returned.join(", ")))
    }

    /// The outputs of an answer named after a word of the question that links to no name of the
    /// schema (a verb or adverb linking to nothing, or a word linked only by meaning) and that no
    /// name of the schema holds, computed from columns that hold none of it
    /// ([`scope::written::unnamed_stand_ins`]: `COUNT(*) AS stream_count` for "How many times has
    /// each song been streamed?", where nothing records a stream; `COUNT(school_id) AS
    /// teacher_count` for "How many teachers does each school employ?", "teachers" near `school`
    /// by meaning only): it counts another thing under the asked thing's name. Its open problem
    /// ([`StandIns::problem`]) keeps an answer from `ok`; with refusal on it refuses
    /// ([`Self::stand_in_scope`]). The words are the scope stage's links, so with refusal off (no
    /// scope stage) there are none and nothing is checked.
    pub(super) fn unnamed_stand_ins(&self, query: &Query) -> Option<StandIns> {
        let found = scope::written::unnamed_stand_ins(query, &self.catalog, &self.loose_words);
        if found.is_empty() {
            return None;
        }
        Some(StandIns {
            shown: found.iter().map(|(alias, expr)| format!("{expr} as \"{alias}\"")).collect(),
            words: self.loose_words.iter().filter(|w| found.iter().any(|(a, _)| scope::written::names_word(a, w))).cloned().collect(),
        })
    }

    /// The open problem of an answer that returns only quantities for a question that asks who
    /// ([`scope::written::quantities_for_who`]: `buyer_offered_price` for "Who bought each
    /// property?"): a price or a count is nobody, so it is not verified (`unverified`, not `ok`),
    /// whether or not refusal is on.
    pub(super) fn quantities_for_who(&self, query: &Query) -> Option<String> {
        let quantities = scope::written::quantities_for_who(query, &self.catalog, self.question.text);
        if quantities.is_empty() {
            return None;
        }
        Some(format!(
            "the question asks who, and what it returns for that is {}, a quantity, not a name or a key of anyone",
            quantities.join(", ")
        ))
    }

    /// The open problem of an answer sorted by columns that hold nothing of what the question
    /// says to sort by ([`scope::written::unheld_sort_keys`]: `ORDER BY age` for "sorted by years
    /// of experience"): its order is another thing's, so it is not verified (`unverified`, not
    /// `ok`), whether or not refusal is on.
    pub(super) fn unheld_sort_keys(&self, query: &Query) -> Option<String> {
        let (phrase, read) = scope::written::unheld_sort_keys(query, &self.catalog, self.question.text)?;
        Some(format!(
            "the question says to sort by \"{phrase}\", and it sorts by {}, which holds nothing of it",
            read.join(", ")
        ))
    }

    /// The open problem of an answer that compares a column with a number the question does not
    /// write, or bounds it by a date where the question names no time
    /// ([`scope::written::assumed_thresholds`]: `grade = 100` for "Which teachers have a
    /// doctorate?") and no curator taught: which rows it means rests on a threshold the model
    /// chose, so it is not verified (`unverified`, not `ok`), whether or not refusal is on.
    pub(super) fn assumed_thresholds(&self, query: &Query) -> Option<String> {
        let assumed = scope::written::assumed_thresholds(query, self.question.text, &self.curated());
        if assumed.is_empty() {
            return None;
        }
        let (shown, what, it) = numbers_in(&assumed, ("a bound", "bounds"));
        Some(format!(
            "it compares with {shown}, {what} the question does not give: which rows it means rests on a threshold the model chose; give {it} in the question, or define the term (nl2sql_define)"
        ))
    }

    /// An answer that runs but may not be of what was asked (`found`, `why` says how it was
    /// found): the model is asked, shown the query and what was found, whether the database holds
    /// what was asked at all ([`prompts::answer_scope`]). When it says no, the finding and the
    /// vote together refuse: recorded as a second `scope` step with the query. When it says yes,
    /// or cannot be asked, the open problems stand (the run ends `unverified`), and the step says
    /// so. Nothing when refusal is off.
    pub(super) fn answer_scope(&mut self, sql: &str, found: &[String], why: Found) -> Result<Option<(scope::Kind, String)>> {
        if !self.opts.refuse || found.is_empty() {
            return Ok(None);
        }
        let messages = prompts::answer_scope(&self.schema.text, self.question.text, self.question.evidence, sql, why.lead(), found);
        let by = why.by();
        let vote = match self.vote(messages) {
            Ok(v) if !v.answerable => v,
            Ok(v) => {
                let data = json!({"vote": v, "found": found, "by": by});
                let detail = format!("{}, but the model reads the database as holding what was asked: the open problems stand", why.summary());
                self.trace.step(Stage::Scope, Status::Ok, detail, Some(sql.to_string()), data)?;
                return Ok(None);
            }
            Err(e) => {
                let data = json!({"vote_error": e, "found": found, "by": by});
                let detail = format!("{}, and the model could not be asked whether the database holds what was asked: the open problems stand", why.summary());
                self.trace.step(Stage::Scope, Status::Ok, detail, Some(sql.to_string()), data)?;
                return Ok(None);
            }
        };
        let (kind, what) = vote.refusal();
        let reason = format!("{what}: {} ({}), and the model, shown it, finds nothing in the schema that holds what was asked{}", why.summary(), found.join("; "), vote.lacks());
        let data = json!({"kind": kind, "vote": vote, "found": found, "by": by});
        self.refused(kind, reason, Some(sql), data)
    }

    /// An answer that returns another thing than was asked (`another`, the checks of
    /// [`Found::AnotherThing`]) in a run whose readings also looked for names the database has
    /// nowhere as written, after the question's words (`invented`, [`Self::names_written_nowhere`]): two checks of
    /// the run agree that the database has no place for what was asked, so the run is refused
    /// without the model's vote (which, shown either finding alone, can read a stand-in as what
    /// was asked: "When was each manufacturer founded?" answered with `founder` after a reading
    /// looked for `founded`). The another-thing checks reach no recorded answerable answer of
    /// Benchmark 2 and no gold query (docs/benchmarks.md), so neither does the pair. Nothing when
    /// refusal is off or either is empty.
    pub(super) fn agreed_scope(&mut self, sql: &str, another: &[String], invented: &[String]) -> Result<Option<(scope::Kind, String)>> {
        if !self.opts.refuse || another.is_empty() || invented.is_empty() {
            return Ok(None);
        }
        let kind = scope::Kind::MissingData;
        let reason = format!(
            "the database has no place for what the question asks about: {} ({}), and {} ({})",
            Found::AnotherThing.summary(),
            another.join("; "),
            Found::InventedNames.summary(),
            invented.join("; ")
        );
        let data = json!({"kind": kind, "found": another, "invented": invented, "by": "what the query written returns, and the names the readings looked for"});
        self.refused(kind, reason, Some(sql), data)
    }

    /// An answer that names an output after a word of the question that links to no name (a verb
    /// or adverb linking to nothing, or a word linked only by meaning) which no table or column of
    /// the schema holds, computed from columns that hold none of it
    /// ([`Self::unnamed_stand_ins`]: `COUNT(*) AS registered_voters` over counties for
    /// "How many registered voters does each county have?", `amount / 12 AS monthly_repayment`
    /// for "the monthly repayment of each loan"): the query counts or computes another thing
    /// under the asked thing's name, and the schema names the asked thing nowhere, so the run is
    /// refused without a vote. Shown such a stand-in, the model voted that the database holds
    /// what was asked every time it was asked on the read sets (six runs); the finding reaches no
    /// gold query of `spider_train` or `spider` and no recorded answer of Benchmark 2
    /// (docs/benchmarks.md, `answerability -- stand_in`). Recorded as a second `scope` step with
    /// the query. Nothing when refusal is off or nothing is found.
    pub(super) fn stand_in_scope(&mut self, sql: &str, found: &StandIns) -> Result<Option<(scope::Kind, String)>> {
        if !self.opts.refuse {
            return Ok(None);
        }
        let kind = scope::Kind::MissingData;
        let reason = format!(
            "the database has no place for what the question asks about: no table or column names {}, and the query the model wrote presents {}, computed from columns that hold none of it: a stand-in",
            quoted(&found.words),
            found.shown.join(", ")
        );
        let data = json!({"kind": kind, "stand_ins": found.shown, "words": found.words, "by": "what the query written presents, and the schema's names"});
        self.refused(kind, reason, Some(sql), data)
    }

    /// An answer whose query reads nothing for two or more of the words the scope stage let
    /// through on the vote (`left`, [`Self::unwritten_words`]:
    /// no table or column it reads, no string it compares, carries them): the vote read the words
    /// as the schema's, and the query written for them finds no place for any of them ("How many
    /// police officers responded to each incident?" → a count of perpetrators; "Which patients
    /// have health insurance from their employer?" → patients of a department with a head). The
    /// vote and the query disagree on two or more of the question's things, so the run is
    /// refused without another vote. One word alone stays an open problem (the run ends
    /// `unverified`): a single word the query leaves out is often one the question adds ("the
    /// student called GELL TAMI"). The pair reaches no recorded answer of Benchmark 2; on gold
    /// queries, as if the vote had let every word that links to nothing through, 24 of 5,302 of
    /// `spider_train` (docs/benchmarks.md, `answerability -- stand_in`). Recorded as a second
    /// `scope` step with the query. Nothing when refusal is off or fewer than two are left.
    pub(super) fn unread_scope(&mut self, sql: &str, left: &[String]) -> Result<Option<(scope::Kind, String)>> {
        if !self.opts.refuse || left.len() < UNREAD {
            return Ok(None);
        }
        let closest = self.let_through.as_ref().map(|gap| gap.closest.clone()).unwrap_or_default();
        let close = if closest.is_empty() { String::new() } else { format!("; the closest in the schema: {}", closest.join(", ")) };
        let kind = scope::Kind::MissingData;
        let reason = format!(
            "the database has no place for what the question asks about: no table, column or stored value holds {}, the model read them as the schema's, and the query it wrote reads nothing for any of them: no table or column it reads and no string it compares carries them{close}",
            quoted(&left)
        );
        let data = json!({"kind": kind, "unwritten": left, "by": "the words the vote let through, and the query written"});
        self.refused(kind, reason, Some(sql), data)
    }

    /// An answer that compares or computes with what the question does not give (`assumed`: a
    /// value it does not name, a number or a bound it does not give, [`Self::assumed_values`],
    /// [`Self::assumed_numbers`], [`Self::assumed_thresholds`]) and that reads nothing for a word
    /// of the question that links to no name of the schema ([`scope::written::unwritten_words`]
    /// over the words the scope stage let through on the vote and the loose ones: a verb or
    /// adverb that links to nothing, a word linked only by meaning): two findings agree that the
    /// query stands in for what the data does not hold with the model's own knowledge ("Which
    /// employees work remotely?" → `job_id = 'SA_REP'`, "Which teachers have a doctorate?" →
    /// `grade = 100`), so the run is refused without a vote (shown a value the question does not
    /// give, the model said the database holds what was asked every time). Either alone is no
    /// reason: a loose word without a stand-in is most often a relation a join writes ("enrolled"
    /// and `student_course_enrolment`), and an assumed value alone can be the data's encoding the
    /// checks do not know. Nothing when refusal is off or either is empty.
    ///
    /// With no such value, a short one of a column the question names nothing of
    /// ([`scope::written::weak_values`]: a flag, a code, a digit, 0 or 1: `wifi = 'Yes'` for "Which
    /// phones have a headphone jack?") stands in the same way beside a word the vote let through
    /// (a noun that links to nothing; not a verb, which a flag most often records: "logged in" and
    /// `user_login = '1'`). Alone it is no open problem: a flag of a column the question does not
    /// name can be a join's condition.
    pub(super) fn assumed_scope(&mut self, sql: &str, query: &Query, assumed: &[String]) -> Result<Option<(scope::Kind, String)>> {
        if !self.opts.refuse {
            return Ok(None);
        }
        let weak: Vec<String> = if assumed.is_empty() {
            scope::written::weak_values(query, &self.catalog, self.question.text)
                .into_iter()
                .map(|(compared, _)| format!("it compares {compared}, a flag, a code or a number of a column the question names nothing of"))
                .collect()
        } else {
            Vec::new()
        };
        if assumed.is_empty() && weak.is_empty() {
            return Ok(None);
        }
        let mut words: Vec<String> = self.let_through.as_ref().map(Gap::words).unwrap_or_default();
        // beside a short value, only the words the vote let through: a verb beside a flag is
        // most often what the flag records ("logged in" and `user_login = '1'`, "accepted" and
        // `decision = 'yes'`: eleven spider_train golds)
        for w in self.loose_words.iter().filter(|_| !assumed.is_empty()) {
            if !words.iter().any(|x| x.eq_ignore_ascii_case(w)) {
                words.push(w.clone());
            }
        }
        let left = scope::written::unwritten_words(query, &self.catalog, self.question.text, &words);
        if left.is_empty() {
            return Ok(None);
        }
        let assumed = if assumed.is_empty() { weak.as_slice() } else { assumed };
        let kind = scope::Kind::MissingData;
        let it = if left.len() == 1 { "it" } else { "them" };
        let reason = format!(
            "the database has no place for what the question asks about: the question says {}, which no table or column the query reads and no string it compares carries, and the query stands in for {it} with what the question does not give ({})",
            quoted(&left),
            assumed.join("; ")
        );
        let data = json!({"kind": kind, "unwritten": left, "assumed": assumed, "by": "a word of the question the query reads nothing for, and a value, number or bound the question does not give"});
        self.refused(kind, reason, Some(sql), data)
    }

    /// A clean answer with a second reading of the question that passes every check too and
    /// returns other rows (`other`, from the confirm step or another generator), when neither
    /// reads anything for a verb or adverb of the question that links to no name and relates no
    /// things ([`scope::written::unwritten_by_both`]): the readings disagree because each guesses
    /// at what the data does not hold ("Which wrestlers have been suspended?" → who eliminated
    /// whom, by two guesses), so the run is refused, `missing_data`, with no vote, recorded as a
    /// second `scope` step with both queries. Measured before it was built (fifty-first session):
    /// on Benchmark 2's recorded `ambiguous` answers such a word reaches none of the 75 right ones.
    /// Nothing when refusal is off, no such word was found, or `other` does not parse.
    pub(super) fn guessed_scope(&mut self, sql: &str, query: &Query, other: &str) -> Result<Option<(scope::Kind, String)>> {
        if !self.opts.refuse || self.soft_words.is_empty() {
            return Ok(None);
        }
        let Ok(second) = crate::sql::check_query(other) else { return Ok(None) };
        let left = scope::written::unwritten_by_both(query, &second.query, &self.catalog, self.question.text, &self.soft_words);
        if left.is_empty() {
            return Ok(None);
        }
        let kind = scope::Kind::MissingData;
        let it = if left.len() == 1 { "it" } else { "them" };
        let reason = format!(
            "the database has no place for what the question asks about: two readings of the question pass every check and return different rows, and neither reads anything for {}: no table or column either reads and no string either compares carries {it}, so each stands in for {it} with a guess of its own",
            quoted(&left)
        );
        let data = json!({"kind": kind, "unwritten": left, "readings": [sql, other], "by": "two readings that disagree, and a word of the question neither reads anything for"});
        self.refused(kind, reason, Some(sql), data)
    }

    /// The names the readings of this run looked for and did not find (a query written that
    /// PostgreSQL could not plan, as its steps record: a failed first reading, a repair, a second
    /// reading that does not run), each of which the database has nowhere and is named after a
    /// word the question says ([`scope::written::absent_names`], read against every schema the
    /// caller can see), as findings for [`Self::answer_scope`]: a model that, reading the
    /// question afresh, looks for `pilot` in a database of airlines and flights has found no
    /// place for the pilots asked about. Each step is read alone (a step that also fails on a
    /// name the database has says nothing). Nothing when refusal is off.
    pub(super) fn invented_names(&mut self) -> Result<Vec<String>> {
        self.looked_for(scope::written::absent_names, " or anything close")
    }

    /// The names of [`Self::invented_names`], absent as written: a name near one the database
    /// has (`founded` beside `founder`) counts ([`scope::written::absent_names_as_written`]). For
    /// [`Self::agreed_scope`] only, beside another finding.
    pub(super) fn names_written_nowhere(&mut self) -> Result<Vec<String>> {
        self.looked_for(scope::written::absent_names_as_written, "")
    }

    /// Every relation the caller can read, in every schema: read from the database the first
    /// time a check of the run asks for it (the run's own catalog may hold only the schemas the
    /// question was linked to), kept for the others.
    fn whole_catalog(&mut self) -> Result<&crate::catalog::Catalog> {
        let whole = match self.whole.take() {
            Some(whole) => whole,
            None => self.db.catalog()?,
        };
        Ok(self.whole.insert(whole))
    }

    /// The names `absent` finds in the failures the run's steps record, each as a finding that
    /// says no table has it (`close`: what else it says no table has).
    fn looked_for(&mut self, absent: fn(&[String], &crate::catalog::Catalog, &str) -> Vec<String>, close: &str) -> Result<Vec<String>> {
        if !self.opts.refuse {
            return Ok(Vec::new());
        }
        let failed: Vec<String> = self.trace.steps.iter().filter(|s| s.detail.contains("does not exist")).map(|s| s.detail.clone()).collect();
        if failed.is_empty() {
            return Ok(Vec::new());
        }
        let question = self.question.text;
        let everything = self.whole_catalog()?;
        let mut names: Vec<String> = Vec::new();
        for detail in &failed {
            for n in absent(std::slice::from_ref(detail), everything, question) {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
        Ok(names.into_iter().map(|n| format!("it reads \"{n}\", and no table of the schema has a column or table named \"{n}\"{close}: it does not run")).collect())
    }

    /// A question in the future tense whose query fails or finds no row ([`scope::future`]), or
    /// only aggregates over none: one row of an ungrouped aggregate whose every value is 0 or
    /// NULL ("how many people will attend the concerts in 2030" → `COUNT(...) ... WHERE year =
    /// '2030'` is 0: the data holds nothing of 2030), read by running the query once more, as the
    /// caller, only for such a question. Recorded as a second `scope` step with the query. Nothing
    /// when refusal is off.
    pub(super) fn future_scope(&mut self, chosen: &super::repair::Attempt, empty: bool) -> Result<Option<(scope::Kind, String)>> {
        if !self.opts.refuse {
            return Ok(None);
        }
        let empty = empty || (!chosen.fails && crate::lexicon::future_tense(self.question.text).is_some() && self.aggregates_nothing(&chosen.sql));
        let Some((kind, reason)) = scope::future(self.question.text, !chosen.fails, empty) else { return Ok(None) };
        let data = json!({"kind": kind, "runs": !chosen.fails, "empty": empty, "by": "the future tense and the data"});
        self.refused(kind, reason, Some(&chosen.sql), data)
    }

    /// Is `sql` one ungrouped aggregate block whose one row holds only 0 or NULL when run (a
    /// count or a sum of nothing)?
    fn aggregates_nothing(&mut self, sql: &str) -> bool {
        let Ok(checked) = crate::sql::check_query(sql) else { return false };
        let sqlparser::ast::SetExpr::Select(block) = checked.query.body.as_ref() else { return false };
        if crate::checks::grouped(block) || !crate::checks::projects_aggregate(block) {
            return false;
        }
        match self.db.run(sql, 2) {
            Ok(Outcome::Rows(r)) => r.rows.len() == 1 && r.rows[0].iter().all(|v| v.is_null() || v.as_f64() == Some(0.0) || v.as_str().is_some_and(|t| t.trim().parse::<f64>() == Ok(0.0))),
            _ => false,
        }
    }

    /// A run about to end `error` whose best attempt fails only on names the database has nowhere
    /// and that the question says ([`scope::written::absent_names`], read against every schema
    /// the caller can see, not only the ones the question was linked to): the model named what it
    /// looked for after the question, every query it wrote, and the fresh reading after the
    /// repair, failed, and no fix or repair found a name that exists. The schema has no place for
    /// what was asked; recorded as a second `scope` step with the query. Nothing when refusal is
    /// off.
    pub(super) fn absent_scope(&mut self, chosen: &super::repair::Attempt) -> Result<Option<(scope::Kind, String)>> {
        if !self.opts.refuse || !chosen.fails {
            return Ok(None);
        }
        let question = self.question.text;
        let absent = scope::written::absent_names(&chosen.problems, self.whole_catalog()?, question);
        if absent.is_empty() {
            return Ok(None);
        }
        let shown = absent.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
        let reason = format!(
            "the database has no place for what the question asks about: every query written for it reads {shown}, which no table, view, schema or column of the database has or nearly names, and no fix or repair found one that does"
        );
        let kind = scope::Kind::MissingData;
        let data = json!({"kind": kind, "absent": absent, "by": "the names the queries written need"});
        self.refused(kind, reason, Some(&chosen.sql), data)
    }

    /// A run about to end `error` whose best attempt fails only on names the database has nowhere
    /// ([`scope::written::nowhere_names`], read against every schema the caller can see: near no
    /// name, with a word no name has), though not named after the question, for a question with
    /// words that link to nothing ([`Self::loose_words`]) and no proper name that no stored value
    /// holds: "When was each paper published?", where "published" links to nothing and every query
    /// written reads `pubdate`; "How long did each concert last?" and `end_time`. The question
    /// asks for what the schema names nowhere, the model reached for what the database has
    /// nowhere, and no fix or repair found a name that exists: the run refuses, as
    /// [`Self::absent_scope`] does for a name the question says. A made-up name can be the model's
    /// mistake, but on Benchmark 2's recorded answerable runs none of the 278 that end in error
    /// fails on such a name (their missing names are another table's: `first_name` read from the
    /// enrolment); on the held-out unanswerable sets, five questions did (forty-eighth session).
    /// The model's vote is no evidence here: told that the query fails on such a name, it said
    /// the database cannot answer for all 12 planted and recorded cases, the 7 answerable ones too
    /// (`bench/vote_nowhere.py`). A question whose every word links (the failure is the model's),
    /// or that names what no value holds ("orders from Atlantis": its answer is no rows), ends
    /// `error`. Recorded as a second `scope` step with the query. Nothing when refusal is off.
    pub(super) fn nowhere_scope(&mut self, chosen: &super::repair::Attempt) -> Result<Option<(scope::Kind, String)>> {
        if !self.opts.refuse || !chosen.fails || self.loose_words.is_empty() || !self.unheld_names.is_empty() {
            return Ok(None);
        }
        let nowhere = scope::written::nowhere_names(&chosen.problems, self.whole_catalog()?);
        if nowhere.is_empty() {
            return Ok(None);
        }
        let reason = format!(
            "the database has no place for what the question asks about: the question says {}, after which no table or column is named, and every query written for it reads {}, which no table, view, schema or column of the database has or nearly names, and no fix or repair found one that does",
            quoted(&self.loose_words),
            quoted(&nowhere)
        );
        let kind = scope::Kind::MissingData;
        let data = json!({"kind": kind, "nowhere": nowhere, "loose": self.loose_words, "by": "the names the queries written need, and the question's words that link to nothing"});
        self.refused(kind, reason, Some(&chosen.sql), data)
    }

    /// A run about to end without a query that runs (`failure`: the best attempt's problems, or
    /// why the model wrote no usable query; `sql`: that attempt, if any), for a question the
    /// scope stage let through with words that link to nothing because the vote read them as the
    /// schema's ([`scope::written::unwritten`]): recorded as a second `scope` step. Nothing when
    /// refusal is off or nothing was let through.
    pub(super) fn unwritten_scope(&mut self, failure: &str, sql: Option<&str>) -> Result<Option<(scope::Kind, String)>> {
        if !self.opts.refuse {
            return Ok(None);
        }
        let Some(gap) = self.let_through.as_ref() else { return Ok(None) };
        let Some((kind, reason)) = scope::written::unwritten(gap, failure) else { return Ok(None) };
        let data = json!({"kind": kind, "unlinked": gap.unlinked, "names": gap.names, "by": "no query written runs"});
        self.refused(kind, reason, sql, data)
    }

    /// A query that runs and can only return the values it compares with, for a question that
    /// does not ask for things by their name ([`scope::written::only_its_own_value`]), when the
    /// data says a value is nowhere: no stored value of the compared column matches it in any
    /// case, and no text column of the tables the query reads, or of their neighbours, holds it
    /// (read now, as the caller). One such value suffices when it is a condition of its own (every
    /// row returned must meet it); otherwise every value compared must be nowhere. The question
    /// asks for a category or a fact of its things that the database does not record; recorded
    /// as a second `scope` step with the query. Nothing when refusal is off, or when a read fails.
    pub(super) fn own_value_scope(&mut self, chosen: &super::repair::Attempt) -> Result<Option<(scope::Kind, String)>> {
        let question = self.question.text;
        let Some(literal) = self.nowhere_in_data(chosen, |query, catalog| scope::written::only_its_own_value(query, catalog, question)) else { return Ok(None) };
        let core = literal.core();
        let (t, c) = (&literal.rel.name, &literal.column);
        let reason = format!(
            "the question needs knowledge the database does not store: the query the model wrote returns {t}.{c} compared with '{}', so it could only return that value back, and no stored value of {t}.{c} matches it, nor does any column of the tables it reads or of their neighbours hold \"{core}\": the database does not record which {t} are \"{core}\"",
            literal.value.replace('\'', "''")
        );
        let kind = scope::Kind::OutsideKnowledge;
        let data = json!({"kind": kind, "column": format!("{}.{c}", literal.rel), "value": literal.value, "by": "a query that can only return its own value, and the data"});
        self.refused(kind, reason, Some(&chosen.sql), data)
    }

    /// A query that runs in which the model wrote a word the vote let through (one that links to
    /// nothing) as a stored value ([`scope::written::unlinked_as_values`]), when the data says the
    /// value is nowhere: no stored value of the compared column matches it in any case, and no
    /// text column of the tables the query reads, or of their neighbours, holds it (read now, as
    /// the caller); one such value suffices when it is a condition of its own, otherwise every
    /// one must be nowhere ([`scope::written::decisive`]). The database does not record the
    /// category the question asks about; recorded as a second `scope` step with the query.
    /// Nothing when refusal is off, nothing was let through, or a read fails.
    pub(super) fn unlinked_value_scope(&mut self, chosen: &super::repair::Attempt) -> Result<Option<(scope::Kind, String)>> {
        let Some(gap) = self.let_through.as_ref() else { return Ok(None) };
        // words only: a proper name no stored value holds is the question's value ("orders from
        // Atlantis": no rows), even when it is all the vote was asked about
        let unlinked = gap.words();
        let Some(literal) = self.nowhere_in_data(chosen, |query, catalog| scope::written::unlinked_as_values(query, catalog, &unlinked)) else { return Ok(None) };
        let core = literal.core();
        let (t, c) = (&literal.rel.name, &literal.column);
        let reason = format!(
            "the question needs knowledge the database does not store: no table, column or stored value holds {}, and the query the model wrote compares {t}.{c} with '{}' as if it were one of its values, but no stored value of {t}.{c} matches it, nor does any column of the tables it reads or of their neighbours hold \"{core}\": the database does not record which rows are \"{core}\"",
            quoted(&unlinked),
            literal.value.replace('\'', "''")
        );
        let kind = scope::Kind::OutsideKnowledge;
        let data = json!({"kind": kind, "column": format!("{}.{c}", literal.rel), "value": literal.value, "unlinked": unlinked, "by": "a word that links to nothing written as a value, and the data"});
        self.refused(kind, reason, Some(&chosen.sql), data)
    }

    /// A query that runs and writes a proper name of the question that no stored value the value
    /// index matched holds ([`Self::unheld_names`]) as one of a column's values
    /// ([`scope::written::names_as_values`]), when the data says it is nowhere (no stored value of
    /// the column matches it in any case, no text column near holds it: [`Self::nowhere_in_data`])
    /// and the query reads nothing for a word of the question that links to no name
    /// ([`scope::written::unwritten_words`] over the verbs and adverbs that link to nothing, forms
    /// of the verbs that relate things left out, and the words the vote let through): the
    /// question relates its things to the name by what the database does not record ("heads born
    /// in a state that borders Canada" → `born_state LIKE 'Canada%'`, "circuits in countries that
    /// have hosted the Summer Olympics" → `url LIKE '%Summer Olympics%'`). A name alone is the
    /// question's value, whose answer is no rows ("orders from Atlantis"); a verb alone is most
    /// often the relation a join writes. Refused as `outside_knowledge` with no vote, recorded as
    /// a second `scope` step with the query. Nothing when refusal is off or a read fails.
    pub(super) fn related_name_scope(&mut self, chosen: &super::repair::Attempt) -> Result<Option<(scope::Kind, String)>> {
        if !self.opts.refuse || chosen.fails || self.unheld_names.is_empty() {
            return Ok(None);
        }
        let mut words = scope::written::unrelating(&self.soft_words);
        for w in self.let_through.as_ref().map(Gap::words).unwrap_or_default() {
            if !words.iter().any(|x| x.eq_ignore_ascii_case(&w)) {
                words.push(w);
            }
        }
        let Ok(checked) = crate::sql::check_query(&chosen.sql) else { return Ok(None) };
        let left = scope::written::unwritten_words(&checked.query, &self.catalog, self.question.text, &words);
        if left.is_empty() {
            return Ok(None);
        }
        let names = self.unheld_names.clone();
        let Some(literal) = self.nowhere_in_data(chosen, |query, catalog| scope::written::names_as_values(query, catalog, &names)) else { return Ok(None) };
        let core = literal.core();
        let (t, c) = (&literal.rel.name, &literal.column);
        let it = if left.len() == 1 { "it" } else { "them" };
        let reason = format!(
            "the question needs knowledge the database does not store: it relates what it asks about to \"{core}\" by {}, and the query the model wrote reads nothing for {it}: it compares {t}.{c} with '{}' instead, and no stored value of {t}.{c} matches it, nor does any column of the tables it reads or of their neighbours hold \"{core}\": the database does not record what the question asks of \"{core}\"",
            quoted(&left),
            literal.value.replace('\'', "''")
        );
        let kind = scope::Kind::OutsideKnowledge;
        let data = json!({"kind": kind, "column": format!("{}.{c}", literal.rel), "value": literal.value, "unwritten": left, "by": "a name of the question written as a value the data does not hold, and a word the query reads nothing for"});
        self.refused(kind, reason, Some(&chosen.sql), data)
    }

    /// A query that runs in which the model wrote common words of the question as a stored value
    /// of a column that holds a closed list of categories ([`scope::written::common_words_as_values`]:
    /// "Which cards were reported lost or stolen?" → `transaction_type IN ('Lost', 'Stolen')`),
    /// when the data says the value is nowhere (no stored value of the column matches it in any
    /// case, no text column near holds it: [`Self::nowhere_in_data`]) and the column stores at
    /// most [`CATEGORIES`] distinct values, none of them it (read now, as the caller): the
    /// database records its things' categories, and the one the question names is not among
    /// them. Refused as `missing_data` with no vote, the column's values shown; recorded as a
    /// second `scope` step with the query. A proper name or a quoted value is the question's own
    /// ("orders from Atlantis": no rows), and a column of many values (names, titles) is no list
    /// of categories. Nothing when refusal is off or a read fails.
    pub(super) fn common_value_scope(&mut self, chosen: &super::repair::Attempt) -> Result<Option<(scope::Kind, String)>> {
        let question = self.question.text;
        let Some(literal) = self.nowhere_in_data(chosen, |query, catalog| scope::written::common_words_as_values(query, catalog, question)) else { return Ok(None) };
        let stored: Vec<String> = match self.db.run(&crate::checks::literals::few_values_sql(&literal, CATEGORIES + 1), CATEGORIES + 1) {
            Ok(crate::result::Outcome::Rows(r)) => r.rows.iter().filter_map(|row| row.first().and_then(|v| v.as_str()).map(str::to_string)).collect(),
            _ => return Ok(None),
        };
        if stored.is_empty() || stored.len() > CATEGORIES {
            return Ok(None);
        }
        let (t, c) = (&literal.rel.name, &literal.column);
        let quote = crate::checks::literals::quote;
        let listed = stored.iter().map(|v| quote(v)).collect::<Vec<_>>().join(", ");
        let core = literal.core();
        let reason = format!(
            "the database has no place for what the question asks about: the query the model wrote compares {t}.{c} with {}, made of the question's own words, but {t}.{c} holds only {listed}, and no column of the tables it reads or of their neighbours holds \"{core}\": the database does not record which rows are \"{}\"",
            quote(&literal.value),
            core.to_lowercase()
        );
        let kind = scope::Kind::MissingData;
        let data = json!({"kind": kind, "column": format!("{}.{c}", literal.rel), "value": literal.value, "stored": stored, "by": "common words of the question written as a category the column does not hold"});
        self.refused(kind, reason, Some(&chosen.sql), data)
    }

    /// The comparison of the query a run ends with that the data shows can match nothing
    /// ([`scope::written::decisive`]), among those `compared_in` reads from it: each value in
    /// order is nowhere when no stored value of its column matches it (in any case) and no column
    /// near holds it, read as the caller; a condition of its own that is nowhere decides, so the
    /// values after it are not read. `None` when refusal is off, the query fails or does not
    /// parse, nothing is compared, nothing decides, or a read fails.
    fn nowhere_in_data(
        &mut self,
        chosen: &super::repair::Attempt,
        compared_in: impl FnOnce(&sqlparser::ast::Query, &crate::catalog::Catalog) -> Vec<scope::written::OwnValue>,
    ) -> Option<crate::checks::literals::Literal> {
        if !self.opts.refuse || chosen.fails {
            return None;
        }
        let checked = crate::sql::check_query(&chosen.sql).ok()?;
        let compared = compared_in(&checked.query, &self.catalog);
        if compared.is_empty() {
            return None;
        }
        let mut nowhere = Vec::with_capacity(compared.len());
        for c in &compared {
            let stored = match self.db.run(&crate::checks::literals::stored_variants_sql(&c.literal), 1) {
                Ok(crate::result::Outcome::Rows(r)) => !r.rows.is_empty(),
                _ => return None,
            };
            let absent = !stored && self.held_in_data(std::slice::from_ref(&c.literal.core()), &checked.query).is_empty();
            nowhere.push(absent);
            if absent && c.alone {
                break;
            }
        }
        scope::written::decisive(&compared, &nowhere).map(|c| c.literal.clone())
    }

    /// Which of `names` a text column of the tables `query` reads, or of their neighbours by a
    /// foreign key, holds ([`crate::checks::literals::holders_sql`]), read as the caller; a read
    /// that fails says nothing.
    fn held_in_data(&mut self, names: &[String], query: &sqlparser::ast::Query) -> Vec<String> {
        held_by(self.db, crate::checks::literals::holders_sql(names, query, &self.catalog), names).0
    }

    /// Each word's nearest names by meaning: the names' embeddings as stored (the missing ones
    /// embedded and stored), the words embedded now.
    fn meanings(&mut self, names: &[link::Name], words: &[String]) -> Result<BTreeMap<String, Vec<(String, f32)>>> {
        if words.is_empty() {
            return Ok(BTreeMap::new());
        }
        let model = self.model.embedding_model();
        let mut texts: Vec<String> = names.iter().map(|n| link::name_text(&n.shown)).collect();
        texts.sort();
        texts.dedup();
        let mut vectors = self.db.stored_embeddings(&texts, &model)?;
        let missing: Vec<String> = texts.iter().filter(|t| !vectors.contains_key(*t)).cloned().collect();
        let mut inputs = missing.clone();
        inputs.extend(words.iter().cloned());
        let embedded = self.model.embed(&inputs)?.vectors;
        let (for_names, for_words) = embedded.split_at(missing.len().min(embedded.len()));
        let fresh: Vec<(String, Vec<f32>)> = missing.into_iter().zip(for_names.iter().cloned()).collect();
        // a standby stores nothing: the names are embedded again next time
        let _ = self.db.store_embeddings(&fresh, &model);
        vectors.extend(fresh);
        let mut out = BTreeMap::new();
        for (word, v) in words.iter().zip(for_words) {
            let mut scored: Vec<(String, f32)> = names
                .iter()
                .filter_map(|n| vectors.get(&link::name_text(&n.shown)).map(|e| (n.shown.clone(), cosine(v, e))))
                .collect();
            scored.sort_by(|a, b| b.1.total_cmp(&a.1));
            scored.truncate(NEAREST);
            out.insert(word.clone(), scored);
        }
        Ok(out)
    }
}

/// Numbers (or dates) an answer writes, each with the expression that holds it, as an open problem
/// shows them: the first four as "30 in `price > 30`", and the words for one or several (`kind`:
/// singular, plural) and for "it" or "them".
fn numbers_in(assumed: &[(String, String)], kind: (&'static str, &'static str)) -> (String, &'static str, &'static str) {
    let shown: Vec<String> = assumed.iter().take(4).map(|(expr, number)| format!("{number} in `{expr}`")).collect();
    if assumed.len() == 1 { (shown.join(", "), kind.0, "it") } else { (shown.join(", "), kind.1, "them") }
}

/// Which of `names` the scans `sqls` ([`crate::checks::literals::holders_sql`] and its kin) find
/// held, read as the caller through `db`, and whether every scan that was needed could be read.
pub(super) fn held_by<D: Database + ?Sized>(db: &mut D, sqls: Vec<String>, names: &[String]) -> (Vec<String>, bool) {
    let (mut held, mut read) = (Vec::<String>::new(), true);
    for sql in sqls {
        // every name found: the other tables need not be read
        if held.len() == names.len() {
            break;
        }
        match db.run(&sql, 1) {
            Ok(crate::result::Outcome::Rows(r)) => {
                let Some(row) = r.rows.first() else { continue };
                for (name, cell) in names.iter().zip(row) {
                    if cell.as_bool() == Some(true) && !held.contains(name) {
                        held.push(name.clone());
                    }
                }
            }
            _ => read = false,
        }
    }
    (held, read)
}
