//! Writes Ollama streams for the mock upstream: the reverse of
//! `providers::ollama`'s decoder, so what the mock sends decodes back to the
//! script's deltas.

use serde_json::{json, Value};

use super::Encoder;
use crate::server::providers::delta::Delta;
use crate::server::providers::framing::WireEvent;
use crate::turn::Usage;

/// Writes Ollama NDJSON lines (mock upstream): one line per reasoning or answer
/// delta, then the `done` line. Boundaries and opaque reasoning have no Ollama
/// form and are dropped.
pub struct OllamaEncoder {
    model: String,
    usage: Option<Usage>,
    finish: Option<String>,
    /// Calls of this response: name and arguments text, sent whole.
    calls: Vec<(String, String)>,
}

impl OllamaEncoder {
    /// An encoder for one response of `model`.
    pub fn new(model: &str) -> Self {
        Self {
            model: model.to_owned(),
            usage: None,
            finish: None,
            calls: Vec::new(),
        }
    }

    fn line(&self, message: Value) -> WireEvent {
        WireEvent::data(
            json!({
                "model": self.model,
                "created_at": "2025-08-05T12:00:00.000000Z",
                "message": message,
                "done": false,
            })
            .to_string(),
        )
    }
}

impl Encoder for OllamaEncoder {
    fn start(&mut self) -> Vec<WireEvent> {
        Vec::new()
    }

    fn step(&mut self, deltas: &[Delta]) -> Vec<WireEvent> {
        let mut frames = Vec::new();
        for delta in deltas {
            match delta {
                Delta::Reasoning(text) if !text.is_empty() => frames
                    .push(self.line(json!({"role": "assistant", "content": "", "thinking": text}))),
                Delta::Answer(text) if !text.is_empty() => {
                    frames.push(self.line(json!({"role": "assistant", "content": text})));
                }
                call if super::gather_call(&mut self.calls, call) => {}
                // Both belong to the `done` line.
                Delta::Usage(usage) => self.usage = Some(*usage),
                Delta::Finish(reason) => self.finish = reason.clone(),
                _ => {}
            }
        }
        frames
    }

    fn finish(&mut self) -> Vec<WireEvent> {
        let mut frames = Vec::new();
        // Ollama streams calls whole, all of a response in one line, with
        // no id and the arguments as an object.
        if !self.calls.is_empty() {
            let calls: Vec<Value> = self
                .calls
                .drain(..)
                .enumerate()
                .map(|(index, (name, text))| {
                    let arguments: Value =
                        serde_json::from_str(&text).unwrap_or_else(|_| json!({}));
                    json!({"function": {"index": index, "name": name, "arguments": arguments}})
                })
                .collect();
            frames
                .push(self.line(json!({"role": "assistant", "content": "", "tool_calls": calls})));
        }
        let mut done = json!({
            "model": self.model,
            "created_at": "2025-08-05T12:00:01.000000Z",
            "message": {"role": "assistant", "content": ""},
            "done": true,
            // Ollama ends a response of calls with `stop` too.
            "done_reason": match self.finish.as_deref() {
                None | Some("tool_calls") => "stop",
                Some(reason) => reason,
            },
            "total_duration": 1_204_000_000u64,
            "load_duration": 21_000_000u64,
        });
        if let Some(usage) = self.usage {
            if let Some(input) = usage.input_tokens {
                done["prompt_eval_count"] = json!(input);
                done["prompt_eval_duration"] = json!(38_000_000u64);
            }
            if let Some(output) = usage.output_tokens {
                done["eval_count"] = json!(output);
                done["eval_duration"] = json!(1_140_000_000u64);
            }
        }
        frames.push(WireEvent::data(done.to_string()));
        frames
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::providers::ollama::OllamaDecoder;
    use crate::server::providers::test_support::*;

    fn deltas(data: &str) -> Vec<Delta> {
        decode_one::<OllamaDecoder>(data)
    }

    #[test]
    fn encoder_output_decodes_to_the_same_text_usage_and_finish() {
        let usage = Usage {
            input_tokens: Some(26),
            output_tokens: Some(290),
            reasoning_tokens: None,
        };
        let script = vec![
            r("Okay, the user asks "),
            r("why."),
            Delta::ReasoningBoundary,
            r(" Then again."),
            Delta::OpaqueReasoning,
            a("Because "),
            a("physics."),
            Delta::Usage(usage),
            Delta::Finish(Some("stop".into())),
        ];
        let mut encoder = OllamaEncoder::new("qwen3:8b");
        let mut frames = encoder.start();
        frames.extend(encoder.step(&script[..4]));
        frames.extend(encoder.step(&script[4..]));
        frames.extend(encoder.finish());
        assert!(frames
            .iter()
            .all(|f| f.event.is_none() && !f.data.contains('\n')));
        let decoded: Vec<Delta> = frames.iter().flat_map(|f| deltas(&f.data)).collect();
        assert_eq!(
            texts(&decoded),
            (
                "Okay, the user asks why. Then again.".to_owned(),
                "Because physics.".to_owned()
            )
        );
        // Ollama has no block boundaries: the reasoning is one block.
        assert_eq!(blocks(&decoded), 1);
        assert_eq!(
            &decoded[decoded.len() - 2..],
            &[Delta::Usage(usage), Delta::Finish(Some("stop".into()))]
        );
    }
}
