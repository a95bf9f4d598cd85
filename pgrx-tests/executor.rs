// The safe executor (`nl2sql_try`): an adversarial corpus, and proof that nothing changes.

/// Tables, a sequence, a temp table and functions with side effects for the corpus to attack.
fn executor_fixture() {
    exec(
        r#"
        CREATE TABLE ex_items (id serial PRIMARY KEY, name text NOT NULL, price numeric(10,2), added date);
        INSERT INTO ex_items (name, price, added)
            SELECT 'item ' || g, g * 1.5, date '2024-01-01' + g FROM generate_series(1, 20) g;
        CREATE SEQUENCE ex_seq;
        CREATE TEMP TABLE ex_scratch (a int);
        CREATE FUNCTION ex_sneaky_insert() RETURNS int LANGUAGE plpgsql VOLATILE AS
            $$ BEGIN INSERT INTO ex_items (name) VALUES ('sneaky'); RETURN 1; END $$;
        CREATE FUNCTION ex_bump() RETURNS bigint LANGUAGE sql VOLATILE AS $$ SELECT nextval('ex_seq') $$;
        CREATE FUNCTION ex_ddl() RETURNS int LANGUAGE plpgsql VOLATILE AS
            $$ BEGIN EXECUTE 'CREATE TABLE ex_evil (a int)'; RETURN 1; END $$;
        CREATE FUNCTION ex_temp_write() RETURNS int LANGUAGE plpgsql VOLATILE AS
            $$ BEGIN INSERT INTO ex_scratch VALUES (1); RETURN 1; END $$;
        CREATE FUNCTION ex_guc() RETURNS text LANGUAGE plpgsql VOLATILE AS
            $$ BEGIN PERFORM set_config('search_path', 'evil', false); RETURN current_setting('search_path'); END $$;
        CREATE FUNCTION ex_setval() RETURNS bigint LANGUAGE sql VOLATILE AS $$ SELECT setval('ex_seq', 1000) $$;
        "#,
    );
}

/// Everything a query must not change: data, sequences, catalog, settings, locks, identity.
fn executor_state() -> Value {
    json_of(
        r#"SELECT jsonb_build_object(
            'items', (SELECT count(*) FROM ex_items),
            'items_sum', (SELECT sum(price) FROM ex_items),
            'seq', (SELECT jsonb_build_array(last_value, is_called) FROM ex_seq),
            'scratch', (SELECT count(*) FROM ex_scratch),
            'relations', (SELECT count(*) FROM pg_class),
            'functions', (SELECT count(*) FROM pg_proc),
            'advisory_locks', (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()),
            'search_path', current_setting('search_path'),
            'datestyle', current_setting('DateStyle'),
            'read_only', current_setting('transaction_read_only'),
            'user', current_user,
            'role', current_setting('role'))"#,
    )
}

/// What a corpus entry must produce.
#[derive(Debug)]
enum Expect {
    /// Refused before running, with this SQLSTATE.
    Refused(&'static str),
    /// Ran and failed in the engine with this SQLSTATE.
    Failed(&'static str),
    /// Ran and returned rows.
    Rows,
    /// Any clear answer (rows, failure or refusal); the state check still applies.
    Clear,
}

fn check_expectation(sql: &str, got: &Value, expect: &Expect) {
    let ok = got["ok"].as_bool();
    let refused = got["refused"].as_bool().unwrap_or(false);
    let state = got["sqlstate"].as_str().unwrap_or("");
    let clear = match ok {
        Some(true) => got["rows"].is_array() && got["columns"].is_array(),
        Some(false) => state.len() == 5 && !got["error"].as_str().unwrap_or("").is_empty(),
        None => false,
    };
    assert!(clear, "{sql:?}: not a clear answer: {got}");
    let pass = match expect {
        Expect::Refused(s) => refused && state == *s,
        Expect::Failed(s) => ok == Some(false) && !refused && state == *s,
        Expect::Rows => ok == Some(true),
        Expect::Clear => true,
    };
    assert!(pass, "{sql:?}: expected {expect:?}, got {got}");
    if let Some(n) = got["row_count"].as_u64() {
        assert!(n <= 100, "{sql:?}: {n} rows exceed the bound");
    }
}

#[pg_test]
fn executor_adversarial_corpus_changes_nothing() {
    use Expect::*;
    executor_fixture();
    exec("SET LOCAL nl2sql.statement_timeout = 400");
    let before = executor_state();
    let deep_parens = format!("SELECT {}1{}", "(".repeat(500), ")".repeat(500));
    let long_sum = format!("SELECT {}1", "1 + ".repeat(20_000));
    let wide = format!(
        "SELECT {}",
        (1..=400).map(|i| format!("{i} AS c{i}")).collect::<Vec<_>>().join(", ")
    );
    let corpus: Vec<(String, Expect)> = vec![
        // refused classes
        ("".into(), Refused("42601")),
        ("   -- nothing but a comment".into(), Refused("42601")),
        (";".into(), Refused("42601")),
        ("SELECT (1".into(), Refused("42601")),
        ("SELECT 1; SELECT 2".into(), Refused("0A000")),
        ("SELECT * FROM ex_items; DROP TABLE ex_items".into(), Refused("0A000")),
        ("INSERT INTO ex_items (name) VALUES ('x')".into(), Refused("25006")),
        ("UPDATE ex_items SET price = 0".into(), Refused("25006")),
        ("DELETE FROM ex_items".into(), Refused("25006")),
        ("MERGE INTO ex_items t USING ex_items s ON t.id = s.id WHEN MATCHED THEN DELETE".into(), Refused("25006")),
        ("TRUNCATE ex_items".into(), Refused("25006")),
        ("DROP TABLE ex_items".into(), Refused("25006")),
        ("CREATE TABLE ex_new (a int)".into(), Refused("25006")),
        ("CREATE TEMP TABLE ex_t AS SELECT 1".into(), Refused("25006")),
        ("ALTER TABLE ex_items ADD COLUMN b int".into(), Refused("25006")),
        ("ALTER SYSTEM SET work_mem = '1GB'".into(), Refused("25006")),
        ("GRANT ALL ON ex_items TO PUBLIC".into(), Refused("25006")),
        ("COPY ex_items TO STDOUT".into(), Refused("25006")),
        ("COPY (SELECT 1) TO PROGRAM 'id'".into(), Refused("25006")),
        ("CALL ex_proc()".into(), Refused("25006")),
        ("DO $$ BEGIN DELETE FROM ex_items; END $$".into(), Refused("25006")),
        ("SET search_path = evil".into(), Refused("25006")),
        ("SET ROLE postgres".into(), Refused("25006")),
        ("RESET ALL".into(), Refused("25006")),
        ("BEGIN".into(), Refused("25006")),
        ("COMMIT".into(), Refused("25006")),
        ("SAVEPOINT s".into(), Refused("25006")),
        ("LISTEN ch".into(), Refused("25006")),
        ("NOTIFY ch".into(), Refused("25006")),
        ("VACUUM ex_items".into(), Refused("25006")),
        ("EXPLAIN ANALYZE DELETE FROM ex_items".into(), Refused("25006")),
        ("SELECT * INTO ex_copy FROM ex_items".into(), Refused("25006")),
        ("SELECT * FROM ex_items FOR UPDATE".into(), Refused("25006")),
        ("SELECT * FROM (SELECT * FROM ex_items FOR SHARE) s".into(), Refused("25006")),
        ("WITH d AS (DELETE FROM ex_items RETURNING *) SELECT count(*) FROM d".into(), Refused("25006")),
        ("WITH u AS (UPDATE ex_items SET price = 0 RETURNING id) SELECT * FROM u".into(), Refused("25006")),
        // functions with effects beyond the query
        ("SELECT set_config('search_path', 'evil', false)".into(), Refused("42501")),
        ("SELECT nextval('ex_seq')".into(), Refused("42501")),
        ("SELECT pg_catalog.setval('ex_seq', 99)".into(), Refused("42501")),
        ("SELECT pg_advisory_lock(42)".into(), Refused("42501")),
        ("SELECT * FROM pg_try_advisory_lock(42)".into(), Refused("42501")),
        ("SELECT pg_advisory_xact_lock(42)".into(), Refused("42501")),
        ("SELECT pg_terminate_backend(pg_backend_pid())".into(), Refused("42501")),
        ("SELECT pg_cancel_backend(pg_backend_pid())".into(), Refused("42501")),
        ("SELECT pg_reload_conf()".into(), Refused("42501")),
        ("SELECT pg_notify('ch', 'x')".into(), Refused("42501")),
        ("SELECT lo_import('/etc/passwd')".into(), Refused("42501")),
        ("SELECT pg_read_file('/etc/passwd')".into(), Refused("42501")),
        ("SELECT query_to_xml('DELETE FROM ex_items', true, true, '')".into(), Refused("42501")),
        ("SELECT pg_logical_emit_message(false, 'p', 'm')".into(), Refused("42501")),
        ("SELECT id FROM ex_items WHERE id IN (SELECT pg_advisory_lock(id) FROM ex_items)".into(), Refused("42501")),
        // the engine is the last line of defence: volatile functions with side effects
        ("SELECT ex_sneaky_insert()".into(), Failed("25006")),
        ("SELECT ex_bump()".into(), Failed("25006")),
        ("SELECT ex_setval()".into(), Failed("25006")),
        ("SELECT ex_ddl()".into(), Failed("25006")),
        ("SELECT s.* FROM ex_items, LATERAL (SELECT ex_sneaky_insert()) s".into(), Failed("25006")),
        // allowed in read-only mode, undone by the rollback
        ("SELECT ex_temp_write()".into(), Rows),
        ("SELECT ex_guc()".into(), Rows),
        ("SELECT ex_sneaky_insert() FROM ex_items WHERE false".into(), Rows),
        // time and size bounds
        ("SELECT pg_sleep(5)".into(), Failed("57014")),
        ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r".into(), Failed("57014")),
        ("SELECT g FROM generate_series(1, 100000) g".into(), Rows),
        ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r".into(), Rows),
        ("SELECT repeat('x', 5000000) AS big".into(), Rows),
        (wide, Rows),
        (deep_parens, Clear),
        (long_sum, Clear),
        // engine errors come back as values
        ("SELECT * FROM ex_missing".into(), Failed("42P01")),
        ("SELECT 1 / 0".into(), Failed("22012")),
        ("SELECT 'abc'::int".into(), Failed("22P02")),
        // comment, quoting and Unicode tricks
        ("SELECT 1 /* ; DELETE FROM ex_items */".into(), Rows),
        ("SELECT 1; -- DELETE FROM ex_items".into(), Rows),
        ("SELECT 'a'';DELETE FROM ex_items;--' AS s".into(), Rows),
        ("SELECT $$; DELETE FROM ex_items; $$ AS s".into(), Rows),
        ("SELECT $tag$ $$ ; DROP TABLE ex_items $tag$ AS s".into(), Clear),
        ("SELECT E'\\'; DELETE FROM ex_items; --' AS s".into(), Clear),
        ("SELECT /* nested /* comment */ DELETE FROM ex_items */ 1".into(), Clear),
        ("SELECT 'héllo ✓ 日本語 🐘' AS \"ünïcödé\"".into(), Rows),
        ("SELECT name FROM ex_items WHERE name = 'item 1\u{202e}' ".into(), Rows),
        ("SELECT \"naïve\" FROM (SELECT 1 AS \"naïve\") s".into(), Rows),
        ("sElEcT * FrOm ex_items wHeRe id < 3".into(), Rows),
        ("VALUES (1, 'a'), (2, 'b')".into(), Rows),
        ("(SELECT 1) UNION (SELECT 2) ORDER BY 1".into(), Rows),
        ("WITH x AS (SELECT id FROM ex_items) SELECT count(*) FROM x".into(), Rows),
        ("SELECT current_setting('transaction_read_only')".into(), Rows),
    ];
    assert!(corpus.len() >= 50, "corpus has {} inputs", corpus.len());
    for (sql, expect) in &corpus {
        let got = try_sql(sql, 100);
        check_expectation(sql, &got, expect);
        assert_eq!(executor_state(), before, "{sql:?} changed the state");
    }
    // the caller's transaction is still usable, for reads and writes
    exec("INSERT INTO ex_items (name) VALUES ('after the corpus')");
    assert_eq!(Spi::get_one::<i64>("SELECT count(*) FROM ex_items").unwrap(), Some(21));
}

#[pg_test]
fn executor_reports_read_only_and_timeouts_as_such() {
    executor_fixture();
    let r = try_sql("SELECT current_setting('transaction_read_only') AS ro, current_setting('DateStyle') AS ds", 10);
    assert_eq!(r["rows"], json!([["on", "ISO, YMD"]]));
    exec("SET LOCAL nl2sql.statement_timeout = 200");
    let t = try_sql("SELECT pg_sleep(3)", 10);
    assert_eq!(t["timed_out"], json!(true), "{t}");
    assert_eq!(t["sqlstate"], json!("57014"));
    assert!(t["error"].as_str().unwrap().contains("nl2sql.statement_timeout (200 ms)"), "{t}");
    assert!(t["elapsed_ms"].as_f64().unwrap() < 2000.0, "{t}");
    // the caller's own statement_timeout keeps working after ours fired
    assert_eq!(Spi::get_one::<i32>("SELECT 1").unwrap(), Some(1));
}

#[pg_test]
fn executor_values_keep_their_types() {
    let r = try_sql(
        "SELECT 1::int2 AS a, 2::bigint AS b, 1.25::float8 AS c, 10.50::numeric(6,2) AS d, true AS e,
                '{\"k\": [1, 2]}'::jsonb AS f, date '2024-02-29' AS g, timestamp '2024-02-29 13:14:15' AS h,
                NULL::text AS i, ARRAY[1, 2] AS j, 'NaN'::float8 AS k, interval '1 day 2 hours' AS l",
        10,
    );
    assert_eq!(r["ok"], json!(true), "{r}");
    // numeric keeps its scale (10.50), as PostgreSQL prints it
    let expected: Value = serde_json::from_str(
        r#"[1, 2, 1.25, 10.50, true, {"k": [1, 2]}, "2024-02-29", "2024-02-29 13:14:15", null, "{1,2}", "NaN", "P1DT2H"]"#,
    )
    .unwrap();
    assert_eq!(r["rows"][0], expected);
    let types: Vec<&str> = r["columns"].as_array().unwrap().iter().map(|c| c["type"].as_str().unwrap()).collect();
    assert_eq!(types[..4], ["smallint", "bigint", "double precision", "numeric"]);
    assert_eq!(r["columns"][6], json!({"name": "g", "type": "date"}));
}

#[pg_test]
fn executor_bounds_rows_and_bytes() {
    let r = try_sql("SELECT g FROM generate_series(1, 1000) g", 7);
    assert_eq!((r["row_count"].clone(), r["truncated"].clone()), (json!(7), json!(true)));
    assert_eq!(r["truncated_by"], json!("max_rows"));
    let exact = try_sql("SELECT g FROM generate_series(1, 7) g", 7);
    assert_eq!((exact["row_count"].clone(), exact["truncated"].clone()), (json!(7), json!(false)));
    let cols_only = try_sql("SELECT g AS only_col FROM generate_series(1, 5) g", 0);
    assert_eq!(cols_only["columns"], json!([{"name": "only_col", "type": "integer"}]));
    assert_eq!(cols_only["row_count"], json!(0));
    exec("SET LOCAL nl2sql.max_result_bytes = 4096");
    let big = try_sql("SELECT repeat('x', 1000) FROM generate_series(1, 50)", 100);
    assert_eq!(big["truncated_by"], json!("max_bytes"), "{big}");
    assert!(big["row_count"].as_u64().unwrap() <= 4);
    exec("SET LOCAL nl2sql.max_rows_limit = 3");
    assert_eq!(try_sql("SELECT g FROM generate_series(1, 10) g", 100)["row_count"], json!(3));
}

#[pg_test(error = "max_rows must not be negative")]
fn executor_rejects_negative_max_rows() {
    try_sql("SELECT 1", -1);
}

#[pg_test]
fn executor_runs_as_the_execution_role() {
    executor_fixture();
    exec(
        "CREATE ROLE ex_reader NOLOGIN;
         GRANT SELECT (id, name) ON ex_items TO ex_reader;
         CREATE TABLE ex_secret (s text); INSERT INTO ex_secret VALUES ('hidden');",
    );
    exec("SET LOCAL nl2sql.execution_role = 'ex_reader'");
    let who = try_sql("SELECT current_user::text", 1);
    assert_eq!(who["rows"], json!([["ex_reader"]]));
    let secret = try_sql("SELECT s FROM ex_secret", 10);
    assert_eq!(secret["sqlstate"], json!("42501"), "{secret}");
    let column = try_sql("SELECT price FROM ex_items", 10);
    assert_eq!(column["sqlstate"], json!("42501"), "{column}");
    assert_eq!(try_sql("SELECT count(name) FROM ex_items", 1)["rows"], json!([[20]]));
    // the role switch ends with the call
    assert_eq!(Spi::get_one::<String>("SELECT current_user::text").unwrap().unwrap(), "postgres");
    exec("SET LOCAL nl2sql.execution_role = 'ex_no_such_role'");
    let missing = try_sql("SELECT 1", 1);
    assert_eq!(missing["ok"], json!(false), "{missing}");
    assert!(missing["error"].as_str().unwrap().contains("ex_no_such_role"), "{missing}");
}

/// A second connection, through dblink, that cancels this backend after a delay.
fn arm_canceller(delay_s: f64) {
    exec("CREATE EXTENSION IF NOT EXISTS dblink");
    exec(
        "SELECT dblink_connect('canceller', format('host=localhost port=%s dbname=%s user=%s',
                current_setting('port'), current_database(), current_user))",
    );
    Spi::run_with_args(
        "SELECT dblink_send_query('canceller', format('SELECT pg_sleep(%s), pg_cancel_backend(%s)', $1, pg_backend_pid()))",
        &[delay_s.into()],
    )
    .unwrap();
}

/// Seconds from now until `call` returned control because of a query cancel (-1: no cancel).
fn seconds_until_cancelled(call: &str) -> f64 {
    exec(&format!(
        "CREATE OR REPLACE FUNCTION pg_temp.time_cancel() RETURNS float8 LANGUAGE plpgsql AS $f$
         DECLARE t0 timestamptz := clock_timestamp();
         BEGIN
             BEGIN
                 PERFORM {call};
             EXCEPTION WHEN query_canceled THEN
                 RETURN extract(epoch FROM clock_timestamp() - t0);
             END;
             RETURN -1;
         END $f$"
    ));
    arm_canceller(1.0);
    let secs = Spi::get_one::<f64>("SELECT pg_temp.time_cancel()").unwrap().unwrap();
    // the canceller has done its work (or the call ended first: the test fails on `secs`)
    exec("SELECT dblink_disconnect('canceller')");
    secs
}

#[pg_test]
fn executor_honours_query_cancel_promptly() {
    exec("SET LOCAL nl2sql.statement_timeout = 60000");
    let secs = seconds_until_cancelled("nl2sql_try('SELECT pg_sleep(30)')");
    // the cancel arrives after 1 s; control must be back within 2 s of it
    assert!((0.9..3.0).contains(&secs), "cancel took {secs} s");
    // and the cancel was not swallowed into a timeout result
    assert_eq!(Spi::get_one::<i32>("SELECT 1").unwrap(), Some(1));
}
