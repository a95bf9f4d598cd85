//! SQL analysis on the sqlparser AST (PostgreSQL dialect).

pub mod degenerate;
pub mod guard;
pub mod limit;
pub mod names;
pub mod substitute;

pub use guard::{check_query, CheckedQuery, Refusal};

/// Is `query` one block, with no subquery or CTE (so its FROM clause is the one scope of its
/// columns)? A set operation of plain SELECTs counts as one: its arms are no query blocks of
/// their own, so a caller that needs one SELECT also matches the body.
pub fn one_block(query: &sqlparser::ast::Query) -> bool {
    use sqlparser::ast::{Query, Visit, Visitor};
    use std::ops::ControlFlow;
    struct Blocks(usize);
    impl Visitor for Blocks {
        type Break = ();
        fn pre_visit_query(&mut self, _q: &Query) -> ControlFlow<()> {
            self.0 += 1;
            ControlFlow::Continue(())
        }
    }
    let mut blocks = Blocks(0);
    let _ = query.visit(&mut blocks);
    blocks.0 == 1
}

/// Calls `f` with every expression of `node` (itself included, pre-order) outside the subqueries
/// it holds: a subquery's columns resolve against its own FROM list, not the enclosing block's.
pub fn exprs_outside_subqueries(node: &impl sqlparser::ast::Visit, f: &mut dyn FnMut(&sqlparser::ast::Expr)) {
    use sqlparser::ast::{Expr, Query, Visitor};
    use std::ops::ControlFlow;
    struct Outside<'f> {
        depth: usize,
        f: &'f mut dyn FnMut(&Expr),
    }
    impl Visitor for Outside<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.depth += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
            self.depth -= 1;
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            if self.depth == 0 {
                (self.f)(e);
            }
            ControlFlow::Continue(())
        }
    }
    let _ = node.visit(&mut Outside { depth: 0, f });
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::ast::{Expr, Statement};
    use sqlparser::dialect::PostgreSqlDialect;
    use sqlparser::parser::Parser;

    fn where_of(sql: &str) -> Expr {
        let Statement::Query(q) = Parser::parse_sql(&PostgreSqlDialect {}, sql).unwrap().remove(0) else { panic!("not a query") };
        let sqlparser::ast::SetExpr::Select(s) = *q.body else { panic!("not a select") };
        s.selection.unwrap()
    }

    fn columns_outside(e: &Expr) -> Vec<String> {
        let mut out = vec![];
        exprs_outside_subqueries(e, &mut |e| {
            if let Expr::Identifier(_) | Expr::CompoundIdentifier(_) = e {
                out.push(e.to_string());
            }
        });
        out
    }

    #[test]
    fn a_subquery_s_columns_are_not_the_block_s() {
        let e = where_of("SELECT 1 FROM t WHERE t.a > (SELECT max(u.b) FROM u WHERE u.c = t.d) AND e IN (SELECT f FROM v) AND g = 1");
        assert_eq!(columns_outside(&e), ["t.a", "e", "g"]);
    }

    #[test]
    fn every_expression_is_met_once_and_the_node_itself_first() {
        let e = where_of("SELECT 1 FROM t WHERE a + 1 = b");
        let mut seen = vec![];
        exprs_outside_subqueries(&e, &mut |e| seen.push(e.to_string()));
        assert_eq!(seen, ["a + 1 = b", "a + 1", "a", "1", "b"]);
    }
}
