//! Anthropic Messages (`POST {base}/v1/messages`, SSE with `event:` names):
//! `thinking` blocks become reasoning (each block its own), `redacted_thinking`
//! opaque reasoning, `text` blocks the answer; signatures and tool use are
//! ignored. A reasoning block opens at its `content_block_start` and closes at
//! its `content_block_stop`, so hidden reasoning is timed from its first sign
//! to its end. Also writes the same events for the mock upstream.

use serde_json::{json, Value};

use super::wire::{Decoder, Encoder, UpstreamModel, UpstreamRequest, WireEvent, WireFrame};
use crate::server::delta::Delta;
use crate::server::turn_error::{ProviderFault, TurnError};
use crate::turn::{ChatRequest, Role, Usage};

/// The API version Pensive speaks (sent as `anthropic-version`).
pub const API_VERSION: &str = "2023-06-01";
/// `max_tokens` when the model config sets none (the API requires one).
const DEFAULT_MAX_TOKENS: u32 = 16_000;
/// Thinking budget when the model config sets none.
const DEFAULT_THINKING_BUDGET: u32 = 8_000;
/// Room left for the answer when the budget would not fit under `max_tokens`.
const ANSWER_HEADROOM: u32 = 4_096;

/// Decodes a Messages event stream (several messages of a tool loop in a row
/// are fine: each `message_start` resets the token count).
#[derive(Debug, Default)]
pub struct AnthropicDecoder {
    /// `message_start`'s input tokens, reported with `message_delta`'s output.
    input_tokens: Option<u64>,
    /// Index of the reasoning block started and not yet stopped.
    open_reasoning: Option<u64>,
}

impl Decoder for AnthropicDecoder {
    fn decode(&mut self, event: WireEvent<'_>) -> Result<Vec<Delta>, TurnError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Vec::new());
        }
        let value: Value =
            serde_json::from_str(data).map_err(|e| TurnError::Malformed(e.to_string()))?;
        // `type` in the data repeats the SSE event name; either will do.
        let kind = str_at(&value, "type").or(event.event).unwrap_or("");
        let index = value.get("index").and_then(Value::as_u64);
        let mut out = Vec::new();
        match kind {
            "message_start" => {
                self.input_tokens = value
                    .get("message")
                    .and_then(|m| m.get("usage"))
                    .and_then(|u| u.get("input_tokens"))
                    .and_then(Value::as_u64);
            }
            "content_block_start" => {
                let block = value.get("content_block").unwrap_or(&Value::Null);
                match str_at(block, "type") {
                    Some("thinking") => {
                        self.new_reasoning_block(index, &mut out);
                        push(&mut out, Delta::Reasoning, str_at(block, "thinking"));
                    }
                    Some("redacted_thinking") => {
                        // Hidden from the start: the block opens, opaque, now.
                        self.new_reasoning_block(index, &mut out);
                        out.push(Delta::OpaqueReasoning);
                    }
                    Some("text") => push(&mut out, Delta::Answer, str_at(block, "text")),
                    _ => {}
                }
            }
            "content_block_delta" => {
                let delta = value.get("delta").unwrap_or(&Value::Null);
                match str_at(delta, "type") {
                    Some("thinking_delta") => {
                        push(&mut out, Delta::Reasoning, str_at(delta, "thinking"));
                    }
                    Some("text_delta") => push(&mut out, Delta::Answer, str_at(delta, "text")),
                    // Signatures, tool input JSON, citations: nothing to show.
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(usage) = value.get("usage").filter(|u| u.is_object()) {
                    // The current API repeats the input count here; older ones only
                    // sent it in `message_start`.
                    let input = usage.get("input_tokens").and_then(Value::as_u64);
                    out.push(Delta::Usage(Usage {
                        input_tokens: input.or(self.input_tokens),
                        output_tokens: usage.get("output_tokens").and_then(Value::as_u64),
                        reasoning_tokens: None,
                    }));
                }
                let reason = value.get("delta").and_then(|d| str_at(d, "stop_reason"));
                if let Some(reason) = reason {
                    out.push(Delta::Finish(Some(finish_reason(reason))));
                }
            }
            "content_block_stop"
                if self.open_reasoning.is_some() && self.open_reasoning == index =>
            {
                self.open_reasoning = None;
                out.push(Delta::ReasoningBoundary);
            }
            "error" => return Err(stream_error(value.get("error").unwrap_or(&value))),
            // ping, message_stop and anything new.
            _ => {}
        }
        Ok(out)
    }
}

impl AnthropicDecoder {
    /// A reasoning block starts; one still open (its stop never came) ends.
    fn new_reasoning_block(&mut self, index: Option<u64>, out: &mut Vec<Delta>) {
        if self.open_reasoning.is_some() {
            out.push(Delta::ReasoningBoundary);
        }
        // A start without an index still gets its boundary from the next start.
        self.open_reasoning = Some(index.unwrap_or(u64::MAX));
    }
}

fn str_at<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

/// Pushes `make(text)` unless the text is missing or empty.
fn push(out: &mut Vec<Delta>, make: fn(String) -> Delta, text: Option<&str>) {
    if let Some(text) = text.filter(|t| !t.is_empty()) {
        out.push(make(text.to_owned()));
    }
}

/// Anthropic's stop reasons in the shared vocabulary where one exists.
fn finish_reason(reason: &str) -> String {
    match reason {
        "end_turn" => "stop".into(),
        "max_tokens" => "length".into(),
        other => other.to_owned(),
    }
}

/// An in-stream `error` event, classified by `error.type`.
fn stream_error(error: &Value) -> TurnError {
    let fault = match str_at(error, "type").unwrap_or("") {
        "overloaded_error" => ProviderFault::Overloaded,
        "rate_limit_error" => ProviderFault::RateLimited,
        "authentication_error" => ProviderFault::KeyRejected,
        "permission_error" => ProviderFault::AccessRefused,
        "invalid_request_error" => ProviderFault::RequestRejected,
        "api_error" => ProviderFault::Internal,
        _ => ProviderFault::Other,
    };
    TurnError::reported(fault, str_at(error, "message").unwrap_or(""))
}

/// The request body: extended thinking on, system messages in `system`.
pub fn request_body(model: &UpstreamModel, request: &ChatRequest) -> Value {
    let budget = model.thinking_budget.unwrap_or(DEFAULT_THINKING_BUDGET);
    let mut max_tokens = model.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    // The API rejects a budget that is not below max_tokens.
    if budget >= max_tokens {
        max_tokens = budget.saturating_add(ANSWER_HEADROOM);
    }
    // The API rejects empty text content (an answer that was all thinking).
    let messages: Vec<Value> = request
        .dialogue()
        .map(|m| {
            let role = if m.role == Role::Assistant {
                "assistant"
            } else {
                "user"
            };
            json!({"role": role, "content": m.content})
        })
        .collect();
    let mut body = json!({
        "model": model.name,
        "max_tokens": max_tokens,
        "stream": true,
        "thinking": {"type": "enabled", "budget_tokens": budget},
        "messages": messages,
    });
    if let Some(system) = request.system_prompt() {
        body["system"] = json!(system);
    }
    body
}

/// The full upstream request.
pub fn build_request(model: &UpstreamModel, request: &ChatRequest) -> UpstreamRequest {
    let base = model.base_url.trim_end_matches('/');
    // The base URL is the host; tolerate one configured with the version path.
    let base = base.strip_suffix("/v1").unwrap_or(base);
    let mut headers = Vec::new();
    if let Some(key) = &model.api_key {
        headers.push(("x-api-key".into(), key.expose().to_owned()));
    }
    headers.push(("anthropic-version".into(), API_VERSION.into()));
    UpstreamRequest {
        url: format!("{base}/v1/messages"),
        headers,
        body: request_body(model, request),
    }
}

/// The kind of content block being written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Thinking,
    /// `redacted_thinking`: started when the hidden reasoning starts, stopped
    /// when it ends.
    Redacted,
    Text,
}

/// Writes Messages events (mock upstream): one message, blocks indexed in order.
pub struct AnthropicEncoder {
    model: String,
    /// Index of the next content block.
    next_index: u64,
    open: Option<Block>,
    usage: Option<Usage>,
    finish: Option<String>,
}

impl AnthropicEncoder {
    /// An encoder for one message of `model`.
    pub fn new(model: &str) -> Self {
        Self {
            model: model.to_owned(),
            next_index: 0,
            open: None,
            usage: None,
            finish: None,
        }
    }

    /// Opens a block of `kind` unless one is already open; closes another kind.
    fn ensure_open(&mut self, kind: Block, frames: &mut Vec<WireFrame>) -> u64 {
        if self.open == Some(kind) {
            return self.next_index.saturating_sub(1);
        }
        self.close_block(frames);
        let index = self.next_index;
        self.next_index += 1;
        self.open = Some(kind);
        let block = match kind {
            Block::Thinking => json!({"type": "thinking", "thinking": "", "signature": ""}),
            Block::Redacted => {
                json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy3mockRedactedThinking=="})
            }
            Block::Text => json!({"type": "text", "text": ""}),
        };
        frames.push(block_start(index, block));
        index
    }

    /// Ends the open block; a thinking block gets its signature first, as the API does.
    fn close_block(&mut self, frames: &mut Vec<WireFrame>) {
        let Some(kind) = self.open.take() else {
            return;
        };
        let index = self.next_index.saturating_sub(1);
        if kind == Block::Thinking {
            frames.push(block_delta(
                index,
                json!({"type": "signature_delta", "signature": "EqQBCkYIBRgCKkBmockSignature=="}),
            ));
        }
        frames.push(WireFrame::named(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}).to_string(),
        ));
    }
}

fn block_start(index: u64, block: Value) -> WireFrame {
    WireFrame::named(
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": block}).to_string(),
    )
}

fn block_delta(index: u64, delta: Value) -> WireFrame {
    WireFrame::named(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": index, "delta": delta}).to_string(),
    )
}

impl Encoder for AnthropicEncoder {
    fn start(&mut self) -> Vec<WireFrame> {
        // The real input count is not known yet; `message_delta` repeats it.
        let start = json!({
            "type": "message_start",
            "message": {
                "id": "msg_01MockPensive0000000000",
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": {"input_tokens": 0, "output_tokens": 1},
            },
        });
        vec![
            WireFrame::named("message_start", start.to_string()),
            WireFrame::named("ping", json!({"type": "ping"}).to_string()),
        ]
    }

    fn step(&mut self, deltas: &[Delta]) -> Vec<WireFrame> {
        let mut frames = Vec::new();
        for delta in deltas {
            match delta {
                Delta::Reasoning(text) if !text.is_empty() => {
                    let index = self.ensure_open(Block::Thinking, &mut frames);
                    frames.push(block_delta(
                        index,
                        json!({"type": "thinking_delta", "thinking": text}),
                    ));
                }
                Delta::Answer(text) if !text.is_empty() => {
                    let index = self.ensure_open(Block::Text, &mut frames);
                    frames.push(block_delta(
                        index,
                        json!({"type": "text_delta", "text": text}),
                    ));
                }
                Delta::Reasoning(_) | Delta::Answer(_) => {}
                Delta::ReasoningBoundary => {
                    if matches!(self.open, Some(Block::Thinking | Block::Redacted)) {
                        self.close_block(&mut frames);
                    }
                }
                // A new `redacted_thinking` block, open until what follows.
                Delta::OpaqueReasoning => {
                    self.close_block(&mut frames);
                    self.ensure_open(Block::Redacted, &mut frames);
                }
                // Whether text follows is not known yet: the block starts with it.
                Delta::ReasoningStarted => {}
                // Both belong to the closing `message_delta`.
                Delta::Usage(usage) => self.usage = Some(*usage),
                Delta::Finish(reason) => self.finish = reason.clone(),
            }
        }
        frames
    }

    fn finish(&mut self) -> Vec<WireFrame> {
        let mut frames = Vec::new();
        self.close_block(&mut frames);
        let stop_reason = match self.finish.as_deref() {
            None | Some("stop") => "end_turn",
            Some("length") => "max_tokens",
            Some(other) => other,
        };
        let mut usage = json!({"output_tokens": 0});
        if let Some(counts) = self.usage {
            if let Some(input) = counts.input_tokens {
                usage["input_tokens"] = json!(input);
            }
            usage["output_tokens"] = json!(counts.output_tokens.unwrap_or(0));
        }
        let delta = json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": null},
            "usage": usage,
        });
        frames.push(WireFrame::named("message_delta", delta.to_string()));
        frames.push(WireFrame::named(
            "message_stop",
            json!({"type": "message_stop"}).to_string(),
        ));
        frames
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::providers::test_support::*;
    use crate::turn::{ChatMessage, ErrorKind, TurnEvent};

    fn decode_all(events: &[(&str, &str)]) -> Vec<Delta> {
        let mut decoder = AnthropicDecoder::default();
        events
            .iter()
            .flat_map(|(name, data)| {
                decoder
                    .decode(WireEvent {
                        event: Some(name),
                        data,
                    })
                    .unwrap()
            })
            .collect()
    }

    #[test]
    fn thinking_deltas_are_reasoning_and_text_deltas_are_answer() {
        assert_eq!(
            decode_all(&[
                (
                    "content_block_start",
                    r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hm"}}"#
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":""}}"#
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EvQB"}}"#
                ),
                (
                    "content_block_stop",
                    r#"{"type":"content_block_stop","index":0}"#
                ),
                (
                    "content_block_start",
                    r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"42"}}"#
                ),
            ]),
            vec![r("hm"), Delta::ReasoningBoundary, a("42")]
        );
    }

    #[test]
    fn each_thinking_block_is_its_own_block_and_redacted_is_opaque() {
        assert_eq!(
            decode_all(&[
                (
                    "content_block_start",
                    r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"first"}}"#
                ),
                (
                    "content_block_stop",
                    r#"{"type":"content_block_stop","index":0}"#
                ),
                (
                    "content_block_start",
                    r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwK"}}"#
                ),
                (
                    "content_block_start",
                    r#"{"type":"content_block_start","index":2,"content_block":{"type":"thinking","thinking":""}}"#
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":2,"delta":{"type":"thinking_delta","thinking":"second"}}"#
                ),
            ]),
            vec![
                r("first"),
                Delta::ReasoningBoundary,
                Delta::OpaqueReasoning,
                Delta::ReasoningBoundary,
                r("second")
            ]
        );
        assert_eq!(
            decode_all(&[(
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"x"}}"#
            )]),
            vec![Delta::OpaqueReasoning]
        );
    }

    /// `redacted_thinking` is timed from its `content_block_start` (the first
    /// sign) to its `content_block_stop`, not to whatever comes next.
    #[test]
    fn a_redacted_block_opens_at_its_start_and_closes_at_its_stop() {
        let mut timed = Timed::new(AnthropicDecoder::default());
        let mut at = |ms: u64, name: &str, data: &str| timed.at(ms, Some(name), data);
        assert_eq!(
            at(
                100,
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwK"}}"#
            ),
            vec![TurnEvent::ThinkingStart]
        );
        assert_eq!(
            at(
                3100,
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#
            ),
            vec![TurnEvent::ThinkingEnd {
                duration_ms: 3000,
                opaque: true
            }]
        );
        assert!(at(
            9000,
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#
        )
        .is_empty());
    }

    #[test]
    fn the_mock_writes_hidden_reasoning_with_its_start_and_end_apart() {
        let steps = hidden_reasoning_events(
            &mut AnthropicEncoder::new("mock-claude"),
            &mut AnthropicDecoder::default(),
        );
        assert_hidden_reasoning_timed_from_its_first_sign(&steps);
    }

    #[test]
    fn tool_use_ping_and_unknown_events_are_ignored() {
        assert!(decode_all(&[
            ("ping", r#"{"type":"ping"}"#),
            ("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"calc","input":{}}}"#),
            ("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}"#),
            ("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
            ("message_stop", r#"{"type":"message_stop"}"#),
            ("brand_new", r#"{"type":"brand_new","delta":{"text":"x"}}"#),
        ])
        .is_empty());
    }

    #[test]
    fn usage_combines_message_start_and_message_delta_and_stop_reasons_map() {
        assert_eq!(
            decode_all(&[
                (
                    "message_start",
                    r#"{"type":"message_start","message":{"usage":{"input_tokens":69,"output_tokens":2}}}"#
                ),
                (
                    "message_delta",
                    r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":53}}"#
                ),
            ]),
            vec![
                Delta::Usage(Usage {
                    input_tokens: Some(69),
                    output_tokens: Some(53),
                    reasoning_tokens: None
                }),
                Delta::Finish(Some("length".into()))
            ]
        );
        let finish = |reason: &str| {
            decode_all(&[(
                "message_delta",
                &format!(r#"{{"type":"message_delta","delta":{{"stop_reason":"{reason}"}}}}"#),
            )])
        };
        assert_eq!(finish("end_turn"), vec![Delta::Finish(Some("stop".into()))]);
        assert_eq!(
            finish("tool_use"),
            vec![Delta::Finish(Some("tool_use".into()))]
        );
    }

    #[test]
    fn malformed_json_and_error_events_are_errors_with_kinds() {
        let mut d = AnthropicDecoder::default();
        let bad = d.decode(WireEvent {
            event: Some("content_block_delta"),
            data: "{\"type\":",
        });
        assert!(matches!(bad, Err(TurnError::Malformed(_))));
        let cases = [
            ("overloaded_error", ErrorKind::Upstream),
            ("rate_limit_error", ErrorKind::RateLimit),
            ("authentication_error", ErrorKind::Auth),
            ("permission_error", ErrorKind::Auth),
            ("invalid_request_error", ErrorKind::BadRequest),
            ("api_error", ErrorKind::Upstream),
            ("something_else", ErrorKind::Upstream),
        ];
        for (kind, expected) in cases {
            let data =
                format!(r#"{{"type":"error","error":{{"type":"{kind}","message":"Overloaded"}}}}"#);
            let err = d
                .decode(WireEvent {
                    event: Some("error"),
                    data: &data,
                })
                .unwrap_err();
            assert!(matches!(err, TurnError::Reported { .. }));
            assert_eq!(err.kind(), expected, "{kind}");
            assert!(err.to_string().ends_with(": Overloaded"), "{err}");
        }
    }

    #[test]
    fn request_puts_system_on_top_and_keeps_the_budget_below_max_tokens() {
        let model = UpstreamModel {
            base_url: "https://api.anthropic.com/".into(),
            api_key: Some("sk-ant".into()),
            name: "claude-sonnet-4-5".into(),
            ..UpstreamModel::default()
        };
        let request = ChatRequest {
            messages: vec![
                ChatMessage::system("Be brief."),
                ChatMessage::user("Hi"),
                ChatMessage::assistant("Hello"),
                ChatMessage::system("Use SI units."),
                ChatMessage::user("Why?"),
            ],
            model: None,
        };
        let req = build_request(&model, &request);
        assert_eq!(req.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(
            req.headers,
            vec![
                ("x-api-key".to_owned(), "sk-ant".to_owned()),
                ("anthropic-version".to_owned(), "2023-06-01".to_owned())
            ]
        );
        assert_eq!(
            req.body,
            json!({
                "model": "claude-sonnet-4-5",
                "max_tokens": 16000,
                "stream": true,
                "thinking": {"type": "enabled", "budget_tokens": 8000},
                "messages": [
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": "Hello"},
                    {"role": "user", "content": "Why?"},
                ],
                "system": "Be brief.\n\nUse SI units.",
            })
        );
        let tight = UpstreamModel {
            api_key: None,
            max_output_tokens: Some(4000),
            thinking_budget: Some(4000),
            base_url: "https://proxy.example/v1".into(),
            ..model
        };
        let req = build_request(&tight, &ChatRequest::default());
        assert_eq!(req.url, "https://proxy.example/v1/messages");
        assert_eq!(req.headers.len(), 1);
        assert_eq!(req.body["max_tokens"], json!(8096));
        assert_eq!(req.body["thinking"]["budget_tokens"], json!(4000));
        assert!(req.body.get("system").is_none());
    }

    #[test]
    fn encoder_output_decodes_to_the_same_text_blocks_usage_and_finish() {
        let script = vec![
            r("Let me think. "),
            r("Two plus two."),
            Delta::ReasoningBoundary,
            r("Check: 4."),
            Delta::OpaqueReasoning,
            a("It is "),
            a("4."),
            Delta::Usage(Usage {
                input_tokens: Some(21),
                output_tokens: Some(55),
                reasoning_tokens: Some(40),
            }),
            Delta::Finish(Some("stop".into())),
        ];
        let mut encoder = AnthropicEncoder::new("claude-sonnet-4-5");
        let mut frames = encoder.start();
        frames.extend(encoder.step(&script[..3]));
        frames.extend(encoder.step(&script[3..]));
        frames.extend(encoder.finish());
        // Every frame is named, and the name matches the data's `type`.
        for frame in &frames {
            let value: Value = serde_json::from_str(&frame.data).unwrap();
            assert_eq!(frame.event.as_deref(), value["type"].as_str());
        }
        let starts: Vec<u64> = frames
            .iter()
            .filter(|f| f.event.as_deref() == Some("content_block_start"))
            .map(|f| {
                serde_json::from_str::<Value>(&f.data).unwrap()["index"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(starts, vec![0, 1, 2, 3]);
        let mut decoder = AnthropicDecoder::default();
        let decoded: Vec<Delta> = frames
            .iter()
            .flat_map(|f| {
                decoder
                    .decode(WireEvent {
                        event: f.event.as_deref(),
                        data: &f.data,
                    })
                    .unwrap()
            })
            .collect();
        assert_eq!(
            texts(&decoded),
            (
                "Let me think. Two plus two.Check: 4.".to_owned(),
                "It is 4.".to_owned()
            )
        );
        assert_eq!(blocks(&decoded), 3);
        assert!(decoded.contains(&Delta::OpaqueReasoning));
        // Anthropic does not report reasoning tokens separately.
        assert!(decoded.contains(&Delta::Usage(Usage {
            input_tokens: Some(21),
            output_tokens: Some(55),
            reasoning_tokens: None,
        })));
        assert_eq!(decoded.last(), Some(&Delta::Finish(Some("stop".into()))));
    }

    #[test]
    fn recorded_stream_fixture_decodes_to_the_exact_texts_and_usage() {
        let fixture =
            include_str!("../../../tests/fixtures/anthropic-extended-thinking-clear-thinking.sse");
        let decoded = decode_sse(&mut AnthropicDecoder::default(), fixture);
        // Expected texts come from concatenating the fixture's `thinking_delta`
        // and `text_delta` fields (python3).
        assert_eq!(
            texts(&decoded),
            (
                "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185"
                    .to_owned(),
                "925 ÷ 5 = 185".to_owned()
            )
        );
        assert_eq!(blocks(&decoded), 1);
        assert_eq!(
            decoded
                .iter()
                .filter(|d| matches!(d, Delta::Usage(_)))
                .collect::<Vec<_>>(),
            vec![&Delta::Usage(Usage {
                input_tokens: Some(69),
                output_tokens: Some(53),
                reasoning_tokens: None
            })]
        );
        assert_eq!(decoded.last(), Some(&Delta::Finish(Some("stop".into()))));
    }
}
