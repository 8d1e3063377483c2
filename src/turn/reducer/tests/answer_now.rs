//! "Answer now" and where reasoning comes from.

use crate::turn::reducer::*;
use crate::turn::ReasoningSource;

fn thinking_turn(source: Option<ReasoningSource>) -> Turn {
    let mut turn = Turn::new(0.0);
    if let Some(source) = source {
        turn.apply(TurnEvent::ReasoningSource { source }, 100.0);
    }
    turn.apply(TurnEvent::ThinkingStart, 1_000.0);
    turn.apply(
        TurnEvent::ThinkingDelta {
            text: "Let me see.\n".into(),
        },
        1_500.0,
    );
    turn
}

fn block(turn: &Turn, index: usize) -> &Thinking {
    match &turn.blocks[index] {
        Block::Thinking(t) => t,
        other => panic!("block {index} is {other:?}"),
    }
}

#[test]
fn blocks_carry_the_source_the_server_named_and_it_starts_no_clock() {
    let mut turn = Turn::new(0.0);
    let changes = turn.apply(
        TurnEvent::ReasoningSource {
            source: ReasoningSource::Summary,
        },
        100.0,
    );
    assert!(changes.is_empty());
    assert_eq!(turn.ttft_ms, None, "the source is not a first token");
    turn.apply(TurnEvent::ThinkingStart, 900.0);
    assert_eq!(turn.ttft_ms, Some(900));
    assert_eq!(block(&turn, 0).source, Some(ReasoningSource::Summary));
    assert_eq!(
        block(&turn, 0).meta().source,
        Some(ReasoningSource::Summary)
    );
}

#[test]
fn an_opaque_block_is_hidden_and_prefilled_reasoning_is_full() {
    let mut turn = thinking_turn(Some(ReasoningSource::Summary));
    turn.blocks.clear();
    turn.apply(TurnEvent::ThinkingStart, 0.0);
    turn.apply(
        TurnEvent::ThinkingEnd {
            duration_ms: 8_000,
            opaque: true,
        },
        8_000.0,
    );
    assert_eq!(block(&turn, 0).source, Some(ReasoningSource::Hidden));

    let mut prefilled = Turn::new(0.0);
    prefilled.apply(TurnEvent::AnswerDelta { text: "hmm".into() }, 10.0);
    prefilled.apply(TurnEvent::AnswerWasThinking { duration_ms: 20 }, 20.0);
    assert_eq!(block(&prefilled, 0).source, Some(ReasoningSource::Full));
}

#[test]
fn a_control_cut_marks_the_block_which_ends_with_the_servers_time() {
    let mut turn = thinking_turn(Some(ReasoningSource::Full));
    let open = turn.open_thinking_index().unwrap();
    let changes = turn.mark_cut_short(open);
    assert!(
        matches!(&changes[..], [Change::Updated { index: 0, meta }] if meta.source == Some(ReasoningSource::CutShort))
    );
    assert_eq!(
        block(&turn, 0).state,
        BlockState::Streaming,
        "the stream ends it"
    );
    turn.apply(
        TurnEvent::ThinkingEnd {
            duration_ms: 2_300,
            opaque: false,
        },
        3_400.0,
    );
    let ended = block(&turn, 0);
    assert_eq!(
        (ended.state, ended.duration_ms),
        (BlockState::Done, Some(2_300))
    );
    assert_eq!(ended.source, Some(ReasoningSource::CutShort));
}

#[test]
fn a_control_cut_that_lands_after_the_block_ended_still_marks_it() {
    let mut turn = thinking_turn(Some(ReasoningSource::Full));
    let pressed_on = turn.open_thinking_index().unwrap();
    // The provider stopped thinking before the reply to the press came back.
    turn.apply(
        TurnEvent::ThinkingEnd {
            duration_ms: 900,
            opaque: false,
        },
        1_900.0,
    );
    turn.apply(TurnEvent::AnswerDelta { text: "42".into() }, 2_000.0);
    assert_eq!(turn.mark_cut_short(pressed_on).len(), 1);
    assert_eq!(block(&turn, 0).source, Some(ReasoningSource::CutShort));
    assert_eq!(block(&turn, 0).duration_ms, Some(900));
    // An answer block is never marked.
    assert!(turn.mark_cut_short(1).is_empty());
}

#[test]
fn asking_again_ends_the_block_at_the_clients_time_and_waits() {
    let mut turn = thinking_turn(Some(ReasoningSource::Full));
    let changes = turn.cut_short_to_ask_again(5_200.0, false);
    let ended = block(&turn, 0);
    assert_eq!(ended.state, BlockState::Done);
    assert_eq!(ended.duration_ms, Some(4_200));
    assert_eq!(ended.source, Some(ReasoningSource::CutShort));
    assert_eq!(turn.status, TurnStatus::Waiting);
    assert!(matches!(
        changes.last(),
        Some(Change::Status(TurnProgress {
            status: TurnStatus::Waiting,
            ..
        }))
    ));
    assert_eq!(turn.reasoning_text(), "Let me see.");
    // The stream asked again answers into the same turn.
    turn.apply(TurnEvent::AnswerDelta { text: "42".into() }, 6_000.0);
    turn.apply(
        TurnEvent::Done {
            finish_reason: None,
            output_limit: None,
        },
        6_100.0,
    );
    assert_eq!(turn.answer_text(), "42");
    assert_eq!(turn.status, TurnStatus::Done);
    assert_eq!(block(&turn, 0).source, Some(ReasoningSource::CutShort));
    // Nothing to cut once the turn has ended.
    assert!(turn.cut_short_to_ask_again(7_000.0, false).is_empty());
}

#[test]
fn the_source_survives_storage() {
    let mut turn = thinking_turn(Some(ReasoningSource::Full));
    turn.cut_short_to_ask_again(5_200.0, false);
    let json = serde_json::to_string(&turn).unwrap();
    assert!(json.contains("\"source\":\"cut_short\""), "{json}");
    let back: Turn = serde_json::from_str(&json).unwrap();
    assert_eq!(block(&back, 0).source, Some(ReasoningSource::CutShort));
    let mut failed = thinking_turn(Some(ReasoningSource::Full));
    failed.cut_short_to_ask_again(5_200.0, true);
    let json = serde_json::to_string(&failed).unwrap();
    assert!(json.contains("\"source\":\"asked_again\""), "{json}");
}
