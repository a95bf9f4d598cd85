// Model faults through SQL: each way a model server can misbehave, met by `nl2sql` in a running
// backend, on the single-call client and on the concurrent fan-out (N-version generation). The
// clients' own unit tests (src/llm) cover the same faults on the transport alone.

/// The options of the two paths a model call takes: one generation (the blocking client) and
/// N-version generation (the concurrent fan-out).
const FAULT_PATHS: [&str; 2] = ["{}", "{\"generators\": [\"direct\", \"skeleton\"]}"];

/// SQLSTATE, message, hint and seconds of the error `nl2sql(question, NULL, options)` raises
/// (query_canceled included: a model timeout is one).
fn timed_nl2sql_error(options: &str) -> (String, String, String, f64) {
    exec(
        "CREATE OR REPLACE FUNCTION pg_temp.timed_error(options jsonb) RETURNS text[] LANGUAGE plpgsql AS $f$
         DECLARE t0 timestamptz := clock_timestamp(); state text; msg text; hint text;
         BEGIN
             PERFORM nl2sql('How many books are there?', NULL, options);
             RETURN NULL;
         EXCEPTION WHEN OTHERS OR query_canceled THEN
             GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
             RETURN ARRAY[state, msg, hint, extract(epoch FROM clock_timestamp() - t0)::text];
         END $f$",
    );
    let got = Spi::get_one_with_args::<Vec<String>>("SELECT pg_temp.timed_error($1::jsonb)", &[options.into()])
        .unwrap()
        .unwrap_or_else(|| panic!("nl2sql with options {options} raised no error"));
    (got[0].clone(), got[1].clone(), got[2].clone(), got[3].parse().unwrap())
}

#[pg_test]
fn model_faults_are_clear_errors_within_the_configured_time() {
    load_bookshop();
    // one exchange may take 1.5 s and is tried twice: no fault may keep a call longer than
    // 2 x 1.5 s plus the back-off (0.25 s) and the pipeline's own work
    exec("SET LOCAL nl2sql.llm_timeout_ms = 1500; SET LOCAL nl2sql.llm_retries = 1");
    let bound = 2.0 * 1.5 + 0.25 + 1.5;
    let cases: [(Fault, &str, &str); 8] = [
        (Fault::Silent, "57014", "did not answer within 1500 ms"),
        (Fault::Status(500, None), "38000", "answered HTTP 500: scripted failure"),
        (Fault::Status(503, None), "38000", "answered HTTP 503: scripted failure"),
        (Fault::Status(429, Some(1)), "38000", "answered HTTP 429"),
        (Fault::Garbage, "38000", "not JSON"),
        (Fault::TruncatedJson, "38000", "not JSON"),
        (Fault::CutMidBody, "38000", "reading the body"),
        (Fault::Huge, "38000", "larger than 10 MB"),
    ];
    for (fault, sqlstate, cause) in cases {
        let url = faulty_llm(fault);
        exec(&format!("SET LOCAL nl2sql.llm_endpoint = '{url}'"));
        for options in FAULT_PATHS {
            let (state, message, hint, secs) = timed_nl2sql_error(options);
            let case = format!("{fault:?} with {options}: {state} {message} (hint: {hint}) after {secs:.2} s");
            assert_eq!(state, sqlstate, "{case}");
            assert!(message.contains(cause), "{case}");
            assert!(message.contains(&url), "the endpoint is named: {case}");
            assert!(!hint.is_empty(), "{case}");
            assert!(secs < bound, "{case}");
            if let Fault::Status(429, Some(wait)) = fault {
                assert!(secs >= wait as f64 * 0.9, "Retry-After honoured: {case}");
            }
        }
    }
    // an answer of another shape reaches the model's words but holds no usable SQL: no error, the
    // run ends `error` with that cause, in the audit log, and nl2sql hands over nothing
    let url = faulty_llm(Fault::OffSchema);
    exec(&format!("SET LOCAL nl2sql.llm_endpoint = '{url}'"));
    for options in FAULT_PATHS {
        let sql = Spi::get_one_with_args::<String>("SELECT nl2sql('How many books are there?', NULL, $1::jsonb)", &[options.into()]).unwrap();
        assert_eq!(sql, None, "{options}");
        let logged = json_of("SELECT jsonb_build_object('status', status, 'error', error) FROM nl2sql.runs ORDER BY run_id DESC LIMIT 1");
        assert_eq!(logged["status"], json!("error"), "{options}: {logged}");
        assert!(logged["error"].as_str().unwrap_or_default().contains("has no \"sql\" string"), "{options}: {logged}");
    }
    // a Retry-After longer than one exchange may take is not waited for
    let url = faulty_llm(Fault::Status(503, Some(20)));
    exec(&format!("SET LOCAL nl2sql.llm_endpoint = '{url}'"));
    for options in FAULT_PATHS {
        let (state, message, _, secs) = timed_nl2sql_error(options);
        assert_eq!(state, "38000", "{message}");
        assert!(secs < 1.5, "{message} after {secs:.2} s");
    }
}

#[pg_test]
fn a_cancel_during_each_model_wait_returns_within_a_second() {
    load_bookshop();
    exec("SET LOCAL nl2sql.llm_timeout_ms = 60000; SET LOCAL nl2sql.llm_retries = 1");
    // every place a model call waits: for an answer, for the rest of a body, before a retry
    for fault in [Fault::Silent, Fault::StallMidBody, Fault::Status(503, Some(20))] {
        let url = faulty_llm(fault);
        exec(&format!("SET LOCAL nl2sql.llm_endpoint = '{url}'"));
        for options in FAULT_PATHS {
            let secs = seconds_until_cancelled(&format!("nl2sql('How many books are there?', NULL, '{options}')"));
            // the cancel arrives after 1 s
            assert!((0.9..2.0).contains(&secs), "{fault:?} with {options}: cancel took {secs} s");
        }
    }
}
