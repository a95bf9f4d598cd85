//! Verification of one SQL for one question, and the repair and refinement loops it drives.
//!
//! A verification is: the checker chain on the syntax tree (two checkers read a little data, as
//! the caller), the question's constraints on the query's facts, a plan (`EXPLAIN`), a bounded
//! run, and the result checks. Every problem becomes a directive for the repair.

use serde_json::{json, Value};
use sqlparser::ast::Query;

use super::pipeline::Ask;
use super::fix;
use super::prompts;
use super::repair::{accept_refinement, judge, normalise, schema_hints, Attempt, Judgement, EMPTY_RESULT};
use crate::catalog::{quote_ident, Catalog};
use std::collections::BTreeMap;

use crate::checks::literals::{self, Literal, Stored};
use crate::checks::{self, Finding, Observed, Severity};
use crate::constraints::facts::{facts_of, SqlDialect};
use crate::constraints::facts::QueryFacts;
use crate::constraints::{self, Constraint, Verdict};
use crate::effects::{Database, Executor, Model};
use crate::error::Result;
use crate::result::Outcome;
use crate::select::answer::{Answer, RowSemantics};
use crate::sql::check_query;
use crate::trace::{Stage, Status};

/// Distinct stored values the `time` checker reads of each text column compared with a date.
const STORED_VALUES: usize = 20;

/// Rows a verification run reads.
const VERIFY_ROWS: usize = 5;

/// Rounds of mechanical fixes on one query (each round keeps at most one fix).
const FIX_ROUNDS: usize = 3;

/// Compared text literals whose stored values one verification reads, at most.
const MAX_LITERALS: usize = 8;

/// The checker chain on a query. Returns the findings and what was read of the data ([`observe`]).
pub fn run_checkers<E: Executor + ?Sized>(db: &mut E, query: &Query, catalog: &Catalog, question: &str) -> (Vec<Finding>, Vec<String>) {
    let (observed, read) = observe(db, query, catalog, question);
    (checks::check(query, catalog, question, &observed), read)
}

/// What the checkers that judge by the data need to see, read through the executor as the caller
/// (a column the caller cannot read is not in their catalog, so never judged): `time` a few
/// distinct values of each text column compared with a date, `null_order` whether a nullable
/// column ranked DESC holds any NULL, `literal` the stored values a compared text literal matches
/// ignoring case, `fan_out` the count both as written and of distinct keys, `needless_join` the
/// rows with and without the joins the answer takes nothing from, `both` the rows with either value
/// and with both. Returns what was observed and, in words, what was read.
fn observe<E: Executor + ?Sized>(db: &mut E, query: &Query, catalog: &Catalog, question: &str) -> (Observed, Vec<String>) {
    let needs = checks::needs(query, catalog, question);
    let mut observed = Observed::default();
    let mut read = Vec::new();
    for (rel, col) in needs.values {
        let sql = format!("SELECT DISTINCT {c}::text FROM {rel} WHERE {c} IS NOT NULL LIMIT {STORED_VALUES}", c = quote_ident(&col));
        if let Ok(o @ Outcome::Rows(_)) = db.run(&sql, STORED_VALUES) {
            read.push(format!("{rel}.{col}"));
            observed.values.insert((rel, col), first_texts(o));
        }
    }
    for (rel, col) in needs.nulls {
        let sql = format!("SELECT EXISTS (SELECT 1 FROM {rel} WHERE {} IS NULL)", quote_ident(&col));
        if let Ok(Outcome::Rows(r)) = db.run(&sql, 1) {
            if let Some(b) = r.rows.first().and_then(|row| row.first()).and_then(Value::as_bool) {
                read.push(format!("{rel}.{col} (NULLs)"));
                observed.holds_nulls.insert((rel, col), b);
            }
        }
    }
    observed.stored = read_stored(db, query, catalog, &needs.literals);
    if !observed.stored.is_empty() {
        read.push(format!("{} compared string literal(s) against the stored values (literal)", observed.stored.len()));
    }
    if let Some(distinct) = needs.fan_out {
        // the count as the query counts, and counting each thing once
        let first = |db: &mut E, sql: &str| match db.run(sql, 2) {
            Ok(Outcome::Rows(r)) if r.rows.len() == 1 => r.rows[0].first().cloned(),
            _ => None,
        };
        if let (Some(a), Some(b)) = (first(db, &query.to_string()), first(db, &distinct)) {
            read.push("count vs distinct count (fan_out)".into());
            observed.fan_out_differs = Some(a != b);
        }
    }
    // the query's own rows, read once for the rewrites compared with it
    let own = (needs.needless_join.is_some() || needs.both.is_some()).then(|| compared_rows(db, &query.to_string())).flatten();
    if let (Some(without), Some(own)) = (needs.needless_join, &own) {
        // the rows with the joins and without them (as bags: duplicates count), when both fit
        // under the bound
        if let Some(b) = compared_rows(db, &without) {
            read.push("rows with and without the joins the answer takes nothing from (needless_join)".into());
            observed.needless_join_differs = Some(Answer::new(own, false, RowSemantics::Bag) != Answer::new(&b, false, RowSemantics::Bag));
        }
    }
    if let (Some(intersect), Some(own)) = (needs.both, &own) {
        // the rows as written and those that have each of the two values (as sets: the
        // intersection drops duplicates); an empty intersection says nothing has both
        if let Some(b) = compared_rows(db, &intersect) {
            read.push("rows with either value and with both (both)".into());
            observed.both_differs = Some(!b.is_empty() && Answer::new(own, false, RowSemantics::Set) != Answer::new(&b, false, RowSemantics::Set));
        }
    }
    (observed, read)
}

/// The most rows `needless_join` and `both` compare; a larger result is not judged.
const COMPARED_ROWS: usize = 5_000;

/// A query's rows, run as the caller, for comparing with a rewrite of it; `None` when it fails or
/// has too many rows to compare.
fn compared_rows<E: Executor + ?Sized>(db: &mut E, sql: &str) -> Option<Vec<Vec<Value>>> {
    match db.run(sql, COMPARED_ROWS) {
        Ok(Outcome::Rows(r)) if r.truncated.is_none() && r.rows.len() < COMPARED_ROWS => Some(r.rows),
        _ => None,
    }
}

/// What the data says of each compared string literal, read as the caller: the stored values it
/// matches ignoring case and spaces and, when none, the stored values like it (pg_trgm's
/// similarity, when the extension is there), those that hold it within a longer text, and the
/// other columns that hold it. A literal whose first read fails is left out (not judged).
fn read_stored<E: Executor + ?Sized>(db: &mut E, query: &Query, catalog: &Catalog, found: &[Literal]) -> BTreeMap<Literal, Stored> {
    let mut trgm: Option<Option<String>> = None;
    let mut out = BTreeMap::new();
    for l in found.iter().take(MAX_LITERALS) {
        let Ok(o @ Outcome::Rows(_)) = db.run(&literals::stored_variants_sql(l), 5) else { continue };
        let mut stored = Stored { variants: first_texts(o), ..Default::default() };
        if l.op == literals::Op::Matches && stored.variants.len() >= 2 {
            stored.same_as_core = db.run(&literals::same_as_core_sql(l), 5).map(first_texts).unwrap_or_default();
        }
        if stored.variants.is_empty() {
            let schema = trgm.get_or_insert_with(|| match db.run(TRGM_SCHEMA, 1) {
                Ok(o) => first_texts(o).into_iter().next(),
                Err(_) => None,
            });
            if let Some(sql) = schema.as_deref().and_then(|s| literals::near_sql(l, s)) {
                stored.near = db.run(&sql, 3).map(first_texts).unwrap_or_default();
            }
            if let Some(sql) = literals::within_sql(l) {
                stored.within = db.run(&sql, 3).map(first_texts).unwrap_or_default();
            }
            for (rel, columns, sql) in literals::elsewhere_sql(l, query, catalog) {
                if let Ok(Outcome::Rows(r)) = db.run(&sql, 1) {
                    let Some(row) = r.rows.first() else { continue };
                    for (c, held) in columns.iter().zip(row) {
                        if held.as_bool() == Some(true) {
                            stored.elsewhere.push((rel.clone(), c.clone()));
                        }
                    }
                }
            }
        }
        out.insert(l.clone(), stored);
    }
    out
}

/// The text of each row's first cell (none for a failure).
fn first_texts(o: Outcome) -> Vec<String> {
    match o {
        Outcome::Rows(r) => r.rows.iter().filter_map(|row| row.first()?.as_str().map(str::to_string)).collect(),
        _ => vec![],
    }
}

/// The schema pg_trgm's functions live in.
const TRGM_SCHEMA: &str = "SELECT n.nspname::text FROM pg_catalog.pg_extension AS e JOIN pg_catalog.pg_namespace AS n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'";

/// One SQL after verification: the attempt (problems as directives), what the audit log keeps,
/// and whether it ran and returned no row.
#[derive(Debug, Clone)]
pub struct Verified {
    pub attempt: Attempt,
    pub data: Value,
    pub empty: bool,
    /// The `literal` fix, from the stored values this verification read: each literal that
    /// matches exactly one stored value replaced by it (only when `check:literal` fired).
    pub literal_fix: Option<fix::Fix>,
}

impl Verified {
    pub fn status(&self) -> Status {
        if self.attempt.is_clean() {
            Status::Ok
        } else if self.attempt.fails {
            Status::Error
        } else {
            Status::Violations
        }
    }

    pub fn summary(&self) -> String {
        summary(&self.attempt)
    }
}

fn summary(a: &Attempt) -> String {
    if a.is_clean() {
        "every check passes".into()
    } else {
        a.problems.join("; ")
    }
}

/// Verify one SQL: the checker chain and the question's constraints on its AST, then a plan,
/// then a bounded run.
pub fn verify<D: Database + ?Sized>(db: &mut D, sql: &str, constraints: &[Constraint], catalog: &Catalog, question: &str) -> Verified {
    let (mut problems, mut violated, mut verdicts, mut notes, mut stored_read) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut literal_fix = None;
    // the checker chain, fail-fast: the first checker that fires speaks (every finding counts as
    // violated, so a repair that fixes the first is not judged a regression for revealing the next)
    if let Ok(checked) = check_query(sql) {
        let (observed, read) = observe(db, &checked.query, catalog, question);
        let findings = checks::check(&checked.query, catalog, question, &observed);
        stored_read = read;
        if findings.iter().any(|f| f.checker == "literal") {
            literal_fix = literals::replace(&checked.query, catalog, &observed.stored, question)
                .map(|(fixed, what)| fix::Fix { name: "literal", sql: fixed.to_string(), what });
        }
        let repairs: Vec<&Finding> = findings.iter().filter(|f| f.severity == Severity::Repair).collect();
        violated.extend(repairs.iter().map(|f| format!("check:{}", f.checker)));
        if let Some(first) = repairs.first() {
            problems.push(first.message.clone());
        }
        notes.extend(findings.into_iter().filter(|f| f.severity == Severity::Note));
    }
    match facts_of(sql, SqlDialect::Postgres) {
        Ok(facts) => {
            // an all-rows constraint already says what to do with a stray LIMIT
            let all_rows = constraints.iter().any(|c| matches!(c.kind, constraints::Kind::AllRows));
            for p in constraints::sql_checks(&facts, question).into_iter().filter(|_| !all_rows) {
                violated.push("limit_without_order".into());
                problems.push(p);
            }
            for v in constraint_verdicts(db, sql, constraints, &facts, question) {
                if !v.satisfied {
                    violated.push(v.constraint.name().to_string());
                    problems.push(v.message.clone());
                }
                verdicts.push(json!({"constraint": v.constraint.name(), "phrase": v.constraint.phrase, "satisfied": v.satisfied}));
            }
        }
        Err(e) => problems.push(format!("the SQL does not parse: {e}")),
    }
    let mut fails = false;
    let mut result = Value::Null;
    let mut empty = false;
    match db.plan(sql) {
        Err(refusal) => {
            fails = true;
            problems.push(format!("not a usable query: {refusal}"));
        }
        Ok(Outcome::Failed(f)) => {
            fails = true;
            problems.push(format!("PostgreSQL cannot plan it: {}", f.message));
        }
        Ok(Outcome::Rows(_)) => match db.run(sql, VERIFY_ROWS) {
            Ok(Outcome::Failed(f)) => {
                fails = true;
                problems.push(if f.timed_out {
                    format!("it ran longer than nl2sql.statement_timeout: {}", f.message)
                } else {
                    format!("running it failed: {}", f.message)
                });
            }
            Ok(Outcome::Rows(r)) => {
                for f in checks::result_findings(&r.rows) {
                    violated.push(format!("check:{}", f.checker));
                    problems.push(f.message);
                }
                empty = r.rows.is_empty();
                result = json!({"columns": r.columns, "first_rows": r.rows, "empty": empty});
            }
            Err(refusal) => {
                fails = true;
                problems.push(format!("not a usable query: {refusal}"));
            }
        },
    }
    let data = json!({"verdicts": verdicts, "problems": problems, "notes": notes, "result": result, "values_read": stored_read});
    Verified { attempt: Attempt { sql: sql.to_string(), violated, problems, fails }, data, empty, literal_fix }
}

/// The question's constraints verified on the query's syntax tree (`facts`), with what the data
/// settles: a `distinct` the query does not write holds when removing duplicates
/// ([`without_duplicates`]) leaves its rows unchanged on the data, read as the caller ("the
/// different cities" of a table that holds each city once needs no DISTINCT). A rewrite that does
/// not run, or a result over [`COMPARED_ROWS`] rows, leaves the verdict as the syntax tree gives it.
pub fn constraint_verdicts<E: Executor + ?Sized>(db: &mut E, sql: &str, constraints: &[Constraint], facts: &QueryFacts, question: &str) -> Vec<Verdict> {
    let mut out = constraints::verify_all(constraints, facts);
    for v in out.iter_mut().filter(|v| !v.satisfied && matches!(v.constraint.kind, constraints::Kind::Distinct)) {
        let noun = constraints::distinct_noun(question);
        let Some(unique) = check_query(sql).ok().and_then(|c| without_duplicates(&c.query, noun.as_deref())) else { continue };
        let (Some(own), Some(deduplicated)) = (compared_rows(db, sql), compared_rows(db, &unique.to_string())) else { continue };
        if Answer::new(&own, false, RowSemantics::Bag) == Answer::new(&deduplicated, false, RowSemantics::Bag) {
            v.satisfied = true;
            v.message = format!("satisfied on the data: removing duplicates ({unique}) changes no row");
        }
    }
    out
}

/// The query with its duplicates removed, to compare its rows with the query's as a bag: a count
/// of a column (`COUNT(x)`, the only item of an ungrouped block) counts each value once
/// (`COUNT(DISTINCT x)`); a block that neither groups nor aggregates selects `DISTINCT`, without
/// its ORDER BY when it has no LIMIT or OFFSET (a bag has no order, and PostgreSQL sorts a
/// `DISTINCT` only by what it selects). A count of the rows of one table (`COUNT(*)`, no join)
/// counts its distinct rows when the thing the question says to tell apart (`noun`, "different
/// *colleges*") is what the table is named after: its rows are those things. `None` for
/// anything else (set operations, groupings, other aggregates, a count of rows of something
/// else), which is left to the syntax tree.
pub fn without_duplicates(query: &Query, noun: Option<&str>) -> Option<Query> {
    use sqlparser::ast::{Distinct, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, SelectItem, SetExpr};
    let mut q = query.clone();
    let limited = q.limit_clause.is_some() || q.fetch.is_some();
    let SetExpr::Select(select) = q.body.as_mut() else { return None };
    if select.distinct.is_some() || checks::grouped(select) {
        return None;
    }
    // a count of the rows of the things the question tells apart: of their distinct rows
    let distinct_rows = (!limited && noun.is_some_and(|n| rows_are(select, n))).then(|| {
        let mut rows = select.as_ref().clone();
        rows.projection = vec![SelectItem::Wildcard(Default::default())];
        rows.distinct = Some(Distinct::Distinct);
        format!("SELECT count(*) FROM ({rows}) AS distinct_rows")
    });
    if let [SelectItem::UnnamedExpr(Expr::Function(f)) | SelectItem::ExprWithAlias { expr: Expr::Function(f), .. }] = select.projection.as_mut_slice() {
        let FunctionArguments::List(list) = &mut f.args else { return None };
        if !f.name.to_string().eq_ignore_ascii_case("count") || list.duplicate_treatment.is_some() {
            return None;
        }
        return match list.args.as_slice() {
            [FunctionArg::Unnamed(FunctionArgExpr::Expr(_))] => {
                list.duplicate_treatment = Some(DuplicateTreatment::Distinct);
                Some(q)
            }
            [FunctionArg::Unnamed(FunctionArgExpr::Wildcard)] => distinct_rows.and_then(|sql| check_query(&sql).ok()).map(|c| *c.query),
            _ => None,
        };
    }
    if checks::projects_aggregate(select) {
        return None;
    }
    select.distinct = Some(Distinct::Distinct);
    if !limited {
        q.order_by = None;
    }
    Some(q)
}

/// Does a block read one table, with no join, named after `noun` (its name's last word, in the
/// singular: `college`, `claims_processing_stages`)?
fn rows_are(select: &sqlparser::ast::Select, noun: &str) -> bool {
    use crate::context::stem;
    let [from] = select.from.as_slice() else { return false };
    let sqlparser::ast::TableFactor::Table { name, .. } = &from.relation else { return false };
    let Some(table) = name.0.last().and_then(|p| p.as_ident()).map(|i| i.value.to_lowercase()) else { return false };
    let last = table.rsplit('_').next().unwrap_or(&table);
    from.joins.is_empty() && stem(last) == stem(&noun.to_lowercase())
}

/// One mechanical fix tried: which, the SQL it made, whether it was kept, and what its
/// verification found.
#[derive(Debug, Clone)]
pub struct FixStep {
    pub name: &'static str,
    pub sql: String,
    pub kept: bool,
    pub detail: String,
    pub data: Value,
}

/// Mechanical repairs (`ask::fix`) of a verified query, without the model: each proposed fix is
/// verified, and the first that runs with fewer problems replaces the query; then the fixes of the
/// new query, at most [`FIX_ROUNDS`] rounds. A query that fails to plan may need fixes in a chain
/// ([`FIX_CHAIN`]). Every fix tried is reported to `step`. Returns the query that stands and
/// whether its result is empty.
pub fn fix_mechanically<D: Database + ?Sized>(
    db: &mut D,
    verified: Verified,
    constraints: &[Constraint],
    catalog: &Catalog,
    question: &str,
    step: &mut dyn FnMut(FixStep) -> Result<()>,
) -> Result<(Attempt, bool)> {
    let Verified { attempt: mut current, mut empty, literal_fix: mut literal, .. } = verified;
    let fixing = Fixing { constraints, catalog, question };
    for _ in 0..FIX_ROUNDS {
        if current.is_clean() {
            break;
        }
        let mut seen = vec![current.problems.clone()];
        match fixing.first_kept(db, &current, literal.take(), FIX_CHAIN, &mut seen, &[], step)? {
            Some(fixed) => (current, empty, literal) = (fixed.attempt, fixed.empty, fixed.literal_fix),
            None => break,
        }
    }
    Ok((current, empty))
}

/// How many fixes that still fail may stand between a query that fails to plan and one that
/// runs. PostgreSQL reports one planning error at a time, so a query with two wrong names fails
/// on the second once the first is fixed: `SELECT T2.name, T1.course FROM teacher AS T1 JOIN
/// course_arrange AS T2 …` fails on `T2.name`, requalified to `T1.name` it fails on `T1.course`,
/// which the table `course_arrange`'s key leads to. A fix that fails on a problem the chain has
/// already met is no step forward.
const FIX_CHAIN: usize = 2;

/// What every fix of one question is judged against.
struct Fixing<'a> {
    constraints: &'a [Constraint],
    catalog: &'a Catalog,
    question: &'a str,
}

impl Fixing<'_> {
    /// The first proposed fix of `current` (and `extra`, the `literal` fix) that [`fix::accept`]
    /// keeps, verified; when `current` fails to plan and no fix makes it run, the fixes of each
    /// fix that fails on a new problem, `depth` steps deep. `before` is what the chain fixed so far.
    #[allow(clippy::too_many_arguments)]
    fn first_kept<D: Database + ?Sized>(
        &self,
        db: &mut D,
        current: &Attempt,
        extra: Option<fix::Fix>,
        depth: usize,
        seen: &mut Vec<Vec<String>>,
        before: &[String],
        step: &mut dyn FnMut(FixStep) -> Result<()>,
    ) -> Result<Option<Verified>> {
        let mut proposed = fix::propose(current, self.catalog, self.question, self.constraints);
        proposed.extend(extra);
        let mut stones = Vec::new();
        for f in proposed {
            let fixed = verify(db, &f.sql, self.constraints, self.catalog, self.question);
            let kept = fix::accept(current, &fixed.attempt);
            let what = if before.is_empty() { f.what.clone() } else { format!("{}, then {}", before.join(", then "), f.what) };
            let stone = !kept && current.fails && fixed.attempt.fails && depth > 0 && !seen.contains(&fixed.attempt.problems);
            let detail = if kept {
                format!("{what}; now: {}", fixed.summary())
            } else if stone {
                format!("{what}: not kept alone (it fails next on another problem: {}); its own fixes are tried", fixed.summary())
            } else {
                format!("{what}: not kept ({})", fixed.summary())
            };
            let mut data = fixed.data.clone();
            data["fix"] = f.name.into();
            step(FixStep { name: f.name, sql: f.sql, kept, detail, data })?;
            if kept {
                return Ok(Some(fixed));
            }
            if stone {
                seen.push(fixed.attempt.problems.clone());
                stones.push((f.what, fixed));
            }
        }
        for (what, stone) in stones {
            let chain: Vec<String> = before.iter().cloned().chain(std::iter::once(what)).collect();
            if let Some(fixed) = self.first_kept(db, &stone.attempt, stone.literal_fix, depth - 1, seen, &chain, step)? {
                return Ok(Some(fixed));
            }
        }
        Ok(None)
    }
}

impl<D: Database + ?Sized, M: Model + ?Sized> Ask<'_, '_, D, M> {
    pub(super) fn verify(&mut self, sql: &str) -> Verified {
        verify(self.db, sql, &self.constraints, &self.catalog, self.question.text)
    }

    /// Verify `sql`; while problems remain and the budget allows, ask the model to repair it with
    /// the problems as directives (and schema hints), keeping whichever query is better; then, if
    /// the result is empty, one round of refinement. Returns the query that stands and whether
    /// its result is empty.
    pub(super) fn verify_and_repair(&mut self, sql: String) -> Result<(Attempt, bool)> {
        let mut first = self.verify(&sql);
        let mut detail = first.summary();
        if first.empty {
            detail.push_str(" (note: the result is empty)");
        }
        // the query the model last wrote, which `current` derives from: its repair is the next
        // turn of the conversation that wrote it, when that is the last one
        let mut written = sql.clone();
        self.trace.step(Stage::Verify, first.status(), detail, Some(sql), std::mem::take(&mut first.data))?;
        let (mut current, mut current_empty) = self.fixes(first)?;
        let mut repairs = 0;
        let mut earlier: Vec<String> = Vec::new();
        while !current.is_clean() && self.opts.repair && repairs < self.opts.max_repairs {
            repairs += 1;
            let mut hints: Vec<String> = Vec::new();
            for p in &current.problems {
                for h in schema_hints(&current.sql, &self.catalog, p) {
                    if !hints.contains(&h) {
                        hints.push(h);
                    }
                }
            }
            let (q, e) = (self.question.text, self.question.evidence);
            let conversation = self.conversation_for(&written);
            let in_conversation = conversation.is_some();
            let messages = match conversation {
                Some(x) => {
                    let now = (normalise(&current.sql) != normalise(&x.written)).then_some(current.sql.as_str());
                    prompts::repair_in_conversation(x.messages, now, &current.problems, &hints)
                }
                None => prompts::repair(&self.schema.text, q, e, &self.grounding, &current.sql, &current.problems, &hints, &earlier),
            };
            let next_sql = match self.ask_sql(messages, Stage::Repair)? {
                Ok(s) => s,
                Err(e) => {
                    self.trace.step(Stage::Repair, Status::Stopped, format!("repair {repairs} gave no usable SQL: {e}"), None, Value::Null)?;
                    break;
                }
            };
            let mut next = self.verify(&next_sql);
            let verdict = judge(&current, &next.attempt);
            let status = match verdict {
                Judgement::Clean => Status::Ok,
                Judgement::Unchanged => Status::Unchanged,
                Judgement::Regressed => Status::Regressed,
                Judgement::Continue => Status::Continue,
            };
            let mut data = std::mem::take(&mut next.data);
            data["in_conversation"] = in_conversation.into();
            self.trace.step(Stage::Repair, status, format!("repair {repairs}: {}", next.summary()), Some(next_sql.clone()), data)?;
            earlier.push(current.sql.chars().take(300).collect());
            let keep = match verdict {
                Judgement::Clean | Judgement::Continue => true,
                Judgement::Unchanged => false,
                Judgement::Regressed => next.attempt.better_than(&current),
            };
            if keep {
                written = next_sql;
                (current, current_empty) = self.fixes(next)?;
            }
            if verdict != Judgement::Continue {
                break;
            }
        }
        // the model's own repair could not make it run (a 1.5B model returns the failing query
        // unchanged): one fresh generation by another generator, a reading that does not start
        // from the failing query, kept only if it runs
        // (not when generation already fell back to that generator: the same prompt again)
        if current.fails && self.opts.repair && self.fresh.is_none() {
            if let Some((fresh, fresh_empty)) = self.regenerate(&current)? {
                (current, current_empty) = (fresh, fresh_empty);
                self.fresh = Some(self.opts.generators[0].other());
            }
        }
        if self.opts.refine && current_empty && !current.fails {
            if let Some(refined) = self.refine_empty(&current)? {
                // a refinement is kept only when it returns rows
                (current, current_empty) = (refined, false);
            }
        }
        Ok((current, current_empty))
    }

    /// One fresh generation, by a generator of another reasoning than the run's first
    /// ([`prompts::Generator::other`]), for a query that still fails after repair: verified and
    /// fixed like the first, and kept only if it runs. `None` leaves the failing query (and the
    /// run's `error`) in place.
    fn regenerate(&mut self, failing: &Attempt) -> Result<Option<(Attempt, bool)>> {
        let g = self.opts.generators[0].other();
        let (q, e) = (self.question.text, self.question.evidence);
        let messages = prompts::generate_with(g, &self.schema.text, q, e, &self.grounding, &self.constraints, &[]);
        let sql = match self.sql_answer(messages, Stage::Repair, g.name(), g.schema(), None)? {
            Ok(s) => s,
            Err(e) => {
                let detail = format!("a fresh generation by {} gave no usable SQL ({e}); the failing query stands", g.name());
                self.trace.step(Stage::Repair, Status::Stopped, detail, None, json!({"fresh": g.name()}))?;
                return Ok(None);
            }
        };
        let mut fresh = self.verify(&sql);
        let mut data = std::mem::take(&mut fresh.data);
        data["fresh"] = g.name().into();
        let runs = !fresh.attempt.fails;
        let detail = if runs {
            format!("the repaired query still failed ({}); a fresh generation by {} runs: {}", failing.problems.join("; "), g.name(), fresh.summary())
        } else {
            format!("the repaired query still fails; a fresh generation by {} fails too ({})", g.name(), fresh.summary())
        };
        self.trace.step(Stage::Repair, if runs { fresh.status() } else { Status::Kept }, detail, Some(sql), data)?;
        if !runs {
            return Ok(None);
        }
        let (fixed, empty) = self.fixes(fresh)?;
        Ok((!fixed.fails).then_some((fixed, empty)))
    }

    /// Mechanical repairs (`ask::fix`), every fix tried a `fix` step ([`fix_mechanically`]).
    pub(super) fn fixes(&mut self, verified: Verified) -> Result<(Attempt, bool)> {
        if !self.opts.fix {
            return Ok((verified.attempt, verified.empty));
        }
        let trace = &mut self.trace;
        fix_mechanically(self.db, verified, &self.constraints, &self.catalog, self.question.text, &mut |f: FixStep| {
            trace.step(Stage::Fix, if f.kept { Status::Ok } else { Status::Kept }, f.detail, Some(f.sql), f.data)
        })
    }

    /// Execution-guided refinement of an empty result: one round with the directive and the
    /// probes so far; the refined SQL is kept only under [`accept_refinement`]'s rule.
    fn refine_empty(&mut self, current: &Attempt) -> Result<Option<Attempt>> {
        // the directive is about values written otherwise than the data writes them: when every
        // text value the query compares with is stored as written (or it compares none), the
        // emptiness comes from its conditions, and no row may be the answer (on spider_train and
        // spider the model's refinement of such queries never returned rows)
        if let Ok(checked) = check_query(&current.sql) {
            let compared = checks::literal_comparisons(&checked.query, &self.catalog);
            let stored = read_stored(self.db, &checked.query, &self.catalog, &compared);
            if compared.iter().all(|l| stored.get(l).is_some_and(|s| s.as_written(l))) {
                let detail = "the result is empty, and every text value the query compares with is stored as written (or it compares none): no row may be the answer, so it is not refined";
                self.trace.step(Stage::Refine, Status::Skipped, detail, None, json!({"compared": compared.len()}))?;
                return Ok(None);
            }
        }
        let (q, e) = (self.question.text, self.question.evidence);
        let directive = [EMPTY_RESULT.to_string()];
        // asked in the conversation that wrote the query, when it is that conversation's query as written
        let messages = match self.conversation_for(&current.sql) {
            Some(x) => prompts::repair_in_conversation(x.messages, None, &directive, &[]),
            None => prompts::repair(&self.schema.text, q, e, &self.grounding, &current.sql, &directive, &[], &[]),
        };
        let refined_sql = match self.ask_sql(messages, Stage::Refine)? {
            Ok(s) => s,
            Err(e) => {
                let detail = format!("the refinement gave no usable SQL ({e}); the empty result stands");
                self.trace.step(Stage::Refine, Status::Stopped, detail, None, Value::Null)?;
                return Ok(None);
            }
        };
        let refined = self.verify(&refined_sql);
        let accepted = accept_refinement(current, &refined.attempt, refined.empty);
        let detail = if accepted {
            "the result was empty; the refined query returns rows and breaks nothing, so it replaces it".to_string()
        } else if refined.empty {
            "the result was empty; the refined query is empty too, so the first stands (no row may be the answer)".to_string()
        } else {
            format!("the result was empty; the refined query is not better ({}), so the first stands", refined.summary())
        };
        let status = if accepted { Status::Ok } else { Status::Kept };
        self.trace.step(Stage::Refine, status, detail, Some(refined_sql), refined.data)?;
        Ok(accepted.then_some(refined.attempt))
    }
}
