// The audit log: runs and steps survive the executor's rollbacks; users cannot forge them.

/// A step as the decision code records it.
fn test_step(stage: nl2sql_core::trace::Stage, status: nl2sql_core::trace::Status, sql: Option<&str>, data: Value) -> nl2sql_core::trace::Step {
    nl2sql_core::trace::Step { number: 0, stage, status, detail: String::new(), sql: sql.map(str::to_string), data, elapsed_ms: 0.0 }
}

#[pg_test]
fn audit_survives_executor_rollbacks() {
    use crate::spi::audit::{Audit, Finish};
    use crate::spi::executor;
    use nl2sql_core::trace::{Recorder, Stage, Status};
    let mut run = Audit::begin("nl2sql_test", Some("how many?"), None, json!({"k": 1})).unwrap();
    let opts = executor::ExecOptions::from_settings(10);
    let ok = executor::run("SELECT 42 AS answer", &opts).unwrap();
    run.record(&test_step(Stage::Execute, Status::Ok, Some("SELECT 42 AS answer"), ok.to_json())).unwrap();
    let failed = executor::run("SELECT 1 / 0", &opts).unwrap();
    assert!(!failed.is_ok());
    run.record(&test_step(Stage::Execute, Status::Error, None, Value::Null)).unwrap();
    let id = run.run_id().unwrap();
    let usage = nl2sql_core::llm::Usage { prompt_tokens: 7, completion_tokens: 0, cached_prompt_tokens: 0 };
    run.finish(Finish { status: "ok".into(), chosen_sql: Some("SELECT 42".into()), usage, ..Default::default() }).unwrap();
    let row = json_of(&format!(
        "SELECT jsonb_build_object('who', who, 'status', status, 'q', question, 'sql', chosen_sql,
                'tokens', prompt_tokens, 'settings', settings, 'done', finished_at IS NOT NULL,
                'steps', (SELECT jsonb_agg(stage || ':' || status ORDER BY step) FROM nl2sql.steps s WHERE s.run_id = r.run_id))
         FROM nl2sql.runs r WHERE run_id = {id}"
    ));
    assert_eq!(
        row,
        json!({"who": "postgres", "status": "ok", "q": "how many?", "sql": "SELECT 42", "tokens": 7,
               "settings": {"k": 1}, "done": true, "steps": ["execute:ok", "execute:error"]})
    );
    let answer = json_of(&format!("SELECT output FROM nl2sql.steps WHERE run_id = {id} AND step = 1"));
    assert_eq!(answer["rows"], json!([[42]]));
}

#[pg_test]
fn audit_is_private_and_not_writable_by_users() {
    use crate::spi::audit::{Audit, Finish};
    exec("CREATE ROLE audit_alice NOLOGIN; CREATE ROLE audit_bob NOLOGIN;");
    exec("SET LOCAL ROLE audit_alice");
    let run = Audit::begin("nl2sql_test", Some("alice asks"), None, json!({})).unwrap();
    let alice_run = run.run_id().unwrap();
    run.finish(Finish { status: "ok".into(), ..Default::default() }).unwrap();
    assert_eq!(Spi::get_one::<i64>("SELECT count(*) FROM nl2sql.runs WHERE question = 'alice asks'").unwrap(), Some(1));
    exec("RESET ROLE; SET LOCAL ROLE audit_bob");
    assert_eq!(Spi::get_one::<i64>("SELECT count(*) FROM nl2sql.runs WHERE question = 'alice asks'").unwrap(), Some(0));
    assert_eq!(Spi::get_one::<i64>(&format!("SELECT count(*) FROM nl2sql.steps WHERE run_id = {alice_run}")).unwrap(), Some(0));
    exec("RESET ROLE");
    let who = Spi::get_one::<String>(&format!("SELECT who::text FROM nl2sql.runs WHERE run_id = {alice_run}")).unwrap();
    assert_eq!(who.as_deref(), Some("audit_alice"), "the run is attributed to the caller, not the owner");
}

#[pg_test(error = "permission denied for table runs")]
fn audit_rejects_direct_inserts() {
    exec("CREATE ROLE audit_mallory NOLOGIN; SET LOCAL ROLE audit_mallory");
    exec("INSERT INTO nl2sql.runs (who, function) VALUES ('someone', 'forged')");
}

#[pg_test]
fn audit_off_writes_nothing() {
    exec("SET LOCAL nl2sql.audit = off");
    assert!(crate::spi::audit::Audit::begin("nl2sql_test", Some("q"), None, json!({})).unwrap().run_id().is_none());
}
