//! Spider scoring shared by the benchmark programs: connecting to the loaded databases, running
//! SQL through nl2sql_try, and comparing a prediction's rows with the gold's as
//! ../shared/data/README.md describes.
#![allow(dead_code)]

use std::collections::BTreeMap;

use postgres::{Client, NoTls};
use serde_json::Value;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;

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

/// Every predicted row among the gold's rows without its LIMIT (as a multiset).
pub fn within(pred: &[Vec<Value>], pool: &[Vec<Value>]) -> bool {
    let width = pool.first().map_or(0, Vec::len);
    if pred.first().map_or(0, Vec::len) != width {
        return false;
    }
    permutations(width).iter().any(|perm| {
        let mut counts: BTreeMap<Vec<String>, i64> = BTreeMap::new();
        for r in project(pool, &(0..width).collect::<Vec<_>>()) {
            *counts.entry(r).or_default() += 1;
        }
        project(pred, perm).into_iter().all(|r| {
            let c = counts.entry(r).or_default();
            *c -= 1;
            *c >= 0
        })
    })
}

/// The gold without its outermost LIMIT, if it has one (on the AST).
pub fn without_limit(sql: &str) -> Option<String> {
    let mut stmts = Parser::parse_sql(&PostgreSqlDialect {}, sql).ok()?;
    let sqlparser::ast::Statement::Query(q) = stmts.get_mut(0)? else { return None };
    q.limit_clause.take()?;
    Some(q.to_string())
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
