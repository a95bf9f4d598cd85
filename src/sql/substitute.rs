//! Replacing a query's literals on its AST: a verified example's SQL adapted to a question that
//! asks the same about another value or another number (`ground::same`).

use std::ops::ControlFlow;

use sqlparser::ast::{Value, ValueWithSpan, VisitMut, VisitorMut};

use super::guard::check_query;

/// One literal to replace: a value the example names by another the question names, or a
/// number by another.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Substitution {
    pub from: String,
    pub to: String,
    /// A number (replaces numeric literals equal to `from`); otherwise a value (replaces string
    /// literals equal to `from` in any case, alone or between the `%` of a pattern).
    pub number: bool,
}

/// `sql` with every substitution made, or `None` when one of them cannot be made exactly: a value
/// no string literal holds, a number that is not exactly one numeric literal (`LIMIT 3` and
/// `> 3` together cannot say which one the question's 3 is), or SQL that does not parse.
pub fn substitute(sql: &str, substitutions: &[Substitution]) -> Option<String> {
    let mut query = check_query(sql).ok()?.query;
    let mut visitor = Replace { substitutions, made: vec![0; substitutions.len()] };
    let _ = query.visit(&mut visitor);
    let exact = substitutions.iter().zip(&visitor.made).all(|(s, &n)| if s.number { n == 1 } else { n >= 1 });
    exact.then(|| query.to_string())
}

struct Replace<'a> {
    substitutions: &'a [Substitution],
    made: Vec<usize>,
}

impl VisitorMut for Replace<'_> {
    type Break = ();
    fn post_visit_value(&mut self, value: &mut ValueWithSpan) -> ControlFlow<()> {
        for (i, s) in self.substitutions.iter().enumerate() {
            let replaced = match &mut value.value {
                Value::Number(n, _) if s.number && *n == s.from => {
                    *n = s.to.clone();
                    true
                }
                Value::SingleQuotedString(text) if !s.number => match pattern_parts(text, &s.from) {
                    Some((before, after)) => {
                        *text = format!("{before}{}{after}", s.to);
                        true
                    }
                    None => false,
                },
                _ => false,
            };
            if replaced {
                self.made[i] += 1;
                // one substitution per literal: the new text is not read again
                break;
            }
        }
        ControlFlow::Continue(())
    }
}

/// The `%` around `value` when `text` is `value` (in any case) between them: `'%Paris%'` is
/// `("%", "%")`; `'Paris'` is `("", "")`.
fn pattern_parts<'t>(text: &'t str, value: &str) -> Option<(&'t str, &'t str)> {
    let inner = text.trim_matches('%');
    if inner.is_empty() || inner.to_lowercase() != value.to_lowercase() {
        return None;
    }
    let start = text.len() - text.trim_start_matches('%').len();
    let end = text.trim_end_matches('%').len();
    Some((&text[..start], &text[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(from: &str, to: &str) -> Substitution {
        Substitution { from: from.into(), to: to.into(), number: false }
    }
    fn number(from: &str, to: &str) -> Substitution {
        Substitution { from: from.into(), to: to.into(), number: true }
    }

    #[test]
    fn a_value_is_replaced_wherever_a_string_literal_holds_it() {
        let sql = "SELECT name FROM customers WHERE city = 'Paris' OR home_city ILIKE '%paris%'";
        assert_eq!(
            substitute(sql, &[value("Paris", "Lyon")]).unwrap(),
            "SELECT name FROM customers WHERE city = 'Lyon' OR home_city ILIKE '%Lyon%'"
        );
    }

    #[test]
    fn a_number_is_replaced_only_when_one_literal_holds_it() {
        let sql = "SELECT name FROM products ORDER BY price DESC LIMIT 3";
        assert_eq!(substitute(sql, &[number("3", "5")]).unwrap(), "SELECT name FROM products ORDER BY price DESC LIMIT 5");
        let two = "SELECT name FROM t WHERE n > 3 ORDER BY n LIMIT 3";
        assert_eq!(substitute(two, &[number("3", "5")]), None);
    }

    #[test]
    fn a_substitution_that_cannot_be_made_is_no_adaptation() {
        // the example's value is not written in its SQL (an id stands for it)
        assert_eq!(substitute("SELECT name FROM customers WHERE city_id = 7", &[value("Paris", "Lyon")]), None);
        // a value inside a longer text is not the value
        assert_eq!(substitute("SELECT 1 FROM t WHERE c = 'Paris Hilton'", &[value("Paris", "Lyon")]), None);
        // a number written as a string is not a number literal
        assert_eq!(substitute("SELECT 1 FROM t WHERE y = '2010'", &[number("2010", "2011")]), None);
        assert_eq!(substitute("not sql", &[value("a", "b")]), None);
    }

    #[test]
    fn values_and_numbers_together_and_no_chained_replacement() {
        let sql = "SELECT name FROM t WHERE city = 'Paris' AND country = 'Lyon' LIMIT 2";
        // Paris -> Lyon, Lyon -> Nice: each literal replaced once, by what it held
        let out = substitute(sql, &[value("Paris", "Lyon"), value("Lyon", "Nice"), number("2", "4")]).unwrap();
        assert_eq!(out, "SELECT name FROM t WHERE city = 'Lyon' AND country = 'Nice' LIMIT 4");
    }
}
