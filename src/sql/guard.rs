//! The gate every piece of generated or user-supplied SQL passes before it may run.
//!
//! [`check_query`] accepts exactly one query statement (`SELECT`, `VALUES`, `TABLE`, `WITH ... SELECT`)
//! and refuses everything else with a [`Refusal`] that carries a SQLSTATE, a message and a hint.
//! This is the first line of defence only: the executor then runs the query in a read-only
//! subtransaction that is always rolled back, so the engine itself stops anything that slips past.
//!
//! The analysis walks the sqlparser AST; no decision is made on the SQL text.

use std::fmt;
use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, Function, ObjectName, Query, Select, SetExpr, Statement, TableFactor, Visit, Visitor,
};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer};

/// Why a piece of SQL may not run. Each kind maps to one SQLSTATE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Nothing but whitespace and comments.
    Empty,
    /// sqlparser (PostgreSQL dialect) could not parse the text.
    Syntax(String),
    /// More than one statement.
    MultipleStatements(usize),
    /// A statement that is not a query: DML, DDL, COPY, CALL, DO, SET, EXPLAIN, ...
    NotAQuery(String),
    /// `SELECT ... INTO`, which creates a table.
    SelectInto,
    /// `FOR UPDATE` / `FOR SHARE` and friends, which take row locks.
    RowLocking(String),
    /// `WITH x AS (INSERT|UPDATE|DELETE|MERGE ...)`.
    DataModifyingCte(String),
    /// A call to a function whose effects outlive the statement or reach other sessions.
    ForbiddenFunction(String),
}

impl Refusal {
    /// The SQLSTATE reported for this refusal.
    pub fn sqlstate(&self) -> &'static str {
        match self {
            Refusal::Empty | Refusal::Syntax(_) => "42601", // syntax_error
            Refusal::MultipleStatements(_) => "0A000",      // feature_not_supported
            Refusal::NotAQuery(_)
            | Refusal::SelectInto
            | Refusal::RowLocking(_)
            | Refusal::DataModifyingCte(_) => "25006", // read_only_sql_transaction
            Refusal::ForbiddenFunction(_) => "42501",  // insufficient_privilege
        }
    }

    /// A hint that tells the user what would be accepted instead.
    pub fn hint(&self) -> &'static str {
        match self {
            Refusal::Empty => "Pass one SELECT, VALUES or WITH ... SELECT statement.",
            Refusal::Syntax(_) => {
                "The SQL must parse as PostgreSQL; check quoting and keywords near the reported position."
            }
            Refusal::MultipleStatements(_) => "Pass exactly one query; remove the extra statements.",
            Refusal::NotAQuery(_) | Refusal::SelectInto => {
                "nl2sql only runs read-only queries: SELECT, VALUES or WITH ... SELECT."
            }
            Refusal::RowLocking(_) => "Remove the locking clause; results are read in a read-only snapshot.",
            Refusal::DataModifyingCte(_) => "Every WITH query must itself be a SELECT or VALUES.",
            Refusal::ForbiddenFunction(_) => {
                "Functions with effects outside the query (locks, signals, files, settings, sequences, \
                 remote connections, SQL given as text) are not allowed in generated SQL."
            }
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Empty => write!(f, "no SQL statement was given"),
            Refusal::Syntax(e) => write!(f, "SQL could not be parsed: {e}"),
            Refusal::MultipleStatements(n) => {
                write!(f, "only one statement is accepted, got {n}")
            }
            Refusal::NotAQuery(kind) => {
                write!(f, "only read-only queries are accepted, got {kind}")
            }
            Refusal::SelectInto => write!(f, "SELECT ... INTO creates a table and is not accepted"),
            Refusal::RowLocking(clause) => write!(f, "row-locking clause {clause} is not accepted"),
            Refusal::DataModifyingCte(kind) => {
                write!(f, "data-modifying WITH query ({kind}) is not accepted")
            }
            Refusal::ForbiddenFunction(name) => {
                write!(f, "function {name} is not allowed in generated SQL")
            }
        }
    }
}

impl std::error::Error for Refusal {}

/// A query that passed the gate, with its AST for later analysis and rewriting.
#[derive(Debug, Clone)]
pub struct CheckedQuery {
    pub query: Box<Query>,
}

impl CheckedQuery {
    /// The query as SQL text, as sqlparser prints it.
    pub fn to_sql(&self) -> String {
        self.query.to_string()
    }
}

/// Parse `sql` with the PostgreSQL dialect and accept it only if it is exactly one read-only query.
pub fn check_query(sql: &str) -> Result<CheckedQuery, Refusal> {
    let statements = Parser::parse_sql(&PostgreSqlDialect {}, sql).map_err(|e| {
        // A statement sqlparser cannot parse may still be one we would refuse anyway (DO, LOCK,
        // ...): name it by its first keyword rather than blaming the syntax.
        match first_keyword(sql) {
            Some(word) if !QUERY_KEYWORDS.contains(&word.as_str()) => Refusal::NotAQuery(word),
            _ => {
                let msg = e.to_string();
                Refusal::Syntax(msg.strip_prefix("sql parser error: ").unwrap_or(&msg).to_string())
            }
        }
    })?;
    let mut statements = statements.into_iter();
    let first = match (statements.next(), statements.len()) {
        (None, _) => return Err(Refusal::Empty),
        (Some(s), 0) => s,
        (Some(_), rest) => return Err(Refusal::MultipleStatements(rest + 1)),
    };
    let query = match first {
        Statement::Query(q) => q,
        other => return Err(Refusal::NotAQuery(statement_kind(&other))),
    };
    let mut gate = Gate;
    if let ControlFlow::Break(refusal) = query.visit(&mut gate) {
        return Err(refusal);
    }
    Ok(CheckedQuery { query })
}

/// Words a query statement can start with.
const QUERY_KEYWORDS: &[&str] = &["SELECT", "WITH", "VALUES", "TABLE"];

/// The first token of `sql` if it is an SQL keyword, upper-cased; comments and whitespace
/// skipped. A misspelt word (`SELEC`) is no keyword, so its statement is a syntax error.
fn first_keyword(sql: &str) -> Option<String> {
    let tokens = Tokenizer::new(&PostgreSqlDialect {}, sql).tokenize().ok()?;
    tokens.into_iter().find_map(|t| match t {
        Token::Whitespace(_) => None,
        Token::Word(w) if w.quote_style.is_none() && w.keyword != sqlparser::keywords::Keyword::NoKeyword => {
            Some(Some(w.value.to_ascii_uppercase()))
        }
        _ => Some(None),
    })?
}

/// The leading keywords of a statement, e.g. `INSERT` or `CREATE TABLE`, for messages.
fn statement_kind(statement: &Statement) -> String {
    let text = statement.to_string();
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '(' || c == ';')
        .filter(|w| !w.is_empty())
        .take(2)
        .collect();
    match words.as_slice() {
        [first, second, ..]
            if matches!(
                first.to_ascii_uppercase().as_str(),
                "CREATE" | "DROP" | "ALTER" | "TRUNCATE" | "GRANT" | "REVOKE" | "COMMENT"
            ) && second.chars().all(|c| c.is_ascii_alphabetic()) =>
        {
            format!("{} {}", first.to_ascii_uppercase(), second.to_ascii_uppercase())
        }
        [first, ..] => first.to_ascii_uppercase(),
        [] => "an unknown statement".to_string(),
    }
}

/// Functions whose effects survive a rolled-back read-only subtransaction, reach other sessions
/// or the server's files, or execute SQL given as a string (which would bypass this gate).
/// Matched on the function's own name, case-insensitively, whatever its schema qualification.
const FORBIDDEN_FUNCTIONS: &[&str] = &[
    // settings and sequences (the engine blocks the sequence ones in read-only mode too)
    "set_config",
    "nextval",
    "setval",
    // signals and server administration
    "pg_cancel_backend",
    "pg_terminate_backend",
    "pg_reload_conf",
    "pg_rotate_logfile",
    "pg_log_backend_memory_contexts",
    "pg_promote",
    "pg_switch_wal",
    "pg_create_restore_point",
    "pg_backup_start",
    "pg_backup_stop",
    "pg_start_backup",
    "pg_stop_backup",
    "pg_wal_replay_pause",
    "pg_wal_replay_resume",
    "pg_import_system_collations",
    "pg_stat_reset",
    "pg_stat_reset_shared",
    "pg_stat_reset_single_table_counters",
    "pg_stat_reset_single_function_counters",
    "pg_stat_reset_slru",
    "pg_stat_reset_replication_slot",
    "pg_stat_reset_subscription_stats",
    // replication and non-transactional messages
    "pg_create_physical_replication_slot",
    "pg_create_logical_replication_slot",
    "pg_drop_replication_slot",
    "pg_copy_physical_replication_slot",
    "pg_copy_logical_replication_slot",
    "pg_replication_slot_advance",
    "pg_logical_slot_get_changes",
    "pg_logical_slot_get_binary_changes",
    "pg_logical_emit_message",
    "pg_replication_origin_create",
    "pg_replication_origin_drop",
    "pg_replication_origin_session_setup",
    "pg_replication_origin_advance",
    "pg_notify",
    // server files
    "pg_read_file",
    "pg_read_binary_file",
    "pg_ls_dir",
    "pg_stat_file",
    "pg_file_write",
    "pg_file_rename",
    "pg_file_unlink",
    "pg_file_sync",
    // large objects
    "lo_import",
    "lo_export",
    "lo_create",
    "lo_creat",
    "lo_unlink",
    "lo_from_bytea",
    "lo_put",
    "lo_open",
    "lowrite",
    "lo_truncate",
    "lo_truncate64",
    // SQL given as text
    "query_to_xml",
    "query_to_xmlschema",
    "query_to_xml_and_xmlschema",
    "cursor_to_xml",
    "cursor_to_xmlschema",
    "ts_stat",
];

/// Prefixes of forbidden function families.
const FORBIDDEN_PREFIXES: &[&str] = &["pg_advisory_", "pg_try_advisory_", "dblink"];

fn forbidden(name: &ObjectName) -> Option<String> {
    let last = name.0.last()?.as_ident()?.value.to_ascii_lowercase();
    let hit = FORBIDDEN_FUNCTIONS.contains(&last.as_str())
        || FORBIDDEN_PREFIXES.iter().any(|p| last.starts_with(p));
    hit.then(|| name.to_string())
}

struct Gate;

impl Visitor for Gate {
    type Break = Refusal;

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<Refusal> {
        if let Some(lock) = query.locks.first() {
            return ControlFlow::Break(Refusal::RowLocking(lock.to_string()));
        }
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                if let Some(kind) = modifying_kind(&cte.query.body) {
                    return ControlFlow::Break(Refusal::DataModifyingCte(kind.to_string()));
                }
            }
        }
        if let Some(kind) = modifying_kind(&query.body) {
            return ControlFlow::Break(Refusal::NotAQuery(kind.to_string()));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<Refusal> {
        if select.into.is_some() {
            return ControlFlow::Break(Refusal::SelectInto);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<Refusal> {
        if let Expr::Function(Function { name, .. }) = expr {
            if let Some(n) = forbidden(name) {
                return ControlFlow::Break(Refusal::ForbiddenFunction(n));
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<Refusal> {
        let name = match factor {
            TableFactor::Table { name, args: Some(_), .. } => Some(name),
            TableFactor::Function { name, .. } => Some(name),
            _ => None,
        };
        if let Some(n) = name.and_then(forbidden) {
            return ControlFlow::Break(Refusal::ForbiddenFunction(n));
        }
        ControlFlow::Continue(())
    }
}

/// `Some("INSERT")` etc. when a set expression modifies data, looking through parentheses and set operations.
fn modifying_kind(body: &SetExpr) -> Option<&'static str> {
    match body {
        SetExpr::Insert(_) => Some("INSERT"),
        SetExpr::Update(_) => Some("UPDATE"),
        SetExpr::Delete(_) => Some("DELETE"),
        SetExpr::Merge(_) => Some("MERGE"),
        SetExpr::Query(q) => modifying_kind(&q.body),
        SetExpr::SetOperation { left, right, .. } => {
            modifying_kind(left).or_else(|| modifying_kind(right))
        }
        SetExpr::Select(_) | SetExpr::Values(_) | SetExpr::Table(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(sql: &str) -> Refusal {
        match check_query(sql) {
            Ok(q) => panic!("accepted {sql:?} as {}", q.to_sql()),
            Err(r) => r,
        }
    }

    #[test]
    fn a_misspelt_statement_is_a_syntax_error_and_a_known_one_is_named() {
        let e = check_query("SELEC 1").unwrap_err();
        assert_eq!(e.sqlstate(), "42601", "{e}");
        assert!(e.to_string().starts_with("SQL could not be parsed"), "{e}");
        assert_eq!(check_query("LOCK TABLE t").unwrap_err(), Refusal::NotAQuery("LOCK".into()));
        assert_eq!(check_query("DO $$ BEGIN END $$").unwrap_err().sqlstate(), "25006");
    }

    #[test]
    fn accepts_read_only_queries() {
        for sql in [
            "SELECT 1",
            "select * from t where credit_limit > 5 order by 1 limit 3",
            "VALUES (1, 'a'), (2, 'b')",
            "WITH x AS (SELECT 1 AS a) SELECT a FROM x",
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r",
            "SELECT * FROM generate_series(1, 3) AS g(i)",
            "SELECT 'DELETE FROM t; DROP TABLE t' AS s",
            "SELECT 1 -- ; DROP TABLE t",
            "/* INSERT */ SELECT 2",
            "SELECT \"ünï\" FROM \"täble\"",
            "SELECT pg_sleep(0.1)",
            "(SELECT 1) UNION (SELECT 2) ORDER BY 1",
            "SELECT 1;",
        ] {
            assert!(check_query(sql).is_ok(), "refused {sql:?}: {:?}", check_query(sql).err());
        }
    }

    #[test]
    fn refuses_every_class_with_its_sqlstate() {
        let cases: &[(&str, &str)] = &[
            ("", "42601"),
            ("   -- only a comment", "42601"),
            ("SELEC 1", "42601"),
            ("SELECT (1", "42601"),
            ("TABLE pg_class", "42601"),
            ("LOCK TABLE t", "25006"),
            ("VACUUM t", "25006"),
            ("LISTEN c", "25006"),
            ("NOTIFY c", "25006"),
            ("SELECT 1; SELECT 2", "0A000"),
            ("SELECT 1; DELETE FROM t", "0A000"),
            ("INSERT INTO t VALUES (1)", "25006"),
            ("UPDATE t SET a = 1", "25006"),
            ("DELETE FROM t", "25006"),
            ("MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE", "25006"),
            ("CREATE TABLE t (a int)", "25006"),
            ("DROP TABLE t", "25006"),
            ("ALTER TABLE t ADD COLUMN b int", "25006"),
            ("TRUNCATE t", "25006"),
            ("GRANT SELECT ON t TO public", "25006"),
            ("COPY t TO '/tmp/x'", "25006"),
            ("CALL p()", "25006"),
            ("DO $$ BEGIN END $$", "25006"),
            ("SET search_path = x", "25006"),
            ("SET ROLE postgres", "25006"),
            ("EXPLAIN ANALYZE DELETE FROM t", "25006"),
            ("SELECT * INTO newt FROM t", "25006"),
            ("SELECT * FROM t FOR UPDATE", "25006"),
            ("SELECT * FROM (SELECT * FROM t FOR SHARE) s", "25006"),
            ("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", "25006"),
            ("WITH i AS (INSERT INTO t VALUES (1) RETURNING a) SELECT a FROM i", "25006"),
            ("SELECT set_config('role', 'postgres', false)", "42501"),
            ("SELECT nextval('s')", "42501"),
            ("SELECT pg_catalog.setval('s', 1)", "42501"),
            ("SELECT pg_advisory_lock(1)", "42501"),
            ("SELECT * FROM pg_try_advisory_lock(1)", "42501"),
            ("SELECT PG_TERMINATE_BACKEND(1)", "42501"),
            ("SELECT dblink_exec('host=x', 'drop table t')", "42501"),
            ("SELECT lo_import('/etc/passwd')", "42501"),
            ("SELECT query_to_xml('delete from t', true, true, '')", "42501"),
            ("SELECT a FROM t WHERE a IN (SELECT pg_notify('c', 'x'))", "42501"),
        ];
        for (sql, state) in cases {
            let r = refused(sql);
            assert_eq!(r.sqlstate(), *state, "{sql:?} gave {r:?}");
            assert!(!r.to_string().is_empty() && !r.hint().is_empty());
        }
    }

    #[test]
    fn messages_name_what_was_refused() {
        assert_eq!(refused("DELETE FROM t").to_string(), "only read-only queries are accepted, got DELETE");
        assert_eq!(
            refused("CREATE TABLE t (a int)").to_string(),
            "only read-only queries are accepted, got CREATE TABLE"
        );
        assert!(refused("SELECT pg_catalog.setval('s', 1)").to_string().contains("pg_catalog.setval"));
        assert!(refused("SELECT * FROM t FOR UPDATE").to_string().contains("FOR UPDATE"));
    }

    #[test]
    fn column_named_like_a_forbidden_function_is_fine() {
        assert!(check_query("SELECT nextval, setval FROM seqs").is_ok());
    }
}
