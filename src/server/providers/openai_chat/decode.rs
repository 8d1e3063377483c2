//! Decoding Chat completions streams into `Delta`s, one framed event at a time
//! (the mapping is described in the module above).

use serde::de::IgnoredAny;
use serde::Deserialize;

use crate::server::providers::delta::Delta;
use crate::server::providers::framing::WireEvent;
use crate::server::providers::wire::{json_chunk, usable_items, Decoder, Loose};
use crate::turn::turn_error::{ProviderFault, TurnError};
use crate::turn::Usage;

/// One streamed chunk, only the fields we read.
#[derive(Debug, Deserialize)]
pub(crate) struct ChatChunk {
    /// The completion's id (the same in every chunk of a stream).
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<ChunkUsage>,
    /// Some gateways stream an error object instead of a chunk.
    #[serde(default)]
    error: Option<Loose<ChunkError>>,
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
    #[serde(default)]
    content: Option<Content>,
    #[serde(default)]
    reasoning_content: Option<String>,
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
    /// Kept as sent: they go back unmodified (`ChunkState::details`).
    #[serde(default)]
    reasoning_details: Option<Vec<serde_json::Value>>,
    /// Read one by one (`usable_items`): gateways send fragments no call
    /// can use (LiteLLM's `"index": -1`), which are skipped.
    #[serde(default)]
    tool_calls: Option<Vec<serde_json::Value>>,
}

/// A fragment of a tool call: the first of a call carries its `id` and
/// name, later ones only its `index` and a piece of the arguments.
#[derive(Debug, Deserialize)]
struct CallFragment {
    #[serde(default)]
    index: Option<usize>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<CallFunction>,
}

#[derive(Debug, Default, Deserialize)]
struct CallFunction {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

/// What one response's chunks carry from chunk to chunk: its tool calls'
/// ids by `index` (later fragments name only the index), and the
/// `reasoning_details` a gateway sent (OpenRouter), merged per item.
#[derive(Debug, Default, Clone)]
pub(crate) struct ChunkState {
    ids: Vec<(usize, String)>,
    details: Vec<serde_json::Value>,
    details_bytes: usize,
}

/// Most bytes of `reasoning_details` kept to send back. A signed item
/// cannot be cut, so past this none are sent back (the gateway's own 400
/// then says so) rather than memory growing with whatever a stream sends.
const MAX_DETAILS_BYTES: usize = 2 * 1024 * 1024;

impl ChunkState {
    fn id_of(&self, index: usize) -> Option<&str> {
        self.ids
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, id)| id.as_str())
    }

    /// Adds streamed detail items: a fragment of the item before (same
    /// `index` and `type`) joins it, its text appended and its other
    /// fields (signature, id, format) taken; a new item follows it.
    fn keep_details(&mut self, items: &[serde_json::Value]) {
        for item in items {
            self.details_bytes = self.details_bytes.saturating_add(item.to_string().len());
            if self.details_bytes > MAX_DETAILS_BYTES {
                self.details.clear();
                return;
            }
            let same = |last: &serde_json::Value| {
                last.get("index") == item.get("index") && last.get("type") == item.get("type")
            };
            match (self.details.last_mut(), item.as_object()) {
                (Some(last), Some(fields)) if same(last) => {
                    for (key, value) in fields {
                        match (key.as_str(), value, last.get_mut(key)) {
                            (
                                "text" | "summary" | "data",
                                serde_json::Value::String(more),
                                Some(serde_json::Value::String(so_far)),
                            ) => so_far.push_str(more),
                            (_, serde_json::Value::Null, _) => {}
                            _ => last[key] = value.clone(),
                        }
                    }
                }
                _ => self.details.push(item.clone()),
            }
        }
    }
}

/// The continuity key of the `reasoning_details` to send back.
pub(crate) const DETAILS_KEY: &str = "reasoning_details";

/// `content`: a string, or (Mistral) an array of `text` / `thinking` parts;
/// any other shape says nothing.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Content {
    Text(String),
    /// Read one by one (`usable_items`): a part of no known shape is
    /// skipped, not the chunk's other parts.
    Parts(Vec<serde_json::Value>),
    Other(IgnoredAny),
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ContentPart {
    Thinking {
        #[serde(default)]
        thinking: Option<PartText>,
    },
    Text {
        #[serde(default)]
        text: Option<PartText>,
    },
    #[serde(other)]
    Unknown,
}

/// A part's text: a string, or an array of `{"type":"text","text":…}` parts.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum PartText {
    Text(String),
    Parts(Vec<TextItem>),
    Other(IgnoredAny),
}

#[derive(Debug, Deserialize)]
struct TextItem {
    #[serde(default)]
    text: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
enum ReasoningDetail {
    #[serde(rename = "reasoning.text")]
    Text {
        #[serde(default)]
        text: Option<String>,
    },
    #[serde(rename = "reasoning.summary")]
    Summary {
        #[serde(default)]
        summary: Option<String>,
    },
    #[serde(rename = "reasoning.encrypted")]
    Encrypted,
    #[serde(other)]
    Unknown,
}

/// A streamed error: an object with a message and (an HTTP status as) a
/// numeric code; any other shape is an error all the same.
#[derive(Debug, Default, Deserialize)]
struct ChunkError {
    #[serde(default)]
    message: Option<Loose<String>>,
    /// A named code (`rate_limit_exceeded`) says less than the message.
    #[serde(default)]
    code: Option<Loose<u64>>,
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
    /// The completion id the chunk carries, if any.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The chunk's deltas: reasoning (from exactly one source) before answer
    /// text, then tool calls; `calls` carries the calls' ids from chunk to chunk.
    pub(crate) fn into_deltas(self, calls: &mut ChunkState) -> Result<Vec<Delta>, TurnError> {
        if let Some(error) = self.error {
            return Err(stream_error(error.ok().unwrap_or_default()));
        }
        let mut deltas = Vec::new();
        if let Some(choice) = self.choices.into_iter().next() {
            if let Some(d) = choice.delta {
                let readable_before = calls.details.iter().any(|item| {
                    ["text", "summary"].iter().any(|key| {
                        item.get(key)
                            .and_then(serde_json::Value::as_str)
                            .is_some_and(|t| !t.is_empty())
                    })
                });
                push_reasoning(&mut deltas, &d);
                // An encrypted item that seals readable reasoning (Gemini's
                // signature through OpenRouter) is no hidden reasoning.
                if readable_before && deltas.last() == Some(&Delta::OpaqueReasoning) {
                    deltas.pop();
                }
                if let Some(items) = &d.reasoning_details {
                    if calls.details_bytes <= MAX_DETAILS_BYTES {
                        calls.keep_details(items);
                    }
                }
                push_content(&mut deltas, d.content);
                let fragments = d.tool_calls.unwrap_or_default();
                for fragment in usable_items::<CallFragment>(fragments, "tool-call fragment") {
                    push_call(&mut deltas, fragment, calls);
                }
            }
            if choice.finish_reason.is_some() {
                // A response that calls tools sends its details back with
                // the calls, unmodified and in order (OpenRouter's
                // reasoning-tokens guide, "Preserving reasoning blocks").
                if !calls.ids.is_empty() && !calls.details.is_empty() {
                    let details = std::mem::take(&mut calls.details);
                    deltas.push(Delta::Continuity(
                        serde_json::json!({ DETAILS_KEY: details }),
                    ));
                }
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
        let details = details.iter().map(|v| {
            serde_json::from_value::<ReasoningDetail>(v.clone()).unwrap_or(ReasoningDetail::Unknown)
        });
        for detail in details {
            match detail {
                ReasoningDetail::Text { text: part }
                | ReasoningDetail::Summary { summary: part } => {
                    text.push_str(part.as_deref().unwrap_or(""));
                }
                ReasoningDetail::Encrypted => encrypted = true,
                ReasoningDetail::Unknown => {}
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

/// A tool call fragment, gathered by `index` (parallel calls interleave).
/// A fragment with an unknown index and no id belongs to no call: dropped.
fn push_call(deltas: &mut Vec<Delta>, fragment: CallFragment, calls: &mut ChunkState) {
    let index = fragment.index.unwrap_or(calls.ids.len());
    let function = fragment.function.unwrap_or_default();
    if let Some(id) = fragment.id.filter(|id| !id.is_empty()) {
        if calls.id_of(index) != Some(id.as_str()) {
            calls.ids.push((index, id.clone()));
            deltas.push(Delta::ToolCallStart {
                id,
                name: function.name.clone().unwrap_or_default(),
            });
        }
    }
    let (Some(id), Some(text)) = (calls.id_of(index), function.arguments) else {
        return;
    };
    if !text.is_empty() {
        deltas.push(Delta::ToolCallArguments {
            id: id.to_owned(),
            text,
        });
    }
}

/// `content` as a string, or Mistral's array of `thinking` / `text` parts.
fn push_content(deltas: &mut Vec<Delta>, content: Option<Content>) {
    match content {
        Some(Content::Text(text)) if !text.is_empty() => deltas.push(Delta::Answer(text)),
        Some(Content::Parts(parts)) => {
            for part in usable_items::<ContentPart>(parts, "content part") {
                match part {
                    ContentPart::Thinking { thinking } => {
                        let text = text_of(thinking);
                        if !text.is_empty() {
                            deltas.push(Delta::Reasoning(text));
                        }
                    }
                    ContentPart::Text { text } => {
                        let text = text_of(text);
                        if !text.is_empty() {
                            deltas.push(Delta::Answer(text));
                        }
                    }
                    ContentPart::Unknown => {}
                }
            }
        }
        _ => {}
    }
}

/// Text of a string or of an array of `{"type":"text","text":…}` parts.
fn text_of(text: Option<PartText>) -> String {
    match text {
        Some(PartText::Text(s)) => s,
        Some(PartText::Parts(items)) => items.into_iter().filter_map(|i| i.text).collect(),
        _ => String::new(),
    }
}

fn stream_error(error: ChunkError) -> TurnError {
    let message = error.message.and_then(Loose::ok);
    let message = message
        .as_deref()
        .unwrap_or("the provider reported an error");
    match error.code.and_then(Loose::ok) {
        Some(status) => TurnError::from_status(status as u16, message),
        None => TurnError::reported(ProviderFault::Other, message),
    }
}

/// Decodes recorded chat-completion chunks (`[DONE]` and empty data are skipped).
#[derive(Debug, Default)]
pub(crate) struct ChatDecoder {
    calls: ChunkState,
}

impl Decoder for ChatDecoder {
    fn decode(&mut self, event: &WireEvent) -> Result<Vec<Delta>, TurnError> {
        match json_chunk::<ChatChunk>(event)? {
            Some(chunk) => chunk.into_deltas(&mut self.calls),
            None => Ok(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::providers::test_support::decode_one;

    fn deltas(json: &str) -> Vec<Delta> {
        decode_one::<ChatDecoder>(json)
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
        let mut timed = crate::server::providers::test_support::Timed::new(ChatDecoder::default());
        let mut at = |ms: u64, data: &str| timed.at(ms, None, data);
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
        let mut d = ChatDecoder::default();
        let bad = d.decode(&WireEvent::new(None, "{not json"));
        assert!(matches!(bad, Err(TurnError::Malformed(_))));
        let err = d.decode(&WireEvent::new(
            None,
            r#"{"error":{"message":"overloaded","code":503}}"#,
        ));
        assert_eq!(err.unwrap_err().kind(), crate::turn::ErrorKind::Upstream);
    }

    /// LiteLLM in front of Claude, from lobe-chat's tests (peer case
    /// `lobe-litellm-claude-thinking-blocks`): a stray tool-call fragment
    /// with `"index": -1`, no id and no name, between the reasoning and the
    /// answer. The fragment is skipped; the answer after it streams whole.
    const LITELLM_STRAY_FRAGMENT: &str = concat!(
        r#"data: {"id":"1","choices":[{"index":0,"delta":{"thinking_blocks":[{"type":"thinking","thinking":"I need","signature_delta":null}],"reasoning_content":"I need the factors","content":"","role":"assistant"}}]}"#,
        "\n\n",
        r#"data: {"id":"1","choices":[{"index":0,"delta":{"content":"","tool_calls":[{"function":{"arguments":"{}"},"type":"function","index":-1}]}}]}"#,
        "\n\n",
        r#"data: {"id":"1","choices":[{"index":0,"delta":{"content":"394 = 2 × 197."}}]}"#,
        "\n\n",
        r#"data: {"id":"1","choices":[{"finish_reason":"stop","index":0,"delta":{}}]}"#,
        "\n\n",
        "data: [DONE]\n\n",
    );

    #[test]
    fn a_stray_fragment_with_a_negative_index_costs_nothing() {
        let deltas = crate::server::providers::test_support::decode_sse(
            &mut ChatDecoder::default(),
            LITELLM_STRAY_FRAGMENT,
        );
        assert_eq!(
            deltas,
            vec![
                Delta::Reasoning("I need the factors".into()),
                Delta::Answer("394 = 2 × 197.".into()),
                Delta::Finish(Some("stop".into())),
            ]
        );
        assert_eq!(crate::server::providers::test_support::blocks(&deltas), 1);
    }

    #[test]
    fn an_unusable_fragment_is_skipped_and_its_neighbours_kept() {
        // Non-integer indexes and a wrong-typed id each make one fragment
        // unusable; the good call in the same chunk and the chunk's text stay.
        assert_eq!(
            deltas(
                r#"{"choices":[{"delta":{"content":"ok","tool_calls":[
                    {"index":1.5,"id":"a","function":{"name":"x","arguments":"{}"}},
                    {"index":"0","id":"b","function":{"name":"y"}},
                    {"index":0,"id":7,"function":{"name":"z"}},
                    {"index":0,"id":"call_1","function":{"name":"search","arguments":"{\"q\":1}"}}
                ]}}]}"#
            ),
            vec![
                Delta::Answer("ok".into()),
                Delta::ToolCallStart {
                    id: "call_1".into(),
                    name: "search".into()
                },
                Delta::ToolCallArguments {
                    id: "call_1".into(),
                    text: r#"{"q":1}"#.into()
                },
            ]
        );
    }

    #[test]
    fn a_content_part_of_no_known_shape_is_skipped_not_its_neighbours() {
        assert_eq!(
            deltas(
                r#"{"choices":[{"delta":{"content":[{"thinking":"no type"},{"type":"text","text":"4"}]}}]}"#
            ),
            vec![Delta::Answer("4".into())]
        );
    }

    #[test]
    fn a_chunk_that_is_not_json_is_still_an_error() {
        // Leniency is per item: a cut-off chunk is still malformed.
        let mut d = ChatDecoder::default();
        let cut = d.decode(&WireEvent::new(
            None,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":-1,"#,
        ));
        assert!(matches!(cut, Err(TurnError::Malformed(_))));
    }
}
