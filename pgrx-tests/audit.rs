// The audit log: runs and steps survive the executor's rollbacks; users cannot forge them.

#[pg_test]
fn audit_survives_executor_rollbacks() {
    use crate::spi::{audit, executor};
    let mut run = audit::begin("nl2sql_test", Some("how many?"), None, json!({"k": 1})).unwrap();
    let opts = executor::ExecOptions::from_settings(10);
    let ok = executor::run("SELECT 42 AS answer", &opts).unwrap();
    audit::step(&mut run, audit::Step {
        stage: "execute".into(),
        status: "ok".into(),
        sql: Some("SELECT 42 AS answer".into()),
        output: Some(ok.to_json()),
        ..Default::default()
    });
    let failed = executor::run("SELECT 1 / 0", &opts).unwrap();
    assert!(!failed.is_ok());
    audit::step(&mut run, audit::Step { stage: "execute".into(), status: "error".into(), ..Default::default() });
    let id = run.id;
    audit::finish(run, audit::Finish { status: "ok".into(), chosen_sql: Some("SELECT 42".into()), prompt_tokens: 7, ..Default::default() });
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
    use crate::spi::audit;
    exec("CREATE ROLE audit_alice NOLOGIN; CREATE ROLE audit_bob NOLOGIN;");
    exec("SET LOCAL ROLE audit_alice");
    let run = audit::begin("nl2sql_test", Some("alice asks"), None, json!({})).unwrap();
    let alice_run = run.id;
    audit::finish(run, audit::Finish { status: "ok".into(), ..Default::default() });
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
    assert!(crate::spi::audit::begin("nl2sql_test", Some("q"), None, json!({})).is_none());
}
