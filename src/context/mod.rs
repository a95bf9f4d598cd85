//! The schema as the model sees it: compact text under a token budget.
//!
//! Each table is one line (columns with types, keys, comments, a few sample values of text
//! columns), then the foreign keys between the tables shown. Over budget, tables are ranked by
//! lexical overlap with the question (names, columns, sample values) with a bonus for tables one
//! foreign key away from a matching one (the join bridges), and the lowest-ranked are cut; the
//! cut is reported so the explanation can say what the model did not see.

pub mod schemas;

use std::collections::{BTreeMap, BTreeSet};

use crate::catalog::{quote_ident, Catalog, RelName, Table};

/// Distinct sample values per (table, column).
pub type Samples = BTreeMap<(RelName, String), Vec<String>>;

#[derive(Debug, Clone, PartialEq)]
pub struct SchemaContext {
    pub text: String,
    pub tables: Vec<RelName>,
    pub cut: Vec<RelName>,
    pub tokens: usize,
}

/// A rough token count (about four characters a token for English and SQL).
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

const STOP: &[&str] = &[
    "the", "and", "for", "with", "what", "which", "who", "whom", "whose", "how", "many", "much", "are",
    "was", "were", "has", "have", "had", "does", "did", "that", "this", "those", "these", "from",
    "each", "all", "list", "show", "give", "find", "return", "name", "names", "their", "there", "they",
    "than", "more", "less", "most", "least", "number", "count", "total", "average", "any", "not",
    "per", "its", "his", "her", "also", "only", "order", "ordered", "sorted", "by", "of", "in", "on",
];

/// Lower-cased word stems of a text: split on non-alphanumerics and `_`, crude plural folding.
pub(crate) fn stems(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 3 && !STOP.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

/// The word stems of the names of these tables and their columns (`participant_type_code` →
/// participant, type, code), as [`stems`] reads them.
pub fn name_stems(catalog: &Catalog, tables: &[RelName]) -> BTreeSet<String> {
    tables
        .iter()
        .filter_map(|t| catalog.table(t))
        .flat_map(|t| std::iter::once(t.name.name.as_str()).chain(t.columns.iter().map(|c| c.name.as_str())))
        .flat_map(stems)
        .collect()
}

/// A plural folded to its singular by English spelling rules: `-ies` to `-y` (cities), `-es`
/// after a sibilant (classes, boxes, matches), otherwise `-s` (attendances, performances), but
/// never the `s` of `-ss`, `-us` or `-is` (address, status, analysis).
pub(crate) fn stem(w: &str) -> String {
    if let Some(base) = w.strip_suffix("ies") {
        if base.len() >= 2 {
            return format!("{base}y");
        }
    }
    if let Some(base) = w.strip_suffix("es") {
        if base.len() >= 3 && ["s", "x", "z", "ch", "sh"].iter().any(|e| base.ends_with(e)) {
            return base.to_string();
        }
    }
    if let Some(base) = w.strip_suffix('s') {
        if base.len() >= 3 && !["s", "u", "i"].iter().any(|e| base.ends_with(e)) {
            return base.to_string();
        }
    }
    w.to_string()
}

/// A relation as the model should write it: unqualified when the caller's `search_path` reaches
/// it by that name (PostgreSQL then resolves it there), qualified otherwise.
fn display_name(catalog: &Catalog, name: &RelName) -> String {
    if catalog.reachable_unqualified(name) {
        quote_ident(&name.name)
    } else {
        name.to_string()
    }
}

fn table_line(catalog: &Catalog, t: &Table, samples: &Samples) -> String {
    let cols: Vec<String> = t
        .columns
        .iter()
        .map(|c| {
            let mut s = format!("{} {}", quote_ident(&c.name), c.type_name);
            if t.primary_key.len() == 1 && t.primary_key[0] == c.name {
                s.push_str(" PRIMARY KEY");
            }
            if let Some(vals) = samples.get(&(t.name.clone(), c.name.clone())).filter(|v| !v.is_empty()) {
                let shown: Vec<String> =
                    vals.iter().map(|v| format!("'{}'", v.chars().take(40).collect::<String>().replace('\'', "''"))).collect();
                s.push_str(&format!(" e.g. {}", shown.join(", ")));
            }
            if let Some(comment) = &c.comment {
                s.push_str(&format!(" /* {comment} */"));
            }
            s
        })
        .collect();
    let mut line = format!("TABLE {} ({}", display_name(catalog, &t.name), cols.join(", "));
    if t.primary_key.len() > 1 {
        let pk: Vec<String> = t.primary_key.iter().map(|c| quote_ident(c)).collect();
        line.push_str(&format!(", PRIMARY KEY ({})", pk.join(", ")));
    }
    line.push(')');
    let mut notes = Vec::new();
    if let Some(c) = &t.comment {
        notes.push(c.clone());
    }
    if let Some(rows) = t.row_estimate {
        notes.push(format!("~{} rows", rows.round() as i64));
    }
    if !notes.is_empty() {
        line.push_str(&format!(" -- {}", notes.join("; ")));
    }
    line
}

/// Render the schema for `question`, keeping it under `budget` tokens.
pub fn build(catalog: &Catalog, samples: &Samples, question: &str, budget: usize) -> SchemaContext {
    let q = stems(question);
    let lexical: BTreeMap<&RelName, f64> = catalog
        .tables
        .iter()
        .map(|t| {
            let name = stems(&t.name.name);
            let cols: BTreeSet<String> = t.columns.iter().flat_map(|c| stems(&c.name)).collect();
            let values: BTreeSet<String> = t
                .columns
                .iter()
                .filter_map(|c| samples.get(&(t.name.clone(), c.name.clone())))
                .flatten()
                .flat_map(|v| stems(v))
                .collect();
            let score = 3.0 * q.intersection(&name).count() as f64
                + q.intersection(&cols).count() as f64
                + 2.0 * q.intersection(&values).count() as f64;
            (&t.name, score)
        })
        .collect();
    let graph = catalog.fk_graph();
    let mut ranked: Vec<(&Table, f64)> = catalog
        .tables
        .iter()
        .map(|t| {
            let bridge = graph
                .get(&t.name)
                .map_or(0.0, |n| n.iter().filter(|o| lexical.get(*o).copied().unwrap_or(0.0) > 0.0).count() as f64);
            (t, lexical[&t.name] + 0.5 * bridge)
        })
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.name.cmp(&b.0.name)));

    let mut kept: Vec<(&Table, String)> = Vec::new();
    let mut cut = Vec::new();
    let mut used = 0;
    for (t, _) in ranked {
        let line = table_line(catalog, t, samples);
        let cost = estimate_tokens(&line) + 1;
        if kept.is_empty() || used + cost <= budget {
            used += cost;
            kept.push((t, line));
        } else {
            cut.push(t.name.clone());
        }
    }
    // the foreign-key line costs tokens too: drop the lowest-ranked tables until it all fits
    loop {
        let (text, shown) = render(catalog, &kept);
        let tokens = estimate_tokens(&text);
        if tokens <= budget || kept.len() <= 1 {
            cut.sort();
            return SchemaContext { tables: shown, cut, text, tokens };
        }
        let (t, _) = kept.pop().expect("more than one table kept");
        cut.push(t.name.clone());
    }
}

/// The kept tables in catalog order (so the prompt prefix is stable across questions), then the
/// foreign keys among them.
fn render(catalog: &Catalog, kept: &[(&Table, String)]) -> (String, Vec<RelName>) {
    let mut ordered: Vec<&(&Table, String)> = kept.iter().collect();
    ordered.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    let shown: BTreeSet<&RelName> = ordered.iter().map(|(t, _)| &t.name).collect();
    let mut text: Vec<String> = ordered.iter().map(|(_, l)| l.clone()).collect();
    let fks: Vec<String> = catalog
        .foreign_keys
        .iter()
        .filter(|fk| shown.contains(&fk.from) && shown.contains(&fk.to))
        .map(|fk| {
            format!(
                "{}({}) -> {}({})",
                display_name(catalog, &fk.from),
                fk.from_columns.join(", "),
                display_name(catalog, &fk.to),
                fk.to_columns.join(", ")
            )
        })
        .collect();
    if !fks.is_empty() {
        text.push(format!("FOREIGN KEYS: {}", fks.join("; ")));
    }
    (text.join("\n"), ordered.iter().map(|(t, _)| t.name.clone()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Column, ForeignKey, RelKind};

    fn table(name: &str, cols: &[&str]) -> Table {
        Table {
            name: RelName::new("public", name),
            kind: RelKind::Table,
            comment: None,
            row_estimate: Some(10.0),
            columns: cols
                .iter()
                .map(|c| Column { name: c.to_string(), type_name: "text".into(), nullable: true, comment: None })
                .collect(),
            primary_key: vec![cols[0].to_string()],
        }
    }

    fn shop() -> Catalog {
        Catalog {
            tables: vec![
                table("singer", &["singer_id", "name", "country"]),
                table("concert", &["concert_id", "venue", "year"]),
                table("singer_in_concert", &["concert_id", "singer_id"]),
                table("stadium", &["stadium_id", "location", "capacity"]),
            ],
            foreign_keys: vec![
                ForeignKey {
                    name: "a".into(),
                    from: RelName::new("public", "singer_in_concert"),
                    from_columns: vec!["singer_id".into()],
                    to: RelName::new("public", "singer"),
                    to_columns: vec!["singer_id".into()],
                },
                ForeignKey {
                    name: "b".into(),
                    from: RelName::new("public", "singer_in_concert"),
                    from_columns: vec!["concert_id".into()],
                    to: RelName::new("public", "concert"),
                    to_columns: vec!["concert_id".into()],
                },
            ],
            ..Default::default()
        }
    }

    #[test]
    fn everything_fits_a_large_budget() {
        let mut samples = Samples::new();
        samples.insert((RelName::new("public", "singer"), "country".into()), vec!["France".into(), "O'Neil".into()]);
        let ctx = build(&shop(), &samples, "How many singers?", 10_000);
        assert_eq!(ctx.tables.len(), 4);
        assert!(ctx.cut.is_empty());
        assert!(ctx.text.contains("TABLE singer (singer_id text PRIMARY KEY, name text, country text e.g. 'France', 'O''Neil') -- ~10 rows"));
        assert!(ctx.text.contains("FOREIGN KEYS: singer_in_concert(singer_id) -> singer(singer_id)"));
        assert_eq!(ctx.tokens, estimate_tokens(&ctx.text));
    }

    #[test]
    fn over_budget_keeps_matching_tables_and_their_bridge() {
        let mut without_stadium = shop();
        without_stadium.tables.retain(|t| t.name.name != "stadium");
        let budget = build(&without_stadium, &Samples::new(), "", 10_000).tokens;
        let ctx = build(&shop(), &Samples::new(), "Which singers performed in concerts in 2014?", budget);
        assert!(ctx.tokens <= budget, "{} > {budget}", ctx.tokens);
        assert_eq!(ctx.cut, vec![RelName::new("public", "stadium")]);
        assert!(ctx.tables.contains(&RelName::new("public", "singer_in_concert")));
    }

    #[test]
    fn stems_fold_plurals_and_drop_stop_words() {
        let s = stems("How many countries have singers_in concert");
        assert!(s.contains("country") && s.contains("singer") && s.contains("concert"));
        assert!(!s.contains("how") && !s.contains("many"));
        for (plural, singular) in [("attendances", "attendance"), ("performances", "performance"), ("classes", "class"), ("matches", "match"),
            ("cities", "city"), ("addresses", "address"), ("status", "status"), ("statuses", "status"), ("campus", "campus"), ("class", "class")] {
            assert_eq!(stem(plural), singular, "{plural}");
        }
    }
}

/// The question with the words that name a table or column replaced by `_`, for retrieving
/// examples by what the question asks rather than what it asks about (DeepEye-SQL's masking).
pub fn mask_schema_words(question: &str, catalog: &Catalog) -> String {
    let mut names: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for t in &catalog.tables {
        names.extend(t.name.name.to_lowercase().split('_').filter(|w| w.len() > 2).map(str::to_string));
        for c in &t.columns {
            names.extend(c.name.to_lowercase().split('_').filter(|w| w.len() > 2).map(str::to_string));
        }
    }
    question
        .split_whitespace()
        .map(|w| {
            let core: String = w.chars().filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
            let singular = core.strip_suffix('s').unwrap_or(&core).to_string();
            if names.contains(&core) || names.contains(&singular) || names.contains(&format!("{core}s")) {
                "_".to_string()
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod mask_tests {
    use super::*;
    use crate::catalog::{Column, RelKind, RelName, Table};

    #[test]
    fn masks_table_and_column_words() {
        let cat = Catalog {
            tables: vec![Table {
                name: RelName::new("public", "books"),
                kind: RelKind::Table,
                comment: None,
                row_estimate: None,
                columns: vec![Column { name: "page_count".into(), type_name: "integer".into(), nullable: true, comment: None }],
                primary_key: vec![],
            }],
            foreign_keys: vec![],
            ..Default::default()
        };
        assert_eq!(mask_schema_words("Which book has the most pages?", &cat), "Which _ has the most _");
    }
}
