//! `both`: "the stadiums that had concerts in both 2014 and 2015" answered by `… WHERE
//! concert.year IN ('2014', '2015')`, or by `year = '2014' OR year = '2015'`: the condition keeps
//! each row that has either value, so a stadium with a concert in one of the two years is in the
//! answer. The question asks for what has both: the rows for one value intersected with the rows
//! for the other.
//!
//! Judged in a query of one block that neither groups, aggregates nor orders: a conjunct of its
//! WHERE that accepts either of two constants of one column, both written in the question after
//! "both". Whether it matters is read from the data: the query rewritten as the intersection of
//! the block for each value ([`Both::intersect`]) is run as the caller beside the query, and the
//! finding stands only when the intersection has rows and they differ from the query's. An empty
//! intersection means nothing has both, which is what "airports in both Aberdeen and Abilene"
//! means of a column with one value per thing: the question then asks for either, and the
//! query's reading stands. The fix is the intersection.

use sqlparser::ast::{BinaryOperator, Expr, Query, Select, SetExpr, SetOperator, SetQuantifier, Value};

use super::{conjuncts, grouped, projects_aggregate, terms};

/// A condition that accepts either of two values where the question asks for both.
#[derive(Debug, Clone, PartialEq)]
pub struct Both {
    /// The condition as written (`T2.year IN ('2014', '2015')`).
    pub condition: String,
    /// The query as the intersection of its block for each value.
    pub intersect: Query,
}

impl Both {
    pub fn message(&self) -> String {
        format!(
            "the question asks for what has both values, but `{}` keeps every row with either: on the data the answer differs from \
             the rows that have each; intersect them: {}",
            self.condition, self.intersect
        )
    }
}

/// The either-condition of `query` and its rewrite as an intersection, when the question says
/// "both" of its two values.
pub fn either(query: &Query, question: &str) -> Option<Both> {
    let SetExpr::Select(select) = &*query.body else { return None };
    if query.order_by.is_some() || query.limit_clause.is_some() || query.fetch.is_some() || !plain(select) {
        return None;
    }
    let asked = after_both(question)?;
    let selection = select.selection.as_ref()?;
    conjuncts(selection).into_iter().find_map(|c| {
        let (column, values) = alternatives(c)?;
        if !values.iter().all(|v| names(&asked, v)) {
            return None;
        }
        // the block with the condition narrowed to one value
        let arm = |v: &Value| {
            let mut arm = select.clone();
            let equal = Expr::BinaryOp { left: Box::new(column.clone()), op: BinaryOperator::Eq, right: Box::new(Expr::value(v.clone())) };
            replace(arm.selection.as_mut().expect("a WHERE"), c, &equal);
            arm
        };
        let (left, right) = (arm(&values[0]), arm(&values[1]));
        let mut intersect = query.clone();
        intersect.body = Box::new(SetExpr::SetOperation {
            left: Box::new(SetExpr::Select(left)),
            op: SetOperator::Intersect,
            set_quantifier: SetQuantifier::None,
            right: Box::new(SetExpr::Select(right)),
        });
        Some(Both { condition: c.to_string(), intersect })
    })
}

/// A block whose rows are things, not groups or aggregates.
fn plain(select: &Select) -> bool {
    !grouped(select) && !projects_aggregate(select) && select.having.is_none()
}

/// Where `word` first stands in `text` as a word of its own (not inside a longer word).
fn word_at(text: &str, word: &str) -> Option<usize> {
    text.match_indices(word).map(|(i, _)| i).find(|&i| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The question after its first "both", lower case; `None` without one.
fn after_both(question: &str) -> Option<String> {
    let lower = question.to_lowercase();
    word_at(&lower, "both").map(|at| lower[at + "both".len()..].to_string())
}

/// Does the text name the constant as a word (or words) of its own?
fn names(text: &str, value: &Value) -> bool {
    let v = match value {
        Value::SingleQuotedString(s) | Value::EscapedStringLiteral(s) | Value::NationalStringLiteral(s) => s.trim().to_lowercase(),
        Value::Number(n, _) => n.to_string(),
        _ => return false,
    };
    !v.is_empty() && word_at(text, &v).is_some()
}

/// `col IN (a, b)` or `col = a OR col = b` (constants, one column): the column and the two values.
fn alternatives(e: &Expr) -> Option<(Expr, Vec<Value>)> {
    let constant = |e: &Expr| match e {
        Expr::Value(v) => Some(v.value.clone()),
        Expr::Nested(inner) => match &**inner {
            Expr::Value(v) => Some(v.value.clone()),
            _ => None,
        },
        _ => None,
    };
    let is_column = |e: &Expr| matches!(e, Expr::Identifier(_) | Expr::CompoundIdentifier(_));
    match e {
        Expr::Nested(inner) => alternatives(inner),
        Expr::InList { expr, list, negated: false } if is_column(expr) && list.len() == 2 => {
            let values: Option<Vec<Value>> = list.iter().map(constant).collect();
            Some(((**expr).clone(), values?))
        }
        Expr::BinaryOp { op: BinaryOperator::Or, .. } => {
            let ts = terms(e, &[BinaryOperator::Or]);
            if ts.len() != 2 {
                return None;
            }
            let mut column: Option<&Expr> = None;
            let mut values = Vec::new();
            for t in ts {
                let Expr::BinaryOp { left, op: BinaryOperator::Eq, right } = t else { return None };
                let (col, value) = match (constant(left), constant(right)) {
                    (None, Some(v)) if is_column(left) => (&**left, v),
                    (Some(v), None) if is_column(right) => (&**right, v),
                    _ => return None,
                };
                if column.is_some_and(|c| c.to_string().to_lowercase() != col.to_string().to_lowercase()) {
                    return None;
                }
                column = Some(col);
                values.push(value);
            }
            Some((column?.clone(), values))
        }
        _ => None,
    }
    .filter(|(_, values)| values.len() == 2 && values[0] != values[1])
}

/// Replace the conjunct `target` of an AND chain with `with`.
fn replace(e: &mut Expr, target: &Expr, with: &Expr) -> bool {
    if e == target || matches!(e, Expr::Nested(inner) if **inner == *target) {
        *e = with.clone();
        return true;
    }
    match e {
        Expr::BinaryOp { left, op: BinaryOperator::And, right } => replace(left, target, with) || replace(right, target, with),
        Expr::Nested(inner) => replace(inner, target, with),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::check_query;

    fn rewrite(sql: &str, question: &str) -> Option<String> {
        either(&check_query(sql).unwrap().query, question).map(|b| b.intersect.to_string())
    }

    #[test]
    fn either_of_two_values_the_question_wants_both_of_becomes_an_intersection() {
        let q = "What are the names and locations of the stadiums that had concerts in both 2014 and 2015?";
        assert_eq!(
            rewrite("SELECT DISTINCT T1.name, T1.location FROM stadium AS T1 JOIN concert AS T2 ON T1.stadium_id = T2.stadium_id WHERE T2.year IN ('2014', '2015')", q).as_deref(),
            Some(
                "SELECT DISTINCT T1.name, T1.location FROM stadium AS T1 JOIN concert AS T2 ON T1.stadium_id = T2.stadium_id WHERE T2.year = '2014' \
                 INTERSECT SELECT DISTINCT T1.name, T1.location FROM stadium AS T1 JOIN concert AS T2 ON T1.stadium_id = T2.stadium_id WHERE T2.year = '2015'"
            )
        );
        // OR of two equalities, beside other conditions, which both arms keep
        let q = "Which countries have both English and Dutch as official languages?";
        assert_eq!(
            rewrite("SELECT c.name FROM country c JOIN countrylanguage l ON c.code = l.countrycode WHERE l.isofficial = 'T' AND (l.language = 'English' OR 'Dutch' = l.language)", q).as_deref(),
            Some(
                "SELECT c.name FROM country c JOIN countrylanguage l ON c.code = l.countrycode WHERE l.isofficial = 'T' AND l.language = 'English' \
                 INTERSECT SELECT c.name FROM country c JOIN countrylanguage l ON c.code = l.countrycode WHERE l.isofficial = 'T' AND l.language = 'Dutch'"
            )
        );
        let b = either(&check_query("SELECT a FROM t WHERE y IN (2014, 2015)").unwrap().query, "both 2014 and 2015").unwrap();
        assert!(b.message().contains("`y IN (2014, 2015)`"), "{}", b.message());
    }

    #[test]
    fn only_where_the_question_says_both_of_those_values() {
        let sql = "SELECT name FROM t WHERE lang IN ('English', 'Dutch')";
        assert!(rewrite(sql, "Which countries speak English or Dutch?").is_none(), "no 'both'");
        assert!(rewrite(sql, "Which countries have both English and French?").is_none(), "Dutch is not asked");
        assert!(rewrite(sql, "Both English and Dutch speakers: which countries have them?").is_some());
        assert!(rewrite(sql, "Which countries, English and Dutch, are both big?").is_none(), "the values come before 'both'");
        assert!(rewrite(sql, "Which countries have bothEnglish and Dutch?").is_none(), "'both' as a word");
        assert!(rewrite("SELECT name FROM t WHERE lang IN ('Eng', 'Dutch')", "both English and Dutch").is_none(), "a value as a word of its own");
    }

    #[test]
    fn not_for_groups_aggregates_rankings_or_other_conditions() {
        let q = "How many stadiums had concerts in both 2014 and 2015?";
        assert!(rewrite("SELECT count(*) FROM concert WHERE year IN ('2014', '2015')", q).is_none());
        assert!(rewrite("SELECT s FROM concert WHERE year IN ('2014', '2015') GROUP BY s", q).is_none());
        assert!(rewrite("SELECT s FROM concert WHERE year IN ('2014', '2015') ORDER BY s", q).is_none());
        assert!(rewrite("SELECT s FROM concert WHERE year IN ('2014', '2015') LIMIT 3", q).is_none());
        assert!(rewrite("SELECT s FROM concert WHERE year IN ('2014', '2015', '2016')", q).is_none(), "three values");
        assert!(rewrite("SELECT s FROM concert WHERE year NOT IN ('2014', '2015')", q).is_none());
        assert!(rewrite("SELECT s FROM concert WHERE year = '2014' OR month = '2015'", q).is_none(), "two columns");
        assert!(rewrite("SELECT s FROM concert WHERE year = '2014' OR year = '2015' OR year = '2016'", q).is_none());
        assert!(rewrite("SELECT s FROM concert WHERE year IN ('2014', '2015') OR s = 1", q).is_none(), "not a conjunct");
        assert!(rewrite("SELECT s FROM concert WHERE year = '2014' INTERSECT SELECT s FROM concert WHERE year = '2015'", q).is_none());
    }
}
