//! The wire contract between server and browser (design §2): one `TurnEvent` per
//! NDJSON line. Pure data, no I/O; every producer and consumer shares these types.

use serde::{Deserialize, Serialize};

/// One event of an assistant turn, as streamed by `POST /api/chat` and printed by
/// `pensive parse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TurnEvent {
    /// Where the turn's reasoning comes from (`full` or `summary`), sent once,
    /// right before its first `thinking_start`; blocks opened after it carry it.
    ReasoningSource { source: super::ReasoningSource },
    /// A new thinking block opens (a turn may have several).
    ThinkingStart,
    /// Reasoning text for the open block.
    ThinkingDelta { text: String },
    /// The open block closes; `opaque` means the provider reasoned without readable text.
    ThinkingEnd { duration_ms: u64, opaque: bool },
    /// Answer text.
    AnswerDelta { text: String },
    /// A lone closing tag arrived: the answer text so far was reasoning.
    AnswerWasThinking { duration_ms: u64 },
    /// Token counts of one provider response (several in a tool loop: add them up).
    Usage(Usage),
    /// The model began a tool call (`name` is `server__tool`).
    ToolCallStart {
        id: String,
        name: String,
        server: String,
    },
    /// A fragment of the call's arguments (JSON text), where the dialect streams them.
    ToolCallDelta { id: String, text: String },
    /// The arguments are complete; a `needed` call waits for the user's decision.
    /// `id` is unique within the turn (the server makes it so); `digest`
    /// names the call's tool and arguments, and a decision on it must carry
    /// it back (`POST /api/tool_decision`): the server runs no call whose
    /// digest differs from the one the user was shown.
    ToolCallReady {
        id: String,
        arguments: serde_json::Value,
        approval: super::tool::Approval,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        digest: String,
    },
    /// The call ended (or never ran). `output` is at most 64 KB;
    /// `truncated_bytes` says how much was cut.
    ToolResult {
        id: String,
        status: super::tool::ToolStatus,
        output: String,
        #[serde(default)]
        truncated_bytes: u64,
        duration_ms: u64,
    },
    /// State the provider needs back later (signatures, encrypted reasoning,
    /// `reasoning_content` of tool-call messages): stored, never shown.
    Continuity { data: serde_json::Value },
    /// The provider handed the turn to another model, which answers from
    /// here on (Anthropic's server-side fallback: a `fallback` content
    /// block); `model` is the provider's name for it.
    ModelSwitched { model: String },
    /// Normal end of the turn.
    Done {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        finish_reason: Option<String>,
        /// The output limit the turn was asked with (`max_tokens`), when
        /// Pensive sent one: a turn cut at it (`finish_reason: "length"`)
        /// names it. With `finish_reason: "tool_limit"`: the tool-call
        /// limit the turn stopped at.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output_limit: Option<u32>,
    },
    /// The user stopped the turn (Stop, from any tab or reload of it): what
    /// arrived is kept, open blocks freeze, open calls were cancelled.
    Stopped,
    /// The turn failed; `message` is safe to show a user.
    Error { kind: ErrorKind, message: String },
}

impl TurnEvent {
    /// True for the events that end a stream (`done`, `stopped`, `error`).
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            TurnEvent::Done { .. } | TurnEvent::Stopped | TurnEvent::Error { .. }
        )
    }

    /// Shorthand for an `error` event.
    pub fn error(kind: ErrorKind, message: impl Into<String>) -> Self {
        TurnEvent::Error {
            kind,
            message: message.into(),
        }
    }
}

/// Token counts reported by a provider; each is optional because providers differ.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
}

impl Usage {
    /// Adds another response's counts (a tool loop reports one usage per response).
    pub fn add(&mut self, other: &Usage) {
        fn sum(a: Option<u64>, b: Option<u64>) -> Option<u64> {
            match (a, b) {
                (None, None) => None,
                (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
            }
        }
        self.input_tokens = sum(self.input_tokens, other.input_tokens);
        self.output_tokens = sum(self.output_tokens, other.output_tokens);
        self.reasoning_tokens = sum(self.reasoning_tokens, other.reasoning_tokens);
    }
}

/// Why a turn failed; the wire's `error.kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    Auth,
    RateLimit,
    BadRequest,
    Upstream,
    Timeout,
    Network,
    Interrupted,
    Config,
    Internal,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(event: &TurnEvent) -> String {
        serde_json::to_string(event).expect("events always serialize")
    }

    #[test]
    fn events_serialize_with_the_documented_shape() {
        assert_eq!(
            json(&TurnEvent::ThinkingStart),
            r#"{"type":"thinking_start"}"#
        );
        assert_eq!(
            json(&TurnEvent::ReasoningSource {
                source: crate::turn::ReasoningSource::Summary
            }),
            r#"{"type":"reasoning_source","source":"summary"}"#
        );
        assert_eq!(
            json(&TurnEvent::ThinkingDelta { text: "a".into() }),
            r#"{"type":"thinking_delta","text":"a"}"#
        );
        assert_eq!(
            json(&TurnEvent::ThinkingEnd {
                duration_ms: 12,
                opaque: false
            }),
            r#"{"type":"thinking_end","duration_ms":12,"opaque":false}"#
        );
        assert_eq!(
            json(&TurnEvent::AnswerWasThinking { duration_ms: 3 }),
            r#"{"type":"answer_was_thinking","duration_ms":3}"#
        );
        assert_eq!(
            json(&TurnEvent::Usage(Usage {
                input_tokens: Some(1),
                output_tokens: None,
                reasoning_tokens: Some(7)
            })),
            r#"{"type":"usage","input_tokens":1,"reasoning_tokens":7}"#
        );
        assert_eq!(
            json(&TurnEvent::Done {
                finish_reason: Some("stop".into()),
                output_limit: None,
            }),
            r#"{"type":"done","finish_reason":"stop"}"#
        );
        assert_eq!(
            json(&TurnEvent::error(ErrorKind::RateLimit, "slow down")),
            r#"{"type":"error","kind":"rate_limit","message":"slow down"}"#
        );
    }

    #[test]
    fn events_round_trip_and_accept_missing_optionals() {
        let done: TurnEvent = serde_json::from_str(r#"{"type":"done"}"#).unwrap();
        assert_eq!(
            done,
            TurnEvent::Done {
                finish_reason: None,
                output_limit: None,
            }
        );
        let usage: TurnEvent = serde_json::from_str(r#"{"type":"usage"}"#).unwrap();
        assert_eq!(usage, TurnEvent::Usage(Usage::default()));
    }

    #[test]
    fn usage_adds_up_per_field() {
        let mut total = Usage {
            input_tokens: Some(10),
            ..Usage::default()
        };
        total.add(&Usage {
            input_tokens: Some(5),
            output_tokens: Some(2),
            reasoning_tokens: None,
        });
        assert_eq!(total.input_tokens, Some(15));
        assert_eq!(total.output_tokens, Some(2));
        assert_eq!(total.reasoning_tokens, None);
    }
}
