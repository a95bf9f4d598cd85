//! The messages sent to the model at each stage, and reading its SQL back.
//!
//! The system message carries the schema, so a server with a prompt cache (llama.cpp) processes the
//! long prefix once. It is the same for every call but a reasoning generator's (`generate_with`),
//! whose fixed instructions come before the schema.

use serde_json::{json, Value};

use super::probe::Grounding;
use crate::constraints::Constraint;
use crate::llm::json::{extract_json, strip_code_fences};
use crate::llm::Message;
use crate::sql::check_query;

/// The most sub-questions a `decompose` answer may list, and the longest each may be.
pub const DECOMPOSE_PARTS: usize = 3;
pub const DECOMPOSE_PART_CHARS: usize = 120;

/// The JSON schema of an answer that carries one SQL query.
pub fn sql_schema() -> Value {
    json!({"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]})
}

pub fn system(schema: &str) -> Message {
    Message::system(format!(
        "You are an expert PostgreSQL analyst. You answer questions about this database with read-only SQL.\n\
         Database schema:\n{schema}"
    ))
}

fn question_block(question: &str, evidence: Option<&str>, grounding: &Grounding) -> String {
    let taught = grounding.taught.to_prompt();
    let mut out = if taught.is_empty() { String::new() } else { format!("{taught}\n\n") };
    out.push_str(&format!("Question: {question}"));
    if let Some(e) = evidence.filter(|e| !e.trim().is_empty()) {
        out.push_str(&format!("\nEvidence (follow it): {e}"));
    }
    let g = grounding.to_prompt();
    if !g.is_empty() {
        out.push_str(&format!("\nWhat the database showed:\n{g}"));
    }
    out
}

fn requirements(constraints: &[Constraint]) -> String {
    if constraints.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = constraints.iter().map(|c| c.requirement()).collect();
    format!("\nRequirements taken from the question:\n{}", bullets(&lines))
}

/// The placeholders of the probe prompt's example reply. A small model often copies the example;
/// what it copies is no mapping (`ProbeStep::about` drops it).
pub const EXAMPLE_WORDS: &str = "words in the question";
pub const EXAMPLE_VALUE: &str = "exact value in the database";

/// One step of the probe loop.
pub fn probe(schema: &str, question: &str, evidence: Option<&str>, grounding: &Grounding, row_bound: usize) -> Vec<Message> {
    vec![
        system(schema),
        Message::user(format!(
            "{}\n\nBefore the final SQL is written you may run one small read-only query to check exact \
             values or formats in the data, e.g. SELECT DISTINCT col FROM t WHERE col ILIKE '%word%' \
             (at most {row_bound} rows are shown). Do not repeat a probe shown above and do not write the final \
             query.\n\
             Reply in JSON: {{\"action\": \"probe\", \"probe_sql\": \"SELECT ...\", \"relevant_columns\": \
             {{\"table\": [\"column\"]}}, \"value_mappings\": {{\"{EXAMPLE_WORDS}\": \"{EXAMPLE_VALUE}\"}}}}, \
             or with \"action\": \"done\" when you know enough.",
            question_block(question, evidence, grounding)
        )),
    ]
}

/// What every generation is asked to write; `probes` says where the question block stands.
fn answer_instruction(probes: &str) -> String {
    format!(
        "Write one PostgreSQL SELECT query that answers the question. Select only what the question asks for. \
         Join through the foreign keys. The probes {probes} were cut to a few rows for display: add a LIMIT only \
         if the question asks for a number of rows or a single extreme. Reply in JSON: {{\"sql\": \"SELECT ...\"}}"
    )
}

/// Generation of the answer, the question first (`direct`: the one bare generation).
pub fn generate(
    schema: &str,
    question: &str,
    evidence: Option<&str>,
    grounding: &Grounding,
    constraints: &[Constraint],
) -> Vec<Message> {
    vec![
        system(schema),
        Message::user(format!(
            "{}{}\n\n{}",
            question_block(question, evidence, grounding),
            requirements(constraints),
            answer_instruction("above")
        )),
    ]
}

/// The model's vote on whether the database can answer the question, given the words of it that
/// match no table, column or stored value (`scope`).
pub fn scope(schema: &str, question: &str, evidence: Option<&str>, unlinked: &[String]) -> Vec<Message> {
    let evidence = evidence.filter(|e| !e.trim().is_empty()).map(|e| format!("\nEvidence: {e}")).unwrap_or_default();
    let words = unlinked.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(", ");
    vec![
        system(schema),
        Message::user(format!(
            "Question: {question}{evidence}\n\nThese words of the question match no table, column or stored value of the schema above: \
             {words}.\nCan one SQL query over this database answer the question from the data it stores? Answer false if the \
             question asks about something the schema has no table or column for (a column with a similar name that means \
             something else does not count), asks for advice, an opinion, a prediction or a cause, is general knowledge \
             unrelated to this database, or needs facts the database does not store. Answer true if those words are only \
             another way to say what a table, a column or a stored value holds.\n\
             Reply in JSON: {{\"answerable\": true or false, \"kind\": \"answerable\", \"missing_data\", \"outside_knowledge\", \
             \"general_knowledge\" or \"beyond_sql\", \"missing\": \"{}\"}}",
            crate::scope::MISSING_PROMPT
        )),
    ]
}

/// The model's vote on whether the database can answer the question, given the query written
/// for it and what was found (`lead` says what: a check found it returns another thing than was
/// asked, or other readings looked for names the database does not have) (`answer_scope`).
pub fn answer_scope(schema: &str, question: &str, evidence: Option<&str>, sql: &str, lead: &str, found: &[String]) -> Vec<Message> {
    let evidence = evidence.filter(|e| !e.trim().is_empty()).map(|e| format!("\nEvidence: {e}")).unwrap_or_default();
    let found = found.iter().map(|f| format!("- {f}")).collect::<Vec<_>>().join("\n");
    vec![
        system(schema),
        Message::user(format!(
            "Question: {question}{evidence}\n\nThe query written for it:\n{sql}\n\n{lead}:\n{found}\n\nCan one SQL query over this database answer the question from the data it stores? \
             Answer false if no table or column of the schema above holds what the question asks for (a column with a similar name \
             that means something else does not count). Answer true only if a table or a column of the schema holds exactly \
             what is asked.\n\
             Reply in JSON: {{\"answerable\": true or false, \"kind\": \"answerable\", \"missing_data\", \"outside_knowledge\", \
             \"general_knowledge\" or \"beyond_sql\", \"missing\": \"{}\"}}",
            crate::scope::MISSING_PROMPT
        )),
    ]
}

/// Keyword extraction for the value index: the values and key terms a question names, written as
/// a database cell might hold them. No schema: the search, not the model, finds the columns.
pub fn keywords(question: &str, evidence: Option<&str>) -> Vec<Message> {
    let evidence = evidence.map(|e| format!("\nEvidence: {e}")).unwrap_or_default();
    vec![
        Message::system("You pick search keywords out of questions about a database."),
        Message::user(format!(
            "Question: {question}{evidence}\n\nList what this question names that could be stored in a database cell: \
             names, places, titles, codes, categories, statuses, dates, written as the data would likely write them \
             (expand obvious abbreviations and keep the original too), then the question's key nouns. At most 8, \
             most specific first, no SQL words. Reply in JSON: {{\"keywords\": [\"...\"]}}"
        )),
    ]
}

/// The JSON schema of a keyword answer.
pub fn keywords_schema() -> Value {
    json!({"type": "object", "properties": {
        "keywords": {"type": "array", "maxItems": 8, "items": {"type": "string", "maxLength": 80}}},
        "required": ["keywords"]})
}

/// The keywords of an answer: trimmed, without duplicates (ignoring case) or one-letter words, at most 8.
pub fn parse_keywords(content: &str) -> Result<Vec<String>, String> {
    let v = extract_json(content)?;
    let list = v.get("keywords").and_then(Value::as_array).ok_or("no \"keywords\" array in the answer")?;
    let mut out: Vec<String> = Vec::new();
    for k in list.iter().filter_map(Value::as_str).map(str::trim) {
        if k.chars().count() >= 2 && !out.iter().any(|o| o.eq_ignore_ascii_case(k)) && out.len() < 8 {
            out.push(k.to_string());
        }
    }
    Ok(out)
}

/// Direct schema linking: the model names the tables and columns the question needs.
pub fn link(schema: &str, question: &str, evidence: Option<&str>, grounding: &Grounding) -> Vec<Message> {
    vec![
        system(schema),
        Message::user(format!(
            "{}\n\nDo not write SQL yet. Name every table and column a query answering the question needs: \
             the columns it selects, filters, groups, orders and joins on. Use the names of the schema above. \
             Reply in JSON: {{\"tables\": [\"table\", ...], \"columns\": [\"table.column\", ...]}}",
            question_block(question, evidence, grounding),
        )),
    ]
}

/// The JSON schema of a direct-linking answer.
pub fn link_schema() -> Value {
    json!({"type": "object", "properties": {
        "tables": {"type": "array", "maxItems": 20, "items": {"type": "string", "maxLength": 128}},
        "columns": {"type": "array", "maxItems": 60, "items": {"type": "string", "maxLength": 200}}},
        "required": ["tables", "columns"]})
}

/// The names in a direct-linking answer: (tables, columns as `table.column`).
pub fn parse_link_answer(content: &str) -> Result<(Vec<String>, Vec<String>), String> {
    let v = crate::llm::json::extract_json(content)?;
    let names = |key: &str| -> Vec<String> {
        v[key].as_array().into_iter().flatten().filter_map(|x| x.as_str()).map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect()
    };
    if v.get("tables").is_none() && v.get("columns").is_none() {
        return Err("no \"tables\" or \"columns\" in the answer".into());
    }
    Ok((names("tables"), names("columns")))
}

/// The independent generators of N-version generation: one model, different reasoning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Generator {
    /// Write the query directly.
    Direct,
    /// Write the query's skeleton (clauses with placeholders) first, then fill it.
    Skeleton,
    /// Split the question into sub-questions, answer each, then combine (divide and conquer).
    Decompose,
    /// Follow verified examples of similar questions (`nl2sql.examples`).
    FewShot,
}

impl Generator {
    pub const ALL: [Generator; 4] = [Generator::Direct, Generator::Skeleton, Generator::Decompose, Generator::FewShot];

    pub fn name(self) -> &'static str {
        match self {
            Generator::Direct => "direct",
            Generator::Skeleton => "skeleton",
            Generator::Decompose => "decompose",
            Generator::FewShot => "few_shot",
        }
    }

    /// A generator of other reasoning, for a second reading: `direct` for every generator but
    /// `direct`, whose other is `decompose`.
    pub fn other(self) -> Self {
        match self {
            Generator::Direct => Generator::Decompose,
            _ => Generator::Direct,
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.name() == s)
    }

    /// The JSON schema of its answer: its reasoning fields first, then `sql`.
    pub fn schema(self) -> Value {
        match self {
            Generator::Skeleton => json!({"type": "object", "properties": {
                "skeleton": {"type": "string", "maxLength": 400}, "sql": {"type": "string"}}, "required": ["skeleton", "sql"]}),
            // at most three sub-questions of a short sentence each: the 1.5B model answers most
            // questions with one to three, and otherwise fills the bound with the same sentence
            // again (on Spider dev, five of 200 characters cost up to 17 s more than `direct`)
            Generator::Decompose => json!({"type": "object", "properties": {
                "subquestions": {"type": "array", "maxItems": DECOMPOSE_PARTS, "items": {"type": "string", "maxLength": DECOMPOSE_PART_CHARS}},
                "sql": {"type": "string"}}, "required": ["subquestions", "sql"]}),
            _ => sql_schema(),
        }
    }
}

/// The fixed instruction of a generator that reasons before it writes the query.
fn reasoning_instruction(generator: Generator) -> Option<&'static str> {
    match generator {
        Generator::Skeleton => Some(
            "First write the query's skeleton: its clauses with placeholders (SELECT _ FROM _ JOIN _ ON _ \
             WHERE _ GROUP BY _ ORDER BY _ LIMIT _, only the clauses it needs). Then fill it. Reply in JSON: \
             {\"skeleton\": \"...\", \"sql\": \"SELECT ...\"}",
        ),
        Generator::Decompose => Some(
            "First split the question into the sub-questions it depends on (which rows, which \
             values, which aggregate), then write one query that answers them together (subqueries or CTEs as \
             needed). Reply in JSON: {\"subquestions\": [\"...\"], \"sql\": \"SELECT ...\"}",
        ),
        Generator::Direct | Generator::FewShot => None,
    }
}

/// Generation by one generator; `examples` are (question, SQL) pairs for the few-shot generator.
///
/// `direct` (the one bare generation, and the second reading) is the schema, the question, then
/// the instruction. A generator with a fixed instruction of its own (`skeleton`, `decompose`) gets
/// both instructions first, in the system message before the schema, and the question alone as
/// the user's message. A prompt cache keeps what a prompt begins with: the instructions and the
/// schema, read once, stay cached from one question to the next, and only the question is read
/// afresh. A server with several slots puts a prompt in the slot that shares the most of its
/// beginning, so prompts that begin with the instructions and prompts that begin with the schema
/// (probes, votes, the second reading) keep a slot each. The few-shot examples are the question's
/// own, so they follow it.
pub fn generate_with(
    generator: Generator,
    schema: &str,
    question: &str,
    evidence: Option<&str>,
    grounding: &Grounding,
    constraints: &[Constraint],
    examples: &[(String, String)],
) -> Vec<Message> {
    if let Some(how) = reasoning_instruction(generator) {
        return vec![
            Message::system(format!("{}\n\n{how}\n\n{}", answer_instruction("with the question"), system(schema).content)),
            Message::user(format!("{}{}", question_block(question, evidence, grounding), requirements(constraints))),
        ];
    }
    let mut messages = generate(schema, question, evidence, grounding, constraints);
    if generator == Generator::FewShot {
        let shown: Vec<String> = examples.iter().map(|(q, s)| format!("Question: {q}\nSQL: {s}")).collect();
        if let Some(last) = messages.last_mut() {
            last.content = format!(
                "{}\n\nVerified examples of similar questions on this database:\n{}\nFollow their patterns where they fit. \
                 Reply in JSON: {{\"sql\": \"SELECT ...\"}}",
                last.content,
                shown.join("\n\n")
            );
        }
    }
    messages
}

/// A repair of `sql`, given its problems and the attempts before it.
pub fn repair(
    schema: &str,
    question: &str,
    evidence: Option<&str>,
    grounding: &Grounding,
    sql: &str,
    problems: &[String],
    hints: &[String],
    earlier: &[String],
) -> Vec<Message> {
    let mut text = format!(
        "{}\n\nThis SQL was written for the question:\n{sql}\n\nIt has these problems:\n{}{}",
        question_block(question, evidence, grounding),
        bullets(problems),
        schema_facts(hints)
    );
    if !earlier.is_empty() {
        text.push_str(&format!("\n\nEarlier attempts that were also wrong (do not repeat them):\n{}", earlier.join("\n")));
    }
    text.push_str(CORRECTED_QUERY);
    vec![system(schema), Message::user(text)]
}

/// The request that ends every repair prompt.
const CORRECTED_QUERY: &str = "\n\nWrite the corrected PostgreSQL SELECT query, fixing every problem. Reply in JSON: {\"sql\": \"SELECT ...\"}";

/// One line per item, each after a dash.
fn bullets(items: &[String]) -> String {
    items.iter().map(|i| format!("- {i}")).collect::<Vec<_>>().join("\n")
}

/// The schema hints of a repair, after a blank line; nothing without hints.
fn schema_facts(hints: &[String]) -> String {
    if hints.is_empty() {
        String::new()
    } else {
        format!("\n\nFacts about the schema:\n{}", bullets(hints))
    }
}

/// A repair asked as the next turn of the conversation that wrote the query: `conversation` is
/// every message of the call that answered with it, its answer last. The model reads what it
/// wrote as its own answer, so only the problems are new text to it, and a server with a prompt
/// cache reads nothing else afresh (the standalone [`repair`] prompt repeats the question and
/// the query after the schema, about a hundred tokens read again per repair). `now` is the
/// query as it stands when it is not the one the model wrote (a mechanical fix or a name
/// resolved since).
pub fn repair_in_conversation(mut conversation: Vec<Message>, now: Option<&str>, problems: &[String], hints: &[String]) -> Vec<Message> {
    let now = now.map(|sql| format!("After corrections the query reads:\n{sql}\n\n")).unwrap_or_default();
    let text = format!("{now}That query has these problems:\n{}{}{CORRECTED_QUERY}", bullets(problems), schema_facts(hints));
    conversation.push(Message::user(text));
    conversation
}

/// The SQL in a model's answer: the `sql` field of its JSON (or, failing JSON, a fenced or bare
/// query), which must pass the gate. The error says what was wrong, for the retry and the user.
pub fn parse_sql_answer(content: &str) -> Result<String, String> {
    let sql = match extract_json(content) {
        Ok(v) => match v.get("sql").and_then(Value::as_str) {
            Some(s) => s.to_string(),
            // a small model may put the query elsewhere (`["SELECT …"]`, `{"query": "SELECT …"}`):
            // the first string of the answer that is a usable query
            None => match first_query(&v) {
                Some(s) => s,
                None => return Err(format!("the answer's JSON has no \"sql\" string: {}", crate::llm::json::excerpt(&v.to_string(), 200))),
            },
        },
        Err(json_error) => {
            let bare = strip_code_fences(content);
            if check_query(bare).is_err() {
                return Err(json_error);
            }
            bare.to_string()
        }
    };
    let sql = bare_sql(&sql);
    match check_query(sql) {
        Ok(q) => Ok(q.to_sql()),
        Err(refusal) => Err(format!("not a usable query: {refusal}")),
    }
}

/// A query as the model wrote it, without code fences, surrounding blanks or a final `;`.
fn bare_sql(s: &str) -> &str {
    strip_code_fences(s).trim().trim_end_matches(';').trim()
}

/// The first string in a JSON value (depth first, in order) that the gate accepts as a query.
fn first_query(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => check_query(bare_sql(s)).is_ok().then(|| s.clone()),
        Value::Array(items) => items.iter().find_map(first_query),
        Value::Object(fields) => fields.values().find_map(first_query),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_cleaned_and_bounded() {
        let k = parse_keywords(r#"{"keywords": [" UAL ", "ual", "United Airlines", "a", "", "x1", "x2", "x3", "x4", "x5", "x6", "x7"]}"#).unwrap();
        assert_eq!(k, vec!["UAL", "United Airlines", "x1", "x2", "x3", "x4", "x5", "x6"]);
        assert!(parse_keywords(r#"{"words": []}"#).unwrap_err().contains("keywords"));
        let m = keywords("Flights of UAL from Aberdeen?", Some("UAL is an airline"));
        assert!(m[1].content.contains("Flights of UAL") && m[1].content.contains("Evidence: UAL is an airline"));
    }

    #[test]
    fn reads_sql_from_what_models_return() {
        assert_eq!(parse_sql_answer(r#"{"sql": "SELECT 1;"}"#).unwrap(), "SELECT 1");
        assert_eq!(parse_sql_answer("```json\n{\"sql\": \"```sql\\nSELECT a FROM t\\n```\"}\n```").unwrap(), "SELECT a FROM t");
        assert_eq!(parse_sql_answer("```sql\nSELECT 2\n```").unwrap(), "SELECT 2");
        // the query under another key, or alone in an array, is read; an answer without one is not
        assert_eq!(parse_sql_answer(r#"{"query": "SELECT 1"}"#).unwrap(), "SELECT 1");
        assert_eq!(parse_sql_answer(r#"["SELECT a FROM t;"]"#).unwrap(), "SELECT a FROM t");
        assert_eq!(parse_sql_answer(r#"{"subquestions": ["which rows?"], "query": {"text": "SELECT b FROM t"}}"#).unwrap(), "SELECT b FROM t");
        assert!(parse_sql_answer(r#"{"answer": "which rows?"}"#).unwrap_err().contains("no \"sql\""));
        assert!(parse_sql_answer(r#"["DELETE FROM t"]"#).unwrap_err().contains("no \"sql\""));
        assert!(parse_sql_answer(r#"{"sql": "DELETE FROM t"}"#).unwrap_err().contains("only read-only"));
        assert!(parse_sql_answer("I cannot answer that.").is_err());
    }

    #[test]
    fn generators_differ_in_reasoning_not_in_context() {
        let g = Grounding::default();
        let direct = generate_with(Generator::Direct, "TABLE t (a int)", "q?", None, &g, &[], &[]);
        let skeleton = generate_with(Generator::Skeleton, "TABLE t (a int)", "q?", None, &g, &[], &[]);
        let few = generate_with(Generator::FewShot, "TABLE t (a int)", "q?", None, &g, &[], &[("how many a?".into(), "SELECT count(a) FROM t".into())]);
        assert!(skeleton[0].content.ends_with(&direct[0].content), "the same schema");
        assert!(skeleton[0].content.contains("skeleton") && skeleton[1].content == "Question: q?");
        assert!(direct[1].content.starts_with("Question: q?"), "direct, the bare generation, reads the question first");
        assert!(few[1].content.contains("SQL: SELECT count(a) FROM t"));
        assert_eq!(Generator::parse("decompose"), Some(Generator::Decompose));
        assert!(Generator::Decompose.schema()["required"].to_string().contains("subquestions"));
        let parts = &Generator::Decompose.schema()["properties"]["subquestions"];
        assert_eq!((parts["maxItems"].as_u64(), parts["items"]["maxLength"].as_u64()), (Some(3), Some(120)));
        assert_eq!(parse_sql_answer(r#"{"skeleton": "SELECT _ FROM _", "sql": "SELECT a FROM t"}"#).unwrap(), "SELECT a FROM t");
    }

    #[test]
    fn a_reasoning_generator_reads_its_fixed_instructions_before_the_question() {
        let g = Grounding::default();
        let c = [Constraint { kind: crate::constraints::Kind::TopK { k: 3, largest: Some(true) }, phrase: "top 3".into() }];
        let one = generate_with(Generator::Decompose, "TABLE t (a int)", "Which a are largest?", None, &g, &c, &[]);
        let two = generate_with(Generator::Decompose, "TABLE t (a int)", "How many a?", Some("a means x"), &g, &[], &[]);
        assert_eq!(one[0], two[0], "everything before the question is shared");
        assert_eq!((one[0].role.as_str(), one[1].role.as_str(), one.len()), ("system", "user", 2));
        let instructions = &one[0].content;
        assert!(instructions.starts_with("Write one PostgreSQL SELECT query") && instructions.contains("sub-questions"));
        assert!(instructions.contains("The probes with the question were cut"));
        assert!(instructions.ends_with(&system("TABLE t (a int)").content), "then the role and the schema");
        assert!(one[1].content.starts_with("Question: Which a are largest?\nRequirements taken from the question:\n- "));
        assert!(two[1].content.contains("Evidence (follow it): a means x"));
        // the prompts that begin with the schema share nothing with it but the chat's framing
        let direct = generate_with(Generator::Direct, "TABLE t (a int)", "Which a are largest?", None, &g, &c, &[]);
        assert!(direct[1].content.contains("The probes above were cut"));
        assert!(!instructions.starts_with(&direct[0].content[..20]));
    }

    #[test]
    fn prompts_share_the_schema_prefix() {
        let g = Grounding::default();
        let p = probe("TABLE t (a int)", "q?", None, &g, 5);
        let gen = generate("TABLE t (a int)", "q?", Some("a means x"), &g, &[]);
        assert_eq!(p[0], gen[0]);
        assert!(gen[1].content.contains("Evidence (follow it): a means x"));
    }

    #[test]
    fn a_repair_in_the_conversation_keeps_every_earlier_message_and_adds_only_the_problems() {
        let g = Grounding::default();
        let mut asked = generate_with(Generator::Decompose, "TABLE t (a int)", "How many a?", None, &g, &[], &[]);
        asked.push(Message::assistant(r#"{"subquestions": ["How many a?"], "sql": "SELECT count(b) FROM t"}"#));
        let problems = vec!["PostgreSQL cannot plan it: column \"b\" does not exist".to_string()];
        let hints = vec!["t has the columns: a".to_string()];
        let m = repair_in_conversation(asked.clone(), None, &problems, &hints);
        assert_eq!(m.len(), asked.len() + 1);
        assert_eq!(&m[..asked.len()], &asked[..], "the conversation so far is sent as it was, for the prompt cache");
        let last = &m[asked.len()];
        assert_eq!(last.role, "user");
        assert!(last.content.starts_with("That query has these problems:\n- PostgreSQL cannot plan it"));
        assert!(last.content.contains("Facts about the schema:\n- t has the columns: a"));
        assert!(!last.content.contains("How many a?"), "the question is not repeated");
        assert!(!last.content.contains("After corrections"));
        // a query a fix changed since the model wrote it is shown as it stands
        let m = repair_in_conversation(asked, Some("SELECT count(a) FROM t LIMIT 1"), &problems, &[]);
        assert!(m.last().unwrap().content.starts_with("After corrections the query reads:\nSELECT count(a) FROM t LIMIT 1\n\nThat query"));
        assert!(!m.last().unwrap().content.contains("Facts about the schema"));
    }
}
