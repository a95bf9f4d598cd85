//! The entry points of the core that read user text or SQL, for the fuzzers (`fuzz/`, cargo-fuzz)
//! and the property tests (`cargo test`): constraint extraction and the lexicon over any question,
//! the SQL gate and the syntax-tree analyses over any SQL, every check over any question and SQL
//! on two schemas with data read from a scripted database, and the fix stage. Each must return,
//! whatever the input: no panic, no endless loop.

use std::collections::BTreeMap;

use serde_json::json;

use crate::ask::verify::{fix_mechanically, verify};
use crate::ask::Attempt;
use crate::catalog::Catalog;
use crate::checks::{self, literals, Observed};
use crate::constraints::facts::{facts_of, SqlDialect};
use crate::constraints::{self};
use crate::testing::{bookshop, failed, retail, rows, ScriptedDb};

/// A fuzzer's bytes as (question, SQL, a byte choosing what the scripted data says): the text up
/// to the first NUL is the question, the rest the SQL; invalid UTF-8 is replaced.
pub fn split(data: &[u8]) -> (String, String, u8) {
    let seed = data.first().copied().unwrap_or(0);
    let text = String::from_utf8_lossy(data.get(1..).unwrap_or(&[]));
    match text.split_once('\0') {
        Some((q, s)) => (q.to_string(), s.to_string(), seed),
        None => (text.to_string(), text.to_string(), seed),
    }
}

/// The two schemas the question is read against, with the scope stage's names of each: built
/// once, since neither depends on the input (what each execution does stays the same).
static SCHEMAS: once_cell::sync::Lazy<Vec<(Catalog, Vec<crate::scope::link::Name>)>> = once_cell::sync::Lazy::new(|| {
    [bookshop(), retail()].into_iter().map(|c| { let names = crate::scope::link::names(&c); (c, names) }).collect()
});

/// Everything that reads only the question.
pub fn question(text: &str) {
    let found = constraints::extract(text, None);
    let _ = constraints::extract(text, Some(text));
    for c in &found {
        let _ = c.requirement();
    }
    let _ = constraints::named_counts(text);
    let _ = crate::lexicon::reads_english(text);
    let _ = crate::lexicon::numbers_named(text);
    let _ = checks::columns::without_ranking_phrases(text);
    let _ = checks::columns::asked_attributes(text);
    let _ = checks::columns::requested_items(text);
    let _ = crate::lexicon::beyond_data(text);
    let _ = crate::lexicon::future_tense(text);
    for (runs, empty) in [(true, true), (false, false)] {
        let _ = crate::scope::future(text, runs, empty);
    }
    for (catalog, names) in SCHEMAS.iter() {
        let _ = crate::context::mask_schema_words(text, catalog);
        let _ = crate::context::build(catalog, &Default::default(), text, 400);
        let _ = crate::ask::probe::to_ground(text, &found, &Default::default(), catalog);
        // the scope stage: content words linked to the names, a stored value, and by meaning
        // half of the words (so every branch of the decision is reached)
        let values = [("customers.city".to_string(), text.chars().take(12).collect::<String>())];
        let evidence = crate::scope::Evidence::gather(text, names, &values, &mut |w: &str| vec![(w.to_string(), if w.len() % 2 == 0 { 0.7 } else { 0.3 })], 0.6);
        let _ = evidence.closest();
        let _ = evidence.to_json();
        let vote = crate::scope::ModelVote { answerable: false, kind: None, missing: text.chars().take(20).collect() };
        let _ = crate::scope::decide(&evidence, Some(&vote));
    }
}

/// Everything that reads only the SQL: the gate, the facts, the degenerate constructs.
pub fn sql(text: &str) {
    let _ = facts_of(text, SqlDialect::Postgres);
    let _ = facts_of(text, SqlDialect::Sqlite);
    if let Ok(checked) = crate::sql::check_query(text) {
        let _ = checked.to_sql();
        let _ = crate::sql::degenerate::degenerate(&checked.query);
        let mut limited = checked.query.clone();
        crate::sql::limit::impose_limit(&mut limited, 5);
        let _ = crate::sql::degenerate::introduced(&checked.query, &limited);
    }
}

/// What the checks that read data are told, made up from the seed: every flag, and for each
/// compared literal stored values in another case, like it, elsewhere, or nothing.
fn observed(query: &sqlparser::ast::Query, catalog: &Catalog, question: &str, seed: u8) -> Observed {
    let needs = checks::needs(query, catalog, question);
    let flag = |bit: u8| (seed >> bit) & 1 == 1;
    let mut o = Observed {
        fan_out_differs: needs.fan_out.as_ref().map(|_| flag(0)),
        needless_join_differs: needs.needless_join.as_ref().map(|_| flag(1)),
        both_differs: needs.both.as_ref().map(|_| flag(2)),
        ..Default::default()
    };
    for v in needs.values {
        o.values.insert(v, vec!["2010/01/05".into(), "05-01-2010".into()]);
    }
    for n in needs.nulls {
        o.holds_nulls.insert(n, flag(3));
    }
    for l in needs.literals {
        let mut s = literals::Stored::default();
        if flag(4) {
            s.variants = vec![l.value.to_uppercase(), l.core()];
            s.same_as_core = vec![l.core()];
        } else if flag(5) {
            s.near = vec![format!("{}s", l.core())];
        } else if flag(6) {
            s.elsewhere = vec![(l.rel.clone(), "other".into())];
        }
        o.stored.insert(l, s);
    }
    o
}

/// Every check, the constraints' verdicts, the literal fix and the scope stage's judgement of a
/// query written, for one question and one SQL, on two schemas.
pub fn checks(question: &str, sql: &str, seed: u8) {
    let Ok(checked) = crate::sql::check_query(sql) else { return };
    let q = &checked.query;
    let found = constraints::extract(question, None);
    if let Ok(f) = facts_of(sql, SqlDialect::Postgres) {
        for v in constraints::verify_all(&found, &f) {
            let _ = v.message;
        }
        let _ = constraints::sql_checks(&f, question);
    }
    for catalog in [bookshop(), retail()] {
        let o = observed(q, &catalog, question, seed);
        for f in checks::check(q, &catalog, question, &o) {
            let _ = f.message;
        }
        let _ = literals::replace(q, &catalog, &o.stored, question);
        let _ = checks::needless_join::needless(q, &catalog, question);
        let _ = checks::both::either(q, question);
        let _ = checks::shape::fan_out(q, &catalog, question);
        let _ = checks::columns::unasked_items(q, &catalog, question);
        // the scope stage's judgement of the query written, every word of the question taken as
        // linking to nothing and every proper name as held by no stored value
        let words: Vec<String> = crate::scope::words::content_words(question).into_iter().map(|w| w.text).collect();
        let gap = crate::scope::written::Gap { unlinked: words, names: crate::scope::words::proper_names(question), closest: Vec::new() };
        let _ = crate::scope::written::judge(q, &catalog, question, &gap, &[], &[]);
        let _ = crate::scope::written::stand_ins(q, &gap.unlinked);
        let _ = crate::scope::written::unanswered_items(q, &catalog, question, &gap.unlinked);
    }
    let _ = checks::result_findings(&[vec![json!(null)], vec![json!(1), json!("a")]]);
}

/// The scripted database the fix stage reads, answering as the seed says.
fn database(catalog: Catalog, seed: u8) -> ScriptedDb {
    let mut db = ScriptedDb { catalog, ..Default::default() };
    let flag = |bit: u8| (seed >> bit) & 1 == 1;
    if flag(0) {
        db = db.answer("lower(btrim", rows(&["v"], json!([["Paris"], ["paris"]])));
    }
    if flag(1) {
        db = db.answer("similarity", rows(&["v"], json!([["Parish"]])));
    }
    if flag(2) {
        db = db.answer("EXISTS", rows(&["e"], json!([[true]])));
    }
    if flag(3) {
        db = db.plan_fails("T1.", "column t1.x does not exist");
    }
    if flag(4) {
        db = db.answer("count(DISTINCT", rows(&["n"], json!([[1]]))).answer("count(", rows(&["n"], json!([[2]])));
    }
    if flag(5) {
        db = db.answer("SELECT", failed("scripted failure"));
    }
    if flag(6) {
        db = db.answer("SELECT", rows(&["a", "b"], json!([[null, null]])));
    }
    if flag(7) {
        // a second failure behind the first, so that a fix of one is a step of a chain
        db = db.plan_fails("T2.", "column t2.y does not exist").plan_fails("CAST(", "operator does not exist: text > integer");
    }
    db
}

/// Verification and the fix stage over one question and one SQL, on two schemas; and every fix
/// proposed for every finding a query can have.
pub fn fix(question: &str, sql: &str, seed: u8) {
    let found = constraints::extract(question, None);
    for catalog in [bookshop(), retail()] {
        let mut db = database(catalog.clone(), seed);
        let verified = verify(&mut db, sql, &found, &catalog, question);
        let _ = fix_mechanically(&mut db, verified, &found, &catalog, question, &mut |_| Ok(()));
        let every: Vec<String> = [
            "all_rows", "limit_without_order", "top_k", "check:null_order", "check:direction", "check:columns",
            "check:needless_join", "check:both", "check:fan_out",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let failures = [
            "running it failed: column \"books.title\" must appear in the GROUP BY clause or be used in an aggregate function",
            "PostgreSQL cannot plan it: column reference \"author_id\" is ambiguous",
            "PostgreSQL cannot plan it: operator does not exist: text > integer",
        ];
        for (fails, problem) in [(false, failures[0]), (true, failures[0]), (true, failures[1]), (true, failures[2])] {
            let attempt = Attempt { sql: sql.to_string(), violated: every.clone(), problems: vec![problem.into()], fails };
            for f in crate::ask::fix::propose(&attempt, &catalog, question, &found) {
                // a proposal is SQL the gate accepts
                assert!(crate::sql::check_query(&f.sql).is_ok(), "a fix proposed SQL the gate refuses: {}", f.sql);
            }
        }
    }
    let _: BTreeMap<(), ()> = BTreeMap::new();
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// Text that looks like questions and SQL often enough to reach deep: words of both, numbers,
    /// quotes, non-breaking and other Unicode spaces, accents, and anything else.
    fn text() -> impl Strategy<Value = String> {
        let token = prop_oneof![
            Just("SELECT".to_string()), Just("FROM".to_string()), Just("WHERE".to_string()), Just("JOIN".to_string()),
            Just("ON".to_string()), Just("GROUP BY".to_string()), Just("ORDER BY".to_string()), Just("LIMIT".to_string()),
            Just("count(*)".to_string()), Just("books".to_string()), Just("T1.price".to_string()), Just("=".to_string()),
            Just("'Paris'".to_string()), Just("how many".to_string()), Just("more than".to_string()), Just("the top".to_string()),
            Just("highest".to_string()), Just("not".to_string()), Just("both".to_string()), Just("LIKE '%a%'".to_string()),
            Just("\u{00A0}".to_string()), Just("\u{2009}".to_string()), Just("Bücher".to_string()), Just("ß".to_string()),
            Just("5".to_string()), Just("five".to_string()), Just("%".to_string()), Just(",".to_string()), Just("?".to_string()),
            "\\PC{0,6}".prop_map(|s| s),
        ];
        prop::collection::vec(token, 0..24).prop_map(|v| v.join(" "))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

        #[test]
        fn no_panic_on_any_question(q in text()) {
            super::question(&q);
        }

        #[test]
        fn no_panic_on_any_sql(s in text()) {
            super::sql(&s);
        }

        #[test]
        fn no_panic_in_any_check(q in text(), s in text(), seed in any::<u8>()) {
            super::checks(&q, &s, seed);
        }

        #[test]
        fn no_panic_in_the_fix_stage(q in text(), s in text(), seed in any::<u8>()) {
            super::fix(&q, &s, seed);
        }
    }

    #[test]
    fn the_non_breaking_space_that_once_panicked() {
        super::question("Which customers placed more than 5\u{00A0}orders?");
        super::checks("Which customers placed more than 5\u{00A0}orders?", "SELECT name FROM customers", 0);
    }
}
