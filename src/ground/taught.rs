//! What the people who curate a database taught nl2sql about it: verified question/SQL pairs
//! (`nl2sql.examples`, from `nl2sql_teach` and `nl2sql_feedback`) and a glossary of business
//! terms (`nl2sql.glossary`, from `nl2sql_define`). Every generation reads the verified examples
//! nearest to the question and the glossary entries the question mentions, under a token budget,
//! and only those whose SQL reads tables the caller may SELECT.

use serde::Serialize;

use crate::catalog::Catalog;
use crate::context::estimate_tokens;
use crate::ground::link;
use crate::select::rewrite;
use crate::sql::check_query;

/// A verified question/SQL pair, as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Example {
    pub id: i64,
    pub question: String,
    pub sql: String,
    /// Cosine distance between the embeddings of the stored question and the asked one, as
    /// written: 0 is the same wording.
    pub distance: f64,
}

/// A glossary entry: a business term, its meaning in this database, and the SQL expression it
/// stands for when it is one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Term {
    pub term: String,
    pub meaning: String,
    pub sql: Option<String>,
}

/// What a generation is shown of what was taught.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Taught {
    pub examples: Vec<Example>,
    pub terms: Vec<Term>,
}

/// How many examples and terms a prompt shows, at most, and in how many tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TaughtLimits {
    pub examples: usize,
    /// Examples farther than this from the question are not shown (cosine distance).
    pub max_distance: f64,
    pub token_budget: usize,
}

impl TaughtLimits {
    pub fn new(examples: usize) -> Self {
        TaughtLimits { examples, max_distance: MAX_DISTANCE, token_budget: TOKEN_BUDGET }
    }
}

/// Examples farther than this from the question are not shown (all-MiniLM-L6-v2, cosine distance
/// of the questions as written). Tuned on spider_train: shown three loosely related examples a
/// question (masked distance up to 0.6), the 1.5B model merged them (a UNION of two examples'
/// queries) and two databases' questions were right 9 times in 30 instead of 19 (Benchmark 11);
/// on 30 other databases, the nearest example within 0.15 answered with the same query 61 times
/// in 100, within 0.2 87 in 159: the closer cut, for an example that is the question asked again.
pub const MAX_DISTANCE: f64 = 0.15;

/// The cosine distance of two embeddings (1 for a zero vector).
pub fn cosine_distance(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum();
    let norm = |v: &[f32]| v.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    let (na, nb) = (norm(a), norm(b));
    if na == 0.0 || nb == 0.0 {
        1.0
    } else {
        1.0 - dot / (na * nb)
    }
}

/// Tokens of examples and glossary entries one prompt may carry.
pub const TOKEN_BUDGET: usize = 700;

/// Whether every table `sql` reads is one the caller can see (`catalog` is what they may SELECT):
/// an example or a term over a table they cannot read is never shown to them.
pub fn reads_only_visible_tables(sql: &str, catalog: &Catalog) -> bool {
    check_query(sql).is_ok_and(|c| {
        let rels = rewrite::base_relations(&c.query);
        let linked = link::referenced(&c.query, catalog);
        !rels.is_empty() && linked.tables.len() == rels.len()
    })
}

/// A glossary expression as a query, `SELECT <expr>`, parsed; `None` when it is not one
/// expression (or holds a statement of another kind).
pub fn parse_expression(expr: &str) -> Option<sqlparser::ast::Query> {
    use sqlparser::ast::{SetExpr, Statement};
    let statements = sqlparser::parser::Parser::parse_sql(&sqlparser::dialect::PostgreSqlDialect {}, &format!("SELECT {expr}")).ok()?;
    match statements.as_slice() {
        [Statement::Query(q)] => match &*q.body {
            SetExpr::Select(s) if s.projection.len() == 1 && s.from.is_empty() => Some((**q).clone()),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a glossary expression reads only what the caller can see (`catalog` is what they may
/// SELECT): every `table.column` it writes names a visible column of a visible table, and every
/// table its subqueries read is visible. A term over a table they cannot read is never shown to them.
pub fn expression_is_visible(expr: &str, catalog: &Catalog) -> bool {
    use sqlparser::ast::{visit_expressions, Expr};
    use std::ops::ControlFlow;
    let Some(query) = parse_expression(expr) else { return false };
    let hidden_column = visit_expressions(&query, |e| match e {
        Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
            let column = &parts[parts.len() - 1].value;
            let table = &parts[parts.len() - 2].value;
            let schema = (parts.len() >= 3).then(|| parts[parts.len() - 3].value.as_str());
            // the catalog holds only the columns the caller may SELECT
            if catalog.resolve(schema, table).is_some_and(|t| t.column(column).is_some()) {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            }
        }
        _ => ControlFlow::Continue(()),
    });
    let relations = rewrite::base_relations(&query);
    let linked = link::referenced(&query, catalog);
    hidden_column.is_continue() && linked.tables.len() == relations.len()
}

/// The glossary entries `question` mentions: the term's words in order, ignoring case, the last
/// one also in its plural ("active customers" mentions "active customer").
pub fn mentioned<'t>(terms: &'t [Term], question: &str) -> Vec<&'t Term> {
    let asked = words(question);
    terms
        .iter()
        .filter(|t| {
            let term = words(&t.term);
            !term.is_empty()
                && asked.windows(term.len()).any(|w| {
                    w.iter().zip(&term).enumerate().all(|(i, (a, b))| a == b || (i + 1 == term.len() && is_plural_of(a, b)))
                })
        })
        .collect()
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .map(|w| w.trim_matches(|c| c == '\'' || c == '-').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

fn is_plural_of(word: &str, singular: &str) -> bool {
    word.strip_suffix('s').is_some_and(|w| w == singular)
        || word.strip_suffix("es").is_some_and(|w| w == singular)
        || (singular.ends_with('y') && word.strip_suffix("ies").is_some_and(|w| singular.strip_suffix('y') == Some(w)))
}

/// What a prompt shows: the nearest examples (at most `limits.examples`, none farther than
/// `limits.max_distance`, each reading only visible tables and accepted by `plans`: PostgreSQL
/// plans it as the caller, so a column they may not SELECT, which the table check cannot see,
/// keeps it out) and the mentioned terms (each over visible columns), cut to the token budget:
/// terms first (the question names them), then examples nearest first.
pub fn select(
    examples: Vec<Example>,
    terms: &[Term],
    question: &str,
    catalog: &Catalog,
    limits: TaughtLimits,
    mut plans: impl FnMut(&str) -> bool,
) -> Taught {
    let mut used = 0;
    let mut fits = |text: &str| {
        let cost = estimate_tokens(text) + 2;
        if used + cost <= limits.token_budget {
            used += cost;
            true
        } else {
            false
        }
    };
    let terms: Vec<Term> = mentioned(terms, question)
        .into_iter()
        .filter(|t| t.sql.as_deref().is_none_or(|e| expression_is_visible(e, catalog)))
        .filter(|t| fits(&term_line(t)))
        .cloned()
        .collect();
    let mut examples: Vec<Example> = examples
        .into_iter()
        .filter(|e| e.distance <= limits.max_distance && reads_only_visible_tables(&e.sql, catalog))
        .collect();
    examples.sort_by(|a, b| a.distance.total_cmp(&b.distance).then(a.id.cmp(&b.id)));
    let mut shown = Vec::new();
    for e in examples {
        if shown.len() == limits.examples {
            break;
        }
        if plans(&e.sql) && fits(&example_text(&e)) {
            shown.push(e);
        }
    }
    Taught { examples: shown, terms }
}

fn term_line(t: &Term) -> String {
    match &t.sql {
        Some(sql) => format!("- {}: {} (in SQL: {sql})", t.term, t.meaning),
        None => format!("- {}: {}", t.term, t.meaning),
    }
}

fn example_text(e: &Example) -> String {
    format!("Question: {}\nSQL: {}", e.question, e.sql)
}

impl Taught {
    pub fn is_empty(&self) -> bool {
        self.examples.is_empty() && self.terms.is_empty()
    }

    /// The prompt text: the glossary entries, then the examples (nearest last, closest to the
    /// question); empty when nothing is shown. An example that asks the question again answers it
    /// without a prompt (`ground::same`), so the examples a prompt shows ask other things: they
    /// are shown for the schema's use, not to be copied (asked to use an example's SQL "changed
    /// only where the question differs", the 1.5B model lost 12 of the 16 Benchmark 11 questions
    /// whose answer at k = 20 an example shown changed, mostly by taking a near example's filter
    /// or shape: `learning_v4_adapt` and `learning_spider`).
    pub fn to_prompt(&self) -> String {
        let mut out = Vec::new();
        if !self.terms.is_empty() {
            let lines: Vec<String> = self.terms.iter().map(term_line).collect();
            out.push(format!("What terms mean in this database (use these meanings):\n{}", lines.join("\n")));
        }
        if !self.examples.is_empty() {
            let shown: Vec<String> = self.examples.iter().rev().map(example_text).collect();
            out.push(format!(
                "Verified questions of this database close to the question, with their SQL. They ask other things \
                 than the question: follow them for how the tables join and what the columns mean, and write the \
                 query the question itself asks for (its columns, filters, grouping and order):\n{}",
                shown.join("\n\n")
            ));
        }
        out.join("\n\n")
    }

    /// In words, for the explanation: which examples and terms were used.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.examples.is_empty() {
            let ids: Vec<String> = self.examples.iter().map(|e| format!("#{} \"{}\"", e.id, e.question)).collect();
            parts.push(format!("{} verified example{} ({})", ids.len(), if ids.len() == 1 { "" } else { "s" }, ids.join(", ")));
        }
        if !self.terms.is_empty() {
            let terms: Vec<String> = self.terms.iter().map(|t| format!("\"{}\"", t.term)).collect();
            parts.push(format!("glossary: {}", terms.join(", ")));
        }
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::table;

    fn shop() -> Catalog {
        Catalog {
            tables: vec![
                table("customers", &[("id", "integer"), ("name", "text"), ("city", "text")], "id"),
                table("orders", &[("id", "integer"), ("customer_id", "integer"), ("total", "numeric"), ("placed_at", "date")], "id"),
            ],
            foreign_keys: vec![],
            ..Default::default()
        }
    }

    fn example(id: i64, question: &str, sql: &str, distance: f64) -> Example {
        Example { id, question: question.into(), sql: sql.into(), distance }
    }

    fn term(term: &str, meaning: &str, sql: Option<&str>) -> Term {
        Term { term: term.into(), meaning: meaning.into(), sql: sql.map(str::to_string) }
    }

    #[test]
    fn cosine_distance_of_embeddings() {
        assert!(cosine_distance(&[1.0, 0.0], &[2.0, 0.0]).abs() < 1e-12);
        assert!((cosine_distance(&[1.0, 0.0], &[0.0, 3.0]) - 1.0).abs() < 1e-12);
        assert!((cosine_distance(&[1.0, 0.0], &[-1.0, 0.0]) - 2.0).abs() < 1e-12);
        assert_eq!(cosine_distance(&[0.0, 0.0], &[1.0, 0.0]), 1.0);
    }

    #[test]
    fn terms_are_mentioned_as_words_in_any_case_and_plural() {
        let terms = vec![
            term("active customer", "ordered in the last 90 days", None),
            term("revenue", "sum of order totals", Some("sum(orders.total)")),
            term("city", "where the customer lives", None),
            term("policy", "a rule", None),
        ];
        let names = |q: &str| mentioned(&terms, q).iter().map(|t| t.term.clone()).collect::<Vec<_>>();
        assert_eq!(names("How many Active Customers are there?"), vec!["active customer"]);
        assert_eq!(names("What was the revenue by city?"), vec!["revenue", "city"]);
        assert_eq!(names("List the policies"), vec!["policy"]);
        // a word inside another word, or the words apart, is no mention
        assert!(names("How many inactive customer accounts? Show the electricity use").is_empty());
        assert!(names("customers that are active").is_empty());
        // another language: nothing unless the term is written as such
        assert!(names("Wie viele aktive Kunden gibt es?").is_empty());
    }

    #[test]
    fn examples_are_the_nearest_visible_ones_under_the_limits() {
        let catalog = shop();
        let found = vec![
            example(3, "How many orders were placed?", "SELECT count(*) FROM orders", 0.14),
            example(1, "List the customers from Paris", "SELECT name FROM customers WHERE city = 'Paris'", 0.1),
            // a table the caller cannot see (not in their catalog)
            example(2, "What does each employee earn?", "SELECT salary FROM employees", 0.05),
            // about something else
            example(4, "Which city has the most customers?", "SELECT city FROM customers GROUP BY city ORDER BY count(*) DESC LIMIT 1", 0.3),
            // not a query
            example(5, "Delete the orders", "DELETE FROM orders", 0.0),
        ];
        let all = |_: &str| true;
        let taught = select(found.clone(), &[], "How many customers live in Lyon?", &catalog, TaughtLimits::new(3), all);
        assert_eq!(taught.examples.iter().map(|e| e.id).collect::<Vec<_>>(), vec![1, 3]);
        let one = select(found.clone(), &[], "q", &catalog, TaughtLimits::new(1), all);
        assert_eq!(one.examples.iter().map(|e| e.id).collect::<Vec<_>>(), vec![1]);
        assert!(select(found.clone(), &[], "q", &catalog, TaughtLimits::new(0), all).is_empty());
        // an example PostgreSQL will not plan for the caller (a column they may not read) gives
        // way to the next one
        let no_paris = select(found.clone(), &[], "q", &catalog, TaughtLimits::new(1), |sql: &str| !sql.contains("Paris"));
        assert_eq!(no_paris.examples.iter().map(|e| e.id).collect::<Vec<_>>(), vec![3]);
        // the token budget cuts what does not fit
        let tight = TaughtLimits { token_budget: 20, ..TaughtLimits::new(3) };
        assert_eq!(select(found, &[], "q", &catalog, tight, all).examples.len(), 1);
    }

    #[test]
    fn a_term_over_a_table_the_caller_cannot_see_is_not_shown() {
        let catalog = shop();
        let terms = vec![
            term("revenue", "sum of order totals", Some("sum(orders.total)")),
            term("payroll", "the salaries paid", Some("sum(employees.salary)")),
            term("big order", "an order over 100", Some("total > 100")),
            // a column of a visible table that the caller may not read (not in their catalog)
            term("margin", "what an order earns", Some("sum(orders.margin)")),
        ];
        let taught = select(vec![], &terms, "revenue, payroll, margin and big orders by city", &catalog, TaughtLimits::new(3), |_| true);
        assert_eq!(taught.terms.iter().map(|t| t.term.as_str()).collect::<Vec<_>>(), vec!["revenue", "big order"]);
    }

    #[test]
    fn the_prompt_and_the_explanation_name_what_was_used() {
        let taught = Taught {
            examples: vec![
                example(1, "List the customers from Paris", "SELECT name FROM customers WHERE city = 'Paris'", 0.1),
                example(3, "How many orders were placed?", "SELECT count(*) FROM orders", 0.2),
            ],
            terms: vec![term("revenue", "sum of order totals", Some("sum(orders.total)"))],
        };
        let prompt = taught.to_prompt();
        assert!(prompt.starts_with("What terms mean in this database"), "{prompt}");
        assert!(prompt.contains("- revenue: sum of order totals (in SQL: sum(orders.total))"), "{prompt}");
        // the nearest example comes last, next to the question
        let paris = prompt.find("Paris").unwrap();
        let placed = prompt.find("placed").unwrap();
        assert!(placed < paris, "{prompt}");
        assert_eq!(
            taught.describe(),
            "2 verified examples (#1 \"List the customers from Paris\", #3 \"How many orders were placed?\"); glossary: \"revenue\""
        );
        assert_eq!(Taught::default().to_prompt(), "");
        assert_eq!(Taught::default().describe(), "");
    }
}
