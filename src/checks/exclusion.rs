//! `exclusion`: "countries that do not speak English" answered by `SELECT countrycode FROM
//! countrylanguage WHERE language <> 'English'`. The table holds a row per (country, language), so
//! `<>` drops the English rows and keeps every country that speaks anything else, English
//! speakers included. When the question negates a verb ("do not", "never", "without") and a block
//! returns only the foreign key of a table whose primary key pairs it with more columns, a `<>`,
//! `NOT IN (…)` or `NOT LIKE` on another column of that table excludes rows, not the things the
//! key names: exclude with `NOT IN (SELECT key … WHERE column = value)` or `EXCEPT`.

use std::sync::LazyLock;

use regex::Regex;
use sqlparser::ast::{BinaryOperator, Expr, Query, Select, SelectItem};

use super::{aliases, column_of, conjuncts, each_select, finding, Finding, Severity};
use crate::catalog::Catalog;

static NEGATED_VERB: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(?:do|does|did) not\b|\b(?:don't|doesn't|didn't|never|without)\b").expect("compiles"));

fn findings_of_block(select: &Select, catalog: &Catalog, out: &mut Vec<Finding>) {
    let ([from], Some(w)) = (select.from.as_slice(), &select.selection) else { return };
    if !from.joins.is_empty() {
        return;
    }
    let aliases = aliases(select, catalog);
    let Some(rel) = aliases.values().next() else { return };
    let Some(table) = catalog.table(rel) else { return };
    // the block returns only columns of foreign keys of its table, which its primary key pairs
    // with more columns: a thing that has many rows here
    let mut returned = Vec::new();
    for item in &select.projection {
        let (SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }) = item else { return };
        let Some((_, col)) = column_of(e, &aliases, catalog) else { return };
        returned.push(col);
    }
    let keyed = |c: &String| catalog.foreign_keys.iter().any(|fk| fk.from == *rel && fk.from_columns.contains(c));
    let paired = table.primary_key.len() > returned.len() && returned.iter().all(|c| table.primary_key.contains(c));
    if returned.is_empty() || !returned.iter().all(keyed) || !paired {
        return;
    }
    for term in conjuncts(w) {
        let column = match term {
            Expr::BinaryOp { left, op: BinaryOperator::NotEq, right } => column_of(left, &aliases, catalog).or_else(|| column_of(right, &aliases, catalog)),
            Expr::InList { expr, negated: true, .. } | Expr::Like { expr, negated: true, .. } | Expr::ILike { expr, negated: true, .. } => {
                column_of(expr, &aliases, catalog)
            }
            _ => None,
        };
        let Some((_, col)) = column else { continue };
        if returned.contains(&col) {
            continue;
        }
        // the condition that matches what is to be excluded
        let matching = match term.clone() {
            Expr::BinaryOp { left, right, .. } => Expr::BinaryOp { left, op: BinaryOperator::Eq, right },
            Expr::InList { expr, list, .. } => Expr::InList { expr, list, negated: false },
            Expr::Like { expr, pattern, escape_char, any, .. } => Expr::Like { expr, pattern, escape_char, any, negated: false },
            Expr::ILike { expr, pattern, escape_char, any, .. } => Expr::ILike { expr, pattern, escape_char, any, negated: false },
            other => other,
        };
        out.push(finding(
            "exclusion",
            Severity::Repair,
            format!(
                "`{term}` drops rows of {}, not the {} they belong to: one with a row that matches and another that does not is still returned; \
                 to exclude those that have it, use {} NOT IN (SELECT {} FROM {} WHERE {matching}) or EXCEPT",
                table.name.name,
                returned.join(", "),
                returned.join(", "),
                returned.join(", "),
                table.name.name
            ),
        ));
    }
}

/// The `exclusion` findings of every SELECT block, when the question negates a verb.
pub fn check(query: &Query, catalog: &Catalog, question: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    if NEGATED_VERB.is_match(&question.to_lowercase()) {
        each_select(query, &mut |s| findings_of_block(s, catalog, &mut out));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, ForeignKey, RelKind, RelName, Table};
    use crate::sql::check_query;

    fn world() -> Catalog {
        let rel = |n: &str| RelName { schema: "public".into(), name: n.into() };
        let col = |n: &str| Column { name: n.into(), type_name: "text".into(), nullable: false, comment: None };
        Catalog {
            tables: vec![
                Table { name: rel("country"), kind: RelKind::Table, comment: None, row_estimate: None, columns: vec![col("code"), col("name")], primary_key: vec!["code".into()] },
                Table {
                    name: rel("countrylanguage"),
                    kind: RelKind::Table,
                    comment: None,
                    row_estimate: None,
                    columns: vec![col("countrycode"), col("language")],
                    primary_key: vec!["countrycode".into(), "language".into()],
                },
            ],
            foreign_keys: vec![ForeignKey {
                name: "fk".into(),
                from: rel("countrylanguage"),
                from_columns: vec!["countrycode".into()],
                to: rel("country"),
                to_columns: vec!["code".into()],
            }],
            ..Default::default()
        }
    }

    fn found(sql: &str, q: &str) -> Vec<String> {
        check(&check_query(sql).unwrap().query, &world(), q).into_iter().map(|f| f.message).collect()
    }

    #[test]
    fn excluding_rows_of_a_pair_table_is_no_exclusion_of_the_things() {
        let q = "What are the codes of countries that do not speak English?";
        let f = found("SELECT countrycode FROM countrylanguage WHERE language <> 'English'", q);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].starts_with("`language <> 'English'` drops rows of countrylanguage, not the countrycode they belong to"), "{}", f[0]);
        assert!(f[0].ends_with("use countrycode NOT IN (SELECT countrycode FROM countrylanguage WHERE language = 'English') or EXCEPT"), "{}", f[0]);
        assert_eq!(found("SELECT DISTINCT countrycode FROM countrylanguage WHERE language NOT IN ('English')", q).len(), 1);
        // inside a NOT IN subquery too
        assert_eq!(found("SELECT code FROM country WHERE code NOT IN (SELECT countrycode FROM countrylanguage WHERE language != 'English')", q).len(), 1);
        // the right forms, and questions that negate no verb
        assert!(found("SELECT code FROM country WHERE code NOT IN (SELECT countrycode FROM countrylanguage WHERE language = 'English')", q).is_empty());
        assert!(found("SELECT countrycode FROM countrylanguage EXCEPT SELECT countrycode FROM countrylanguage WHERE language = 'English'", q).is_empty());
        assert!(found("SELECT countrycode FROM countrylanguage WHERE language <> 'English'", "Which country codes have languages other than English?").is_empty());
        // a table with a row per thing: <> excludes the thing
        assert!(found("SELECT code FROM country WHERE name <> 'Aruba'", "Which countries are not named Aruba and do not …?").is_empty());
        // the pair itself returned: each row is what is asked
        assert!(found("SELECT countrycode, language FROM countrylanguage WHERE language <> 'English'", q).is_empty());
    }
}
