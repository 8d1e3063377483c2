//! `pensive parse`: a recorded provider stream in, the `TurnEvent`s the server
//! would stream out. For users asking "why is my model's thinking not shown".
//! Pure: the caller reads the file. Durations are 0 (a recording has no clock).

use serde_json::Value;

use super::normalizer::Normalizer;
use super::providers::decode_stream::decode_stream;
use super::providers::framing::{sniff_framing, Framer, WireEvent};
use super::providers::wire::Dialect;
use super::tags::TagSet;
use super::turn_service::tool_round::ToolRound;
use crate::turn::TurnEvent;

/// How to read a recording.
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// `None`: detect from the first events.
    pub dialect: Option<Dialect>,
    pub tags: TagSet,
    pub start_in_thinking: bool,
}

/// The recording could not be read as any dialect.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("could not recognise the provider dialect (use --dialect chat|responses|anthropic|gemini|ollama)")]
pub struct UnknownDialect;

/// Parses a whole recording into the events the server would stream.
pub fn parse_recording(
    input: &[u8],
    options: &ParseOptions,
) -> Result<Vec<TurnEvent>, UnknownDialect> {
    let framing = sniff_framing(input);
    let dialect = match options.dialect {
        Some(d) => d,
        None => {
            let mut framer = Framer::new(framing);
            let mut framed = framer.push(input);
            framed.extend(framer.finish());
            framed
                .iter()
                .filter_map(|f| f.as_ref().ok())
                .take(20)
                .find_map(detect_dialect)
                .ok_or(UnknownDialect)?
        }
    };
    // The live path's framing and decoding, its errors naming the line.
    let mut decoding = decode_stream(framing, dialect.decoder()).naming_lines();
    let mut decoded = decoding.push(input);
    decoded.extend(decoding.finish());
    let mut normalizer = Normalizer::new(options.tags.clone(), options.start_in_thinking);
    let mut events = Vec::new();
    let mut round = ToolRound::default();
    for result in decoded {
        match result {
            Ok(deltas) => {
                for delta in deltas {
                    // A recorded loop: the next response begins.
                    if round.has_calls() && normalizer.saw_finish() {
                        events.extend(unrun_calls(&mut round, &mut normalizer));
                    }
                    round.observe(&delta);
                    events.extend(normalizer.push(delta, 0));
                }
            }
            Err(error) => {
                events.extend(normalizer.fail(&error, 0));
                return Ok(events);
            }
        }
    }
    if round.has_calls() {
        events.extend(unrun_calls(&mut round, &mut normalizer));
    }
    events.extend(normalizer.finish(0));
    Ok(events)
}

/// What a recording says the model asked for cannot be run here (its
/// results are in the requests, which a recording of the stream lacks):
/// each call is ready, then answered as not run, so the events keep the
/// contract's shape.
fn unrun_calls(round: &mut ToolRound, normalizer: &mut Normalizer) -> Vec<TurnEvent> {
    let mut events = normalizer.end_round(0);
    let (_, calls) = std::mem::take(round).finish(None);
    for call in calls {
        events.push(TurnEvent::ToolCallReady {
            id: call.id.clone(),
            arguments: call.arguments.unwrap_or_else(|_| serde_json::json!({})),
            approval: crate::turn::Approval::NotNeeded,
            digest: String::new(),
        });
        events.push(TurnEvent::ToolResult {
            id: call.id,
            status: crate::turn::ToolStatus::Cancelled,
            output: "Not run: read from a recording.".into(),
            truncated_bytes: 0,
            duration_ms: 0,
        });
    }
    events
}

/// Recognises a dialect from one event.
pub(crate) fn detect_dialect(framed: &WireEvent) -> Option<Dialect> {
    if let Some(name) = framed.event.as_deref() {
        if name.starts_with("message_") || name.starts_with("content_block_") {
            return Some(Dialect::Anthropic);
        }
        if name.starts_with("response.") {
            return Some(Dialect::Responses);
        }
    }
    let value: Value = serde_json::from_str(&framed.data).ok()?;
    let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
    if kind.starts_with("response.") {
        Some(Dialect::Responses)
    } else if kind.starts_with("message_") || kind.starts_with("content_block_") {
        Some(Dialect::Anthropic)
    } else if value.get("choices").is_some() {
        Some(Dialect::Chat)
    } else if value.get("candidates").is_some() || value.get("usageMetadata").is_some() {
        Some(Dialect::Gemini)
    } else if value.get("message").is_some() && value.get("done").is_some() {
        Some(Dialect::Ollama)
    } else {
        None
    }
}
