//! A tool step held for the user's approval, and one stored before holds
//! existed.

use crate::turn::reducer::*;
use crate::turn::{Approval, TurnEvent};

fn ready(approval: Approval) -> ToolStep {
    let mut turn = Turn::new(0.0);
    turn.apply(
        TurnEvent::ToolCallStart {
            id: "c1".into(),
            name: "hostile__weather".into(),
            server: "hostile".into(),
        },
        1.0,
    );
    turn.apply(
        TurnEvent::ToolCallReady {
            id: "c1".into(),
            arguments: serde_json::json!({"city": "Paris"}),
            approval,
            digest: String::new(),
        },
        2.0,
    );
    match turn.blocks.last() {
        Some(Block::Tool(step)) => step.clone(),
        other => panic!("a tool step, not {other:?}"),
    }
}

#[test]
fn a_held_call_waits_and_its_step_knows_why() {
    let held = ready(Approval::Held);
    assert_eq!((held.state, held.held), (ToolState::Waiting, true));
    let asked = ready(Approval::Needed);
    assert_eq!((asked.state, asked.held), (ToolState::Waiting, false));
    let event: TurnEvent = serde_json::from_value(serde_json::json!({
        "type": "tool_call_ready", "id": "c1", "arguments": {}, "approval": "held"
    }))
    .expect("the wire names it `held`");
    assert!(matches!(
        event,
        TurnEvent::ToolCallReady {
            approval: Approval::Held,
            ..
        }
    ));
}

#[test]
fn a_step_stored_before_holds_existed_reads_as_not_held() {
    let stored = serde_json::to_value(ready(Approval::Needed)).expect("a step");
    assert!(stored.get("held").is_none(), "not written when false");
    let step: ToolStep = serde_json::from_value(stored).expect("readable");
    assert!(!step.held);
}
