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

use nl2sql_core::llm::testing::read_request;

/// An OpenAI chat completion whose message is `content`, as the body of an HTTP answer.
fn chat_completion(content: &str) -> String {
    serde_json::json!({
        "model": "scripted",
        "choices": [{"message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1}
    })
    .to_string()
}

/// A scripted OpenAI-compatible endpoint: the n-th chat request gets `contents[n]` (the last one
/// repeats). For testing how the pipeline handles answers it cannot use, and its control flow;
/// never to claim that a feature works. Serves up to `requests` requests. Returns its base URL.
fn scripted_llm(contents: &'static [&'static str], requests: usize) -> String {
    use std::io::Write;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().take(requests).enumerate() {
            let content = contents[n.min(contents.len() - 1)];
            let Ok(mut stream) = stream else { continue };
            let _ = read_request(&stream);
            let reply = chat_completion(content);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    format!("http://127.0.0.1:{port}/v1")
}

/// How a scripted model endpoint misbehaves, the same way on every request.
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// Reads the request and never answers (slow past any timeout).
    Silent,
    /// Answers this HTTP status, with a `Retry-After` of so many seconds if given.
    Status(u16, Option<u32>),
    /// 200 with a body that is not JSON.
    Garbage,
    /// 200 with a JSON body cut off before its end (the length header matches what is sent).
    TruncatedJson,
    /// Announces a body, sends half of it, and closes the connection (a reset mid-body).
    CutMidBody,
    /// Announces a body, sends half of it, then nothing for a minute.
    StallMidBody,
    /// 200 with an 11 MB body.
    Huge,
    /// A well-formed chat answer whose content is JSON of another shape than the one asked for.
    OffSchema,
}

/// A model endpoint with `fault` on every request (each on its own thread, up to 64
/// connections): for the fault tests through SQL. Returns its base URL.
fn faulty_llm(fault: Fault) -> String {
    use std::io::Write;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(64) {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let _ = read_request(&stream);
                let ok = chat_completion("{\"sql\": \"SELECT 1\"}");
                let head = |status: u16, extra: &str, len: usize| {
                    format!("HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len}\r\n{extra}Connection: close\r\n\r\n")
                };
                let reply: Vec<u8> = match fault {
                    Fault::Silent => {
                        std::thread::sleep(std::time::Duration::from_secs(60));
                        return;
                    }
                    Fault::Status(status, after) => {
                        let extra = after.map(|s| format!("Retry-After: {s}\r\n")).unwrap_or_default();
                        let body = "{\"error\": {\"message\": \"scripted failure\"}}";
                        format!("{}{body}", head(status, &extra, body.len())).into_bytes()
                    }
                    Fault::Garbage => format!("{}<html>oops</html>", head(200, "", 17)).into_bytes(),
                    Fault::TruncatedJson => {
                        let cut = &ok[..ok.len() / 2];
                        format!("{}{cut}", head(200, "", cut.len())).into_bytes()
                    }
                    Fault::CutMidBody | Fault::StallMidBody => {
                        let _ = write!(stream, "{}{}", head(200, "", ok.len()), &ok[..ok.len() / 2]);
                        let _ = stream.flush();
                        if matches!(fault, Fault::StallMidBody) {
                            std::thread::sleep(std::time::Duration::from_secs(60));
                        }
                        let _ = stream.shutdown(std::net::Shutdown::Both);
                        return;
                    }
                    Fault::Huge => {
                        let mut r = head(200, "", 11 << 20).into_bytes();
                        r.resize(r.len() + (11 << 20), b' ');
                        r
                    }
                    Fault::OffSchema => {
                        let body = chat_completion("{\"answer\": 42}");
                        format!("{}{body}", head(200, "", body.len())).into_bytes()
                    }
                };
                let _ = stream.write_all(&reply);
                let _ = stream.flush();
            });
        }
    });
    format!("http://127.0.0.1:{port}/v1")
}

/// The SQLSTATE and message of the error `expr` raises (an SQL expression), caught in a
/// subtransaction so the test's transaction goes on; `None` if it raises nothing.
fn error_of(expr: &str) -> Option<String> {
    // one function per role: a role cannot replace another role's function
    let name = format!("error_of_{}", Spi::get_one::<i64>("SELECT oid::int8 FROM pg_roles WHERE rolname = current_user").unwrap().unwrap());
    exec(&format!(
        "CREATE OR REPLACE FUNCTION pg_temp.{name}() RETURNS text LANGUAGE plpgsql AS $f$
         BEGIN
             PERFORM {expr};
             RETURN NULL;
         EXCEPTION WHEN OTHERS THEN
             RETURN SQLSTATE || ': ' || SQLERRM;
         END $f$"
    ));
    Spi::get_one::<String>(&format!("SELECT pg_temp.{name}()")).unwrap()
}
