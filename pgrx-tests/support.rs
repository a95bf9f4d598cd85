// Helpers shared by the integration tests (included into the extension's `tests` module).

/// Run SQL that returns nothing; panic with the SQL on failure.
fn exec(sql: &str) {
    Spi::run(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// One jsonb value from a query.
fn json_of(sql: &str) -> Value {
    Spi::get_one::<JsonB>(sql).unwrap_or_else(|e| panic!("{sql}: {e}")).map(|j| j.0).unwrap_or(Value::Null)
}

/// `nl2sql_try(sql, max_rows)` as a JSON value.
fn try_sql(sql: &str, max_rows: i32) -> Value {
    Spi::get_one_with_args::<JsonB>("SELECT nl2sql_try($1, $2)", &[sql.into(), max_rows.into()])
        .unwrap_or_else(|e| panic!("nl2sql_try({sql:?}): {e}"))
        .map(|j| j.0)
        .unwrap_or(Value::Null)
}

/// Load the sample bookshop database (sample/bookshop.sql) into the test's transaction.
fn load_bookshop() {
    exec(include_str!("../sample/bookshop.sql"));
}

/// A scripted OpenAI-compatible endpoint: the n-th chat request gets `contents[n]` (the last one
/// repeats). For testing how the pipeline handles answers it cannot use, and its control flow;
/// never to claim that a feature works. Serves up to `requests` requests. Returns its base URL.
fn scripted_llm(contents: &'static [&'static str], requests: usize) -> String {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().take(requests).enumerate() {
            let content = contents[n.min(contents.len() - 1)];
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; len];
            let _ = reader.read_exact(&mut body);
            let reply = serde_json::json!({
                "model": "scripted",
                "choices": [{"message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1}
            })
            .to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    format!("http://127.0.0.1:{port}/v1")
}

/// The SQLSTATE and message of the error `expr` raises (an SQL expression), caught in a
/// subtransaction so the test's transaction goes on; `None` if it raises nothing.
fn error_of(expr: &str) -> Option<String> {
    exec(&format!(
        "CREATE OR REPLACE FUNCTION pg_temp.error_of() RETURNS text LANGUAGE plpgsql AS $f$
         BEGIN
             PERFORM {expr};
             RETURN NULL;
         EXCEPTION WHEN OTHERS THEN
             RETURN SQLSTATE || ': ' || SQLERRM;
         END $f$"
    ));
    Spi::get_one::<String>("SELECT pg_temp.error_of()").unwrap()
}
