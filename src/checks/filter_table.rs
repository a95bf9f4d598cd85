//! `filter_table`: a condition read from a table the question does not name, when a table whose
//! columns the answer returns has a column of that name. "Find the birth dates of employees who
//! live in the city of Edmonton" answered by `SELECT e.birthdate FROM employee e JOIN customer c
//! ON e.employeeid = c.supportrepid WHERE c.city = 'Edmonton'`: the employees whose *customers*
//! live there, while `employee.city` says where the employees live. Small models take the first
//! table they see with the column.
//!
//! A comparison of a column with a constant (`=`, `<>`, `<`, `>`, `LIKE`, `IN (…)`, `BETWEEN`) in a
//! block's WHERE is misread when
//! - its column `b.c` is qualified, and `b`'s table returns nothing: no output of the block reads it;
//! - the question does not name `b`'s table: no word of its name that the names of the returned
//!   tables lack matches a word of the question (as [`super::question_names`] matches), and it has
//!   such a word;
//! - the question names the column by a word that is not generic (`city` for "the city of
//!   Edmonton"; not `name`) and names the returned table, and the block returns no column of
//!   that name (the names of aircraft filtered by the names of employees);
//! - a table the block returns columns of has a column of the same name and type, and the joins do
//!   not equate the two (`ON a.city = b.city` makes either the same);
//! - the column is no key (not in either table's primary key or foreign keys, nor named `id` or
//!   `…_id`): a key is how two tables meet, and either side's is the same thing.
//!
//! The repair reads the returned table's own column ([`requalified`]); the join then takes nothing
//! and the fix stage removes it as a needless one.

use std::ops::ControlFlow;

use sqlparser::ast::{BinaryOperator, Expr, Ident, Query, Select, SelectItem, SetExpr, Visit, VisitMut, Visitor, VisitorMut};

use super::{aliases, column_of, conjuncts, join_condition, question_names};
use crate::catalog::{Catalog, RelName};

/// A condition of a block read from a table the question does not name.
#[derive(Debug, Clone, PartialEq)]
pub struct Misread {
    /// The condition, as written.
    pub condition: String,
    /// The qualifier and table the condition reads.
    pub read: (String, RelName),
    /// The qualifier and table the block returns columns of, which has the column too.
    pub own: (String, RelName),
    pub column: String,
}

impl Misread {
    pub fn message(&self) -> String {
        format!(
            "`{}` reads {}.{col}, a table the question does not name, while the answer's own {} has a column {col}: compare {}.{col} (and drop the join to {} if the answer takes nothing else from it)",
            self.condition, self.read.1.name, self.own.1.name, self.own.0, self.read.1.name,
            col = self.column
        )
    }
}

/// The misread conditions of the query's blocks (the top-level block, or each arm of a set
/// operation), at most one per block.
pub fn misread(query: &Query, catalog: &Catalog, question: &str) -> Vec<Misread> {
    let mut blocks = Vec::new();
    super::collect_selects(&query.body, &mut blocks);
    blocks.into_iter().filter_map(|s| misread_in(s, catalog, question)).collect()
}

/// The column a comparison of a column with constants reads, as written.
fn compared_column(e: &Expr) -> Option<&Expr> {
    let constant = |e: &Expr| match e {
        Expr::Value(_) => true,
        Expr::UnaryOp { expr, .. } => matches!(**expr, Expr::Value(_)),
        _ => false,
    };
    let column = |e: &Expr| matches!(e, Expr::CompoundIdentifier(p) if p.len() >= 2);
    match e {
        Expr::BinaryOp { left, op, right }
            if matches!(
                op,
                BinaryOperator::Eq | BinaryOperator::NotEq | BinaryOperator::Lt | BinaryOperator::LtEq | BinaryOperator::Gt | BinaryOperator::GtEq
            ) =>
        {
            if column(left) && constant(right) {
                Some(left)
            } else if column(right) && constant(left) {
                Some(right)
            } else {
                None
            }
        }
        Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } if column(expr) && constant(pattern) => Some(expr),
        Expr::InList { expr, list, .. } if column(expr) && list.iter().all(constant) => Some(expr),
        Expr::Between { expr, low, high, .. } if column(expr) && constant(low) && constant(high) => Some(expr),
        Expr::Nested(inner) => compared_column(inner),
        _ => None,
    }
}

/// The qualifier a column reference is written with.
fn qualifier(e: &Expr) -> Option<String> {
    match e {
        Expr::CompoundIdentifier(parts) if parts.len() >= 2 => Some(parts[parts.len() - 2].value.to_lowercase()),
        _ => None,
    }
}

fn misread_in(select: &Select, catalog: &Catalog, question: &str) -> Option<Misread> {
    let scope = aliases(select, catalog);
    if scope.len() < 2 {
        return None;
    }
    // the tables the block returns columns of, by qualifier
    let mut returned: Vec<(String, RelName)> = Vec::new();
    let mut returned_columns: Vec<String> = Vec::new();
    for item in &select.projection {
        let e = match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
            _ => continue,
        };
        let _ = e.visit(&mut References(
            |r: &Expr| {
                let Some((rel, column)) = column_of(r, &scope, catalog) else { return };
                returned_columns.push(column.to_lowercase());
                // a bare column belongs to the one table in scope that has it
                let q = qualifier(r).or_else(|| scope.iter().find(|(_, t)| **t == rel).map(|(q, _)| q.clone()));
                if let Some(q) = q.filter(|q| !returned.iter().any(|(x, _)| x == q)) {
                    returned.push((q, rel));
                }
            },
            0,
        ));
    }
    if returned.is_empty() {
        return None;
    }
    let words = |rel: &RelName| rel.name.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() >= 2).map(str::to_string).collect::<Vec<_>>();
    let returned_words: Vec<String> = returned.iter().flat_map(|(_, r)| words(r)).collect();
    let is_key = |rel: &RelName, column: &str| {
        let c = column.to_lowercase();
        c == "id"
            || c.ends_with("_id")
            || catalog.table(rel).is_some_and(|t| t.primary_key.iter().any(|k| k.eq_ignore_ascii_case(column)))
            || catalog.foreign_keys.iter().any(|fk| {
                (fk.from == *rel && fk.from_columns.iter().any(|f| f.eq_ignore_ascii_case(column)))
                    || (fk.to == *rel && fk.to_columns.iter().any(|f| f.eq_ignore_ascii_case(column)))
            })
    };
    let joins: Vec<&Expr> = select.from.iter().flat_map(|f| f.joins.iter()).filter_map(|j| join_condition(&j.join_operator)).flat_map(conjuncts).collect();
    let equated = |a: &str, b: &str, column: &str| {
        joins.iter().any(|c| {
            let Expr::BinaryOp { left, op: BinaryOperator::Eq, right } = c else { return false };
            let sides = [qualifier(left), qualifier(right)];
            let columns = [column_of(left, &scope, catalog), column_of(right, &scope, catalog)];
            columns.iter().all(|c| c.as_ref().is_some_and(|(_, n)| n.eq_ignore_ascii_case(column)))
                && sides.contains(&Some(a.to_string()))
                && sides.contains(&Some(b.to_string()))
        })
    };
    let condition = select.selection.as_ref()?;
    for c in conjuncts(condition) {
        let Some(col) = compared_column(c) else { continue };
        let (Some(q), Some((rel, column))) = (qualifier(col), column_of(col, &scope, catalog)) else { continue };
        // the question names the column by a word that is not generic (`city`; not `name`, which
        // every table has and the question uses of any thing), and the block does not return a
        // column of that name (the names of aircraft filtered by the names of employees)
        let named = column
            .to_lowercase()
            .split('_')
            .filter(|w| w.len() >= 2 && !crate::lexicon::GENERIC_WORDS.contains(w))
            .any(|w| question_names(question, w));
        if returned.iter().any(|(x, _)| *x == q) || is_key(&rel, &column) || !named || returned_columns.contains(&column.to_lowercase()) {
            continue;
        }
        let own_words: Vec<String> = words(&rel).into_iter().filter(|w| !returned_words.contains(w)).collect();
        if own_words.is_empty() || own_words.iter().any(|w| question_names(question, w)) {
            continue;
        }
        let type_of = |r: &RelName| catalog.table(r).and_then(|t| t.column(&column).map(|c| c.type_name.to_lowercase()));
        let own = returned.iter().find(|(oq, orel)| {
            *orel != rel
                && question_names(question, &orel.name) && type_of(orel).is_some() && type_of(orel) == type_of(&rel) && !is_key(orel, &column) && !equated(oq, &q, &column)
        });
        if let Some(own) = own {
            return Some(Misread { condition: c.to_string(), read: (q, rel), own: own.clone(), column });
        }
    }
    None
}

/// The query with each misread condition's column read from the returned table instead
/// (`c.city` → `e.city`), and what was changed; `None` when nothing is misread.
pub fn requalified(query: &Query, catalog: &Catalog, question: &str) -> Option<(Query, Vec<Misread>)> {
    let found = misread(query, catalog, question);
    if found.is_empty() {
        return None;
    }
    let mut fixed = query.clone();
    requalify_blocks(&mut fixed.body, &found);
    Some((fixed, found))
}

/// Calls back with every column reference of an expression, subqueries excluded (the count of
/// subqueries it is inside).
struct References<F: FnMut(&Expr)>(F, usize);

impl<F: FnMut(&Expr)> Visitor for References<F> {
    type Break = ();
    fn pre_visit_query(&mut self, _q: &Query) -> ControlFlow<()> {
        self.1 += 1;
        ControlFlow::Continue(())
    }
    fn post_visit_query(&mut self, _q: &Query) -> ControlFlow<()> {
        self.1 -= 1;
        ControlFlow::Continue(())
    }
    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if self.1 == 0 && matches!(e, Expr::Identifier(_) | Expr::CompoundIdentifier(_)) {
            (self.0)(e);
        }
        ControlFlow::Continue(())
    }
}

/// Rewrites the misread columns of the WHERE clauses of a query body's blocks.
fn requalify_blocks(body: &mut SetExpr, found: &[Misread]) {
    match body {
        SetExpr::Select(s) => {
            if let Some(w) = s.selection.as_mut() {
                let _ = VisitMut::visit(w, &mut Column(found, 0));
            }
        }
        SetExpr::SetOperation { left, right, .. } => {
            requalify_blocks(left, found);
            requalify_blocks(right, found);
        }
        _ => {}
    }
}

/// Rewrites the misread columns of one WHERE clause, outside its subqueries (the count of
/// subqueries it is inside).
struct Column<'m>(&'m [Misread], usize);

impl VisitorMut for Column<'_> {
    type Break = ();
    fn pre_visit_query(&mut self, _q: &mut Query) -> ControlFlow<()> {
        self.1 += 1;
        ControlFlow::Continue(())
    }
    fn post_visit_query(&mut self, _q: &mut Query) -> ControlFlow<()> {
        self.1 -= 1;
        ControlFlow::Continue(())
    }
    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if self.1 > 0 {
            return ControlFlow::Continue(());
        }
        if let Expr::CompoundIdentifier(parts) = e {
            let n = parts.len();
            if n >= 2 {
                let (q, c) = (parts[n - 2].value.to_lowercase(), parts[n - 1].value.to_lowercase());
                if let Some(m) = self.0.iter().find(|m| m.read.0 == q && m.column.eq_ignore_ascii_case(&c)) {
                    *e = Expr::CompoundIdentifier(vec![Ident::new(m.own.0.clone()), parts[n - 1].clone()]);
                }
            }
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::catalog::ForeignKey;
    use crate::sql::check_query;
    use crate::testing::{rel, table};

    /// Employees and their customers, each with a city: the employee is the customer's support rep.
    pub(crate) fn catalog() -> Catalog {
        Catalog {
            tables: vec![
                table("employee", &[("employeeid", "integer"), ("firstname", "text"), ("birthdate", "date"), ("city", "text")], "employeeid"),
                table("customer", &[("customerid", "integer"), ("supportrepid", "integer"), ("company", "text"), ("city", "text")], "customerid"),
            ],
            foreign_keys: vec![ForeignKey {
                name: "customer_supportrepid_fkey".into(),
                from: rel("customer"),
                from_columns: vec!["supportrepid".into()],
                to: rel("employee"),
                to_columns: vec!["employeeid".into()],
            }],
            ..Default::default()
        }
    }

    fn found(question: &str, sql: &str) -> Vec<Misread> {
        misread(&check_query(sql).unwrap().query, &catalog(), question)
    }

    const JOINED: &str = "SELECT T1.birthdate FROM employee AS T1 JOIN customer AS T2 ON T1.employeeid = T2.supportrepid";

    #[test]
    fn a_filter_on_a_table_the_question_does_not_name_is_read_from_the_returned_tables_own_column() {
        let question = "Find the birth dates of employees who live in the city of Edmonton.";
        let sql = format!("{JOINED} WHERE T2.city = 'Edmonton'");
        let m = found(question, &sql);
        assert_eq!(m.len(), 1);
        assert_eq!((m[0].read.0.as_str(), m[0].own.0.as_str(), m[0].column.as_str()), ("t2", "t1", "city"));
        assert!(m[0].message().contains("compare t1.city"), "{}", m[0].message());
        let (fixed, _) = requalified(&check_query(&sql).unwrap().query, &catalog(), question).unwrap();
        assert_eq!(fixed.to_string(), format!("{JOINED} WHERE t1.city = 'Edmonton'"));
        // IN, LIKE and a set operation's arm
        assert_eq!(found(question, &format!("{JOINED} WHERE T2.city IN ('Edmonton', 'Calgary')")).len(), 1);
        assert_eq!(found(question, &format!("{JOINED} WHERE T2.city LIKE 'Edm%'")).len(), 1);
        assert_eq!(found(question, &format!("SELECT birthdate FROM employee EXCEPT {JOINED} WHERE T2.city = 'Edmonton'")).len(), 1);
    }

    #[test]
    fn a_filter_is_not_misread_where_the_question_names_its_table_or_the_tables_meet_on_it() {
        let sql = format!("{JOINED} WHERE T2.city = 'Edmonton'");
        // the question names the customers
        assert!(found("Find the birth dates of employees whose customers live in the city of Edmonton.", &sql).is_empty());
        // the question names no city
        assert!(found("Find the birth dates of employees who serve Edmonton.", &sql).is_empty());
        // the returned table is the filtered one
        assert!(found("Which companies in Edmonton?", "SELECT T2.company FROM employee AS T1 JOIN customer AS T2 ON T1.employeeid = T2.supportrepid WHERE T2.city = 'Edmonton'").is_empty());
        // the join makes the two cities one
        assert!(found(
            "Find the birth dates of employees who live in the city of Edmonton.",
            "SELECT T1.birthdate FROM employee AS T1 JOIN customer AS T2 ON T1.city = T2.city WHERE T2.city = 'Edmonton'"
        )
        .is_empty());
        // a key is where the tables meet
        assert!(found("Find the birth dates of employees with the customer id 3.", &format!("{JOINED} WHERE T2.customerid = 3")).is_empty());
        // one table
        assert!(found("Which employees live in the city of Edmonton?", "SELECT firstname FROM employee WHERE city = 'Edmonton'").is_empty());
        // a generic column, and one the block returns: aircraft's names filtered by an employee's
        let names = "SELECT T2.company FROM employee AS T1 JOIN customer AS T2 ON T1.employeeid = T2.supportrepid WHERE T1.firstname = 'Andrew'";
        assert!(found("Which customer companies does the employee named Andrew serve?", names).is_empty());
        assert!(found(
            "Which cities of customers does the employee of the city Calgary serve?",
            "SELECT T2.city FROM employee AS T1 JOIN customer AS T2 ON T1.employeeid = T2.supportrepid WHERE T1.city = 'Calgary'"
        )
        .is_empty());
        // a column compared with another column, not a constant
        assert!(found("Find the birth dates of employees who live in the city of Edmonton.", &format!("{JOINED} WHERE T2.city = T1.firstname")).is_empty());
    }
}
