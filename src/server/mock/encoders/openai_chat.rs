//! Writes Chat completions streams for the mock upstream: the reverse of
//! `providers::openai_chat`'s decoder, so what the mock sends decodes back to the
//! script's deltas.

use serde_json::{json, Value};

use super::Encoder;
use crate::server::providers::delta::Delta;
use crate::server::providers::framing::WireEvent;

/// Writes chat-completion chunks (mock upstream).
pub struct ChatEncoder {
    model: String,
    /// The completion id every chunk carries.
    id: String,
    /// The ids of the response's tool calls, by their `index`.
    calls: Vec<String>,
    /// OpenRouter relaying a Gemini model: reasoning also as
    /// `reasoning_details`, sealed by an encrypted item before the calls.
    relays_details: bool,
    /// The reasoning so far (what the sealed item signs).
    reasoning: String,
}

/// Whether the mock plays OpenRouter relaying a Gemini model, which sends
/// `reasoning_details` (openrouter.ai/docs, reasoning-tokens).
pub fn relays_reasoning_details(model: &str) -> bool {
    model.starts_with("google/gemini-3")
}

impl ChatEncoder {
    pub fn new(model: &str) -> Self {
        Self::with_id(model, "chatcmpl-mock")
    }

    /// An encoder whose chunks carry `id` (llama.cpp's control names it).
    pub fn with_id(model: &str, id: &str) -> Self {
        Self {
            model: model.to_owned(),
            id: id.to_owned(),
            calls: Vec::new(),
            relays_details: relays_reasoning_details(model),
            reasoning: String::new(),
        }
    }

    fn chunk(&self, delta: Value, finish_reason: Option<&str>) -> WireEvent {
        WireEvent::data(
            json!({
                "id": self.id,
                "object": "chat.completion.chunk",
                "model": self.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
            })
            .to_string(),
        )
    }
    /// OpenRouter relaying Gemini sends the thought signature of the
    /// reasoning so far as an encrypted detail, before the first call.
    fn seal_before(&mut self, delta: &Delta) -> Option<WireEvent> {
        if !matches!(delta, Delta::ToolCallStart { .. })
            || !self.relays_details
            || self.reasoning.is_empty()
        {
            return None;
        }
        let sealed = json!({"reasoning_details": [{
            "type": "reasoning.encrypted",
            "data": super::anthropic::mock_signature(&std::mem::take(&mut self.reasoning)),
            "format": "google-gemini-v1",
            "index": 1,
        }]});
        Some(self.chunk(sealed, None))
    }

    /// The chunk one scripted delta becomes, if any.
    fn frame_of(&mut self, delta: &Delta) -> Option<WireEvent> {
        match delta {
            Delta::ToolCallStart { id, name } => {
                Some(self.call_chunk(id, true, json!({"name": name, "arguments": ""})))
            }
            Delta::ToolCallArguments { id, text } => {
                Some(self.call_chunk(id, false, json!({"arguments": text})))
            }
            Delta::ToolCallWhole { id, arguments } => {
                Some(self.call_chunk(id, false, json!({"arguments": arguments.to_string()})))
            }
            // Chat completions carry no opaque state of their own.
            Delta::Continuity(_) => None,
            // Only Anthropic's streams name a fallback model.
            Delta::ModelSwitched(_) => None,
            Delta::Reasoning(text) if self.relays_details => {
                self.reasoning.push_str(text);
                Some(self.chunk(json!({"reasoning": text, "reasoning_details": [{
                    "type": "reasoning.text", "text": text, "format": "google-gemini-v1", "index": 0,
                }]}), None))
            }
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
            Delta::Finish(reason) => {
                Some(self.chunk(json!({}), reason.as_deref().or(Some("stop"))))
            }
            Delta::Usage(usage) => Some(WireEvent::data(
                json!({
                    "id": self.id,
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
        }
    }

    /// A `tool_calls` delta for call `id` (a new index for a new id).
    fn call_chunk(&mut self, id: &str, first: bool, function: Value) -> WireEvent {
        // Each call has its own `index`, even one whose id repeats an earlier
        // call's (as a broken gateway sends them); its fragments follow it.
        let latest = self.calls.iter().rposition(|c| c == id);
        let index = match latest {
            Some(index) if !first => index,
            _ => {
                self.calls.push(id.to_owned());
                self.calls.len() - 1
            }
        };
        // As the providers stream a call: its id, type and name in the first
        // fragment only, then fragments of arguments by `index`.
        let call = if first {
            json!({"index": index, "id": id, "type": "function", "function": function})
        } else {
            json!({"index": index, "function": function})
        };
        self.chunk(json!({"tool_calls": [call]}), None)
    }
}

impl Encoder for ChatEncoder {
    fn start(&mut self) -> Vec<WireEvent> {
        vec![self.chunk(json!({"role": "assistant", "content": ""}), None)]
    }

    fn step(&mut self, deltas: &[Delta]) -> Vec<WireEvent> {
        let mut frames = Vec::new();
        for delta in deltas {
            frames.extend(self.seal_before(delta));
            frames.extend(self.frame_of(delta));
        }
        frames
    }

    fn finish(&mut self) -> Vec<WireEvent> {
        vec![WireEvent::data("[DONE]")]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::providers::framing::WireEvent;
    use crate::server::providers::openai_chat::ChatDecoder;
    use crate::server::providers::wire::Decoder;
    use crate::turn::Usage;

    #[test]
    fn the_mock_writes_hidden_reasoning_with_its_start_and_end_apart() {
        let steps = crate::server::mock::encoders::test_support::hidden_reasoning_events(
            &mut ChatEncoder::new("mock-model"),
            &mut ChatDecoder::default(),
        );
        crate::server::mock::encoders::test_support::assert_hidden_reasoning_timed_from_its_first_sign(
            &steps,
        );
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
        let mut decoder = ChatDecoder::default();
        let decoded: Vec<Delta> = frames
            .iter()
            .flat_map(|f| decoder.decode(&WireEvent::new(None, &f.data)).unwrap())
            .collect();
        assert_eq!(decoded, script);
    }
}
