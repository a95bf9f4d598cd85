// The ask pipeline against the real local model on the sample bookshop database.

/// (stage, status, sql) of each explanation row, and the run id.
fn run_question(question: &str, options: &str) -> (Option<i64>, Vec<(String, String, Option<String>)>) {
    let mut run_id = None;
    let rows = Spi::connect(|c| {
        c.select(
            "SELECT run_id, stage, status, sql FROM nl2sql_run($1, NULL, $2::jsonb) ORDER BY step",
            None,
            &[question.into(), options.into()],
        )
        .unwrap()
        .map(|r| {
            run_id = r.get::<i64>(1).unwrap();
            (r.get::<String>(2).unwrap().unwrap(), r.get::<String>(3).unwrap().unwrap(), r.get::<String>(4).unwrap())
        })
        .collect::<Vec<_>>()
    });
    (run_id, rows)
}

#[pg_test]
fn ask_returns_sql_that_runs_with_a_complete_explanation() {
    load_bookshop();
    let (run_id, rows) = run_question("How many customers live in Paris?", "{\"max_probes\": 2, \"max_repairs\": 1}");
    let stages: Vec<&str> = rows.iter().map(|(s, _, _)| s.as_str()).collect();
    for stage in ["schema", "constraints", "probe", "generate", "verify", "chosen"] {
        assert!(stages.contains(&stage), "no {stage} step in {stages:?}");
    }
    let (last_stage, last_status, chosen) = rows.last().unwrap();
    assert_eq!(last_stage, "chosen");
    assert!(last_status == "ok" || last_status == "unverified", "{last_status}");
    let chosen = chosen.clone().expect("the chosen row carries the SQL");
    let ran = try_sql(&chosen, 10);
    assert_eq!(ran["ok"], json!(true), "{chosen}: {ran}");
    // the audit log holds the run with every step, and nl2sql_explain replays it
    let run_id = run_id.expect("audit is on");
    let logged = json_of(&format!(
        "SELECT jsonb_build_object('status', status, 'sql', chosen_sql, 'steps', (SELECT count(*) FROM nl2sql.steps s WHERE s.run_id = r.run_id),
                'calls', llm_calls, 'tokens', prompt_tokens)
         FROM nl2sql.runs r WHERE run_id = {run_id}"
    ));
    assert_eq!(logged["status"], json!(last_status));
    assert_eq!(logged["sql"], json!(chosen));
    assert_eq!(logged["steps"], json!(rows.len()));
    assert!(logged["calls"].as_i64().unwrap() >= 1 && logged["tokens"].as_i64().unwrap() > 0, "{logged}");
    let replay = Spi::get_one::<i64>(&format!("SELECT count(*) FROM nl2sql_explain({run_id})")).unwrap();
    assert_eq!(replay, Some(rows.len() as i64));
}

#[pg_test]
fn ask_probes_never_return_more_than_the_row_bound() {
    load_bookshop();
    let (_, rows) = run_question(
        "List the titles and prices of all books by authors from Nigeria",
        "{\"max_probes\": 3, \"probe_rows\": 2, \"verify\": false}",
    );
    let probes: Vec<&String> = rows.iter().filter(|(s, _, sql)| s == "probe" && sql.is_some()).filter_map(|(_, _, q)| q.as_ref()).collect();
    for sql in &probes {
        // the bound is in the SQL itself: whatever the model asked, the probe returns at most 2 rows
        let r = try_sql(sql, 1000);
        if r["ok"] == json!(true) {
            assert!(r["row_count"].as_u64().unwrap() <= 2, "{sql}: {r}");
        }
    }
}

#[pg_test]
fn ask_stages_switch_off_per_call() {
    load_bookshop();
    let (_, rows) = run_question("What is the most expensive book?", "{\"probe\": false, \"verify\": false}");
    let by_stage = |stage: &str| rows.iter().filter(|(s, _, _)| s == stage).map(|(_, st, _)| st.clone()).collect::<Vec<_>>();
    assert_eq!(by_stage("probe"), vec!["skipped"]);
    assert_eq!(by_stage("verify"), vec!["skipped"]);
    assert!(by_stage("repair").is_empty());
    assert_eq!(by_stage("chosen"), vec!["unverified"]);
}

#[pg_test]
fn ask_execute_returns_rows_as_objects() {
    load_bookshop();
    let rows = Spi::connect(|c| {
        c.select("SELECT r FROM nl2sql_execute('List the names of all customers in Oslo', NULL, '{\"max_probes\": 1, \"max_rows\": 5}') r", None, &[])
            .unwrap()
            .map(|r| r.get::<JsonB>(1).unwrap().unwrap().0)
            .collect::<Vec<Value>>()
    });
    assert!(rows.len() <= 5);
    assert!(rows.iter().all(Value::is_object), "{rows:?}");
}

#[pg_test]
fn ask_with_answer_unverified_off_hands_over_only_verified_answers() {
    load_bookshop();
    // verification off: the run ends unverified whatever the model writes, and with the setting
    // off its SQL is the explanation's, not an answer
    exec("SET LOCAL nl2sql.answer_unverified = off");
    let question = "What is the most expensive book?";
    let fast = "{\"probe\": false, \"verify\": false}";
    let sql = Spi::get_one_with_args::<String>("SELECT nl2sql($1, NULL, $2::jsonb)", &[question.into(), fast.into()]).unwrap();
    assert_eq!(sql, None, "an unverified answer is not handed over");
    let logged = json_of("SELECT jsonb_build_object('status', status, 'sql', chosen_sql, 'error', error) FROM nl2sql.runs ORDER BY run_id DESC LIMIT 1");
    assert_eq!((&logged["status"], &logged["sql"]), (&json!("unverified"), &Value::Null), "{logged}");
    assert!(logged["error"].as_str().unwrap().ends_with("not handed over: only verified answers are (answer_unverified is off)"), "{logged}");
    let (_, rows) = run_question(question, fast);
    let (stage, status, chosen) = rows.last().unwrap();
    assert_eq!((stage.as_str(), status.as_str()), ("chosen", "unverified"));
    assert!(chosen.is_some(), "the explanation keeps the SQL");
    let raised = error_of(&format!("nl2sql_execute('{question}', NULL, '{fast}')")).expect("nl2sql_execute raises");
    assert!(raised.starts_with("38000: nl2sql has no answer to give (run ") && raised.contains("not handed over"), "{raised}");
    // the option overrides the setting per call
    let sql = Spi::get_one_with_args::<String>("SELECT nl2sql($1, NULL, $2::jsonb || '{\"answer_unverified\": true}')", &[question.into(), fast.into()]).unwrap();
    assert!(sql.is_some(), "the option hands it over");
}

/// The run of a question the model gave no usable SQL for: it ends `error`, in the audit log with
/// its reason; nl2sql returns NULL, nl2sql_execute raises 38000 saying the error undoes the run.
fn no_usable_sql_ends_the_run(answers: &'static [&'static str], question: &str, why: &str) {
    load_bookshop();
    let url = scripted_llm(answers, 40);
    exec(&format!("SET LOCAL nl2sql.llm_endpoint = '{url}'"));
    let sql = Spi::get_one_with_args::<String>("SELECT nl2sql($1, NULL, '{\"probe\": false}')", &[question.into()]).unwrap();
    assert_eq!(sql, None, "no SQL to hand over");
    let logged = json_of("SELECT jsonb_build_object('run_id', run_id, 'status', status, 'error', error, 'sql', chosen_sql) FROM nl2sql.runs ORDER BY run_id DESC LIMIT 1");
    assert_eq!((&logged["status"], &logged["sql"]), (&json!("error"), &Value::Null), "{logged}");
    let error = logged["error"].as_str().unwrap();
    assert!(
        error.starts_with(&format!("no usable SQL: the model did not return a usable SQL query to the decompose prompt or to the direct prompt: {why}")),
        "{error}"
    );
    let raised = error_of(&format!("nl2sql_execute('{}', NULL, '{{\"probe\": false}}')", question.replace('\'', "''"))).expect("nl2sql_execute raises");
    assert!(raised.starts_with("38000: nl2sql has no answer to give (run ") && raised.contains("this error undoes its audit rows") && raised.contains(why), "{raised}");
    // the run is in the log, so a curator can teach the question the model could not answer (after
    // the nl2sql_execute above: once taught, the question is answered by the example)
    let run_id = logged["run_id"].as_i64().unwrap();
    let confirmed = error_of(&format!("nl2sql_feedback({run_id}, verdict => 'correct')")).expect("nothing to confirm");
    assert!(confirmed.contains("the run chose no SQL"), "{confirmed}");
    let taught = json_of(&format!("SELECT nl2sql_feedback({run_id}, 'SELECT count(*) FROM books')"));
    assert_eq!(taught["verdict"], json!("wrong"), "{taught}");
    let example = json_of(&format!(
        "SELECT jsonb_build_object('question', question, 'sql', sql) FROM nl2sql.examples WHERE example_id = {}",
        taught["example_id"].as_i64().expect("an example was stored")
    ));
    assert_eq!(example, json!({"question": question, "sql": "SELECT count(*) FROM books"}), "{example}");
}

#[pg_test]
fn ask_non_sql_answers_end_the_run_in_error_after_retries() {
    no_usable_sql_ends_the_run(&["I am sorry, I cannot help with databases."], "How many books are there?", "the model's answer holds no JSON object or array");
}

#[pg_test]
fn ask_a_model_answering_dml_is_refused() {
    no_usable_sql_ends_the_run(&["{\"sql\": \"DELETE FROM books\"}"], "Remove the books", "not a usable query: only read-only queries are accepted, got DELETE");
}

#[pg_test(error = "unknown option \"bogus\"")]
fn ask_unknown_options_are_an_error() {
    load_bookshop();
    Spi::get_one::<String>("SELECT nl2sql('How many books?', NULL, '{\"bogus\": 1}')").unwrap();
}

#[pg_test]
fn verify_gives_a_checklist_without_a_model() {
    // the table exists, so the only finding is the question's (nl2sql_verify also plans the SQL)
    Spi::run("CREATE TABLE customers (name text, credit_limit numeric); CREATE TABLE books (book_id int, title text)").unwrap();
    let rows = Spi::connect(|c| {
        c.select(
            "SELECT requirement, source_phrase, satisfied, message FROM nl2sql_verify(
                 'What are the top 3 customers by credit limit?',
                 'SELECT name, credit_limit FROM customers ORDER BY credit_limit DESC')",
            None,
            &[],
        )
        .unwrap()
        .map(|r| (r.get::<String>(1).unwrap().unwrap(), r.get::<String>(2).unwrap().unwrap(), r.get::<bool>(3).unwrap().unwrap(), r.get::<String>(4).unwrap().unwrap()))
        .collect::<Vec<_>>()
    });
    assert_eq!(rows.len(), 1, "{rows:?}");
    let (name, phrase, ok, message) = &rows[0];
    assert_eq!((name.as_str(), phrase.as_str(), *ok), ("top_k", "top 3", false), "a credit_limit column is not a LIMIT");
    assert!(message.contains("LIMIT 3"), "{message}");
    let fixed = Spi::get_one::<bool>(
        "SELECT bool_and(satisfied) FROM nl2sql_verify('What are the top 3 customers by credit limit?',
             'SELECT name FROM customers ORDER BY credit_limit DESC LIMIT 3')",
    )
    .unwrap();
    assert_eq!(fixed, Some(true));
    // nothing in the question limits the rows, so a LIMIT is a violation
    let limited = Spi::get_two::<String, bool>(
        "SELECT string_agg(requirement, ','), bool_and(satisfied) FROM nl2sql_verify('Show the books', 'SELECT * FROM books LIMIT 5')",
    )
    .unwrap();
    assert_eq!(limited, (Some("all_rows,check:select".to_string()), Some(false)));
}

#[pg_test]
fn verify_runs_the_time_checker_on_stored_layouts_as_the_caller() {
    exec("CREATE TABLE shipments (id int PRIMARY KEY, shipped_on text, secret_on text)");
    exec("INSERT INTO shipments VALUES (1, '2021/03/04', '2021/03/04'), (2, '2021/11/30', '2021/11/30')");
    let checks = |sql: &str| {
        Spi::connect(|c| {
            c.select(
                "SELECT requirement, satisfied, message FROM nl2sql_verify('Which shipments left on 4 March 2021?', $1)
                 WHERE requirement LIKE 'check:%'",
                None,
                &[sql.into()],
            )
            .unwrap()
            .map(|r| (r.get::<String>(1).unwrap().unwrap(), r.get::<bool>(2).unwrap().unwrap(), r.get::<String>(3).unwrap().unwrap()))
            .collect::<Vec<_>>()
        })
    };
    let bad = checks("SELECT id FROM shipments WHERE shipped_on = '2021-03-04'");
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!((bad[0].0.as_str(), bad[0].1), ("check:time", false));
    assert!(bad[0].2.contains("like '2021/03/04'") && bad[0].2.contains("another layout"), "{}", bad[0].2);
    assert!(checks("SELECT id FROM shipments WHERE shipped_on = '2021/03/04'").is_empty());
    assert!(checks("SELECT id FROM shipments WHERE shipped_on LIKE '2021/%'").is_empty());
    // null_order judges by the data: a nullable column holding no NULL may be sorted DESC
    assert!(checks("SELECT id FROM shipments ORDER BY secret_on DESC LIMIT 2").is_empty());
    exec("INSERT INTO shipments VALUES (3, '2022/01/01', NULL)");
    let flagged = checks("SELECT id FROM shipments ORDER BY secret_on DESC LIMIT 2");
    assert_eq!(flagged.iter().map(|(c, _, _)| c.as_str()).collect::<Vec<_>>(), vec!["check:null_order"], "{flagged:?}");
    // a caller who may not read a column gets no judgement on it, so none of its values leak
    exec("CREATE ROLE nl2sql_time_reader");
    exec("GRANT SELECT (id, shipped_on) ON shipments TO nl2sql_time_reader");
    exec("SET LOCAL ROLE nl2sql_time_reader");
    assert_eq!(checks("SELECT id FROM shipments WHERE shipped_on = '2021-03-04'").len(), 1);
    let hidden = checks("SELECT id FROM shipments WHERE secret_on = '2021-03-04'");
    assert!(hidden.iter().all(|(_, _, m)| !m.contains("2021/")), "{hidden:?}");
    exec("RESET ROLE");
}

#[pg_test(error = "SQL could not be parsed: sql parser error: Expected: an expression, found: EOF")]
fn verify_rejects_unparsable_sql() {
    Spi::get_one::<i64>("SELECT count(*) FROM nl2sql_verify('How many?', 'SELECT count(')").unwrap();
}

#[pg_test]
fn ask_checker_chain_fixes_what_is_mechanical_and_asks_the_model_for_the_rest() {
    load_bookshop();
    // control flow only: `SELECT *` with a NULL-first ordering; the fix stage adds NULLS LAST on the
    // syntax tree (pages holds NULLs), the model is asked only to replace the `*`
    let url = scripted_llm(
        &[
            "{\"sql\": \"SELECT * FROM books ORDER BY pages DESC LIMIT 1\"}",
            "{\"sql\": \"SELECT title FROM books ORDER BY pages DESC NULLS LAST LIMIT 1\"}",
        ],
        10,
    );
    exec(&format!("SET LOCAL nl2sql.llm_endpoint = '{url}'"));
    let (run_id, rows) = run_question("Which book has the most pages?", "{\"probe\": false, \"max_repairs\": 3}");
    assert_eq!(rows.last().unwrap().2.as_deref(), Some("SELECT title FROM books ORDER BY pages DESC NULLS LAST LIMIT 1"));
    let run_id = run_id.unwrap();
    let fixes = json_of(&format!(
        "SELECT jsonb_agg(jsonb_build_array(output->>'fix', status) ORDER BY step) FROM nl2sql.steps WHERE run_id = {run_id} AND stage = 'fix'"
    ));
    assert_eq!(fixes[0], json!(["nulls_last", "ok"]), "{fixes}");
    let problems = json_of(&format!(
        "SELECT jsonb_agg(output->'problems' ORDER BY step) FROM nl2sql.steps WHERE run_id = {run_id} AND output ? 'problems'"
    ));
    assert!(problems.to_string().contains("SELECT * returns every column"), "{problems}");
    let repairs = Spi::get_one::<i64>(&format!("SELECT count(*) FROM nl2sql.steps WHERE run_id = {run_id} AND stage = 'repair'")).unwrap();
    assert_eq!(repairs, Some(1), "one repair, for the `*`");
}

#[pg_test]
fn ask_n_version_generation_with_experts_feedback_and_few_shot() {
    load_bookshop();
    let (run_id, rows) = run_question(
        "How many books are there?",
        "{\"max_probes\": 0, \"max_repairs\": 0, \"generators\": [\"direct\", \"skeleton\", \"decompose\"]}",
    );
    let generated = rows.iter().filter(|(s, st, _)| s == "generate" && (st == "ok" || st == "error")).count();
    assert_eq!(generated, 3, "{rows:?}");
    assert!(rows.iter().any(|(s, _, sql)| s == "candidates" && sql.is_some()), "{rows:?}");
    // feedback on the run: its experts get weights, the pair becomes an example
    let fb = json_of(&format!("SELECT nl2sql_feedback({}, 'SELECT count(*) FROM books')", run_id.unwrap()));
    assert!(fb["experts"].as_object().unwrap().keys().any(|k| k.starts_with("skeleton:")), "{fb}");
    assert!(fb["example_id"].as_i64().is_some(), "{fb}");
    // the few-shot generator finds that example for a similar question
    let (_, rows) = run_question("How many authors are there?", "{\"max_probes\": 0, \"max_repairs\": 0, \"generators\": [\"few_shot\"]}");
    let few = json_of(&format!(
        "SELECT output FROM nl2sql.steps WHERE run_id = (SELECT max(run_id) FROM nl2sql.runs) AND stage = 'generate' AND status = 'ok'"
    ));
    assert_eq!(few["generator"], json!("few_shot"), "{rows:?}");
    assert!(few["examples"].as_i64().unwrap() >= 1, "{few}");
}

#[pg_test]
fn ask_two_round_generation_prunes_the_schema_to_the_linked_tables() {
    load_bookshop();
    // control flow only: the draft and the direct linking name customers and books (and an
    // invented table); the closure must bring the bridge tables. One request at a time, so the
    // scripted answers meet the requests in order: draft, direct linking, final generation.
    let url = scripted_llm(&[
        "{\"sql\": \"SELECT c.name, b.title FROM customers c, books b\"}",
        "{\"tables\": [\"customers\", \"shelves\"], \"columns\": [\"books.title\", \"customers.name\"]}",
        "{\"sql\": \"SELECT c.name, b.title FROM customers c JOIN orders o ON o.customer_id = c.customer_id JOIN order_items i ON i.order_id = o.order_id JOIN books b ON b.book_id = i.book_id\"}",
    ], 10);
    exec(&format!("SET LOCAL nl2sql.llm_endpoint = '{url}'"));
    exec("SET LOCAL nl2sql.llm_concurrency = 1");
    // refusal off: the scope stage would put the unlinked "bought" to the scripted model
    let (run_id, rows) = run_question(
        "Which customers bought which books?",
        "{\"probe\": false, \"verify\": false, \"two_round\": true, \"refuse\": false}",
    );
    assert!(rows.iter().any(|(s, st, _)| s == "link" && st == "ok"), "{rows:?}");
    let link = json_of(&format!("SELECT output FROM nl2sql.steps WHERE run_id = {} AND stage = 'link'", run_id.unwrap()));
    assert_eq!(link["bridges"], json!(["public.order_items", "public.orders"]), "{link}");
    assert!(!link["tables"].as_array().unwrap().contains(&json!("public.authors")), "{link}");
    assert_eq!(link["sources"]["direct"], json!(["public.books", "public.customers"]), "{link}");
    assert_eq!(link["sources"]["reversed"], json!(["public.books", "public.customers"]), "{link}");
    assert_eq!(link["sources"]["direct_unknown"], json!(["shelves"]), "{link}");
    assert!(rows.last().unwrap().2.as_deref().unwrap().contains("JOIN order_items"));
}

#[pg_test]
fn ask_n_version_samples_go_out_together_and_are_all_recorded() {
    load_bookshop();
    exec("SET LOCAL nl2sql.llm_concurrency = 2");
    let (run_id, rows) = run_question(
        "How many books are there?",
        "{\"max_probes\": 0, \"verify\": false, \"generators\": [\"direct\", \"skeleton\"], \"samples\": 2}",
    );
    let generated: Vec<_> = rows.iter().filter(|(s, st, _)| s == "generate" && st == "ok").collect();
    assert_eq!(generated.len(), 4, "two generators, two samples each, all from the real model: {rows:?}");
    let cands = json_of(&format!("SELECT output FROM nl2sql.steps WHERE run_id = {} AND stage = 'candidates'", run_id.unwrap()));
    assert_eq!(cands["concurrency"], json!(2), "{cands}");
    assert_eq!(cands["candidates"].as_array().unwrap().len(), 4, "{cands}");
    let settings = json_of(&format!("SELECT settings FROM nl2sql.runs WHERE run_id = {}", run_id.unwrap()));
    assert_eq!((settings["samples"].clone(), settings["select"].clone()), (json!(2), json!("vote")), "{settings}");
    assert!(error_of("nl2sql('x', NULL, '{\"samples\": 9}')").unwrap().starts_with("22023: option \"samples\""));
    assert!(error_of("nl2sql('x', NULL, '{\"select\": \"best\"}')").unwrap().starts_with("22023: option \"select\""));
}

#[pg_test]
fn ask_n_version_settles_a_split_by_a_tournament() {
    // control flow only (the duel itself is tested with the real model in select.rs): the two
    // generators disagree, no cluster reaches the gate, the judge's votes name the cheapest
    // book's author, so the candidate ordering ASC must be chosen whichever reply came first
    load_bookshop();
    let most = "{\"sql\": \"SELECT a.name FROM authors a JOIN books b ON b.author_id = a.author_id ORDER BY b.price DESC LIMIT 1\"}";
    let least = "{\"sql\": \"SELECT a.name FROM authors a JOIN books b ON b.author_id = a.author_id ORDER BY b.price ASC LIMIT 1\"}";
    let vote = "{\"reasoning\": \"x\", \"rows\": [[\"Anonymous Collective\"]]}";
    let contents: &'static [&'static str] = Box::leak(vec![most, least, vote].into_boxed_slice());
    let url = scripted_llm(contents, 5);
    exec(&format!("SET LOCAL nl2sql.llm_endpoint = '{url}'"));
    let (run_id, rows) = run_question(
        "Which author wrote the cheapest book?",
        "{\"probe\": false, \"verify\": false, \"generators\": [\"direct\", \"skeleton\"], \"select\": \"tournament\"}",
    );
    let cands = json_of(&format!("SELECT output FROM nl2sql.steps WHERE run_id = {} AND stage = 'candidates'", run_id.unwrap()));
    // selection is called as a function: its duels are steps of this run
    assert_eq!(cands["tournament"]["duels"], json!(1), "{cands}");
    let duels = Spi::get_one::<i64>(&format!("SELECT count(*) FROM nl2sql.steps WHERE run_id = {} AND stage = 'duel'", run_id.unwrap())).unwrap();
    assert_eq!(duels, Some(1));
    let chosen = rows.last().unwrap().2.as_deref().unwrap();
    assert!(chosen.contains("ASC"), "{rows:?}");
    assert!(rows.iter().any(|(s, _, _)| s == "candidates"), "{rows:?}");
}

#[pg_test]
fn ask_two_round_with_the_local_model_links_real_tables() {
    load_bookshop();
    // The claim is the link step's; the 0.5B model sometimes cannot then write a usable final query
    // for a long join (the run ends `error` with no generated SQL), so the second question is asked
    // when the first run wrote none, and the last run is read. Refusal off: the scope stage would
    // put the unlinked "bought" to the model.
    let options = "{\"probe\": false, \"verify\": false, \"two_round\": true, \"refuse\": false}";
    let (mut run_id, mut rows) = (None, Vec::new());
    for q in ["Which customers bought which books?", "List the title of each book with the name of its author."] {
        (run_id, rows) = run_question(q, options);
        if rows.iter().any(|(s, st, _)| s == "generate" && st == "ok") {
            break;
        }
    }
    let link = json_of(&format!("SELECT output FROM nl2sql.steps WHERE run_id = {} AND stage = 'link' AND status = 'ok'", run_id.unwrap()));
    // the real model's direct linking names tables of this schema; the closure joins them
    let direct = link["sources"]["direct"].as_array().unwrap_or_else(|| panic!("{rows:?} {link}"));
    assert!(!direct.is_empty(), "{link}");
    let tables = link["tables"].as_array().unwrap();
    assert!(direct.iter().all(|t| tables.contains(t)), "{link}");
    assert!(rows.iter().any(|(s, st, sql)| s == "generate" && st == "ok" && sql.is_some()), "{rows:?}");
}

// Control flow without the model or the data (probe stops, format retries, repair verdicts, refinement,
// N-version votes, two-round linking, each effect's errors) is tested in nl2sql-core: src/ask/tests.rs.

#[pg_test]
fn ask_a_question_beyond_the_data_gets_no_sql_and_says_why() {
    load_bookshop();
    // a prediction: the lexicon's pattern decides before any SQL is written
    let q = "Which author will sell the most books next year?";
    let (run_id, rows) = run_question(q, "{}");
    let stages: Vec<(&str, &str)> = rows.iter().map(|(s, st, _)| (s.as_str(), st.as_str())).collect();
    assert_eq!(stages.last(), Some(&("chosen", "unanswerable")), "{stages:?}");
    assert!(stages.contains(&("scope", "unanswerable")), "{stages:?}");
    assert!(!stages.iter().any(|(s, _)| *s == "generate"), "no SQL is written for it: {stages:?}");
    assert_eq!(rows.last().unwrap().2, None);
    let run_id = run_id.unwrap();
    let logged = json_of(&format!("SELECT jsonb_build_object('status', status, 'sql', chosen_sql) FROM nl2sql.runs WHERE run_id = {run_id}"));
    assert_eq!(logged["status"], json!("unanswerable"), "{logged}");
    // nl2sql returns NULL (nothing for \gexec), nl2sql_execute raises 0A000 with the reason
    assert_eq!(Spi::get_one_with_args::<String>("SELECT nl2sql($1)", &[q.into()]).unwrap(), None);
    let raised = error_of(&format!("nl2sql_execute('{}')", q.replace('\'', "''"))).expect("nl2sql_execute raises");
    assert!(raised.starts_with("0A000: nl2sql has no answer to give") && raised.contains("prediction"), "{raised}");
    // refusal off, per call or by the setting: the question gets SQL
    let (_, rows) = run_question(q, "{\"refuse\": false, \"max_probes\": 1}");
    assert!(rows.iter().any(|(s, st, _)| s == "scope" && st == "skipped"), "{rows:?}");
    assert_ne!(rows.last().unwrap().1, "unanswerable");
    exec("SET LOCAL nl2sql.refuse = off");
    let (_, rows) = run_question(q, "{\"max_probes\": 1}");
    assert_ne!(rows.last().unwrap().1, "unanswerable");
}

#[pg_test]
fn ask_words_that_link_to_nothing_are_put_to_the_model_and_names_are_embedded_once() {
    load_bookshop();
    exec("DELETE FROM nl2sql.name_embeddings");
    // every word names the bookshop's tables, columns or stored values: no question to the model
    let (_, rows) = run_question("How many customers live in Paris?", "{\"max_probes\": 1}");
    let scope = json_of(&format!(
        "SELECT data FROM nl2sql_explain({}) WHERE stage = 'scope'",
        Spi::get_one::<i64>("SELECT max(run_id) FROM nl2sql.runs").unwrap().unwrap()
    ));
    assert_eq!(scope["vote"], Value::Null, "{scope}");
    assert_ne!(rows.last().unwrap().1, "unanswerable");
    let stored = Spi::get_one::<i64>("SELECT count(*) FROM nl2sql.name_embeddings").unwrap().unwrap();
    assert!(stored >= 20, "the names of the bookshop's tables and columns are stored: {stored}");
    // nothing in the bookshop stores satisfaction: the word links to nothing, the model votes,
    // and the run ends as its vote says
    let (run_id, rows) = run_question("What is the average satisfaction score of customers?", "{\"max_probes\": 1}");
    let scope = json_of(&format!("SELECT data FROM nl2sql_explain({}) WHERE stage = 'scope' ORDER BY step LIMIT 1", run_id.unwrap()));
    let links = scope["evidence"]["links"].as_array().unwrap();
    let satisfaction = links.iter().find(|l| l["word"] == json!("satisfaction")).expect("the word is linked or not");
    assert_eq!(satisfaction["to"], Value::Null, "{scope}");
    let vote = &scope["vote"];
    assert!(vote.is_object(), "the model was asked: {scope}");
    let last = &rows.last().unwrap().1;
    let scopes: Vec<_> = rows.iter().filter(|r| r.0 == "scope").collect();
    if vote["answerable"] == json!(false) {
        assert_eq!((last.as_str(), scopes.len()), ("unanswerable", 1));
    } else if last == "unanswerable" {
        // the vote let the word through: only the query the model then wrote refuses it, in a
        // second scope step that holds that query
        assert_eq!(scopes.len(), 2, "{rows:?}");
        assert_eq!(scopes[1].1, "unanswerable");
        assert!(scopes[1].2.as_deref().is_some_and(|sql| sql.to_lowercase().contains("select")), "{rows:?}");
    } else {
        assert_eq!(scopes.len(), 1, "{rows:?}");
    }
    // the names were embedded once: the second run added none
    assert_eq!(Spi::get_one::<i64>("SELECT count(*) FROM nl2sql.name_embeddings").unwrap().unwrap(), stored);
}
