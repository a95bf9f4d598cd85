//! Spider scoring shared by the benchmark programs: connecting to the loaded databases, running
//! SQL through nl2sql_try, and comparing a prediction's rows with the gold's as
//! ../shared/data/README.md describes.
#![allow(dead_code)]

use std::collections::BTreeMap;

use postgres::{Client, NoTls};
use serde_json::Value;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;

/// A failed statement as the server reported it (`SQLSTATE: message`), not the driver's "db error".
pub fn server_error(e: &postgres::Error) -> String {
    e.as_db_error().map_or_else(|| e.to_string(), |d| format!("{}: {}", d.code().code(), d.message()))
}

pub fn connect(db: &str) -> Client {
    let sock = std::env::var("NL2SQL_SOCKDIR").unwrap_or_else(|_| format!("{}/.work/run", env!("CARGO_MANIFEST_DIR")));
    let port = std::env::var("NL2SQL_PGPORT").unwrap_or_else(|_| "54815".into());
    Client::connect(&format!("host={sock} port={port} user=postgres dbname={db}"), NoTls)
        .unwrap_or_else(|e| panic!("connect to {db}: {e} (run bench/load_spider.sh first)"))
}

/// Rows of `sql` as normalised JSON values, through the safe executor.
pub fn rows(client: &mut Client, sql: &str) -> Result<Vec<Vec<Value>>, String> {
    let v: Value = client
        .query_one("SELECT nl2sql_try($1, 100000)::text", &[&sql])
        .map_err(|e| e.to_string())
        .and_then(|r| serde_json::from_str(&r.get::<_, String>(0)).map_err(|e| e.to_string()))?;
    if v["ok"] != Value::Bool(true) {
        return Err(v["error"].as_str().unwrap_or("failed").to_string());
    }
    Ok(v["rows"].as_array().cloned().unwrap_or_default().into_iter().map(|r| r.as_array().cloned().unwrap_or_default()).collect())
}

pub fn key(v: &Value) -> String {
    match v {
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0);
            if f == 0.0 { "n:0".into() } else { format!("n:{:.6e}", f) }
        }
        Value::String(s) => match s.parse::<f64>() {
            // text that is a number compares as a number (SQLite-derived golds mix the two)
            Ok(f) if s.trim() == s && !s.is_empty() => format!("n:{:.6e}", f),
            _ => format!("s:{s}"),
        },
        Value::Null => "null".into(),
        other => format!("o:{other}"),
    }
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    if n > 6 {
        return vec![(0..n).collect()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

fn project(rows: &[Vec<Value>], perm: &[usize]) -> Vec<Vec<String>> {
    rows.iter().map(|r| perm.iter().map(|&i| r.get(i).map(key).unwrap_or_default()).collect()).collect()
}

pub fn same(pred: &[Vec<Value>], gold: &[Vec<Value>], ordered: bool) -> bool {
    let width = gold.first().map_or(0, Vec::len);
    if pred.len() != gold.len() || pred.first().map_or(0, Vec::len) != width {
        return pred.is_empty() && gold.is_empty();
    }
    let mut g = project(gold, &(0..width).collect::<Vec<_>>());
    if !ordered {
        g.sort();
    }
    permutations(width).iter().any(|perm| {
        let mut p = project(pred, perm);
        if !ordered {
            p.sort();
        }
        p == g
    })
}

/// A gold query's answer, for scoring: its rows, whether its order matters, and where its
/// `ORDER BY … LIMIT k` ties at the boundary, the rows that may stand in for each other.
pub struct Gold {
    pub rows: Vec<Vec<Value>>,
    pub ordered: bool,
    pub ties: Option<Ties>,
}

/// The tie at a gold's LIMIT boundary: with its rows in order and the sort keys projected, the
/// rows before the boundary key are required, and the boundary key's rows (inside and outside the
/// LIMIT) are interchangeable. `None` on a gold whose k-th and (k+1)-th rows differ in key.
pub struct Ties {
    pub required: Vec<Vec<Value>>,
    pub pool: Vec<Vec<Value>>,
    pub k: usize,
}

impl Gold {
    /// Run the gold and, when it ends in ORDER BY … LIMIT k, the same without its LIMIT and with
    /// its sort keys projected (on the syntax tree), to find ties at the boundary.
    pub fn load(client: &mut Client, sql: &str, ordered: bool) -> Result<Gold, String> {
        let rows = rows(client, sql)?;
        let ties = keyed(sql).and_then(|(keyed_sql, width, keys, k)| {
            let all = self::rows(client, &keyed_sql).ok()?;
            ties_of(&all, width, &keys, k)
        });
        Ok(Gold { rows, ordered, ties })
    }

    /// Strictly right: the same rows (in order when the gold orders its output).
    pub fn strict(&self, pred: &[Vec<Value>]) -> bool {
        same(pred, &self.rows, self.ordered)
    }

    /// Right up to ties at the gold's LIMIT boundary: as many rows, every required row, the rest
    /// from the rows whose sort key equals the boundary key (any column order). Without such a
    /// tie, strict.
    pub fn tie_tolerant(&self, pred: &[Vec<Value>]) -> bool {
        if self.strict(pred) {
            return true;
        }
        let Some(t) = &self.ties else { return false };
        let width = self.rows.first().map_or(0, Vec::len);
        if pred.len() != t.k || pred.first().map_or(0, Vec::len) != width {
            return false;
        }
        permutations(width).iter().any(|perm| {
            let p = project(pred, perm);
            let mut required: BTreeMap<Vec<String>, i64> = BTreeMap::new();
            for r in project(&t.required, &(0..width).collect::<Vec<_>>()) {
                *required.entry(r).or_default() += 1;
            }
            let mut pool: BTreeMap<Vec<String>, i64> = BTreeMap::new();
            for r in project(&t.pool, &(0..width).collect::<Vec<_>>()) {
                *pool.entry(r).or_default() += 1;
            }
            // ordered: the required rows come first, as a block
            let head = if self.ordered { t.required.len() } else { 0 };
            p.iter().enumerate().all(|(i, r)| {
                if let Some(c) = required.get_mut(r).filter(|c| **c > 0) {
                    *c -= 1;
                    return true;
                }
                if i < head {
                    return false;
                }
                pool.get_mut(r).filter(|c| **c > 0).map(|c| *c -= 1).is_some()
            }) && required.values().all(|c| *c == 0)
        })
    }
}

/// The gold rewritten to find its ties: (SQL without the outer LIMIT and with the ORDER BY keys
/// appended to the output, the gold's own width, the positions of the keys in that output, k).
/// Only for one SELECT block ordered by expressions, with a LIMIT and no OFFSET.
fn keyed(sql: &str) -> Option<(String, usize, Vec<usize>, usize)> {
    use sqlparser::ast::{Expr, LimitClause, OrderByKind, SelectItem, SetExpr, Statement, Value as V};
    let mut stmts = Parser::parse_sql(&PostgreSqlDialect {}, sql).ok()?;
    let Statement::Query(q) = stmts.get_mut(0)? else { return None };
    let Some(LimitClause::LimitOffset { limit: Some(Expr::Value(v)), offset: None, .. }) = &q.limit_clause else { return None };
    let V::Number(k, _) = &v.value else { return None };
    let k: usize = k.parse().ok()?;
    let Some(OrderByKind::Expressions(items)) = q.order_by.as_ref().map(|o| &o.kind) else { return None };
    let items: Vec<Expr> = items.iter().map(|o| o.expr.clone()).collect();
    let SetExpr::Select(select) = q.body.as_mut() else { return None };
    if select.projection.iter().any(|i| !matches!(i, SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAlias { .. })) {
        return None;
    }
    let width = select.projection.len();
    let mut keys = Vec::new();
    for e in items {
        // ORDER BY 2, or ORDER BY an output alias: that output column
        let position = match &e {
            Expr::Value(v) => match &v.value {
                V::Number(n, _) => Some(n.parse::<usize>().ok()?.checked_sub(1)?),
                _ => None,
            },
            Expr::Identifier(i) => select.projection.iter().position(|p| matches!(p, SelectItem::ExprWithAlias { alias, .. } if alias.value.eq_ignore_ascii_case(&i.value))),
            _ => None,
        };
        match position {
            Some(p) => keys.push(p),
            None => {
                keys.push(select.projection.len());
                select.projection.push(SelectItem::UnnamedExpr(e));
            }
        }
    }
    q.limit_clause = None;
    Some((q.to_string(), width, keys, k))
}

/// The tie at the boundary of the first `k` of `all` (ordered rows with their keys at `keys`).
fn ties_of(all: &[Vec<Value>], width: usize, keys: &[usize], k: usize) -> Option<Ties> {
    if k == 0 || all.len() <= k {
        return None;
    }
    let key_of = |r: &Vec<Value>| keys.iter().map(|&i| r.get(i).map(key).unwrap_or_default()).collect::<Vec<_>>();
    let boundary = key_of(&all[k - 1]);
    if key_of(&all[k]) != boundary {
        return None;
    }
    let cut = |r: &Vec<Value>| r[..width.min(r.len())].to_vec();
    Some(Ties {
        required: all[..k].iter().filter(|r| key_of(r) != boundary).map(cut).collect(),
        pool: all.iter().filter(|r| key_of(r) == boundary).map(cut).collect(),
        k,
    })
}

/// The `p` quantile (0..=1) of `xs` (sorted in place); NaN when empty.
pub fn pct(xs: &mut [f64], p: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[((xs.len() as f64 - 1.0) * p).round() as usize]
}

/// A paired comparison of two configurations on the same questions: per question (base correct,
/// other correct). Wins and losses of the other, and the mean difference with a 95% interval
/// (normal approximation of the paired differences), in points.
pub struct Paired {
    pub n: usize,
    pub wins: usize,
    pub losses: usize,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

pub fn paired(pairs: &[(bool, bool)]) -> Paired {
    let n = pairs.len();
    let d: Vec<f64> = pairs.iter().map(|(base, other)| *other as i32 as f64 - *base as i32 as f64).collect();
    let mean = d.iter().sum::<f64>() / n.max(1) as f64;
    let var = if n > 1 { d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64 } else { 0.0 };
    let half = 1.96 * (var / n.max(1) as f64).sqrt();
    Paired {
        n,
        wins: d.iter().filter(|x| **x > 0.0).count(),
        losses: d.iter().filter(|x| **x < 0.0).count(),
        mean: 100.0 * mean,
        low: 100.0 * (mean - half),
        high: 100.0 * (mean + half),
    }
}

/// The database a question's set is loaded as (bench/load_spider.sh).
pub fn database(set: &str, db_id: &str) -> String {
    let prefix = if set == "spider_train" { "train_" } else { "spider_" };
    format!("{prefix}{}", db_id.to_lowercase())
}

/// A fixed pseudo-random order (splitmix64 of the seed and a key).
pub fn mix(seed: u64, key: &str) -> u64 {
    let mut h = seed ^ 0x9E37_79B9_7F4A_7C15;
    for b in key.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01B3);
    }
    let mut z = h.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `n` questions stratified by database: databases in a seeded order, one question of each in turn.
pub fn sample(questions: Vec<&Value>, n: usize, seed: u64) -> Vec<&Value> {
    let mut by_db: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for q in questions {
        by_db.entry(q["db_id"].as_str().unwrap_or("").to_string()).or_default().push(q);
    }
    let mut dbs: Vec<(String, Vec<&Value>)> = by_db.into_iter().collect();
    for (_, qs) in dbs.iter_mut() {
        qs.sort_by_key(|q| mix(seed, &q["question_id"].to_string()));
    }
    dbs.sort_by_key(|(db, _)| mix(seed, db));
    let mut out = Vec::new();
    let mut round = 0;
    while out.len() < n && dbs.iter().any(|(_, qs)| qs.len() > round) {
        for (_, qs) in &dbs {
            if out.len() < n {
                if let Some(q) = qs.get(round) {
                    out.push(*q);
                }
            }
        }
        round += 1;
    }
    out
}
