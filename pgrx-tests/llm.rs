// The LLM adapter against the real local model (scripts/test.sh starts it) and a dead endpoint.

#[pg_test]
fn llm_chat_with_json_schema_returns_parseable_json() {
    use nl2sql_core::llm::{json::extract_json, ChatRequest, Message};
    let schema = json!({
        "type": "object",
        "properties": {"sql": {"type": "string"}, "tables": {"type": "array", "items": {"type": "string"}}},
        "required": ["sql", "tables"]
    });
    use nl2sql_core::effects::Model;
    let reply = crate::model::EndpointModel::from_settings(None).unwrap().chat(ChatRequest {
        messages: vec![
            Message::system("You write PostgreSQL. Answer in JSON."),
            Message::user("Table orders(id int, total numeric). Write SQL counting the orders."),
        ],
        temperature: 0.0,
        max_tokens: Some(128),
        json_schema: Some(("answer".into(), schema)),
        seed: Some(1),
        ..Default::default()
    })
    .unwrap();
    let v = extract_json(&reply.content).unwrap_or_else(|e| panic!("{e}: {}", reply.content));
    assert!(v["sql"].is_string() && v["tables"].is_array(), "{v}");
    assert!(reply.usage.prompt_tokens > 0 && reply.usage.completion_tokens > 0, "{:?}", reply.usage);
}

#[pg_test]
fn llm_embeddings_have_384_dimensions() {
    let dims = Spi::get_one::<i32>("SELECT vector_dims(nl2sql_embed('how many singers are there?'))").unwrap();
    assert_eq!(dims, Some(384));
    // the result casts to pgvector's type, and related texts are closer than unrelated ones
    let (near, far) = Spi::get_two::<f64, f64>(
        "WITH e AS (SELECT nl2sql_embed('singer')::vector AS a, nl2sql_embed('vocalist')::vector AS b,
                           nl2sql_embed('invoice total')::vector AS c)
         SELECT a <=> b, a <=> c FROM e",
    )
    .unwrap();
    assert!(near.unwrap() < far.unwrap(), "{near:?} vs {far:?}");
}

#[pg_test]
fn llm_status_reports_both_endpoints() {
    let s = json_of("SELECT nl2sql_llm_status()");
    assert_eq!(s["chat"]["ok"], json!(true), "{s}");
    assert_eq!(s["embedding"]["ok"], json!(true), "{s}");
    assert_eq!(s["embedding"]["dimensions"], json!(384));
    exec("SET LOCAL nl2sql.llm_endpoint = 'http://127.0.0.1:9/v1'");
    let down = json_of("SELECT nl2sql_llm_status()");
    assert_eq!(down["chat"]["ok"], json!(false));
    assert_eq!(down["chat"]["sqlstate"], json!("08001"));
    assert!(down["chat"]["error"].as_str().unwrap().contains("127.0.0.1:9"), "{down}");
}

#[pg_test(error = "LLM endpoint http://127.0.0.1:9/v1/embeddings is unreachable: connection refused")]
fn llm_endpoint_down_is_a_clear_error() {
    exec("SET LOCAL nl2sql.embedding_endpoint = 'http://127.0.0.1:9/v1'");
    exec("SET LOCAL nl2sql.llm_retries = 1");
    Spi::get_one::<String>("SELECT nl2sql_embed('x')::text").unwrap();
}

#[pg_test]
fn llm_api_key_is_not_a_readable_setting() {
    // there is no setting holding the key; the file setting is superuser-only
    assert!(Spi::get_one::<String>("SELECT current_setting('nl2sql.api_key', true)").unwrap().is_none());
    let flags = Spi::get_one::<String>("SELECT context FROM pg_settings WHERE name = 'nl2sql.api_key_file'").unwrap();
    assert_eq!(flags.as_deref(), Some("superuser"));
    exec("CREATE ROLE llm_user NOLOGIN; SET LOCAL ROLE llm_user");
    assert_eq!(
        Spi::get_one::<i64>("SELECT count(*) FROM pg_settings WHERE name = 'nl2sql.api_key_file'").unwrap(),
        Some(0),
        "hidden from non-superusers"
    );
}

/// A long generation from the real model, for the cancel test.
#[pg_extern]
fn slow_chat() -> String {
    use nl2sql_core::llm::{ChatRequest, Message};
    let mut extra = serde_json::Map::new();
    // llama.cpp: keep generating until max_tokens, so the answer takes tens of seconds
    extra.insert("ignore_eos".into(), json!(true));
    use nl2sql_core::effects::Model;
    let mut model = crate::model::EndpointModel::from_settings(None).unwrap_or_else(|e| pgrx::error!("{e}"));
    model
        .chat(ChatRequest {
            messages: vec![Message::user("Write a very long story about databases.")],
            temperature: 0.7,
            max_tokens: Some(2000),
            extra,
            ..Default::default()
        })
        .unwrap_or_else(|e| pgrx::error!("{e}"))
        .content
}

#[pg_test]
fn llm_wait_honours_query_cancel_promptly() {
    let secs = seconds_until_cancelled("tests.slow_chat()");
    assert!((0.9..3.0).contains(&secs), "cancel took {secs} s");
}
