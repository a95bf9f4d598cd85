//! Separating instances: a small subset of the real rows on which two queries give different
//! answers, closed under the foreign keys among the tables they read, and shrunk to a minimum.
//!
//! The search is pure: it builds SQL and decides; a [`Workspace`] runs SQL on the real data, fills
//! the instance tables and runs the two candidates on them (in the extension: SPI in a
//! rolled-back subtransaction; in the benchmark: a libpq client).
//!
//! 1. Lineage: each query's lineage queries ([`rewrite::lineage_queries`](super::rewrite)) give
//!    *witnesses*, sets of base rows that together produce a result row.
//! 2. Seeds, in order: single witnesses only one query has (those with a row the other query never
//!    reads first), pairs across the two sides and with shared witnesses, growing unions, all the
//!    lineage, then growing deterministic samples of every table (the fallback where lineage
//!    cannot tell, e.g. a correlated subquery).
//! 3. Each seed is closed under the foreign keys (parents added, marked), loaded, and both queries
//!    run on it; the first instance on which the answers differ is kept.
//! 4. Shrinking (delta debugging): remove chunks of rows, halving the chunk size, while the answers
//!    still differ; removing a row also removes the rows that reference it, so the instance stays
//!    FK-closed. The result is 1-minimal: no single row (with its dependants) can go.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

use super::answer::{same, Answer, RowSemantics};
use super::rewrite::LineageQuery;
use crate::catalog::{quote_ident, ForeignKey, RelName};

/// A base row: the instance relation it belongs to and its `ctid` on the real table.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct RowId {
    pub rel: usize,
    pub ctid: String,
}

pub type Rows = Vec<Vec<Value>>;

/// Where the SQL runs.
pub trait Workspace {
    /// A read-only query over the real tables (as the caller), at most `max_rows` rows.
    fn query(&mut self, sql: &str, max_rows: usize) -> Result<Rows, String>;
    /// Make instance table `rel` hold exactly the real rows `ctids` of its relation.
    fn fill(&mut self, rel: usize, ctids: &[String]) -> Result<(), String>;
    /// Run candidate `side` (0 or 1) on the instance tables.
    fn run(&mut self, side: usize) -> Result<Rows, String>;
}

/// A foreign key between two instance relations.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub child: usize,
    pub child_columns: Vec<String>,
    pub parent: usize,
    pub parent_columns: Vec<String>,
}

/// Limits of one search.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Instances tried before shrinking.
    pub max_trials: usize,
    /// Instances tried while shrinking.
    pub max_shrink_trials: usize,
    /// Lineage rows read per lineage query.
    pub lineage_rows: usize,
    pub deadline: Instant,
}

/// What to separate.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The relations either query reads; instance table `i` mirrors `relations[i]`.
    pub relations: Vec<RelName>,
    /// Folded names ([`rewrite::name_key`](super::rewrite::name_key)) to relation index.
    pub rel_of: BTreeMap<String, usize>,
    pub links: Vec<Link>,
    pub lineage: [Vec<LineageQuery>; 2],
    pub ordered: [bool; 2],
    pub semantics: RowSemantics,
}

impl Problem {
    /// The links of `foreign_keys` whose both ends are instance relations.
    pub fn links_from(relations: &[RelName], foreign_keys: &[ForeignKey]) -> Vec<Link> {
        let idx = |n: &RelName| relations.iter().position(|r| r == n);
        foreign_keys
            .iter()
            .filter_map(|fk| {
                Some(Link {
                    child: idx(&fk.from)?,
                    child_columns: fk.from_columns.clone(),
                    parent: idx(&fk.to)?,
                    parent_columns: fk.to_columns.clone(),
                })
            })
            .collect()
    }
}

/// A separating instance.
#[derive(Debug, Clone, Serialize)]
pub struct Found {
    /// Every row of the instance.
    pub rows: BTreeSet<RowId>,
    /// The rows among them that are there because a foreign key of another row requires them.
    pub closure: BTreeSet<RowId>,
    /// Both candidates' answers on the instance.
    pub answers: [Answer; 2],
    /// How the unshrunk instance was found: `lineage`, `lineage_all` or `sample`.
    pub strategy: &'static str,
    /// Rows before shrinking.
    pub unshrunk_rows: usize,
}

/// The outcome of a search.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub found: Option<Found>,
    /// Instances built and run (search + shrink).
    pub trials: usize,
    /// Witnesses read from each query's lineage.
    pub witnesses: [usize; 2],
    /// Why nothing was found, or what limited the search.
    pub notes: Vec<String>,
}

type Witness = BTreeSet<RowId>;

/// `'(0,1)'` and friends as a `tid[]` literal.
pub fn tid_array(ctids: &[&str]) -> String {
    let items: Vec<String> = ctids.iter().map(|c| format!("'{}'", c.replace('\'', "''"))).collect();
    format!("ARRAY[{}]::tid[]", items.join(", "))
}

/// Rows of `rel` whose ctid is one of `ctids`, all columns.
pub fn rows_sql(rel: &RelName, ctids: &[&str]) -> String {
    format!("SELECT * FROM {rel} WHERE ctid = ANY({}) ORDER BY ctid", tid_array(ctids))
}

struct Search<'a, W: Workspace + ?Sized> {
    p: &'a Problem,
    ws: &'a mut W,
    budget: Budget,
    /// What each instance table holds now (`None`: never filled).
    loaded: Vec<Option<Vec<String>>>,
    /// Each known row's parents through the links (complete for rows processed by `close`).
    parents: BTreeMap<RowId, Vec<RowId>>,
    tried: BTreeSet<Witness>,
    trials: usize,
    notes: Vec<String>,
}

impl<W: Workspace + ?Sized> Search<'_, W> {
    fn out_of_time(&self) -> bool {
        Instant::now() >= self.budget.deadline
    }

    fn note(&mut self, s: String) {
        if !self.notes.contains(&s) && self.notes.len() < 10 {
            self.notes.push(s);
        }
    }

    /// Read the witnesses of one side; lineage queries that fail are skipped (noted).
    fn witnesses(&mut self, side: usize) -> Vec<Witness> {
        let mut out: Vec<Witness> = Vec::new();
        let mut seen = BTreeSet::new();
        let mut done_blocks = BTreeSet::new();
        for lq in &self.p.lineage[side] {
            if done_blocks.contains(&lq.block) {
                continue;
            }
            let rels: Option<Vec<usize>> = lq.tables.iter().map(|t| self.p.rel_of.get(t).copied()).collect();
            let Some(rels) = rels else { continue };
            match self.ws.query(&lq.sql, self.budget.lineage_rows) {
                Ok(rows) => {
                    done_blocks.insert(lq.block);
                    if rows.len() >= self.budget.lineage_rows {
                        self.note(format!("lineage read up to {} rows per query", self.budget.lineage_rows));
                    }
                    for row in rows {
                        let k = rels.len();
                        let tail = &row[row.len().saturating_sub(k)..];
                        let w: Witness = tail
                            .iter()
                            .zip(&rels)
                            .filter_map(|(v, &rel)| v.as_str().map(|c| RowId { rel, ctid: c.to_string() }))
                            .collect();
                        if !w.is_empty() && seen.insert(w.clone()) {
                            out.push(w);
                        }
                    }
                }
                Err(e) => {
                    if !lq.precise {
                        self.note(format!("no lineage for a block of query {}: {e}", side_name(side)));
                    }
                }
            }
        }
        out
    }

    /// Add the parents the links require, transitively; returns the closed set.
    fn close(&mut self, seed: &Witness) -> Result<Witness, String> {
        let mut all = seed.clone();
        let mut frontier: Vec<RowId> = seed.iter().filter(|r| !self.parents.contains_key(*r)).cloned().collect();
        let mut known_new: Vec<RowId> = seed.iter().filter(|r| self.parents.contains_key(*r)).cloned().collect();
        // rows already known: add their (known) parents transitively
        while let Some(r) = known_new.pop() {
            for par in self.parents.get(&r).cloned().unwrap_or_default() {
                if all.insert(par.clone()) {
                    if self.parents.contains_key(&par) {
                        known_new.push(par);
                    } else {
                        frontier.push(par);
                    }
                }
            }
        }
        while !frontier.is_empty() {
            let mut by_rel: BTreeMap<usize, Vec<RowId>> = BTreeMap::new();
            for r in frontier.drain(..) {
                by_rel.entry(r.rel).or_default().push(r);
            }
            let mut found_parents = Vec::new();
            for (rel, rows) in by_rel {
                for r in &rows {
                    self.parents.entry(r.clone()).or_default();
                }
                let ctids: Vec<&str> = rows.iter().map(|r| r.ctid.as_str()).collect();
                for link in self.p.links.iter().filter(|l| l.child == rel) {
                    let on: Vec<String> = link
                        .child_columns
                        .iter()
                        .zip(&link.parent_columns)
                        .map(|(c, p)| format!("c.{} = p.{}", quote_ident(c), quote_ident(p)))
                        .collect();
                    let sql = format!(
                        "SELECT c.ctid, p.ctid FROM {} AS c JOIN {} AS p ON {} WHERE c.ctid = ANY({})",
                        self.p.relations[link.child],
                        self.p.relations[link.parent],
                        on.join(" AND "),
                        tid_array(&ctids)
                    );
                    for row in self.ws.query(&sql, ctids.len() * 4 + 1)? {
                        if let (Some(c), Some(p)) = (row[0].as_str(), row[1].as_str()) {
                            let child = RowId { rel, ctid: c.to_string() };
                            let parent = RowId { rel: link.parent, ctid: p.to_string() };
                            let list = self.parents.entry(child).or_default();
                            if !list.contains(&parent) {
                                list.push(parent.clone());
                            }
                            found_parents.push(parent);
                        }
                    }
                }
            }
            for par in found_parents {
                if all.insert(par.clone()) && !self.parents.contains_key(&par) {
                    frontier.push(par);
                } else if self.parents.contains_key(&par) {
                    for gp in self.parents.get(&par).cloned().unwrap_or_default() {
                        if all.insert(gp.clone()) && !self.parents.contains_key(&gp) {
                            frontier.push(gp);
                        }
                    }
                }
            }
        }
        Ok(all)
    }

    fn load(&mut self, rows: &Witness) -> Result<(), String> {
        for rel in 0..self.p.relations.len() {
            let ctids: Vec<String> = rows.iter().filter(|r| r.rel == rel).map(|r| r.ctid.clone()).collect();
            if self.loaded[rel].as_ref() != Some(&ctids) {
                self.ws.fill(rel, &ctids)?;
                self.loaded[rel] = Some(ctids);
            }
        }
        Ok(())
    }

    /// Load `rows` and run both queries: their answers if they differ.
    fn test(&mut self, rows: &Witness) -> Result<Option<[Answer; 2]>, String> {
        self.trials += 1;
        self.load(rows)?;
        let mut answers = Vec::with_capacity(2);
        for side in 0..2 {
            match self.ws.run(side) {
                Ok(r) => answers.push(Answer::new(&r, self.p.ordered[side], self.p.semantics)),
                Err(e) => {
                    self.note(format!("query {} failed on an instance: {e}", side_name(side)));
                    return Ok(None);
                }
            }
        }
        let b = answers.pop().expect("two");
        let a = answers.pop().expect("two");
        Ok((!same(&a, &b)).then_some([a, b]))
    }

    /// Close, load and test a seed, once per distinct closed set.
    fn try_seed(&mut self, seed: &Witness) -> Result<Option<(Witness, [Answer; 2])>, String> {
        let closed = self.close(seed)?;
        if !self.tried.insert(closed.clone()) {
            return Ok(None);
        }
        Ok(self.test(&closed)?.map(|a| (closed, a)))
    }

    /// The rows of `cur` to drop with `removed`: it and every row that references a dropped row.
    fn cascade(&self, cur: &[RowId], removed: &Witness) -> Witness {
        let mut gone = removed.clone();
        loop {
            let before = gone.len();
            for r in cur {
                if !gone.contains(r) && self.parents.get(r).is_some_and(|ps| ps.iter().any(|p| gone.contains(p))) {
                    gone.insert(r.clone());
                }
            }
            if gone.len() == before {
                return gone;
            }
        }
    }

    /// Delta debugging down to a 1-minimal instance.
    fn shrink(&mut self, mut cur: Witness, mut answers: [Answer; 2]) -> Result<(Witness, [Answer; 2]), String> {
        let start = self.trials;
        let mut n = 2usize;
        while cur.len() >= 2 {
            if self.trials - start >= self.budget.max_shrink_trials || self.out_of_time() {
                self.note("shrinking stopped by its budget; the instance may not be minimal".into());
                break;
            }
            let rows: Vec<RowId> = cur.iter().cloned().collect();
            let chunk = rows.len().div_ceil(n);
            let mut reduced = false;
            for part in rows.chunks(chunk) {
                let removed = self.cascade(&rows, &part.iter().cloned().collect());
                if removed.len() == rows.len() {
                    continue;
                }
                let candidate: Witness = cur.difference(&removed).cloned().collect();
                if let Some(a) = self.test(&candidate)? {
                    cur = candidate;
                    answers = a;
                    n = (n - 1).max(2);
                    reduced = true;
                    break;
                }
                if self.trials - start >= self.budget.max_shrink_trials || self.out_of_time() {
                    break;
                }
            }
            if !reduced {
                if chunk == 1 {
                    break;
                }
                n = (n * 2).min(rows.len());
            }
        }
        Ok((cur, answers))
    }

    /// Deterministic samples of every relation, growing.
    fn sample_seeds(&mut self) -> Result<Vec<Witness>, String> {
        let mut seeds = Vec::new();
        for n in [4usize, 16, 64, 256, 2048] {
            let mut seed = Witness::new();
            let mut complete = true;
            for (rel, name) in self.p.relations.iter().enumerate() {
                let sql = format!("SELECT ctid FROM {name} ORDER BY md5(ctid::text) LIMIT {n}");
                let rows = self.ws.query(&sql, n)?;
                complete &= rows.len() < n;
                seed.extend(rows.iter().filter_map(|r| r[0].as_str()).map(|c| RowId { rel, ctid: c.to_string() }));
            }
            seeds.push(seed);
            if complete {
                break;
            }
        }
        if seeds.last().is_some_and(|s| s.len() >= 2048) {
            self.note("sampled at most 2048 rows per table".into());
        }
        Ok(seeds)
    }
}

fn side_name(side: usize) -> &'static str {
    if side == 0 { "A" } else { "B" }
}

/// The witness seeds of step 2, in order.
fn lineage_seeds(wa: &[Witness], wb: &[Witness]) -> (Vec<Witness>, Witness) {
    let rows_of = |ws: &[Witness]| -> BTreeSet<RowId> { ws.iter().flatten().cloned().collect() };
    let (rows_a, rows_b) = (rows_of(wa), rows_of(wb));
    let set_b: BTreeSet<&Witness> = wb.iter().collect();
    let set_a: BTreeSet<&Witness> = wa.iter().collect();
    let common: Vec<Witness> = wa.iter().filter(|w| set_b.contains(w)).cloned().collect();
    // only-A witnesses, those holding a row B never reads first (stable)
    let only = |mine: &[Witness], theirs: &BTreeSet<&Witness>, their_rows: &BTreeSet<RowId>| -> Vec<Witness> {
        let mut v: Vec<Witness> = mine.iter().filter(|w| !theirs.contains(w)).cloned().collect();
        v.sort_by_key(|w| !w.iter().any(|r| !their_rows.contains(r)));
        v
    };
    let da = only(wa, &set_b, &rows_b);
    let db = only(wb, &set_a, &rows_a);
    let union = |parts: &[Option<&Witness>]| -> Option<Witness> {
        let present: Vec<&Witness> = parts.iter().flatten().copied().collect();
        (present.len() == parts.len()).then(|| present.into_iter().flatten().cloned().collect())
    };
    let mut seeds: Vec<Witness> = Vec::new();
    for i in 0..4 {
        seeds.extend(da.get(i).cloned());
        seeds.extend(db.get(i).cloned());
    }
    for i in 0..3 {
        seeds.extend(union(&[da.get(i), db.get(i)]));
        seeds.extend(union(&[da.get(i), common.get(i)]));
        seeds.extend(union(&[db.get(i), common.get(i)]));
        seeds.extend(union(&[common.get(i), common.get(i + 1)]));
    }
    if da.is_empty() && db.is_empty() {
        seeds.extend(common.iter().take(4).cloned());
    }
    for k in [2usize, 4, 8, 16] {
        let mut s = Witness::new();
        for w in da.iter().take(k).chain(db.iter().take(k)).chain(common.iter().take(k)) {
            s.extend(w.iter().cloned());
        }
        seeds.push(s);
    }
    // everything the lineage names, capped
    let mut all = Witness::new();
    for w in da.iter().chain(db.iter()).chain(common.iter()) {
        if all.len() >= 400 {
            break;
        }
        all.extend(w.iter().cloned());
    }
    seeds.retain(|s| !s.is_empty());
    (seeds, all)
}

/// Search for a separating instance of the two queries of `p`.
pub fn separate<W: Workspace + ?Sized>(p: &Problem, ws: &mut W, budget: Budget) -> Result<Report, String> {
    let mut s = Search {
        p,
        ws,
        budget,
        loaded: vec![None; p.relations.len()],
        parents: BTreeMap::new(),
        tried: BTreeSet::new(),
        trials: 0,
        notes: Vec::new(),
    };
    let wa = s.witnesses(0);
    let wb = s.witnesses(1);
    let witnesses = [wa.len(), wb.len()];
    let (seeds, all) = lineage_seeds(&wa, &wb);

    let mut hit: Option<(Witness, Witness, [Answer; 2], &'static str)> = None;
    let mut phases: Vec<(&'static str, Vec<Witness>)> = vec![("lineage", seeds)];
    if !all.is_empty() {
        phases.push(("lineage_all", vec![all]));
    }
    let mut sampled = false;
    'phases: loop {
        for (strategy, seeds) in std::mem::take(&mut phases) {
            for seed in seeds {
                if s.trials >= budget.max_trials || s.out_of_time() {
                    s.note(format!("search stopped by its budget after {} instances", s.trials));
                    break 'phases;
                }
                if let Some((closed, answers)) = s.try_seed(&seed)? {
                    hit = Some((seed, closed, answers, strategy));
                    break 'phases;
                }
            }
        }
        if sampled {
            break;
        }
        sampled = true;
        phases.push(("sample", s.sample_seeds()?));
    }

    let Some((seed, closed, answers, strategy)) = hit else {
        if s.notes.is_empty() {
            s.note("no subset of the rows tried separates the two queries".into());
        }
        return Ok(Report { found: None, trials: s.trials, witnesses, notes: s.notes });
    };
    let unshrunk_rows = closed.len();
    let (rows, _) = s.shrink(closed, answers)?;
    // load the final instance again and check that it separates
    s.loaded.iter_mut().for_each(|l| *l = None);
    let answers = match s.test(&rows)? {
        Some(a) => a,
        None => return Err("the shrunk instance no longer separates the queries (are they deterministic?)".into()),
    };
    let closure: BTreeSet<RowId> = rows.iter().filter(|r| !seed.contains(*r)).cloned().collect();
    Ok(Report {
        found: Some(Found { rows, closure, answers, strategy, unshrunk_rows }),
        trials: s.trials,
        witnesses,
        notes: s.notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    /// Synthetic relations: `books(ctid, author_ctid, price)` (rel 0) referencing `authors` (rel
    /// 1). The candidates are Rust closures over the loaded rows; lineage queries are answered
    /// from a table of canned results keyed by their SQL.
    struct Synthetic {
        books: Vec<(&'static str, &'static str, i64)>,
        authors: Vec<&'static str>,
        lineage: BTreeMap<String, Rows>,
        queries: [fn(&[(&'static str, &'static str, i64)]) -> Rows; 2],
        loaded: [Vec<String>; 2],
        fills: usize,
    }

    fn ctids_in(sql: &str) -> Vec<String> {
        let inner = &sql[sql.find("ARRAY[").unwrap() + 6..sql.find("]::tid[]").unwrap()];
        inner.split(", ").map(|s| s.trim_matches('\'').to_string()).collect()
    }

    impl Workspace for Synthetic {
        fn query(&mut self, sql: &str, max_rows: usize) -> Result<Rows, String> {
            if let Some(rows) = self.lineage.get(sql) {
                return Ok(rows.iter().take(max_rows).cloned().collect());
            }
            if sql.starts_with("SELECT c.ctid, p.ctid") {
                let want = ctids_in(sql);
                return Ok(self
                    .books
                    .iter()
                    .filter(|b| want.iter().any(|w| w == b.0))
                    .map(|b| vec![json!(b.0), json!(b.1)])
                    .collect());
            }
            if sql.contains("md5(ctid::text)") {
                let n: usize = sql.rsplit(' ').next().unwrap().parse().unwrap();
                let ids: Vec<&str> =
                    if sql.contains("books") { self.books.iter().map(|b| b.0).collect() } else { self.authors.clone() };
                return Ok(ids.into_iter().take(n).map(|c| vec![json!(c)]).collect());
            }
            Err(format!("unexpected query {sql}"))
        }
        fn fill(&mut self, rel: usize, ctids: &[String]) -> Result<(), String> {
            self.fills += 1;
            self.loaded[rel] = ctids.to_vec();
            Ok(())
        }
        fn run(&mut self, side: usize) -> Result<Rows, String> {
            // FK closure must hold on every instance
            for b in self.books.iter().filter(|b| self.loaded[0].iter().any(|c| c == b.0)) {
                assert!(self.loaded[1].iter().any(|a| a == b.1), "book {} without its author", b.0);
            }
            let rows: Vec<_> = self.books.iter().filter(|b| self.loaded[0].iter().any(|c| c == b.0)).cloned().collect();
            Ok(self.queries[side](&rows))
        }
    }

    fn problem(lineage_a: &str, lineage_b: &str, semantics: RowSemantics) -> Problem {
        let lq = |sql: &str| vec![LineageQuery { block: 0, precise: false, sql: sql.into(), tables: vec!["books".into()] }];
        Problem {
            relations: vec![RelName::new("public", "books"), RelName::new("public", "authors")],
            rel_of: [("books".to_string(), 0), ("authors".to_string(), 1)].into_iter().collect(),
            links: vec![Link {
                child: 0,
                child_columns: vec!["author_id".into()],
                parent: 1,
                parent_columns: vec!["id".into()],
            }],
            lineage: [lq(lineage_a), lq(lineage_b)],
            ordered: [false, false],
            semantics,
        }
    }

    fn budget() -> Budget {
        Budget { max_trials: 60, max_shrink_trials: 200, lineage_rows: 1000, deadline: Instant::now() + Duration::from_secs(10) }
    }

    fn shop(lineage: BTreeMap<String, Rows>, queries: [fn(&[(&'static str, &'static str, i64)]) -> Rows; 2]) -> Synthetic {
        Synthetic {
            books: vec![("(0,1)", "(0,1)", 5), ("(0,2)", "(0,2)", 10), ("(0,3)", "(0,1)", 12), ("(0,4)", "(0,3)", 10), ("(0,5)", "(0,2)", 20)],
            authors: vec!["(0,1)", "(0,2)", "(0,3)"],
            lineage,
            queries,
            loaded: [vec![], vec![]],
            fills: 0,
        }
    }

    fn count_gt(rows: &[(&'static str, &'static str, i64)]) -> Rows {
        vec![vec![json!(rows.iter().filter(|b| b.2 > 10).count())]]
    }
    fn count_ge(rows: &[(&'static str, &'static str, i64)]) -> Rows {
        vec![vec![json!(rows.iter().filter(|b| b.2 >= 10).count())]]
    }

    #[test]
    fn a_filter_boundary_needs_one_row_and_its_parent() {
        let mut lineage = BTreeMap::new();
        lineage.insert("A".to_string(), vec![vec![json!("(0,3)")], vec![json!("(0,5)")]]);
        lineage.insert("B".to_string(), vec![vec![json!("(0,2)")], vec![json!("(0,3)")], vec![json!("(0,4)")], vec![json!("(0,5)")]]);
        let mut ws = shop(lineage, [count_gt, count_ge]);
        let report = separate(&problem("A", "B", RowSemantics::Set), &mut ws, budget()).unwrap();
        let found = report.found.expect("separated");
        assert_eq!(found.rows.len(), 2, "{found:?}");
        let book = found.rows.iter().find(|r| r.rel == 0).unwrap();
        assert!(book.ctid == "(0,2)" || book.ctid == "(0,4)", "a book priced exactly 10: {book:?}");
        assert_eq!(found.closure.len(), 1);
        assert_eq!(found.closure.iter().next().unwrap().rel, 1, "the author is the FK closure");
        assert_eq!(found.strategy, "lineage");
        assert!(!same(&found.answers[0], &found.answers[1]));
    }

    #[test]
    fn shrinking_reaches_a_minimal_instance_from_a_sample() {
        // no lineage at all: only the samples can find it; a duplicate author needs two books
        fn authors_bag(rows: &[(&'static str, &'static str, i64)]) -> Rows {
            rows.iter().map(|b| vec![json!(b.1)]).collect()
        }
        fn authors_distinct(rows: &[(&'static str, &'static str, i64)]) -> Rows {
            let set: BTreeSet<&str> = rows.iter().map(|b| b.1).collect();
            set.into_iter().map(|a| vec![json!(a)]).collect()
        }
        let mut ws = shop(BTreeMap::new(), [authors_bag, authors_distinct]);
        let report = separate(&problem("none A", "none B", RowSemantics::Bag), &mut ws, budget()).unwrap();
        let found = report.found.expect("separated");
        assert_eq!(found.strategy, "sample");
        // two books by one author plus that author: 3 rows, and 1-minimal
        assert_eq!(found.rows.len(), 3, "{found:?}");
        assert!(found.unshrunk_rows > 3);
        assert_eq!(found.rows.iter().filter(|r| r.rel == 1).count(), 1);
        assert!(report.notes.iter().any(|n| n.contains("no lineage")), "{:?}", report.notes);
    }

    #[test]
    fn equal_queries_are_reported_not_separable() {
        let mut ws = shop(BTreeMap::new(), [count_gt, count_gt]);
        let report = separate(&problem("x", "y", RowSemantics::Set), &mut ws, budget()).unwrap();
        assert!(report.found.is_none());
        assert!(report.trials > 0);
    }
}
