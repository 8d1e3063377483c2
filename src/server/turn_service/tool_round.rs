//! One response of a tool loop, as it streams: the calls the model makes
//! (their arguments gathered from fragments, or whole), the answer text it
//! writes around them, its reasoning, and the continuity the provider wants
//! back. At its end it becomes the assistant message of the next request
//! and the list of calls to run.

use serde_json::Value;

use crate::server::providers::delta::Delta;
use crate::server::providers::wire::Dialect;
use crate::turn::{ChatMessage, Role, ToolCall};

/// A call whose arguments are complete.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReadyCall {
    pub id: String,
    pub name: String,
    /// The arguments object, or why the text the model wrote is not one.
    pub arguments: Result<Value, String>,
}

#[derive(Debug, Default)]
struct Gathering {
    id: String,
    name: String,
    text: String,
    whole: Option<Value>,
}

/// What one response said, for the tool loop.
#[derive(Debug, Default)]
pub(crate) struct ToolRound {
    calls: Vec<Gathering>,
    text: String,
    reasoning: String,
    continuity: Vec<Value>,
}

impl ToolRound {
    /// Notes one delta of the response.
    pub(crate) fn observe(&mut self, delta: &Delta) {
        match delta {
            Delta::ToolCallStart { id, name } => self.calls.push(Gathering {
                id: id.clone(),
                name: name.clone(),
                ..Gathering::default()
            }),
            Delta::ToolCallArguments { id, text } => {
                if let Some(call) = self.calls.iter_mut().rfind(|c| &c.id == id) {
                    // Cut arguments no longer parse: the call is refused as broken.
                    push_capped(&mut call.text, text);
                }
            }
            Delta::ToolCallWhole { id, arguments } => {
                if let Some(call) = self.calls.iter_mut().rfind(|c| &c.id == id) {
                    call.whole = Some(arguments.clone());
                }
            }
            Delta::Answer(text) => push_capped(&mut self.text, text),
            Delta::Reasoning(text) => push_capped(&mut self.reasoning, text),
            Delta::Continuity(data) => self.continuity.push(data.clone()),
            _ => {}
        }
    }

    /// True when the model asked for at least one call.
    pub(crate) fn has_calls(&self) -> bool {
        !self.calls.is_empty()
    }

    /// Continuity the loop itself must keep for `dialect` (sent to the page
    /// as an event too): Chat completions servers in thinking mode (DeepSeek,
    /// Kimi) need the reasoning of a tool-call message back in every later
    /// request, and Ollama reads it as `thinking` (tool-loops.md §1.3). The
    /// other dialects' decoders send their own (signed) state.
    pub(crate) fn own_continuity(&self, dialect: Option<Dialect>) -> Option<Value> {
        if !self.has_calls() || self.reasoning.is_empty() {
            return None;
        }
        let key = match dialect? {
            Dialect::Chat => "reasoning_content",
            Dialect::Ollama => "thinking",
            _ => return None,
        };
        Some(serde_json::json!({ key: self.reasoning }))
    }

    /// The response as the assistant message of the next request, and its
    /// calls; `extra` is the continuity `own_continuity` gave.
    pub fn finish(self, extra: Option<Value>) -> (ChatMessage, Vec<ReadyCall>) {
        let calls: Vec<ReadyCall> = self
            .calls
            .into_iter()
            .map(|c| ReadyCall {
                arguments: c.whole.map(Ok).unwrap_or_else(|| parse_arguments(&c.text)),
                id: c.id,
                name: c.name,
            })
            .collect();
        let mut continuity = self.continuity;
        continuity.extend(extra);
        let message = ChatMessage {
            tool_calls: calls
                .iter()
                .map(|c| ToolCall {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    arguments: c
                        .arguments
                        .clone()
                        .unwrap_or_else(|_| serde_json::json!({})),
                })
                .collect(),
            continuity,
            ..ChatMessage::new(Role::Assistant, self.text)
        };
        (message, calls)
    }
}

/// Most text of one kind a round keeps for the next request. A response is
/// bounded only by the turn's byte limit (64 MB), and what goes back is
/// context, not a record (the page keeps every byte): past this the rest
/// is left out, so memory per turn stays flat whatever the provider sends.
pub(crate) const MAX_ROUND_TEXT: usize = 256 * 1024;

fn push_capped(kept: &mut String, text: &str) {
    let room = MAX_ROUND_TEXT.saturating_sub(kept.len());
    if room == 0 {
        return;
    }
    let mut end = text.len().min(room);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    kept.push_str(&text[..end]);
}

/// The arguments text as an object (none written counts as `{}`).
fn parse_arguments(text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(serde_json::json!({}));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err("they are JSON but not an object".into()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fragments_gather_per_call_and_parse_at_the_end() {
        let mut round = ToolRound::default();
        for delta in [
            Delta::Reasoning("think".into()),
            Delta::Answer("Checking.".into()),
            Delta::ToolCallStart {
                id: "a".into(),
                name: "builtin__calculate".into(),
            },
            Delta::ToolCallStart {
                id: "b".into(),
                name: "builtin__current_time".into(),
            },
            Delta::ToolCallArguments {
                id: "a".into(),
                text: "{\"expression\":".into(),
            },
            Delta::ToolCallArguments {
                id: "a".into(),
                text: "\"1+1\"}".into(),
            },
        ] {
            round.observe(&delta);
        }
        assert!(round.has_calls());
        let own = round.own_continuity(Some(Dialect::Chat));
        assert_eq!(own, Some(json!({"reasoning_content": "think"})));
        let (message, calls) = round.finish(own);
        assert_eq!(calls[0].arguments, Ok(json!({"expression": "1+1"})));
        assert_eq!(calls[1].arguments, Ok(json!({})), "no arguments is {{}}");
        assert_eq!(message.content, "Checking.");
        assert_eq!(message.tool_calls.len(), 2);
        assert_eq!(
            message.continuity,
            vec![json!({"reasoning_content": "think"})]
        );
    }

    #[test]
    fn a_round_keeps_bounded_text_whatever_the_provider_sends() {
        let mut round = ToolRound::default();
        for _ in 0..100 {
            round.observe(&Delta::Answer("é".repeat(10_000)));
            round.observe(&Delta::Reasoning("x".repeat(20_000)));
        }
        assert!(round.text.len() <= MAX_ROUND_TEXT && round.text.len() > MAX_ROUND_TEXT - 4);
        assert_eq!(round.reasoning.len(), MAX_ROUND_TEXT);
    }

    #[test]
    fn broken_arguments_are_reported_not_guessed() {
        assert!(parse_arguments("{\"a\":").is_err());
        assert!(parse_arguments("[1]").is_err());
        let round = ToolRound::default();
        assert_eq!(round.own_continuity(Some(Dialect::Chat)), None);
    }
}
