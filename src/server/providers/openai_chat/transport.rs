//! Live chat-completion turns: async-openai's `byot` streaming call with its
//! HTTP layer replaced (the shared client, no silent retries, `Retry-After`
//! noted, error bodies cut short, the stream body framed and bounded by our
//! `Framer` and counted against the turn's byte budget), and its errors
//! mapped to `TurnError`. The only file that knows async-openai.

use std::future::Future;

use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use async_openai::Client;
use futures::StreamExt;
use serde_json::Value;

use super::decode::ChatChunk;
use super::request::request_body;
use crate::server::providers::framing::{Framer, Framing};
use crate::server::providers::wire::UpstreamModel;
use crate::server::providers::{ByteBudget, CompletionId, DeltaStream};
use crate::turn::turn_error::{NetworkFailure, TurnError};
use crate::turn::ChatRequest;

/// Opens a live stream through async-openai, the body's bytes counted
/// against `budget`; the first completion id seen goes to `completion_id`.
pub async fn open(
    model: &UpstreamModel,
    request: &ChatRequest,
    budget: ByteBudget,
    completion_id: Option<CompletionId>,
) -> Result<DeltaStream, TurnError> {
    let config = OpenAIConfig::new()
        .with_api_base(model.base_url.trim_end_matches('/'))
        .with_api_key(
            model
                .api_key
                .as_ref()
                .map(crate::server::providers::secret::Secret::expose)
                .unwrap_or_default(),
        );
    let notes = TransportNotes::default();
    let client = Client::with_config(config).with_http_service(transport(notes.clone(), budget));
    let stream = client
        .chat()
        .create_stream_byot::<_, ChatChunk>(request_body(model, request))
        .await
        .map_err(|err| {
            notes
                .take_refusal()
                .unwrap_or_else(|| map_error(err))
                .with_retry_after(notes.take_retry_after())
        })?;
    let mut calls = super::decode::ChunkState::default();
    Ok(stream
        .map(move |item| {
            // One event handed over: the body may frame one more.
            notes.window.add_permits(1);
            // A body the guard refused surfaces here as a generic stream error:
            // say what was actually wrong.
            item.map_err(|err| match notes.take_refusal() {
                Some(refusal) => refusal,
                None => map_error(err),
            })
            .inspect(|chunk| note_id(completion_id.as_ref(), chunk))
            .and_then(|chunk| chunk.into_deltas(&mut calls))
        })
        .boxed())
}

/// Keeps the first completion id of the stream in `slot`.
fn note_id(slot: Option<&CompletionId>, chunk: &ChatChunk) {
    if let (Some(slot), Some(id)) = (slot, chunk.id()) {
        if slot.get().is_none() {
            let _ = slot.set(id.to_owned());
        }
    }
}

/// What the transport and the turn share that async-openai's types have no
/// room for: a refusal's `Retry-After`, why the body was cut off, and the
/// window of events framed ahead of the turn.
#[derive(Clone)]
struct TransportNotes {
    notes: std::sync::Arc<std::sync::Mutex<Notes>>,
    /// async-openai hands events to the turn through an unbounded channel
    /// from a task of its own, which reads the body as fast as it arrives.
    /// The body frames an event only with a permit, and the turn returns one
    /// per event it takes: a turn that is not being read (a stalled client)
    /// stops the reading instead of queueing the provider's stream in memory.
    window: std::sync::Arc<tokio::sync::Semaphore>,
}

impl Default for TransportNotes {
    fn default() -> Self {
        Self {
            notes: Default::default(),
            window: std::sync::Arc::new(tokio::sync::Semaphore::new(EVENTS_AHEAD)),
        }
    }
}

#[derive(Default)]
struct Notes {
    retry_after: Option<u64>,
    refusal: Option<TurnError>,
}

impl TransportNotes {
    fn with<T>(&self, f: impl FnOnce(&mut Notes) -> T) -> Option<T> {
        self.notes.lock().ok().map(|mut notes| f(&mut notes))
    }

    fn take_retry_after(&self) -> Option<u64> {
        self.with(|n| n.retry_after.take()).flatten()
    }

    fn take_refusal(&self) -> Option<TurnError> {
        self.with(|n| n.refusal.take()).flatten()
    }
}

/// async-openai's HTTP layer, replaced: the shared pooled client, no silent
/// retries (a person is waiting; they see the error and when to try again,
/// instead of a spinner while the library backs off), `Retry-After` noted, an
/// error body cut to `ERROR_BODY_LIMIT`, and a stream's body framed and
/// bounded by `guarded`.
fn transport(
    notes: TransportNotes,
    budget: ByteBudget,
) -> impl tower::Service<
    HttpRequestFactory,
    Response = reqwest::Response,
    Error = OpenAIError,
    Future = impl Future<Output = Result<reqwest::Response, OpenAIError>> + Send + 'static,
> + Clone
       + Send
       + Sync
       + 'static {
    tower::service_fn(move |factory: HttpRequestFactory| {
        let notes = notes.clone();
        async move {
            let request = factory.build().await?;
            let response = crate::server::providers::http::client()
                .execute(request)
                .await
                .map_err(OpenAIError::Reqwest)?;
            let status = response.status();
            if status.is_redirection() {
                // Not followed (the client's policy), and not read as a
                // stream either: the turn says where it was sent instead.
                notes.with(|n| n.refusal = Some(TurnError::from_status(status.as_u16(), "")));
                return Err(OpenAIError::InvalidArgument("a redirect".into()));
            }
            if !status.is_success() {
                let retry_after = crate::server::providers::retry_after(response.headers());
                notes.with(|n| n.retry_after = retry_after);
                // async-openai reads an error body whole: give it the start only.
                return Ok(crate::server::providers::http::with_error_body_cut(response).await);
            }
            Ok(guarded(response, notes, budget))
        }
    })
}

/// Longest chat-completion event accepted (its `data` lines together). One
/// chunk carries one small delta (a few KB at most, with usage); the limit is
/// far above that and bounds what a stream with no blank line can make the
/// event parser hold.
const CHUNK_EVENT_LIMIT: usize = 1024 * 1024;

/// Events framed ahead of the turn (see `TransportNotes::window`).
const EVENTS_AHEAD: usize = 32;

/// The same response with its body framed by our `Framer` and written again
/// one event per chunk, clean, for async-openai's event parser. That parser
/// appends `data` lines until a blank line and re-scans a partial line on every
/// read; in front of it the `Framer` refuses a line or an event over
/// `CHUNK_EVENT_LIMIT` and bytes that are not UTF-8, without holding more than
/// the limit, and the body counts against the turn's byte budget. Comments,
/// `keepalive` events and empty data never reach the parser.
fn guarded(
    response: reqwest::Response,
    notes: TransportNotes,
    budget: ByteBudget,
) -> reqwest::Response {
    let status = response.status();
    let headers = response.headers().clone();
    let mut body = response.bytes_stream();
    let checked = async_stream::stream! {
        let mut budget = budget;
        let mut framer = Framer::with_line_limit(Framing::Sse, CHUNK_EVENT_LIMIT);
        loop {
            let (framed, last) = match body.next().await {
                Some(Ok(bytes)) => match budget.spend(bytes.len()) {
                    Ok(()) => (framer.push(&bytes), false),
                    Err(over) => {
                        notes.with(|n| n.refusal = Some(over));
                        yield Err(std::io::Error::other("refused: the turn's byte budget"));
                        return;
                    }
                },
                Some(Err(err)) => {
                    yield Err(std::io::Error::other(err));
                    return;
                }
                None => (framer.finish(), true),
            };
            for item in framed {
                let event = match item {
                    Ok(event) => event,
                    Err(refusal) => {
                        notes.with(|n| n.refusal = Some(TurnError::Malformed(refusal.to_string())));
                        yield Err(std::io::Error::other("refused by the framer"));
                        return;
                    }
                };
                if event.data.trim().is_empty() || event.event.as_deref() == Some("keepalive") {
                    continue;
                }
                match notes.window.acquire().await {
                    Ok(permit) => permit.forget(),
                    Err(_) => return,
                }
                yield Ok(bytes::Bytes::from(event.to_sse_data()));
            }
            if last {
                return;
            }
        }
    };
    let mut rebuilt = axum::http::Response::new(reqwest::Body::wrap_stream(checked));
    *rebuilt.status_mut() = status;
    *rebuilt.headers_mut() = headers;
    reqwest::Response::from(rebuilt)
}

fn map_error(err: OpenAIError) -> TurnError {
    match err {
        // A body async-openai could not read as OpenAI's error shape arrives
        // whole as the message: take the provider's own words out of it.
        OpenAIError::ApiError(api) => TurnError::from_status(
            api.status_code.as_u16(),
            &crate::server::providers::http::provider_message(&api.api_error.message),
        ),
        OpenAIError::Reqwest(e) => match e.status() {
            Some(status) => TurnError::from_status(status.as_u16(), ""),
            None => crate::server::providers::http::network_error(&e),
        },
        OpenAIError::JSONDeserialize(e, content) => {
            error_from_body(&content).unwrap_or_else(|| TurnError::Malformed(e.to_string()))
        }
        OpenAIError::StreamError(_) => TurnError::Network(NetworkFailure::BrokeOff),
        other => TurnError::Malformed(other.to_string()),
    }
}

/// async-openai drops the HTTP status when an error body is not shaped exactly
/// like OpenAI's (gateways send a numeric `code`): recover it from the body.
///
/// vLLM and SGLang answer with the error at the top level
/// (`{"object": "error", "message", "type", "code": 400}`), as
/// vllm/entrypoints/openai/protocol.py's `ErrorResponse` writes it.
fn error_from_body(content: &str) -> Option<TurnError> {
    let value: Value = serde_json::from_str(content).ok()?;
    let error = match value.get("error") {
        Some(error) => error,
        None if value.get("object").and_then(Value::as_str) == Some("error") => &value,
        None => return None,
    };
    let status = error
        .get("code")
        .and_then(Value::as_u64)
        .filter(|c| (400..600).contains(c))?;
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    Some(TurnError::from_status(status as u16, message))
}
