//! Decoding Ollama streams into `Delta`s, one framed event at a time
//! (the mapping is described in the module above).

use serde::Deserialize;
use serde_json::Value;

use crate::server::providers::delta::Delta;
use crate::server::providers::framing::WireEvent;
use crate::server::providers::wire::{usable_items, Decoder};
use crate::turn::turn_error::{ProviderFault, TurnError};
use crate::turn::Usage;

/// One streamed line, only the fields we read.
#[derive(Debug, Deserialize)]
struct Line {
    #[serde(default)]
    message: Option<Message>,
    #[serde(default)]
    done: bool,
    #[serde(default)]
    done_reason: Option<String>,
    #[serde(default)]
    prompt_eval_count: Option<u64>,
    #[serde(default)]
    eval_count: Option<u64>,
    #[serde(default)]
    error: Option<LineError>,
}

/// A string in practice; an object's `message`; anything else is shown as JSON.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum LineError {
    Text(String),
    Message { message: String },
    Other(Value),
}

#[derive(Debug, Deserialize)]
struct Message {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
    /// Calls arrive whole, each in one line (ollama.com/blog/streaming-tool).
    /// Read one by one (`usable_items`): a call of no usable shape is
    /// skipped, not the line's text.
    #[serde(default)]
    tool_calls: Vec<Value>,
}

#[derive(Debug, Deserialize)]
struct ToolCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<Function>,
}

#[derive(Debug, Deserialize)]
struct Function {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
}

/// Ids for calls sent without one, unique in the process (a turn's
/// responses never share one). Ollama matches results by tool name.
static NEXT_CALL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Line {
    /// The line's deltas: thinking, content, then (last line) usage and finish.
    fn into_deltas(self) -> Result<Vec<Delta>, TurnError> {
        if let Some(error) = self.error {
            let text = match error {
                LineError::Text(text) | LineError::Message { message: text } => text,
                LineError::Other(other) => other.to_string(),
            };
            return Err(stream_error(&text));
        }
        let mut deltas = Vec::new();
        if let Some(message) = self.message {
            if let Some(text) = message.thinking.filter(|t| !t.is_empty()) {
                deltas.push(Delta::Reasoning(text));
            }
            if let Some(text) = message.content.filter(|t| !t.is_empty()) {
                deltas.push(Delta::Answer(text));
            }
            for call in usable_items::<ToolCall>(message.tool_calls, "tool call") {
                let function = call.function.unwrap_or(Function {
                    name: None,
                    arguments: None,
                });
                let id = call.id.filter(|id| !id.is_empty()).unwrap_or_else(|| {
                    let n = NEXT_CALL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    format!("ollama_call_{n}")
                });
                deltas.push(Delta::ToolCallStart {
                    id: id.clone(),
                    name: function.name.unwrap_or_default(),
                });
                // Arguments are an object here; some servers send JSON text.
                let arguments = match function.arguments {
                    Some(Value::String(text)) => {
                        serde_json::from_str(&text).unwrap_or(Value::String(text))
                    }
                    Some(value) => value,
                    None => serde_json::json!({}),
                };
                deltas.push(Delta::ToolCallWhole { id, arguments });
            }
        }
        if self.done {
            if self.prompt_eval_count.is_some() || self.eval_count.is_some() {
                deltas.push(Delta::Usage(Usage {
                    input_tokens: self.prompt_eval_count,
                    output_tokens: self.eval_count,
                    reasoning_tokens: None,
                }));
            }
            let reason = self
                .done_reason
                .filter(|r| !r.is_empty())
                .unwrap_or_else(|| "stop".into());
            deltas.push(Delta::Finish(Some(reason)));
        }
        Ok(deltas)
    }
}

/// Ollama reports every failure as `{"error": "..."}`; a missing model or one
/// that cannot think is the request's fault, the rest the server's.
fn stream_error(text: &str) -> TurnError {
    let lower = text.to_ascii_lowercase();
    let fault = if lower.contains("not found") || lower.contains("does not support thinking") {
        ProviderFault::ModelUnsuitable
    } else {
        ProviderFault::Other
    };
    TurnError::reported(fault, text)
}

/// Decodes Ollama `/api/chat` NDJSON lines (blank lines are skipped).
#[derive(Debug, Default)]
pub(crate) struct OllamaDecoder {
    /// Every line stands alone; the field only keeps this a braced struct, built
    /// with `default()` like every decoder (`Dialect::decoder`).
    _stateless: (),
}

impl Decoder for OllamaDecoder {
    fn decode(&mut self, event: &WireEvent) -> Result<Vec<Delta>, TurnError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(Vec::new());
        }
        serde_json::from_str::<Line>(data)
            .map_err(|e| TurnError::Malformed(e.to_string()))?
            .into_deltas()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::providers::test_support::*;
    use crate::turn::ErrorKind;

    fn deltas(data: &str) -> Vec<Delta> {
        decode_one::<OllamaDecoder>(data)
    }

    #[test]
    fn thinking_comes_before_content_and_empty_fields_give_nothing() {
        assert_eq!(
            deltas(
                r#"{"model":"qwen3","message":{"role":"assistant","content":"a","thinking":"r"},"done":false}"#
            ),
            vec![r("r"), a("a")]
        );
        assert!(deltas(
            r#"{"model":"qwen3","message":{"role":"assistant","content":"","thinking":""},"done":false}"#
        )
        .is_empty());
        assert!(
            deltas(r#"{"model":"qwen3","message":{"role":"assistant"},"done":false}"#).is_empty()
        );
        assert!(deltas("   ").is_empty());
    }

    #[test]
    fn a_call_of_no_usable_shape_is_skipped_not_the_line() {
        let got = deltas(
            r#"{"model":"qwen3","message":{"role":"assistant","content":"Hi","tool_calls":[{"function":"broken"},{"id":"c1","function":{"name":"builtin__calculate","arguments":{"expression":"1+1"}}}]},"done":false}"#,
        );
        assert_eq!(got[0], a("Hi"));
        assert_eq!(
            got[1],
            Delta::ToolCallStart {
                id: "c1".into(),
                name: "builtin__calculate".into()
            }
        );
        assert_eq!(got.len(), 3, "{got:?}");
    }

    #[test]
    fn the_done_line_gives_usage_and_finish() {
        assert_eq!(
            deltas(
                r#"{"model":"qwen3","message":{"role":"assistant","content":""},"done":true,"done_reason":"length","prompt_eval_count":26,"eval_count":290}"#
            ),
            vec![
                Delta::Usage(Usage {
                    input_tokens: Some(26),
                    output_tokens: Some(290),
                    reasoning_tokens: None
                }),
                Delta::Finish(Some("length".into()))
            ]
        );
        assert_eq!(
            deltas(r#"{"done":true}"#),
            vec![Delta::Finish(Some("stop".into()))]
        );
    }

    #[test]
    fn malformed_lines_and_error_lines_are_errors() {
        let bad = OllamaDecoder::default().decode(&WireEvent::new(None, r#"{"message":"#));
        assert!(matches!(bad, Err(TurnError::Malformed(_))));
        let cases = [
            (
                r#"{"error":"model 'qwen9' not found"}"#,
                ErrorKind::BadRequest,
            ),
            (
                r#"{"error":"\"gemma3\" does not support thinking"}"#,
                ErrorKind::BadRequest,
            ),
            (
                r#"{"error":"llama runner process has terminated: exit status 2"}"#,
                ErrorKind::Upstream,
            ),
            (
                r#"{"error":{"message":"server busy"}}"#,
                ErrorKind::Upstream,
            ),
        ];
        for (data, kind) in cases {
            let err = OllamaDecoder::default()
                .decode(&WireEvent::new(None, data))
                .unwrap_err();
            assert!(matches!(err, TurnError::Reported { .. }));
            assert_eq!(err.kind(), kind, "{data}");
        }
        let err = OllamaDecoder::default()
            .decode(&WireEvent::new(
                None,
                r#"{"error":"model 'qwen9' not found"}"#,
            ))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "The provider reported an error: model 'qwen9' not found"
        );
    }

    #[test]
    fn a_realistic_ndjson_stream_decodes_to_its_texts_and_usage() {
        // Shaped like `ollama` 0.11 streaming qwen3 with `"think": true`.
        let stream = r#"{"model":"qwen3:8b","created_at":"2025-08-05T09:14:02.118Z","message":{"role":"assistant","content":"","thinking":"Okay"},"done":false}
{"model":"qwen3:8b","created_at":"2025-08-05T09:14:02.135Z","message":{"role":"assistant","content":"","thinking":", the user asks"},"done":false}
{"model":"qwen3:8b","created_at":"2025-08-05T09:14:02.151Z","message":{"role":"assistant","content":"","thinking":" for 17 × 3.\n\n"},"done":false}
{"model":"qwen3:8b","created_at":"2025-08-05T09:14:02.168Z","message":{"role":"assistant","content":"","thinking":"17 × 3 = 51."},"done":false}
{"model":"qwen3:8b","created_at":"2025-08-05T09:14:02.185Z","message":{"role":"assistant","content":"17 × 3"},"done":false}
{"model":"qwen3:8b","created_at":"2025-08-05T09:14:02.201Z","message":{"role":"assistant","content":" = **51**"},"done":false}

{"model":"qwen3:8b","created_at":"2025-08-05T09:14:02.218Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":1846027083,"load_duration":30458250,"prompt_eval_count":18,"prompt_eval_duration":101546084,"eval_count":143,"eval_duration":1713181625}
"#;
        let lines = stream.lines().map(|line| (None, line));
        let decoded = decode_events(&mut OllamaDecoder::default(), lines);
        assert_eq!(
            texts(&decoded),
            (
                "Okay, the user asks for 17 × 3.\n\n17 × 3 = 51.".to_owned(),
                "17 × 3 = **51**".to_owned()
            )
        );
        assert_eq!(blocks(&decoded), 1);
        assert_eq!(
            &decoded[decoded.len() - 2..],
            &[
                Delta::Usage(Usage {
                    input_tokens: Some(18),
                    output_tokens: Some(143),
                    reasoning_tokens: None
                }),
                Delta::Finish(Some("stop".into()))
            ]
        );
    }
}
