//! The query the model wrote, as further evidence that the database cannot answer a question.
//!
//! A question the scope stage lets through goes on to generation, and the query written shows how
//! the model filled what the data does not hold. These ways of filling it, or of leaving it out,
//! mean the data has no answer:
//! - **a column that does not exist**, named after a word that links to nothing ("the email
//!   address of each instructor" → `instructor.email`): the schema has no place for it. Only for
//!   words that link to nothing and that the model's vote read as the schema's: a missing column
//!   named after a word that links is a mistake of the model's, for the checks and the repair.
//! - **a stand-in**: an output column named after such a word, computed from columns that do not
//!   hold it ("flight hours" → `COUNT(p.record_id) AS flight_hours`): the query presents what the
//!   data has as what the question asks for ([`stand_ins`]).
//! - **a name left out**: a proper name no stored value holds that the query does not write
//!   ("the ISBN of each book" → the book's id and price, [`dropped_names`]).
//! - **an asked attribute answered with others**: the request asks for a thing with a word that
//!   links to nothing ("What is the production budget of each film?"), and no column the query
//!   returns carries a word of it (the film's id, title, director and gross): the query answers
//!   another question ([`unanswered_items`]).
//! - **a value the question does not name** (at least [`INVENTED`] distinct ones), compared with
//!   a column ("customers in countries that use the euro" → `country IN ('Germany', 'France')`,
//!   "branches in states that voted Republican" → `state = 'Utah'`): the model brought it from
//!   its own knowledge, not from the question or the data. For a question with words that link
//!   to nothing, and for one whose words all link but that names what no stored value holds
//!   ("Republican"): in place of the name, the model put what it knows. (A value the model adds
//!   to a question that names nothing missing is a filter too many, for the checks and the
//!   repair: on `spider_train`, "When was the first asset acquired?" got `company_type =
//!   'Supplier'`.) How the data encodes a word the question names is no such
//!   value: a flag's yes or no, a code that begins a content word of the question, an
//!   abbreviation and its expansion ("LA" and `'Los Angeles'`), a country and its people
//!   ("French" and `'France'`). A value the question names and the data does not hold
//!   ("orders from Atlantis" → `'Atlantis'`) is the question's: its answer is no rows.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use sqlparser::ast::{Expr, Query, SelectItem, TableFactor, Visit, Visitor};

use super::link::{matches, same_stem, singular, tokens};
use super::{quoted, Kind};
use crate::catalog::Catalog;
use crate::checks::{each_select, literals};

/// Distinct values the question does not name, compared in one query, from which the query is
/// read as knowledge brought from outside the data. One: once the data's own encodings of the
/// question's words are told apart ([`invented_values`]), a value of the model's own is what the
/// question left open and the model filled from what it knows. Set on `spider_train`: of its
/// 5,302 gold queries, 40 compare such a value (formats of a pattern such as `'8/%'`, the text
/// `'null'`, a country the question leaves implicit, a spelling the question does not use), and
/// none of the default's 186 queries for 200 of its questions does; two, the threshold before,
/// let through the single values of seven of the tuning half's unanswerable questions (`'French'` for "drive on the left", `'Utah'` for "voted
/// Republican", `'2020-02-29'` for "a leap year").
pub const INVENTED: usize = 1;

/// What the scope stage let through to generation for the query to show: the words of the
/// question that link to nothing (none: every word links), its proper names that no stored value
/// holds, and the schema's names closest to the unlinked words.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gap {
    pub unlinked: Vec<String>,
    pub names: Vec<String>,
    pub closest: Vec<String>,
}

impl Gap {
    /// The words let through that are no proper name no stored value holds (such a name is the
    /// question's value: "orders from Atlantis" has an answer, no rows).
    pub fn words(&self) -> Vec<String> {
        self.unlinked.iter().filter(|w| !self.names.iter().any(|n| n.eq_ignore_ascii_case(w))).cloned().collect()
    }
}

/// What the query the model wrote shows, for a question with a [`Gap`]: the kind of question it
/// is and why, in words; `None` when the query fills no gap either way.
/// `grounded` are the stored values the value index matched in the question (`table.column`,
/// value); `curated` what curators of this database wrote that the run was shown (verified
/// examples' SQL, glossary meanings and expressions: a value in them is the database's knowledge,
/// not the model's).
pub fn judge(query: &Query, catalog: &Catalog, question: &str, gap: &Gap, grounded: &[(String, String)], curated: &[String]) -> Option<(Kind, String)> {
    let Gap { unlinked, names, closest } = gap;
    let words = quoted(unlinked);
    let close = if closest.is_empty() { String::new() } else { format!("; the closest in the schema: {}", closest.join(", ")) };
    let missing = missing_columns(query, catalog, unlinked);
    if !missing.is_empty() {
        return Some((
            Kind::MissingData,
            format!(
                "the database has no place for what the question asks about: no table, column or stored value holds {words}, and the query the model wrote for it reads {}, which no table has{close}",
                missing.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let stand_ins = stand_ins(query, unlinked);
    if !stand_ins.is_empty() {
        let shown: Vec<String> = stand_ins.iter().map(|(alias, expr)| format!("{expr} as \"{alias}\"")).collect();
        return Some((
            Kind::MissingData,
            format!(
                "the database has no place for what the question asks about: no table, column or stored value holds {words}, and the query the model wrote presents {}, computed from columns that do not hold it: a stand-in{close}",
                shown.join(", ")
            ),
        ));
    }
    let lower: Vec<String> = curated.iter().map(|t| t.to_lowercase()).collect();
    let invented: Vec<(String, String)> =
        invented_values(query, catalog, question, grounded).into_iter().filter(|(_, v)| !lower.iter().any(|t| t.contains(&v.to_lowercase()))).collect();
    if invented.len() >= INVENTED {
        let shown: Vec<String> = invented.iter().take(4).map(|(column, value)| format!("{column} = '{}'", value.replace('\'', "''"))).collect();
        let more = if invented.len() > 4 { format!(" and {} more", invented.len() - 4) } else { String::new() };
        let (what, they) = if invented.len() == 1 { ("a value", "it comes") } else { ("values", "they come") };
        let gap = if unlinked.is_empty() { String::new() } else { format!("no table, column or stored value holds {words}, and ") };
        return Some((
            Kind::OutsideKnowledge,
            format!(
                "the question needs knowledge the database does not store: {gap}the query the model wrote compares {}{more}, {what} the question does not name: {they} from the model's own knowledge, not from the data{close}",
                shown.join(", ")
            ),
        ));
    }
    let dropped = dropped_names(query, catalog, question, names, curated);
    if !dropped.is_empty() {
        return Some((
            Kind::MissingData,
            format!(
                "the database has no place for what the question names: no table, column or stored value holds {}, and the query the model wrote leaves {} out: it answers another question{close}",
                quoted(&dropped),
                if dropped.len() == 1 { "it" } else { "them" }
            ),
        ));
    }
    if let Some((phrase, value)) = partly_written_names(query, catalog, question, names, curated).first() {
        return Some((
            Kind::OutsideKnowledge,
            format!(
                "the database does not record what the question names: no stored value holds \"{phrase}\", and the query the model wrote compares '{}', which writes only part of it: another thing that shares a word{close}",
                value.replace('\'', "''")
            ),
        ));
    }
    if let Some((phrase, kind, compared)) = unplaced_names(query, catalog, question, names, unlinked).first() {
        return Some((
            Kind::OutsideKnowledge,
            format!(
                "the database does not record what the question names: no table, column or stored value holds \"{kind}\", the kind of thing \"{phrase} {kind}\" is, and no row holds \"{phrase}\"; the query the model wrote compares {compared}, a column that holds other things, so it answers another question{close}"
            ),
        ));
    }
    let unanswered = unanswered_items(query, catalog, question, unlinked);
    if let Some((item, returned)) = unanswered.first() {
        return Some((
            Kind::MissingData,
            format!(
                "the database has no place for what the question asks for: it asks for \"{item}\", and no table, column or stored value holds {words}; the query the model wrote returns {}{} instead: it answers another question{close}",
                returned.iter().take(6).cloned().collect::<Vec<_>>().join(", "),
                if returned.len() > 6 { format!(" and {} more", returned.len() - 6) } else { String::new() }
            ),
        ));
    }
    None
}

/// The things the question's requests ask for ([`crate::checks::columns::requested_items`]) with
/// a word among `unlinked`, that no column the query returns carries, each with what the query
/// returns instead. "What is the production budget of each film?" answered with the film's id,
/// title, director and gross; "Who is the principal investigator of each project?" with the
/// project's details and a staff role.
///
/// A thing is named in at most three words that are not the lexicon's generic ones ("name",
/// "total", "number": a longer span is a clause the request's reading ran into), one of which
/// links to nothing. It is carried when one of its words is a word of a returned column's name,
/// of the table it belongs to, or, for a word that is not generic, of an output's alias; matched
/// as the linking matches words (a plural, a prefix, an abbreviation either way, a stem), inside
/// a name (`town` in `hometown`), one edit apart in a word of five letters or more ("popuation",
/// "benifit"), or by an attribute of the lexicon (`sex` for "gender", `dob` for "birthdates"; a
/// word of that attribute inside a name written as one word, `head` in `headofstate` for
/// "leader"). A misspelt generic word ("mininum", "teh") is generic. Nothing is said of a query that returns
/// `*`, or a computation over two columns (`max_salary - min_salary` for "the range of
/// salaries"): such an output can be what any words name. A role's holder ("who is the ...") is
/// a thing asked for, answered by a name (`fname`, `pilot_name`), and not asked for when a
/// superlative picks one ("who is the earliest graduate").
pub fn unanswered_items(query: &Query, catalog: &Catalog, question: &str, unlinked: &[String]) -> Vec<(String, Vec<String>)> {
    if unlinked.is_empty() {
        return Vec::new();
    }
    let gaps: Vec<String> = unlinked.iter().map(|w| w.to_lowercase()).collect();
    let who_holds = question.trim_start().to_lowercase().starts_with("who ");
    // (the thing as asked, its content words, its generic words)
    let items: Vec<(String, Vec<String>, Vec<String>)> = crate::checks::columns::requested_items(question)
        .into_iter()
        .filter_map(|item| {
            let words: Vec<String> = item.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 2).map(str::to_string).collect();
            if who_holds && words.iter().any(|w| crate::lexicon::superlative(w).is_some()) {
                return None;
            }
            let (common, content): (Vec<String>, Vec<String>) = words.into_iter().partition(|w| w.chars().count() < 3 || generic_word(w));
            (content.len() <= 3 && content.iter().any(|w| gaps.contains(w))).then_some((item, content, common))
        })
        .collect();
    if items.is_empty() {
        return Vec::new();
    }
    // the words of the columns the query returns (and of their tables), of its aliases, and the
    // returned items as written
    let mut columns: BTreeSet<String> = BTreeSet::new();
    let mut aliases_given: BTreeSet<String> = BTreeSet::new();
    let mut returned: Vec<String> = Vec::new();
    let mut open = false;
    each_select(query, &mut |s| {
        let aliases = crate::checks::aliases(s, catalog);
        for item in &s.projection {
            let expr = match item {
                SelectItem::UnnamedExpr(e) => e,
                SelectItem::ExprWithAlias { expr, alias } => {
                    aliases_given.extend(tokens(&alias.value));
                    expr
                }
                _ => {
                    open = true;
                    continue;
                }
            };
            if computed_over_columns(expr) {
                open = true;
            }
            let shown = expr.to_string();
            if !returned.contains(&shown) {
                returned.push(shown);
            }
            let _ = sqlparser::ast::visit_expressions(expr, |e| {
                // the name as written (`SurfaceArea` is two words) and as the catalog has it
                if let Some(name) = column_ident(e).map(|i| i.value.as_str()) {
                    columns.extend(tokens(name));
                    columns.insert(name.to_lowercase());
                    if let Some((rel, column)) = crate::checks::column_of(e, &aliases, catalog) {
                        columns.extend(tokens(&column).into_iter().chain(tokens(&rel.name)));
                    }
                }
                ControlFlow::<()>::Continue(())
            });
        }
    });
    // a role's holder is a person or a thing, answered by its name ("Who is the president of the
    // club?" → the member's first and last names)
    if open || (who_holds && columns.iter().any(|t| t.contains("name"))) {
        return Vec::new();
    }
    // a word of the function's in a name (`average` of `average_duration`) carries nothing asked
    // ("age" would otherwise abbreviate it)
    let every: Vec<&String> = columns.iter().chain(aliases_given.iter()).filter(|t| !generic_word(t)).collect();
    let of_columns: Vec<&String> = columns.iter().collect();
    items
        .into_iter()
        .filter(|(_, content, common)| {
            !content.iter().any(|w| carried(w, &every))
                && !common.iter().any(|w| carried(w, &of_columns))
        })
        .map(|(item, _, _)| (item, returned.clone()))
        .collect()
}

/// Is `w` (of a question, lower-case) a word of no thing: a generic, function, aggregate or
/// superlative word of the lexicon, or one misspelt (one edit apart in a word of five letters or
/// more, the same letters in another order in a shorter one: "mininum", "teh")?
fn generic_word(w: &str) -> bool {
    let common = crate::lexicon::GENERIC_WORDS
        .iter()
        .chain(crate::lexicon::AGGREGATE_CUES)
        .chain(crate::lexicon::AGGREGATE_WORDS.iter().flat_map(|(_, ws)| ws.iter()))
        .copied()
        .chain(crate::lexicon::SUPERLATIVES.iter().map(|s| s.word));
    let n = w.chars().count();
    crate::lexicon::is_function_word(w) || common.into_iter().any(|g| g == w || if n >= 5 { strsim::osa_distance(w, g) <= 1 } else { n >= 3 && anagram(w, g) })
}

/// Does one of `names` (words of names, lower-case) carry `w` (a word of the question,
/// lower-case), as the linking matches words (a plural, a prefix, an abbreviation either way, a
/// stem), inside a name (`town` in `hometown`), one edit apart in a word of five letters or more,
/// or by an attribute of the lexicon (`sex` for "gender")?
fn carried(w: &str, names: &[&String]) -> bool {
    let stem = singular(w);
    let long = stem.chars().count() >= 5;
    let verb = verb_stem(w);
    names.iter().any(|t| {
        let t_stem = singular(t);
        (stem.chars().count() >= 4 && t.contains(stem.as_str()))
            || verb.as_ref().is_some_and(|v| t.contains(v.as_str()))
            || matches(w, t)
            || matches(t, w)
            || same_stem(w, t)
            || (long && t_stem.chars().count() >= 5 && strsim::osa_distance(&stem, &t_stem) <= 1)
            || same_attribute(w, t)
            || attribute_inside(w, t)
    })
}

/// The stem of a verb form in `-ed` or `-ing`, a doubled last consonant undone, when at least
/// four letters are left ("billed" and "billing" → `bill`, "enrolled" → `enrol`, "processed" →
/// `process`): the form a name writes the same verb in (`billing_state`, `student_enrolment`).
fn verb_stem(w: &str) -> Option<String> {
    let base = w.strip_suffix("ed").or_else(|| w.strip_suffix("ing"))?;
    let chars: Vec<char> = base.chars().collect();
    // a doubled consonant is undone ("shipp", "enroll"), not a stem's own ("bill", "process")
    let undoubled = match chars.as_slice() {
        [.., a, b] if a == b && (!"aeiouls".contains(*a) || (*a == 'l' && chars.len() > 4)) => &chars[..chars.len() - 1],
        _ => &chars[..],
    };
    (undoubled.len() >= 4).then(|| undoubled.iter().collect())
}

/// The words the scope stage let through because the model's vote read them as the schema's
/// (`unlinked`: they link to no table, column or stored value) that the query writes nothing
/// for: no table or column it reads, and no string it compares, carries the word ([`carried`]).
/// A word that follows, in the question, a word carried by a column the query reads (no key or
/// code: `body_builder_id` measures nothing) is that column's measure, not a thing of its own
/// ("the minimum snatch score" → `MIN(snatch)`, "the highest average attendance" → `ORDER BY
/// average`, "the color scheme" → `color`), and a word of no thing ([`generic_word`]) asks for
/// nothing; neither is returned. (An output's alias referred to by name, `ORDER BY
/// body_fat_percentage`, is read as a name written: a label can carry a word it holds nothing
/// of.) What the query returns then answers the question without what the word asks for ("Which
/// publications were released as e-books?" → every publication, "What age rating does each
/// movie have?" → the reviewers' stars), or the word is the schema's under a name nothing links
/// it to: the data cannot show which, so the answer is not verified.
pub fn unwritten_words(query: &Query, catalog: &Catalog, question: &str, unlinked: &[String]) -> Vec<String> {
    let words: Vec<String> = unlinked.iter().map(|w| w.to_lowercase()).filter(|w| !generic_word(w)).collect();
    if words.is_empty() {
        return Vec::new();
    }
    // the words of the tables and columns the query reads, and of the strings it compares; and
    // the words of the columns it reads that are no key or code (what a measure can be of)
    let mut read: BTreeSet<String> = BTreeSet::new();
    let mut measured: BTreeSet<String> = BTreeSet::new();
    let mut measure = |name: &str| {
        let words = tokens(name);
        if !words.last().is_some_and(|w| ["id", "code", "key"].contains(&w.as_str())) {
            measured.extend(words);
        }
    };
    let _ = sqlparser::ast::visit_relations(query, |name| {
        if let Some(last) = name.0.last() {
            read.extend(tokens(&last.to_string().replace('"', "")));
        }
        ControlFlow::<()>::Continue(())
    });
    // the names as written anywhere (an ORDER BY is the query's, not a block's), and as the
    // catalog has them through each block's aliases
    let _ = sqlparser::ast::visit_expressions(query, |e| {
        if let Some(name) = column_ident(e).map(|i| i.value.as_str()) {
            read.extend(tokens(name));
            measure(name);
        }
        ControlFlow::<()>::Continue(())
    });
    each_select(query, &mut |s| {
        let aliases = crate::checks::aliases(s, catalog);
        let _ = sqlparser::ast::visit_expressions(s, |e| {
            if column_ident(e).is_some() {
                if let Some((rel, column)) = crate::checks::column_of(e, &aliases, catalog) {
                    read.extend(tokens(&column).into_iter().chain(tokens(&rel.name)));
                }
            }
            ControlFlow::<()>::Continue(())
        });
    });
    let strings: Vec<String> = name_strings(query).iter().flat_map(|s| s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect::<Vec<_>>()).collect();
    let names: Vec<&String> = read.iter().chain(strings.iter()).collect();
    let of_columns: Vec<&String> = measured.iter().collect();
    let said: Vec<String> = question.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\'')).filter(|w| !w.is_empty()).map(|w| w.to_lowercase()).collect();
    // the word before each place the question says `w`, when it is a word of a thing
    let before = |w: &str| -> Vec<&String> {
        said.iter().enumerate().filter(|(_, s)| s.as_str() == w).filter_map(|(i, _)| i.checked_sub(1).map(|j| &said[j])).filter(|p| !crate::lexicon::is_function_word(p)).collect()
    };
    words
        .into_iter()
        .filter(|w| !carried(w, &names))
        .filter(|w| !before(w).iter().any(|p| carried(p, &of_columns)))
        .collect()
}

/// The words of `soft` (verbs and adverbs that link to no name) that are no form of a verb that
/// relates things ([`crate::lexicon::is_relation_verb_form`]): a join writes those, so a query
/// that reads nothing for one is no evidence.
pub fn unrelating(soft: &[String]) -> Vec<String> {
    soft.iter().filter(|w| !crate::lexicon::is_relation_verb_form(&w.to_lowercase())).cloned().collect()
}

/// The verbs and adverbs of the question that link to no name (`soft`) that neither of two
/// readings of it writes anything for ([`unwritten_words`] of each), leaving out every form of a
/// verb that relates things ([`crate::lexicon::is_relation_verb_form`]: "departing flights" is
/// the join to `flights`). Two readings that both pass every check and return different rows
/// while neither reads anything for "suspended" ("Which wrestlers have been suspended?" →
/// `eliminated_by = 'Orton'` and another guess) are not two readings of the question: each
/// stands in for what the data does not hold with a guess of its own.
pub fn unwritten_by_both(first: &Query, second: &Query, catalog: &Catalog, question: &str, soft: &[String]) -> Vec<String> {
    let words = unrelating(soft);
    if words.is_empty() {
        return Vec::new();
    }
    let left = unwritten_words(first, catalog, question, &words);
    if left.is_empty() {
        return Vec::new();
    }
    let other = unwritten_words(second, catalog, question, &left);
    left.into_iter().filter(|w| other.contains(w)).collect()
}

/// Does `word` (of a question, lower-case) name what a column called `name` holds: its last word
/// (`product_stock_number` holds a number) as the linking matches words (a plural, a prefix, an
/// abbreviation either way) or as one attribute in the lexicon ("gender" and `sex`), when no other
/// word of the name is an attribute of the lexicon that `word` is not (`price_in_pounds` holds a
/// price, not the weight "pounds" can measure)?
pub fn names_what_column_holds(word: &str, name: &str) -> bool {
    let mut words = tokens(name);
    let Some(head) = words.pop() else { return false };
    let named = matches(word, &head) || matches(&head, word) || same_attribute(word, &head);
    named && !words.iter().any(|t| crate::lexicon::attribute_groups(t).next().is_some() && !same_attribute(word, t))
}

/// Do `word` (of a question, lower-case) and `token` (of a name) name one attribute in the
/// lexicon ([`crate::lexicon::ATTRIBUTE_WORDS`]: "gender" and `sex`, "minutes" and `duration`),
/// as either is written or in the singular?
fn same_attribute(word: &str, token: &str) -> bool {
    let w_stem = singular(word);
    let t_stem = singular(token);
    let words = [word, w_stem.as_str(), word.strip_suffix('s').unwrap_or(word)];
    let tokens = [token, t_stem.as_str(), token.strip_suffix('s').unwrap_or(token)];
    let same = words.iter().flat_map(|w| crate::lexicon::attribute_groups(w)).any(|g| tokens.iter().any(|t| g.contains(t)));
    same
}

/// Is a word of the attribute `word` names in the lexicon, of four letters or more, inside
/// `token` (a name the schema writes as one word: "leader" and `headofstate`)?
fn attribute_inside(word: &str, token: &str) -> bool {
    let stem = singular(word);
    let forms = [word, stem.as_str()];
    let inside = forms.iter().flat_map(|w| crate::lexicon::attribute_groups(w)).any(|g| g.iter().any(|a| a.chars().count() >= 4 && token.contains(a)));
    inside
}

/// Are `a` and `b` the same letters in another order ("teh" and "the")?
fn anagram(a: &str, b: &str) -> bool {
    let sorted = |s: &str| {
        let mut v: Vec<char> = s.chars().collect();
        v.sort_unstable();
        v
    };
    a.len() == b.len() && a != b && sorted(a) == sorted(b)
}

/// Is `e` a computation over two or more columns (`max_salary - min_salary`, `price * quantity`)?
fn computed_over_columns(e: &Expr) -> bool {
    let mut read = 0;
    let mut op = false;
    let _ = sqlparser::ast::visit_expressions(e, |x| {
        match x {
            Expr::BinaryOp { .. } => op = true,
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => read += 1,
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    op && read >= 2
}

/// The names a query that PostgreSQL could not plan reads and that the database has nowhere, when
/// they are why it failed: every column or relation PostgreSQL reports missing in `problems`
/// (`column t.open_date does not exist`, `relation "award" does not exist`) is one that no table,
/// view, schema or column of `catalog` has, nor one that nearly names one. Empty when PostgreSQL
/// reports no missing name, or when one of them is near a name the database has: that is a
/// misspelt, misplaced or mis-qualified name (`claims_headers` for `claim_headers`,
/// `s.degree_program_id` where another table has `degree_program_id`, `products` for
/// `products_for_hire`), a mistake of the model's, for the fixes and the repair.
///
/// Near: the same name, singular or plural, in any case; every word of one a word of the other
/// (as the linking matches words: `open_date` is near `date_opened`); or one edit in five letters
/// (`normalized_damerau_levenshtein` at least 0.8, [`NEAR_SPELLING`]: a transposition is one edit). And a missing name made only of
/// words the database's names use (`book_title` over `books.title`, `customer_rating` over
/// `customers` and `reviews.rating`) is a recombination of its names, not a thing it lacks: at
/// least one of its words must be one that no name of the database has, and one the question
/// says ("When was each account opened?" → `open_date`): a name the model made up that the
/// question does not ask for (`award` for "a Nobel laureate", `nosuch`) says nothing of the
/// question, only of the model.
pub fn absent_names(problems: &[String], catalog: &Catalog, question: &str) -> Vec<String> {
    absent_names_by(problems, catalog, Some(question), near_name)
}

/// The names of [`absent_names`] without asking that the question say a word of them: every name
/// PostgreSQL reports missing is near no name of the database, and has a word that none of its
/// names has (`pubdate` for "When was each paper published?", `end_time` for "How long did each
/// concert last?", `manufacturer` for "Which chip models are made by Qualcomm?"). What the model
/// reached for is nowhere in the database, though not named after the question; weaker than
/// [`absent_names`], read only beside a word of the question that links to nothing
/// ([`crate::ask`]'s nowhere scope).
pub fn nowhere_names(problems: &[String], catalog: &Catalog) -> Vec<String> {
    absent_names_by(problems, catalog, None, near_name)
}

/// The names of [`absent_names`] with "absent" read as written: no table, view, schema or column
/// has the name itself (in any case, singular or plural), though one may have a name near it
/// (`founder` beside the `founded` a reading looked for for "When was each manufacturer
/// founded?"). Weaker evidence alone (a misspelt column is near its name); read only beside
/// another finding of the same run ([`crate::ask`]'s agreed scope).
pub fn absent_names_as_written(problems: &[String], catalog: &Catalog, question: &str) -> Vec<String> {
    absent_names_by(problems, catalog, Some(question), |m, n| {
        let (m, n) = (m.to_lowercase(), n.to_lowercase());
        m == n || singular(&m) == singular(&n)
    })
}

/// The names PostgreSQL reports missing in `problems`, when each is absent by `near`: no name
/// of `catalog` near it, and a word of it that no name of `catalog` has and, when `question` is
/// given, that the question says.
fn absent_names_by(problems: &[String], catalog: &Catalog, question: Option<&str>, near: fn(&str, &str) -> bool) -> Vec<String> {
    static MISSING: once_cell::sync::Lazy<regex::Regex> = once_cell::sync::Lazy::new(|| {
        regex::Regex::new(r#"\b(?:column|relation) (?:"([^"]+)"|([\w.$]+)) does not exist"#).expect("compiles")
    });
    let mut missing: Vec<String> = Vec::new();
    for p in problems {
        for c in MISSING.captures_iter(p) {
            let Some(name) = c.get(1).or_else(|| c.get(2)) else { continue };
            // the last part: `t.open_date` is the column `open_date`, `"s.award"` the relation `award`
            let last = name.as_str().rsplit('.').next().unwrap_or_default().to_string();
            if !last.is_empty() && !missing.iter().any(|m| m.eq_ignore_ascii_case(&last)) {
                missing.push(last);
            }
        }
    }
    let mut names: BTreeSet<String> = BTreeSet::new();
    for t in &catalog.tables {
        names.insert(t.name.name.clone());
        names.insert(t.name.schema.clone());
        names.extend(t.columns.iter().map(|c| c.name.clone()));
    }
    // the words the database's names are made of
    let vocabulary: BTreeSet<String> = names.iter().flat_map(|n| tokens(n)).collect();
    let asked: Option<Vec<String>> = question.map(|q| super::words::content_words(q).into_iter().map(|w| w.text).collect());
    // a word of it no name of the database has (and, when asked, that the question says: the
    // model named what it looked for after the question), and the database has no such thing
    let said = |w: &String| asked.as_ref().is_none_or(|asked| asked.iter().any(|a| matches(a, w) || matches(w, a)));
    let absent = |m: &String| !names.iter().any(|n| near(m, n)) && tokens(m).iter().any(|w| !vocabulary.iter().any(|t| matches(w, t)) && said(w));
    if missing.is_empty() || !missing.iter().all(absent) {
        return Vec::new();
    }
    missing
}

/// A run about to end without a query that runs (every query written fails, or the model wrote
/// none that is usable: `failure` says how), for a question the scope stage let through with
/// content words that link to nothing because the model's vote read them as the schema's. Two
/// signals against one: the words name nothing the schema or the stored values hold, and the
/// model, asked to find what they name, wrote nothing that runs. The schema has no place for them
/// (missing data). Only the words: a proper name no stored value holds is the question's value
/// ("orders from Atlantis"), whose failure says nothing of the data; so a gap of names alone
/// (`gap.unlinked` all in `gap.names`) is `None`.
///
/// Read off the tuning half of the unanswerable set ("Which stations are within walking distance
/// of a train station?", "Which composers were born before 1950?": every query failed). Of 3,759
/// recorded Benchmark 2 runs of answerable questions (238 ending `error`), two questions had such
/// words and ended without a query that runs ("the wifi *function*", "the clean and jerk
/// *score*"): it refuses them where they ended `error`, neither answered.
pub fn unwritten(gap: &Gap, failure: &str) -> Option<(Kind, String)> {
    let words: Vec<String> = gap.unlinked.iter().filter(|w| !gap.names.contains(w)).cloned().collect();
    if words.is_empty() {
        return None;
    }
    let close = if gap.closest.is_empty() { String::new() } else { format!("; the closest in the schema: {}", gap.closest.join(", ")) };
    Some((
        Kind::MissingData,
        format!(
            "the database has no place for what the question asks about: no table, column or stored value holds {}, and no query written for the question runs ({failure}): read as the schema's, the words led to nothing that holds them{close}",
            quoted(&words)
        ),
    ))
}

/// A comparison of the column a query returns with a string ([`only_its_own_value`]), and
/// whether it is a condition of its own: a term of the WHERE's top-level `AND` (`=`, `LIKE` or
/// `ILIKE`, not under an `OR`, not one value of an `IN` list), which every row returned meets.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnValue {
    pub literal: literals::Literal,
    pub alone: bool,
}

/// A query that can only return the values it compares with ([`only_its_own_value`]): one
/// column, the very column conditions of its WHERE compare, `=` or `LIKE`/`ILIKE`, with a
/// string. For a question that does not ask for things by their name ([`crate::lexicon::NAMING_WORDS`], no
/// quoted value), this is how the model writes a category the data does not record: "Which
/// churches are Catholic?" → `SELECT name FROM church WHERE name ILIKE 'Catholic'`, "Which
/// directors were born in Europe?" → `SELECT director FROM movie WHERE director ILIKE
/// '%European%'`, "Which institutions are Ivy League universities?" → `… WHERE name LIKE 'ivy
/// league' AND name LIKE '%university%'`. It is evidence only with the data's word (the caller
/// reads it, `ask::scope::own_value_scope`): no stored value of the column matches a condition
/// of its own (or, when none is, any of the comparisons), and no text column of the tables the
/// query reads, or of their neighbours, holds the value either ([`decisive`]). Every comparison
/// of the column is returned, sorted as [`literals::comparisons`] sorts them (none for a question
/// in another language, one that names things, or a query of another shape).
pub fn only_its_own_value(query: &Query, catalog: &Catalog, question: &str) -> Vec<OwnValue> {
    use sqlparser::ast::{Distinct, SetExpr};
    if !crate::lexicon::reads_english(question) || question.contains(['\'', '"', '“', '‘']) {
        return Vec::new();
    }
    let lower = question.to_lowercase();
    if lower.split(|c: char| !c.is_alphanumeric()).any(|w| crate::lexicon::NAMING_WORDS.contains(&w)) {
        return Vec::new();
    }
    // a column in another case is the same column: `UPPER(writer) LIKE 'NOBEL PRIZE'` compares
    // the writer as `writer ILIKE 'Nobel Prize'` does (the data is read ignoring case)
    let unfolded = without_case_folding(query);
    let query = &unfolded;
    // one block: a value compared in a subquery ("the title of the prerequisite of the course
    // International Finance") picks other rows than the ones returned
    let SetExpr::Select(select) = query.body.as_ref() else { return Vec::new() };
    if !crate::sql::one_block(query) {
        return Vec::new();
    }
    if !matches!(select.distinct, None | Some(Distinct::Distinct)) || crate::checks::grouped(select) || select.having.is_some() {
        return Vec::new();
    }
    let [item] = select.projection.as_slice() else { return Vec::new() };
    let expr = match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
        _ => return Vec::new(),
    };
    let aliases = crate::checks::aliases(select, catalog);
    let Some(returned) = crate::checks::column_of(expr, &aliases, catalog) else { return Vec::new() };
    let of_returned = |l: &literals::Literal| {
        matches!(l.op, literals::Op::Equals | literals::Op::Matches) && !l.cast && (l.rel.clone(), l.column.clone()) == returned && !l.core().is_empty()
    };
    let alone: Vec<literals::Literal> = conditions_of_their_own(query, catalog).into_iter().filter(|l| of_returned(l)).collect();
    literals::comparisons(query, catalog)
        .into_iter()
        .filter(|l| of_returned(l))
        .map(|literal| OwnValue { alone: alone.contains(&literal), literal })
        .collect()
}

/// The conditions of their own of a query of one block: the comparisons of a string with a
/// column (`=`, `LIKE`, `ILIKE`) that are terms of its WHERE's top-level `AND`, which every row
/// returned meets (not under an `OR`, not one value of an `IN` list); none for a query of several
/// blocks.
fn conditions_of_their_own(query: &Query, catalog: &Catalog) -> Vec<literals::Literal> {
    use sqlparser::ast::{BinaryOperator, SetExpr};
    let SetExpr::Select(select) = query.body.as_ref() else { return Vec::new() };
    if !crate::sql::one_block(query) {
        return Vec::new();
    }
    let own: Vec<Expr> = select
        .selection
        .iter()
        .flat_map(crate::checks::conjuncts)
        .filter(|t| matches!(t, Expr::BinaryOp { op: BinaryOperator::Eq, .. } | Expr::Like { negated: false, .. } | Expr::ILike { negated: false, .. }))
        .cloned()
        .collect();
    let mut only = query.clone();
    if let SetExpr::Select(s) = only.body.as_mut() {
        s.selection = own.into_iter().reduce(|a, b| Expr::BinaryOp { left: Box::new(a), op: BinaryOperator::And, right: Box::new(b) });
    }
    literals::comparisons(&only, catalog)
}

/// The comparisons of a query that runs in which the model wrote, as a stored value, a word of
/// the question that links to nothing (`unlinked`, the words the scope stage's vote let through):
/// "Which festivals take place in European capital cities?" → `WHERE location ILIKE 'European
/// capital cities'`. Each is marked a condition of its own or not, as [`only_its_own_value`]
/// marks them. It is evidence only with the data's word, read by the caller as for
/// [`only_its_own_value`] ([`decisive`]): no stored value of the column matches the value, and no
/// text column of the tables the query reads, or of their neighbours, holds it. A category the
/// database does not record, written by the model as if it were one of the column's values; a
/// proper name no stored value holds ("orders from Atlantis") is no unlinked word (it is one of
/// the gap's names), and stays the question's value, whose answer is no rows. Any shape of
/// query: the value need not be what it returns.
pub fn unlinked_as_values(query: &Query, catalog: &Catalog, unlinked: &[String]) -> Vec<OwnValue> {
    if unlinked.is_empty() {
        return Vec::new();
    }
    let unfolded = without_case_folding(query);
    let alone = conditions_of_their_own(&unfolded, catalog);
    let writes_unlinked = |l: &literals::Literal| {
        let core = l.core().to_lowercase();
        let words: Vec<&str> = core.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
        unlinked.iter().any(|u| words.iter().any(|w| singular(w) == singular(&u.to_lowercase())))
    };
    literals::comparisons(&unfolded, catalog)
        .into_iter()
        .filter(|l| matches!(l.op, literals::Op::Equals | literals::Op::Matches) && !l.cast && writes_unlinked(l))
        .map(|literal| OwnValue { alone: alone.contains(&literal), literal })
        .collect()
}

/// The comparisons of a query that runs in which the model wrote a proper name of the question
/// that no stored value the value index matched holds (`names`: "Canada", "Summer Olympics") as
/// one of a column's values: the value shares a word with the name (`born_state LIKE 'Canada%'`,
/// `url LIKE '%Summer Olympics%'`, `city ILIKE '%Olympic%'` for "the Olympic Games"), each marked
/// a condition of its own or not as [`only_its_own_value`] marks them. Evidence only with the
/// data's word (nowhere, [`decisive`]) and a word of the question the query reads nothing for
/// (the caller's): a name alone is the question's value, whose answer is no rows ("orders from
/// Atlantis").
pub fn names_as_values(query: &Query, catalog: &Catalog, names: &[String]) -> Vec<OwnValue> {
    let words_of = |s: &str| -> Vec<String> {
        s.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 2 && !crate::lexicon::is_function_word(w))
            .map(singular)
            .collect()
    };
    let named: Vec<Vec<String>> = names.iter().map(|n| words_of(n)).filter(|w| !w.is_empty()).collect();
    if named.is_empty() {
        return Vec::new();
    }
    let unfolded = without_case_folding(query);
    let alone = conditions_of_their_own(&unfolded, catalog);
    literals::comparisons(&unfolded, catalog)
        .into_iter()
        .filter(|l| matches!(l.op, literals::Op::Equals | literals::Op::Matches) && !l.cast)
        .filter(|l| {
            let core = words_of(&l.core());
            named.iter().any(|n| n.iter().any(|w| core.contains(w)))
        })
        .map(|literal| OwnValue { alone: alone.contains(&literal), literal })
        .collect()
}

/// The equality comparisons of a query (`=`, `IN`) in which the model wrote common words of the
/// question as a stored value: every content word of the value is a word the question writes in
/// lower case (not its first word), as the linking matches words (a plural, a stem: "deliver" and
/// `'Delivery'`). "Which cards were reported lost or stolen?" → `transaction_type IN ('Lost',
/// 'Stolen')`, "Which restaurants deliver to campus?" → `restypename = 'Campus Delivery'`. Each is
/// marked a condition of its own or not, as [`only_its_own_value`] marks them. Evidence only with
/// the data's word, read by the caller: the value is nowhere ([`decisive`]) and the column is a
/// closed list of a few categories, none of them the one the question names; the question asks
/// for a category the database does not record. A proper name (written capitalised) or a quoted
/// value is the question's own, whose answer is no rows ("orders from Atlantis"), and a pattern
/// is a part of a value the question may name freely: neither is returned.
pub fn common_words_as_values(query: &Query, catalog: &Catalog, question: &str) -> Vec<OwnValue> {
    if !crate::lexicon::reads_english(question) || question.contains(['\'', '"', '“', '‘']) {
        return Vec::new();
    }
    let lower: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .skip(1)
        .filter(|w| w.chars().all(|c| c.is_lowercase()))
        .map(singular)
        .collect();
    let written = |v: &str| lower.iter().any(|w| *w == v || same_stem(w, v) || verb_stem(w).is_some_and(|s| s == v));
    let of_common_words = |l: &literals::Literal| {
        let core = l.core().to_lowercase();
        let words: Vec<String> = core.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty() && !crate::lexicon::is_function_word(w)).map(singular).collect();
        !words.is_empty() && words.iter().all(|w| w.chars().count() >= 3 && w.chars().all(char::is_alphabetic) && written(w))
    };
    let unfolded = without_case_folding(query);
    let alone = conditions_of_their_own(&unfolded, catalog);
    literals::comparisons(&unfolded, catalog)
        .into_iter()
        .filter(|l| l.op == literals::Op::Equals && !l.cast && of_common_words(l))
        .map(|literal| OwnValue { alone: alone.contains(&literal), literal })
        .collect()
}

/// The comparison of [`only_its_own_value`] that shows the query can only return its own value,
/// given which values are nowhere in the data (`nowhere`, one per comparison, in order; the
/// caller may stop reading at a condition of its own that is nowhere): the first
/// condition of its own that is nowhere (no row can meet it), or, when every value compared is
/// nowhere, the first of them. A value that is somewhere beside it, under an `OR` or in an `IN`
/// list, can be what the query returns.
pub fn decisive<'c>(compared: &'c [OwnValue], nowhere: &[bool]) -> Option<&'c OwnValue> {
    let mut pairs = compared.iter().zip(nowhere.iter().copied());
    if let Some((c, _)) = pairs.clone().find(|(c, n)| c.alone && *n) {
        return Some(c);
    }
    (nowhere.len() == compared.len() && pairs.all(|(_, n)| n)).then(|| compared.first()).flatten()
}

/// The query with every `lower(x)` and `upper(x)` of a column or a string read as `x` itself.
fn without_case_folding(query: &Query) -> Query {
    let mut out = query.clone();
    let _ = sqlparser::ast::visit_expressions_mut(&mut out, |e| {
        let Expr::Function(f) = e else { return ControlFlow::<()>::Continue(()) };
        let name = f.name.to_string().to_lowercase();
        let inner = crate::checks::degenerate::only_argument(f)
            .filter(|a| (name == "lower" || name == "upper") && matches!(a, Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Value(_)))
            .cloned();
        if let Some(inner) = inner {
            *e = inner;
        }
        ControlFlow::Continue(())
    });
    out
}

/// The similarity of spelling (`strsim::normalized_damerau_levenshtein`) from which a missing name is read
/// as a misspelling of a name the database has.
pub const NEAR_SPELLING: f64 = 0.8;

fn near_name(missing: &str, name: &str) -> bool {
    let (m, n) = (missing.to_lowercase(), name.to_lowercase());
    if m == n || singular(&m) == singular(&n) || strsim::normalized_damerau_levenshtein(&m, &n) >= NEAR_SPELLING {
        return true;
    }
    let (mt, nt) = (tokens(&m), tokens(&n));
    let within = |a: &[String], b: &[String]| !a.is_empty() && a.iter().all(|w| b.iter().any(|t| matches(w, t)));
    // every word of the missing name in the name, or every word of a name of two or more words in
    // the missing name (`customer_rating` where `rating` is a column is not enough: one word)
    within(&mt, &nt) || (nt.len() >= 2 && within(&nt, &mt))
}

/// The column names the query reads that no table or view of `catalog` has and that the query
/// does not define itself (an output name, a CTE's or a subquery's column), each named after one
/// of the `unlinked` words.
pub fn missing_columns(query: &Query, catalog: &Catalog, unlinked: &[String]) -> Vec<String> {
    #[derive(Default)]
    struct Names {
        read: BTreeSet<String>,
        defined: BTreeSet<String>,
    }
    impl Visitor for Names {
        type Break = ();
        fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
            if let Some(with) = &q.with {
                for cte in &with.cte_tables {
                    self.defined.insert(cte.alias.name.value.to_lowercase());
                    self.defined.extend(cte.alias.columns.iter().map(|c| c.name.value.to_lowercase()));
                }
            }
            ControlFlow::Continue(())
        }
        fn pre_visit_table_factor(&mut self, t: &TableFactor) -> ControlFlow<()> {
            let alias = match t {
                TableFactor::Table { alias, .. } | TableFactor::Derived { alias, .. } | TableFactor::Function { alias, .. } | TableFactor::UNNEST { alias, .. } => alias.as_ref(),
                _ => None,
            };
            if let Some(a) = alias {
                self.defined.insert(a.name.value.to_lowercase());
                self.defined.extend(a.columns.iter().map(|c| c.name.value.to_lowercase()));
            }
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            self.read.extend(column_name(e));
            ControlFlow::Continue(())
        }
    }
    let mut names = Names::default();
    let _ = query.visit(&mut names);
    each_select(query, &mut |s| {
        for item in &s.projection {
            if let SelectItem::ExprWithAlias { alias, .. } = item {
                names.defined.insert(alias.value.to_lowercase());
            }
        }
    });
    let columns: BTreeSet<String> = catalog.tables.iter().flat_map(|t| t.columns.iter().map(|c| c.name.to_lowercase())).collect();
    names
        .read
        .into_iter()
        .filter(|n| !columns.contains(n) && !names.defined.contains(n))
        .filter(|n| tokens(n).iter().any(|t| unlinked.iter().any(|w| matches(&w.to_lowercase(), t) || same_attribute(&w.to_lowercase(), t))))
        .collect()
}

/// The column an expression names, lower-case, without its table (`c.email` is `email`); none for
/// any other expression.
pub(crate) fn column_name(e: &Expr) -> Option<String> {
    column_ident(e).map(|i| i.value.to_lowercase())
}

/// The identifier of the column an expression names, as written (`c."SurfaceArea"` is
/// `SurfaceArea`); none for any other expression.
fn column_ident(e: &Expr) -> Option<&sqlparser::ast::Ident> {
    match e {
        Expr::Identifier(i) => Some(i),
        Expr::CompoundIdentifier(parts) => parts.last(),
        _ => None,
    }
}

/// The output columns the query names after an `unlinked` word while computing them from columns
/// whose names hold no such word (`alias`, the expression as written): the query presents a
/// stand-in as what the question asks for ("How many flight hours does each pilot have?" →
/// `COUNT(p.record_id) AS flight_hours`, "the graduation rate of each campus" → `SUM(degrees) /
/// SUM(totalenrollment_ay) AS graduation_rate`). An expression over a column that holds the word,
/// however it is written (`AVG(lifeexpectancy) AS average_life_expectancy`), is the data's.
pub fn stand_ins(query: &Query, unlinked: &[String]) -> Vec<(String, String)> {
    if unlinked.is_empty() {
        return Vec::new();
    }
    let words: Vec<String> = unlinked.iter().map(|w| w.to_lowercase()).collect();
    let mut out: Vec<(String, String)> = Vec::new();
    each_select(query, &mut |s| {
        for item in &s.projection {
            let SelectItem::ExprWithAlias { expr, alias } = item else { continue };
            let named: Vec<&String> = words.iter().filter(|w| names_word(&alias.value, w)).collect();
            if named.is_empty() {
                continue;
            }
            let mut read: Vec<String> = Vec::new();
            let _ = sqlparser::ast::visit_expressions(expr, |e| {
                read.extend(column_name(e));
                ControlFlow::<()>::Continue(())
            });
            let holds = |w: &str| {
                let stem = singular(w);
                read.iter().any(|c| c.contains(stem.as_str()) || tokens(c).iter().any(|t| matches(w, t) || same_stem(w, t) || same_attribute(w, t)))
            };
            if named.iter().all(|w| !holds(w)) {
                let shown = (alias.value.clone(), expr.to_string());
                if !out.contains(&shown) {
                    out.push(shown);
                }
            }
        }
    });
    out
}

/// The output columns [`stand_ins`] finds named after one of `soft` (a question's words that
/// link to no name: verbs and adverbs linking to nothing, "streamed", or words linked only by
/// meaning, "teachers" near `school`) where, besides, no table or column of the catalog
/// holds the word as [`column_holds`] reads names: the schema records nothing of what the output
/// is named after (`COUNT(*) AS stream_count` where no name has a stream), so the query counts or
/// computes another thing under its name. A verb the schema names somewhere ("rented" beside a
/// `rental` table's columns, as a stem) is left alone: the query may have read the wrong table,
/// which other checks see.
pub fn unnamed_stand_ins(query: &Query, catalog: &Catalog, soft: &[String]) -> Vec<(String, String)> {
    let unnamed: Vec<String> = soft
        .iter()
        .filter(|w| w.chars().count() >= 4 && !crate::lexicon::GENERIC_WORDS.contains(&w.as_str()))
        .filter(|w| !catalog.tables.iter().any(|t| t.columns.iter().any(|c| column_holds(w, &t.name, &c.name))))
        .cloned()
        .collect();
    stand_ins(query, &unnamed)
}

/// Does an output's name (`stream_count`) name `word`: a word of at least four letters of it the
/// same word, singular or plural, or one a prefix of the other (no abbreviation, `num` is no
/// word; no shared stem, "directed" in `num_films_directed` names the films, not the "directors"
/// the question asks about), or a word of the attribute it names in the lexicon ("minutes" and
/// `duration`). [`stand_ins`] reads aliases so.
pub fn names_word(alias: &str, word: &str) -> bool {
    let w = word.to_lowercase();
    tokens(alias).iter().any(|t| t.chars().count() >= 4 && (matches(&w, t) || same_attribute(&w, t)))
}

/// The proper names of the question (phrases as it writes them, [`super::words::proper_name_phrases`])
/// with a word among `names` (words no stored value holds) that the query leaves out: no word of
/// the phrase is a word of the schema's names (as the linking matches words), one of the
/// [`crate::lexicon::is_ordinary_capital`] or a function word, in `curated` text, or written by a
/// string the query writes (in it, or encoded as [`invented_values`] reads encodings: "LA" and
/// `'Los Angeles'`, "Dean Peeters" and `'Peeters'`). The query answers a question without the
/// name: "the ISBN of each book" answered with the book's id and price, "the IMDb rating" with
/// the film's rating, "churches that are Catholic" with every church.
pub fn dropped_names(query: &Query, catalog: &Catalog, question: &str, names: &[String], curated: &[String]) -> Vec<String> {
    name_phrases(query, catalog, question, names, curated).into_iter().filter(|(_, writers)| writers.is_empty()).map(|(phrase, _)| phrase).collect()
}

/// The proper names of the question with a word among `names` that the query writes only part
/// of: a string of the query writes the name ([`dropped_names`] reads them), and a word of it
/// that no stored value holds is written by none of the query's strings, nor misspelt.
/// Each is (the name, the string as the query writes it). "Which airlines are members of the
/// Star Alliance?" answered with `city = 'Alliance'`: the database stores no "Star Alliance", and
/// the query puts one of its words for it, another thing of the same word.
pub fn partly_written_names(query: &Query, catalog: &Catalog, question: &str, names: &[String], curated: &[String]) -> Vec<(String, String)> {
    let names: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
    let strings = name_strings(query);
    name_phrases(query, catalog, question, &names, curated)
        .into_iter()
        .filter_map(|(phrase, writers)| {
            let lower = phrase.to_lowercase();
            let unheld: Vec<&str> = lower.split(' ').filter(|w| names.iter().any(|n| n == w)).collect();
            // a word written by a string as `writes` reads it (in it, a word of it, its initials, a
            // country for its people, a code), or misspelt ("Dean Peeters" and 'Daan Peeters')
            let written = |w: &str, s: &String| {
                s.contains(w) || writes(s, w, &[w.to_string()], &[]) || s.split(|c: char| !c.is_alphanumeric()).any(|p| !p.is_empty() && strsim::normalized_damerau_levenshtein(w, p) >= 0.5)
            };
            // every such word written by one string of the query or another ('Otha' and 'Moyer'
            // for "OTHA MOYER", 'Daan' and 'Peeters' for "Dean Peeters")
            let first = writers.first()?.clone();
            (!unheld.iter().all(|w| strings.iter().any(|s| written(w, s)))).then_some((phrase, first))
        })
        .collect()
}

/// The strings a query writes that can write a name: lower-case, without the `%` and `_` of a
/// pattern, neither a flag's value nor a single character.
fn name_strings(query: &Query) -> Vec<String> {
    let mut strings: Vec<String> = Vec::new();
    let _ = sqlparser::ast::visit_expressions(query, |e| {
        if let Expr::Value(v) = e {
            if let sqlparser::ast::Value::SingleQuotedString(s) | sqlparser::ast::Value::EscapedStringLiteral(s) | sqlparser::ast::Value::NationalStringLiteral(s) = &v.value {
                let core = s.trim_matches(|c: char| c == '%' || c == '_' || c.is_whitespace()).to_lowercase();
                if core.chars().count() > 1 && !crate::lexicon::is_flag_value(&core) && !strings.contains(&core) {
                    strings.push(core);
                }
            }
        }
        ControlFlow::<()>::Continue(())
    });
    strings
}

/// The proper names of the question (phrases as it writes them) with a word among `names`, none
/// of whose words the schema, the lexicon or a curator keeps, each with the strings of the query
/// that write it (lower-case, without the `%` and `_` of a pattern; a flag's value or a single
/// character writes no name).
fn name_phrases(query: &Query, catalog: &Catalog, question: &str, names: &[String], curated: &[String]) -> Vec<(String, Vec<String>)> {
    if names.is_empty() {
        return Vec::new();
    }
    let schema = super::link::names(catalog);
    let strings = name_strings(query);
    let curated: Vec<String> = curated.iter().map(|t| t.to_lowercase()).collect();
    super::words::proper_name_phrases(question)
        .into_iter()
        .filter(|phrase| phrase.split(' ').any(|w| names.iter().any(|n| n.eq_ignore_ascii_case(w))))
        .filter_map(|phrase| {
            let text = phrase.to_lowercase();
            let words: Vec<String> = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect();
            let runs = initials_of_runs(&words);
            let kept = words.iter().any(|w| {
                crate::lexicon::is_ordinary_capital(w)
                    || crate::lexicon::is_function_word(w)
                    || curated.iter().any(|t| t.contains(w.as_str()))
                    || schema.iter().any(|n| n.tokens.iter().any(|t| matches(w, t) || matches(t, w) || same_stem(w, t)))
            });
            let writers: Vec<String> = strings.iter().filter(|s| writes(s, &text, &words, &runs)).cloned().collect();
            (!kept).then_some((phrase, writers))
        })
        .collect()
}

/// The names of the question that say what kind of thing they are by a word that links to
/// nothing, and that the query compares a column with: each phrase of
/// [`super::words::proper_names_with_next`] with a word among `names` (words no stored value
/// holds: the caller leaves out those the tables the query reads, or their neighbours, hold),
/// followed by a word among `unlinked` (no table, column or stored value holds it) that is no
/// name, and a comparison (`=`, `IN`, `LIKE`, `ILIKE`) of a column with a string holding a word
/// of the name. Each is (phrase, the kind word, the comparison as written). "Which counties are
/// on the Pacific coast?" → `location = 'Pacific'`, in a column that holds `North`, `West` and
/// `East`: the database records no coast, so the name stands for a category it does not store,
/// and the query puts it in a column that holds other things. A name the data lacks whose kind
/// the schema has a place for ("orders from the city of Atlantis", "customers in the Atlantis
/// region") is still answered: its answer is no rows.
pub fn unplaced_names(query: &Query, catalog: &Catalog, question: &str, names: &[String], unlinked: &[String]) -> Vec<(String, String, String)> {
    if names.is_empty() || unlinked.is_empty() {
        return Vec::new();
    }
    let gaps: Vec<String> = unlinked.iter().map(|w| w.to_lowercase()).collect();
    // `lower(country) LIKE '%pacific%'` compares the column as `country ILIKE` does
    let compared: Vec<literals::Literal> =
        literals::comparisons(&without_case_folding(query), catalog).into_iter().filter(|l| matches!(l.op, literals::Op::Equals | literals::Op::Matches)).collect();
    let mut out = Vec::new();
    for (phrase, next) in super::words::proper_names_with_next(question) {
        let Some(kind) = next else { continue };
        if !gaps.contains(&kind) || names.iter().any(|n| n.to_lowercase() == kind) {
            continue;
        }
        let name_words: Vec<String> = phrase.split(' ').filter(|w| names.iter().any(|n| n == w)).map(str::to_lowercase).collect();
        let writes_name = |l: &&literals::Literal| {
            let core = l.core().to_lowercase();
            core.split(|c: char| !c.is_alphanumeric()).any(|p| name_words.iter().any(|w| w == p))
        };
        if let Some(l) = compared.iter().find(writes_name) {
            let op = if l.op.pattern() { "LIKE" } else { "=" };
            out.push((phrase.clone(), kind, format!("{}.{} {op} '{}'", l.rel.name, l.column, l.value.replace('\'', "''"))));
        }
    }
    out
}

/// The string values the query compares with columns (`table.column`, value) that the question
/// does not name, distinct ignoring case: not in the question's text, no word of them a word of
/// the question (as the linking matches words: a plural, a prefix, a stem), not a stored value
/// the value index matched in the question, and not the data's encoding of a word of the
/// question: a flag's value (`'Y'`, `'false'`), a digit, a code of at most three characters
/// that begins a content word of the question (`'F'` for "female"; never a function word: `'IN'`
/// for "in", `'h'` for "how") or that a content word of it begins (`'USA'` for "US"), a code the
/// question spells out (in capitals, "division AS"; in quotes; "the letter a"), the initials of words of the question (`'US'` for "United States"), a
/// value whose initials are a word of it (`'Los Angeles'` for "LA"), a country for its people or
/// the reverse (`'France'` for "French", [`crate::lexicon::names_country`]), the word `'null'` (a
/// column's text for no value), or, when the question names a time or a number, a value with no
/// letter (`'8/%'` for "August", `'4:%'` for "4 minutes"). And a date a `date` or `timestamp`
/// column is compared equal with, when the question names no time at all ([`names_a_time`]).
pub fn invented_values(query: &Query, catalog: &Catalog, question: &str, grounded: &[(String, String)]) -> Vec<(String, String)> {
    let text = question.to_lowercase();
    let question_words: Vec<String> = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect();
    let question_initials = initials_of_runs(&question_words);
    let time_named = names_a_time(question);
    let spelled = spelled_out(question);
    let named = |l: &literals::Literal| {
        let core = l.core().to_lowercase();
        core.is_empty()
            // matched by the value index; a code of up to three characters only by the rules
            // below (the trigram search matches the stored state 'IN' to the word "in")
            || (core.chars().count() > 3 && grounded.iter().any(|(_, v)| v.to_lowercase() == l.value.to_lowercase()))
            // written as a code: in capitals ("division AS", "an A or a C"), in quotes, or as a
            // letter ("the letter a")
            || spelled.contains(&core)
            // a digit (one character that is a letter is named as any short code is, below: the
            // initial of a content word, 'F' for "female", not 'h' for "how many bytes")
            || (core.chars().count() == 1 && core.chars().all(|c| c.is_ascii_digit()))
            || crate::lexicon::is_flag_value(&core)
            // the word `null`: how a text column written from another system says "no value"
            || core == "null"
            // no letters, for a question that names a time or a number: a date, a month or a
            // duration written as the data writes it ('8/%' for "August", '4:%' for "4 minutes")
            || (!core.chars().any(char::is_alphabetic) && time_named)
            || writes(&core, &text, &question_words, &question_initials)
    };
    let mut seen = BTreeSet::new();
    // a date compared with a date column, where the question names no date at all
    let dates = if time_named { Vec::new() } else { literals::date_comparisons(query, catalog) };
    literals::comparisons(query, catalog)
        .into_iter()
        .filter(|l| !named(l))
        .chain(dates.into_iter().filter(|l| !l.value.trim().eq_ignore_ascii_case("null")))
        .filter(|l| seen.insert(l.value.to_lowercase()))
        .map(|l| (format!("{}.{}", l.rel.name, l.column), l.value))
        .collect()
}

/// The values a query compares that [`invented_values`] and [`assumed_thresholds`] take as the
/// question's only because they are short, when the column compared carries no content word of
/// the question: a string that is a digit, a yes/no flag ('Yes', 'T') or a code of up to three
/// letters beginning a lower-case content word of the question, or a number 0 or 1 a column
/// equals. "Which phones have a headphone jack?" → `wifi = 'Yes'`, "Which employees have a
/// company car?" → `minit = 'C'`, "Which students have paid their tuition?" → `tot_cred = 0`:
/// the column is no attribute the question names, so the flag or the code is the model's stand-in.
/// 'F' for "female" in `sex` is the data's encoding of the question's attribute, and is not
/// returned. No open problem alone (a flag or a code of a column the question does not name can
/// be a join's condition); evidence only beside a word the query reads nothing for
/// (`ask::scope::assumed_scope`). Each as the comparison and the value as written.
pub fn weak_values(query: &Query, catalog: &Catalog, question: &str) -> Vec<(String, String)> {
    use sqlparser::ast::{BinaryOperator, Value};
    let words: Vec<String> = question.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect();
    let content: Vec<String> =
        words.iter().filter(|w| w.chars().count() >= 3 && !crate::lexicon::is_function_word(w) && !generic_word(w)).cloned().collect();
    // the words the question writes in lower case: a code beginning a name is the name's ('CA')
    let lower: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().next().is_some_and(char::is_lowercase))
        .map(str::to_string)
        .filter(|w| !crate::lexicon::is_function_word(w))
        .collect();
    let named_column = |column: &str| {
        let parts = tokens(column);
        let parts: Vec<&String> = parts.iter().collect();
        content.iter().any(|w| carried(w, &parts))
    };
    let mut out: Vec<(String, String)> = Vec::new();
    for l in literals::comparisons(query, catalog) {
        let core = l.core().to_lowercase();
        let n = core.chars().count();
        let short = (n == 1 && core.chars().all(|c| c.is_ascii_digit()))
            || crate::lexicon::is_flag_value(&core)
            || (n <= 3 && core.chars().all(char::is_alphabetic) && !words.contains(&core) && begins_a_content_word(&core, &lower));
        if short && !named_column(&l.column) && !out.iter().any(|(_, v)| v.eq_ignore_ascii_case(&l.value)) {
            out.push((format!("{}.{} = '{}'", l.rel.name, l.column, l.value.replace('\'', "''")), l.value.clone()));
        }
    }
    let _ = sqlparser::ast::visit_expressions(query, |e| {
        if let Expr::BinaryOp { left, op: BinaryOperator::Eq | BinaryOperator::NotEq, right } = e {
            for (side, other) in [(left, right), (right, left)] {
                let Expr::Value(v) = side.as_ref() else { continue };
                let Value::Number(n, _) = &v.value else { continue };
                let Some(column) = column_name(other) else { continue };
                if (n == "0" || n == "1") && !named_column(&column) && !out.iter().any(|(c, _)| *c == e.to_string()) {
                    out.push((e.to_string(), n.clone()));
                }
            }
        }
        ControlFlow::<()>::Continue(())
    });
    out
}

/// Does the question name a time a query could write as a date: a number (a year, a day), a
/// month or a day of the week, or a time relative to now ("today", "recently", "last month",
/// "this year")? A date the query compares a date column with, when the question names none
/// ("How many days are there in a leap year?" → `status_date = '2020-02-29'`), is the model's.
fn names_a_time(question: &str) -> bool {
    static RELATIVE: once_cell::sync::Lazy<regex::Regex> = once_cell::sync::Lazy::new(|| {
        regex::Regex::new(
            r"(?i)\b(?:today|tonight|yesterday|tomorrow|now|nowadays|current(?:ly)?|recent(?:ly)?|latest|earliest|ago|since|upcoming|(?:this|last|next|past|previous|coming)\s+(?:\w+\s+)?(?:day|week|month|quarter|year|decade|century|season|semester|term)s?)\b",
        )
        .expect("a valid pattern")
    });
    question.chars().any(|c| c.is_ascii_digit())
        || question.split(|c: char| !c.is_alphanumeric()).any(|w| crate::lexicon::is_month_or_day(w))
        || RELATIVE.is_match(question)
}

/// Does `core` (a string the query writes, lower-case) write what `text` (lower-case) names, whose
/// words are `words` and the initials of whose runs of content words are `runs`: in the text
/// itself, a word of it a word of the text (as the linking matches words: a plural, a prefix, a
/// stem), its initials a word of the text (`'los angeles'` for "LA"), a country for its people or
/// the reverse, a code of at most three letters that begins a word of the text (`'ca'` for
/// "California"), that a word of it begins (`'usa'` for "US") or that its runs' initials are
/// (`'us'` for "United States")?
fn writes(core: &str, text: &str, words: &[String], runs: &[String]) -> bool {
    let short = core.chars().count() <= 3;
    // a code of up to three characters is written by a word of the text, not inside one ('in'
    // is not written by "Indiana" nor by the word "in": see below)
    if !short && text.contains(core) {
        return true;
    }
    let parts: Vec<&str> = core.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    if parts.iter().any(|p| p.chars().count() >= 3 && words.iter().any(|w| w == p || matches(w, p) || matches(p, w) || same_stem(w, p))) {
        return true;
    }
    if parts.len() >= 2 && words.iter().any(|w| *w == initials(&parts)) {
        return true;
    }
    // a people for its country, or the reverse ("French" and 'France', "the UK" and 'British')
    if crate::lexicon::names_country(words, core) {
        return true;
    }
    // a short code the text writes: a content word of it, or its beginning ('ca' for
    // "California"), never a function word ('IN' and 'OR' for "in" and "or" are states the
    // question does not name)
    if short && begins_a_content_word(core, words) {
        return true;
    }
    short
        && core.chars().all(char::is_alphabetic)
        && (words.iter().any(|w| w.chars().count() >= 2 && !crate::lexicon::is_function_word(w) && core.starts_with(w.as_str())) || runs.iter().any(|r| r == core))
}

/// The words a question writes as codes, lower-cased: a word in capitals ("AS", "A", "LA"), a
/// string in quotes, a letter after "letter" or "character" ("the letter a").
fn spelled_out(question: &str) -> Vec<String> {
    static QUOTED: once_cell::sync::Lazy<regex::Regex> =
        once_cell::sync::Lazy::new(|| regex::Regex::new(r#"'([^']+)'|"([^"]+)"|\b(?i:letters?|characters?)\s+([A-Za-z])\b"#).expect("a valid pattern"));
    let capitals = question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().any(char::is_alphabetic) && !w.chars().any(char::is_lowercase))
        .map(str::to_lowercase);
    let quoted = QUOTED.captures_iter(question).filter_map(|c| c.get(1).or(c.get(2)).or(c.get(3))).map(|m| m.as_str().trim().to_lowercase());
    capitals.chain(quoted).collect()
}

/// Is `core` (lower-case) a content word of `words` or the beginning of one (a word no function
/// word is)?
fn begins_a_content_word(core: &str, words: &[String]) -> bool {
    words.iter().any(|w| w.starts_with(core) && !crate::lexicon::is_function_word(w))
}

/// The initials of the runs of two or three content words of `words` ("united states" is "us"),
/// not of any words ("in the").
fn initials_of_runs(words: &[String]) -> Vec<String> {
    (2..=3).flat_map(|n| words.windows(n).filter(|w| !w.iter().any(|x| crate::lexicon::is_function_word(x))).map(initials)).collect()
}

/// The first letters of `words`, lower-case: "los angeles" is "la".
fn initials<S: AsRef<str>>(words: &[S]) -> String {
    words.iter().filter_map(|w| w.as_ref().chars().next()).flat_map(char::to_lowercase).collect()
}

/// Numbers an answer computes with that the question does not give: a constant, operand of
/// `+`, `-`, `*`, `/` or `%` anywhere in the query, that the question writes nowhere (in digits,
/// as a number word, or in what curators taught, `curated`), when the question names no unit or
/// scale a factor could convert ([`crate::lexicon::SCALE_WORDS`]: "in hours", "in thousands",
/// "percent"). 0, 1, 2, 0.5 and 100 are ordinary (a ratio made decimal, halving, doubling, a share
/// in percent). "What is the monthly rent of each apartment?" answered by `bedroom_count * 1000 AS
/// monthly_rent`: the formula is the model's, so the answer is not verified. Each as the
/// expression that holds the number, and the number as written. On every gold query of
/// `spider_train` and the 13 `spider` databases, none (`answerability -- invented`).
pub fn invented_numbers(query: &Query, question: &str, curated: &[String]) -> Vec<(String, String)> {
    use sqlparser::ast::{BinaryOperator, UnaryOperator, Value};
    let text = question.to_lowercase();
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric() && c != '.' && c != ',').map(|w| w.trim_matches(|c| c == '.' || c == ',')).filter(|w| !w.is_empty()).collect();
    if text.contains('%') || words.iter().any(|w| crate::lexicon::SCALE_WORDS.contains(w)) {
        return Vec::new();
    }
    // the numbers the question and the curators write, as values
    let written: Vec<f64> = words
        .iter()
        .map(|w| w.replace(',', ""))
        .filter_map(|w| w.parse::<f64>().ok().or_else(|| crate::lexicon::number(&w).map(|n| n as f64)))
        .chain(curated.iter().flat_map(|t| t.split(|c: char| !c.is_ascii_digit() && c != '.').filter_map(|w| w.parse::<f64>().ok()).collect::<Vec<_>>()))
        .collect();
    fn number(e: &Expr) -> Option<&str> {
        match e {
            Expr::Nested(inner) => number(inner),
            Expr::UnaryOp { op: UnaryOperator::Minus | UnaryOperator::Plus, expr } => number(expr),
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => Some(n.as_str()),
                _ => None,
            },
            _ => None,
        }
    }
    let mut out: Vec<(String, String)> = Vec::new();
    let _ = sqlparser::ast::visit_expressions(query, |e| {
        if let Expr::BinaryOp { left, op, right } = e {
            if matches!(op, BinaryOperator::Plus | BinaryOperator::Minus | BinaryOperator::Multiply | BinaryOperator::Divide | BinaryOperator::Modulo) {
                for n in [left, right].into_iter().filter_map(|side| number(side)) {
                    let Ok(value) = n.parse::<f64>() else { continue };
                    let ordinary = [0.0, 1.0, 2.0, 0.5, 100.0].contains(&value);
                    if !ordinary && !written.contains(&value) && !out.iter().any(|(_, m)| m.parse::<f64>().ok() == Some(value)) {
                        out.push((e.to_string(), n.to_string()));
                    }
                }
            }
        }
        ControlFlow::<()>::Continue(())
    });
    out
}

/// Words that ask for a day, a date or a time of one.
const DAY_WORDS: &[&str] = &["date", "dates", "day", "days", "birthday", "birthdays", "birthdate", "birthdates", "dob"];

/// Words that ask for a month.
const MONTH_WORDS: &[&str] = &["month", "months"];

/// Words that name a part of a date: a year, a month, or an age counted in years.
const PART_WORDS: &[&str] = &["year", "years", "yr", "yrs", "month", "months", "age", "ages"];

/// Words that name a year, or an age counted in years.
const YEAR_WORDS: &[&str] = &["year", "years", "yr", "yrs", "age", "ages"];

/// Words of a column's name that say it holds a day (or a time of one).
const DAY_NAME_WORDS: &[&str] = &["date", "dates", "day", "days", "time", "dob", "birthday", "datetime"];

/// One output of a SELECT block ([`block_outputs`]): its alias, if any, and the column it
/// returns as it is (`None` for any other expression).
struct Output<'s> {
    alias: Option<&'s sqlparser::ast::Ident>,
    column: Option<(crate::catalog::RelName, String)>,
}

/// The outputs of a block, each with the column it returns as it is, resolved through the
/// block's aliases; and whether the block returns `*` or `t.*` (any column at all).
fn block_outputs<'s>(s: &'s sqlparser::ast::Select, catalog: &Catalog) -> (Vec<Output<'s>>, bool) {
    let aliases = crate::checks::aliases(s, catalog);
    let mut wildcard = false;
    let outputs = s
        .projection
        .iter()
        .filter_map(|item| {
            let (expr, alias) = match item {
                SelectItem::UnnamedExpr(e) => (e, None),
                SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias)),
                _ => {
                    wildcard = true;
                    return None;
                }
            };
            Some(Output { alias, column: crate::checks::column_of(expr, &aliases, catalog) })
        })
        .collect();
    (outputs, wildcard)
}

/// The columns an answer returns for a date the question asks for that hold only a part of one:
/// the question asks for a thing by a word of [`DAY_WORDS`] ("the exact birth date of each
/// singer") and says no year, month or age anywhere, and the query returns, directly, a column
/// named after a year, a month or an age (`birth_year`) and none that holds a day (a `date` or
/// `timestamp` column, a name with "date", "day" or "time"); or it asks for a month ("the song
/// release month of each singer"), says no year or age, and the query returns a column named after
/// a year or an age and none that holds a month or a day. Each is (the thing asked for, the
/// column as `table.column`). The answer gives less than was asked, so it is not verified. On
/// every gold query of `spider_train` and the 13 `spider` databases, and every recorded answer of
/// Benchmark 2, none (`answerability -- invented`).
pub fn coarser_answers(query: &Query, catalog: &Catalog, question: &str) -> Vec<(String, String)> {
    let text = question.to_lowercase();
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let items = crate::checks::columns::requested_items(question);
    let asks = |level: &[&str]| items.iter().find(|item| item.to_lowercase().split(|c: char| !c.is_alphanumeric()).any(|w| level.contains(&w))).cloned();
    // what is asked, the words that would say the coarser part is meant, the coarser parts, and
    // the words besides a day's of a column that holds what is asked
    let (asked, said, coarser, finer): (String, &[&str], &[&str], &[&str]) = if let Some(a) = asks(DAY_WORDS) {
        (a, PART_WORDS, PART_WORDS, &[])
    } else if let Some(a) = asks(MONTH_WORDS) {
        (a, YEAR_WORDS, YEAR_WORDS, MONTH_WORDS)
    } else {
        return Vec::new();
    };
    if words.iter().any(|w| said.contains(w)) {
        return Vec::new();
    }
    let mut parts: Vec<String> = Vec::new();
    let mut holds = false;
    each_select(query, &mut |s| {
        let (outputs, wildcard) = block_outputs(s, catalog);
        holds |= wildcard;
        for (rel, column) in outputs.into_iter().filter_map(|o| o.column) {
            let type_name = type_of(catalog, &rel, &column);
            let name_tokens = tokens(&column);
            let fine = |t: &String| DAY_NAME_WORDS.contains(&t.as_str()) || finer.contains(&t.as_str());
            if type_name.starts_with("date") || type_name.starts_with("timestamp") || name_tokens.iter().any(fine) {
                holds = true;
            } else if name_tokens.last().is_some_and(|t| coarser.contains(&t.as_str())) {
                let shown = format!("{}.{column}", rel.name);
                if !parts.contains(&shown) {
                    parts.push(shown);
                }
            }
        }
    });
    if holds {
        return Vec::new();
    }
    parts.into_iter().map(|c| (asked.clone(), c)).collect()
}

/// Does `column` of `rel` hold what `word` names, as the linking matches words: its stem inside
/// the column's name, or a word of the column's or its table's name the same word (a plural, a
/// prefix, an abbreviation either way, a stem) or the same attribute of the lexicon?
fn column_holds(word: &str, rel: &crate::catalog::RelName, column: &str) -> bool {
    let held: Vec<String> = tokens(column).into_iter().chain(tokens(&rel.name)).collect();
    let stem = singular(word);
    (stem.chars().count() >= 4 && column.to_lowercase().contains(stem.as_str()))
        || held.iter().any(|h| matches(word, h) || matches(h, word) || same_stem(word, h) || same_attribute(word, h) || attribute_inside(word, h))
}

/// The output columns an answer names after a word of the question while returning, as it is, a
/// column that holds none of the name's words: `course AS ending_date` for "the end date of each
/// course". A name's word is held by the column's name or its table's as the linking matches
/// words (a plural, a prefix, an abbreviation either way, a stem, inside a name, an attribute of
/// the lexicon); words of fewer than four letters and the lexicon's generic words name nothing.
/// The column is presented as what the question asks for, and is another thing. Each is (the
/// name, the column as `table.column`).
pub fn relabelled_columns(query: &Query, catalog: &Catalog, question: &str) -> Vec<(String, String)> {
    let text = question.to_lowercase();
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 3).collect();
    let mut out: Vec<(String, String)> = Vec::new();
    each_select(query, &mut |s| {
        for output in block_outputs(s, catalog).0 {
            let (Some(alias), Some((rel, column))) = (output.alias, output.column) else { continue };
            let named: Vec<String> = tokens(&alias.value)
                .into_iter()
                .filter(|t| t.chars().count() >= 4 && !crate::lexicon::GENERIC_WORDS.contains(&t.as_str()))
                .filter(|t| words.iter().any(|w| matches(w, t) || matches(t, w) || same_stem(w, t)))
                .collect();
            if named.is_empty() {
                continue;
            }
            let all: Vec<String> = tokens(&alias.value);
            if !all.iter().any(|t| column_holds(t, &rel, &column)) {
                let shown = (alias.value.clone(), format!("{}.{column}", rel.name));
                if !out.contains(&shown) {
                    out.push(shown);
                }
            }
        }
    });
    out
}

/// The word naming the thing after each of `markers` in `words` ("each of the stadiums" →
/// "stadiums").
fn things_after<'w>(words: &[&'w str], markers: &[&str]) -> Vec<&'w str> {
    words
        .iter()
        .enumerate()
        .filter(|(_, w)| markers.contains(w))
        .filter_map(|(i, _)| words[i + 1..].iter().copied().find(|w| !matches!(*w, "of" | "the" | "these" | "those" | "one" | "single")))
        .collect()
}

/// The columns an answer returns for "each" thing of the question that belong to another table
/// holding many rows for each of them: the question asks about "each E" (or "every E"), the query
/// reads E's table and, in a block that neither groups nor aggregates, returns a column of a
/// table with a foreign key to E's (a child: each E has many of its rows), a table no word of the
/// question names. "In which year was each stadium built?" answered with `concert.year` from
/// concerts joined to stadiums: the year of each concert held there, not an attribute of the
/// stadium. (A parent's column is one per row, "the location of each concert" read from its
/// stadium, and is the data's; so is a column the question names by a word of its own, "the
/// delegate of each county", or a key of a table it names, "the colleges each player tried out
/// for".) Each is ("each E" as written, the column as `table.column`). On every gold query of
/// `spider_train` and the 13 `spider` databases and every recorded answer of Benchmark 2, none
/// (`answerability -- invented`).
pub fn many_per_each(query: &Query, catalog: &Catalog, question: &str) -> Vec<(String, String)> {
    let text = question.to_lowercase();
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    // the thing after "each" or "every" ("each of the stadiums" too)
    let each = things_after(&words, &["each", "every"]);
    if each.is_empty() {
        return Vec::new();
    }
    let named = |t: &crate::catalog::RelName| tokens(&t.name).iter().any(|tok| words.iter().any(|w| w.chars().count() >= 3 && (matches(w, tok) || same_stem(w, tok))));
    let names_thing = |t: &crate::catalog::RelName, thing: &str| tokens(&t.name).last().is_some_and(|tok| matches(thing, tok) || same_stem(thing, tok));
    let mut out: Vec<(String, String)> = Vec::new();
    each_select(query, &mut |s| {
        if crate::checks::grouped(s) || crate::checks::projects_aggregate(s) {
            return;
        }
        let aliases = crate::checks::aliases(s, catalog);
        let (outputs, _) = block_outputs(s, catalog);
        for thing in &each {
            let Some(parent) = aliases.values().find(|r| names_thing(r, thing)) else { continue };
            for (rel, column) in outputs.iter().filter_map(|o| o.column.clone()) {
                let child = rel != *parent && catalog.foreign_keys.iter().any(|fk| fk.from == rel && fk.to == *parent && !fk.from_columns.iter().any(|c| c.eq_ignore_ascii_case(&column)));
                // the column named by a word of its own ("the delegate ... for each county"), not
                // by a word any table's column could hold (a year, a date, a name)
                let asked_by_name = tokens(&column).iter().any(|tok| {
                    tok.chars().count() >= 4
                        && !crate::lexicon::GENERIC_WORDS.contains(&tok.as_str())
                        && !DAY_WORDS.contains(&tok.as_str())
                        && !PART_WORDS.contains(&tok.as_str())
                        && words.iter().any(|w| matches(w, tok))
                });
                // a key of a table the question names ("the colleges each player tried out for",
                // `tryout.cname` a key of colleges)
                let leads_to_named = catalog.foreign_keys.iter().any(|fk| fk.from == rel && fk.from_columns.iter().any(|c| c.eq_ignore_ascii_case(&column)) && named(&fk.to));
                if child && !named(&rel) && !asked_by_name && !leads_to_named {
                    let shown = (format!("each {thing}"), format!("{}.{column}", rel.name));
                    if !out.contains(&shown) {
                        out.push(shown);
                    }
                }
            }
        }
    });
    out
}

/// Words after "sorted by" that name no attribute: an order, a direction, a unit.
const ORDER_WORDS: &[&str] = &[
    "their", "its", "the", "his", "her", "ascending", "descending", "increasing", "decreasing", "alphabetical", "alphabetically",
    "order", "then", "years", "year", "number", "count", "amount", "total", "size", "value", "values", "level", "degree",
    "title", "titles",
];

/// The sort keys of an answer for a question that says what to sort by ("sorted by years of
/// experience", "ordered by their popularity") when no column the query's ORDER BY reads holds a
/// word of it ([`column_holds`]): `ORDER BY age` for "experience". A content word of four
/// letters or more counts ([`ORDER_WORDS`], a title among them, and the lexicon's generic words
/// aside; a phrase that names a key, "by benefit id", says nothing); an ORDER BY
/// that aggregates ("by the number of their books" as `count(*)`), or reads a column the catalog
/// does not resolve, may hold it, and then nothing is said. `Some((the words after "by", the
/// columns read))`.
pub fn unheld_sort_keys(query: &Query, catalog: &Catalog, question: &str) -> Option<(String, Vec<String>)> {
    static SORTED_BY: once_cell::sync::Lazy<regex::Regex> = once_cell::sync::Lazy::new(|| {
        regex::Regex::new(r"(?i)\b(?:sort|sorted|sorting|order|ordered|ordering|rank|ranked|ranking|arrange|arranged)\s+(?:them\s+|it\s+|the\s+results?\s+)?by\s+([a-z][a-z ]*)").expect("compiles")
    });
    let phrase = SORTED_BY.captures(question)?[1].to_lowercase();
    let phrase: Vec<&str> = phrase.split_whitespace().take_while(|w| !matches!(*w, "and" | "in" | "from" | "with" | "for" | "then" | "descending" | "ascending" | "desc" | "asc")).collect();
    let content: Vec<&str> = phrase
        .iter()
        .copied()
        .filter(|w| w.chars().count() >= 4 && !ORDER_WORDS.contains(w) && !crate::lexicon::GENERIC_WORDS.contains(w) && !matches!(*w, "each" | "every"))
        .collect();
    // a key by its name ("by benefit id"): a key may be named otherwise, and a title is a name
    if content.is_empty() || phrase.iter().any(|w| matches!(*w, "id" | "ids" | "code" | "codes" | "key")) {
        return None;
    }
    let order_by = query.order_by.as_ref()?;
    let sqlparser::ast::OrderByKind::Expressions(keys) = &order_by.kind else { return None };
    let block = crate::checks::answer_selects(query).into_iter().next()?;
    let aliases = crate::checks::aliases(block, catalog);
    let mut read: Vec<String> = Vec::new();
    for key in keys {
        // an output's alias: the expression it names
        let expr = match &key.expr {
            Expr::Identifier(i) => block
                .projection
                .iter()
                .find_map(|item| match item {
                    SelectItem::ExprWithAlias { expr, alias } if alias.value.eq_ignore_ascii_case(&i.value) => Some(expr),
                    _ => None,
                })
                .unwrap_or(&key.expr),
            e => e,
        };
        if crate::checks::calls_aggregate(expr) {
            return None;
        }
        for column in columns_in(expr, &aliases, catalog) {
            let (rel, column) = column?;
            if content.iter().any(|w| column_holds(w, &rel, &column)) {
                return None;
            }
            let shown = format!("{}.{column}", rel.name);
            if !read.contains(&shown) {
                read.push(shown);
            }
        }
    }
    (!read.is_empty()).then(|| (phrase.join(" "), read))
}

/// Words of a column's name that say it holds a time: a date, a day, a year, a month, a moment
/// (`created`, `start_from`, `year_of_founded`, `date_effective_to`).
const TIME_NAME_WORDS: &[&str] = &[
    "date", "dates", "day", "days", "time", "times", "datetime", "timestamp", "dob", "birthday", "birthdate", "year", "years", "yr",
    "month", "months", "week", "weeks", "hour", "hours", "minute", "season", "seasons", "period", "decade", "century", "era", "since",
    "start", "started", "starting", "staring", "end", "ended", "ending", "from", "until", "till", "when", "created", "updated",
    "modified", "opened", "closed", "founded", "established", "built", "joined", "born", "birth", "release", "released", "launch",
    "launched", "effective", "expiry", "expires", "expired", "deadline", "due", "schedule", "scheduled", "arrival", "departure",
    "creation", "establishment", "foundation", "founding", "opening", "closing", "inception", "beginning", "finish", "finished",
];

/// Words of a column's name that say it holds a duration (`duration`, `length` in minutes,
/// `milliseconds`).
const DURATION_NAME_WORDS: &[&str] = &[
    "duration", "durations", "length", "lengths", "time", "times", "hours", "hour", "minutes", "minute", "mins", "seconds", "second", "secs",
    "milliseconds", "ms", "days", "weeks", "months", "years", "runtime", "elapsed", "span",
];

/// The phrase of a question that asks for a time: "when", "since when", "in which year", "what
/// date", "at what time", at the start of the question; or for a duration: "how long did each
/// debate last", "how long does the repair take".
fn asks_for_a_time(question: &str) -> Option<String> {
    static ASKS: once_cell::sync::Lazy<regex::Regex> = once_cell::sync::Lazy::new(|| {
        regex::Regex::new(
            r"(?i)^\s*(since when|when|(?:(?:in|during|from|since|on|at|by|until) )?(?:what|which) (?:year|years|month|date|dates|day|time|decade|century)|how long (?:did|does|do|was|were|is|are|will|would)\b[^?]*?\b(?:last|lasted|lasts|take|took|takes))\b",
        )
        .expect("compiles")
    });
    ASKS.captures(question).map(|c| c[1].to_lowercase())
}

/// Is the phrase [`untimed_answers`] found one that asks for a duration ("how long did each
/// debate last"), not a moment?
pub fn asks_for_a_duration(asked: &str) -> bool {
    asked.starts_with("how long")
}

/// The column references of an expression, each resolved through the block's aliases (`None` for
/// one that does not resolve: a column of a subquery's, a CTE's, an output's alias).
fn columns_in(e: &Expr, aliases: &std::collections::BTreeMap<String, crate::catalog::RelName>, catalog: &Catalog) -> Vec<Option<(crate::catalog::RelName, String)>> {
    let mut out = Vec::new();
    let _ = sqlparser::ast::visit_expressions(e, |x| {
        if matches!(x, Expr::Identifier(_) | Expr::CompoundIdentifier(_)) {
            out.push(crate::checks::column_of(x, aliases, catalog));
        }
        ControlFlow::<()>::Continue(())
    });
    out
}

/// The type of a column, lower-cased ("" when the catalog does not have it).
fn type_of(catalog: &Catalog, rel: &crate::catalog::RelName, column: &str) -> String {
    catalog.table(rel).and_then(|t| t.columns.iter().find(|c| c.name == column)).map(|c| c.type_name.to_lowercase()).unwrap_or_default()
}

/// What an answer returns for a question that asks for a time ("When ...", "Since when ...", "In
/// which year ...", "What date ...") when nothing it returns holds one: no output reads a column
/// of a date, time or interval type or named after a time ([`TIME_NAME_WORDS`]: a year, a date,
/// `created`, `start_from`), and none calls a function of time (`extract`, `date_part`,
/// `to_char`, `now`). "In which year was each stadium built?" answered with `stadium.highest` (an
/// attendance), "Since when have each pair of friends known each other?" with the friends' ids:
/// the answer is another thing than a time. An output that reads a column the catalog does not
/// resolve, or `*`, may hold one, and then nothing is said. `Some((the phrase that asks, what is
/// returned))`.
pub fn untimed_answers(query: &Query, catalog: &Catalog, question: &str) -> Option<(String, Vec<String>)> {
    let asked = asks_for_a_time(question)?;
    // a duration ("how long did it last") is held by an interval, a column named after one
    // (`duration`, `length`, `milliseconds`) or a difference (`end_date - start_date`); a date
    // alone is a moment, no duration
    let duration = asks_for_a_duration(&asked);
    const TIME_FUNCTIONS: &[&str] = &["extract", "date_part", "date_trunc", "to_char", "to_date", "to_timestamp", "now", "age", "make_date", "strftime", "year", "month", "day"];
    let mut returned: Vec<String> = Vec::new();
    for s in crate::checks::answer_selects(query) {
        let aliases = crate::checks::aliases(s, catalog);
        for item in &s.projection {
            let expr = match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
                _ => return None,
            };
            let mut timely = matches!(expr, Expr::Extract { .. });
            let _ = sqlparser::ast::visit_expressions(expr, |x| {
                if let Expr::Function(f) = x {
                    timely |= TIME_FUNCTIONS.contains(&f.name.to_string().to_lowercase().as_str());
                }
                if matches!(x, Expr::Extract { .. } | Expr::Interval(_) | Expr::TypedString { .. }) {
                    timely = true;
                }
                if duration && matches!(x, Expr::BinaryOp { op: sqlparser::ast::BinaryOperator::Minus, .. }) {
                    timely = true;
                }
                ControlFlow::<()>::Continue(())
            });
            if timely {
                return None;
            }
            let columns = columns_in(expr, &aliases, catalog);
            if columns.is_empty() {
                returned.push(expr.to_string());
            }
            for column in columns {
                let Some((rel, column)) = column else { return None };
                let type_name = type_of(catalog, &rel, &column);
                let holds = if duration {
                    type_name.starts_with("interval") || tokens(&column).iter().any(|t| DURATION_NAME_WORDS.contains(&t.as_str()))
                } else {
                    ["date", "time", "interval"].iter().any(|t| type_name.starts_with(t)) || tokens(&column).iter().any(|t| TIME_NAME_WORDS.contains(&t.as_str()))
                };
                if holds {
                    return None;
                }
                let shown = format!("{}.{column}", rel.name);
                if !returned.contains(&shown) {
                    returned.push(shown);
                }
            }
        }
    }
    (!returned.is_empty()).then_some((asked, returned))
}

/// Words of a column's name that say it identifies a thing (a person among them): a key, a code,
/// a number that is no quantity.
const KEY_NAME_WORDS: &[&str] = &["id", "ids", "code", "codes", "number", "no", "num", "key", "ssn", "uid"];

/// What an answer returns for a question that asks who ("Who bought each property?") when all it
/// returns, besides what names the thing asked about "each" of, is quantities: columns of a
/// numeric type that are no key of their table, take part in no foreign key, are named after no
/// key or code ([`KEY_NAME_WORDS`]) and by no word of the question, or aggregates.
/// `buyer_offered_price` for the buyer: a price is nobody. A column of another type, a key, a
/// column the question names ("Who is the advisor of student 1004?" → `advisor`, a number that
/// is someone's id), an expression of another kind, or an output the catalog does not resolve may
/// name a person, and then nothing is said; so may a column of the table the word after "each",
/// "every" or "per" names, unless it is a quantity (then it is counted). The quantities returned
/// as `table.column` (an aggregate as written).
pub fn quantities_for_who(query: &Query, catalog: &Catalog, question: &str) -> Vec<String> {
    let text = question.to_lowercase();
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    if !matches!(words.first(), Some(&"who" | &"whom")) {
        return Vec::new();
    }
    let each = things_after(&words, &["each", "every", "per"]);
    let of_each = |rel: &crate::catalog::RelName| tokens(&rel.name).last().is_some_and(|tok| each.iter().any(|thing| matches(thing, tok) || same_stem(thing, tok)));
    let named = |column: &str| {
        tokens(column).iter().any(|tok| tok.chars().count() >= 3 && !crate::lexicon::GENERIC_WORDS.contains(&tok.as_str()) && words.iter().any(|w| w.chars().count() >= 3 && (matches(w, tok) || same_stem(w, tok))))
    };
    const NUMERIC: &[&str] = &["integer", "bigint", "smallint", "numeric", "real", "double", "decimal", "money", "float", "int"];
    let mut quantities: Vec<String> = Vec::new();
    for s in crate::checks::answer_selects(query) {
        let aliases = crate::checks::aliases(s, catalog);
        for item in &s.projection {
            let expr = match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
                _ => return Vec::new(),
            };
            if let Some((rel, column)) = crate::checks::column_of(expr, &aliases, catalog) {
                let type_name = type_of(catalog, &rel, &column);
                let key = catalog.table(&rel).is_some_and(|t| t.primary_key.iter().any(|k| k.eq_ignore_ascii_case(&column)))
                    || catalog.foreign_keys.iter().any(|fk| {
                        (fk.from == rel && fk.from_columns.iter().any(|c| c.eq_ignore_ascii_case(&column))) || (fk.to == rel && fk.to_columns.iter().any(|c| c.eq_ignore_ascii_case(&column)))
                    })
                    || tokens(&column).iter().any(|t| KEY_NAME_WORDS.contains(&t.as_str()));
                let quantity = !key && !named(&column) && NUMERIC.iter().any(|n| type_name.starts_with(n));
                if quantity {
                    quantities.push(format!("{}.{column}", rel.name));
                } else if !of_each(&rel) {
                    return Vec::new();
                }
            } else if crate::checks::calls_aggregate(expr) && !matches!(expr, Expr::Function(f) if matches!(f.name.to_string().to_lowercase().as_str(), "min" | "max")) {
                quantities.push(expr.to_string());
            } else {
                return Vec::new();
            }
        }
    }
    quantities
}

/// Words that write a number: ordinals and multiples besides [`crate::lexicon::NUMBER_WORDS`].
const MORE_NUMBER_WORDS: &[(&str, f64)] = &[
    ("zero", 0.0), ("once", 1.0), ("twice", 2.0), ("thrice", 3.0), ("first", 1.0), ("second", 2.0), ("third", 3.0), ("fourth", 4.0),
    ("fifth", 5.0), ("sixth", 6.0), ("seventh", 7.0), ("eighth", 8.0), ("ninth", 9.0), ("tenth", 10.0), ("thirteen", 13.0),
    ("fourteen", 14.0), ("sixteen", 16.0), ("seventeen", 17.0), ("eighteen", 18.0), ("nineteen", 19.0), ("thirty", 30.0), ("forty", 40.0),
    ("sixty", 60.0), ("seventy", 70.0), ("eighty", 80.0), ("ninety", 90.0), ("dozen", 12.0), ("thousand", 1000.0), ("million", 1e6),
    ("billion", 1e9), ("half", 0.5), ("quarter", 0.25), ("single", 1.0), ("double", 2.0), ("triple", 3.0), ("pair", 2.0), ("couple", 2.0), ("both", 2.0),
];

/// The numbers a question writes, as the comparisons of a query may state them: in digits (with
/// separators, a decade "1990s" as each of its years), as a number word or an ordinal; each also
/// one more and one less ("at least 3" is `> 2`), scaled by a word of scale that follows or a
/// percent (`3 million`, `5%` as 0.05), and the numbers `curated` text writes.
fn numbers_written(question: &str, curated: &[String]) -> Vec<f64> {
    let text = question.to_lowercase();
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric() && c != '.' && c != ',' && c != '%').map(|w| w.trim_matches(|c| c == '.' || c == ',')).filter(|w| !w.is_empty()).collect();
    let mut out: Vec<f64> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let bare = w.replace(',', "");
        let (bare, percent) = match bare.strip_suffix('%') {
            Some(b) => (b.to_string(), true),
            None => (bare, false),
        };
        if let Some(decade) = bare.strip_suffix('s').and_then(|d| d.parse::<u32>().ok()).filter(|d| d % 10 == 0) {
            out.extend((decade..decade + 10).map(f64::from));
            continue;
        }
        let Some(n) = bare.parse::<f64>().ok().or_else(|| crate::lexicon::number(&bare).map(|n| n as f64)).or_else(|| MORE_NUMBER_WORDS.iter().find(|(m, _)| *m == bare).map(|(_, n)| *n)) else {
            continue;
        };
        let scale = match words.get(i + 1).copied() {
            Some("thousand" | "thousands" | "k") => 1000.0,
            Some("million" | "millions") => 1e6,
            Some("billion" | "billions") => 1e9,
            Some("hundred") => 100.0,
            Some("percent") => 0.01,
            _ => 1.0,
        };
        for v in [n, n * scale, if percent { n / 100.0 } else { n }] {
            out.extend([v, v - 1.0, v + 1.0]);
        }
    }
    out.extend(curated.iter().flat_map(|t| t.split(|c: char| !c.is_ascii_digit() && c != '.').filter_map(|w| w.parse::<f64>().ok()).collect::<Vec<_>>()));
    out
}

/// The numbers an answer compares a column with (`=`, `<>`, `<`, `>`, `<=`, `>=`, `BETWEEN`,
/// `IN`) that the question does not write ([`numbers_written`]) and no curator taught: "Which
/// teachers have a doctorate?" answered with `grade = 100`. 0 and 1 are ordinary (a flag, "any").
/// And, for a question that names no time ([`names_a_time`]), a date written as a string that
/// bounds a column (`<`, `<=`, `>`, `>=`, `BETWEEN`): "eliminated in the first round" answered
/// with `created < '2023-01-01 00:00:00'`. Which rows are meant then rests on a threshold the
/// model chose. Each as the comparison and the number or date as written.
pub fn assumed_thresholds(query: &Query, question: &str, curated: &[String]) -> Vec<(String, String)> {
    use sqlparser::ast::{BinaryOperator, UnaryOperator, Value};
    fn number(e: &Expr) -> Option<String> {
        match e {
            Expr::Nested(inner) => number(inner),
            Expr::UnaryOp { op: UnaryOperator::Minus, expr } => number(expr).map(|n| format!("-{n}")),
            Expr::UnaryOp { op: UnaryOperator::Plus, expr } => number(expr),
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => Some(n.clone()),
                _ => None,
            },
            _ => None,
        }
    }
    fn reads_column(e: &Expr) -> bool {
        let mut found = false;
        let _ = sqlparser::ast::visit_expressions(e, |x| {
            found |= matches!(x, Expr::Identifier(_) | Expr::CompoundIdentifier(_));
            ControlFlow::<()>::Continue(())
        });
        found
    }
    // a date as a string: a year, then a month and a day, then a time, and nothing else
    fn date(e: &Expr) -> Option<&str> {
        static DATE: once_cell::sync::Lazy<regex::Regex> = once_cell::sync::Lazy::new(|| {
            regex::Regex::new(r"^\d{4}(?:[-/.]\d{1,2}(?:[-/.]\d{1,2})?)?(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$").expect("compiles")
        });
        match e {
            Expr::Nested(inner) => date(inner),
            Expr::Value(v) => match &v.value {
                Value::SingleQuotedString(s) if DATE.is_match(s.trim()) => Some(s.as_str()),
                _ => None,
            },
            _ => None,
        }
    }
    let written = numbers_written(question, curated);
    let dates_named = names_a_time(question) || curated.iter().any(|t| t.chars().any(|c| c.is_ascii_digit()));
    let mut bounds: Vec<(String, String)> = Vec::new();
    let mut bound = |e: &Expr, d: &str| {
        if !dates_named && !bounds.iter().any(|(_, b)| b == d) {
            bounds.push((e.to_string(), d.to_string()));
        }
    };
    let mut out: Vec<(String, String)> = Vec::new();
    let mut note = |e: &Expr, n: String| {
        let Ok(value) = n.parse::<f64>() else { return };
        if value == 0.0 || value == 1.0 || written.iter().any(|w| (w - value).abs() < 1e-9) || out.iter().any(|(_, m)| m.parse::<f64>().ok() == Some(value)) {
            return;
        }
        out.push((e.to_string(), n));
    };
    let _ = sqlparser::ast::visit_expressions(query, |e| {
        match e {
            Expr::BinaryOp { left, op, right }
                if matches!(op, BinaryOperator::Eq | BinaryOperator::NotEq | BinaryOperator::Lt | BinaryOperator::LtEq | BinaryOperator::Gt | BinaryOperator::GtEq) =>
            {
                let ordered = matches!(op, BinaryOperator::Lt | BinaryOperator::LtEq | BinaryOperator::Gt | BinaryOperator::GtEq);
                for (side, other) in [(left, right), (right, left)] {
                    if let Some(n) = number(side) {
                        if reads_column(other) {
                            note(e, n);
                        }
                    }
                    if let Some(d) = date(side).filter(|_| ordered && reads_column(other)) {
                        bound(e, d);
                    }
                }
            }
            Expr::Between { expr, low, high, .. } if reads_column(expr) => {
                for n in [low, high].into_iter().filter_map(|b| number(b)) {
                    note(e, n);
                }
                for d in [low, high].into_iter().filter_map(|b| date(b)) {
                    bound(e, d);
                }
            }
            Expr::InList { expr, list, .. } if reads_column(expr) => {
                for n in list.iter().filter_map(number) {
                    note(e, n);
                }
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    out.extend(bounds);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::check_query;
    use crate::testing::{bookshop, retail};

    fn query(sql: &str) -> Box<Query> {
        check_query(sql).expect("a query").query
    }

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    fn gap(unlinked: &[String], names: &[String], closest: &[String]) -> Gap {
        Gap { unlinked: unlinked.to_vec(), names: names.to_vec(), closest: closest.to_vec() }
    }

    fn failed(messages: &[&str]) -> Vec<String> {
        messages.iter().map(|m| format!("PostgreSQL cannot plan it: {m}")).collect()
    }

    #[test]
    fn a_query_that_can_only_return_the_value_it_compares_with_is_read() {
        let shop = bookshop();
        let laureates = "Which authors are Nobel laureates?";
        let l = only_its_own_value(&query("SELECT DISTINCT name FROM authors WHERE name ILIKE '%Nobel%'"), &shop, laureates).into_iter().next().expect("read").literal;
        assert_eq!((l.rel.name.as_str(), l.column.as_str(), l.value.as_str(), l.core()), ("authors", "name", "%Nobel%", "Nobel".to_string()));
        // through an alias, with an equality, beside a join
        let q = query("SELECT a.name FROM authors AS a JOIN books AS b ON b.author_id = a.author_id WHERE a.name = 'Nobel laureate'");
        assert!(!only_its_own_value(&q, &shop, laureates).is_empty());
        // on the retail schema: a mixed-case quoted table and column
        let q = query(r#"SELECT "FullName" FROM sales."Customers" WHERE "FullName" ILIKE '%VIP%'"#);
        assert!(!only_its_own_value(&q, &retail(), "Which customers are VIPs?").is_empty());
        // the column compared in another case is the same column
        let q = query("SELECT DISTINCT name FROM authors WHERE name IS NOT NULL AND UPPER(name) LIKE 'NOBEL PRIZE IN LITERATURE'");
        let l = only_its_own_value(&q, &shop, "Which authors have won the Nobel Prize in Literature?").into_iter().next().expect("read").literal;
        assert_eq!((l.column.as_str(), l.value.as_str()), ("name", "NOBEL PRIZE IN LITERATURE"));
        assert!(only_its_own_value(&query("SELECT name FROM authors WHERE lower(a.name) = 'nobel'"), &shop, laureates).is_empty());
        assert!(!only_its_own_value(&query("SELECT name FROM authors WHERE lower(name) = 'nobel'"), &shop, laureates).is_empty());
        // ... and so is the string in another case
        let q = query("SELECT DISTINCT authors.name FROM authors WHERE LOWER(name) LIKE LOWER('%Nobel Laureate%')");
        assert_eq!(only_its_own_value(&q, &shop, laureates).first().map(|c| c.literal.value.clone()), Some("%Nobel Laureate%".to_string()));
    }

    #[test]
    fn a_query_of_another_shape_or_a_question_that_names_things_is_not_read() {
        let shop = bookshop();
        let laureates = "Which authors are Nobel laureates?";
        for sql in [
            // another column returned, or more than one
            "SELECT country FROM authors WHERE name ILIKE '%Nobel%'",
            "SELECT name, country FROM authors WHERE name ILIKE '%Nobel%'",
            // a negation, a grouping, an aggregate, a set operation
            "SELECT name FROM authors WHERE name NOT ILIKE '%Nobel%'",
            "SELECT name FROM authors WHERE name ILIKE '%Nobel%' GROUP BY name",
            "SELECT count(name) FROM authors WHERE name ILIKE '%Nobel%'",
            "SELECT name FROM authors WHERE name ILIKE '%Nobel%' UNION SELECT name FROM customers",
            // the value compared in a subquery: other rows than the ones returned
            "SELECT name FROM authors WHERE author_id IN (SELECT a.author_id FROM authors AS a WHERE a.name = 'Nobel')",
            // the same column name of another table
            "SELECT a.name FROM authors AS a JOIN customers AS c ON c.customer_id = a.author_id WHERE c.name = 'Nobel'",
            // only wildcards
            "SELECT name FROM authors WHERE name LIKE '%'",
        ] {
            assert!(only_its_own_value(&query(sql), &shop, laureates).is_empty(), "{sql}");
        }
        let q = query("SELECT name FROM authors WHERE name ILIKE '%Nobel%'");
        for question in [
            "Which authors are named Nobel?",
            "Which authors have a name containing Nobel?",
            "List the authors called 'Nobel'.",
            "Welche Autoren sind Nobelpreisträger?",
        ] {
            assert!(only_its_own_value(&q, &shop, question).is_empty(), "{question}");
        }
    }

    #[test]
    fn every_comparison_of_the_returned_column_is_read_and_marked_alone_or_not() {
        let shop = bookshop();
        let laureates = "Which authors are Nobel laureates?";
        let read = |sql: &str| -> Vec<(String, bool)> {
            only_its_own_value(&query(sql), &shop, laureates).into_iter().map(|c| (c.literal.value, c.alone)).collect()
        };
        // two conditions of their own, whichever comes first; the returned column only
        let both = read("SELECT DISTINCT name FROM authors WHERE LOWER(name) LIKE 'nobel laureate' AND LOWER(name) LIKE '%prize%' AND country = 'Sweden'");
        assert_eq!(both, vec![("%prize%".to_string(), true), ("nobel laureate".to_string(), true)]);
        // under an OR, or values of an IN list: none alone
        let either = read("SELECT name FROM authors WHERE name = 'Nobel' OR name ILIKE '%laureate%'");
        assert!(either.len() == 2 && either.iter().all(|(_, alone)| !alone), "{either:?}");
        let listed = read("SELECT name FROM authors WHERE name IN ('Nobel', 'Laureate') AND country = 'Sweden'");
        assert!(listed.len() == 2 && listed.iter().all(|(_, alone)| !alone), "{listed:?}");
        // an OR beside a condition of its own: that one alone
        let mixed = read("SELECT name FROM authors WHERE name ILIKE '%Nobel%' AND (name = 'A' OR name = 'B')");
        assert_eq!(mixed.iter().filter(|(_, alone)| *alone).map(|(v, _)| v.as_str()).collect::<Vec<_>>(), vec!["%Nobel%"]);
    }

    #[test]
    fn a_condition_of_its_own_that_is_nowhere_decides_and_alternatives_only_all_together() {
        let shop = bookshop();
        let compared = |sql: &str| only_its_own_value(&query(sql), &shop, "Which authors are Nobel laureates?");
        let values = |c: Option<&OwnValue>| c.map(|c| c.literal.value.clone());
        // '%prize%' (first) is somewhere, 'nobel laureate' (alone) nowhere: no row can be returned
        let and = compared("SELECT name FROM authors WHERE name LIKE 'nobel laureate' AND name LIKE '%prize%'");
        assert_eq!(values(decisive(&and, &[false, true])), Some("nobel laureate".to_string()));
        assert_eq!(values(decisive(&and, &[false, false])), None);
        // alternatives: one somewhere is what the query returns
        let or = compared("SELECT name FROM authors WHERE name = 'Nobel' OR name ILIKE '%laureate%'");
        assert_eq!(values(decisive(&or, &[false, true])), None);
        assert_eq!(values(decisive(&or, &[true, true])), Some(or[0].literal.value.clone()));
        // nothing read, or fewer readings than comparisons: nothing decided
        assert!(decisive(&[], &[]).is_none());
        assert!(decisive(&or, &[true]).is_none());
        // ... but a condition of its own read as nowhere decides before the rest is read
        assert_eq!(values(decisive(&and, &[true])), Some(and[0].literal.value.clone()));
    }

    #[test]
    fn a_name_whose_kind_links_to_nothing_compared_with_a_column_is_read() {
        let shop = bookshop();
        let question = "Which authors live on the Pacific coast?";
        let read = |sql: &str, names: &[&str], unlinked: &[&str]| unplaced_names(&query(sql), &shop, question, &words(names), &words(unlinked));
        let found = read("SELECT name FROM authors WHERE country = 'Pacific'", &["Pacific"], &["coast"]);
        assert_eq!(found, vec![("Pacific".to_string(), "coast".to_string(), "authors.country = 'Pacific'".to_string())]);
        // as a pattern, in another case, through an alias, in an IN list
        let found = read("SELECT a.name FROM authors AS a WHERE lower(a.country) LIKE '%pacific%'", &["Pacific"], &["coast"]);
        assert_eq!(found.first().map(|f| f.2.as_str()), Some("authors.country LIKE '%pacific%'"));
        assert_eq!(read("SELECT name FROM authors WHERE country IN ('Pacific', 'Atlantic')", &["Pacific"], &["coast"]).len(), 1);
        // the name left out (dropped_names' case), compared under a negation, another value: nothing
        assert!(read("SELECT name FROM authors", &["Pacific"], &["coast"]).is_empty());
        assert!(read("SELECT name FROM authors WHERE country <> 'Pacific'", &["Pacific"], &["coast"]).is_empty());
        assert!(read("SELECT name FROM authors WHERE country = 'Pacifica'", &["Pacific"], &["coast"]).is_empty());
        // the kind links to the schema, or the name is held: not read
        assert!(read("SELECT name FROM authors WHERE country = 'Pacific'", &["Pacific"], &[]).is_empty());
        assert!(read("SELECT name FROM authors WHERE country = 'Pacific'", &[], &["coast"]).is_empty());
        // a word that links to nothing elsewhere in the question is not the name's kind
        let elsewhere = unplaced_names(&query("SELECT name FROM authors WHERE country = 'Pacific'"), &shop, "Which authors from Pacific live on a coast?", &words(&["Pacific"]), &words(&["coast"]));
        assert!(elsewhere.is_empty());
        // judged: the database does not record it; a name whose kind the schema holds is answered (no rows)
        let (kind, reason) = judge(&query("SELECT name FROM authors WHERE country = 'Pacific'"), &shop, question, &gap(&words(&["coast"]), &words(&["Pacific"]), &[]), &[], &[]).expect("judged");
        assert_eq!(kind, Kind::OutsideKnowledge);
        assert!(reason.contains("holds \"coast\", the kind of thing \"Pacific coast\" is, and no row holds \"Pacific\"") && reason.contains("compares authors.country = 'Pacific'"), "{reason}");
        let atlantis = judge(&query("SELECT name FROM authors WHERE country = 'Atlantis'"), &shop, "Which authors live in the Atlantis country?", &gap(&[], &words(&["Atlantis"]), &[]), &[], &[]);
        assert!(atlantis.is_none(), "{atlantis:?}");
    }

    #[test]
    fn a_word_that_links_to_nothing_written_as_a_value_is_read() {
        let shop = bookshop();
        let unlinked = words(&["capital", "cities"]);
        let read = |sql: &str| unlinked_as_values(&query(sql), &shop, &unlinked);
        // a condition of its own, on a column the query does not return
        let c = read("SELECT title FROM books JOIN authors ON authors.author_id = books.author_id WHERE authors.country ILIKE 'European capital cities'");
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].literal.column.as_str(), c[0].literal.value.as_str(), c[0].alone), ("country", "European capital cities", true));
        // in another case, in the singular, as a pattern
        let c = read("SELECT name FROM authors WHERE lower(country) LIKE '%capital city%'");
        assert_eq!((c.len(), c[0].alone), (1, true));
        // under an OR: not a condition of its own
        let c = read("SELECT name FROM authors WHERE country = 'capital' OR country = 'France'");
        assert_eq!((c.len(), c[0].alone), (1, false));
        // a value without such a word, a number, or nothing let through: nothing read
        assert!(read("SELECT name FROM authors WHERE country = 'Atlantis'").is_empty());
        assert!(read("SELECT title FROM books WHERE price > 12").is_empty());
        assert!(unlinked_as_values(&query("SELECT name FROM authors WHERE country = 'capital'"), &shop, &[]).is_empty());
        // a word inside another is no such word ("capitalism" is not "capital")
        assert!(read("SELECT name FROM authors WHERE country = 'capitalism'").is_empty());
    }

    #[test]
    fn a_name_the_database_has_nowhere_is_absent() {
        let shop = bookshop();
        let shipped = "When was each order shipped?";
        assert_eq!(absent_names(&failed(&["column o.shipped_date does not exist"]), &shop, shipped), vec!["shipped_date".to_string()]);
        assert_eq!(absent_names(&failed(&[r#"relation "award" does not exist"#]), &shop, "Which authors won an award?"), vec!["award".to_string()]);
        // quoted, schema-qualified, mixed case: the last part as written
        assert_eq!(absent_names(&failed(&[r#"relation "sales.Refunds" does not exist"#]), &retail(), "How many refunds were there?"), vec!["Refunds".to_string()]);
        // a hint after the message changes nothing
        let tier = "What is the loyalty tier of each customer?";
        assert_eq!(
            absent_names(&failed(&["column c.loyalty_tier does not exist (customers has the columns: customer_id, name, city)"]), &shop, tier),
            vec!["loyalty_tier".to_string()]
        );
    }

    #[test]
    fn a_name_the_database_has_nowhere_need_not_be_the_questions_to_be_nowhere() {
        let shop = bookshop();
        // not a word of the question ("published"), and still nowhere
        assert!(absent_names(&failed(&["column b.pubdate does not exist"]), &shop, "When was each book published?").is_empty());
        assert_eq!(nowhere_names(&failed(&["column b.pubdate does not exist"]), &shop), ["pubdate"]);
        assert_eq!(nowhere_names(&failed(&[r#"relation "award" does not exist"#, "column s.end_time does not exist"]), &shop), ["award", "end_time"]);
        // near a name the database has, or made of its words only: a mistake, not an absence;
        // one such name among others: nothing
        for message in ["column o.author_id does not exist", "column b.book_title does not exist", r#"relation "autors" does not exist"#] {
            assert!(nowhere_names(&failed(&[message]), &shop).is_empty(), "{message}");
        }
        assert!(nowhere_names(&failed(&["column b.pubdate does not exist", "column o.author_id does not exist"]), &shop).is_empty());
        // no name reported missing: nothing
        assert!(nowhere_names(&failed(&["operator does not exist: text - text"]), &shop).is_empty());
    }

    #[test]
    fn words_read_as_the_schemas_that_no_query_written_finds_are_missing_data() {
        let failure = "PostgreSQL cannot plan it: column s.zip_code does not exist";
        let g = Gap { unlinked: words(&["distance", "train"]), names: vec![], closest: words(&["weather.mean_visibility_miles"]) };
        let (kind, reason) = unwritten(&g, failure).expect("refused");
        assert_eq!(kind, Kind::MissingData);
        assert_eq!(
            reason,
            "the database has no place for what the question asks about: no table, column or stored value holds \"distance\", \"train\", and no query written for the question runs (PostgreSQL cannot plan it: column s.zip_code does not exist): read as the schema's, the words led to nothing that holds them; the closest in the schema: weather.mean_visibility_miles"
        );
        // only the words: a name no stored value holds is the question's value, and its query
        // failing says nothing of the data ("orders from Atlantis")
        let names = Gap { unlinked: words(&["Atlantis"]), names: words(&["Atlantis"]), closest: vec![] };
        assert_eq!(unwritten(&names, failure), None);
        let both = Gap { unlinked: words(&["capitals", "Springfield"]), names: words(&["Springfield"]), closest: vec![] };
        assert!(unwritten(&both, failure).is_some_and(|(_, r)| r.contains("holds \"capitals\", and")));
        assert_eq!(unwritten(&Gap::default(), failure), None);
    }

    #[test]
    fn a_name_near_one_the_database_has_is_a_mistake_not_an_absence() {
        let shop = bookshop();
        for message in [
            // another table's column, the table's own name, singular or plural, misspelt
            "column o.author_id does not exist",
            r#"relation "customer" does not exist"#,
            r#"relation "autors" does not exist"#,
            "column b.titel does not exist",
            // made only of the database's words: the title of the books, the customers' city
            "column b.book_title does not exist",
            r#"column "customer_city" does not exist"#,
            // the words of an existing name in another order
            "column o.on_ordered does not exist",
        ] {
            assert!(absent_names(&failed(&[message]), &shop, "What is the book title, the customer city and the order date?").is_empty(), "{message}");
        }
        // as written, a near name does not hide a name the question says (`prize` one edit from
        // `price`), though the same name in another case or number still does
        let prize = "What prize did each book win?";
        assert!(absent_names(&failed(&["column b.prize does not exist"]), &shop, prize).is_empty());
        assert_eq!(absent_names_as_written(&failed(&["column b.prize does not exist"]), &shop, prize), ["prize"]);
        assert!(absent_names_as_written(&failed(&[r#"relation "Books" does not exist"#]), &shop, "List the books.").is_empty());
        assert!(absent_names_as_written(&failed(&["column b.titel does not exist"]), &shop, "What is the book title?").is_empty());
        // a schema's name is the database's too
        assert!(absent_names(&failed(&[r#"relation "hr" does not exist"#]), &retail(), "Who works in hr?").is_empty());
        assert!(absent_names(&failed(&[r#"relation "Customer" does not exist"#]), &retail(), "List every customer.").is_empty());
    }

    #[test]
    fn a_name_the_question_does_not_say_says_nothing_of_the_question() {
        let shop = bookshop();
        // the model looked for an award the question does not name, or for a column of no meaning
        assert!(absent_names(&failed(&[r#"relation "award" does not exist"#]), &shop, "Which authors are Nobel laureates?").is_empty());
        assert!(absent_names(&failed(&[r#"column "nosuch" does not exist"#]), &shop, "How many books are there?").is_empty());
        // the question's word in another form: "opened" and `open_date`
        assert_eq!(
            absent_names(&failed(&["column o.open_date does not exist"]), &shop, "When was each order opened?"),
            vec!["open_date".to_string()]
        );
    }

    #[test]
    fn only_names_postgresql_reports_missing_are_read_and_all_must_be_absent() {
        let shop = bookshop();
        // no missing name: an operator, a function, a qualifier the FROM clause lacks
        for message in [
            "operator does not exist: bigint * text",
            "function sum(text) does not exist",
            r#"missing FROM-clause entry for table "award""#,
            r#"table name "s" specified more than once"#,
        ] {
            assert!(absent_names(&failed(&[message]), &shop, "Which customers have an award?").is_empty(), "{message}");
        }
        // one missing name near the database's: nothing said of the other
        let tier = "What is the loyalty tier and the titel of each customer's book?";
        assert!(absent_names(&failed(&["column c.loyalty_tier does not exist", "column b.titel does not exist"]), &shop, tier).is_empty());
        // a check's finding beside the failure does not count
        let mut problems = failed(&["column o.shipped_date does not exist"]);
        problems.push("LIMIT without ORDER BY returns arbitrary rows".into());
        assert_eq!(absent_names(&problems, &shop, "When was each order shipped?"), vec!["shipped_date".to_string()]);
        assert!(absent_names(&[], &shop, "When was each order shipped?").is_empty());
    }

    #[test]
    fn a_column_named_after_an_unlinked_word_that_no_table_has_is_missing_data() {
        let q = query("SELECT c.name, c.email_address FROM customers AS c");
        let (kind, why) = judge(&q, &bookshop(), "What is the email address of each customer?", &gap(&words(&["email", "address"]), &[], &["customers.name".into()]), &[], &[]).expect("judged");
        assert_eq!(kind, Kind::MissingData);
        assert!(why.contains("\"email_address\"") && why.contains("\"email\", \"address\"") && why.contains("closest in the schema: customers.name"), "{why}");
    }

    #[test]
    fn an_output_named_after_a_verb_no_name_of_the_schema_holds_is_a_stand_in() {
        let catalog = bookshop();
        // nothing of the bookshop records a download: the count of orders is presented as one
        let q = query("SELECT b.title, COUNT(*) AS download_count FROM books AS b JOIN orders AS o ON o.order_id = b.book_id GROUP BY b.title");
        assert_eq!(unnamed_stand_ins(&q, &catalog, &words(&["downloaded"])), [("download_count".to_string(), "COUNT(*)".to_string())]);
        assert!(names_word("download_count", "downloaded"));
        // a verb the schema names ("ordered" and `orders`, `ordered_on`): the query's choice, not a stand-in
        let q = query("SELECT c.name, COUNT(*) AS ordered_count FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id GROUP BY c.name");
        assert!(unnamed_stand_ins(&q, &catalog, &words(&["ordered"])).is_empty());
        // an output named after nothing the question's verbs say: none
        let q = query("SELECT b.title, COUNT(*) AS n FROM books AS b GROUP BY b.title");
        assert!(unnamed_stand_ins(&q, &catalog, &words(&["downloaded"])).is_empty());
        // no verb left unlinked: none
        assert!(unnamed_stand_ins(&query("SELECT COUNT(*) AS download_count FROM books"), &catalog, &[]).is_empty());
    }

    #[test]
    fn an_output_column_named_after_an_unlinked_word_and_computed_from_others_is_a_stand_in() {
        let catalog = bookshop();
        // "hours" held by no column: a count of orders presented as the hours
        let q = query("SELECT c.name, COUNT(o.order_id) AS reading_hours FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id GROUP BY c.name");
        let (kind, why) = judge(&q, &catalog, "How many reading hours does each customer have?", &gap(&words(&["hours"]), &[], &["orders.ordered_on".into()]), &[], &[]).expect("judged");
        assert_eq!(kind, Kind::MissingData);
        assert!(why.contains("holds \"hours\"") && why.contains("COUNT(o.order_id) as \"reading_hours\"") && why.contains("a stand-in; the closest in the schema: orders.ordered_on"), "{why}");
        // a ratio of other columns, a constant, a count of rows: stand-ins all
        for sql in ["SELECT title, price / author_id AS royalty_rate FROM books", "SELECT title, 0 AS royalties FROM books", "SELECT COUNT(*) AS royalty FROM books"] {
            assert_eq!(stand_ins(&query(sql), &words(&["royalty"])).len(), 1, "{sql}");
        }
        // an expression over a column that holds the word, however the column writes it
        let q = query("SELECT AVG(lifeexpectancy) AS average_life_expectancy FROM t");
        assert!(stand_ins(&q, &words(&["expectancy"])).is_empty());
        let q = query("SELECT SUM(o.item_prices) AS total_price FROM t AS o");
        assert!(stand_ins(&q, &words(&["price"])).is_empty());
        // an alias that names no unlinked word, or names it only by an abbreviation or a shared stem: none
        let q = query("SELECT d.directed_by, COUNT(f.film_id) AS num_films_directed FROM film AS f JOIN director AS d ON f.directed_by = d.directed_by GROUP BY d.directed_by");
        assert!(stand_ins(&q, &words(&["directors"])).is_empty());
        let q = query("SELECT COUNT(*) AS num_orders FROM orders");
        assert!(stand_ins(&q, &words(&["numbers"])).is_empty());
        assert!(stand_ins(&q, &words(&["hours"])).is_empty());
        // an alias that names the attribute of the unlinked word in the lexicon ("minutes", `duration`)
        let q = query("SELECT b.title, b.price * 60 AS duration FROM books AS b");
        assert_eq!(stand_ins(&q, &words(&["minutes"])), [("duration".to_string(), "b.price * 60".to_string())]);
        assert!(stand_ins(&query("SELECT b.title, b.length_min AS duration FROM books AS b"), &words(&["minutes"])).is_empty());
        // no unlinked word: nothing the query could stand in for
        assert!(stand_ins(&query("SELECT COUNT(*) AS hours FROM orders"), &[]).is_empty());
        // in any select of the query, and on another schema (mixed case, several schemas)
        let q = query(r#"SELECT x.n FROM (SELECT COUNT("CustomerID") AS loyalty_points FROM sales."Customers") AS x"#);
        assert_eq!(stand_ins(&q, &words(&["loyalty"])), [("loyalty_points".to_string(), "COUNT(\"CustomerID\")".to_string())]);
        let (kind, _) = judge(&q, &retail(), "How many loyalty points has each customer?", &gap(&words(&["loyalty"]), &[], &[]), &[], &[]).expect("judged");
        assert_eq!(kind, Kind::MissingData);
    }

    #[test]
    fn columns_the_query_defines_or_the_schema_has_are_not_missing() {
        let q = query(
            "WITH t(email_total) AS (SELECT count(*) FROM customers) \
             SELECT email_total, x.email_count AS email FROM t, (SELECT count(*) AS email_count FROM orders) AS x ORDER BY email",
        );
        assert!(missing_columns(&q, &bookshop(), &words(&["email"])).is_empty());
        // named after the attribute of the unlinked word in the lexicon ("born", `birth_date`)
        let q = query("SELECT a.name FROM authors AS a WHERE a.birth_date < '1950-01-01'");
        assert_eq!(missing_columns(&q, &bookshop(), &words(&["born"])), ["birth_date"]);
        // a missing column named after a word that links is the repair's, not a refusal
        let q = query("SELECT c.name, c.email_address FROM customers AS c");
        assert!(missing_columns(&q, &bookshop(), &words(&["satisfaction"])).is_empty());
    }

    #[test]
    fn a_list_of_values_the_question_does_not_name_is_outside_knowledge() {
        let q = query("SELECT name FROM authors WHERE country IN ('Germany', 'France', 'Italy')");
        let (kind, why) = judge(&q, &bookshop(), "Which authors live in countries that use the euro?", &gap(&words(&["euro"]), &[], &[]), &[], &[]).expect("judged");
        assert_eq!(kind, Kind::OutsideKnowledge);
        assert!(why.contains("authors.country = 'Germany'") && why.contains("\"euro\""), "{why}");
    }

    #[test]
    fn a_number_the_question_does_not_give_is_the_models_formula() {
        let q = query("SELECT apt_number, bedroom_count * 1000 AS monthly_rent FROM apartments");
        assert_eq!(invented_numbers(&q, "What is the monthly rent of each apartment?", &[]), Vec::new(), "a scale word: 'monthly'");
        let found = invented_numbers(&q, "What is the rent of each apartment?", &[]);
        assert_eq!(found, vec![("bedroom_count * 1000".to_string(), "1000".to_string())]);
        // anywhere in the query, each number once, signs and parentheses seen through
        let q = query("SELECT name FROM books WHERE price * 1.2 > (SELECT avg(price) FROM books) + -3 AND price * 1.2 < 50");
        let found: Vec<String> = invented_numbers(&q, "Which books cost more than the average with tax?", &[]).into_iter().map(|(_, n)| n).collect();
        assert_eq!(found, vec!["1.2", "3"]);
        // written in the question (digits, a thousands separator, a word), or by a curator
        assert!(invented_numbers(&q, "Which books cost more than 3 less than the average, times 1.2?", &[]).is_empty());
        let q = query("SELECT name FROM books WHERE price + 1000 > 5 * stock");
        assert!(invented_numbers(&q, "Which books cost more than five times their stock, less 1,000?", &[]).is_empty());
        assert!(invented_numbers(&q, "Which books are worth more than their stock, less 1,000 and five?", &["the value of stock is 5 * stock".to_string()]).is_empty());
        // ordinary factors, a percent, a unit named, LIMIT and function arguments are no formula
        let q = query("SELECT name, round(price / 2 + 0.5 * price, 3), count(*) * 100.0 / 7 FROM books GROUP BY name ORDER BY 2 LIMIT 10");
        assert_eq!(invented_numbers(&q, "Which books?", &[]).into_iter().map(|(_, n)| n).collect::<Vec<_>>(), vec!["7"]);
        let q = query("SELECT name, minutes / 60 FROM books");
        assert!(invented_numbers(&q, "How long is each book in hours?", &[]).is_empty());
        assert!(invented_numbers(&q, "What share of the books sold 10%?", &[]).is_empty());
        let q = query("SELECT name FROM books ORDER BY price DESC LIMIT 3 OFFSET 7");
        assert!(invented_numbers(&q, "Which books?", &[]).is_empty());
    }

    #[test]
    fn values_the_question_names_codes_and_grounded_values_are_not_invented() {
        let catalog = bookshop();
        // written in the question, in another case or as a pattern
        let q = query("SELECT a.name FROM authors AS a, customers AS c WHERE a.country = 'france' OR c.city LIKE '%Paris%'");
        assert!(invented_values(&q, &catalog, "Which authors are from France, or have customers in Paris?", &[]).is_empty());
        // a word of the value that shares its stem with one of the question ('Province', "provincial")
        let q = query("SELECT name FROM customers WHERE city = 'Province'");
        assert!(invented_values(&q, &catalog, "Which customers live in provincial towns?", &[]).is_empty());
        // a code that begins a word of the question, a word of the value in the question
        let q = query("SELECT name FROM customers WHERE city IN ('F', 'City of Lyon')");
        assert!(invented_values(&q, &catalog, "Which female customers live in the city?", &[]).is_empty());
        // matched by the value index
        let q = query("SELECT name FROM authors WHERE country IN ('Deutschland', 'España')");
        let grounded = vec![("authors.country".to_string(), "Deutschland".to_string()), ("authors.country".to_string(), "España".to_string())];
        assert!(invented_values(&q, &catalog, "Which authors live in Germany or Spain?", &grounded).is_empty());
        // how the data encodes a word: a flag, one character, an abbreviation and its expansion
        let q = query("SELECT name FROM customers WHERE city = 'Y'");
        assert!(judge(&q, &catalog, "Which customers were accepted?", &gap(&words(&["accepted"]), &[], &[]), &[], &[]).is_none());
        let q = query("SELECT name FROM customers WHERE city = 'false' OR name = 'T' OR city = 'o' OR city = '7'");
        assert!(invented_values(&q, &catalog, "Which customers are official?", &[]).is_empty());
        // but not a character or a short code that only a function word begins, or that sits
        // inside a word: the question names none of them
        let q = query("SELECT name FROM customers WHERE city = 'k' OR city IN ('DE', 'IN') OR name = 'h'");
        let own: Vec<String> = invented_values(&q, &catalog, "How many customers are official in Democrat states?", &[]).into_iter().map(|(_, v)| v).collect();
        assert_eq!(own, vec!["IN", "k", "h"]);
        let q = query("SELECT name FROM customers WHERE city = 'IN'");
        assert!(invented_values(&q, &catalog, "Which customers live in Indiana?", &[]).is_empty(), "'IN' begins Indiana");
        // a short code the value index matched to a function word is not named by the match
        let grounded = vec![("customers.city".to_string(), "IN".to_string())];
        assert_eq!(invented_values(&q, &catalog, "Which customers voted in the last election?", &grounded).len(), 1);
        // a code the question writes in capitals, in quotes, or as a letter
        let q = query("SELECT name FROM customers WHERE city IN ('AS', 'A') OR name LIKE '%a%' OR name LIKE '%e%'");
        assert!(invented_values(&q, &catalog, "Which customers in city AS got an A, or have the letter a and 'e' in their names?", &[]).is_empty());
        assert_eq!(invented_values(&q, &catalog, "Which customers in city as got an a, or have a and e in their names?", &[]).into_iter().map(|(_, v)| v).collect::<Vec<_>>(), vec!["A", "AS", "%a%"], "e is a content word of its own here");
        let q = query("SELECT name FROM customers WHERE city = 'ia'");
        assert_eq!(invented_values(&q, &catalog, "Which customers live in Virginia?", &[]).len(), 1, "'ia' sits inside Virginia");
        let q = query("SELECT name FROM customers WHERE city = 'Los Angeles' OR city IN ('USA', 'US')");
        assert!(invented_values(&q, &catalog, "Which customers live in LA or the US?", &[]).is_empty());
        let q = query("SELECT name FROM customers WHERE city = 'Los Angeles' OR city = 'US'");
        assert!(invented_values(&q, &catalog, "Which customers live in Los Angeles, or anywhere in the United States?", &[]).is_empty());
        // the word null, and a value with no letter for a question that names a time or a number
        let q = query("SELECT name FROM customers WHERE city = 'null' OR name LIKE '8/%'");
        assert!(invented_values(&q, &catalog, "Which customers have no city, or joined in August?", &[]).is_empty());
        let own = invented_values(&q, &catalog, "Which customers have no city?", &[]);
        assert_eq!(own, [("customers.name".to_string(), "8/%".to_string())], "a value with no letter for a question that names no time is the model's own");
        // initials of function words name nothing: "in the" is no 'IT'
        let q = query("SELECT name FROM customers WHERE city = 'IT'");
        assert_eq!(invented_values(&q, &catalog, "Which customers work in the shop?", &[]).len(), 1);
    }

    #[test]
    fn a_date_the_question_names_no_time_for_is_the_models_own() {
        let catalog = bookshop();
        let q = query("SELECT COUNT(*) FROM orders WHERE ordered_on = '2020-02-29'");
        let (kind, why) = judge(&q, &catalog, "How many days are there in a leap year?", &gap(&words(&["leap"]), &[], &[]), &[], &[]).expect("judged");
        assert_eq!(kind, Kind::OutsideKnowledge);
        assert!(why.contains("orders.ordered_on = '2020-02-29'"), "{why}");
        // a year, a day, a month or a time relative to now: the question's date, however written
        for question in [
            "How many orders were placed in 2020?",
            "How many orders were placed on the 29th?",
            "How many orders were placed in February?",
            "How many orders were placed last year?",
            "How many orders were placed this leap year?",
            "How many orders were placed today?",
            "How many orders were placed recently?",
        ] {
            assert!(invented_values(&q, &catalog, question, &[]).is_empty(), "{question}");
        }
        // a date column compared with a range is not read
        let q = query("SELECT COUNT(*) FROM orders WHERE ordered_on > '2020-02-29'");
        assert!(invented_values(&q, &catalog, "How many days are there in a leap year?", &[]).is_empty());
    }

    #[test]
    fn one_value_of_the_models_own_is_outside_knowledge() {
        let q = query("SELECT name FROM authors WHERE country = 'United Kingdom'");
        let (kind, why) = judge(&q, &bookshop(), "Which authors come from countries where cars drive on the left?", &gap(&words(&["cars", "drive"]), &[], &[]), &[], &[]).expect("judged");
        assert_eq!(kind, Kind::OutsideKnowledge);
        assert!(why.contains("authors.country = 'United Kingdom'"), "{why}");
        // the same value named by the question, or by its initials, is the question's
        assert!(judge(&q, &bookshop(), "Which authors come from the UK, where cars drive on the left?", &gap(&words(&["cars", "drive"]), &[], &[]), &[], &[]).is_none());
        // or by its people: a country and its people are one
        assert!(judge(&q, &bookshop(), "Which authors are British?", &gap(&[], &[], &[]), &[], &[]).is_none());
        let q = query("SELECT name FROM authors WHERE country <> 'France' OR country = 'Germany' OR country = 'British'");
        assert!(invented_values(&q, &bookshop(), "Which authors are not French but German, or from the United Kingdom?", &[]).is_empty());
    }

    #[test]
    fn a_name_no_stored_value_holds_and_a_value_in_its_place_are_outside_knowledge() {
        // "Republican" is the question's name; 'Utah' the model's
        let q = query("SELECT name FROM customers WHERE city = 'Utah'");
        let republican = words(&["Republican"]);
        let (kind, why) = judge(&q, &bookshop(), "Which customers live in cities that voted Republican?", &gap(&republican, &[], &[]), &[], &[]).expect("judged");
        assert_eq!(kind, Kind::OutsideKnowledge);
        assert!(why.contains("holds \"Republican\", and the query the model wrote compares customers.city = 'Utah', a value the question does not name: it comes from"), "{why}");
        let (_, why) = judge(&q, &bookshop(), "Which customers live in cities that voted Republican?", &gap(&[], &[], &[]), &[], &[]).expect("judged");
        assert!(!why.contains("holds"), "no words to name: {why}");
        // what a curator taught this database (a glossary entry, a verified example) is its
        // knowledge, not the model's
        let glossary = vec!["republican city: city IN ('Utah', 'Texas')".to_string()];
        assert!(judge(&q, &bookshop(), "Which customers live in cities that voted Republican?", &gap(&republican, &[], &[]), &[], &glossary).is_none());
        // no unlinked word: a missing column is the repair's
        let q = query("SELECT name, vote FROM customers");
        assert!(judge(&q, &bookshop(), "Which customers voted?", &gap(&[], &[], &[]), &[], &[]).is_none());
    }

    #[test]
    fn a_name_no_stored_value_holds_that_the_query_leaves_out_is_missing_data() {
        let catalog = bookshop();
        // the ISBN asked for, the book's id and price given
        let q = query("SELECT book_id, title, price FROM books");
        let isbn = words(&["ISBN"]);
        let (kind, why) = judge(&q, &catalog, "What is the ISBN of each book?", &gap(&isbn, &isbn, &[]), &[], &[]).expect("judged");
        assert_eq!(kind, Kind::MissingData);
        assert!(why.contains("holds \"ISBN\", and the query the model wrote leaves it out"), "{why}");
        // a name of several words is left out when none of its words is kept
        let q = query("SELECT name FROM authors");
        let nobel = words(&["Nobel", "Prize"]);
        assert_eq!(dropped_names(&q, &catalog, "Which authors won the Nobel Prize in Literature?", &nobel, &[]), ["Nobel Prize"]);
        // kept: written by a string of the query, in it, as a pattern, or by its encoding
        for sql in ["SELECT name FROM authors WHERE country = 'Nobel Prize'", "SELECT name FROM authors WHERE name LIKE '%nobel%'"] {
            assert!(dropped_names(&query(sql), &catalog, "Which authors won the Nobel Prize in Literature?", &nobel, &[]).is_empty(), "{sql}");
        }
        let q = query("SELECT name FROM customers WHERE city = 'Los Angeles'");
        assert!(dropped_names(&q, &catalog, "Which customers live in LA?", &words(&["LA"]), &[]).is_empty());
        let q = query("SELECT name FROM customers WHERE city = 'CA'");
        assert!(dropped_names(&q, &catalog, "Which customers live in California?", &words(&["California"]), &[]).is_empty());
        // one word of the name written, another misspelt: "Dean Peeters" and 'Peeters'
        let q = query("SELECT name FROM customers WHERE name = 'Daan Peeters'");
        assert!(dropped_names(&q, &catalog, "Which books did Dean Peeters order?", &words(&["Dean"]), &[]).is_empty());
        // a word of the schema's names, a month, a direction, a unit, a function word: no thing left out
        let q = query("SELECT title FROM books ORDER BY price DESC LIMIT 1");
        for (question, name) in [
            ("Which Books are the dearest?", "Books"),
            ("Which book was ordered in September?", "September"),
            ("Which book is the dearest (in USD)?", "USD"),
            ("Which author lives furthest South?", "South"),
            ("Which books are NOT cheap?", "NOT"),
        ] {
            assert!(dropped_names(&q, &catalog, question, &words(&[name]), &[]).is_empty(), "{question}");
        }
        // what a curator taught is the database's knowledge
        let q = query("SELECT name FROM authors WHERE country = 'Sweden'");
        assert!(dropped_names(&q, &catalog, "Which authors won the Nobel Prize?", &nobel, &["nobel prize: authors of the Swedish academy's list".into()]).is_empty());
        // no name no stored value holds: nothing to leave out
        assert!(judge(&query("SELECT name FROM authors"), &catalog, "Which authors won the Nobel Prize?", &gap(&[], &[], &[]), &[], &[]).is_none());
    }

    #[test]
    fn a_column_renamed_as_what_was_asked_holds_another_thing() {
        let catalog = bookshop();
        let q = query("SELECT title, price AS publisher FROM books");
        assert_eq!(relabelled_columns(&q, &catalog, "Who is the publisher of each book?"), [("publisher".to_string(), "books.price".to_string())]);
        // the name's words held by the column or its table, or no word of the question
        for (sql, question) in [
            ("SELECT title AS book_title FROM books", "What is the title of each book?"),
            ("SELECT b.title AS book FROM books b", "Which book is the cheapest?"),
            ("SELECT price AS publisher FROM books", "What is the price of each book?"),
            ("SELECT count(*) AS publisher FROM books", "How many publishers are there?"),
        ] {
            assert!(relabelled_columns(&query(sql), &catalog, question).is_empty(), "{sql}");
        }
    }

    #[test]
    fn a_column_of_which_each_thing_has_many_is_no_attribute_of_it() {
        let catalog = bookshop();
        // the date of each order a customer placed, for "each customer"
        let q = query("SELECT c.name, o.ordered_on FROM customers c JOIN orders o ON o.customer_id = c.customer_id");
        assert_eq!(many_per_each(&q, &catalog, "When did each customer join?"), [("each customer".to_string(), "orders.ordered_on".to_string())]);
        assert_eq!(many_per_each(&q, &catalog, "When did every one of the customers join?").len(), 1);
        // the question names the orders: their dates are what it asks for
        assert!(many_per_each(&q, &catalog, "When did each customer place their orders?").is_empty());
        // counted or grouped per customer: one value each
        let q = query("SELECT c.name, max(o.ordered_on) FROM customers c JOIN orders o ON o.customer_id = c.customer_id GROUP BY c.name");
        assert!(many_per_each(&q, &catalog, "When did each customer join?").is_empty());
        // a parent's column is one per row: the author of each book
        let q = query("SELECT b.title, a.country FROM books b JOIN authors a ON a.author_id = b.author_id");
        assert!(many_per_each(&q, &catalog, "What is the country of each book?").is_empty());
        // the column named by a word of its own
        let q = query("SELECT c.name, b.title FROM authors c JOIN books b ON b.author_id = c.author_id");
        assert!(many_per_each(&q, &catalog, "What is the title for each author?").is_empty());
        // no "each"
        let q = query("SELECT c.name, o.ordered_on FROM customers c JOIN orders o ON o.customer_id = c.customer_id");
        assert!(many_per_each(&q, &catalog, "When did the customers join?").is_empty());
    }

    #[test]
    fn a_year_returned_for_a_date_asked_for_gives_less_than_was_asked() {
        let catalog = Catalog {
            tables: vec![crate::testing::table("singer", &[("singer_id", "integer"), ("name", "text"), ("birth_year", "real"), ("debut", "date")], "singer_id")],
            ..Default::default()
        };
        let q = query("SELECT name, birth_year FROM singer");
        assert_eq!(coarser_answers(&q, &catalog, "What is the exact birth date of each singer?"), [("exact birth date".to_string(), "singer.birth_year".to_string())]);
        // the question says a year: the year is what it asks for
        assert!(coarser_answers(&q, &catalog, "What is the birth date or at least the year of each singer?").is_empty());
        // a column that holds a day is returned: the date is there
        assert!(coarser_answers(&query("SELECT name, birth_year, debut FROM singer"), &catalog, "What is the debut date of each singer?").is_empty());
        // no date asked for
        assert!(coarser_answers(&q, &catalog, "Who is each singer and when were they born?").is_empty());
        // a month asked for, a year returned
        assert_eq!(coarser_answers(&q, &catalog, "What is the birth month of each singer?"), [("birth month".to_string(), "singer.birth_year".to_string())]);
        assert!(coarser_answers(&q, &catalog, "What is the birth month and year of each singer?").is_empty());
    }

    #[test]
    fn a_name_the_query_writes_only_part_of_is_outside_knowledge() {
        let catalog = bookshop();
        let star = words(&["Star"]);
        let question = "Which authors are members of the Star Alliance?";
        // one word of the name put for it, the other held by no stored value
        let q = query("SELECT name FROM authors WHERE country = 'Alliance'");
        assert_eq!(partly_written_names(&q, &catalog, question, &star, &[]), [("Star Alliance".to_string(), "alliance".to_string())]);
        let (kind, why) = judge(&q, &catalog, question, &gap(&[], &star, &[]), &[], &[]).expect("judged");
        assert_eq!(kind, Kind::OutsideKnowledge);
        assert!(why.contains("no stored value holds \"Star Alliance\"") && why.contains("compares 'alliance', which writes only part of it"), "{why}");
        // the whole name, in one string or as a pattern: the question's own value
        for sql in ["SELECT name FROM authors WHERE country = 'Star Alliance'", "SELECT name FROM authors WHERE country ILIKE '%star alliance%'"] {
            assert!(partly_written_names(&query(sql), &catalog, question, &star, &[]).is_empty(), "{sql}");
        }
        // each word by a string of its own
        let q = query("SELECT lastname FROM customers WHERE firstname = 'OTHA' AND lastname = 'MOYER'");
        assert!(partly_written_names(&q, &catalog, "Which students does OTHA MOYER teach?", &words(&["OTHA", "MOYER"]), &[]).is_empty());
        // the word no value holds written otherwise: misspelt, by initials, as a code
        let q = query("SELECT name FROM customers WHERE first_name = 'Daan' AND last_name = 'Peeters'");
        assert!(partly_written_names(&q, &catalog, "Which books did Dean Peeters order?", &words(&["Dean"]), &[]).is_empty());
        let q = query("SELECT name FROM customers WHERE city = 'Los Angeles'");
        assert!(partly_written_names(&q, &catalog, "Which customers live in LA?", &words(&["LA"]), &[]).is_empty());
        let q = query("SELECT name FROM customers WHERE city = 'CA'");
        assert!(partly_written_names(&q, &catalog, "Which customers live in California?", &words(&["California"]), &[]).is_empty());
        // a name with a word of the schema ("Books" names the books table) is kept as the schema's
        let q = query("SELECT title FROM books WHERE title = 'Alliance'");
        assert!(partly_written_names(&q, &catalog, "Which Star Alliance Books sold best?", &star, &[]).is_empty());
        // a name no string writes is left out, not written in part: the other rule's
        let q = query("SELECT name FROM authors");
        assert!(partly_written_names(&q, &catalog, question, &star, &[]).is_empty());
        assert_eq!(dropped_names(&q, &catalog, question, &star, &[]), ["Star Alliance"]);
    }

    #[test]
    fn a_verb_form_is_read_by_its_stem() {
        assert_eq!(verb_stem("billed").as_deref(), Some("bill"));
        assert_eq!(verb_stem("billing").as_deref(), Some("bill"));
        assert_eq!(verb_stem("enrolled").as_deref(), Some("enrol"));
        assert_eq!(verb_stem("processed").as_deref(), Some("process"));
        assert_eq!(verb_stem("shipped").as_deref(), Some("ship"));
        assert_eq!(verb_stem("refunded").as_deref(), Some("refund"));
        // too short to say anything, or no verb form
        assert_eq!(verb_stem("used"), None);
        assert_eq!(verb_stem("rated"), None);
        assert_eq!(verb_stem("bonus"), None);
    }

    #[test]
    fn a_word_let_through_that_the_query_writes_nothing_for_is_read() {
        let shop = bookshop();
        // the word asks for what the query leaves out: every book is returned
        let q = query("SELECT b.title FROM books AS b");
        assert_eq!(unwritten_words(&q, &shop, "Which books were released as e-books?", &words(&["e-books"])), ["e-books"]);
        // a word after a function word is no column's measure
        let q = query("SELECT b.title, AVG(r.stars) FROM books AS b JOIN ratings AS r ON r.book_id = b.book_id GROUP BY b.title");
        assert_eq!(unwritten_words(&q, &shop, "What age rating does each book have?", &words(&["age"])), ["age"]);
        // a word after a word of a table or of a key the query reads is no column's measure
        let q = query("SELECT body_builder_id, clean_jerk / snatch * 100 AS body_fat_percentage FROM body_builder");
        assert_eq!(unwritten_words(&q, &shop, "List the body builders by their body fat percentage.", &words(&["fat"])), ["fat"]);
        // each word is read alone: the one written is not returned
        let q = query("SELECT title FROM books WHERE format = 'Hardcover'");
        assert_eq!(unwritten_words(&q, &shop, "Which hardcover books have a dust jacket?", &words(&["hardcover", "jacket"])), ["jacket"]);
        for (sql, question, unlinked) in [
            // a column the query reads, as written or as the catalog has it through an alias
            ("SELECT title, royalty FROM books", "What is the royalty of each book?", "royalty"),
            ("SELECT b.title FROM books AS b ORDER BY b.price", "List the books by their prices.", "prices"),
            // a string it compares
            ("SELECT title FROM books WHERE format = 'Hardcover'", "Which books are hardcovers?", "hardcovers"),
            // a column's measure: the word before it names a column the query reads
            ("SELECT name FROM stadium ORDER BY average DESC LIMIT 1", "Which stadium has the highest average attendance?", "attendance"),
            ("SELECT MIN(snatch) FROM body_builder", "What is the minimum snatch result?", "result"),
            ("SELECT id, color, name FROM photos", "List the id, color scheme and name of the photos.", "scheme"),
            // a word of no thing
            ("SELECT count(*) FROM books", "What is the number of books?", "number"),
            // a verb form a name writes as another form of the same verb
            ("SELECT billing_state, COUNT(*) FROM invoices GROUP BY billing_state", "How many invoices were billed from each state?", "billed"),
            ("SELECT COUNT(DISTINCT student_id) FROM student_course_enrolment", "How many students are enrolled?", "enrolled"),
        ] {
            let q = query(sql);
            assert!(unwritten_words(&q, &shop, question, &words(&[unlinked])).is_empty(), "{sql} for {question}");
        }
        assert!(unwritten_words(&query("SELECT title FROM books"), &shop, "Which books were released as e-books?", &[]).is_empty());
    }

    #[test]
    fn a_short_value_of_a_column_the_question_names_nothing_of_is_read() {
        let shop = bookshop();
        // a code beginning a word of the question, a flag, a 0 or 1 the column equals
        let q = query("SELECT name FROM authors WHERE country = 'C'");
        assert_eq!(weak_values(&q, &shop, "Which authors have a company car?"), [("authors.country = 'C'".to_string(), "C".to_string())]);
        let q = query("SELECT name FROM authors WHERE country = 'Yes'");
        assert_eq!(weak_values(&q, &shop, "Which authors have a headphone jack?").len(), 1);
        let q = query("SELECT title FROM books WHERE price = 0");
        assert_eq!(weak_values(&q, &shop, "Which books have been banned?"), [("price = 0".to_string(), "0".to_string())]);
        for (sql, question) in [
            // the column is the question's attribute: the data's encoding ('F' for "female")
            ("SELECT name FROM authors WHERE country = 'Y'", "Which authors have a country of yore?"),
            ("SELECT title FROM books WHERE price = 0", "Which books have no price?"),
            // a code beginning a name is the name's ('CA' for "California")
            ("SELECT name FROM customers WHERE city = 'CA'", "Which customers come from California?"),
            // a word of the question, or a value of another kind
            ("SELECT name FROM authors WHERE country = 'car'", "Which authors have a company car?"),
            ("SELECT name FROM authors WHERE country = 'Chile'", "Which authors have a company car?"),
            ("SELECT title FROM books WHERE price > 1", "Which books have been banned?"),
        ] {
            assert!(weak_values(&query(sql), &shop, question).is_empty(), "{sql} for {question}");
        }
    }

    #[test]
    fn a_name_of_the_question_written_as_a_value_is_read() {
        let shop = bookshop();
        let q = query("SELECT name FROM authors WHERE country LIKE 'Canada%'");
        let found = names_as_values(&q, &shop, &words(&["Canada"]));
        assert_eq!(found.len(), 1);
        assert!(found[0].alone && found[0].literal.column == "country" && found[0].literal.value == "Canada%", "{found:?}");
        // a word of a name of several words, under an OR: not a condition of its own
        let q = query("SELECT name FROM authors WHERE country ILIKE '%Olympic%' OR name = 'Ann'");
        let found = names_as_values(&q, &shop, &words(&["Olympic Games"]));
        assert_eq!((found.len(), found[0].alone), (1, false), "{found:?}");
        // another value, or no name
        let q = query("SELECT name FROM authors WHERE country = 'Nigeria'");
        assert!(names_as_values(&q, &shop, &words(&["Canada"])).is_empty());
        assert!(names_as_values(&q, &shop, &[]).is_empty());
    }

    #[test]
    fn common_words_of_the_question_written_as_a_value_are_read() {
        let shop = retail();
        let read = |sql: &str, question: &str| common_words_as_values(&query(sql), &shop, question);
        // "lost" and "stolen", written in lower case, as the values of a code column
        let found = read(r#"SELECT order_id FROM sales.orders WHERE status IN ('Lost', 'Stolen')"#, "Which orders were reported lost or stolen?");
        assert_eq!(found.iter().map(|o| (o.literal.value.as_str(), o.alone)).collect::<Vec<_>>(), [("Lost", false), ("Stolen", false)]);
        // a stem ("deliver" and 'Delivery'), a plural, a condition of its own
        let found = read(r#"SELECT order_id FROM sales.orders AS o WHERE o.status = 'Campus Deliveries'"#, "Which orders were delivered to the campus?");
        assert!(found.len() == 1 && found[0].alone, "{found:?}");
        // a proper name is the question's value ("orders from Atlantis": no rows), so is a quoted
        // value, and the question's first word is written capitalised whatever it is
        assert!(read(r#"SELECT "FullName" FROM sales."Customers" WHERE city = 'Atlantis'"#, "Which customers live in Atlantis?").is_empty());
        assert!(read("SELECT order_id FROM sales.orders WHERE status = 'lost'", "Which orders have the status 'lost'?").is_empty());
        assert!(read("SELECT order_id FROM sales.orders WHERE status = 'Lost'", "Lost orders: which are they?").is_empty());
        // a word the question does not write, a pattern, a number column through a cast
        assert!(read("SELECT order_id FROM sales.orders WHERE status = 'Missing'", "Which orders were reported lost?").is_empty());
        assert!(read("SELECT order_id FROM sales.orders WHERE status ILIKE '%lost%'", "Which orders were reported lost?").is_empty());
        assert!(read("SELECT order_id FROM sales.orders WHERE total::text = 'lost'", "Which orders were reported lost?").is_empty());
    }

    #[test]
    fn a_verb_neither_of_two_readings_writes_anything_for_is_read() {
        let shop = bookshop();
        let question = "Which books have been banned?";
        let cheap = query("SELECT title FROM books WHERE price < 10");
        let old = query("SELECT title FROM books ORDER BY title LIMIT 3");
        assert_eq!(unwritten_by_both(&cheap, &old, &shop, question, &words(&["banned"])), ["banned"]);
        // one reading writes it: the readings differ on something the question says
        let written = query("SELECT title FROM books WHERE format = 'Banned'");
        assert!(unwritten_by_both(&cheap, &written, &shop, question, &words(&["banned"])).is_empty());
        assert!(unwritten_by_both(&written, &cheap, &shop, question, &words(&["banned"])).is_empty());
        // a verb that relates things is the join's: no evidence, in any form
        for verb in ["written", "departing", "arriving", "managed"] {
            assert!(unwritten_by_both(&cheap, &old, &shop, question, &words(&[verb])).is_empty(), "{verb}");
        }
        assert!(unwritten_by_both(&cheap, &old, &shop, question, &[]).is_empty());
    }

    #[test]
    fn an_asked_attribute_answered_with_other_columns_is_missing_data() {
        let catalog = bookshop();
        // the royalty share asked for, the books' titles and prices returned
        let q = query("SELECT b.title, b.price FROM books AS b");
        let (kind, why) = judge(&q, &catalog, "What is the royalty share of each book?", &gap(&words(&["royalty"]), &[], &["books.price".into()]), &[], &[]).expect("judged");
        assert_eq!(kind, Kind::MissingData);
        assert!(why.contains("asks for \"royalty share\"") && why.contains("returns b.title, b.price instead: it answers another question; the closest in the schema: books.price"), "{why}");
        // a role's holder: "who is the ..."
        let q = query("SELECT c.customer_id, c.city FROM customers AS c");
        assert_eq!(unanswered_items(&q, &catalog, "Who is the account manager of each customer?", &words(&["manager"])).len(), 1);
        // answered by a name: the holder
        let q = query("SELECT a.name FROM authors AS a JOIN books AS b ON b.author_id = a.author_id");
        assert!(unanswered_items(&q, &catalog, "Who is the editor of each book?", &words(&["editor"])).is_empty());
        // another measure under the asked one's function: "average" in the alias is no "age"
        let q = query("SELECT b.title, AVG(b.price) AS average_price FROM books AS b GROUP BY b.title");
        assert_eq!(unanswered_items(&q, &catalog, "What is the average age of the readers of each book?", &words(&["age", "readers"])).len(), 1);
        // the items after an owner's "each": the blood type asked, only names returned
        let q = query("SELECT a.name FROM authors AS a");
        assert_eq!(unanswered_items(&q, &catalog, "Show each author's name and blood type.", &words(&["blood"])).len(), 1);
        // any word of the thing returned: a column, its table, an alias; by plural, prefix, abbreviation or a misspelling
        for (sql, question, unlinked) in [
            ("SELECT clean_jerk FROM body_builder", "What is the clean and jerk score of the best body builder?", "score"),
            ("SELECT continent, SUM(population) FROM country GROUP BY continent", "What is the total popuation of each continent?", "popuation"),
            ("SELECT d.directed_by FROM director AS d", "List all directors.", "directors"),
            ("SELECT directed_by FROM director", "Show the directors.", "directors"),
            ("SELECT b.title, b.price * 0.1 AS royalty FROM books AS b", "What is the royalty share of each book?", "royalty"),
            ("SELECT * FROM books", "What is the royalty share of each book?", "royalty"),
            // a word of one attribute with a returned column: "rate" is read from a price
            ("SELECT b.title, b.price FROM books AS b", "What is the royalty rate of each book?", "royalty"),
            ("SELECT \"SurfaceArea\" FROM country", "What are the areas of the countries?", "areas"),
            ("SELECT hometown FROM teacher", "What are the towns of the teachers?", "towns"),
            ("SELECT t1.name, t1.sex FROM people AS t1", "What is the name and gender of each person?", "gender"),
            ("SELECT emp_fname, emp_dob FROM employee", "What are the first names and birthdates of the professors?", "birthdates"),
            ("SELECT date, venue FROM event", "Show the dates and places of the events.", "places"),
            ("SELECT max(milliseconds) FROM track", "What is the longest duration of the tracks?", "duration"),
            ("SELECT total FROM body_builder", "List the total scores of body builders.", "scores"),
            ("SELECT code, benefit_id FROM benefits", "List the code and the benifit id.", "benifit"),
            ("SELECT max(stars), min(stars) FROM rating", "What is the maximum and mininum number of stars?", "mininum"),
            ("SELECT job_title, max_salary - min_salary FROM jobs", "What are the job titles, and range of salaries of the jobs?", "range"),
            ("SELECT first_name FROM students ORDER BY date_left LIMIT 1", "Who is the earliest graduate of the school?", "graduate"),
            ("SELECT name, headofstate FROM country", "What are the name and leader of each country?", "leader"),
        ] {
            let q = query(sql);
            assert!(unanswered_items(&q, &catalog, question, &words(&[unlinked])).is_empty(), "{sql} for {question}");
        }
        // nothing unlinked, or the unlinked word outside what is asked (a condition, an order), or
        // a thing of generic words alone: nothing to answer otherwise
        let q = query("SELECT b.title FROM books AS b ORDER BY b.price");
        assert!(unanswered_items(&q, &catalog, "What is the royalty share of each book?", &[]).is_empty());
        assert!(unanswered_items(&q, &catalog, "List the titles of books in order of royalty.", &words(&["royalty"])).is_empty());
        assert!(unanswered_items(&q, &catalog, "What is the total number of royalty books?", &words(&["royalty"])).is_empty());
        // no request: a question the lexicon does not read as asking for attributes
        assert!(unanswered_items(&q, &catalog, "Wie hoch ist die Lizenzgebühr jedes Buches?", &words(&["lizenzgebühr"])).is_empty());
        // on another schema (several schemas, mixed-case quoted names)
        let catalog = retail();
        let table = &catalog.tables[0];
        let column = &table.columns[0];
        let sql = format!("SELECT t.{} FROM {} AS t", crate::catalog::quote_ident(&column.name), table.name);
        let q = query(&sql);
        assert_eq!(unanswered_items(&q, &catalog, "What is the carbon footprint of each one?", &words(&["carbon", "footprint"])).len(), 1, "{sql}");
    }

    #[test]
    fn the_rule_reads_any_schema_and_any_case_of_names() {
        // another schema (several schemas, mixed case): the values compared are what count
        let catalog = retail();
        let table = catalog.tables.iter().find(|t| t.columns.iter().any(|c| literals::is_text(&c.type_name))).expect("a table with text");
        let column = table.columns.iter().find(|c| literals::is_text(&c.type_name)).expect("a text column");
        let sql = format!(
            "SELECT * FROM {} WHERE {} IN ('Alpha Corp', 'Beta Holdings', 'Gamma Group')",
            table.name,
            crate::catalog::quote_ident(&column.name)
        );
        let q = query(&sql);
        assert_eq!(invented_values(&q, &catalog, "Which of them are in the S&P 500 index?", &[]).len(), 3);
        assert!(invented_values(&q, &catalog, "Which of them are Alpha Corp, Beta Holdings or Gamma Group?", &[]).is_empty());
    }


    #[test]
    fn an_answer_with_no_time_for_a_time_asked_is_read() {
        let shop = bookshop();
        let names = "SELECT name, city FROM customers";
        for q in ["When did each customer order?", "Since when has each customer ordered?", "In which year did each customer join?", "What date did each customer join?", "On what day was each customer seen?"] {
            let (asked, returned) = untimed_answers(&query(names), &shop, q).unwrap_or_else(|| panic!("{q}"));
            assert!(q.to_lowercase().starts_with(&asked), "{q}: {asked}");
            assert_eq!(returned, ["customers.name", "customers.city"], "{q}");
        }
        // a count returned for "when" holds no time either
        assert_eq!(untimed_answers(&query("SELECT count(*) FROM orders"), &shop, "When were orders placed?").map(|a| a.1), Some(vec!["count(*)".to_string()]));
        // a column of a date type, a name of a time, a function of time: a time
        for sql in [
            "SELECT c.name, o.ordered_on FROM customers c JOIN orders o ON o.customer_id = c.customer_id",
            "SELECT EXTRACT(YEAR FROM o.ordered_on) FROM orders o",
            "SELECT date_part('year', ordered_on) FROM orders",
            "SELECT now()",
        ] {
            assert_eq!(untimed_answers(&query(sql), &shop, "When did each customer order?"), None, "{sql}");
        }
        let mut catalog = bookshop();
        catalog.tables[0].columns.push(crate::catalog::Column { name: "creation".into(), type_name: "text".into(), nullable: true, comment: None });
        catalog.tables[0].columns.push(crate::catalog::Column { name: "year_of_founded".into(), type_name: "integer".into(), nullable: true, comment: None });
        for sql in ["SELECT creation FROM authors GROUP BY creation ORDER BY count(*) DESC LIMIT 1", "SELECT name, year_of_founded FROM authors"] {
            assert_eq!(untimed_answers(&query(sql), &catalog, "In which year were most authors established?"), None, "{sql}");
        }
        // what the catalog does not resolve, or `*`, may hold one
        assert_eq!(untimed_answers(&query("SELECT t.x FROM (SELECT 1 AS x) t"), &shop, "When was it?"), None);
        assert_eq!(untimed_answers(&query("SELECT * FROM customers"), &shop, "When did each customer join?"), None);
        // a duration asked: a date alone is a moment, a difference or a duration's name holds one
        let q = "How long did each order take to arrive?";
        let (asked, returned) = untimed_answers(&query("SELECT o.order_id, o.ordered_on FROM orders o"), &shop, q).expect("a date for a duration");
        assert_eq!((asked.as_str(), returned.len()), ("how long did each order take", 2));
        assert_eq!(untimed_answers(&query("SELECT count(*) FROM orders"), &shop, "How long does an order last?").map(|a| a.1), Some(vec!["count(*)".to_string()]));
        for sql in ["SELECT o.order_id, now() - o.ordered_on FROM orders o", "SELECT o.order_id, o.ordered_on - o.ordered_on AS days FROM orders o"] {
            assert_eq!(untimed_answers(&query(sql), &shop, q), None, "{sql}");
        }
        let mut timed = bookshop();
        timed.tables[0].columns.push(crate::catalog::Column { name: "duration".into(), type_name: "integer".into(), nullable: true, comment: None });
        assert_eq!(untimed_answers(&query("SELECT name, duration FROM authors"), &timed, "How long did each author's career last?"), None);
        // "how long is": a length, not a time
        assert_eq!(untimed_answers(&query(names), &shop, "How long is each customer's name?"), None);
        // no time asked
        for q in ["Which customers ordered when it rained?", "What is the name of each customer?", "Which customers ordered this year?"] {
            assert_eq!(untimed_answers(&query(names), &shop, q), None, "{q}");
        }
    }

    #[test]
    fn an_answer_with_only_quantities_for_who_is_read() {
        let shop = bookshop();
        assert_eq!(quantities_for_who(&query("SELECT title, price FROM books"), &shop, "Who wrote each book?"), ["books.price"]);
        assert_eq!(quantities_for_who(&query("SELECT count(*) FROM books"), &shop, "Who wrote the books?"), ["count(*)"]);
        for (sql, q) in [
            // a name, a key, an expression of another kind: someone
            ("SELECT b.title, a.name FROM books b JOIN authors a ON a.author_id = b.author_id", "Who wrote each book?"),
            ("SELECT author_id FROM books", "Who wrote the most books?"),
            ("SELECT name || ' ' || country FROM authors", "Who are the authors?"),
            // the highest price is asked, whoever
            ("SELECT max(price) FROM books", "Who sells the most expensive book?"),
            // no "who"
            ("SELECT title, price FROM books", "What is the price of each book?"),
        ] {
            assert!(quantities_for_who(&query(sql), &shop, q).is_empty(), "{sql}");
        }
        // a number the question names is someone's id ("Who is the advisor of student 1004?")
        let mut catalog = bookshop();
        catalog.tables[1].columns.push(crate::catalog::Column { name: "editor".into(), type_name: "integer".into(), nullable: true, comment: None });
        assert!(quantities_for_who(&query("SELECT editor FROM books WHERE book_id = 4"), &catalog, "Who is the editor of book 4?").is_empty());
        assert_eq!(quantities_for_who(&query("SELECT editor FROM books WHERE book_id = 4"), &catalog, "Who bought book 4?"), ["books.editor"]);
    }

    #[test]
    fn a_threshold_the_question_does_not_give_is_read() {
        let assumed = |sql: &str, q: &str| assumed_thresholds(&query(sql), q, &[]).into_iter().map(|(_, n)| n).collect::<Vec<_>>();
        assert_eq!(assumed("SELECT title FROM books WHERE price > 30", "Which books are expensive?"), ["30"]);
        assert_eq!(assumed("SELECT name FROM authors a JOIN books b ON b.author_id = a.author_id WHERE b.price BETWEEN 10 AND 20", "Which authors write cheap books?"), ["10", "20"]);
        assert_eq!(assumed("SELECT title FROM books WHERE author_id IN (3, 7)", "Which books are by famous authors?"), ["3", "7"]);
        assert_eq!(assumed("SELECT title FROM books WHERE price > -5", "Which books have a price?"), ["-5"]);
        for (sql, q) in [
            ("SELECT title FROM books WHERE price > 30", "Which books cost more than 30?"),
            ("SELECT title FROM books WHERE price > 2", "Which books cost at least three dollars?"),
            ("SELECT title FROM books WHERE price >= 3000000", "Which books made 3 million?"),
            ("SELECT title FROM books WHERE price > 1200", "Which books cost over 1,200?"),
            ("SELECT title FROM books WHERE price < 0.05", "Which books have a discount below 5%?"),
            ("SELECT name FROM authors WHERE author_id BETWEEN 1990 AND 1999", "Which authors were born in the 1990s?"),
            ("SELECT name FROM authors a JOIN books b ON b.author_id = a.author_id GROUP BY a.name HAVING count(*) = 2", "Which authors wrote books in both 2014 and 2015?"),
            ("SELECT name FROM authors a JOIN books b ON b.author_id = a.author_id GROUP BY a.name HAVING count(*) >= 2", "Which authors wrote a book twice?"),
            ("SELECT title FROM books ORDER BY price DESC LIMIT 3", "What are the three dearest books?"),
            // 0 and 1: a flag, "any"
            ("SELECT title FROM books WHERE price > 0", "Which books are for sale?"),
            ("SELECT name FROM authors a JOIN books b ON b.author_id = a.author_id GROUP BY a.name HAVING count(*) > 1", "Which authors wrote several books?"),
            // a number compared with a number is no threshold of a column
            ("SELECT title FROM books WHERE 2 > 3", "Which books?"),
        ] {
            assert!(assumed(sql, q).is_empty(), "{q}: {sql}");
        }
        // a curator's text gives it
        assert!(assumed_thresholds(&query("SELECT title FROM books WHERE price > 30"), "Which books are expensive?", &["price > 30".to_string()]).is_empty());
        // a date that bounds a column, for a question that names no time
        assert_eq!(assumed("SELECT name FROM customers c JOIN orders o ON o.customer_id = c.customer_id WHERE o.ordered_on < '2023-01-01 00:00:00'", "Which customers ordered in the first round?"), ["2023-01-01 00:00:00"]);
        assert_eq!(assumed("SELECT order_id FROM orders WHERE ordered_on BETWEEN '2020-01-01' AND '2020-12-31'", "Which orders are early?"), ["2020-01-01", "2020-12-31"]);
        for (sql, q) in [
            ("SELECT order_id FROM orders WHERE ordered_on < '2023-01-01'", "Which orders were placed before 2023?"),
            ("SELECT order_id FROM orders WHERE ordered_on >= '2024-03-01'", "Which orders were placed since March?"),
            ("SELECT order_id FROM orders WHERE ordered_on > '2024-01-01'", "Which orders were placed this year?"),
            // equality is the value rule's ([`invented_values`]); a string that is no date is no bound
            ("SELECT order_id FROM orders WHERE ordered_on = '2023-01-01'", "Which orders are early?"),
            ("SELECT name FROM customers WHERE city > 'M'", "Which customers live late in the alphabet?"),
        ] {
            assert!(assumed(sql, q).is_empty(), "{q}: {sql}");
        }
    }

    #[test]
    fn sort_keys_that_hold_nothing_of_what_to_sort_by_are_read() {
        let mut catalog = bookshop();
        catalog.tables[0].columns.push(crate::catalog::Column { name: "age".into(), type_name: "integer".into(), nullable: true, comment: None });
        assert_eq!(
            unheld_sort_keys(&query("SELECT name FROM authors ORDER BY age"), &catalog, "List the authors sorted by years of experience."),
            Some(("years of experience".to_string(), vec!["authors.age".to_string()]))
        );
        assert_eq!(
            unheld_sort_keys(&query("SELECT title, price AS p FROM books ORDER BY p DESC"), &catalog, "Show the books ordered by their weight, heaviest first."),
            Some(("their weight".to_string(), vec!["books.price".to_string()]))
        );
        for (sql, q) in [
            ("SELECT name FROM authors ORDER BY age", "List the authors sorted by age."),
            ("SELECT name FROM authors ORDER BY age DESC", "List the authors ordered by their age in descending order."),
            ("SELECT title FROM books ORDER BY price", "Show the books sorted by the price they cost."),
            // what is counted is computed, not stored
            ("SELECT a.name FROM authors a JOIN books b ON b.author_id = a.author_id GROUP BY a.name ORDER BY count(*) DESC", "List the authors ranked by the number of their books."),
            // no word to hold: an order, a direction
            ("SELECT name FROM authors ORDER BY name", "List the authors sorted by name in alphabetical order."),
            ("SELECT name FROM authors ORDER BY age", "List the authors in ascending order."),
            // a column the catalog does not resolve may hold it
            ("SELECT t.x FROM (SELECT 1 AS x) t ORDER BY t.x", "List them sorted by popularity."),
            // nothing to sort by
            ("SELECT name FROM authors", "List the authors sorted by popularity."),
        ] {
            assert_eq!(unheld_sort_keys(&query(sql), &catalog, q), None, "{q}: {sql}");
        }
    }
}
