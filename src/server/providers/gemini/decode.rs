//! Decoding Gemini streams into `Delta`s, one framed event at a time
//! (the mapping is described in the module above).

use serde::Deserialize;

use crate::server::providers::delta::Delta;
use crate::server::providers::framing::WireEvent;
use crate::server::providers::wire::{json_chunk, usable_items, Decoder, Loose};
use crate::turn::turn_error::{ProviderFault, TurnError};
use crate::turn::Usage;

/// One streamed chunk, only the fields we read.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Chunk {
    #[serde(default)]
    candidates: Vec<Candidate>,
    #[serde(default)]
    usage_metadata: Option<UsageMetadata>,
    /// Set (with no candidates) when the prompt itself was blocked.
    #[serde(default)]
    prompt_feedback: Option<PromptFeedback>,
    /// An error streamed instead of a chunk.
    #[serde(default)]
    error: Option<Loose<ApiError>>,
}

/// A streamed `error` object.
#[derive(Debug, Default, Deserialize)]
struct ApiError {
    #[serde(default)]
    code: Option<Loose<u64>>,
    #[serde(default)]
    status: Option<Loose<String>>,
    #[serde(default)]
    message: Option<Loose<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate {
    #[serde(default)]
    content: Option<Content>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Content {
    /// Read one by one (`usable_items`): a part of no usable shape is
    /// skipped, not the rest of the chunk.
    #[serde(default)]
    parts: Vec<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct Part {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thought: Option<bool>,
    #[serde(default, rename = "thoughtSignature")]
    thought_signature: Option<String>,
    #[serde(default, rename = "functionCall")]
    function_call: Option<FunctionCall>,
}

/// A call as Gemini sends it: whole, in one part (the Gemini API does not
/// stream arguments; tool-loops.md §1.4).
#[derive(Debug, Deserialize)]
struct FunctionCall {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    args: Option<serde_json::Value>,
    #[serde(default)]
    id: Option<String>,
}

/// The continuity key of a call's thought signature.
pub(crate) const SIGNATURE_KEY: &str = "gemini_signature";
/// Prefix of the ids Pensive gives calls Gemini sent without one (they are
/// not sent back: Gemini matches such results by name and order).
pub(crate) const MADE_UP_ID: &str = "gemini_call_";

/// Call ids for calls sent without one: unique in the process, so two
/// responses of one turn never share an id.
static NEXT_CALL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn made_up_id() -> String {
    let n = NEXT_CALL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{MADE_UP_ID}{n}")
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct UsageMetadata {
    #[serde(default)]
    prompt_token_count: Option<u64>,
    #[serde(default)]
    candidates_token_count: Option<u64>,
    #[serde(default)]
    thoughts_token_count: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback {
    #[serde(default)]
    block_reason: Option<String>,
}

impl Chunk {
    /// The chunk's deltas: reasoning parts, answer parts, then (final chunk
    /// only) usage and finish. `latest_usage` carries the counts between chunks.
    fn into_deltas(self, latest_usage: &mut Option<Usage>) -> Result<Vec<Delta>, TurnError> {
        if let Some(error) = self.error {
            return Err(stream_error(error.ok().unwrap_or_default()));
        }
        if let Some(reason) = self.prompt_feedback.and_then(|f| f.block_reason) {
            return Err(TurnError::Blocked { reason });
        }
        // Counts are cumulative in every chunk: keep the newest, report it once.
        if let Some(usage) = self.usage_metadata {
            *latest_usage = Some(Usage {
                input_tokens: usage.prompt_token_count,
                output_tokens: usage.candidates_token_count,
                reasoning_tokens: usage.thoughts_token_count,
            });
        }
        let mut deltas = Vec::new();
        let Some(candidate) = self.candidates.into_iter().next() else {
            return Ok(deltas);
        };
        let parts = candidate.content.map(|c| c.parts).unwrap_or_default();
        let (thoughts, answers): (Vec<Part>, Vec<Part>) =
            usable_items::<Part>(parts, "content part").partition(|p| p.thought.unwrap_or(false));
        // Reasoning before answer text within one chunk, as everywhere.
        for part in thoughts {
            match part.text.filter(|t| !t.is_empty()) {
                Some(text) => deltas.push(Delta::Reasoning(text)),
                // A thought the provider keeps to itself: it reasons, unseen.
                None if part.thought_signature.is_some() => deltas.push(Delta::OpaqueReasoning),
                None => {}
            }
        }
        for part in answers {
            if let Some(call) = part.function_call {
                let id = call
                    .id
                    .filter(|id| !id.is_empty())
                    .unwrap_or_else(made_up_id);
                // The signature goes back on this very part (for parallel
                // calls only the first carries one).
                if let Some(signature) = part.thought_signature {
                    deltas.push(Delta::Continuity(
                        serde_json::json!({ SIGNATURE_KEY: {"call": id, "signature": signature} }),
                    ));
                }
                deltas.push(Delta::ToolCallStart {
                    id: id.clone(),
                    name: call.name.unwrap_or_default(),
                });
                let arguments = call.args.unwrap_or_else(|| serde_json::json!({}));
                deltas.push(Delta::ToolCallWhole { id, arguments });
            } else if let Some(text) = part.text.filter(|t| !t.is_empty()) {
                deltas.push(Delta::Answer(text));
            }
        }
        if let Some(reason) = candidate.finish_reason {
            // Taken, not copied: a recording may hold another response after this.
            if let Some(usage) = latest_usage.take() {
                deltas.push(Delta::Usage(usage));
            }
            deltas.push(Delta::Finish(Some(finish_reason(&reason))));
        }
        Ok(deltas)
    }
}

/// Gemini's finish reasons in the shared vocabulary where one exists.
fn finish_reason(reason: &str) -> String {
    match reason {
        "STOP" => "stop".into(),
        "MAX_TOKENS" => "length".into(),
        other => other.to_ascii_lowercase(),
    }
}

/// A streamed `error` object (`code`, `message`, `status`), classified by status.
fn stream_error(error: ApiError) -> TurnError {
    let status = error.status.and_then(Loose::ok).unwrap_or_default();
    let code = error.code.and_then(Loose::ok).unwrap_or(0);
    let fault = match (status.as_str(), code) {
        ("RESOURCE_EXHAUSTED", _) | (_, 429) => ProviderFault::RateLimited,
        ("UNAUTHENTICATED", _) | (_, 401) => ProviderFault::KeyRejected,
        ("PERMISSION_DENIED", _) | (_, 403) => ProviderFault::AccessRefused,
        ("INVALID_ARGUMENT" | "FAILED_PRECONDITION" | "NOT_FOUND", _) | (_, 400 | 404) => {
            ProviderFault::RequestRejected
        }
        ("DEADLINE_EXCEEDED", _) | (_, 504) => ProviderFault::TimedOut,
        ("UNAVAILABLE", _) | (_, 503) => ProviderFault::Overloaded,
        _ => ProviderFault::Other,
    };
    let message = error.message.and_then(Loose::ok).unwrap_or_default();
    TurnError::reported(fault, &message)
}

/// Decodes recorded `streamGenerateContent?alt=sse` chunks.
#[derive(Debug, Default)]
pub(crate) struct GeminiDecoder {
    /// The newest usage counts, reported with the finish reason (the final
    /// chunk may leave them out when an earlier one had them).
    latest_usage: Option<Usage>,
}

impl Decoder for GeminiDecoder {
    fn decode(&mut self, event: &WireEvent) -> Result<Vec<Delta>, TurnError> {
        match json_chunk::<Chunk>(event)? {
            Some(chunk) => chunk.into_deltas(&mut self.latest_usage),
            None => Ok(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::providers::test_support::*;
    use crate::turn::{ErrorKind, TurnEvent};

    fn deltas(data: &str) -> Vec<Delta> {
        decode_one::<GeminiDecoder>(data)
    }

    #[test]
    fn thought_parts_are_reasoning_and_come_before_answer_parts() {
        assert_eq!(
            deltas(
                r#"{"candidates":[{"content":{"parts":[{"text":"4"},{"text":"hm","thought":true},{"text":"","thought":true},{"text":""},{"text":"!","thought":false}],"role":"model"},"index":0}]}"#
            ),
            vec![r("hm"), a("4"), a("!")]
        );
    }

    /// A thought part with only a signature is the first sign of hidden
    /// reasoning: its block opens there and is opaque; the answer closes it.
    #[test]
    fn a_signature_only_thought_opens_an_opaque_block_at_once() {
        let mut timed = Timed::new(GeminiDecoder::default());
        let mut at = |ms: u64, data: &str| timed.at(ms, None, data);
        assert_eq!(
            at(
                100,
                r#"{"candidates":[{"content":{"parts":[{"thought":true,"thoughtSignature":"CiQB"}],"role":"model"},"index":0}]}"#
            ),
            vec![TurnEvent::ThinkingStart]
        );
        assert_eq!(
            at(
                3100,
                r#"{"candidates":[{"content":{"parts":[{"text":"3"}],"role":"model"},"index":0}]}"#
            ),
            vec![
                TurnEvent::ThinkingEnd {
                    duration_ms: 3000,
                    opaque: true
                },
                TurnEvent::AnswerDelta { text: "3".into() }
            ]
        );
    }

    #[test]
    fn empty_parts_and_chunks_are_ignored() {
        assert!(deltas(
            r#"{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"Eo0H"}]}}]}"#
        )
        .is_empty());
        assert!(deltas(r#"{"candidates":[]}"#).is_empty());
        assert!(deltas(r#"{"candidates":[{"index":0}]}"#).is_empty());
        assert!(deltas("").is_empty());
    }

    #[test]
    fn a_part_of_no_usable_shape_is_skipped_not_the_chunk() {
        let got = deltas(
            r#"{"candidates":[{"content":{"parts":[{"text":7},{"functionCall":"broken"},{"text":"kept"}]}}]}"#,
        );
        assert_eq!(got, vec![a("kept")]);
    }

    /// Parallel calls: each whole, the first with its signature kept as
    /// continuity for that call; a call without an id gets a unique one.
    #[test]
    fn function_calls_arrive_whole_with_the_signature_of_the_first() {
        let got = deltas(
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1},"id":"c1"},"thoughtSignature":"Eo0H"},{"functionCall":{"name":"g"}}]}}]}"#,
        );
        assert_eq!(
            got[..3],
            [
                Delta::Continuity(
                    serde_json::json!({"gemini_signature": {"call": "c1", "signature": "Eo0H"}})
                ),
                Delta::ToolCallStart {
                    id: "c1".into(),
                    name: "f".into()
                },
                Delta::ToolCallWhole {
                    id: "c1".into(),
                    arguments: serde_json::json!({"a": 1})
                },
            ]
        );
        let Delta::ToolCallStart { id, name } = &got[3] else {
            panic!("{got:?}");
        };
        assert!(id.starts_with(MADE_UP_ID) && name == "g");
        assert_eq!(
            got[4],
            Delta::ToolCallWhole {
                id: id.clone(),
                arguments: serde_json::json!({})
            }
        );
        assert_eq!(got.len(), 5, "no signature for the second call");
    }

    #[test]
    fn usage_is_reported_once_with_the_finish_reason() {
        let usage = r#""usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":29,"thoughtsTokenCount":256}"#;
        assert_eq!(
            deltas(&format!(
                r#"{{"candidates":[{{"content":{{"parts":[{{"text":"a"}}]}}}}],{usage}}}"#
            )),
            vec![a("a")]
        );
        assert_eq!(
            deltas(&format!(
                r#"{{"candidates":[{{"content":{{"parts":[{{"text":"b"}}]}},"finishReason":"STOP"}}],{usage}}}"#
            )),
            vec![
                a("b"),
                Delta::Usage(Usage {
                    input_tokens: Some(9),
                    output_tokens: Some(29),
                    reasoning_tokens: Some(256)
                }),
                Delta::Finish(Some("stop".into()))
            ]
        );
        assert_eq!(
            deltas(r#"{"candidates":[{"finishReason":"MAX_TOKENS"}]}"#),
            vec![Delta::Finish(Some("length".into()))]
        );
        assert_eq!(
            deltas(r#"{"candidates":[{"finishReason":"SAFETY"}]}"#),
            vec![Delta::Finish(Some("safety".into()))]
        );
    }

    #[test]
    fn usage_from_an_earlier_chunk_is_reported_at_the_finish_once() {
        let mut decoder = GeminiDecoder::default();
        let mut decode = |data: &str| decoder.decode(&WireEvent::new(None, data)).unwrap();
        assert_eq!(
            decode(
                r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1}}"#
            ),
            vec![a("a")]
        );
        let usage = Delta::Usage(Usage {
            input_tokens: Some(3),
            output_tokens: Some(1),
            reasoning_tokens: None,
        });
        assert_eq!(
            decode(r#"{"candidates":[{"finishReason":"STOP"}]}"#),
            vec![usage, Delta::Finish(Some("stop".into()))]
        );
        // A second response in the same recording starts without counts.
        assert_eq!(
            decode(r#"{"candidates":[{"finishReason":"STOP"}]}"#),
            vec![Delta::Finish(Some("stop".into()))]
        );
    }

    #[test]
    fn malformed_json_errors_and_blocked_prompts_are_errors() {
        let bad = GeminiDecoder::default().decode(&WireEvent::new(None, "{\"candidates\":["));
        assert!(matches!(bad, Err(TurnError::Malformed(_))));
        let cases = [
            (
                r#"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#,
                ErrorKind::Upstream,
            ),
            (
                r#"{"error":{"code":429,"message":"Quota","status":"RESOURCE_EXHAUSTED"}}"#,
                ErrorKind::RateLimit,
            ),
            (
                r#"{"error":{"code":403,"message":"no","status":"PERMISSION_DENIED"}}"#,
                ErrorKind::Auth,
            ),
            (
                r#"{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}"#,
                ErrorKind::BadRequest,
            ),
            (
                r#"{"error":{"code":500,"message":"oops","status":"INTERNAL"}}"#,
                ErrorKind::Upstream,
            ),
            (
                r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#,
                ErrorKind::BadRequest,
            ),
        ];
        for (data, kind) in cases {
            let err = GeminiDecoder::default()
                .decode(&WireEvent::new(None, data))
                .unwrap_err();
            assert!(
                matches!(err, TurnError::Reported { .. } | TurnError::Blocked { .. }),
                "{err:?}"
            );
            assert_eq!(err.kind(), kind, "{data}");
        }
        let err = GeminiDecoder::default()
            .decode(&WireEvent::new(None, cases[0].0))
            .unwrap_err();
        assert!(err.to_string().contains("The model is overloaded."));
    }

    #[test]
    fn recorded_stream_fixture_decodes_to_the_exact_texts_and_usage() {
        let fixture =
            include_str!("../../../../tests/fixtures/gemini-3-pro-hidden-thoughts-signature.sse");
        let decoded = decode_sse(&mut GeminiDecoder::default(), fixture);
        // Expected texts come from concatenating the fixture's `parts[].text`
        // by `thought` (python3): this model hides its thoughts.
        assert_eq!(
            texts(&decoded),
            (
                String::new(),
                "There are **3** \"r\"s in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y."
                    .to_owned()
            )
        );
        assert_eq!(
            decoded
                .iter()
                .filter(|d| matches!(d, Delta::Usage(_)))
                .collect::<Vec<_>>(),
            vec![&Delta::Usage(Usage {
                input_tokens: Some(9),
                output_tokens: Some(29),
                reasoning_tokens: Some(256)
            })]
        );
        assert_eq!(decoded.last(), Some(&Delta::Finish(Some("stop".into()))));
    }
}
