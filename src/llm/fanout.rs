//! Several chat completions at once: the N-version generators, the votes of a duel.
//!
//! The requests go out concurrently (at most `concurrency` in flight) from a `reqwest` client on a
//! `tokio` runtime that lives on a helper thread for the length of the call. The helper never
//! touches PostgreSQL. The calling backend waits in slices of [`WAIT_SLICE`] and runs the caller's
//! interrupt check between slices, as for one blocking call; if that check unwinds (query
//! cancel), the helper is told at once and drops every request still in flight.
//!
//! Each request keeps the single-call rules: the same time limit per exchange, the same retries
//! with back-off on 429, 5xx and failed connections, the same errors.

use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{oneshot, Semaphore};
use tokio::task::JoinSet;

use super::client::{redact_url, reply_of, retry_after, settle, Attempt, Backoff, MAX_BODY, WAIT_SLICE};
use super::{CallPolicy, ChatReply, ChatRequest, Endpoint, LlmError};

/// Ask for every request's completion, at most `concurrency` at a time; the results come back in
/// request order, each a reply or its own error (one failed request does not fail the others).
pub fn chat_all(
    endpoint: &Endpoint,
    policy: &CallPolicy,
    requests: &[ChatRequest],
    concurrency: usize,
    interrupts: &dyn Fn(),
) -> Vec<Result<ChatReply, LlmError>> {
    let n = requests.len();
    if n == 0 {
        return Vec::new();
    }
    let concurrency = concurrency.clamp(1, n);
    let url = endpoint.url("chat/completions");
    let shown = redact_url(&url);
    let bodies: Vec<Value> = requests.iter().map(|r| r.body(&endpoint.model)).collect();
    let (tx, rx) = mpsc::channel();
    // dropped when this function returns or unwinds: the helper then stops what is in flight
    let (_cancel, cancelled) = oneshot::channel::<()>();
    let job = Job { endpoint: endpoint.clone(), policy: *policy, url, bodies, concurrency };
    if let Err(e) = std::thread::Builder::new().name("nl2sql-fanout".into()).spawn(move || job.run(tx, cancelled)) {
        let cause = format!("no thread: {e}");
        return (0..n).map(|_| Err(LlmError::Unreachable { endpoint: shown.clone(), cause: cause.clone() })).collect();
    }
    let mut results: Vec<Option<Result<ChatReply, LlmError>>> = (0..n).map(|_| None).collect();
    let mut missing = n;
    let deadline = Instant::now() + worst_case(policy, n, concurrency);
    while missing > 0 {
        interrupts();
        match rx.recv_timeout(WAIT_SLICE) {
            Ok((i, result)) => {
                if results[i].replace(result).is_none() {
                    missing -= 1;
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() < deadline => {}
            Err(_) => break,
        }
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(LlmError::Timeout { endpoint: shown.clone(), after: policy.timeout })))
        .collect()
}

/// The longest the helper can take: every round of `concurrency` requests using all its attempts
/// and the longest back-offs, plus a second of slack.
fn worst_case(policy: &CallPolicy, n: usize, concurrency: usize) -> Duration {
    let attempts = policy.retries + 1;
    let per_request = (policy.timeout + Duration::from_secs(30)) * attempts;
    per_request * n.div_ceil(concurrency) as u32 + Duration::from_secs(1)
}

/// What the helper thread does.
struct Job {
    endpoint: Endpoint,
    policy: CallPolicy,
    url: String,
    bodies: Vec<Value>,
    concurrency: usize,
}

type Sent = mpsc::Sender<(usize, Result<ChatReply, LlmError>)>;

impl Job {
    fn run(self, tx: Sent, cancelled: oneshot::Receiver<()>) {
        let shown = redact_url(&self.url);
        let fail_all = |cause: String| {
            for i in 0..self.bodies.len() {
                let _ = tx.send((i, Err(LlmError::Unreachable { endpoint: shown.clone(), cause: cause.clone() })));
            }
        };
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(rt) => rt,
            Err(e) => return fail_all(format!("no async runtime: {e}")),
        };
        let client = match reqwest::Client::builder()
            .timeout(self.policy.timeout)
            .connect_timeout(self.policy.timeout.min(Duration::from_secs(10)))
            .build()
        {
            Ok(c) => c,
            Err(e) => return fail_all(format!("no HTTP client: {e}")),
        };
        runtime.block_on(async move {
            let permits = Arc::new(Semaphore::new(self.concurrency));
            let endpoint = Arc::new(self.endpoint);
            let url: Arc<str> = self.url.into();
            let mut tasks = JoinSet::new();
            for (i, body) in self.bodies.into_iter().enumerate() {
                let (client, permits, endpoint, url, tx) =
                    (client.clone(), permits.clone(), endpoint.clone(), url.clone(), tx.clone());
                let policy = self.policy;
                tasks.spawn(async move {
                    let Ok(_permit) = permits.acquire_owned().await else { return };
                    let started = Instant::now();
                    let result = call_with_retries(&client, &url, &endpoint, &body, &policy)
                        .await
                        .and_then(|(value, attempts)| reply_of(&value, &endpoint, &redact_url(&url), attempts, started));
                    let _ = tx.send((i, result));
                });
            }
            tokio::select! {
                _ = cancelled => {} // the caller is gone: dropping the tasks aborts their requests
                _ = async { while tasks.join_next().await.is_some() {} } => {}
            }
        });
    }
}

async fn call_with_retries(
    client: &reqwest::Client,
    url: &str,
    endpoint: &Endpoint,
    body: &Value,
    policy: &CallPolicy,
) -> Result<(Value, u32), LlmError> {
    let mut backoff = Backoff::new(policy);
    loop {
        match exchange(client, url, endpoint.api_key.as_deref(), body, policy.timeout).await {
            Ok(v) => return Ok((v, backoff.attempt())),
            Err((e, after)) => match backoff.next(&e, after) {
                Some(wait) => tokio::time::sleep(wait).await,
                None => return Err(e),
            },
        }
    }
}

async fn exchange(client: &reqwest::Client, url: &str, api_key: Option<&str>, body: &Value, timeout: Duration) -> Attempt {
    let shown = redact_url(url);
    let mut request = client
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body.to_string());
    if let Some(key) = api_key {
        request = request.bearer_auth(key);
    }
    let response = match request.send().await {
        Ok(r) => r,
        Err(e) if e.is_timeout() => return Err((LlmError::Timeout { endpoint: shown, after: timeout }, None)),
        Err(e) => return Err((LlmError::Unreachable { endpoint: shown, cause: describe(&e) }, None)),
    };
    let status = response.status().as_u16();
    let after = retry_after(response.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok()));
    // read the body in chunks, up to MAX_BODY
    let mut response = response;
    let mut body: Vec<u8> = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > MAX_BODY {
                    let cause = format!("reading the body: the answer is larger than {} MB", MAX_BODY >> 20);
                    return Err((LlmError::BadResponse { endpoint: shown, cause }, None));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) if e.is_timeout() => return Err((LlmError::Timeout { endpoint: shown, after: timeout }, None)),
            Err(e) => {
                return Err((LlmError::BadResponse { endpoint: shown, cause: format!("reading the body: {}", describe(&e)) }, None));
            }
        }
    }
    settle(shown, status, &String::from_utf8_lossy(&body), after)
}

/// The innermost cause, worded as the blocking client words it.
fn describe(e: &reqwest::Error) -> String {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    let mut innermost = e.to_string();
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::ConnectionRefused {
                return "connection refused".into();
            }
        }
        innermost = s.to_string();
        source = s.source();
    }
    innermost
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Message;
    use crate::llm::testing::read_request;
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Condvar, Mutex};

    /// A scripted server that answers each request with its own body's `seed` echoed as the
    /// content, but only once `gather` requests have been in flight together (else after 2 s, with 503):
    /// it tests that requests really overlap, without timing anything.
    fn gathering_server(gather: usize) -> (String, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let peak = Arc::new(AtomicUsize::new(0));
        let state = Arc::new((Mutex::new(0usize), Condvar::new()));
        let seen = peak.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let (state, seen) = (state.clone(), seen.clone());
                std::thread::spawn(move || serve(stream.unwrap(), gather, &state, &seen));
            }
        });
        (format!("http://127.0.0.1:{port}/v1"), peak)
    }

    fn serve(mut stream: TcpStream, gather: usize, state: &(Mutex<usize>, Condvar), peak: &AtomicUsize) {
        let Some(buf) = read_request(&stream) else { return };
        let body: Value = serde_json::from_slice(&buf).unwrap();
        let (lock, cv) = state;
        let mut in_flight = lock.lock().unwrap();
        *in_flight += 1;
        peak.fetch_max(*in_flight, Ordering::SeqCst);
        cv.notify_all();
        let (mut in_flight, timeout) = cv
            .wait_timeout_while(in_flight, Duration::from_secs(2), |_| peak.load(Ordering::SeqCst) < gather)
            .unwrap();
        *in_flight -= 1;
        drop(in_flight);
        let (status, reply) = if timeout.timed_out() {
            (503, r#"{"error":{"message":"alone"}}"#.to_string())
        } else {
            let content = format!("seed {}", body["seed"]);
            (200, serde_json::json!({"model": "m", "choices": [{"message": {"content": content}}]}).to_string())
        };
        let _ = write!(
            stream,
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
            reply.len()
        );
    }

    fn requests(n: u64) -> Vec<ChatRequest> {
        (0..n)
            .map(|i| ChatRequest { messages: vec![Message::user("hi")], seed: Some(i), ..Default::default() })
            .collect()
    }

    fn policy() -> CallPolicy {
        CallPolicy { timeout: Duration::from_secs(10), retries: 0, backoff: Duration::from_millis(10) }
    }

    #[test]
    fn requests_overlap_and_come_back_in_order() {
        let (base, peak) = gathering_server(3);
        let endpoint = Endpoint { base_url: base, model: "m".into(), api_key: None };
        let replies = chat_all(&endpoint, &policy(), &requests(3), 3, &|| {});
        let contents: Vec<String> = replies.into_iter().map(|r| r.unwrap().content).collect();
        assert_eq!(contents, ["seed 0", "seed 1", "seed 2"]);
        assert_eq!(peak.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn concurrency_bounds_the_requests_in_flight() {
        // with one at a time nobody is ever joined: every request is answered 503 after waiting
        let (base, peak) = gathering_server(2);
        let endpoint = Endpoint { base_url: base, model: "m".into(), api_key: None };
        let replies = chat_all(&endpoint, &policy(), &requests(2), 1, &|| {});
        assert_eq!(peak.load(Ordering::SeqCst), 1);
        for r in replies {
            assert!(matches!(r, Err(LlmError::Status { status: 503, ref body, .. }) if body == "alone"), "{r:?}");
        }
    }

    #[test]
    fn one_failure_does_not_fail_the_others() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for (k, stream) in listener.incoming().enumerate() {
                let mut stream = stream.unwrap();
                let _ = read_request(&stream);
                let reply = if k == 0 { "not json" } else { r#"{"choices":[{"message":{"content":"ok"}}]}"# };
                let _ = write!(stream, "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}", reply.len());
            }
        });
        let endpoint = Endpoint { base_url: format!("http://127.0.0.1:{port}/v1"), model: "m".into(), api_key: None };
        let replies = chat_all(&endpoint, &policy(), &requests(2), 1, &|| {});
        assert!(matches!(&replies[0], Err(LlmError::BadResponse { cause, .. }) if cause.starts_with("not JSON")), "{replies:?}");
        assert_eq!(replies[1].as_ref().unwrap().content, "ok");
    }

    #[test]
    fn unreachable_endpoint_is_named_like_a_single_call() {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let endpoint = Endpoint { base_url: format!("http://u:pw@127.0.0.1:{port}/v1"), model: "m".into(), api_key: None };
        let replies = chat_all(&endpoint, &policy(), &requests(2), 2, &|| {});
        for r in replies {
            let e = r.unwrap_err();
            assert_eq!(e.to_string(), format!("LLM endpoint http://127.0.0.1:{port}/v1/chat/completions is unreachable: connection refused"));
        }
    }

    #[test]
    fn an_interrupt_while_waiting_ends_the_call() {
        let (base, _) = gathering_server(99); // never answers within the test
        let endpoint = Endpoint { base_url: base, model: "m".into(), api_key: None };
        let checks = AtomicUsize::new(0);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            chat_all(&endpoint, &policy(), &requests(2), 2, &|| {
                if checks.fetch_add(1, Ordering::SeqCst) == 3 {
                    panic!("canceling statement due to user request");
                }
            })
        }));
        assert!(outcome.is_err());
        assert_eq!(checks.load(Ordering::SeqCst), 4);
    }

    /// A server answering each connection with the next raw reply (headers included), then hanging up.
    fn raw_server(replies: Vec<Vec<u8>>) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for (stream, reply) in listener.incoming().zip(replies) {
                let mut stream = stream.unwrap();
                let _ = read_request(&stream);
                let _ = stream.write_all(&reply);
                let _ = stream.shutdown(std::net::Shutdown::Both);
            }
        });
        format!("http://127.0.0.1:{port}/v1")
    }

    fn raw(status: u16, headers: &str, length: usize, body: &[u8]) -> Vec<u8> {
        let mut r = format!("HTTP/1.1 {status} X\r\nContent-Length: {length}\r\n{headers}Connection: close\r\n\r\n").into_bytes();
        r.extend_from_slice(body);
        r
    }

    const OK: &str = r#"{"choices":[{"message":{"content":"ok"}}]}"#;

    #[test]
    fn faults_are_worded_as_for_one_call() {
        let huge = vec![b' '; 11 << 20];
        let cut = &OK.as_bytes()[..OK.len() / 2];
        let base = raw_server(vec![raw(200, "", huge.len(), &huge), raw(200, "", OK.len(), cut), raw(200, "", cut.len(), cut)]);
        let endpoint = Endpoint { base_url: base, model: "m".into(), api_key: None };
        // one request at a time, so each meets its own fault
        let replies = chat_all(&endpoint, &policy(), &requests(3), 1, &|| {});
        let causes: Vec<String> = replies.iter().map(|r| r.as_ref().unwrap_err().to_string()).collect();
        assert!(causes[0].contains("larger than 10 MB"), "{causes:?}");
        assert!(causes[1].contains("reading the body"), "{causes:?}");
        assert!(causes[2].contains("not JSON"), "{causes:?}");
        assert!(replies.iter().all(|r| r.as_ref().unwrap_err().sqlstate() == "38000"));
    }

    #[test]
    fn retry_after_is_honoured_by_the_fan_out_too() {
        let base = raw_server(vec![raw(429, "Retry-After: 1\r\n", 2, b"{}"), raw(200, "", OK.len(), OK.as_bytes())]);
        let endpoint = Endpoint { base_url: base, model: "m".into(), api_key: None };
        let started = std::time::Instant::now();
        let replies = chat_all(&endpoint, &CallPolicy { retries: 1, ..policy() }, &requests(1), 1, &|| {});
        assert_eq!(replies[0].as_ref().unwrap().content, "ok");
        // the back-off of this policy is 10 ms: only the header explains a wait of a second
        assert!(started.elapsed() >= Duration::from_millis(950), "waited {:?}", started.elapsed());
    }

    #[test]
    fn no_requests_no_call() {
        let endpoint = Endpoint { base_url: "http://127.0.0.1:9/v1".into(), model: "m".into(), api_key: None };
        assert!(chat_all(&endpoint, &policy(), &[], 4, &|| panic!("no wait")).is_empty());
    }
}
