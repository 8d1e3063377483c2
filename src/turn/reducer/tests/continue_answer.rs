//! "Continue" on an answer cut at the output limit.

use crate::turn::reducer::*;

fn done(reason: &str) -> TurnEvent {
    TurnEvent::Done {
        finish_reason: Some(reason.into()),
        output_limit: Some(16_000),
    }
}

#[test]
fn a_cut_answer_goes_on_in_the_same_block_and_keeps_its_state_through_storage() {
    let mut turn = Turn::new(0.0);
    turn.apply(
        TurnEvent::AnswerDelta {
            text: "At sunset the light crosses".into(),
        },
        1.0,
    );
    turn.apply(done("length"), 2.0);
    assert_eq!(turn.output_limit, Some(16_000));
    let stored: Turn = serde_json::from_str(&serde_json::to_string(&turn).unwrap()).unwrap();
    assert_eq!(stored.finish_reason.as_deref(), Some("length"));
    assert_eq!(stored.output_limit, Some(16_000), "survives a reload");
    let changes = turn.resume_to_continue(3.0);
    assert_eq!(turn.status, TurnStatus::Waiting);
    assert!(matches!(changes.last(), Some(Change::Status(p)) if p.finish_reason.is_none()));
    turn.apply(
        TurnEvent::AnswerDelta {
            text: " more air.".into(),
        },
        4.0,
    );
    turn.apply(done("stop"), 5.0);
    assert_eq!(
        turn.blocks,
        vec![Block::Answer {
            text: "At sunset the light crosses more air.".into()
        }]
    );
    assert!(
        turn.resume_to_continue(6.0).is_empty(),
        "a whole answer is not continued"
    );
}

#[test]
fn a_turn_cut_while_thinking_says_so_and_one_cut_in_its_answer_does_not() {
    let mut thinking = Turn::new(0.0);
    thinking.apply(TurnEvent::ThinkingStart, 1.0);
    thinking.apply(
        TurnEvent::ThinkingDelta {
            text: "First, the facts.".into(),
        },
        1.0,
    );
    assert!(!thinking.cut_while_thinking(), "not cut yet");
    thinking.apply(done("length"), 2.0);
    assert!(thinking.cut_while_thinking());
    assert_eq!(thinking.reasoning_text(), "First, the facts.");

    let mut answering = thinking.clone();
    answering.resume_to_continue(3.0);
    answering.apply(TurnEvent::AnswerDelta { text: "42".into() }, 4.0);
    answering.apply(done("length"), 5.0);
    assert!(answering.is_cut_off() && !answering.cut_while_thinking());

    let mut at_tool_limit = Turn::new(0.0);
    at_tool_limit.apply(TurnEvent::ThinkingStart, 1.0);
    at_tool_limit.apply(done(crate::turn::tool::FINISH_TOOL_LIMIT), 2.0);
    assert!(!at_tool_limit.cut_while_thinking(), "only the output limit");
}
