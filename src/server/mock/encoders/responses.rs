//! Writes Responses streams for the mock upstream: the reverse of
//! `providers::responses`'s decoder, so what the mock sends decodes back to the
//! script's deltas.

use serde_json::{json, Value};

use super::Encoder;
use crate::server::providers::delta::Delta;
use crate::server::providers::framing::WireEvent;
use crate::turn::Usage;

/// The mock's stand-in for a reasoning item's encrypted content.
const ENCRYPTED_REASONING: &str = "gAAAAABmockEncryptedReasoning==";

/// The output item being written.
enum OpenItem {
    /// A reasoning item: the text of each summary part, the last one open or
    /// not; `encrypted` when its reasoning is hidden (no summary will come).
    Reasoning {
        id: String,
        parts: Vec<String>,
        part_open: bool,
        encrypted: bool,
    },
    Message {
        id: String,
        text: String,
    },
    FunctionCall {
        id: String,
        call_id: String,
        name: String,
        arguments: String,
    },
}

/// The id the mock gives a function call made after reasoning item
/// `reasoning`: it names that item, so the rules (which keep no state) can
/// tell which reasoning item the call needs back, as the API does.
pub fn call_item_id(index: usize, reasoning: Option<&str>) -> String {
    match reasoning {
        Some(rs) => format!("fc_mock{index:04}_for_{rs}"),
        None => format!("fc_mock{index:04}"),
    }
}

/// Writes Responses events (mock upstream): one response, items in order.
pub struct ResponsesEncoder {
    model: String,
    response_id: String,
    sequence: u64,
    /// Finished output items, for `response.completed`.
    output: Vec<Value>,
    open: Option<OpenItem>,
    usage: Option<Usage>,
    finish: Option<String>,
    /// The id of this response's latest reasoning item.
    last_reasoning: Option<String>,
}

impl ResponsesEncoder {
    /// An encoder for one response of `model`.
    pub fn new(model: &str) -> Self {
        Self {
            model: model.to_owned(),
            response_id: "resp_mock0123456789abcdef".into(),
            sequence: 0,
            output: Vec::new(),
            open: None,
            usage: None,
            finish: None,
            last_reasoning: None,
        }
    }

    /// A function call item: `added` now, its arguments as deltas, `done`
    /// when the next item starts or the response ends.
    fn function_call(&mut self, call_id: &str, name: &str, frames: &mut Vec<WireEvent>) {
        self.close_item(frames);
        let index = self.output_index();
        let id = call_item_id(index, self.last_reasoning.as_deref());
        let item = json!({"id": id, "type": "function_call", "status": "in_progress", "call_id": call_id, "name": name, "arguments": ""});
        let added =
            json!({"type": "response.output_item.added", "output_index": index, "item": item});
        frames.push(self.frame(added));
        self.open = Some(OpenItem::FunctionCall {
            id,
            call_id: call_id.to_owned(),
            name: name.to_owned(),
            arguments: String::new(),
        });
    }

    fn call_arguments(&mut self, text: &str, frames: &mut Vec<WireEvent>) {
        let index = self.output_index();
        let Some(OpenItem::FunctionCall { id, arguments, .. }) = &mut self.open else {
            return;
        };
        arguments.push_str(text);
        let delta = json!({"type": "response.function_call_arguments.delta", "item_id": id, "output_index": index, "delta": text});
        frames.push(self.frame(delta));
    }

    /// One event; the sequence number is stamped here so it always increases.
    fn frame(&mut self, mut event: Value) -> WireEvent {
        event["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        WireEvent::data(event.to_string())
    }

    fn response(&self, status: &str) -> Value {
        json!({
            "id": self.response_id,
            "object": "response",
            "created_at": 1_765_552_659u64,
            "status": status,
            "error": null,
            "incomplete_details": null,
            "model": self.model,
            "output": self.output,
            "reasoning": {"effort": "medium", "summary": "auto"},
            "usage": null,
        })
    }

    fn output_index(&self) -> usize {
        self.output.len()
    }

    /// Opens a new reasoning item (`output_item.added`), closing the open one.
    fn open_reasoning_item(&mut self, encrypted: bool, frames: &mut Vec<WireEvent>) {
        self.close_item(frames);
        let index = self.output_index();
        let id = format!("rs_mock{index:04}");
        self.last_reasoning = Some(id.clone());
        let mut item = json!({"id": id, "type": "reasoning", "summary": []});
        if encrypted {
            // As the API sends it with `include: ["reasoning.encrypted_content"]`.
            item["encrypted_content"] = json!(ENCRYPTED_REASONING);
        }
        let added =
            json!({"type": "response.output_item.added", "output_index": index, "item": item});
        frames.push(self.frame(added));
        self.open = Some(OpenItem::Reasoning {
            id,
            parts: Vec::new(),
            part_open: false,
            encrypted,
        });
    }

    fn reasoning(&mut self, text: &str, frames: &mut Vec<WireEvent>) {
        if !matches!(
            self.open,
            Some(OpenItem::Reasoning {
                encrypted: false,
                ..
            })
        ) {
            self.open_reasoning_item(false, frames);
        }
        let index = self.output_index();
        let Some(OpenItem::Reasoning {
            id,
            parts,
            part_open,
            ..
        }) = &mut self.open
        else {
            return;
        };
        let id = id.clone();
        let fresh = !*part_open;
        if fresh {
            *part_open = true;
            parts.push(String::new());
        }
        let summary_index = parts.len().saturating_sub(1);
        if let Some(part) = parts.last_mut() {
            part.push_str(text);
        }
        if fresh {
            let added = json!({
                "type": "response.reasoning_summary_part.added",
                "item_id": id,
                "output_index": index,
                "summary_index": summary_index,
                "part": {"type": "summary_text", "text": ""},
            });
            frames.push(self.frame(added));
        }
        let delta = json!({
            "type": "response.reasoning_summary_text.delta",
            "item_id": id,
            "output_index": index,
            "summary_index": summary_index,
            "delta": text,
        });
        frames.push(self.frame(delta));
    }

    /// A boundary: ends the open summary part (the next text opens a new part
    /// of the same item), or, with no part open, the reasoning item itself.
    fn boundary(&mut self, frames: &mut Vec<WireEvent>) {
        match &self.open {
            Some(OpenItem::Reasoning {
                part_open: true, ..
            }) => self.close_part(frames),
            Some(OpenItem::Reasoning { .. }) => self.close_item(frames),
            _ => {}
        }
    }

    /// Ends the open summary part: the next text opens a new part.
    fn close_part(&mut self, frames: &mut Vec<WireEvent>) {
        let index = self.output_index();
        let Some(OpenItem::Reasoning {
            id,
            parts,
            part_open,
            ..
        }) = &mut self.open
        else {
            return;
        };
        if !*part_open {
            return;
        }
        *part_open = false;
        let (id, summary_index) = (id.clone(), parts.len().saturating_sub(1));
        let text = parts.last().cloned().unwrap_or_default();
        let done = json!({
            "type": "response.reasoning_summary_text.done",
            "item_id": id,
            "output_index": index,
            "summary_index": summary_index,
            "text": text,
        });
        let part_done = json!({
            "type": "response.reasoning_summary_part.done",
            "item_id": id,
            "output_index": index,
            "summary_index": summary_index,
            "part": {"type": "summary_text", "text": text},
        });
        frames.push(self.frame(done));
        frames.push(self.frame(part_done));
    }

    fn answer(&mut self, text: &str, frames: &mut Vec<WireEvent>) {
        if matches!(
            self.open,
            Some(OpenItem::Reasoning { .. } | OpenItem::FunctionCall { .. })
        ) {
            self.close_item(frames);
        }
        let index = self.output_index();
        if self.open.is_none() {
            let id = format!("msg_mock{index:04}");
            let added = json!({
                "type": "response.output_item.added",
                "output_index": index,
                "item": {"id": id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"},
            });
            let part = json!({
                "type": "response.content_part.added",
                "item_id": id,
                "output_index": index,
                "content_index": 0,
                "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": ""},
            });
            frames.push(self.frame(added));
            frames.push(self.frame(part));
            self.open = Some(OpenItem::Message {
                id,
                text: String::new(),
            });
        }
        let Some(OpenItem::Message { id, text: so_far }) = &mut self.open else {
            return;
        };
        so_far.push_str(text);
        let delta = json!({
            "type": "response.output_text.delta",
            "item_id": id,
            "output_index": index,
            "content_index": 0,
            "delta": text,
            "logprobs": [],
        });
        frames.push(self.frame(delta));
    }

    /// A reasoning item with no summary, what a model reasoning privately
    /// sends: `added` now, `done` (without text) when the item ends. A just
    /// started item with no text yet becomes that item.
    fn opaque(&mut self, frames: &mut Vec<WireEvent>) {
        if let Some(OpenItem::Reasoning {
            parts, encrypted, ..
        }) = &mut self.open
        {
            if parts.is_empty() {
                *encrypted = true;
                return;
            }
        }
        self.open_reasoning_item(true, frames);
    }

    fn close_item(&mut self, frames: &mut Vec<WireEvent>) {
        self.close_part(frames);
        let index = self.output_index();
        let item = match self.open.take() {
            None => return,
            Some(OpenItem::Reasoning {
                id,
                parts,
                encrypted,
                ..
            }) => {
                let summary: Vec<Value> = parts
                    .iter()
                    .map(|text| json!({"type": "summary_text", "text": text}))
                    .collect();
                // As the API sends it with `include: ["reasoning.encrypted_content"]`.
                let sealed = if encrypted {
                    ENCRYPTED_REASONING.to_owned()
                } else {
                    format!("gAAAA{}", super::anthropic::mock_signature(&parts.concat()))
                };
                json!({"id": id, "type": "reasoning", "summary": summary, "encrypted_content": sealed})
            }
            Some(OpenItem::Message { id, text }) => {
                let part =
                    json!({"type": "output_text", "annotations": [], "logprobs": [], "text": text});
                let text_done = json!({
                    "type": "response.output_text.done",
                    "item_id": id,
                    "output_index": index,
                    "content_index": 0,
                    "text": text,
                    "logprobs": [],
                });
                let part_done = json!({
                    "type": "response.content_part.done",
                    "item_id": id,
                    "output_index": index,
                    "content_index": 0,
                    "part": part,
                });
                frames.push(self.frame(text_done));
                frames.push(self.frame(part_done));
                json!({"id": id, "type": "message", "status": "completed", "content": [part], "role": "assistant"})
            }
            Some(OpenItem::FunctionCall {
                id,
                call_id,
                name,
                arguments,
            }) => {
                let done = json!({"type": "response.function_call_arguments.done", "item_id": id, "output_index": index, "arguments": arguments});
                frames.push(self.frame(done));
                json!({"id": id, "type": "function_call", "status": "completed", "call_id": call_id, "name": name, "arguments": arguments})
            }
        };
        let done =
            json!({"type": "response.output_item.done", "output_index": index, "item": item});
        frames.push(self.frame(done));
        self.output.push(item);
    }
}

impl Encoder for ResponsesEncoder {
    fn start(&mut self) -> Vec<WireEvent> {
        let created = json!({"type": "response.created", "response": self.response("in_progress")});
        let progress =
            json!({"type": "response.in_progress", "response": self.response("in_progress")});
        vec![self.frame(created), self.frame(progress)]
    }

    fn step(&mut self, deltas: &[Delta]) -> Vec<WireEvent> {
        let mut frames = Vec::new();
        for delta in deltas {
            match delta {
                Delta::Reasoning(text) if !text.is_empty() => self.reasoning(text, &mut frames),
                Delta::Answer(text) if !text.is_empty() => self.answer(text, &mut frames),
                Delta::Reasoning(_) | Delta::Answer(_) => {}
                Delta::ReasoningStarted => self.open_reasoning_item(false, &mut frames),
                Delta::ReasoningBoundary => self.boundary(&mut frames),
                Delta::OpaqueReasoning => self.opaque(&mut frames),
                // Both belong to the closing `response.completed` event.
                Delta::Usage(usage) => self.usage = Some(*usage),
                Delta::Finish(reason) => self.finish = reason.clone(),
                Delta::ToolCallStart { id, name } => self.function_call(id, name, &mut frames),
                Delta::ToolCallArguments { text, .. } => self.call_arguments(text, &mut frames),
                Delta::ToolCallWhole { arguments, .. } => {
                    self.call_arguments(&arguments.to_string(), &mut frames);
                }
                // The provider's own state is what the stream itself carries.
                Delta::Continuity(_) => {}
                // Only Anthropic's streams name a fallback model.
                Delta::ModelSwitched(_) => {}
            }
        }
        frames
    }

    fn finish(&mut self) -> Vec<WireEvent> {
        let mut frames = Vec::new();
        self.close_item(&mut frames);
        // A token limit or a filter ends a response as `incomplete`, with its reason.
        let incomplete = match self.finish.as_deref() {
            Some("length") => Some("max_output_tokens"),
            Some("content_filter") => Some("content_filter"),
            _ => None,
        };
        let (kind, status) = match incomplete {
            Some(_) => ("response.incomplete", "incomplete"),
            None => ("response.completed", "completed"),
        };
        let mut response = self.response(status);
        if let Some(reason) = incomplete {
            response["incomplete_details"] = json!({"reason": reason});
        }
        if let Some(usage) = self.usage {
            let total = usage.input_tokens.unwrap_or(0) + usage.output_tokens.unwrap_or(0);
            response["usage"] = json!({
                "input_tokens": usage.input_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": usage.output_tokens,
                "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
                "total_tokens": total,
            });
        }
        frames.push(self.frame(json!({"type": kind, "response": response})));
        frames
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::mock::encoders::test_support::*;
    use crate::server::providers::responses::ResponsesDecoder;
    use crate::server::providers::test_support::*;

    fn deltas(events: &[&str]) -> Vec<Delta> {
        decode_events(
            &mut ResponsesDecoder::default(),
            events.iter().map(|data| (None, *data)),
        )
    }

    #[test]
    fn the_mock_writes_hidden_reasoning_with_its_start_and_end_apart() {
        let steps = hidden_reasoning_events(
            &mut ResponsesEncoder::new("mock-model"),
            &mut ResponsesDecoder::default(),
        );
        assert_hidden_reasoning_timed_from_its_first_sign(&steps);
    }

    #[test]
    fn encoder_output_decodes_to_the_same_text_blocks_usage_and_finish() {
        let usage = Usage {
            input_tokens: Some(12),
            output_tokens: Some(34),
            reasoning_tokens: Some(20),
        };
        let script = vec![
            r("**Plan**\n\nFirst "),
            r("part."),
            Delta::ReasoningBoundary,
            r("Second part."),
            Delta::OpaqueReasoning,
            a("The answer "),
            a("is 4."),
            Delta::Usage(usage),
            Delta::Finish(Some("stop".into())),
        ];
        let mut encoder = ResponsesEncoder::new("o4-mini");
        let mut frames = encoder.start();
        frames.extend(encoder.step(&script[..4]));
        frames.extend(encoder.step(&script[4..]));
        frames.extend(encoder.finish());
        let sequence: Vec<u64> = frames
            .iter()
            .map(|f| {
                serde_json::from_str::<Value>(&f.data).unwrap()["sequence_number"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(sequence, (0..frames.len() as u64).collect::<Vec<_>>());
        let data: Vec<&str> = frames.iter().map(|f| f.data.as_str()).collect();
        let decoded = deltas(&data);
        assert_eq!(
            texts(&decoded),
            (
                "**Plan**\n\nFirst part.Second part.".to_owned(),
                "The answer is 4.".to_owned()
            )
        );
        assert_eq!(blocks(&decoded), 3);
        assert!(decoded.contains(&Delta::OpaqueReasoning));
        assert!(decoded.contains(&Delta::Usage(usage)));
        assert_eq!(decoded.last(), Some(&Delta::Finish(Some("stop".into()))));

        let mut encoder = ResponsesEncoder::new("o4-mini");
        let mut frames = encoder.start();
        frames.extend(encoder.step(&[a("cut"), Delta::Finish(Some("length".into()))]));
        frames.extend(encoder.finish());
        let data: Vec<&str> = frames.iter().map(|f| f.data.as_str()).collect();
        assert_eq!(
            deltas(&data),
            vec![a("cut"), Delta::Finish(Some("length".into()))]
        );
    }
}
