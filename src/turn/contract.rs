//! The producer rules of DESIGN §2 as a checker, so every test of every event
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
    for (i, event) in events.iter().enumerate() {
        let last = i + 1 == events.len();
        match event {
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
            TurnEvent::AnswerWasThinking { .. } | TurnEvent::Usage(_) => {}
            TurnEvent::Done { .. } | TurnEvent::Error { .. } => {
                if open {
                    return Err(format!("event {i}: stream ended with a block open"));
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

    #[test]
    fn each_broken_rule_is_caught() {
        let answer_inside = [
            TurnEvent::ThinkingStart,
            TurnEvent::AnswerDelta { text: "y".into() },
        ];
        assert!(check_stream(&answer_inside).is_err());
        let two_terminals = [done(), TurnEvent::error(ErrorKind::Internal, "x")];
        assert!(check_stream(&two_terminals).is_err());
        assert!(check_stream(&[TurnEvent::AnswerDelta { text: "y".into() }]).is_err());
        assert!(check_stream(&[TurnEvent::AnswerDelta { text: "".into() }, done()]).is_err());
        assert!(check_stream(&[TurnEvent::ThinkingStart, done()]).is_err());
        assert!(check_stream(&[]).is_err());
    }
}
