//! Deterministic checkers on a query's syntax tree (DeepEye-SQL's checker chain), in fail-fast
//! order. Each finding is a precise directive; `Repair` findings drive a targeted revision, `Note`
//! findings are reported only (they flag a risk, not an error).
//!
//! | checker | fires on |
//! |---|---|
//! | `join` | `OR` or `IN` in a join condition; two tables joined on columns that are not their foreign key; two tables no foreign key connects joined on the ids of two different things (`channel.channel_id = program.program_id`) ([`ids_of_different_things`]) |
//! | `filter_table` | a condition on a column of a table the question does not name, when a table the question names and the query returns columns of has a column of that name (`customer.city = 'Edmonton'` for "employees who live in the city of Edmonton") ([`filter_table`]) |
//! | `needless_join` | a table joined in that the answer takes nothing from and the question does not name, when the data shows the join changes the rows ([`needless_join`]) |
//! | `both` | "… in both 2014 and 2015" answered by `year IN ('2014', '2015')` (or an OR of the two): rows with either value, when the data shows the things that have both are others ([`both`]) |
//! | `order_by` | `ORDER BY` on a query that aggregates into one row (no `GROUP BY`) |
//! | `direction` | a superlative ("highest", "cheapest", "oldest", "most recent") against the direction of the `ORDER BY … LIMIT` or `MAX`/`MIN`, reading the column's kind ("oldest" is the earliest birth date) ([`direction`]) |
//! | `shape` | "how many" answered with a row per group; "which …" answered with only a count ([`shape`]) |
//! | `fan_out` | "how many <things>" counted over a one-to-many join without DISTINCT, when the data shows the count differs from the count of distinct keys ([`shape::fan_out`]) |
//! | `contradiction` | a WHERE conjunction no row can meet: one column equal to two values, or bounded from both sides with nothing between ([`contradiction`]) |
//! | `set_operation` | `INTERSECT`/`EXCEPT` between two blocks that each aggregate all their rows into one: two numbers compared, not the things counted ([`shape`]) |
//! | `extreme_scope` | `col = (SELECT max(col) FROM t)` beside conditions that keep only some rows of `t`: the extreme of every row, which those conditions may drop ([`extreme_scope`]) |
//! | `key_aggregate` | `SUM` or `AVG` of a key column (a one-column primary key, or a column of a foreign key): names added up, no quantity ([`degenerate`]) |
//! | `one_row_groups` | a count over one table grouped by its whole primary key: every group is one row, so the count is 1 in each ([`degenerate`]) |
//! | `exclusion` | "… that do not …" answered by `<>`/`NOT IN`/`NOT LIKE` on a table with a row per pair (country, language) while returning only the key of one side: rows excluded, not things ([`exclusion`]) |
//! | `literal` | a string literal the column holds only in another case, or in no form while the data shows what was meant (a value like it, another column holding it, a number column); `<>` or a pattern that excludes or matches nothing; read as the caller ([`literals`]) |
//! | `time` | a date literal in another layout than the text column stores its dates in ([`time`]) |
//! | `select` | `SELECT *` when the question does not ask for every column |
//! | `columns` | a column the question does not ask for: a key of the ranking or of `HAVING` named only in the phrase that ranks or bounds, an identifier beside other columns of its table ([`columns`]) |
//! | `attributes` | the question enumerates more things than the query returns columns ([`columns`]) |
//! | `name` | the question asks for the names of a table's things, the query reads that table, which has a `name` column, and returns no column with "name" in it ([`columns`]) |
//! | `attribute` | the question asks for a thing a column of a table the query reads holds ("the gender of the student": `student.sex`), and the query returns other columns, none carrying a word of it ([`columns::attribute_not_returned`]) |
//! | `null_order` | `ORDER BY nullable_column DESC … LIMIT` without `NULLS LAST` (PostgreSQL sorts NULLs first there), unless the data read shows the column holds no NULL |
//! | `max_min` | `ORDER BY … LIMIT 1` for an extreme (note: ties keep one row arbitrarily) |
//! | `result` | a result whose every cell is NULL ([`result_findings`]) |

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use serde::Serialize;
use sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, JoinConstraint, JoinOperator, OrderByKind, OrderBySort, Query, Select,
    SelectItem, SetExpr, TableFactor, Visit, Visitor,
};

use crate::catalog::{Catalog, RelName};

pub mod both;
pub mod columns;
pub mod contradiction;
pub mod degenerate;
pub mod direction;
pub mod exclusion;
pub mod extreme_scope;
pub mod filter_table;
pub mod literals;
pub mod needless_join;
pub mod shape;
pub mod time;

/// What the caller read of the data for the checkers that judge by it ([`needs`] says what).
#[derive(Debug, Clone, Default)]
pub struct Observed {
    /// Distinct stored values of text columns compared with date literals (`time`); a column not
    /// here is not judged.
    pub values: BTreeMap<(RelName, String), Vec<String>>,
    /// Whether a nullable column ranked `DESC` under `LIMIT` holds any NULL (`null_order`); a
    /// column not here is judged by its declaration alone.
    pub holds_nulls: BTreeMap<(RelName, String), bool>,
    /// Whether the query's count differs from the count of distinct keys on the data (`fan_out`);
    /// `None`: not read, not judged.
    pub fan_out_differs: Option<bool>,
    /// Whether the query's rows differ from those of the query without its needless joins
    /// (`needless_join`); `None`: not read, not judged.
    pub needless_join_differs: Option<bool>,
    /// Whether the query's rows differ from the intersection of the rows for each of the two
    /// values the question wants both of, and that intersection has rows (`both`); `None`: not
    /// read, not judged.
    pub both_differs: Option<bool>,
    /// What was read of each column compared with a string literal (`literal`): the stored
    /// values it matches ignoring case and spaces, and when none, values like it and other
    /// columns that hold it; a comparison not here is not judged.
    pub stored: BTreeMap<literals::Literal, literals::Stored>,
}

/// The columns whose data the checkers need to see.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Needs {
    /// Text columns compared with dates: a few distinct values each.
    pub values: Vec<(RelName, String)>,
    /// Nullable columns ranked DESC under LIMIT: do they hold NULLs?
    pub nulls: Vec<(RelName, String)>,
    /// A count a join may inflate: the same query counting distinct keys, to compare with it.
    pub fan_out: Option<String>,
    /// Joins the answer takes nothing from: the query without them, to compare rows with.
    pub needless_join: Option<String>,
    /// A condition taking either of two values the question wants both of: the query as the
    /// intersection of the rows for each, to compare rows with.
    pub both: Option<String>,
    /// Columns compared with string literals: the stored values each literal matches.
    pub literals: Vec<literals::Literal>,
}

/// What [`check`] would like to read of the data for `query`.
pub fn needs(query: &Query, catalog: &Catalog, question: &str) -> Needs {
    Needs {
        values: time::needed(&time::comparisons(query, catalog)),
        nulls: desc_nullable_keys(query, catalog).into_iter().map(|(rel, col, _)| (rel, col)).collect(),
        fan_out: shape::fan_out(query, catalog, question).map(|f| f.distinct.to_string()),
        needless_join: needless_join::needless(query, catalog, question).map(|n| n.without.to_string()),
        both: both::either(query, question).map(|b| b.intersect.to_string()),
        literals: literal_comparisons(query, catalog),
    }
}

/// Nullable columns a `LIMIT` query orders `DESC` without saying where NULLs go: (relation,
/// column, the ORDER BY expression as written).
fn desc_nullable_keys(query: &Query, catalog: &Catalog) -> Vec<(RelName, String, String)> {
    let SetExpr::Select(select) = &*query.body else { return vec![] };
    let limited = query.limit_clause.is_some() || query.fetch.is_some();
    let Some(OrderByKind::Expressions(items)) = query.order_by.as_ref().map(|o| &o.kind) else { return vec![] };
    if !limited {
        return vec![];
    }
    let aliases = aliases(select, catalog);
    let mut out = Vec::new();
    for item in items {
        if !matches!(item.options.sort, Some(OrderBySort::Desc)) || item.options.nulls_first.is_some() {
            continue;
        }
        if let Some((rel, col)) = column_of(&item.expr, &aliases, catalog) {
            if catalog.table(&rel).and_then(|t| t.column(&col)).is_some_and(|c| c.nullable) && !out.iter().any(|(r, c, _)| *r == rel && *c == col) {
                out.push((rel, col, item.expr.to_string()));
            }
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Repair,
    Note,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub checker: &'static str,
    pub severity: Severity,
    pub message: String,
}

fn finding(checker: &'static str, severity: Severity, message: String) -> Finding {
    Finding { checker, severity, message }
}

const AGGREGATES: &[&str] = &["count", "sum", "avg", "min", "max"];

/// Does the expression call a (non-window) aggregate, anywhere in it, subqueries included?
fn has_aggregate(e: &Expr) -> bool {
    calls_aggregate(e)
}

/// Does the block group its rows (a GROUP BY with keys, or a grouping set)?
pub(crate) fn grouped(select: &Select) -> bool {
    !matches!(&select.group_by, GroupByExpr::Expressions(k, _) if k.is_empty())
}

/// Does an output column of the block aggregate?
pub(crate) fn projects_aggregate(select: &Select) -> bool {
    select.projection.iter().any(|i| match i {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => has_aggregate(e),
        _ => false,
    })
}

/// Does `node` call an aggregate function (not as a window function), anywhere in it?
pub(crate) fn calls_aggregate(node: &impl Visit) -> bool {
    calls_function(node, |name, f| AGGREGATES.contains(&name) && f.over.is_none())
}

/// Does `node` call a function that `wanted` accepts (given its lower-case name), anywhere in it?
fn calls_function(node: &impl Visit, wanted: impl Fn(&str, &sqlparser::ast::Function) -> bool) -> bool {
    struct Calls<W>(W, bool);
    impl<W: Fn(&str, &sqlparser::ast::Function) -> bool> Visitor for Calls<W> {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
            if let Expr::Function(f) = e {
                if (self.0)(&f.name.to_string().to_lowercase(), f) {
                    self.1 = true;
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut v = Calls(wanted, false);
    let _ = node.visit(&mut v);
    v.1
}

/// The tables in the outer query's FROM clause by qualifier (alias or name).
fn scope<'a>(query: &Query, catalog: &'a Catalog) -> Vec<(String, &'a crate::catalog::Table)> {
    let SetExpr::Select(select) = query.body.as_ref() else { return vec![] };
    let mut out = Vec::new();
    for f in &select.from {
        for factor in std::iter::once(&f.relation).chain(f.joins.iter().map(|j| &j.relation)) {
            let TableFactor::Table { name, alias, .. } = factor else { continue };
            if let Some(t) = catalog.resolve_object(name) {
                out.push((alias.as_ref().map_or_else(|| t.name.name.clone(), |a| a.name.value.clone()), t));
            }
        }
    }
    out
}

/// Aliases (and bare names) of the top-level FROM list, to the relations they name.
pub(crate) fn aliases(select: &Select, catalog: &Catalog) -> BTreeMap<String, RelName> {
    let mut out = BTreeMap::new();
    let mut add = |tf: &TableFactor| {
        if let TableFactor::Table { name, alias, args: None, .. } = tf {
            let parts: Vec<String> = name.0.iter().filter_map(|p| p.as_ident()).map(|i| i.value.to_lowercase()).collect();
            let table = match parts.as_slice() {
                [t] => catalog.tables.iter().find(|x| x.name.name.to_lowercase() == *t),
                [s, t] => catalog.tables.iter().find(|x| x.name.schema.to_lowercase() == *s && x.name.name.to_lowercase() == *t),
                _ => None,
            };
            if let Some(t) = table {
                let key = alias.as_ref().map(|a| a.name.value.to_lowercase()).unwrap_or_else(|| parts.last().cloned().unwrap_or_default());
                out.insert(key, t.name.clone());
            }
        }
    };
    for t in &select.from {
        add(&t.relation);
        for j in &t.joins {
            add(&j.relation);
        }
    }
    out
}

/// The (relation, column) a column reference names, if it resolves.
pub(crate) fn column_of(e: &Expr, aliases: &BTreeMap<String, RelName>, catalog: &Catalog) -> Option<(RelName, String)> {
    let (qual, col) = match e {
        Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
            (Some(parts[parts.len() - 2].value.to_lowercase()), parts[parts.len() - 1].value.to_lowercase())
        }
        Expr::Identifier(i) => (None, i.value.to_lowercase()),
        Expr::Nested(inner) => return column_of(inner, aliases, catalog),
        _ => return None,
    };
    let has = |rel: &RelName| catalog.table(rel).and_then(|t| t.columns.iter().find(|c| c.name.to_lowercase() == col)).map(|c| c.name.clone());
    match qual {
        Some(q) => {
            let rel = aliases.get(&q)?;
            has(rel).map(|c| (rel.clone(), c))
        }
        None => {
            let mut hits = aliases.values().filter_map(|r| has(r).map(|c| (r.clone(), c)));
            let first = hits.next()?;
            hits.next().is_none().then_some(first)
        }
    }
}

/// The SELECT blocks of a query body (through set operations, not into subqueries).
fn collect_selects<'q>(body: &'q SetExpr, out: &mut Vec<&'q Select>) {
    match body {
        SetExpr::Select(s) => out.push(s),
        SetExpr::SetOperation { left, right, .. } => {
            collect_selects(left, out);
            collect_selects(right, out);
        }
        _ => {}
    }
}

/// The SELECT blocks whose rows are the query's answer: its body's, through set operations, not
/// those of subqueries.
pub(crate) fn answer_selects(query: &Query) -> Vec<&Select> {
    let mut out = Vec::new();
    collect_selects(&query.body, &mut out);
    out
}

/// Calls `f` with every SELECT block of the query: the arms of set operations and the blocks of
/// subqueries, each with its own FROM.
pub(crate) fn each_select(query: &Query, f: &mut dyn FnMut(&Select)) {
    struct Blocks<'f>(&'f mut dyn FnMut(&Select));
    impl Visitor for Blocks<'_> {
        type Break = ();
        fn pre_visit_query(&mut self, q: &Query) -> ControlFlow<()> {
            let mut selects = Vec::new();
            collect_selects(&q.body, &mut selects);
            for s in selects {
                (self.0)(s);
            }
            ControlFlow::Continue(())
        }
    }
    let _ = query.visit(&mut Blocks(f));
}

/// The terms of a condition joined by any of `ops` (through parentheses).
fn terms<'e>(e: &'e Expr, ops: &[BinaryOperator]) -> Vec<&'e Expr> {
    match e {
        Expr::BinaryOp { left, op, right } if ops.contains(op) => {
            let mut v = terms(left, ops);
            v.extend(terms(right, ops));
            v
        }
        Expr::Nested(inner) => terms(inner, ops),
        other => vec![other],
    }
}

pub(crate) fn conjuncts(e: &Expr) -> Vec<&Expr> {
    terms(e, &[BinaryOperator::And])
}

/// `OR` or `IN` in a join condition (outside subqueries), by name.
fn or_or_in(e: &Expr) -> Option<&'static str> {
    match e {
        Expr::BinaryOp { op: BinaryOperator::Or, .. } => Some("OR"),
        Expr::InList { .. } | Expr::InSubquery { .. } => Some("IN"),
        Expr::BinaryOp { left, right, .. } => or_or_in(left).or_else(|| or_or_in(right)),
        Expr::Nested(inner) | Expr::UnaryOp { expr: inner, .. } => or_or_in(inner),
        _ => None,
    }
}

/// The terms of `a = b OR c = d …` when every term equates columns of two different relations
/// in scope; `None` for any other condition (or one without OR).
fn alternative_keys<'e>(on: &'e Expr, aliases: &BTreeMap<String, RelName>, catalog: &Catalog) -> Option<Vec<&'e Expr>> {
    let t = terms(on, &[BinaryOperator::Or]);
    let equates_columns = |e: &Expr| match e {
        Expr::BinaryOp { left, op: BinaryOperator::Eq, right } => {
            matches!((column_of(left, aliases, catalog), column_of(right, aliases, catalog)), (Some((ra, _)), Some((rb, _))) if ra != rb)
        }
        _ => false,
    };
    (t.len() > 1 && t.iter().all(|e| equates_columns(e))).then_some(t)
}

pub(crate) fn join_condition(op: &JoinOperator) -> Option<&Expr> {
    match op {
        JoinOperator::Join(JoinConstraint::On(e))
        | JoinOperator::Inner(JoinConstraint::On(e))
        | JoinOperator::Left(JoinConstraint::On(e))
        | JoinOperator::LeftOuter(JoinConstraint::On(e))
        | JoinOperator::Right(JoinConstraint::On(e))
        | JoinOperator::RightOuter(JoinConstraint::On(e))
        | JoinOperator::FullOuter(JoinConstraint::On(e)) => Some(e),
        _ => None,
    }
}

/// [`join_condition`], to rewrite.
pub(crate) fn join_condition_mut(op: &mut JoinOperator) -> Option<&mut Expr> {
    match op {
        JoinOperator::Join(JoinConstraint::On(e))
        | JoinOperator::Inner(JoinConstraint::On(e))
        | JoinOperator::Left(JoinConstraint::On(e))
        | JoinOperator::LeftOuter(JoinConstraint::On(e))
        | JoinOperator::Right(JoinConstraint::On(e))
        | JoinOperator::RightOuter(JoinConstraint::On(e))
        | JoinOperator::FullOuter(JoinConstraint::On(e)) => Some(e),
        _ => None,
    }
}

fn check_joins(select: &Select, catalog: &Catalog, out: &mut Vec<Finding>) {
    let aliases = aliases(select, catalog);
    for t in &select.from {
        for j in &t.joins {
            let Some(on) = join_condition(&j.join_operator) else { continue };
            // an OR of column equalities across the two tables joins on either of two keys (an
            // airport as the source or the destination of a flight): each must be a key
            let alternatives = alternative_keys(on, &aliases, catalog);
            if alternatives.is_none() {
                if let Some(what) = or_or_in(on) {
                    out.push(finding(
                        "join",
                        Severity::Repair,
                        format!("the join condition `{on}` uses {what}: join on the key columns and put alternatives in WHERE"),
                    ));
                    continue;
                }
            }
            for c in alternatives.unwrap_or_else(|| conjuncts(on)) {
                let Expr::BinaryOp { left, op: BinaryOperator::Eq, right } = c else { continue };
                let (Some((ra, ca)), Some((rb, cb))) = (column_of(left, &aliases, catalog), column_of(right, &aliases, catalog)) else {
                    continue;
                };
                if ra == rb {
                    continue;
                }
                let keys: Vec<_> = catalog.keys_between(&ra, &rb).collect();
                if keys.is_empty() {
                    if let Some(message) = ids_of_different_things(c, (&ra, &ca), (&rb, &cb), catalog) {
                        out.push(finding("join", Severity::Repair, message));
                    }
                    continue;
                }
                if names_the_key(&ra, &ca, &rb, &cb, catalog) {
                    continue;
                }
                let on_key = keys.iter().any(|fk| {
                    fk.from_columns.iter().zip(&fk.to_columns).any(|(f, t)| {
                        (fk.from == ra && *f == ca && fk.to == rb && *t == cb) || (fk.from == rb && *f == cb && fk.to == ra && *t == ca)
                    })
                });
                if !on_key {
                    let fk = keys[0];
                    let pairs: Vec<String> =
                        fk.from_columns.iter().zip(&fk.to_columns).map(|(f, t)| format!("{}.{f} = {}.{t}", fk.from.name, fk.to.name)).collect();
                    out.push(finding(
                        "join",
                        Severity::Repair,
                        format!("`{c}` joins {} and {} on columns that are not their foreign key; join on {}", ra.name, rb.name, pairs.join(" AND ")),
                    ));
                }
            }
        }
    }
}

/// The thing a column identifies: the table whose rows its values name. A column of a
/// single-column foreign key names the rows of the table it references (followed on, so the key
/// of a table that is itself a reference to another names that other's rows); a table's
/// single-column primary key names its own rows. Any other column identifies nothing.
fn identified_by(rel: &RelName, column: &str, catalog: &Catalog) -> Option<RelName> {
    let (mut table, mut column) = (rel.clone(), column.to_string());
    let mut referenced = None;
    // a chain of references is short; the bound stops a cycle of keys
    for _ in 0..8 {
        let next = catalog.foreign_keys.iter().find(|fk| {
            fk.from == table && fk.from_columns.len() == 1 && fk.from_columns[0].eq_ignore_ascii_case(&column) && fk.to != table
        });
        match next {
            Some(fk) => {
                referenced = Some(fk.to.clone());
                (table, column) = (fk.to.clone(), fk.to_columns[0].clone());
            }
            None => break,
        }
    }
    referenced.or_else(|| {
        catalog.table(rel).filter(|t| t.primary_key.len() == 1 && t.primary_key[0].eq_ignore_ascii_case(column.as_str())).map(|_| rel.clone())
    })
}

/// `a.ca = b.cb` joining two tables no foreign key connects, when each column identifies a thing
/// ([`identified_by`]) and the two things differ (`channel.channel_id = program.program_id`,
/// `artists.id = customers.support_rep_id`): a channel's number equal to a program's says nothing
/// of either, so the rows it pairs are chance. The finding names the tables that link the two, when
/// the foreign keys connect them through others.
fn ids_of_different_things(condition: &Expr, (ra, ca): (&RelName, &str), (rb, cb): (&RelName, &str), catalog: &Catalog) -> Option<String> {
    let (ea, eb) = (identified_by(ra, ca, catalog)?, identified_by(rb, cb, catalog)?);
    if ea == eb {
        return None;
    }
    let how = match Catalog::fk_path(&catalog.fk_graph(), ra, rb) {
        Some(p) if p.len() > 2 => format!(
            "the foreign keys link them through {}",
            p[1..p.len() - 1].iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(" and ")
        ),
        _ => "no foreign key links them: read each from its own table, or say the question needs what links them".to_string(),
    };
    Some(format!(
        "`{condition}` equates the ids of two different things ({}.{ca} identifies a row of {}, {}.{cb} a row of {}), so the rows it pairs are chance; {how}",
        ra.name, ea.name, rb.name, eb.name
    ))
}

/// Is `a.ca = b.cb` a join on one table's primary key by the column of the other that bears its
/// name and the table's, where no foreign key is declared for it (`film.language_id =
/// language.language_id` when only `film.original_language_id` references `language`)? A bare
/// `id` or a key of several columns is no such evidence.
fn names_the_key(a: &RelName, ca: &str, b: &RelName, cb: &str, catalog: &Catalog) -> bool {
    if !ca.eq_ignore_ascii_case(cb) {
        return false;
    }
    let column = ca.to_lowercase();
    let declared = |from: &RelName, col: &str| catalog.foreign_keys.iter().any(|fk| fk.from == *from && fk.from_columns.iter().any(|f| f == col));
    [(a, ca, b, cb), (b, cb, a, ca)].into_iter().any(|(owner, col, other, other_col)| {
        catalog.table(owner).is_some_and(|t| t.primary_key.len() == 1 && t.primary_key[0] == col)
            && column.contains(&owner.name.to_lowercase())
            && column != owner.name.to_lowercase()
            && !declared(other, other_col)
    })
}

/// Does the question name what `e` computes? A column by any word of its name (a question word and
/// a name word sharing their first four letters, or the name word containing them; equal when
/// shorter); a count by "how many",
/// "number", "count"; another aggregate by its argument's column or the aggregate's own words.
fn named_in_question(e: &Expr, question: &str) -> bool {
    let mentions = |name: &str| question_names(question, name);
    match e {
        Expr::Identifier(i) => mentions(&i.value),
        Expr::CompoundIdentifier(parts) => parts.last().is_some_and(|i| mentions(&i.value)),
        Expr::Nested(inner) => named_in_question(inner, question),
        Expr::Function(f) => {
            let name = f.name.to_string().to_lowercase();
            let own: &[&str] = match name.as_str() {
                "count" => &["how many", "number", "count", "total"],
                "sum" => &["total", "sum", "overall"],
                "avg" => &["average", "mean"],
                "max" => &["maximum", "highest", "max"],
                "min" => &["minimum", "lowest", "min"],
                _ => &[],
            };
            if own.iter().any(|w| question.contains(w)) {
                return true;
            }
            // the column an aggregate reads, by a word of its name other than "id": counting
            // `student_id` counts students, which "the name and the id" does not ask for
            let mut named = false;
            let _ = e.visit(&mut ColumnNames(|c: &str| {
                let words: Vec<&str> = c.split(|ch: char| !ch.is_alphanumeric()).filter(|t| !t.is_empty() && !t.eq_ignore_ascii_case("id")).collect();
                named |= mentions(&words.join("_"))
            }));
            named || !AGGREGATES.contains(&name.as_str())
        }
        // an expression (arithmetic, CASE, a cast) is not judged
        _ => true,
    }
}

/// Does the question name `name` (a column's or a table's)? A word of the name shares its first
/// four letters with a word of the question, or a name written as one word holds it ("areas"
/// names surfacearea); a short name also by its plural ("ages" names age). The question's words
/// are compared as written.
pub(crate) fn question_names(question: &str, name: &str) -> bool {
    let words: Vec<&str> = question.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let stem = |w: &str| w.chars().take(4).collect::<String>();
    name.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|t| t.len() >= 2).any(|t| {
        words.iter().any(|w| {
            if t.len() < 4 || w.len() < 4 {
                *w == t || w.strip_suffix('s').is_some_and(|s| s == t || s.strip_suffix('e') == Some(t))
            } else {
                stem(w) == stem(t) || t.contains(&stem(w))
            }
        })
    })
}

/// Calls back with each column name an expression reads.
struct ColumnNames<F: FnMut(&str)>(F);

impl<F: FnMut(&str)> Visitor for ColumnNames<F> {
    type Break = ();
    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        match e {
            Expr::Identifier(i) => (self.0)(&i.value),
            Expr::CompoundIdentifier(parts) => {
                if let Some(i) = parts.last() {
                    (self.0)(&i.value)
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// The string comparisons `literal` judges: all but the date literals on text columns, which
/// `time` judges against the stored layout.
pub(crate) fn literal_comparisons(query: &Query, catalog: &Catalog) -> Vec<literals::Literal> {
    let dates = time::comparisons(query, catalog);
    literals::comparisons(query, catalog)
        .into_iter()
        .filter(|l| !dates.iter().any(|d| d.text && d.table == l.rel && d.column == l.column && d.literal == l.value))
        .collect()
}

/// The checks that read every SELECT block (set operations and subqueries included) and no data:
/// conditions no row meets, aggregates compared by a set operation, extremes over unfiltered
/// rows, aggregates that compute nothing (keys summed, counts of one-row groups), rows excluded
/// where things are.
fn conditions(query: &Query, catalog: &Catalog, question: &str) -> Vec<Finding> {
    let mut out = contradiction::check(query, catalog);
    out.extend(shape::aggregate_set_operation(query));
    out.extend(extreme_scope::check(query));
    out.extend(degenerate::check(query, catalog));
    out.extend(exclusion::check(query, catalog, question));
    out
}

/// Joins the answer takes nothing from, when the data shows they change its rows. Whether the
/// question names a table is read in English only: another language names nothing, so nothing is
/// judged.
fn needless_joins(query: &Query, catalog: &Catalog, question: &str, observed: &Observed) -> Option<Finding> {
    if observed.needless_join_differs != Some(true) || !crate::lexicon::reads_english(question) {
        return None;
    }
    needless_join::needless(query, catalog, question).map(|n| finding("needless_join", Severity::Repair, n.message()))
}

/// Every finding for `query`, given the question (for the `select` checker), the catalog, and what
/// the caller read of the data ([`needs`]: stored layouts for `time`, NULLs for `null_order`).
pub fn check(query: &Query, catalog: &Catalog, question: &str, observed: &Observed) -> Vec<Finding> {
    let mut out = Vec::new();
    let SetExpr::Select(select) = &*query.body else {
        // a set operation: what holds in every block
        if crate::lexicon::reads_english(question) {
            out.extend(filter_table::misread(query, catalog, question).into_iter().map(|m| finding("filter_table", Severity::Repair, m.message())));
        }
        out.extend(needless_joins(query, catalog, question, observed));
        out.extend(conditions(query, catalog, question));
        out.extend(literals::check(&literal_comparisons(query, catalog), &observed.stored, question));
        return out;
    };
    let english = crate::lexicon::reads_english(question);
    // 1. joins, and a condition read from a joined table instead of the answer's own
    check_joins(select, catalog, &mut out);
    if english {
        out.extend(filter_table::misread(query, catalog, question).into_iter().map(|m| finding("filter_table", Severity::Repair, m.message())));
    }
    out.extend(needless_joins(query, catalog, question, observed));
    if observed.both_differs == Some(true) {
        out.extend(both::either(query, question).map(|b| finding("both", Severity::Repair, b.message())));
    }
    // 2. ORDER BY on one aggregated row
    let grouped = grouped(select);
    let aggregated = projects_aggregate(select);
    let order_items: Vec<&sqlparser::ast::OrderByExpr> = match query.order_by.as_ref().map(|o| &o.kind) {
        Some(OrderByKind::Expressions(items)) => items.iter().collect(),
        _ => vec![],
    };
    if aggregated && !grouped && !order_items.is_empty() {
        out.push(finding(
            "order_by",
            Severity::Repair,
            "the query aggregates all rows into one, so ORDER BY/LIMIT choose nothing: to find the entity with the \
             most or least, GROUP BY the entity, ORDER BY the aggregate and LIMIT"
                .into(),
        ));
    }
    // 2b. the direction a superlative asks for, against the ranking or MAX/MIN
    out.extend(direction::check(query, catalog, question));
    // 2c. the answer's shape, and a count a join inflates (only when the data shows it)
    out.extend(shape::shape(query, question));
    if observed.fan_out_differs == Some(true) {
        out.extend(shape::fan_out(query, catalog, question).map(|f| finding("fan_out", Severity::Repair, f.message)));
    }
    // 3. conditions no row meets; date literals against the stored layout; string literals the
    // column does not hold
    out.extend(conditions(query, catalog, question));
    out.extend(time::check(&time::comparisons(query, catalog), &observed.values));
    out.extend(literals::check(&literal_comparisons(query, catalog), &observed.stored, question));
    // 4. a table's name returned as a column (its whole row, one record); SELECT *, when an
    // English question does not ask for every column (the trigger is the absence of words:
    // another language is not judged)
    out.extend(columns::whole_rows(query, catalog));
    let wants_all = crate::lexicon::asks_whole_rows(question);
    if english && !wants_all && select.projection.iter().any(|i| matches!(i, SelectItem::Wildcard(_))) {
        out.push(finding("select", Severity::Repair, "SELECT * returns every column: select only the columns the question asks for".into()));
    }
    // 4b. columns the question does not ask for (read in English only: what a question does not
    // name is judged only where its words can be read), and fewer columns than it asks for
    if english {
        out.extend(columns::unasked(query, catalog, question));
    }
    out.extend(columns::missing(query, question));
    // 4c. the names of a table's things asked, another of its columns returned
    if english {
        out.extend(columns::name_not_returned(query, catalog, question));
    }
    // 4d. an attribute a column of a table read holds asked for, other columns returned (once
    // per problem: not beside `name`, nor beside `attributes`, which says a column is missing)
    if english && !out.iter().any(|f| f.checker == "name" || f.checker == "attributes") {
        out.extend(columns::attribute_not_returned(query, catalog, question));
    }
    // 5. NULLs first under DESC, when the column may (or, where the data was read, does) hold NULLs
    for (rel, col, expr) in desc_nullable_keys(query, catalog) {
        if observed.holds_nulls.get(&(rel.clone(), col.clone())) == Some(&false) {
            continue;
        }
        out.push(finding(
            "null_order",
            Severity::Repair,
            format!(
                "{}.{col} holds NULLs and PostgreSQL sorts NULLs first under DESC: write ORDER BY {expr} DESC NULLS LAST (or filter IS NOT NULL)",
                rel.name
            ),
        ));
    }
    // 6. ties under LIMIT 1
    let limit_one = matches!(&query.limit_clause, Some(sqlparser::ast::LimitClause::LimitOffset { limit: Some(Expr::Value(v)), .. }) if v.value.to_string() == "1");
    if limit_one && !order_items.is_empty() && !aggregated {
        out.push(finding(
            "max_min",
            Severity::Note,
            "ORDER BY … LIMIT 1 keeps one row when several share the extreme value; `= (SELECT max(…))` keeps them all".into(),
        ));
    }
    out
}

/// Findings on a result: every cell NULL (an aggregate over no rows, or a join that matched nothing).
pub fn result_findings(rows: &[Vec<serde_json::Value>]) -> Vec<Finding> {
    if !rows.is_empty() && rows.iter().all(|r| r.iter().all(serde_json::Value::is_null)) {
        vec![finding(
            "result",
            Severity::Repair,
            "every value of the result is NULL: a filter or join matches nothing, or the aggregate runs over no rows; check the values against the data".into(),
        )]
    } else {
        vec![]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, ForeignKey, RelKind, Table};
    use crate::sql::check_query;

    pub(crate) fn catalog() -> Catalog {
        let col = |n: &str, nullable: bool| Column { name: n.into(), type_name: "integer".into(), nullable, comment: None };
        Catalog {
            tables: vec![
                Table {
                    name: RelName::new("public", "authors"),
                    kind: RelKind::Table,
                    comment: None,
                    row_estimate: None,
                    columns: vec![col("author_id", false), col("name", false), col("born", true)],
                    primary_key: vec!["author_id".into()],
                },
                Table {
                    name: RelName::new("public", "books"),
                    kind: RelKind::Table,
                    comment: None,
                    row_estimate: None,
                    columns: vec![col("book_id", false), col("author_id", false), col("price", false), col("pages", true)],
                    primary_key: vec!["book_id".into()],
                },
            ],
            foreign_keys: vec![ForeignKey {
                name: "books_author_id_fkey".into(),
                from: RelName::new("public", "books"),
                from_columns: vec!["author_id".into()],
                to: RelName::new("public", "authors"),
                to_columns: vec!["author_id".into()],
            }],
            ..Default::default()
        }
    }

    fn fired(sql: &str, question: &str) -> Vec<&'static str> {
        check(&check_query(sql).unwrap().query, &catalog(), question, &Observed::default()).iter().map(|f| f.checker).collect()
    }

    #[test]
    fn each_checker_fires_on_its_bad_sql() {
        assert_eq!(fired("SELECT a.name FROM authors a JOIN books b ON b.book_id = a.author_id", "q"), vec!["join"]);
        assert_eq!(fired("SELECT a.name FROM authors a JOIN books b ON b.author_id = a.author_id OR b.price > 3", "q"), vec!["join"]);
        assert_eq!(fired("SELECT a.name FROM authors a JOIN books b ON b.author_id IN (a.author_id, a.born)", "q"), vec!["join"]);
        // either of two column equalities: each is judged as a key
        assert_eq!(fired("SELECT a.name FROM authors a JOIN books b ON b.author_id = a.author_id OR b.book_id = a.author_id", "q"), vec!["join"]);
        assert_eq!(fired("SELECT count(*) FROM books ORDER BY count(*) DESC LIMIT 1", "which author has most books"), vec!["order_by"]);
        assert_eq!(fired("SELECT * FROM books", "which books are cheap"), vec!["select"]);
        assert_eq!(fired("SELECT name, born FROM authors ORDER BY born NULLS LAST LIMIT 1", "Who is the oldest author?"), vec!["columns", "max_min"]);
        assert_eq!(
            fired("SELECT a.name, count(*) FROM authors a JOIN books b ON b.author_id = a.author_id GROUP BY a.name ORDER BY count(*) DESC LIMIT 1", "Which author wrote the most books?"),
            vec!["columns"]
        );
        assert_eq!(fired("SELECT name FROM authors ORDER BY born DESC LIMIT 3", "the 3 youngest authors"), vec!["null_order"]);
        let notes = check(&check_query("SELECT name FROM authors ORDER BY author_id DESC LIMIT 1").unwrap().query, &catalog(), "q", &Observed::default());
        assert_eq!(notes.iter().map(|f| (f.checker, f.severity)).collect::<Vec<_>>(), vec![("max_min", Severity::Note)]);
        assert_eq!(result_findings(&[vec![serde_json::Value::Null]])[0].checker, "result");
    }

    #[test]
    fn a_tables_name_returned_as_a_column_is_its_whole_row() {
        let whole = |sql: &str| columns::whole_rows(&check_query(sql).unwrap().query, &catalog()).into_iter().map(|f| f.message).collect::<Vec<_>>();
        // the table's name, alone or under an output name, in a block or a subquery's
        let m = whole("SELECT DISTINCT authors FROM authors WHERE name = 'Ivy League'");
        assert_eq!(m.len(), 1);
        assert!(m[0].starts_with("`authors` in the SELECT list is the table authors itself") && m[0].contains("authors has author_id, name"), "{m:?}");
        assert_eq!(whole("SELECT a AS author FROM authors a").len(), 1);
        assert_eq!(whole("SELECT title FROM books WHERE author_id IN (SELECT authors FROM authors)").len(), 1);
        assert_eq!(fired("SELECT authors FROM authors", "Which authors are there?"), vec!["whole_row"]);
        // a column of that name, an alias that hides the table's name, a derived table, a column
        // qualified: no whole row
        assert!(whole("SELECT name FROM authors").is_empty());
        assert!(whole("SELECT authors FROM authors a").is_empty());
        assert!(whole("SELECT t FROM (SELECT name AS t FROM authors) t").is_empty());
        assert!(whole("SELECT authors.name FROM authors").is_empty());
    }

    #[test]
    fn a_join_on_either_of_two_keys_is_a_join_on_keys() {
        let col = |n: &str| Column { name: n.into(), type_name: "text".into(), nullable: false, comment: None };
        let table = |n: &str, cols: &[&str]| Table {
            name: RelName::new("public", n),
            kind: RelKind::Table,
            comment: None,
            row_estimate: None,
            columns: cols.iter().map(|c| col(c)).collect(),
            primary_key: vec![cols[0].into()],
        };
        let fk = |c: &str| ForeignKey {
            name: format!("flights_{c}_fkey"),
            from: RelName::new("public", "flights"),
            from_columns: vec![c.into()],
            to: RelName::new("public", "airports"),
            to_columns: vec!["code".into()],
        };
        let catalog = Catalog {
            tables: vec![table("airports", &["code", "city"]), table("flights", &["flight_no", "source", "dest"])],
            foreign_keys: vec![fk("source"), fk("dest")],
            ..Default::default()
        };
        let fired = |sql: &str| -> Vec<&'static str> {
            check(&check_query(sql).unwrap().query, &catalog, "q", &Observed::default()).iter().map(|f| f.checker).collect()
        };
        assert!(fired("SELECT a.code FROM airports a JOIN flights f ON a.code = f.source OR a.code = f.dest").is_empty());
        assert_eq!(fired("SELECT a.code FROM airports a JOIN flights f ON a.code = f.source OR a.code = f.flight_no"), ["join"]);
        assert_eq!(fired("SELECT a.code FROM airports a JOIN flights f ON a.code = f.source OR a.city = 'x'"), ["join"]);
    }

    #[test]
    fn a_join_on_the_key_a_column_is_named_after_needs_no_declared_key() {
        let col = |n: &str| crate::catalog::Column { name: n.into(), type_name: "integer".into(), nullable: true, comment: None };
        let table = |n: &str, cols: &[&str], key: &[&str]| crate::catalog::Table {
            name: RelName::new("public", n),
            kind: crate::catalog::RelKind::Table,
            comment: None,
            row_estimate: None,
            columns: cols.iter().map(|c| col(c)).collect(),
            primary_key: key.iter().map(|k| k.to_string()).collect(),
        };
        // only the original language is declared as a key of films
        let catalog = Catalog {
            tables: vec![
                table("language", &["language_id", "name"], &["language_id"]),
                table("film", &["film_id", "title", "language_id", "original_language_id", "id"], &["film_id"]),
                table("item", &["id", "name"], &["id"]),
            ],
            foreign_keys: vec![crate::catalog::ForeignKey {
                name: "film_original_language_id_fkey".into(),
                from: RelName::new("public", "film"),
                from_columns: vec!["original_language_id".into()],
                to: RelName::new("public", "language"),
                to_columns: vec!["language_id".into()],
            }],
            ..Default::default()
        };
        let fired = |sql: &str| -> Vec<&'static str> {
            check(&check_query(sql).unwrap().query, &catalog, "q", &Observed::default()).iter().map(|f| f.checker).collect()
        };
        assert!(fired("SELECT l.name FROM film f JOIN language l ON f.language_id = l.language_id").is_empty());
        assert!(fired("SELECT l.name FROM film f JOIN language l ON f.original_language_id = l.language_id").is_empty());
        // another column, or a bare id, is still no key
        assert_eq!(fired("SELECT l.name FROM film f JOIN language l ON f.film_id = l.language_id"), ["join"]);
        assert_eq!(fired("SELECT l.name FROM film f JOIN language l ON f.id = l.language_id"), ["join"]);
    }

    #[test]
    fn a_join_of_two_things_ids_no_key_connects_is_chance() {
        let table = |n: &str, cols: &[&str], key: &[&str]| crate::catalog::Table {
            primary_key: key.iter().map(|k| k.to_string()).collect(),
            ..crate::testing::table(n, &cols.iter().map(|c| (*c, "integer")).collect::<Vec<_>>(), key[0])
        };
        let fk = |from: &str, c: &str, to: &str, tc: &str| crate::catalog::ForeignKey {
            name: format!("{from}_{c}_fkey"),
            from: RelName::new("public", from),
            from_columns: vec![c.into()],
            to: RelName::new("public", to),
            to_columns: vec![tc.into()],
        };
        // channels and programs meet in broadcasts; customers have a support rep among the staff;
        // a premium customer is a customer; a sale names its customer without a declared key
        let catalog = Catalog {
            tables: vec![
                table("channel", &["channel_id", "name", "owner"], &["channel_id"]),
                table("program", &["program_id", "name", "origin"], &["program_id"]),
                table("broadcast", &["channel_id", "program_id", "time_of_day"], &["channel_id", "program_id"]),
                table("staff", &["id", "name"], &["id"]),
                table("customer", &["id", "support_rep_id", "country"], &["id"]),
                table("premium", &["customer_id", "level"], &["customer_id"]),
                table("sale", &["sale_id", "customer_id", "amount"], &["sale_id"]),
            ],
            foreign_keys: vec![
                fk("broadcast", "channel_id", "channel", "channel_id"),
                fk("broadcast", "program_id", "program", "program_id"),
                fk("customer", "support_rep_id", "staff", "id"),
                fk("premium", "customer_id", "customer", "id"),
            ],
            ..Default::default()
        };
        let findings = |sql: &str| check(&check_query(sql).unwrap().query, &catalog, "q", &Observed::default());
        let joins = |sql: &str| findings(sql).into_iter().filter(|f| f.checker == "join").map(|f| f.message).collect::<Vec<_>>();
        // two tables' own ids: the finding names the table that links them
        let found = joins("SELECT c.name FROM channel c JOIN program p ON c.channel_id = p.program_id WHERE c.owner = 'HBS'");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("through broadcast"), "{}", found[0]);
        // a reference to one thing equated with the id of another
        assert_eq!(joins("SELECT c.country FROM program p JOIN customer c ON p.program_id = c.support_rep_id").len(), 1);
        // no foreign key path at all between them: said so
        let found = joins("SELECT c.country FROM channel h JOIN staff s ON h.channel_id = s.id");
        assert!(found.len() == 1 && found[0].contains("no foreign key links them"), "{found:?}");
        // the same thing on both sides is a join on it, declared or not: a premium customer is a
        // customer, and a customer's support rep is a member of staff
        assert!(joins("SELECT c.country FROM premium p JOIN customer c ON p.customer_id = c.id").is_empty());
        assert!(joins("SELECT s.name FROM staff s JOIN premium p ON s.id = p.customer_id").len() == 1);
        assert!(joins("SELECT s.name FROM customer c JOIN staff s ON c.support_rep_id = s.id").is_empty());
        // a column that identifies nothing declared is not judged: no key says what it names
        assert!(joins("SELECT s.amount FROM sale s JOIN customer c ON s.customer_id = c.id").is_empty());
        assert!(joins("SELECT s.amount FROM sale s JOIN program p ON s.customer_id = p.program_id").is_empty());
    }

    #[test]
    fn checkers_stay_silent_on_good_sql() {
        for sql in [
            "SELECT a.name FROM authors a JOIN books b ON b.author_id = a.author_id WHERE b.price > 3",
            "SELECT a.name FROM authors AS a JOIN books ON books.author_id = a.author_id",
            "SELECT author_id FROM books GROUP BY author_id ORDER BY count(*) DESC LIMIT 3",
            "SELECT name FROM authors ORDER BY born DESC NULLS LAST LIMIT 3",
            "SELECT name FROM authors ORDER BY born LIMIT 3",
            "SELECT count(*) FROM books",
            "SELECT name FROM authors ORDER BY born NULLS LAST LIMIT 3",
        ] {
            assert!(fired(sql, "q").is_empty(), "{sql}: {:?}", fired(sql, "q"));
        }
        assert!(fired("SELECT * FROM books", "Show all information about books").is_empty());
        // a nullable column that holds no NULL: sorting DESC is safe
        let q = check_query("SELECT name FROM authors ORDER BY born DESC LIMIT 3").unwrap().query;
        assert_eq!(needs(&q, &catalog(), "q").nulls, vec![(RelName::new("public", "authors"), "born".to_string())]);
        let mut seen = Observed::default();
        seen.holds_nulls.insert((RelName::new("public", "authors"), "born".into()), false);
        assert!(check(&q, &catalog(), "the 3 youngest authors", &seen).is_empty());
        seen.holds_nulls.insert((RelName::new("public", "authors"), "born".into()), true);
        assert_eq!(check(&q, &catalog(), "the 3 youngest authors", &seen)[0].checker, "null_order");
        // the ranking key, when the question asks for it
        assert!(fired("SELECT name, born FROM authors ORDER BY born NULLS LAST LIMIT 3", "Name and year born of the 3 oldest authors").is_empty());
        assert!(named_in_question(&Expr::Identifier("surfacearea".into()), "names and areas of the largest countries"));
        let q = "Which author wrote the most books, and how many?";
        assert_eq!(fired("SELECT a.name, count(*) FROM authors a JOIN books b ON b.author_id = a.author_id GROUP BY a.name ORDER BY count(*) DESC LIMIT 1", q), Vec::<&str>::new());
        // "the highest total price" says how to rank, not what to show
        assert_eq!(fired("SELECT author_id, sum(price) FROM books GROUP BY author_id ORDER BY sum(price) DESC LIMIT 2", "the 2 authors with the highest total price"), vec!["columns"]);
        assert_eq!(fired("SELECT author_id, sum(price) FROM books GROUP BY author_id ORDER BY sum(price) DESC LIMIT 2", "the 2 authors with the highest total price, and that total"), Vec::<&str>::new());
        assert!(result_findings(&[vec![serde_json::json!(1), serde_json::Value::Null]]).is_empty());
        assert!(result_findings(&[]).is_empty());
    }
}
