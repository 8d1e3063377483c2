//! What the mock keeps for tests to read: its configuration, the requests it
//! received, and counts of its response streams (being written, closed early
//! by the client, bytes sent), kept by wrapping every body it answers with.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_stream::stream;
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;

use super::frame::Chunk;
use crate::server::providers::wire::Dialect;

/// A chat stream started with `reasoning_control: true` (llama.cpp): its
/// completion id, and the flag `POST /v1/chat/completions/control` raises to
/// end its reasoning.
pub(super) struct Control {
    pub id: String,
    pub ended: tokio::sync::watch::Receiver<bool>,
}

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
    pub(super) config: MockConfig,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    /// Response streams dropped before their end (client closed / Stop).
    closed_early: Arc<AtomicUsize>,
    /// Response streams currently being written.
    active: Arc<AtomicUsize>,
    /// Bytes of response bodies handed to the connection so far.
    sent_bytes: Arc<AtomicUsize>,
    /// llama.cpp-style streams (`reasoning_control: true`) by completion id:
    /// the flag that ends their reasoning.
    controls: Arc<Mutex<HashMap<String, tokio::sync::watch::Sender<bool>>>>,
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

    /// A new controllable stream: its completion id and its flag.
    pub(super) fn new_control(&self) -> Option<Control> {
        let mut controls = self.controls.lock().ok()?;
        let id = format!("chatcmpl-mock-{}", controls.len() + 1);
        let (sender, ended) = tokio::sync::watch::channel(false);
        controls.insert(id.clone(), sender);
        Some(Control { id, ended })
    }

    /// Ends the reasoning of the stream `id`; false for an unknown id.
    pub(super) fn end_reasoning(&self, id: &str) -> bool {
        self.controls
            .lock()
            .ok()
            .and_then(|controls| controls.get(id).map(|flag| flag.send_replace(true)))
            .is_some()
    }

    /// Keeps a request for `requests`.
    pub(super) fn record(&self, request: RecordedRequest) {
        if let Ok(mut requests) = self.requests.lock() {
            requests.push(request);
        }
    }
}

/// Wraps a body so the mock counts streams that are dropped before their end.
pub(super) fn stream_response(
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
