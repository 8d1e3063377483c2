//! OpenAI-compatible chat completions (`POST {base}/chat/completions`, SSE).
//! Live turns go through async-openai's `byot` calls with our own chunk types
//! (its typed delta drops the reasoning fields reasoning servers add); the same
//! types decode recordings (`pensive parse`) and drive the mock upstream.

use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use async_openai::Client;
use futures::StreamExt;
use serde::Deserialize;
use serde_json::{json, Value};
use std::future::Future;

use super::wire::{Decoder, Encoder, UpstreamModel, UpstreamRequest, WireEvent, WireFrame};
use super::{ByteBudget, DeltaStream};
use crate::server::delta::Delta;
use crate::server::sse::{Framer, Framing};
use crate::server::turn_error::{NetworkFailure, ProviderFault, TurnError};
use crate::turn::{ChatRequest, Usage};

/// One streamed chunk, only the fields we read.
#[derive(Debug, Deserialize)]
pub struct ChatChunk {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<ChunkUsage>,
    /// Some gateways stream an error object instead of a chunk.
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Option<ChunkDelta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct ChunkDelta {
    /// A string, or (Mistral) an array of `text` / `thinking` parts.
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    reasoning_content: Option<String>,
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
    #[serde(default)]
    reasoning_details: Option<Vec<ReasoningDetail>>,
}

#[derive(Debug, Deserialize)]
struct ReasoningDetail {
    #[serde(default, rename = "type")]
    kind: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    summary: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ChunkUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Debug, Deserialize)]
struct CompletionDetails {
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

impl ChatChunk {
    /// The chunk's deltas: reasoning (from exactly one source) before answer text.
    pub fn into_deltas(self) -> Result<Vec<Delta>, TurnError> {
        if let Some(error) = self.error {
            return Err(stream_error(&error));
        }
        let mut deltas = Vec::new();
        if let Some(choice) = self.choices.into_iter().next() {
            if let Some(d) = choice.delta {
                push_reasoning(&mut deltas, &d);
                push_content(&mut deltas, d.content);
            }
            if choice.finish_reason.is_some() {
                deltas.push(Delta::Finish(choice.finish_reason));
            }
        }
        if let Some(usage) = self.usage {
            deltas.push(Delta::Usage(Usage {
                input_tokens: usage.prompt_tokens,
                output_tokens: usage.completion_tokens,
                reasoning_tokens: usage
                    .completion_tokens_details
                    .and_then(|d| d.reasoning_tokens),
            }));
        }
        Ok(deltas)
    }
}

/// Reasoning from exactly one field: gateways send the same text under several
/// names. Non-empty `reasoning_details` win, then `reasoning_content`,
/// `reasoning`, `thinking`.
fn push_reasoning(deltas: &mut Vec<Delta>, d: &ChunkDelta) {
    if let Some(details) = d.reasoning_details.as_ref().filter(|v| !v.is_empty()) {
        let mut text = String::new();
        let mut encrypted = false;
        for detail in details {
            match detail.kind.as_str() {
                "reasoning.text" => text.push_str(detail.text.as_deref().unwrap_or("")),
                "reasoning.summary" => text.push_str(detail.summary.as_deref().unwrap_or("")),
                "reasoning.encrypted" => encrypted = true,
                _ => {}
            }
        }
        if !text.is_empty() {
            deltas.push(Delta::Reasoning(text));
        } else if encrypted {
            deltas.push(Delta::OpaqueReasoning);
        }
        return;
    }
    let field = [&d.reasoning_content, &d.reasoning, &d.thinking]
        .into_iter()
        .flatten()
        .find(|t| !t.is_empty());
    if let Some(text) = field {
        deltas.push(Delta::Reasoning(text.clone()));
    }
}

/// `content` as a string, or Mistral's array of `thinking` / `text` parts.
fn push_content(deltas: &mut Vec<Delta>, content: Option<Value>) {
    match content {
        Some(Value::String(text)) if !text.is_empty() => deltas.push(Delta::Answer(text)),
        Some(Value::Array(parts)) => {
            for part in parts {
                match part.get("type").and_then(Value::as_str) {
                    Some("thinking") => {
                        let text = text_of(part.get("thinking"));
                        if !text.is_empty() {
                            deltas.push(Delta::Reasoning(text));
                        }
                    }
                    Some("text") => {
                        let text = text_of(part.get("text"));
                        if !text.is_empty() {
                            deltas.push(Delta::Answer(text));
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// Text of a string or of an array of `{"type":"text","text":…}` parts.
fn text_of(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

fn stream_error(error: &Value) -> TurnError {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("the provider reported an error");
    match error.get("code").and_then(Value::as_u64) {
        Some(status) => TurnError::from_status(status as u16, message),
        None => TurnError::reported(ProviderFault::Other, message),
    }
}

/// Decodes recorded chat-completion chunks (`[DONE]` and empty data are skipped).
#[derive(Debug, Default)]
pub struct ChatDecoder;

impl Decoder for ChatDecoder {
    fn decode(&mut self, event: WireEvent<'_>) -> Result<Vec<Delta>, TurnError> {
        let data = event.data.trim();
        if data.is_empty() || data == "[DONE]" {
            return Ok(Vec::new());
        }
        serde_json::from_str::<ChatChunk>(data)
            .map_err(|e| TurnError::Malformed(e.to_string()))?
            .into_deltas()
    }
}

/// The request body: streaming on, usage requested, reasoning effort if set.
pub fn request_body(model: &UpstreamModel, request: &ChatRequest) -> Value {
    let mut body = json!({
        "model": model.name,
        "messages": request.messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if let Some(max) = model.max_output_tokens {
        body["max_tokens"] = json!(max);
    }
    if let Some(effort) = &model.reasoning_effort {
        body["reasoning_effort"] = json!(effort);
    }
    body
}

/// The full upstream request (used by tests and the mock to check what is sent).
pub fn build_request(model: &UpstreamModel, request: &ChatRequest) -> UpstreamRequest {
    UpstreamRequest::bearer(model, "/chat/completions", request_body(model, request))
}

/// Opens a live stream through async-openai, the body's bytes counted
/// against `budget`.
pub async fn open(
    model: &UpstreamModel,
    request: &ChatRequest,
    budget: ByteBudget,
) -> Result<DeltaStream, TurnError> {
    let config = OpenAIConfig::new()
        .with_api_base(model.base_url.trim_end_matches('/'))
        .with_api_key(
            model
                .api_key
                .as_ref()
                .map(crate::server::secret::Secret::expose)
                .unwrap_or_default(),
        );
    let notes = TransportNotes::default();
    let client = Client::with_config(config).with_http_service(transport(notes.clone(), budget));
    let stream = client
        .chat()
        .create_stream_byot::<_, ChatChunk>(request_body(model, request))
        .await
        .map_err(|err| map_error(err).with_retry_after(notes.take_retry_after()))?;
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
            .and_then(ChatChunk::into_deltas)
        })
        .boxed())
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
            let response = super::http::client()
                .execute(request)
                .await
                .map_err(OpenAIError::Reqwest)?;
            if !response.status().is_success() {
                let retry_after = super::retry_after(response.headers());
                notes.with(|n| n.retry_after = retry_after);
                // async-openai reads an error body whole: give it the start only.
                return Ok(super::http::with_error_body_cut(response).await);
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
            &super::http::provider_message(&api.api_error.message),
        ),
        OpenAIError::Reqwest(e) => match e.status() {
            Some(status) => TurnError::from_status(status.as_u16(), ""),
            None => TurnError::from_reqwest(&e),
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
fn error_from_body(content: &str) -> Option<TurnError> {
    let value: Value = serde_json::from_str(content).ok()?;
    let error = value.get("error")?;
    let status = error
        .get("code")
        .and_then(Value::as_u64)
        .filter(|c| (400..600).contains(c))?;
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    Some(TurnError::from_status(status as u16, message))
}

/// Writes chat-completion chunks (mock upstream).
pub struct ChatEncoder {
    model: String,
}

impl ChatEncoder {
    pub fn new(model: &str) -> Self {
        Self {
            model: model.to_owned(),
        }
    }

    fn chunk(&self, delta: Value, finish_reason: Option<&str>) -> WireFrame {
        WireFrame::data(
            json!({
                "id": "chatcmpl-mock",
                "object": "chat.completion.chunk",
                "model": self.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
            })
            .to_string(),
        )
    }
}

impl Encoder for ChatEncoder {
    fn start(&mut self) -> Vec<WireFrame> {
        vec![self.chunk(json!({"role": "assistant", "content": ""}), None)]
    }

    fn step(&mut self, deltas: &[Delta]) -> Vec<WireFrame> {
        deltas
            .iter()
            .filter_map(|delta| match delta {
                Delta::Reasoning(text) => Some(self.chunk(json!({"reasoning_content": text}), None)),
                // As OpenRouter relays an OpenAI model's hidden reasoning.
                Delta::OpaqueReasoning => Some(self.chunk(
                    json!({
                        "role": "assistant",
                        "content": "",
                        "reasoning": null,
                        "reasoning_details": [{
                            "type": "reasoning.encrypted",
                            "data": "gAAAAABmockEncryptedReasoning==",
                            "id": "rs_mock0000",
                            "format": "openai-responses-v1",
                            "index": 0,
                        }],
                    }),
                    None,
                )),
                Delta::Answer(text) => Some(self.chunk(json!({"content": text}), None)),
                Delta::Finish(reason) => Some(self.chunk(json!({}), reason.as_deref().or(Some("stop")))),
                Delta::Usage(usage) => Some(WireFrame::data(
                    json!({
                        "id": "chatcmpl-mock",
                        "object": "chat.completion.chunk",
                        "model": self.model,
                        "choices": [],
                        "usage": {
                            "prompt_tokens": usage.input_tokens,
                            "completion_tokens": usage.output_tokens,
                            "completion_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
                        },
                    })
                    .to_string(),
                )),
                // No chat form: a block starts with its text and ends with the answer.
                Delta::ReasoningBoundary | Delta::ReasoningStarted => None,
            })
            .collect()
    }

    fn finish(&mut self) -> Vec<WireFrame> {
        vec![WireFrame::data("[DONE]")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deltas(json: &str) -> Vec<Delta> {
        ChatDecoder
            .decode(WireEvent {
                event: None,
                data: json,
            })
            .unwrap()
    }

    #[test]
    fn reasoning_content_comes_before_content_in_one_chunk() {
        assert_eq!(
            deltas(r#"{"choices":[{"delta":{"reasoning_content":"r","content":"a"}}]}"#),
            vec![Delta::Reasoning("r".into()), Delta::Answer("a".into())]
        );
    }

    #[test]
    fn only_one_reasoning_field_is_taken() {
        assert_eq!(
            deltas(r#"{"choices":[{"delta":{"reasoning_content":"same","reasoning":"same"}}]}"#),
            vec![Delta::Reasoning("same".into())]
        );
        assert_eq!(
            deltas(r#"{"choices":[{"delta":{"reasoning_content":"","reasoning":"groq"}}]}"#),
            vec![Delta::Reasoning("groq".into())]
        );
        assert_eq!(
            deltas(r#"{"choices":[{"delta":{"thinking":"t"}}]}"#),
            vec![Delta::Reasoning("t".into())]
        );
    }

    #[test]
    fn reasoning_details_win_over_reasoning_and_encrypted_is_opaque() {
        assert_eq!(
            deltas(
                r#"{"choices":[{"delta":{"reasoning":"dup","reasoning_details":[{"type":"reasoning.text","text":"a"},{"type":"reasoning.summary","summary":"b"}]}}]}"#
            ),
            vec![Delta::Reasoning("ab".into())]
        );
        assert_eq!(
            deltas(r#"{"choices":[{"delta":{"reasoning":"x","reasoning_details":[]}}]}"#),
            vec![Delta::Reasoning("x".into())]
        );
        assert_eq!(
            deltas(
                r#"{"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.encrypted","data":"zz"}]}}]}"#
            ),
            vec![Delta::OpaqueReasoning]
        );
    }

    /// The first encrypted entry is the first sign of hidden reasoning: its
    /// block opens there, opaque, and the answer closes it.
    #[test]
    fn the_first_encrypted_entry_opens_an_opaque_block_at_once() {
        let mut normalizer = crate::server::normalizer::Normalizer::default();
        let mut at = |ms: u64, data: &str| -> Vec<crate::turn::TurnEvent> {
            deltas(data)
                .into_iter()
                .flat_map(|d| normalizer.push(d, ms))
                .collect()
        };
        let encrypted = r#"{"choices":[{"delta":{"role":"assistant","content":"","reasoning":null,"reasoning_details":[{"type":"reasoning.encrypted","data":"gAAA","id":"rs_1","format":"openai-responses-v1","index":0}]}}]}"#;
        assert_eq!(
            at(100, encrypted),
            vec![crate::turn::TurnEvent::ThinkingStart]
        );
        assert!(at(2000, encrypted).is_empty(), "never a second block");
        assert_eq!(
            at(3100, r#"{"choices":[{"delta":{"content":"42"}}]}"#),
            vec![
                crate::turn::TurnEvent::ThinkingEnd {
                    duration_ms: 3000,
                    opaque: true
                },
                crate::turn::TurnEvent::AnswerDelta { text: "42".into() }
            ]
        );
    }

    #[test]
    fn the_mock_writes_hidden_reasoning_with_its_start_and_end_apart() {
        let steps = crate::server::providers::test_support::hidden_reasoning_events(
            &mut ChatEncoder::new("mock-model"),
            &mut ChatDecoder,
        );
        crate::server::providers::test_support::assert_hidden_reasoning_timed_from_its_first_sign(
            &steps,
        );
    }

    #[test]
    fn mistral_content_arrays_split_into_thinking_and_text() {
        assert_eq!(
            deltas(
                r#"{"choices":[{"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"hm"}]},{"type":"text","text":"4"}]}}]}"#
            ),
            vec![Delta::Reasoning("hm".into()), Delta::Answer("4".into())]
        );
    }

    #[test]
    fn usage_with_reasoning_tokens_and_finish_reason_are_read() {
        assert_eq!(
            deltas(
                r#"{"choices":[{"delta":{},"finish_reason":"stop"}],
                   "usage":{"prompt_tokens":5,"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":4}}}"#
            ),
            vec![
                Delta::Finish(Some("stop".into())),
                Delta::Usage(Usage {
                    input_tokens: Some(5),
                    output_tokens: Some(9),
                    reasoning_tokens: Some(4)
                })
            ]
        );
    }

    #[test]
    fn null_content_done_and_empty_choices_are_tolerated() {
        assert!(
            deltas(r#"{"choices":[{"delta":{"content":null,"role":"assistant"}}]}"#).is_empty()
        );
        assert!(deltas(r#"{"choices":[]}"#).is_empty());
        assert!(deltas("[DONE]").is_empty());
    }

    #[test]
    fn malformed_json_and_in_stream_errors_are_errors() {
        let mut d = ChatDecoder;
        let bad = d.decode(WireEvent {
            event: None,
            data: "{not json",
        });
        assert!(matches!(bad, Err(TurnError::Malformed(_))));
        let err = d.decode(WireEvent {
            event: None,
            data: r#"{"error":{"message":"overloaded","code":503}}"#,
        });
        assert_eq!(err.unwrap_err().kind(), crate::turn::ErrorKind::Upstream);
    }

    #[test]
    fn encoder_output_decodes_to_the_same_deltas() {
        let script = vec![
            Delta::Reasoning("why".into()),
            Delta::Answer("because".into()),
            Delta::Finish(Some("stop".into())),
            Delta::Usage(Usage {
                input_tokens: Some(1),
                output_tokens: Some(2),
                reasoning_tokens: Some(3),
            }),
        ];
        let mut encoder = ChatEncoder::new("m");
        let mut frames = encoder.start();
        frames.extend(encoder.step(&script));
        frames.extend(encoder.finish());
        let mut decoder = ChatDecoder;
        let decoded: Vec<Delta> = frames
            .iter()
            .flat_map(|f| {
                decoder
                    .decode(WireEvent {
                        event: None,
                        data: &f.data,
                    })
                    .unwrap()
            })
            .collect();
        assert_eq!(decoded, script);
    }
}
