//! Writes Gemini streams for the mock upstream: the reverse of
//! `providers::gemini`'s decoder, so what the mock sends decodes back to the
//! script's deltas.

use serde_json::{json, Value};

use super::Encoder;
use crate::server::providers::delta::Delta;
use crate::server::providers::framing::WireEvent;
use crate::turn::Usage;

/// Writes Gemini chunks (mock upstream): one chunk per scripted step, usage and
/// finish reason on a final chunk. Opaque reasoning is a thought part with only
/// a signature; boundaries have no Gemini form and are dropped.
pub struct GeminiEncoder {
    model: String,
    usage: Option<Usage>,
    finish: Option<String>,
    /// Calls of this response: name and arguments text, sent whole at the end.
    calls: Vec<(String, String)>,
}

/// The mock's thought signature of a call: a hash of its name and
/// arguments (the first call of a response carries one, as Gemini 3 does).
pub fn call_signature(name: &str, arguments: &Value) -> String {
    super::anthropic::mock_signature(&format!("{name}{arguments}"))
}

impl GeminiEncoder {
    /// An encoder for one response of `model`.
    pub fn new(model: &str) -> Self {
        Self {
            model: model.to_owned(),
            usage: None,
            finish: None,
            calls: Vec::new(),
        }
    }

    fn chunk(
        &self,
        parts: Vec<Value>,
        finish_reason: Option<&str>,
        usage: Option<Value>,
    ) -> WireEvent {
        let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
        if let Some(reason) = finish_reason {
            candidate["finishReason"] = json!(reason);
        }
        let mut chunk = json!({
            "candidates": [candidate],
            "modelVersion": self.model,
            "responseId": "mockGeminiResponse01",
        });
        if let Some(usage) = usage {
            chunk["usageMetadata"] = usage;
        }
        WireEvent::data(chunk.to_string())
    }
}

impl Encoder for GeminiEncoder {
    fn start(&mut self) -> Vec<WireEvent> {
        Vec::new()
    }

    fn step(&mut self, deltas: &[Delta]) -> Vec<WireEvent> {
        let mut parts = Vec::new();
        for delta in deltas {
            match delta {
                Delta::Reasoning(text) if !text.is_empty() => {
                    parts.push(json!({"text": text, "thought": true}));
                }
                Delta::Answer(text) if !text.is_empty() => parts.push(json!({"text": text})),
                Delta::OpaqueReasoning => parts.push(
                    json!({"thought": true, "thoughtSignature": "CiQBmockHiddenThoughtSignature=="}),
                ),
                call if super::gather_call(&mut self.calls, call) => {}
                // Both belong to the final chunk.
                Delta::Usage(usage) => self.usage = Some(*usage),
                Delta::Finish(reason) => self.finish = reason.clone(),
                _ => {}
            }
        }
        if parts.is_empty() {
            return Vec::new();
        }
        vec![self.chunk(parts, None, None)]
    }

    fn finish(&mut self) -> Vec<WireEvent> {
        let mut frames = Vec::new();
        // The Gemini API sends each call whole, without an id; parallel
        // calls share one chunk and only the first carries a signature.
        let parts: Vec<Value> = self
            .calls
            .drain(..)
            .enumerate()
            .map(|(at, (name, text))| {
                let arguments: Value = serde_json::from_str(&text).unwrap_or_else(|_| json!({}));
                let mut part = json!({"functionCall": {"name": name, "args": arguments}});
                if at == 0 {
                    part["thoughtSignature"] = json!(call_signature(&name, &arguments));
                }
                part
            })
            .collect();
        if !parts.is_empty() {
            frames.push(self.chunk(parts, None, None));
        }
        let reason = match self.finish.as_deref() {
            // Gemini ends a response of calls with STOP too.
            None | Some("stop" | "tool_calls") => "STOP".to_owned(),
            Some("length") => "MAX_TOKENS".to_owned(),
            Some(other) => other.to_ascii_uppercase(),
        };
        let usage = self.usage.map(|u| {
            let total = u.input_tokens.unwrap_or(0)
                + u.output_tokens.unwrap_or(0)
                + u.reasoning_tokens.unwrap_or(0);
            json!({
                "promptTokenCount": u.input_tokens,
                "candidatesTokenCount": u.output_tokens,
                "thoughtsTokenCount": u.reasoning_tokens,
                "totalTokenCount": total,
            })
        });
        // The real final chunk carries an empty text part with the thought signature.
        let last = json!({"text": "", "thoughtSignature": "CiQBmockThoughtSignature=="});
        frames.push(self.chunk(vec![last], Some(&reason), usage));
        frames
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::mock::encoders::test_support::*;
    use crate::server::providers::gemini::GeminiDecoder;
    use crate::server::providers::test_support::*;

    fn deltas(data: &str) -> Vec<Delta> {
        decode_one::<GeminiDecoder>(data)
    }

    #[test]
    fn the_mock_writes_hidden_reasoning_with_its_start_and_end_apart() {
        let steps = hidden_reasoning_events(
            &mut GeminiEncoder::new("gemini-2.5-pro"),
            &mut GeminiDecoder::default(),
        );
        assert_hidden_reasoning_timed_from_its_first_sign(&steps);
    }

    #[test]
    fn encoder_output_decodes_to_the_same_text_usage_and_finish() {
        let usage = Usage {
            input_tokens: Some(9),
            output_tokens: Some(29),
            reasoning_tokens: Some(256),
        };
        let script = vec![
            r("**Counting**\n\n"),
            r("s-t-r-a-w"),
            Delta::ReasoningBoundary,
            r("-b-e-r-r-y"),
            Delta::OpaqueReasoning,
            a("There are "),
            a("3."),
            Delta::Usage(usage),
            Delta::Finish(Some("length".into())),
        ];
        let mut encoder = GeminiEncoder::new("gemini-2.5-pro");
        let mut frames = encoder.start();
        frames.extend(encoder.step(&script[..2]));
        frames.extend(encoder.step(&script[2..6]));
        frames.extend(encoder.step(&script[6..]));
        frames.extend(encoder.finish());
        assert!(frames.iter().all(|f| f.event.is_none()));
        let decoded: Vec<Delta> = frames.iter().flat_map(|f| deltas(&f.data)).collect();
        assert_eq!(
            texts(&decoded),
            (
                "**Counting**\n\ns-t-r-a-w-b-e-r-r-y".to_owned(),
                "There are 3.".to_owned()
            )
        );
        // Gemini has no block boundaries: the reasoning is one block.
        assert_eq!(blocks(&decoded), 1);
        assert_eq!(
            &decoded[decoded.len() - 2..],
            &[Delta::Usage(usage), Delta::Finish(Some("length".into()))]
        );
    }
}
