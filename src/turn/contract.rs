//! The producer rules of design §2 as a checker, so every test of every event
//! producer (demo model, dialects, `pensive parse`) asserts the same contract.

use super::event::TurnEvent;

/// All reasoning text of an event stream, in order (what the Thinking blocks show).
pub fn thinking_text(events: &[TurnEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ThinkingDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// All answer text of an event stream, in order.
pub fn answer_text(events: &[TurnEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::AnswerDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// Checks a complete event stream; `Err` names the first broken rule.
pub fn check_stream(events: &[TurnEvent]) -> Result<(), String> {
    let mut open = false;
    // Calls started and not yet answered by a `tool_result`.
    let mut calls: Vec<&str> = Vec::new();
    let mut started: Vec<&str> = Vec::new();
    for (i, event) in events.iter().enumerate() {
        let last = i + 1 == events.len();
        match event {
            TurnEvent::ReasoningSource { .. } if open => {
                return Err(format!("event {i}: reasoning_source inside a block"))
            }
            TurnEvent::ReasoningSource { .. } => {}
            TurnEvent::ThinkingStart if open => {
                return Err(format!("event {i}: thinking_start while a block is open"))
            }
            TurnEvent::ThinkingStart => open = true,
            TurnEvent::ThinkingDelta { text } => {
                if !open {
                    return Err(format!("event {i}: thinking_delta outside a block"));
                }
                if text.is_empty() {
                    return Err(format!("event {i}: empty thinking_delta"));
                }
            }
            TurnEvent::ThinkingEnd { .. } if !open => {
                return Err(format!("event {i}: thinking_end without a block"))
            }
            TurnEvent::ThinkingEnd { .. } => open = false,
            TurnEvent::AnswerDelta { text } => {
                if open {
                    return Err(format!("event {i}: answer_delta before thinking_end"));
                }
                if text.is_empty() {
                    return Err(format!("event {i}: empty answer_delta"));
                }
            }
            TurnEvent::AnswerWasThinking { .. }
            | TurnEvent::Usage(_)
            | TurnEvent::Continuity { .. }
            | TurnEvent::ModelSwitched { .. } => {}
            TurnEvent::ToolCallStart { id, .. } => {
                if open {
                    return Err(format!("event {i}: tool_call_start before thinking_end"));
                }
                if started.contains(&id.as_str()) {
                    return Err(format!("event {i}: a second tool_call_start for {id}"));
                }
                started.push(id);
                calls.push(id);
            }
            TurnEvent::ToolCallDelta { id, .. } | TurnEvent::ToolCallReady { id, .. } => {
                if !calls.contains(&id.as_str()) {
                    return Err(format!("event {i}: {id} is not a running call"));
                }
            }
            TurnEvent::ToolResult { id, .. } => {
                let Some(at) = calls.iter().position(|c| *c == id) else {
                    return Err(format!(
                        "event {i}: tool_result for {id}, not a running call"
                    ));
                };
                calls.remove(at);
            }
            TurnEvent::Done { .. } | TurnEvent::Stopped | TurnEvent::Error { .. } => {
                if open {
                    return Err(format!("event {i}: stream ended with a block open"));
                }
                if let Some(id) = calls.first() {
                    return Err(format!("event {i}: stream ended with call {id} unanswered"));
                }
                if !last {
                    return Err(format!("event {i}: events after the terminal event"));
                }
            }
        }
        if last && !event.is_terminal() {
            return Err("the stream does not end with done or error".into());
        }
    }
    if events.is_empty() {
        return Err("the stream is empty".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::ErrorKind;

    fn done() -> TurnEvent {
        TurnEvent::Done {
            finish_reason: None,
            output_limit: None,
        }
    }

    #[test]
    fn a_well_formed_stream_passes() {
        let events = [
            TurnEvent::ThinkingStart,
            TurnEvent::ThinkingDelta { text: "x".into() },
            TurnEvent::ThinkingEnd {
                duration_ms: 1,
                opaque: false,
            },
            TurnEvent::AnswerDelta { text: "y".into() },
            done(),
        ];
        assert_eq!(check_stream(&events), Ok(()));
    }

    fn start() -> TurnEvent {
        TurnEvent::ThinkingStart
    }

    fn delta(text: &str) -> TurnEvent {
        TurnEvent::ThinkingDelta { text: text.into() }
    }

    fn end() -> TurnEvent {
        TurnEvent::ThinkingEnd {
            duration_ms: 1,
            opaque: false,
        }
    }

    fn answer(text: &str) -> TurnEvent {
        TurnEvent::AnswerDelta { text: text.into() }
    }

    /// One row per rule: a stream that breaks that rule and no other, the
    /// same stream with only that fault mended (it must pass, which shows the
    /// row keeps every other rule), and words of the error naming the rule. A
    /// checker that drops any one rule lets that rule's row through.
    fn rows() -> Vec<(&'static str, Vec<TurnEvent>, Vec<TurnEvent>)> {
        vec![
            (
                "thinking_start while a block is open",
                vec![start(), start(), end(), done()],
                vec![start(), end(), start(), end(), done()],
            ),
            (
                "thinking_delta outside a block",
                vec![delta("x"), done()],
                vec![start(), delta("x"), end(), done()],
            ),
            (
                "empty thinking_delta",
                vec![start(), delta(""), end(), done()],
                vec![start(), delta("x"), end(), done()],
            ),
            (
                "thinking_end without a block",
                vec![end(), done()],
                vec![start(), end(), done()],
            ),
            (
                "answer_delta before thinking_end",
                vec![start(), delta("x"), answer("y"), end(), done()],
                vec![start(), delta("x"), end(), answer("y"), done()],
            ),
            (
                "empty answer_delta",
                vec![answer(""), done()],
                vec![answer("y"), done()],
            ),
            (
                "stream ended with a block open",
                vec![start(), done()],
                vec![start(), end(), done()],
            ),
            (
                "events after the terminal event",
                vec![done(), TurnEvent::error(ErrorKind::Internal, "x")],
                vec![TurnEvent::error(ErrorKind::Internal, "x")],
            ),
            (
                "does not end with done or error",
                vec![answer("y")],
                vec![answer("y"), done()],
            ),
            ("the stream is empty", vec![], vec![done()]),
        ]
    }

    #[test]
    fn each_broken_rule_is_caught_by_that_rule() {
        for (rule, broken, mended) in rows() {
            match check_stream(&broken) {
                Err(message) => assert!(message.contains(rule), "{rule}: {message}"),
                Ok(()) => panic!("{rule}: not caught in {broken:?}"),
            }
            assert_eq!(check_stream(&mended), Ok(()), "{rule}: the mended stream");
        }
    }
}
