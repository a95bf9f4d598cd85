// Choosing among candidates: separating instances on the real cluster, the gate, the tournament.

/// `nl2sql_distinguish(a, b, options)` as JSON.
fn distinguish(a: &str, b: &str, options: &str) -> Value {
    Spi::get_one_with_args::<JsonB>(
        "SELECT nl2sql_distinguish($1, $2, $3::jsonb)",
        &[a.into(), b.into(), options.into()],
    )
    .unwrap_or_else(|e| panic!("nl2sql_distinguish({a:?}, {b:?}): {e}"))
    .map(|j| j.0)
    .unwrap_or(Value::Null)
}

/// Instance tables left in this backend's temp schema.
fn instance_tables_left() -> i64 {
    Spi::get_one::<i64>("SELECT count(*) FROM pg_class WHERE relname LIKE '\\_\\_nl2sql\\_instance%'").unwrap().unwrap()
}

/// Rebuild an instance independently (temp tables shadowing the real ones, rows from the JSON),
/// run both queries on it with nl2sql_try, and return their row sets (sorted, deduplicated).
fn rerun_on_instance(instance: &Value, a: &str, b: &str) -> (Vec<Value>, Vec<Value>) {
    let tables = instance["tables"].as_array().expect("tables");
    for t in tables {
        let table = t["table"].as_str().unwrap();
        let name = table.rsplit('.').next().unwrap();
        exec(&format!("CREATE TEMP TABLE {name} (LIKE {table})"));
        let columns: Vec<String> = t["columns"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
        let objects: Vec<Value> = t["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| Value::Object(columns.iter().cloned().zip(r.as_array().unwrap().iter().cloned()).collect()))
            .collect();
        Spi::run_with_args(
            &format!("INSERT INTO pg_temp.{name} SELECT * FROM jsonb_populate_recordset(NULL::pg_temp.{name}, $1)"),
            &[JsonB(Value::Array(objects.clone())).into()],
        )
        .unwrap();
        // every instance row is a real row of the table
        let foreign = Spi::get_one_with_args::<i64>(
            &format!(
                "SELECT count(*) FROM jsonb_populate_recordset(NULL::{table}, $1) r
                  WHERE NOT EXISTS (SELECT 1 FROM {table} x WHERE x IS NOT DISTINCT FROM r)"
            ),
            &[JsonB(Value::Array(objects)).into()],
        )
        .unwrap()
        .unwrap();
        assert_eq!(foreign, 0, "instance rows of {table} that are not in the table");
    }
    let rows = |sql: &str| -> Vec<Value> {
        let r = try_sql(sql, 1000);
        assert_eq!(r["ok"], json!(true), "{sql} on the instance: {r}");
        let mut v: Vec<Value> = r["rows"].as_array().unwrap().clone();
        v.sort_by_key(|x| x.to_string());
        v.dedup();
        v
    };
    let out = (rows(a), rows(b));
    for t in tables {
        exec(&format!("DROP TABLE pg_temp.{}", t["table"].as_str().unwrap().rsplit('.').next().unwrap()));
    }
    out
}

#[pg_test]
fn distinguish_separates_each_kind_of_difference() {
    load_bookshop();
    let pairs: &[(&str, &str, &str, &str)] = &[
        ("a filter value", "SELECT count(*) FROM books WHERE price > 12", "SELECT count(*) FROM books WHERE price >= 12", "{}"),
        (
            "a join path",
            "SELECT a.name FROM authors a JOIN books b ON b.author_id = a.author_id WHERE b.genre = 'fantasy'",
            "SELECT a.name FROM authors a JOIN books b ON b.book_id = a.author_id WHERE b.genre = 'fantasy'",
            "{}",
        ),
        ("a missing DISTINCT", "SELECT author_id FROM books", "SELECT DISTINCT author_id FROM books", "{\"compare\": \"bag\"}"),
        ("an aggregate", "SELECT avg(price) FROM books", "SELECT max(price) FROM books", "{}"),
        (
            "an ORDER BY … LIMIT",
            "SELECT title FROM books ORDER BY price DESC LIMIT 1",
            "SELECT title FROM books ORDER BY price ASC LIMIT 1",
            "{}",
        ),
        ("NULL handling", "SELECT count(*) FROM books WHERE pages <> 200", "SELECT count(*) FROM books WHERE pages IS DISTINCT FROM 200", "{}"),
        (
            "an anti-join",
            "SELECT c.name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.customer_id)",
            "SELECT c.name FROM customers c",
            "{}",
        ),
    ];
    for (what, a, b, options) in pairs {
        let d = distinguish(a, b, options);
        assert_eq!(d["differ"], json!(true), "{what}: {d}");
        assert_eq!(d["found"], json!(true), "{what}: {d}");
        let n = d["instance"]["row_count"].as_u64().unwrap();
        assert!((1..=4).contains(&n), "{what}: a {n}-row instance: {d}");
        assert_ne!(d["answer_a"], d["answer_b"], "{what}");
        // the instance really separates the pair when rebuilt independently
        if *options == "{}" {
            let (ra, rb) = rerun_on_instance(&d["instance"], a, b);
            assert_ne!(ra, rb, "{what}: both queries agree on the rebuilt instance {}", d["instance"]);
        }
        assert_eq!(instance_tables_left(), 0, "{what}: instance tables left behind");
    }
}

#[pg_test]
fn distinguish_closes_instances_over_foreign_keys() {
    load_bookshop();
    let d = distinguish(
        "SELECT o.order_id FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.city = 'Paris'",
        "SELECT o.order_id FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.city <> 'Paris'",
        "{}",
    );
    assert_eq!(d["found"], json!(true), "{d}");
    // an order in the instance comes with its customer
    let tables = d["instance"]["tables"].as_array().unwrap();
    let rows_of = |name: &str| tables.iter().find(|t| t["table"] == json!(name)).map(|t| t["rows"].as_array().unwrap().len()).unwrap_or(0);
    assert!(rows_of("public.orders") >= 1 && rows_of("public.customers") >= 1, "{d}");
}

#[pg_test]
fn distinguish_reports_queries_that_agree_and_refuses_bad_input() {
    load_bookshop();
    let d = distinguish("SELECT count(*) FROM books WHERE price > 20", "SELECT count(*) FROM books WHERE price >= 20.01", "{}");
    assert_eq!(d["differ"], json!(false), "{d}");
    assert!(d["reason"].as_str().unwrap().contains("same result"), "{d}");
    // a missing DISTINCT is no difference when rows compare as sets; as bags (the default) it is one
    let d = distinguish("SELECT author_id FROM books", "SELECT DISTINCT author_id FROM books", "{\"compare\": \"set\"}");
    assert_eq!(d["differ"], json!(false), "{d}");
    let d = distinguish("SELECT author_id FROM books", "SELECT DISTINCT author_id FROM books", "{}");
    assert_eq!((d["differ"].clone(), d["full_database"]["compared_as"].clone()), (json!(true), json!("bag")), "{d}");
    // DML is refused with its SQLSTATE; so are unknown options
    let err = error_of("nl2sql_distinguish('DELETE FROM books', 'SELECT 1')").expect("an error");
    assert!(err.starts_with("25006: query A is refused"), "{err}");
    let err = error_of("nl2sql_distinguish('SELECT 1', 'SELECT 2', '{\"bogus\": 1}')").expect("an error");
    assert!(err.starts_with("22023: unknown option \"bogus\""), "{err}");
    let err = error_of("nl2sql_distinguish('SELECT 1 FROM nope', 'SELECT 2')").expect("an error");
    assert!(err.contains("query A failed on the database: relation \"nope\" does not exist"), "{err}");
    assert_eq!(instance_tables_left(), 0);
}

#[pg_test]
fn distinguish_leaves_nothing_behind_when_cancelled() {
    load_bookshop();
    exec("SET LOCAL nl2sql.statement_timeout = 60000");
    // B sleeps only where few books exist: on an instance, never on the full table
    let secs = seconds_until_cancelled(
        "nl2sql_distinguish('SELECT count(*) FROM books WHERE price > 12', \
         'SELECT count(*) FROM books WHERE price >= 12 AND CASE WHEN (SELECT count(*) FROM books) < 10 THEN pg_sleep(20) IS NOT NULL ELSE true END')",
    );
    assert!((0.9..3.0).contains(&secs), "cancel took {secs} s");
    assert_eq!(instance_tables_left(), 0, "instance tables survived the cancel");
}

#[pg_test]
fn instances_hold_only_rows_the_caller_can_select() {
    load_bookshop();
    exec(
        "CREATE ROLE sel_reader NOLOGIN;
         GRANT SELECT ON books, authors TO sel_reader;
         ALTER TABLE books ENABLE ROW LEVEL SECURITY;
         CREATE POLICY no_fantasy ON books FOR SELECT TO sel_reader USING (genre <> 'fantasy');
         CREATE ROLE sel_narrow NOLOGIN;
         GRANT SELECT (book_id, title, price) ON books TO sel_narrow;
         CREATE POLICY all_rows ON books FOR SELECT TO sel_narrow USING (true);",
    );
    exec("SET LOCAL ROLE sel_reader");
    // differ only on fantasy books, which this role cannot see: no difference for it
    let d = distinguish(
        "SELECT count(*) FROM books WHERE genre = 'fantasy'",
        "SELECT count(*) FROM books WHERE genre = 'fantasy' AND price > 100",
        "{}",
    );
    assert_eq!(d["differ"], json!(false), "{d}");
    // a pair that differs on visible rows gets an instance without any hidden row
    let d = distinguish("SELECT title FROM books WHERE price > 12", "SELECT title FROM books WHERE price >= 12", "{}");
    assert_eq!(d["found"], json!(true), "{d}");
    for t in d["instance"]["tables"].as_array().unwrap() {
        let cols = t["columns"].as_array().unwrap();
        if let Some(g) = cols.iter().position(|c| c == "genre") {
            for r in t["rows"].as_array().unwrap() {
                assert_ne!(r[g], json!("fantasy"), "a hidden row in the instance: {d}");
            }
        }
    }
    exec("RESET ROLE");
    // without SELECT on every column the rows cannot be read whole (by ctid): no instance, and why
    exec("SET LOCAL ROLE sel_narrow");
    let err = error_of(
        "nl2sql_distinguish('SELECT count(*) FROM books WHERE price > 12', 'SELECT count(*) FROM books WHERE price >= 12')",
    );
    exec("RESET ROLE");
    assert_eq!(
        err.as_deref(),
        Some("0A000: no separating instance can be built: an instance is cut from whole rows of public.books, and you may SELECT only some of its columns (a column-level grant)")
    );
    assert_eq!(instance_tables_left(), 0);
}

/// (candidate, status, cluster, chosen, reason, instance) of each row of nl2sql_select.
fn select_rows(question: &str, candidates: &[&str], options: &str) -> Vec<(i32, String, Option<i32>, bool, String, Option<Value>)> {
    let cands: Vec<Option<String>> = candidates.iter().map(|c| Some(c.to_string())).collect();
    Spi::connect(|c| {
        c.select(
            "SELECT candidate, status, cluster, chosen, reason, instance FROM nl2sql_select($1, $2, NULL, $3::jsonb) ORDER BY candidate",
            None,
            &[question.into(), cands.into(), options.into()],
        )
        .unwrap()
        .map(|r| {
            (
                r.get::<i32>(1).unwrap().unwrap(),
                r.get::<String>(2).unwrap().unwrap(),
                r.get::<i32>(3).unwrap(),
                r.get::<bool>(4).unwrap().unwrap(),
                r.get::<String>(5).unwrap().unwrap(),
                r.get::<JsonB>(6).unwrap().map(|j| j.0),
            )
        })
        .collect()
    })
}

#[pg_test]
fn select_gate_chooses_the_largest_cluster_without_the_model() {
    load_bookshop();
    // an endpoint that is down proves no model call is made
    exec("SET LOCAL nl2sql.llm_endpoint = 'http://127.0.0.1:9/v1'");
    let rows = select_rows(
        "How many books cost more than 12?",
        &[
            "SELECT count(*) FROM books WHERE price > 12",
            "SELECT count(*) FROM books WHERE price >= 12",
            "SELECT count(*) AS n FROM books WHERE 12 < price",
            "DELETE FROM books",
            "SELECT count(*) FROM bookz",
        ],
        "{}",
    );
    assert_eq!(rows.iter().filter(|r| r.3).count(), 1);
    assert!(rows[0].3, "{rows:?}");
    assert_eq!(rows[2].2, rows[0].2, "same result, same cluster");
    assert_eq!((rows[3].1.as_str(), rows[4].1.as_str()), ("refused", "error"));
    assert!(rows[0].4.contains("2 of 3"), "{}", rows[0].4);
    // the run is in the audit log
    let logged = json_of(
        "SELECT jsonb_build_object('status', status, 'sql', chosen_sql, 'calls', llm_calls,
                'stages', (SELECT jsonb_agg(stage ORDER BY step) FROM nl2sql.steps s WHERE s.run_id = r.run_id))
           FROM nl2sql.runs r WHERE function = 'nl2sql_select' ORDER BY run_id DESC LIMIT 1",
    );
    assert_eq!(logged["status"], json!("ok"));
    assert_eq!(logged["sql"], json!("SELECT count(*) FROM books WHERE price > 12"));
    assert_eq!(logged["calls"], json!(0));
    assert_eq!(logged["stages"], json!(["execute", "cluster", "chosen"]));
    // nothing ran: no choice, and the run says so
    let rows = select_rows("q", &["DELETE FROM books", "SELECT nope"], "{}");
    assert!(rows.iter().all(|r| !r.3), "{rows:?}");
}

#[pg_test]
fn select_tournament_follows_the_votes() {
    // a scripted judge (control flow only): every vote names the author of the cheapest book
    load_bookshop();
    let url = scripted_llm(&["{\"reasoning\": \"x\", \"rows\": [[\"Anonymous Collective\"]]}"], 3);
    exec(&format!("SET LOCAL nl2sql.llm_endpoint = '{url}'"));
    let most = "SELECT a.name FROM authors a JOIN books b ON b.author_id = a.author_id ORDER BY b.price DESC LIMIT 1";
    let least = "SELECT a.name FROM authors a JOIN books b ON b.author_id = a.author_id ORDER BY b.price ASC LIMIT 1";
    let rows = select_rows("Which author wrote the cheapest book?", &[most, most, least], "{\"select_gate\": 0.9}");
    assert!(rows[2].3, "the candidate the votes agree with wins over the larger cluster: {rows:?}");
    assert!(rows[2].4.contains("won 1 of 1 duels") && rows[2].4.contains("Anonymous Collective"), "{}", rows[2].4);
    assert!(rows[0].4.contains("lost to candidate 3"), "{}", rows[0].4);
    let duel = &rows[2].5.as_ref().expect("the representative carries its duel")["duels"][0]["duel"];
    assert_eq!(duel["found"], json!(true));
    assert_eq!(duel["model_answers"].as_array().unwrap().len(), 3);
    assert!(duel["instance"]["row_count"].as_u64().unwrap() <= 4, "{duel}");
}

#[pg_test]
fn select_with_the_local_model_plays_a_duel_and_chooses_one() {
    load_bookshop();
    let most = "SELECT a.name FROM authors a JOIN books b ON b.author_id = a.author_id ORDER BY b.price DESC LIMIT 1";
    let least = "SELECT a.name FROM authors a JOIN books b ON b.author_id = a.author_id ORDER BY b.price ASC LIMIT 1";
    // the verifier off: it would settle this split by itself ("most expensive" against ORDER BY … ASC),
    // and this test is about the duel
    let rows = select_rows("Which author wrote the most expensive book?", &[most, least], "{\"votes\": 1, \"verify\": false}");
    assert_eq!(rows.iter().filter(|r| r.3).count(), 1, "{rows:?}");
    let duel = &rows[0].5.as_ref().expect("a duel was played")["duels"][0]["duel"];
    assert_eq!(duel["found"], json!(true), "{duel}");
    let answers = duel["model_answers"].as_array().unwrap();
    assert_eq!(answers.len(), 1);
    // the real model answered in the required shape: rows, each scored against both candidates
    assert!(answers[0].get("rows").is_some() && answers[0].get("soft_f1_a").is_some(), "{duel}");
    let calls = Spi::get_one::<i32>("SELECT llm_calls FROM nl2sql.runs WHERE function = 'nl2sql_select' ORDER BY run_id DESC LIMIT 1").unwrap();
    assert_eq!(calls, Some(1));
}

#[pg_test]
fn feedback_moves_expert_weights_and_records_examples() {
    load_bookshop();
    let cands = ["SELECT count(*) FROM books WHERE price >= 12", "SELECT count(*) FROM books WHERE 12 <= price", "SELECT count(*) FROM books WHERE price > 12"];
    let opts = "{\"experts\": [\"alpha\", \"beta\", \"gamma\"], \"adjudicate\": false}";
    let ask = || -> (Vec<(i32, String, Option<i32>, bool, String, Option<Value>)>, i64) {
        let rows = select_rows("How many books cost more than 12?", &cands, opts);
        let run = Spi::get_one::<i64>("SELECT max(run_id) FROM nl2sql.runs WHERE function = 'nl2sql_select'").unwrap().unwrap();
        (rows, run)
    };
    let (rows, run) = ask();
    assert!(rows[0].3, "alpha and beta outweigh gamma at first: {rows:?}");
    let fb = |sql: &str| json_of(&format!("SELECT nl2sql_feedback({run}, $${sql}$$)"));
    let r = fb(cands[2]);
    assert_eq!(r["experts"]["alpha"]["mistaken"], json!(true), "{r}");
    assert_eq!(r["experts"]["gamma"]["mistaken"], json!(false), "{r}");
    assert!((r["experts"]["alpha"]["after"].as_f64().unwrap() - 0.5).abs() < 1e-9, "{r}");
    assert!(r["example_id"].as_i64().is_some(), "{r}");
    let (_, run) = ask();
    json_of(&format!("SELECT nl2sql_feedback({run}, $${}$$)", cands[2]));
    // gamma now outweighs the other two together: the weighted gate picks its candidate
    let (rows, _) = ask();
    assert!(rows[2].3, "{rows:?}");
    let w = json_of("SELECT jsonb_object_agg(expert, jsonb_build_array(rounds, mistakes)) FROM nl2sql.experts");
    assert_eq!(w["alpha"], json!([2, 2]));
    assert_eq!(w["gamma"], json!([2, 0]));
    let examples = Spi::get_one::<i64>("SELECT count(*) FROM nl2sql.examples WHERE question = 'How many books cost more than 12?'").unwrap();
    // the same question confirmed again replaces its example (since 0.6.0)
    assert_eq!(examples, Some(1));
    // a bare 'wrong' penalises the experts that agreed with the chosen SQL and adds no example
    let (_, run) = ask();
    let r = json_of(&format!("SELECT nl2sql_feedback({run}, verdict => 'wrong')"));
    assert_eq!(r["example_id"], Value::Null, "{r}");
    assert_eq!(r["experts"]["gamma"]["mistaken"], json!(true), "{r}");
    // without UPDATE on nl2sql.experts: refused
    exec("CREATE ROLE fb_user NOLOGIN; GRANT SELECT ON books TO fb_user; GRANT SELECT ON nl2sql.runs, nl2sql.steps TO fb_user");
    exec("SET LOCAL ROLE fb_user");
    let err = error_of(&format!("nl2sql_feedback({run}, verdict => 'correct')"));
    exec("RESET ROLE");
    assert_eq!(err.as_deref(), Some("42501: permission denied to give nl2sql feedback"));
}
