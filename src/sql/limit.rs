//! Bounding a query's rows on its AST: impose `LIMIT n`, or lower a larger one.

use sqlparser::ast::{Expr, LimitClause, Query, Value};

fn limit_value(expr: &Expr) -> Option<u64> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

fn number(n: u64) -> Expr {
    Expr::value(Value::Number(n.to_string(), false))
}

/// The outermost query's LIMIT (or FETCH FIRST) as a number, when it is one.
pub fn outer_limit(query: &Query) -> Option<u64> {
    match &query.limit_clause {
        Some(LimitClause::LimitOffset { limit: Some(l), .. }) => limit_value(l),
        Some(LimitClause::OffsetCommaLimit { limit, .. }) => limit_value(limit),
        _ => None,
    }
    .or_else(|| query.fetch.as_ref().and_then(|f| f.quantity.as_ref()).and_then(limit_value))
}

/// Make the outermost query return at most `n` rows: add `LIMIT n` if there is none, lower a
/// larger or non-literal one (e.g. `LIMIT ALL`, `LIMIT $1`), keep a smaller one. `OFFSET` stays.
/// A `FETCH FIRST` clause is replaced by the LIMIT.
pub fn impose_limit(query: &mut Query, n: u64) {
    let existing = outer_limit(query);
    let keep = existing.map_or(n, |e| e.min(n));
    query.fetch = None;
    query.limit_clause = Some(match query.limit_clause.take() {
        Some(LimitClause::LimitOffset { offset, limit_by, .. }) => {
            LimitClause::LimitOffset { limit: Some(number(keep)), offset, limit_by }
        }
        Some(LimitClause::OffsetCommaLimit { offset, .. }) => LimitClause::LimitOffset {
            limit: Some(number(keep)),
            offset: Some(sqlparser::ast::Offset { value: offset, rows: sqlparser::ast::OffsetRows::None }),
            limit_by: vec![],
        },
        None => LimitClause::LimitOffset { limit: Some(number(keep)), offset: None, limit_by: vec![] },
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::check_query;

    fn bounded(sql: &str, n: u64) -> String {
        let mut q = check_query(sql).unwrap().query;
        impose_limit(&mut q, n);
        q.to_string()
    }

    #[test]
    fn imposes_lowers_or_keeps() {
        assert_eq!(bounded("SELECT a FROM t", 5), "SELECT a FROM t LIMIT 5");
        assert_eq!(bounded("SELECT a FROM t ORDER BY a LIMIT 100", 5), "SELECT a FROM t ORDER BY a LIMIT 5");
        assert_eq!(bounded("SELECT a FROM t LIMIT 2", 5), "SELECT a FROM t LIMIT 2");
        assert_eq!(bounded("SELECT a FROM t LIMIT ALL", 5), "SELECT a FROM t LIMIT 5");
        assert_eq!(bounded("SELECT a FROM t LIMIT 50 OFFSET 10", 5), "SELECT a FROM t LIMIT 5 OFFSET 10");
        assert_eq!(bounded("SELECT a FROM t FETCH FIRST 50 ROWS ONLY", 5), "SELECT a FROM t LIMIT 5");
        assert_eq!(bounded("SELECT 1 UNION SELECT 2", 1), "SELECT 1 UNION SELECT 2 LIMIT 1");
        // an inner LIMIT is the query's business; the outer bound is ours
        assert_eq!(
            bounded("SELECT * FROM (SELECT a FROM t LIMIT 100) s", 3),
            "SELECT * FROM (SELECT a FROM t LIMIT 100) s LIMIT 3"
        );
    }
}
