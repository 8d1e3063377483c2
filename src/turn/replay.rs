//! How a stored turn goes back to the model in later requests, in the
//! neutral shape (design §2): per round of the tool loop, an assistant
//! message with its text, its calls and the provider's continuity, then one
//! tool message per call; the final answer last. Readable thinking never
//! goes back; continuity only to the model that wrote it (a switch of model
//! drops it on purpose, design §3).
//!
//! Another model's tool rounds go back as text: one assistant message that
//! says, in the order it happened, what was written, which tool was called
//! with what, and what it returned. Calls without the continuity of the
//! model that made them are refused by providers that need it (DeepSeek and
//! Kimi in thinking mode: "The `reasoning_content` in the thinking mode
//! must be passed back to the API."; Gemini 3 without a thought signature),
//! and no provider documents a placeholder for another model's state; text
//! every provider takes. Pure.

use super::reducer::{Block, ToolState, ToolStep, Turn};
use super::request::{ChatMessage, Role};
use super::tool::{ToolCall, ToolStatus};

/// What the model reads for a call that has no result (the turn was stopped
/// or failed while it ran): the wire needs a result for every call.
const NO_RESULT: &str = "The call did not finish (it was cancelled).";

/// The messages of `turn`; `keep_continuity` when the next request goes to
/// the model that wrote it.
pub fn turn_messages(turn: &Turn, keep_continuity: bool) -> Vec<ChatMessage> {
    if !keep_continuity && turn.tool_steps().next().is_some() {
        return vec![as_told(turn)];
    }
    let mut out = Vec::new();
    let mut text = String::new();
    let mut calls: Vec<&ToolStep> = Vec::new();
    // Continuity entries are taken in order, each by the round it arrived in.
    let mut continuity = turn.continuity.iter().peekable();
    let mut take_continuity = |up_to: usize| -> Vec<serde_json::Value> {
        let mut taken = Vec::new();
        while let Some(entry) = continuity.next_if(|c| c.after_blocks <= up_to) {
            if keep_continuity {
                taken.push(entry.data.clone());
            }
        }
        taken
    };
    for (index, block) in turn.blocks.iter().enumerate() {
        if let Block::Tool(step) = block {
            calls.push(step);
            continue;
        }
        // Any other block after calls starts the model's next response.
        if !calls.is_empty() {
            let round = take_continuity(index);
            flush_round(&mut out, std::mem::take(&mut text), &mut calls, round);
        }
        if let Block::Answer { text: answer } = block {
            text.push_str(answer);
        }
    }
    if !calls.is_empty() {
        let round = take_continuity(turn.blocks.len());
        flush_round(&mut out, std::mem::take(&mut text), &mut calls, round);
    }
    let rest = take_continuity(usize::MAX);
    if !text.trim().is_empty() {
        out.push(ChatMessage {
            continuity: rest,
            ..ChatMessage::new(Role::Assistant, text)
        });
    }
    out
}

fn flush_round(
    out: &mut Vec<ChatMessage>,
    text: String,
    calls: &mut Vec<&ToolStep>,
    continuity: Vec<serde_json::Value>,
) {
    out.push(ChatMessage {
        tool_calls: calls.iter().map(|step| call_of(step)).collect(),
        continuity,
        ..ChatMessage::new(Role::Assistant, text)
    });
    for step in calls.drain(..) {
        let (content, is_error) = match (&step.output, step.state) {
            (Some(output), ToolState::Ended(status)) => (output.clone(), status != ToolStatus::Ok),
            _ => (NO_RESULT.to_owned(), true),
        };
        out.push(ChatMessage::tool_result(step.id.clone(), content, is_error));
    }
}

/// Another model's turn as one assistant message of text: its answer text
/// and, where each call was, a line saying what was called and what came
/// back.
fn as_told(turn: &Turn) -> ChatMessage {
    let mut text = String::new();
    for block in &turn.blocks {
        match block {
            Block::Answer { text: answer } => text.push_str(answer),
            Block::Tool(step) => {
                if !text.is_empty() && !text.ends_with('\n') {
                    text.push_str("\n\n");
                }
                text.push_str(&told_call(step));
                text.push_str("\n\n");
            }
            Block::Thinking(_) => {}
        }
    }
    ChatMessage::new(Role::Assistant, text.trim_end())
}

/// One call as a line of text: `[Tool call: name({...}) returned: …]`.
fn told_call(step: &ToolStep) -> String {
    let arguments = call_of(step).arguments.to_string();
    let (outcome, output) = match (&step.output, step.state) {
        (Some(output), ToolState::Ended(ToolStatus::Ok)) => ("returned", output.as_str()),
        (Some(output), ToolState::Ended(status)) => (status.label(), output.as_str()),
        _ => ("did not finish", NO_RESULT),
    };
    format!(
        "[Tool call: {}({arguments}) {outcome}: {output}]",
        step.name
    )
}

/// The call as the model made it: its arguments object (`{}` when the
/// stored text is not an object, e.g. cut off mid-stream).
fn call_of(step: &ToolStep) -> ToolCall {
    let arguments = crate::turn::json::read::<serde_json::Value>(&step.arguments)
        .ok()
        .filter(serde_json::Value::is_object)
        .unwrap_or_else(|| serde_json::json!({}));
    ToolCall {
        id: step.id.clone(),
        name: step.name.clone(),
        arguments,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::{Approval, TurnEvent};
    use serde_json::json;

    fn turn_of(events: Vec<TurnEvent>) -> Turn {
        let mut turn = Turn::new(0.0);
        for event in events {
            turn.apply(event, 0.0);
        }
        turn
    }

    fn call(id: &str, args: serde_json::Value) -> Vec<TurnEvent> {
        vec![
            TurnEvent::ToolCallStart {
                id: id.into(),
                name: "builtin__calculate".into(),
                server: "builtin".into(),
            },
            TurnEvent::ToolCallReady {
                id: id.into(),
                arguments: args,
                approval: Approval::NotNeeded,
                digest: String::new(),
            },
        ]
    }

    fn result(id: &str, output: &str) -> TurnEvent {
        TurnEvent::ToolResult {
            id: id.into(),
            status: ToolStatus::Ok,
            output: output.into(),
            truncated_bytes: 0,
            duration_ms: 3,
        }
    }

    fn two_round_turn() -> Turn {
        let mut events = vec![
            TurnEvent::ThinkingStart,
            TurnEvent::ThinkingDelta { text: "hmm".into() },
            TurnEvent::ThinkingEnd {
                duration_ms: 5,
                opaque: false,
            },
            TurnEvent::AnswerDelta {
                text: "Let me compute.".into(),
            },
        ];
        events.extend(call("c1", json!({"expression": "2+2"})));
        events.push(TurnEvent::Continuity {
            data: json!({"round": 1}),
        });
        events.push(result("c1", "4"));
        events.push(TurnEvent::ThinkingStart);
        events.push(TurnEvent::ThinkingDelta {
            text: "now the answer".into(),
        });
        events.push(TurnEvent::ThinkingEnd {
            duration_ms: 5,
            opaque: false,
        });
        events.push(TurnEvent::AnswerDelta {
            text: "It is 4.".into(),
        });
        events.push(TurnEvent::Continuity {
            data: json!({"round": 2}),
        });
        events.push(TurnEvent::Done {
            finish_reason: None,
            output_limit: None,
        });
        turn_of(events)
    }

    #[test]
    fn each_round_goes_back_as_calls_then_results_then_the_answer() {
        let messages = turn_messages(&two_round_turn(), true);
        assert_eq!(messages.len(), 3, "{messages:#?}");
        assert_eq!(messages[0].role, Role::Assistant);
        assert_eq!(messages[0].content, "Let me compute.");
        assert_eq!(messages[0].tool_calls[0].id, "c1");
        assert_eq!(
            messages[0].tool_calls[0].arguments,
            json!({"expression": "2+2"})
        );
        assert_eq!(messages[0].continuity, vec![json!({"round": 1})]);
        assert_eq!(messages[1].role, Role::Tool);
        assert_eq!(messages[1].tool_call_id.as_deref(), Some("c1"));
        assert_eq!(messages[1].content, "4");
        assert!(!messages[1].is_error);
        assert_eq!(messages[2].content, "It is 4.");
        assert_eq!(messages[2].continuity, vec![json!({"round": 2})]);
        // Readable thinking never goes back.
        assert!(messages.iter().all(|m| !m.content.contains("hmm")));
    }

    #[test]
    fn another_model_gets_the_tool_rounds_as_text_without_continuity() {
        let messages = turn_messages(&two_round_turn(), false);
        assert_eq!(messages.len(), 1, "{messages:#?}");
        let told = &messages[0];
        assert_eq!(told.role, Role::Assistant);
        assert!(told.continuity.is_empty() && told.tool_calls.is_empty());
        assert_eq!(
            told.content,
            "Let me compute.\n\n[Tool call: builtin__calculate({\"expression\":\"2+2\"}) returned: 4]\n\nIt is 4."
        );
        assert!(!told.content.contains("hmm"), "thinking never goes back");
        // A turn without calls goes back as it is, without continuity.
        let plain = turn_of(vec![TurnEvent::AnswerDelta { text: "Hi.".into() }]);
        let messages = turn_messages(&plain, false);
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0].content, "Hi.");
    }

    #[test]
    fn another_models_call_that_failed_or_never_finished_says_so() {
        let mut events = call("a", json!({"x": 1}));
        events.push(TurnEvent::ToolResult {
            id: "a".into(),
            status: ToolStatus::Denied,
            output: "The user declined this tool call.".into(),
            truncated_bytes: 0,
            duration_ms: 0,
        });
        events.extend(call("b", json!({})));
        let told = &turn_messages(&turn_of(events), false)[0];
        assert_eq!(
            told.content,
            "[Tool call: builtin__calculate({\"x\":1}) denied: The user declined this tool call.]\n\n\
             [Tool call: builtin__calculate({}) did not finish: The call did not finish (it was cancelled).]"
        );
    }

    #[test]
    fn a_call_cut_short_still_gets_a_result() {
        let mut events = call("c1", json!({"expression": "1"}));
        events.push(TurnEvent::error(crate::turn::ErrorKind::Network, "lost"));
        let messages = turn_messages(&turn_of(events), true);
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[1].content, NO_RESULT);
        assert!(messages[1].is_error);
    }

    #[test]
    fn parallel_calls_share_one_assistant_message() {
        let mut events = call("a", json!({"x": 1}));
        events.extend(call("b", json!({"x": 2})));
        events.push(result("b", "2"));
        events.push(result("a", "1"));
        events.push(TurnEvent::AnswerDelta { text: "ok".into() });
        let messages = turn_messages(&turn_of(events), true);
        assert_eq!(messages[0].tool_calls.len(), 2);
        let ids: Vec<_> = messages[1..3]
            .iter()
            .map(|m| m.tool_call_id.as_deref().unwrap_or_default())
            .collect();
        assert_eq!(ids, ["a", "b"], "results in the order of the calls");
        assert_eq!(messages[3].content, "ok");
    }
}
