//! The answer's shape against the question, and counts inflated by a join.
//!
//! - `shape`: "how many …" (with no "each", "per", "for every", "by") asks for one number, so a
//!   query whose outer block groups into a row per group (and picks none by `LIMIT`) answers
//!   another question; "which …", "list …", "what are …" with no counting or aggregate word asks
//!   for entities, so a query that returns only `COUNT(…)` answers another question.
//! - `fan_out`: "how many <things>" where `<things>` names a table on the one side of a
//!   one-to-many join in the query (another table in scope references it by a foreign key), and
//!   the query counts rows (`COUNT(*)` or `COUNT` of a non-key column) without DISTINCT: each
//!   thing is counted once per matching row of the other table. `COUNT(DISTINCT <key>)` counts
//!   each once.
//! - `set_operation`: `INTERSECT` or `EXCEPT` between blocks that each aggregate all their rows
//!   into one (`SELECT count(*) … WHERE language = 'English' INTERSECT SELECT count(*) … WHERE
//!   language = 'Dutch'`): that compares two numbers, keeping one only when they are equal, not
//!   the things counted. Intersect the things, then aggregate.

use std::sync::LazyLock;

use regex::Regex;
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Query, SelectItem, SetExpr, SetOperator};

use super::{finding, scope, Finding, Severity};
use crate::catalog::{Catalog, Table};

static HOW_MANY: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*how many\s+(\w+)").expect("compiles"));
static GROUP_WORDS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(each|per|every|by|respectively|and the|and their|and its|and what|and which|and how)\b").expect("compiles"));
static ENTITY_ASK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(which|list|show|name|give|find|what are|what is the name|who)\b").expect("compiles"));
static AGGREGATE_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(how many|number|count|counts|total|sum|average|mean|maximum|minimum|max|min|most|least|fewest|percentage|ratio|amount|quantity)\b")
        .expect("compiles")
});

fn function_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Function(f) => Some(f.name.to_string().to_lowercase()),
        _ => None,
    }
}

fn outputs(query: &Query) -> Vec<&Expr> {
    let SetExpr::Select(select) = query.body.as_ref() else { return vec![] };
    select
        .projection
        .iter()
        .filter_map(|i| match i {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
            _ => None,
        })
        .collect()
}

/// The `shape` finding, if any.
pub fn shape(query: &Query, question: &str) -> Option<Finding> {
    let q = question.to_lowercase();
    let SetExpr::Select(select) = query.body.as_ref() else { return None };
    let grouped = super::grouped(select);
    let limited = query.limit_clause.is_some() || query.fetch.is_some();
    if HOW_MANY.is_match(&q) && !GROUP_WORDS.is_match(&q) && grouped && !limited {
        return Some(finding(
            "shape",
            Severity::Repair,
            "\"how many\" asks for one number, but the outer query returns a row per group: count the groups in a subquery, or drop the GROUP BY".into(),
        ));
    }
    let out = outputs(query);
    let only_count = !out.is_empty() && out.iter().all(|e| function_name(e).as_deref() == Some("count"));
    if ENTITY_ASK.is_match(&q) && !AGGREGATE_WORDS.is_match(&q) && only_count {
        return Some(finding(
            "shape",
            Severity::Repair,
            "the question asks for the entities themselves, but the query returns only a count: select the columns that name them".into(),
        ));
    }
    None
}


/// Does the question's noun name this table (singular or plural, any case)?
/// Does a block aggregate all its rows into one (aggregates only, no GROUP BY)?
fn one_aggregated_row(body: &SetExpr) -> bool {
    let SetExpr::Select(s) = body else { return false };
    !super::grouped(s)
        && !s.projection.is_empty()
        && s.projection.iter().all(|i| match i {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => super::has_aggregate(e),
            _ => false,
        })
}

/// The `set_operation` finding: INTERSECT or EXCEPT of two blocks that each return one
/// aggregated row (in any block of the query).
pub fn aggregate_set_operation(query: &Query) -> Option<Finding> {
    struct Ops(Option<Finding>);
    impl sqlparser::ast::Visitor for Ops {
        type Break = ();
        fn pre_visit_query(&mut self, q: &Query) -> std::ops::ControlFlow<()> {
            if let SetExpr::SetOperation { op: op @ (SetOperator::Intersect | SetOperator::Except), left, right, .. } = q.body.as_ref() {
                if one_aggregated_row(left) && one_aggregated_row(right) {
                    self.0 = Some(finding(
                        "set_operation",
                        Severity::Repair,
                        format!(
                            "{op} between two blocks that each aggregate all their rows compares two numbers (keeping one only when they are equal), \
                             not the things they count: {op} the things (their keys or names), then aggregate over the result"
                        ),
                    ));
                    return std::ops::ControlFlow::Break(());
                }
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let mut v = Ops(None);
    let _ = sqlparser::ast::Visit::visit(query, &mut v);
    v.0
}

fn names_table(noun: &str, table: &Table) -> bool {
    let t = table.name.name.to_lowercase();
    let stem = |w: &str| w.trim_end_matches("es").trim_end_matches('s').to_string();
    t == noun || stem(&t) == stem(noun)
}

/// A count that a one-to-many join may inflate, and the query that counts each thing once.
#[derive(Debug, Clone)]
pub struct FanOut {
    /// The same query with `COUNT(DISTINCT <qualifier>.<key>)`.
    pub distinct: Query,
    pub message: String,
}

/// The `fan_out` candidate, if the query may count the question's things once per joined row.
/// Whether it does is a matter of the data: [`super::check`] reports it only when the two counts
/// differ on the current data, read as the caller.
pub fn fan_out(query: &Query, catalog: &Catalog, question: &str) -> Option<FanOut> {
    let q = question.to_lowercase();
    let noun = HOW_MANY.captures(&q)?.get(1)?.as_str().to_string();
    let tables = scope(query, catalog);
    if tables.len() < 2 {
        return None;
    }
    let (qualifier, counted) = tables.iter().find(|(_, t)| names_table(&noun, t))?;
    // one-to-many: another table in scope references the counted one
    let fans = tables.iter().any(|(_, t)| t.name != counted.name && catalog.foreign_keys.iter().any(|fk| fk.from == t.name && fk.to == counted.name));
    let SetExpr::Select(select) = query.body.as_ref() else { return None };
    let grouped = super::grouped(select);
    if !fans || grouped || counted.primary_key.len() != 1 || select.projection.len() != 1 {
        return None;
    }
    let mut distinct = query.clone();
    let SetExpr::Select(select) = distinct.body.as_mut() else { return None };
    let (SelectItem::UnnamedExpr(Expr::Function(f)) | SelectItem::ExprWithAlias { expr: Expr::Function(f), .. }) = &mut select.projection[0] else {
        return None;
    };
    if !f.name.to_string().eq_ignore_ascii_case("count") {
        return None;
    }
    let FunctionArguments::List(list) = &mut f.args else { return None };
    if list.duplicate_treatment.is_some() {
        return None; // COUNT(DISTINCT …) already
    }
    let key = &counted.primary_key[0];
    list.duplicate_treatment = Some(sqlparser::ast::DuplicateTreatment::Distinct);
    list.args = vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::CompoundIdentifier(vec![
        sqlparser::ast::Ident::new(qualifier.as_str()),
        sqlparser::ast::Ident::new(key.as_str()),
    ])))];
    let message = format!(
        "\"how many {noun}\" counts each of {} once, but the join repeats it once per matching row of a table that references it (the count differs from COUNT(DISTINCT {qualifier}.{key}) on the data): count COUNT(DISTINCT {qualifier}.{key})",
        counted.name.name
    );
    Some(FanOut { distinct, message })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::check_query;
    use crate::testing::bookshop;

    fn shape_of(question: &str, sql: &str) -> bool {
        shape(&check_query(sql).unwrap().query, question).is_some()
    }

    fn fans(question: &str, sql: &str) -> Option<String> {
        fan_out(&check_query(sql).unwrap().query, &bookshop(), question).map(|f| f.distinct.to_string())
    }

    #[test]
    fn how_many_is_one_number_and_which_is_not_a_count() {
        assert!(shape_of("How many countries have more than 3 singers?", "SELECT count(*) FROM singer GROUP BY country HAVING count(*) > 3"));
        assert!(!shape_of("How many countries have more than 3 singers?", "SELECT count(*) FROM (SELECT country FROM singer GROUP BY country HAVING count(*) > 3) AS t"));
        assert!(!shape_of("How many singers are from each country?", "SELECT country, count(*) FROM singer GROUP BY country"));
        assert!(!shape_of("How many singers does the country with the most singers have?", "SELECT count(*) FROM singer GROUP BY country ORDER BY count(*) DESC LIMIT 1"));
        assert!(shape_of("Which singers are from France?", "SELECT count(*) FROM singer WHERE country = 'France'"));
        assert!(!shape_of("Which country has the most singers?", "SELECT count(*) FROM singer GROUP BY country"));
        assert!(!shape_of("List the number of singers.", "SELECT count(*) FROM singer"));
    }

    #[test]
    fn a_count_over_a_one_to_many_join_may_count_the_many() {
        let join = "FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id WHERE o.ordered_on > '2020-01-01'";
        let distinct = format!("SELECT count(DISTINCT c.customer_id) {join}");
        assert_eq!(fans("How many customers placed orders after 2020?", &format!("SELECT count(*) {join}")), Some(distinct.clone()));
        assert_eq!(fans("How many customers placed orders after 2020?", &format!("SELECT count(c.customer_id) {join}")), Some(distinct.clone()));
        assert_eq!(fans("How many customers placed orders after 2020?", &distinct), None);
        // counting the many side, one table, or a count per group: nothing to compare
        assert_eq!(fans("How many orders were placed after 2020?", &format!("SELECT count(*) {join}")), None);
        assert_eq!(fans("How many customers are there?", "SELECT count(*) FROM customers"), None);
        assert_eq!(fans("How many customers placed orders?", &format!("SELECT c.city, count(*) {join} GROUP BY c.city")), None);
    }

    #[test]
    fn set_operations_between_two_aggregated_rows() {
        let q = |sql: &str| crate::sql::check_query(sql).unwrap().query;
        let f = aggregate_set_operation(&q("SELECT count(*) FROM customers WHERE city = 'Paris' INTERSECT SELECT count(*) FROM customers WHERE city = 'Lyon'")).unwrap();
        assert!(f.message.starts_with("INTERSECT between two blocks that each aggregate all their rows"), "{}", f.message);
        assert!(aggregate_set_operation(&q("SELECT count(*) FROM (SELECT name FROM customers WHERE city = 'a' EXCEPT SELECT name FROM customers WHERE city = 'b') AS t")).is_none());
        assert!(aggregate_set_operation(&q("SELECT city, count(*) FROM customers GROUP BY city INTERSECT SELECT city, count(*) FROM customers GROUP BY city")).is_none());
        assert!(aggregate_set_operation(&q("SELECT count(*) FROM customers UNION SELECT count(*) FROM orders")).is_none());
        // inside a subquery too
        assert!(aggregate_set_operation(&q("SELECT 1 WHERE 2 IN (SELECT max(price) FROM books EXCEPT SELECT min(price) FROM books)")).is_some());
    }
}
