//! Decoding Anthropic streams into `Delta`s, one framed event at a time
//! (the mapping is described in the module above).

use serde::Deserialize;

use crate::server::providers::delta::Delta;
use crate::server::providers::framing::WireEvent;
use crate::server::providers::wire::{decode_tagged, Decoder, Loose};
use crate::turn::turn_error::{ProviderFault, TurnError};
use crate::turn::Usage;

/// One Messages stream event, only the fields we read. `type` repeats the SSE
/// event name; ping, message_stop and anything new are `Unknown`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event {
    MessageStart {
        #[serde(default)]
        message: Option<Message>,
    },
    ContentBlockStart {
        #[serde(default)]
        index: Option<u64>,
        #[serde(default)]
        content_block: Option<Block>,
    },
    ContentBlockDelta {
        #[serde(default)]
        index: Option<u64>,
        #[serde(default)]
        delta: Option<BlockDelta>,
    },
    MessageDelta {
        #[serde(default)]
        delta: Option<MessageDelta>,
        #[serde(default)]
        usage: Option<DeltaUsage>,
    },
    ContentBlockStop {
        #[serde(default)]
        index: Option<u64>,
    },
    /// The fields sit in `error`; an event without it is read as the error.
    Error {
        #[serde(default)]
        error: Option<Loose<ApiError>>,
        #[serde(default)]
        message: Option<Loose<String>>,
    },
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Deserialize)]
struct Message {
    #[serde(default)]
    usage: Option<StartUsage>,
}

#[derive(Debug, Deserialize)]
struct StartUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
}

/// A content block as it starts; server tools and anything new are `Unknown`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Thinking {
        #[serde(default)]
        thinking: Option<String>,
        #[serde(default)]
        signature: Option<String>,
    },
    RedactedThinking {
        #[serde(default)]
        data: Option<String>,
    },
    Text {
        #[serde(default)]
        text: Option<String>,
    },
    ToolUse {
        #[serde(default)]
        id: Option<String>,
        #[serde(default)]
        name: Option<String>,
        #[serde(default)]
        input: Option<serde_json::Value>,
    },
    /// A server-side fallback's hand-over: `to` is "the fallback model
    /// producing the content that follows this block" (Anthropic SDK,
    /// `BetaFallbackBlock {from, to, trigger}`; platform.claude.com/docs/en/
    /// build-with-claude/refusals-and-fallback).
    Fallback {
        #[serde(default)]
        to: Option<FallbackModel>,
    },
    #[serde(other)]
    Unknown,
}

/// One side of a `fallback` block.
#[derive(Debug, Deserialize)]
struct FallbackModel {
    #[serde(default)]
    model: Option<String>,
}

/// A block's increment; citations and anything new are `Unknown`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockDelta {
    ThinkingDelta {
        #[serde(default)]
        thinking: Option<String>,
    },
    SignatureDelta {
        #[serde(default)]
        signature: Option<String>,
    },
    InputJsonDelta {
        #[serde(default)]
        partial_json: Option<String>,
    },
    TextDelta {
        #[serde(default)]
        text: Option<String>,
    },
    #[serde(other)]
    Unknown,
}

#[derive(Debug, Deserialize)]
struct MessageDelta {
    #[serde(default)]
    stop_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct DeltaUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
}

/// An error's fields, each read only if it has the expected type.
#[derive(Debug, Default, Deserialize)]
struct ApiError {
    #[serde(default, rename = "type")]
    kind: Option<Loose<String>>,
    #[serde(default)]
    message: Option<Loose<String>>,
}

/// Decodes a Messages event stream (several messages of a tool loop in a row
/// are fine: each `message_start` resets the token count).
#[derive(Debug, Default)]
pub(crate) struct AnthropicDecoder {
    /// `message_start`'s input tokens, reported with `message_delta`'s output.
    input_tokens: Option<u64>,
    /// Index of the reasoning block started and not yet stopped.
    open_reasoning: Option<u64>,
    /// The open reasoning block has shown something: text, or its redaction.
    /// One that ends with neither was omitted by the provider (a signature
    /// only: Claude 4.7's default `display: "omitted"`), so it is hidden
    /// reasoning, timed from its start to its stop.
    open_shown: bool,
    /// The reasoning blocks of this message as the API must get them back
    /// in a tool loop (tool-loops.md §1.1), kept until the message shows
    /// whether it calls a tool: only then are they passed on as continuity.
    echo: ThinkingEcho,
    /// The tool-use blocks of this message: content index → call id.
    tool_blocks: Vec<(u64, String)>,
}

/// Most bytes of one thinking block kept to echo. A signed block cannot
/// be cut (the API refuses a modified one), so a longer one is not echoed
/// and the provider's own 400 says so, rather than memory growing with
/// whatever a stream sends.
const MAX_ECHO_BYTES: usize = 2 * 1024 * 1024;

/// The thinking blocks of the message so far, whole and in order.
#[derive(Debug, Default)]
struct ThinkingEcho {
    blocks: Vec<serde_json::Value>,
    /// The open thinking block: its text and signature so far.
    text: String,
    signature: String,
    too_long: bool,
    /// A tool-use block came: the blocks are passed on as they end.
    calls_tools: bool,
}

impl ThinkingEcho {
    fn add_text(&mut self, text: &str) {
        if self.text.len() + text.len() > MAX_ECHO_BYTES {
            self.too_long = true;
        } else {
            self.text.push_str(text);
        }
    }

    /// The open thinking block ended: keep it whole (or not at all).
    fn close_thinking(&mut self, out: &mut Vec<Delta>) {
        let text = std::mem::take(&mut self.text);
        let signature = std::mem::take(&mut self.signature);
        if !std::mem::take(&mut self.too_long) {
            let block =
                serde_json::json!({"type": "thinking", "thinking": text, "signature": signature});
            self.keep(block, out);
        }
    }

    fn keep(&mut self, block: serde_json::Value, out: &mut Vec<Delta>) {
        if self.calls_tools {
            out.push(echo_delta(block));
        } else {
            self.blocks.push(block);
        }
    }

    /// A tool-use block starts: the blocks kept so far go out now, before it.
    fn tool_use(&mut self, out: &mut Vec<Delta>) {
        self.calls_tools = true;
        out.extend(self.blocks.drain(..).map(echo_delta));
    }
}

/// A reasoning block to send back unchanged, as continuity.
fn echo_delta(block: serde_json::Value) -> Delta {
    Delta::Continuity(serde_json::json!({ ECHO_KEY: block }))
}

/// The continuity key of an Anthropic content block to echo.
pub(crate) const ECHO_KEY: &str = "anthropic_block";

impl Decoder for AnthropicDecoder {
    fn decode(&mut self, event: &WireEvent) -> Result<Vec<Delta>, TurnError> {
        if event.data.trim().is_empty() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        match decode_tagged::<Event>(event)? {
            Event::MessageStart { message } => {
                self.input_tokens = message.and_then(|m| m.usage).and_then(|u| u.input_tokens);
                self.echo = ThinkingEcho::default();
                self.tool_blocks.clear();
            }
            Event::ContentBlockStart {
                index,
                content_block,
            } => match content_block {
                Some(Block::Thinking {
                    thinking,
                    signature,
                }) => {
                    // Opens at once, so an omitted block is timed too.
                    self.new_reasoning_block(index, &mut out);
                    out.push(Delta::ReasoningStarted);
                    self.echo.signature = signature.unwrap_or_default();
                    if let Some(text) = &thinking {
                        self.echo.add_text(text);
                    }
                    self.push_reasoning(&mut out, thinking);
                }
                Some(Block::RedactedThinking { data }) => {
                    // Hidden from the start: the block opens, opaque, now.
                    self.new_reasoning_block(index, &mut out);
                    out.push(Delta::OpaqueReasoning);
                    self.open_shown = true;
                    let block = serde_json::json!({"type": "redacted_thinking", "data": data.unwrap_or_default()});
                    self.echo.keep(block, &mut out);
                }
                Some(Block::Text { text }) => push(&mut out, Delta::Answer, text),
                Some(Block::ToolUse { id, name, input }) => {
                    self.echo.tool_use(&mut out);
                    let id = id.unwrap_or_else(|| format!("toolu_index_{}", index.unwrap_or(0)));
                    self.tool_blocks
                        .push((index.unwrap_or(u64::MAX), id.clone()));
                    out.push(Delta::ToolCallStart {
                        id: id.clone(),
                        name: name.unwrap_or_default(),
                    });
                    // Input normally streams after an empty `{}`; a block
                    // that starts with its input whole carries it here.
                    if let Some(arguments) =
                        input.filter(|v| v.as_object().is_some_and(|o| !o.is_empty()))
                    {
                        out.push(Delta::ToolCallWhole { id, arguments });
                    }
                }
                Some(Block::Fallback { to }) => {
                    // The model that declined is done: its reasoning block,
                    // if open, ends here, and its thinking is not echoed
                    // (the next model could not read it).
                    out.push(Delta::ReasoningBoundary);
                    self.echo = ThinkingEcho::default();
                    if let Some(model) = to.and_then(|t| t.model).filter(|m| !m.is_empty()) {
                        out.push(Delta::ModelSwitched(model));
                    }
                }
                Some(Block::Unknown) | None => {}
            },
            Event::ContentBlockDelta { index, delta } => match delta {
                Some(BlockDelta::ThinkingDelta { thinking }) => {
                    if let Some(text) = &thinking {
                        self.echo.add_text(text);
                    }
                    self.push_reasoning(&mut out, thinking);
                }
                Some(BlockDelta::SignatureDelta { signature }) => {
                    self.echo.signature.push_str(&signature.unwrap_or_default());
                }
                Some(BlockDelta::InputJsonDelta { partial_json }) => {
                    let call = self
                        .tool_blocks
                        .iter()
                        .rfind(|(at, _)| Some(*at) == index || index.is_none());
                    if let (Some((_, id)), Some(text)) =
                        (call, partial_json.filter(|t| !t.is_empty()))
                    {
                        out.push(Delta::ToolCallArguments {
                            id: id.clone(),
                            text,
                        });
                    }
                }
                Some(BlockDelta::TextDelta { text }) => push(&mut out, Delta::Answer, text),
                Some(BlockDelta::Unknown) | None => {}
            },
            Event::MessageDelta { delta, usage } => {
                if let Some(usage) = usage {
                    // The current API repeats the input count here; older ones only
                    // sent it in `message_start`.
                    out.push(Delta::Usage(Usage {
                        input_tokens: usage.input_tokens.or(self.input_tokens),
                        output_tokens: usage.output_tokens,
                        reasoning_tokens: None,
                    }));
                }
                if let Some(reason) = delta.and_then(|d| d.stop_reason) {
                    out.push(Delta::Finish(Some(finish_reason(reason))));
                }
            }
            Event::ContentBlockStop { index }
                if self.open_reasoning.is_some() && self.open_reasoning == index =>
            {
                self.open_reasoning = None;
                if !self.open_shown {
                    out.push(Delta::OpaqueReasoning);
                }
                out.push(Delta::ReasoningBoundary);
                if !self.echo.text.is_empty()
                    || !self.echo.signature.is_empty()
                    || self.echo.too_long
                {
                    self.echo.close_thinking(&mut out);
                }
            }
            Event::Error { error, message } => {
                let error = match error {
                    Some(nested) => nested.ok().unwrap_or_default(),
                    None => ApiError {
                        kind: None,
                        message,
                    },
                };
                return Err(stream_error(error));
            }
            Event::ContentBlockStop { .. } | Event::Unknown => {}
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
        self.open_shown = false;
    }

    /// Reasoning text of the open block (nothing for missing or empty text).
    fn push_reasoning(&mut self, out: &mut Vec<Delta>, text: Option<String>) {
        if text.as_ref().is_some_and(|t| !t.is_empty()) {
            self.open_shown = true;
        }
        push(out, Delta::Reasoning, text);
    }
}

/// Pushes `make(text)` unless the text is missing or empty.
fn push(out: &mut Vec<Delta>, make: fn(String) -> Delta, text: Option<String>) {
    if let Some(text) = text.filter(|t| !t.is_empty()) {
        out.push(make(text));
    }
}

/// Anthropic's stop reasons in the shared vocabulary where one exists.
fn finish_reason(reason: String) -> String {
    match reason.as_str() {
        "end_turn" => "stop".into(),
        "max_tokens" => "length".into(),
        _ => reason,
    }
}

/// An in-stream `error` event, classified by `error.type`.
fn stream_error(error: ApiError) -> TurnError {
    let kind = error.kind.and_then(Loose::ok).unwrap_or_default();
    let fault = match kind.as_str() {
        "overloaded_error" => ProviderFault::Overloaded,
        "rate_limit_error" => ProviderFault::RateLimited,
        "authentication_error" => ProviderFault::KeyRejected,
        "permission_error" => ProviderFault::AccessRefused,
        "invalid_request_error" => ProviderFault::RequestRejected,
        "api_error" => ProviderFault::Internal,
        _ => ProviderFault::Other,
    };
    let message = error.message.and_then(Loose::ok).unwrap_or_default();
    TurnError::reported(fault, &message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::providers::test_support::*;
    use crate::turn::{ErrorKind, TurnEvent};

    fn decode_all(events: &[(&str, &str)]) -> Vec<Delta> {
        let named = events.iter().map(|(name, data)| (Some(*name), *data));
        decode_events(&mut AnthropicDecoder::default(), named)
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
            vec![
                Delta::ReasoningStarted,
                r("hm"),
                Delta::ReasoningBoundary,
                a("42")
            ]
        );
    }

    /// Claude Opus 4.7 leaves thinking out unless asked (`display: "omitted"`):
    /// a thinking block with a signature and no text is hidden reasoning,
    /// timed from its start to its stop.
    #[test]
    fn an_omitted_thinking_block_is_hidden_reasoning_with_its_true_duration() {
        let mut timed = Timed::new(AnthropicDecoder::default());
        let mut at = |ms: u64, name: &str, data: &str| timed.at(ms, Some(name), data);
        assert_eq!(
            at(
                100,
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#
            ),
            vec![TurnEvent::ThinkingStart]
        );
        assert!(at(
            4000,
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCkYIB"}}"#
        )
        .is_empty());
        assert_eq!(
            at(
                4100,
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#
            ),
            vec![TurnEvent::ThinkingEnd {
                duration_ms: 4000,
                opaque: true
            }]
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
                Delta::ReasoningStarted,
                r("first"),
                Delta::ReasoningBoundary,
                Delta::OpaqueReasoning,
                Delta::ReasoningBoundary,
                Delta::ReasoningStarted,
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
    fn ping_and_unknown_events_are_ignored() {
        assert!(decode_all(&[
            ("ping", r#"{"type":"ping"}"#),
            ("message_stop", r#"{"type":"message_stop"}"#),
            ("brand_new", r#"{"type":"brand_new","delta":{"text":"x"}}"#),
        ])
        .is_empty());
    }

    #[test]
    fn a_fallback_block_names_the_model_that_answers_from_there() {
        assert_eq!(
            decode_all(&[
                (
                    "content_block_start",
                    r#"{"type":"content_block_start","index":0,"content_block":{"type":"fallback","from":{"model":"claude-fable-5"},"to":{"model":"claude-opus-4-8"},"trigger":{"type":"refusal"}}}"#
                ),
                (
                    "content_block_stop",
                    r#"{"type":"content_block_stop","index":0}"#
                ),
                (
                    "content_block_start",
                    r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":"Hi"}}"#
                ),
            ]),
            vec![
                Delta::ReasoningBoundary,
                Delta::ModelSwitched("claude-opus-4-8".into()),
                Delta::Answer("Hi".into()),
            ]
        );
    }

    #[test]
    fn tool_use_blocks_become_calls_with_streamed_input() {
        assert_eq!(
            decode_all(&[
                (
                    "content_block_start",
                    r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"calc","input":{}}}"#
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}"#
                ),
                (
                    "content_block_start",
                    r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_2","name":"now","input":{"tz":"UTC"}}}"#
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"1}"}}"#
                ),
            ]),
            vec![
                Delta::ToolCallStart {
                    id: "toolu_1".into(),
                    name: "calc".into()
                },
                Delta::ToolCallArguments {
                    id: "toolu_1".into(),
                    text: "{\"a\":".into()
                },
                Delta::ToolCallStart {
                    id: "toolu_2".into(),
                    name: "now".into()
                },
                Delta::ToolCallWhole {
                    id: "toolu_2".into(),
                    arguments: serde_json::json!({"tz": "UTC"})
                },
                Delta::ToolCallArguments {
                    id: "toolu_1".into(),
                    text: "1}".into()
                },
            ]
        );
    }

    /// The reasoning blocks of a message that calls a tool go out whole as
    /// continuity (text and joined signature; redacted data), in order;
    /// a message that calls no tool keeps none.
    #[test]
    fn reasoning_blocks_are_echoed_only_for_tool_calling_messages() {
        let message = |with_tool: bool| {
            let mut events = vec![
                ("message_start", r#"{"type":"message_start","message":{}}"#),
                (
                    "content_block_start",
                    r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Plan "}}"#,
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"it."}}"#,
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}"#,
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"xyz"}}"#,
                ),
                (
                    "content_block_stop",
                    r#"{"type":"content_block_stop","index":0}"#,
                ),
                (
                    "content_block_start",
                    r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwK"}}"#,
                ),
                (
                    "content_block_stop",
                    r#"{"type":"content_block_stop","index":1}"#,
                ),
            ];
            if with_tool {
                events.push(("content_block_start", r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"calc","input":{}}}"#));
            }
            decode_all(&events)
                .into_iter()
                .filter_map(|d| match d {
                    Delta::Continuity(data) => Some(data),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            message(true),
            vec![
                serde_json::json!({"anthropic_block": {"type": "thinking", "thinking": "Plan it.", "signature": "EqQBxyz"}}),
                serde_json::json!({"anthropic_block": {"type": "redacted_thinking", "data": "EmwK"}}),
            ]
        );
        assert!(message(false).is_empty());
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
        let bad = d.decode(&WireEvent::new(Some("content_block_delta"), "{\"type\":"));
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
            let err = d.decode(&WireEvent::new(Some("error"), &data)).unwrap_err();
            assert!(matches!(err, TurnError::Reported { .. }));
            assert_eq!(err.kind(), expected, "{kind}");
            assert!(err.to_string().ends_with(": Overloaded"), "{err}");
        }
    }

    #[test]
    fn recorded_stream_fixture_decodes_to_the_exact_texts_and_usage() {
        let fixture = include_str!(
            "../../../../tests/fixtures/anthropic-extended-thinking-clear-thinking.sse"
        );
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
