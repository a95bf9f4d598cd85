//! Blocking calls to `/v1/chat/completions` and `/v1/embeddings` of an OpenAI-compatible server.
//!
//! Each HTTP exchange runs on a helper thread that never touches PostgreSQL; the calling thread
//! waits in slices of [`WAIT_SLICE`] and calls the caller's interrupt check between slices, so a
//! query cancel (which the check turns into an error that unwinds) ends the wait within about a
//! second. Retries back off exponentially on 429, 5xx and failed connections.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::json::excerpt;
pub use super::wire::redact_url;
use super::wire::{CallPolicy, ChatReply, ChatRequest, Embeddings, Endpoint, LlmError, Usage};

/// How long the waiting thread sleeps between interrupt checks.
pub const WAIT_SLICE: Duration = Duration::from_millis(50);
/// The largest answer body read from a model server, in bytes (both clients); a larger one is a
/// bad response, not something to hold in a backend's memory.
pub const MAX_BODY: usize = 10 << 20;


/// Ask for a chat completion.
pub fn chat(
    endpoint: &Endpoint,
    policy: &CallPolicy,
    request: &ChatRequest,
    interrupts: &dyn Fn(),
) -> Result<ChatReply, LlmError> {
    let url = endpoint.url("chat/completions");
    let started = Instant::now();
    let (value, attempts) =
        call_with_retries(&url, endpoint, request.body(&endpoint.model), policy, interrupts)?;
    reply_of(&value, endpoint, &redact_url(&url), attempts, started)
}

/// The chat reply in a 2xx response body, or why it is unusable.
pub(super) fn reply_of(
    value: &Value,
    endpoint: &Endpoint,
    shown: &str,
    attempts: u32,
    started: Instant,
) -> Result<ChatReply, LlmError> {
    let content = match &value["choices"][0]["message"]["content"] {
        Value::String(s) if !s.trim().is_empty() => s.clone(),
        Value::String(_) => {
            return Err(LlmError::BadResponse { endpoint: shown.into(), cause: "empty message content".into() })
        }
        _ => {
            return Err(LlmError::BadResponse {
                endpoint: shown.into(),
                cause: format!("no choices[0].message.content in {}", excerpt(&value.to_string(), 200)),
            })
        }
    };
    Ok(ChatReply {
        content,
        model: value["model"].as_str().unwrap_or(&endpoint.model).to_string(),
        usage: Usage::from_response(value),
        attempts,
        elapsed: started.elapsed(),
        cut_off: value["choices"][0]["finish_reason"] == "length",
    })
}

/// Embed each input; the vectors come back in input order.
pub fn embed(
    endpoint: &Endpoint,
    policy: &CallPolicy,
    inputs: &[String],
    interrupts: &dyn Fn(),
) -> Result<Embeddings, LlmError> {
    let url = endpoint.url("embeddings");
    let shown = redact_url(&url);
    let started = Instant::now();
    let body = json!({"model": endpoint.model, "input": inputs});
    let (value, _) = call_with_retries(&url, endpoint, body, policy, interrupts)?;
    let bad = |cause: String| LlmError::BadResponse { endpoint: shown.clone(), cause };
    let data = value["data"].as_array().ok_or_else(|| bad("no data array".into()))?;
    if data.len() != inputs.len() {
        return Err(bad(format!("{} embeddings for {} inputs", data.len(), inputs.len())));
    }
    let mut vectors: Vec<(usize, Vec<f32>)> = Vec::with_capacity(data.len());
    for (pos, item) in data.iter().enumerate() {
        let index = item["index"].as_u64().map(|i| i as usize).unwrap_or(pos);
        let vector = item["embedding"]
            .as_array()
            .ok_or_else(|| bad(format!("item {pos} has no embedding array")))?
            .iter()
            .map(|x| x.as_f64().map(|f| f as f32))
            .collect::<Option<Vec<f32>>>()
            .ok_or_else(|| bad(format!("item {pos} has a non-numeric component")))?;
        vectors.push((index, vector));
    }
    vectors.sort_by_key(|(i, _)| *i);
    Ok(Embeddings {
        vectors: vectors.into_iter().map(|(_, v)| v).collect(),
        usage: Usage::from_response(&value),
        elapsed: started.elapsed(),
    })
}

fn call_with_retries(
    url: &str,
    endpoint: &Endpoint,
    body: Value,
    policy: &CallPolicy,
    interrupts: &dyn Fn(),
) -> Result<(Value, u32), LlmError> {
    let mut backoff = Backoff::new(policy);
    loop {
        match post_json(url, endpoint.api_key.clone(), body.clone(), policy.timeout, interrupts) {
            Ok(v) => return Ok((v, backoff.attempt())),
            Err((e, after)) => match backoff.next(&e, after) {
                Some(wait) => sleep_checking(wait, interrupts),
                None => return Err(e),
            },
        }
    }
}

/// The retry rule of one logical call: retry retryable errors `policy.retries` times, waiting
/// for the server's `Retry-After` or an exponential back-off capped at 8 s. A server that asks
/// for a longer wait than one exchange may take (`policy.timeout`, at most 30 s) gets no retry:
/// the call ends with its answer now rather than outlive the time the caller configured.
pub(super) struct Backoff {
    attempt: u32,
    retries: u32,
    next_wait: Duration,
    longest_wait: Duration,
}

impl Backoff {
    pub(super) fn new(policy: &CallPolicy) -> Self {
        Backoff {
            attempt: 1,
            retries: policy.retries,
            next_wait: policy.backoff,
            longest_wait: policy.timeout.min(Duration::from_secs(30)),
        }
    }

    /// The attempt under way, from 1.
    pub(super) fn attempt(&self) -> u32 {
        self.attempt
    }

    /// How long to wait before the next attempt after `error`, or `None` to give up.
    pub(super) fn next(&mut self, error: &LlmError, retry_after: Option<Duration>) -> Option<Duration> {
        if !error.retryable() || self.attempt > self.retries || retry_after.is_some_and(|w| w > self.longest_wait) {
            return None;
        }
        self.attempt += 1;
        let wait = retry_after.unwrap_or(self.next_wait).min(self.longest_wait);
        self.next_wait = (self.next_wait * 2).min(Duration::from_secs(8));
        Some(wait)
    }
}

/// A `Retry-After` header in seconds.
pub(super) fn retry_after(header: Option<&str>) -> Option<Duration> {
    header.and_then(|s| s.trim().parse::<u64>().ok()).map(Duration::from_secs)
}

fn sleep_checking(total: Duration, interrupts: &dyn Fn()) {
    let until = Instant::now() + total;
    loop {
        interrupts();
        let now = Instant::now();
        if now >= until {
            return;
        }
        std::thread::sleep((until - now).min(WAIT_SLICE));
    }
}

/// One HTTP exchange: the JSON body, or the error and the server's `Retry-After`.
pub(super) type Attempt = Result<Value, (LlmError, Option<Duration>)>;

/// One HTTP exchange on a helper thread; this thread waits, checking for interrupts.
fn post_json(
    url: &str,
    api_key: Option<String>,
    body: Value,
    timeout: Duration,
    interrupts: &dyn Fn(),
) -> Attempt {
    let (tx, rx) = mpsc::channel();
    let url_owned = url.to_string();
    std::thread::Builder::new()
        .name("nl2sql-llm".into())
        .spawn(move || {
            let _ = tx.send(exchange(&url_owned, api_key.as_deref(), &body, timeout));
        })
        .map_err(|e| {
            (LlmError::Unreachable { endpoint: redact_url(url), cause: format!("no thread: {e}") }, None)
        })?;
    let deadline = Instant::now() + timeout + Duration::from_secs(1);
    loop {
        interrupts();
        match rx.recv_timeout(WAIT_SLICE) {
            Ok(result) => return result,
            Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() < deadline => continue,
            Err(_) => {
                return Err((LlmError::Timeout { endpoint: redact_url(url), after: timeout }, None))
            }
        }
    }
}

fn exchange(url: &str, api_key: Option<&str>, body: &Value, timeout: Duration) -> Attempt {
    let shown = redact_url(url);
    let config = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .timeout_connect(Some(timeout.min(Duration::from_secs(10))))
        .http_status_as_error(false)
        .build();
    let agent = ureq::Agent::new_with_config(config);
    let mut request = agent.post(url).header("Content-Type", "application/json");
    if let Some(key) = api_key {
        request = request.header("Authorization", format!("Bearer {key}"));
    }
    let mut response = match request.send_json(body) {
        Ok(r) => r,
        Err(ureq::Error::Timeout(_)) => {
            return Err((LlmError::Timeout { endpoint: shown, after: timeout }, None))
        }
        Err(e) => return Err((LlmError::Unreachable { endpoint: shown, cause: describe(&e) }, None)),
    };
    let status = response.status().as_u16();
    let retry_after = retry_after(response.headers().get("retry-after").and_then(|v| v.to_str().ok()));
    let text = match response.body_mut().with_config().limit(MAX_BODY as u64).read_to_string() {
        Ok(t) => t,
        Err(ureq::Error::Timeout(_)) => {
            return Err((LlmError::Timeout { endpoint: shown, after: timeout }, None))
        }
        Err(e) => {
            return Err((
                LlmError::BadResponse { endpoint: shown, cause: format!("reading the body: {}", describe(&e)) },
                None,
            ))
        }
    };
    settle(shown, status, &text, retry_after)
}

/// What a complete HTTP response means: the JSON of a 2xx answer, or the error.
pub(super) fn settle(shown: String, status: u16, text: &str, retry_after: Option<Duration>) -> Attempt {
    if !(200..300).contains(&status) {
        let body = error_text(text);
        return Err((LlmError::Status { endpoint: shown, status, body }, retry_after));
    }
    serde_json::from_str(text).map_err(|e| {
        (
            LlmError::BadResponse {
                endpoint: shown,
                cause: format!("not JSON ({e}): {}", excerpt(text, 200)),
            },
            None,
        )
    })
}

/// The error message inside an OpenAI-style error body, or an excerpt of the body.
fn error_text(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().or(v["error"].as_str()).map(str::to_string))
        .unwrap_or_else(|| excerpt(body.trim(), 300))
}

fn describe(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Io(io) => match io.kind() {
            std::io::ErrorKind::ConnectionRefused => "connection refused".to_string(),
            _ => format!("I/O error: {io}"),
        },
        ureq::Error::HostNotFound => "host not found".to_string(),
        ureq::Error::ConnectionFailed => "connection failed".to_string(),
        ureq::Error::BodyExceedsLimit(_) => format!("the answer is larger than {} MB", MAX_BODY >> 20),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Message;
    use serde_json::Map;
    use std::io::Write;
    use std::net::TcpListener;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// A scripted HTTP server: answers each connection with the next canned (status, body, delay).
    /// It tests parsing, retries, timeouts and outages only; real-model behaviour is tested
    /// against the local model server in the integration suite.
    fn scripted(replies: Vec<(u16, &'static str, u64)>) -> (String, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let hits = Arc::new(AtomicUsize::new(0));
        let counter = hits.clone();
        std::thread::spawn(move || {
            for (stream, (status, body, delay_ms)) in listener.incoming().zip(replies) {
                let mut stream = stream.unwrap();
                counter.fetch_add(1, Ordering::SeqCst);
                let _ = crate::llm::testing::read_request(&stream);
                std::thread::sleep(Duration::from_millis(delay_ms));
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        (format!("http://127.0.0.1:{}/v1", addr.port()), hits)
    }

    /// A scripted server that writes each reply's raw bytes as they are (headers included) and,
    /// when `hang_up` is true, closes the connection without finishing: for faults a well-formed
    /// response cannot show (a body cut short, a header the client must honour).
    fn scripted_raw(replies: Vec<Vec<u8>>) -> (String, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let hits = Arc::new(AtomicUsize::new(0));
        let counter = hits.clone();
        std::thread::spawn(move || {
            for (stream, reply) in listener.incoming().zip(replies) {
                let mut stream = stream.unwrap();
                counter.fetch_add(1, Ordering::SeqCst);
                let _ = crate::llm::testing::read_request(&stream);
                let _ = stream.write_all(&reply);
                let _ = stream.flush();
                let _ = stream.shutdown(std::net::Shutdown::Both);
            }
        });
        (format!("http://127.0.0.1:{}/v1", addr.port()), hits)
    }

    fn response(status: u16, extra_headers: &str, content_length: usize, body: &[u8]) -> Vec<u8> {
        let mut r = format!(
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {content_length}\r\n{extra_headers}Connection: close\r\n\r\n"
        )
        .into_bytes();
        r.extend_from_slice(body);
        r
    }

    #[test]
    fn retry_after_is_honoured() {
        let (base, hits) = scripted_raw(vec![response(429, "Retry-After: 1\r\n", 2, b"{}"), response(200, "", OK.len(), OK.as_bytes())]);
        let started = std::time::Instant::now();
        let r = ask(&endpoint(base), &fast()).unwrap();
        assert_eq!((r.attempts, hits.load(Ordering::SeqCst)), (2, 2));
        // the back-off of this policy is 10 ms: only the header explains a wait of a second
        assert!(started.elapsed() >= Duration::from_millis(950), "waited {:?}", started.elapsed());
    }

    #[test]
    fn a_cancel_during_a_retry_after_wait_ends_the_call() {
        // the server asks for 20 s; the interrupt check fires during that wait, before any retry
        let (base, hits) = scripted_raw(vec![response(503, "Retry-After: 20\r\n", 2, b"{}"), response(200, "", OK.len(), OK.as_bytes())]);
        let (unwound, _) = cancelled_on_check(base, 10);
        assert!(unwound, "the cancel's unwind must end the call");
        assert_eq!(hits.load(Ordering::SeqCst), 1, "no retry after the cancel");
    }

    #[test]
    fn a_retry_after_longer_than_the_time_limit_ends_the_call_at_once() {
        // fast(): 2 s per exchange; a server asking for 20 s gets no retry and no wait
        let (base, hits) = scripted_raw(vec![response(429, "Retry-After: 20\r\n", 2, b"{}"), response(200, "", OK.len(), OK.as_bytes())]);
        let started = std::time::Instant::now();
        let e = ask(&endpoint(base), &fast()).unwrap_err();
        assert!(matches!(e, LlmError::Status { status: 429, .. }), "{e:?}");
        assert_eq!(hits.load(Ordering::SeqCst), 1);
        assert!(started.elapsed() < Duration::from_secs(2), "waited {:?}", started.elapsed());
    }

    #[test]
    fn a_body_cut_short_is_a_bad_response_naming_the_endpoint() {
        // the connection ends after half the announced body (a reset or a crash mid-answer)
        let (base, _) = scripted_raw(vec![response(200, "", OK.len(), &OK.as_bytes()[..OK.len() / 2])]);
        let e = ask(&endpoint(base.clone()), &CallPolicy { retries: 0, ..fast() }).unwrap_err();
        assert!(matches!(e, LlmError::BadResponse { .. }), "{e:?}");
        assert_eq!(e.sqlstate(), "38000");
        assert!(e.to_string().contains(&base) && e.to_string().contains("reading the body"), "{e}");
    }

    #[test]
    fn an_answer_stopped_at_max_tokens_is_marked_cut_off() {
        let endpoint = endpoint("http://127.0.0.1:1/v1".into());
        let reply = |finish: Value| {
            let body = json!({"choices": [{"message": {"content": "{\"sql\": \"SELECT name FROM"}, "finish_reason": finish}]});
            reply_of(&body, &endpoint, "shown", 1, Instant::now()).unwrap()
        };
        assert!(reply(json!("length")).cut_off);
        assert!(!reply(json!("stop")).cut_off);
        // an endpoint that does not say why it stopped: not known to be cut off
        assert!(!reply(Value::Null).cut_off);
    }

    #[test]
    fn truncated_json_is_a_bad_response() {
        let cut = &OK.as_bytes()[..OK.len() - 10];
        let (base, _) = scripted_raw(vec![response(200, "", cut.len(), cut)]);
        let e = ask(&endpoint(base), &fast()).unwrap_err();
        assert!(e.to_string().contains("not JSON"), "{e}");
    }

    #[test]
    fn a_huge_body_is_refused_not_read_into_memory() {
        let huge = vec![b' '; 11 << 20];
        let (base, _) = scripted_raw(vec![response(200, "", huge.len(), &huge)]);
        // the size is under test, not the time: on a loaded machine 11 MB can take over `fast()`'s 2 s
        let e = ask(&endpoint(base), &CallPolicy { retries: 0, timeout: Duration::from_secs(60), ..fast() }).unwrap_err();
        assert!(matches!(e, LlmError::BadResponse { .. }), "{e:?}");
        assert!(e.to_string().contains("reading the body: the answer is larger than 10 MB"), "{e}");
    }

    #[test]
    fn a_connection_closed_before_any_answer_is_retried_then_reported() {
        let (base, hits) = scripted_raw(vec![Vec::new(), Vec::new(), Vec::new()]);
        let e = ask(&endpoint(base.clone()), &fast()).unwrap_err();
        assert_eq!(hits.load(Ordering::SeqCst), 3, "a failed connection is retried");
        assert!(e.to_string().contains(&base), "{e}");
        assert_eq!(e.sqlstate(), "08001");
    }

    /// A call to `base` with a 60 s limit whose interrupt check unwinds (as a query cancel does)
    /// on its `n`-th run (from 0): whether the call unwound, and how often the check ran.
    fn cancelled_on_check(base: String, n: usize) -> (bool, usize) {
        let checks = AtomicUsize::new(0);
        let patient = CallPolicy { timeout: Duration::from_secs(60), ..fast() };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            chat(&endpoint(base), &patient, &ChatRequest { messages: vec![Message::user("hi")], ..Default::default() }, &|| {
                if checks.fetch_add(1, Ordering::SeqCst) == n {
                    panic!("canceling statement due to user request");
                }
            })
        }));
        (outcome.is_err(), checks.load(Ordering::SeqCst))
    }

    fn endpoint(base: String) -> Endpoint {
        Endpoint { base_url: base, model: "m".into(), api_key: Some("sk-secret".into()) }
    }

    fn fast() -> CallPolicy {
        CallPolicy { timeout: Duration::from_secs(2), retries: 2, backoff: Duration::from_millis(10) }
    }

    fn ask(e: &Endpoint, p: &CallPolicy) -> Result<ChatReply, LlmError> {
        chat(e, p, &ChatRequest { messages: vec![Message::user("hi")], ..Default::default() }, &|| {})
    }

    const OK: &str = r#"{"model":"m","choices":[{"message":{"role":"assistant","content":"{\"a\":1}"}}],"usage":{"prompt_tokens":5,"completion_tokens":3}}"#;

    #[test]
    fn parses_content_and_usage() {
        let (base, _) = scripted(vec![(200, OK, 0)]);
        let r = ask(&endpoint(base), &fast()).unwrap();
        assert_eq!(r.content, "{\"a\":1}");
        assert_eq!(r.usage, Usage { prompt_tokens: 5, completion_tokens: 3, cached_prompt_tokens: 0 });
        assert_eq!(r.attempts, 1);
    }

    #[test]
    fn the_cached_part_of_the_prompt_is_read_when_the_server_reports_it() {
        let cached = r#"{"model":"m","choices":[{"message":{"role":"assistant","content":"{}"}}],
            "usage":{"prompt_tokens":500,"completion_tokens":40,"prompt_tokens_details":{"cached_tokens":420}}}"#;
        // a server that reports more cached tokens than the prompt had is held to the prompt
        let over = r#"{"model":"m","choices":[{"message":{"role":"assistant","content":"{}"}}],
            "usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":9}}}"#;
        let (base, _) = scripted(vec![(200, cached, 0), (200, over, 0)]);
        let e = endpoint(base);
        assert_eq!(ask(&e, &fast()).unwrap().usage, Usage { prompt_tokens: 500, completion_tokens: 40, cached_prompt_tokens: 420 });
        assert_eq!(ask(&e, &fast()).unwrap().usage.cached_prompt_tokens, 5);
        let mut total = Usage::default();
        total.add(Usage { prompt_tokens: 500, completion_tokens: 40, cached_prompt_tokens: 420 });
        total.add(Usage { prompt_tokens: 100, completion_tokens: 10, cached_prompt_tokens: 0 });
        assert_eq!(total, Usage { prompt_tokens: 600, completion_tokens: 50, cached_prompt_tokens: 420 });
    }

    #[test]
    fn retries_429_and_5xx_then_succeeds() {
        let (base, hits) = scripted(vec![(429, "{}", 0), (503, "{}", 0), (200, OK, 0)]);
        let r = ask(&endpoint(base), &fast()).unwrap();
        assert_eq!((r.attempts, hits.load(Ordering::SeqCst)), (3, 3));
    }

    #[test]
    fn gives_up_after_retries_with_the_server_message() {
        let body = r#"{"error":{"message":"model overloaded"}}"#;
        let (base, hits) = scripted(vec![(500, body, 0), (500, body, 0), (500, body, 0)]);
        let e = ask(&endpoint(base.clone()), &fast()).unwrap_err();
        assert_eq!(hits.load(Ordering::SeqCst), 3);
        assert!(matches!(e, LlmError::Status { status: 500, .. }));
        let msg = e.to_string();
        assert!(msg.contains(&base) && msg.contains("model overloaded"), "{msg}");
        assert!(!msg.contains("sk-secret"));
    }

    #[test]
    fn does_not_retry_client_errors() {
        let (base, hits) = scripted(vec![(400, r#"{"error":"bad"}"#, 0), (200, OK, 0)]);
        let e = ask(&endpoint(base), &fast()).unwrap_err();
        assert_eq!(hits.load(Ordering::SeqCst), 1);
        assert_eq!(e.sqlstate(), "38000");
    }

    #[test]
    fn unreachable_endpoint_is_named_with_its_cause() {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let base = format!("http://127.0.0.1:{port}/v1");
        let e = ask(&endpoint(base.clone()), &fast()).unwrap_err();
        assert!(matches!(e, LlmError::Unreachable { .. }), "{e:?}");
        assert!(e.to_string().contains(&base) && e.to_string().contains("refused"), "{e}");
        assert_eq!(e.sqlstate(), "08001");
    }

    #[test]
    fn slow_server_times_out() {
        let (base, _) = scripted(vec![(200, OK, 3000)]);
        let p = CallPolicy { timeout: Duration::from_millis(300), retries: 0, ..fast() };
        // the server would answer after 3 s; a timeout error (not the answer) shows the limit held
        let e = ask(&endpoint(base), &p).unwrap_err();
        assert!(matches!(e, LlmError::Timeout { .. }), "{e:?}");
    }

    #[test]
    fn interrupt_check_runs_while_waiting_and_can_abort() {
        let (base, _) = scripted(vec![(200, OK, 3000)]);
        let (unwound, checks) = cancelled_on_check(base, 4);
        // the server would answer after 3 s: an unwind instead of the answer ends the call early
        assert!(unwound, "the interrupt's unwind must end the call");
        assert_eq!(checks, 5);
    }

    #[test]
    fn malformed_answers_are_bad_responses() {
        let (base, _) = scripted(vec![(200, "not json", 0), (200, r#"{"choices":[]}"#, 0)]);
        let e = endpoint(base);
        assert!(ask(&e, &fast()).unwrap_err().to_string().contains("not JSON"));
        assert!(ask(&e, &fast()).unwrap_err().to_string().contains("no choices"));
    }

    #[test]
    fn embeddings_come_back_in_input_order() {
        let body = r#"{"data":[{"index":1,"embedding":[0.5,1]},{"index":0,"embedding":[1,2]}],"usage":{"prompt_tokens":4}}"#;
        let (base, _) = scripted(vec![(200, body, 0)]);
        let r = embed(&endpoint(base), &fast(), &["a".into(), "b".into()], &|| {}).unwrap();
        assert_eq!(r.vectors, vec![vec![1.0, 2.0], vec![0.5, 1.0]]);
        assert_eq!(r.usage.prompt_tokens, 4);
    }

    #[test]
    fn request_body_carries_schema_and_extras() {
        let mut extra = Map::new();
        extra.insert("cache_prompt".into(), json!(false));
        let req = ChatRequest {
            messages: vec![Message::system("s"), Message::user("u")],
            temperature: 0.0,
            max_tokens: Some(64),
            json_schema: Some(("step".into(), json!({"type": "object"}))),
            seed: Some(7),
            extra,
        };
        let b = req.body("qwen");
        assert_eq!(b["model"], "qwen");
        assert_eq!(b["response_format"]["type"], "json_schema");
        assert_eq!(b["response_format"]["json_schema"]["schema"], json!({"type": "object"}));
        assert_eq!(b["cache_prompt"], json!(false));
        assert_eq!(b["messages"][1]["role"], "user");
    }

    #[test]
    fn urls_lose_credentials_in_messages() {
        assert_eq!(redact_url("https://u:p@host:1/v1"), "https://host:1/v1");
        assert_eq!(redact_url("http://host/v1"), "http://host/v1");
        let dbg = format!("{:?}", endpoint("http://a:b@h/v1".into()));
        assert!(!dbg.contains("sk-secret") && !dbg.contains("a:b"));
    }
}
