//! Writes Anthropic streams for the mock upstream: the reverse of
//! `providers::anthropic`'s decoder, so what the mock sends decodes back to the
//! script's deltas.

use serde_json::{json, Value};

use super::Encoder;
use crate::server::providers::delta::Delta;
use crate::server::providers::framing::WireEvent;
use crate::turn::Usage;

/// The kind of content block being written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Thinking,
    /// `redacted_thinking`: started when the hidden reasoning starts, stopped
    /// when it ends.
    Redacted,
    Text,
    ToolUse,
}

/// Writes Messages events (mock upstream): one message, blocks indexed in order.
pub struct AnthropicEncoder {
    model: String,
    /// Index of the next content block.
    next_index: u64,
    open: Option<Block>,
    usage: Option<Usage>,
    finish: Option<String>,
    /// The open thinking block's text, signed when it closes.
    thinking: String,
    /// The request's prefix digest, for a model that binds its thinking
    /// blocks to the conversation before them (`bound_to`).
    prefix: Option<String>,
}

/// The mock's signature of a thinking block: a hash of its text, so the
/// rules can tell a block sent back changed from one sent back whole (the
/// real signature is opaque; only its binding to the text matters here).
pub fn mock_signature(thinking: &str) -> String {
    // FNV-1a: stable across runs and builds, unlike std's hasher seed policy.
    let hash = thinking.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("EqQBmockSig{hash:016x}")
}

/// The signature of a block bound to the prefix with digest `prefix`
/// (preserved thinking): the text's signature, then the prefix's.
pub fn bound_signature(thinking: &str, prefix: &str) -> String {
    format!("{}.p{prefix}", mock_signature(thinking))
}

impl AnthropicEncoder {
    /// Signs this message's thinking blocks as bound to the request's
    /// prefix (digest `prefix`).
    pub fn bound_to(mut self, prefix: String) -> Self {
        self.prefix = Some(prefix);
        self
    }

    /// An encoder for one message of `model`.
    pub fn new(model: &str) -> Self {
        Self {
            model: model.to_owned(),
            next_index: 0,
            open: None,
            usage: None,
            finish: None,
            thinking: String::new(),
            prefix: None,
        }
    }

    /// Opens a block of `kind` unless one is already open; closes another kind.
    fn ensure_open(&mut self, kind: Block, frames: &mut Vec<WireEvent>) -> u64 {
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
            // Opened by `start_tool_use` with its id and name.
            Block::ToolUse => return index,
        };
        frames.push(block_start(index, block));
        index
    }

    /// Ends the open block; a thinking block gets its signature first, as the API does.
    fn close_block(&mut self, frames: &mut Vec<WireEvent>) {
        let Some(kind) = self.open.take() else {
            return;
        };
        let index = self.next_index.saturating_sub(1);
        if kind == Block::Thinking {
            let text = std::mem::take(&mut self.thinking);
            let signature = match &self.prefix {
                Some(prefix) => bound_signature(&text, prefix),
                None => mock_signature(&text),
            };
            frames.push(block_delta(
                index,
                json!({"type": "signature_delta", "signature": signature}),
            ));
        }
        frames.push(WireEvent::named(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}).to_string(),
        ));
    }

    /// Opens a `tool_use` block: its input streams as `input_json_delta`.
    fn start_tool_use(&mut self, id: &str, name: &str, frames: &mut Vec<WireEvent>) {
        self.close_block(frames);
        let index = self.next_index;
        self.next_index += 1;
        self.open = Some(Block::ToolUse);
        frames.push(block_start(
            index,
            json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
        ));
    }

    fn input_json(&mut self, text: &str, frames: &mut Vec<WireEvent>) {
        if self.open == Some(Block::ToolUse) {
            let index = self.next_index.saturating_sub(1);
            frames.push(block_delta(
                index,
                json!({"type": "input_json_delta", "partial_json": text}),
            ));
        }
    }
}

fn block_start(index: u64, block: Value) -> WireEvent {
    WireEvent::named(
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": block}).to_string(),
    )
}

fn block_delta(index: u64, delta: Value) -> WireEvent {
    WireEvent::named(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": index, "delta": delta}).to_string(),
    )
}

impl Encoder for AnthropicEncoder {
    fn start(&mut self) -> Vec<WireEvent> {
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
            WireEvent::named("message_start", start.to_string()),
            WireEvent::named("ping", json!({"type": "ping"}).to_string()),
        ]
    }

    fn step(&mut self, deltas: &[Delta]) -> Vec<WireEvent> {
        let mut frames = Vec::new();
        for delta in deltas {
            match delta {
                Delta::Reasoning(text) if !text.is_empty() => {
                    let index = self.ensure_open(Block::Thinking, &mut frames);
                    self.thinking.push_str(text);
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
                Delta::ToolCallStart { id, name } => self.start_tool_use(id, name, &mut frames),
                Delta::ToolCallArguments { text, .. } => self.input_json(text, &mut frames),
                Delta::ToolCallWhole { arguments, .. } => {
                    self.input_json(&arguments.to_string(), &mut frames);
                }
                // The provider's own state is what the stream itself carries.
                Delta::Continuity(_) => {}
                // A server-side fallback's hand-over block.
                Delta::ModelSwitched(to) => {
                    self.close_block(&mut frames);
                    let index = self.next_index;
                    self.next_index += 1;
                    frames.push(block_start(
                        index,
                        json!({"type": "fallback", "from": {"model": self.model}, "to": {"model": to}, "trigger": {"type": "refusal"}}),
                    ));
                    frames.push(WireEvent::named(
                        "content_block_stop",
                        json!({"type": "content_block_stop", "index": index}).to_string(),
                    ));
                }
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

    fn finish(&mut self) -> Vec<WireEvent> {
        let mut frames = Vec::new();
        self.close_block(&mut frames);
        let stop_reason = match self.finish.as_deref() {
            None | Some("stop") => "end_turn",
            Some("length") => "max_tokens",
            Some("tool_calls") => "tool_use",
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
        frames.push(WireEvent::named("message_delta", delta.to_string()));
        frames.push(WireEvent::named(
            "message_stop",
            json!({"type": "message_stop"}).to_string(),
        ));
        frames
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::mock::encoders::test_support::*;
    use crate::server::providers::anthropic::AnthropicDecoder;
    use crate::server::providers::test_support::*;
    use crate::server::providers::wire::Decoder;

    #[test]
    fn the_mock_writes_hidden_reasoning_with_its_start_and_end_apart() {
        let steps = hidden_reasoning_events(
            &mut AnthropicEncoder::new("mock-claude"),
            &mut AnthropicDecoder::default(),
        );
        assert_hidden_reasoning_timed_from_its_first_sign(&steps);
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
            .flat_map(|f| decoder.decode(f).unwrap())
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
}
