//! `pensive mock-upstream`: a deterministic provider speaking every dialect at
//! its real path, so the real provider code runs over real HTTP in tests and
//! benchmarks. Scenarios come from `mock:<name>` keywords (see `scenarios`);
//! `--replay FILE` serves a recording instead. Every request is recorded, and
//! so is every response stream the client closed early.
//!
//! Longer than the ~450 lines a file keeps here (537): the HTTP side of the mock
//! and the bodies it writes for faults; the body generators are the next piece
//! to move out (`mock/bodies.rs`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_stream::stream;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;
use serde_json::Value;

use super::encoders::{self, Encoder};
use super::scenarios::{
    scenario_for, Endless, Fault, Scenario, ENDLESS_BYTES, TRICKLE_FOR, TRICKLE_PAUSE,
};
use crate::server::delta::Delta;
use crate::server::framing::WireEvent;
use crate::server::providers::wire::Dialect;

/// One request the mock received.
#[derive(Debug, Clone, Serialize)]
pub struct RecordedRequest {
    pub dialect: &'static str,
    pub path: String,
    /// Lower-case header names; values as sent (tests look for keys).
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

/// How the mock answers.
#[derive(Debug, Clone, Default)]
pub struct MockConfig {
    /// Pause before each scripted chunk.
    pub delay: Duration,
    /// A recording to serve for every request (framed events, raw text each).
    pub replay: Option<Arc<Vec<String>>>,
}

/// Shared state: configuration and what was recorded.
#[derive(Debug, Clone, Default)]
pub struct MockState {
    config: MockConfig,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    /// Response streams dropped before their end (client closed / Stop).
    closed_early: Arc<AtomicUsize>,
    /// Response streams currently being written.
    active: Arc<AtomicUsize>,
    /// Bytes of response bodies handed to the connection so far.
    sent_bytes: Arc<AtomicUsize>,
}

impl MockState {
    pub fn new(config: MockConfig) -> Self {
        Self {
            config,
            ..Self::default()
        }
    }

    /// Requests received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Streams the client closed before the end.
    pub fn closed_early(&self) -> usize {
        self.closed_early.load(Ordering::SeqCst)
    }

    /// Streams still being written.
    pub fn active(&self) -> usize {
        self.active.load(Ordering::SeqCst)
    }

    /// Bytes of response bodies written so far (a client that stops reading
    /// stops this growing, once the buffers between are full).
    pub fn sent_bytes(&self) -> usize {
        self.sent_bytes.load(Ordering::SeqCst)
    }
}

/// Splits a recording into the raw text of each event (blank-line separated
/// for SSE, one per line for NDJSON), so replay keeps `event:` lines.
pub fn replay_events(recording: &str) -> Vec<String> {
    let ndjson = !recording.trim_start().starts_with("data:")
        && !recording.trim_start().starts_with("event:")
        && !recording.trim_start().starts_with(':');
    if ndjson {
        recording
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| format!("{l}\n"))
            .collect()
    } else {
        recording
            .replace("\r\n", "\n")
            .split("\n\n")
            .filter(|e| !e.trim().is_empty())
            .map(|e| format!("{e}\n\n"))
            .collect()
    }
}

/// The mock's routes.
pub fn router(state: MockState) -> Router {
    Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/responses", post(responses))
        .route("/v1/messages", post(anthropic))
        .route("/v1beta/models/{*rest}", post(gemini))
        .route("/api/chat", post(ollama))
        .route("/_mock/requests", get(list_requests))
        .route("/_mock/stats", get(stats))
        .with_state(state)
}

async fn chat(State(s): State<MockState>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    serve(
        s,
        Dialect::Chat,
        "/v1/chat/completions".into(),
        headers,
        body,
    )
}

async fn responses(
    State(s): State<MockState>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    serve(s, Dialect::Responses, "/v1/responses".into(), headers, body)
}

async fn anthropic(
    State(s): State<MockState>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    serve(s, Dialect::Anthropic, "/v1/messages".into(), headers, body)
}

async fn gemini(
    State(s): State<MockState>,
    Path(rest): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    serve(
        s,
        Dialect::Gemini,
        format!("/v1beta/models/{rest}"),
        headers,
        body,
    )
}

async fn ollama(
    State(s): State<MockState>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    serve(s, Dialect::Ollama, "/api/chat".into(), headers, body)
}

async fn list_requests(State(s): State<MockState>) -> Json<Vec<RecordedRequest>> {
    Json(s.requests())
}

async fn stats(State(s): State<MockState>) -> Json<Value> {
    Json(serde_json::json!({
        "requests": s.requests().len(),
        "active": s.active(),
        "closed_early": s.closed_early(),
        "sent_bytes": s.sent_bytes(),
    }))
}

fn serve(
    state: MockState,
    dialect: Dialect,
    path: String,
    headers: HeaderMap,
    body: Value,
) -> Response {
    let recorded_headers = headers
        .iter()
        .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
        .collect();
    let text = body.to_string();
    if let Ok(mut requests) = state.requests.lock() {
        requests.push(RecordedRequest {
            dialect: dialect.name(),
            path,
            headers: recorded_headers,
            body,
        });
    }
    if let Some(events) = state.config.replay.clone() {
        let delay = state.config.delay;
        return stream_response(state, dialect, replay_body(events.as_ref().clone(), delay));
    }
    let scenario = scenario_for(&text, state.config.delay);
    if let Fault::Status { code, retry_after } = scenario.fault {
        return status_response(code, retry_after);
    }
    if scenario.fault == Fault::HugeErrorBody {
        return huge_error_response(state);
    }
    let model = "mock-model";
    stream_response(state, dialect, scenario_body(dialect, model, scenario))
}

fn status_response(code: u16, retry_after: Option<u64>) -> Response {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let message = match code {
        401 => "Incorrect API key provided.",
        403 => "Your key does not have access to this model.",
        404 => "The model `mock-model` does not exist or you do not have access to it.",
        429 => "Rate limit reached for requests.",
        503 => "The engine is currently overloaded, please try again later.",
        _ => "The server had an error while processing your request.",
    };
    let body =
        serde_json::json!({"error": {"message": message, "type": "mock_error", "code": code}});
    let mut response = (status, Json(body)).into_response();
    if let Some(seconds) = retry_after {
        if let Ok(value) = seconds.to_string().parse() {
            response.headers_mut().insert("retry-after", value);
        }
    }
    response
}

type Chunk = Result<Bytes, std::io::Error>;

fn frame_bytes(dialect: Dialect, frame: &WireEvent) -> String {
    if dialect.is_ndjson() {
        format!("{}\n", frame.data)
    } else {
        match &frame.event {
            Some(name) => format!("event: {name}\ndata: {}\n\n", frame.data),
            None => format!("data: {}\n\n", frame.data),
        }
    }
}

fn scenario_body(
    dialect: Dialect,
    model: &str,
    scenario: Scenario,
) -> impl futures::Stream<Item = Chunk> + Send {
    let mut encoder = encoders::encoder(dialect, model);
    stream! {
        if let Fault::SlowFirst(wait) = scenario.fault {
            tokio::time::sleep(wait).await;
        }
        let split = scenario.fault == Fault::SplitBytes;
        for frame in encoder.start() {
            yield Ok(Bytes::from(frame_bytes(dialect, &frame)));
        }
        for (index, step) in scenario.steps.iter().enumerate() {
            match scenario.fault {
                Fault::DropAfter(n) if index == n => {
                    // Let what was written reach the client before the reset.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    yield Err(std::io::Error::other("mock: connection dropped"));
                    return;
                }
                Fault::StallAfter(n) if index == n => {
                    // Silent but connected, until the client gives up (bounded).
                    tokio::time::sleep(Duration::from_secs(600)).await;
                }
                Fault::MalformedAfter(n) if index == n => {
                    let bad = if dialect.is_ndjson() { "{\"message\": {oops\n" } else { "data: {\"oops\": \n\n" };
                    yield Ok(Bytes::from_static(bad.as_bytes()));
                }
                Fault::HugeLineAfter { after, bytes } if index == after => {
                    // In 64 KB writes, as a runaway upstream would send it.
                    let prefix = if dialect.is_ndjson() { "{\"junk\":\"" } else { "data: {\"junk\":\"" };
                    yield Ok(Bytes::from_static(prefix.as_bytes()));
                    let piece = Bytes::from(vec![b'a'; 64 * 1024]);
                    for _ in 0..bytes / piece.len() {
                        yield Ok(piece.clone());
                    }
                    yield Ok(Bytes::from_static(if dialect.is_ndjson() { b"\"}\n" } else { b"\"}\n\n" }));
                }
                Fault::InvalidUtf8After(n) if index == n => {
                    let bad: &[u8] = if dialect.is_ndjson() { b"{\"junk\":\"\xff\xfe\"}\n" } else { b"data: {\"junk\":\"\xff\xfe\"}\n\n" };
                    yield Ok(Bytes::from_static(bad));
                }
                _ => {}
            }
            if !step.delay.is_zero() {
                tokio::time::sleep(step.delay).await;
            }
            let stamped;
            let deltas = if scenario.stamp_send_time {
                stamped = with_send_time(&step.deltas);
                &stamped
            } else {
                &step.deltas
            };
            for frame in encoder.step(deltas) {
                let text = frame_bytes(dialect, &frame);
                if split {
                    for piece in split_inside_chars(&text) {
                        yield Ok(Bytes::from(piece));
                        tokio::task::yield_now().await;
                    }
                } else {
                    yield Ok(Bytes::from(text));
                }
            }
        }
        if scenario.fault == Fault::NoTerminator {
            return;
        }
        if let Fault::Endless(kind) = scenario.fault {
            let mut endless = std::pin::pin!(endless_body(dialect, encoder.as_mut(), kind));
            while let Some(chunk) = futures::StreamExt::next(&mut endless).await {
                yield chunk;
            }
            return;
        }
        for frame in encoder.finish() {
            yield Ok(Bytes::from(frame_bytes(dialect, &frame)));
        }
    }
}

/// What an endless scenario writes after its steps (see `Endless`): at most
/// `ENDLESS_BYTES`, most of it one piece of bytes written again and again.
fn endless_body<'e>(
    dialect: Dialect,
    encoder: &'e mut dyn Encoder,
    kind: Endless,
) -> impl futures::Stream<Item = Chunk> + Send + 'e {
    stream! {
        let frames = |encoder: &mut dyn Encoder, delta: Delta| -> Bytes {
            let text: String = encoder.step(&[delta]).iter().map(|f| frame_bytes(dialect, f)).collect();
            Bytes::from(text)
        };
        let (opening, piece) = match kind {
            Endless::Event if dialect.is_ndjson() => (
                Bytes::from_static(b"{\"junk\":\""),
                Bytes::from(vec![b'a'; 16 * 1024]),
            ),
            Endless::Event => {
                let mut line = b"data: ".to_vec();
                line.resize(16 * 1024 - 1, b'a');
                line.push(b'\n');
                (Bytes::new(), Bytes::from(line))
            }
            Endless::Whitespace => {
                let blank = " \n".repeat(2048);
                // The first frames may open the answer's part; the rest repeat.
                (frames(encoder, Delta::Answer(blank.clone())), frames(encoder, Delta::Answer(blank)))
            }
            Endless::Items if dialect == Dialect::Responses => {
                let mut sent = 0;
                let mut item = 0usize;
                let padding = "x".repeat(1000);
                while sent < ENDLESS_BYTES {
                    let event = serde_json::json!({
                        "type": "response.reasoning_summary_text.delta",
                        "item_id": format!("rs_{item}_{padding}"),
                        "output_index": 0,
                        "summary_index": 0,
                        "delta": "More. ",
                    });
                    let bytes = Bytes::from(format!("data: {event}\n\n"));
                    sent += bytes.len();
                    item += 1;
                    yield Ok(bytes);
                }
                return;
            }
            Endless::Items | Endless::Reasoning => {
                let text = "Considering yet another case. ".repeat(128);
                (frames(encoder, Delta::Reasoning(text.clone())), frames(encoder, Delta::Reasoning(text)))
            }
            Endless::Trickle => {
                let piece = frames(encoder, Delta::Reasoning("Still thinking. ".into()));
                let started = tokio::time::Instant::now();
                while started.elapsed() < TRICKLE_FOR {
                    tokio::time::sleep(TRICKLE_PAUSE).await;
                    yield Ok(piece.clone());
                }
                return;
            }
        };
        let mut sent = opening.len();
        yield Ok(opening);
        while sent < ENDLESS_BYTES {
            sent += piece.len();
            yield Ok(piece.clone());
        }
    }
}

/// HTTP 500 with a JSON error body that never closes: `ENDLESS_BYTES` of message.
fn huge_error_response(state: MockState) -> Response {
    let body = stream! {
        yield Ok(Bytes::from_static(b"{\"error\":{\"message\":\"The server is melting"));
        let piece = Bytes::from(vec![b'!'; 64 * 1024]);
        for _ in 0..ENDLESS_BYTES / piece.len() {
            yield Ok(piece.clone());
        }
    };
    let mut response = stream_response(state, Dialect::Chat, body);
    *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    response
}

/// Appends the current wall-clock time (`@<µs since the Unix epoch>;`) to each
/// text delta. Read just before the chunk is yielded: the body is polled when
/// the connection can take it, so this is the moment the bytes are written.
fn with_send_time(deltas: &[Delta]) -> Vec<Delta> {
    let micros = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros())
        .unwrap_or(0);
    deltas
        .iter()
        .map(|delta| match delta {
            Delta::Reasoning(text) => Delta::Reasoning(format!("{text}@{micros};")),
            Delta::Answer(text) => Delta::Answer(format!("{text}@{micros};")),
            other => other.clone(),
        })
        .collect()
}

/// Cuts text into byte pieces that end inside multi-byte characters.
fn split_inside_chars(text: &str) -> Vec<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut pieces = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c.len_utf8() > 1 {
            pieces.push(bytes[start..i + 1].to_vec());
            start = i + 1;
        }
    }
    pieces.push(bytes[start..].to_vec());
    pieces
}

fn replay_body(events: Vec<String>, delay: Duration) -> impl futures::Stream<Item = Chunk> + Send {
    stream! {
        for event in events {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            yield Ok(Bytes::from(event));
        }
    }
}

/// Wraps a body so the mock counts streams that are dropped before their end.
fn stream_response(
    state: MockState,
    dialect: Dialect,
    body: impl futures::Stream<Item = Chunk> + Send + 'static,
) -> Response {
    let sent = state.sent_bytes.clone();
    let guard = ActiveGuard::new(state);
    let body = stream! {
        let mut guard = guard;
        let mut body = std::pin::pin!(body);
        while let Some(chunk) = futures::StreamExt::next(&mut body).await {
            if let Ok(bytes) = &chunk {
                sent.fetch_add(bytes.len(), Ordering::SeqCst);
            }
            yield chunk;
        }
        guard.finished = true;
    };
    let content_type = if dialect.is_ndjson() {
        "application/x-ndjson"
    } else {
        "text/event-stream"
    };
    Response::builder()
        .header("content-type", content_type)
        .header("cache-control", "no-cache")
        .body(Body::from_stream(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

struct ActiveGuard {
    state: MockState,
    finished: bool,
}

impl ActiveGuard {
    fn new(state: MockState) -> Self {
        state.active.fetch_add(1, Ordering::SeqCst);
        Self {
            state,
            finished: false,
        }
    }
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        self.state.active.fetch_sub(1, Ordering::SeqCst);
        if !self.finished {
            self.state.closed_early.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Serves the mock on `listener` until the process ends.
/// Like a provider's server, it writes each chunk at once (`TCP_NODELAY`): with
/// Nagle's algorithm a paced chunk would wait for the ACK of the previous one.
pub async fn serve_on(listener: tokio::net::TcpListener, state: MockState) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|stream| {
        let _ = stream.set_nodelay(true);
    });
    axum::serve(listener, router(state)).await
}
