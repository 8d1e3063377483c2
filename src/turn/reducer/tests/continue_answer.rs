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
