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
