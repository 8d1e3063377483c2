//! How each event folds into the turn's blocks and state.

use crate::turn::reducer::*;

fn delta(text: &str) -> TurnEvent {
    TurnEvent::ThinkingDelta { text: text.into() }
}
fn answer(text: &str) -> TurnEvent {
    TurnEvent::AnswerDelta { text: text.into() }
}
fn end(ms: u64) -> TurnEvent {
    TurnEvent::ThinkingEnd {
        duration_ms: ms,
        opaque: false,
    }
}
fn done() -> TurnEvent {
    TurnEvent::Done {
        finish_reason: Some("stop".into()),
        output_limit: None,
    }
}

fn run(events: Vec<TurnEvent>) -> Turn {
    let mut turn = Turn::new(0.0);
    for (i, event) in events.into_iter().enumerate() {
        turn.apply(event, i as f64 * 100.0);
    }
    turn
}

/// True when `changes` report new metadata for block `index`.
fn updates(changes: &[Change], index: usize) -> bool {
    changes
        .iter()
        .any(|c| matches!(c, Change::Updated { index: i, .. } if *i == index))
}

fn thinking(turn: &Turn, index: usize) -> &Thinking {
    match &turn.blocks[index] {
        Block::Thinking(t) => t,
        other => panic!("block {index} is {other:?}"),
    }
}

#[test]
fn think_then_answer_gives_two_blocks_in_order() {
    let turn = run(vec![
        TurnEvent::ThinkingStart,
        delta("Light "),
        delta("scatters."),
        end(1500),
        answer("Because "),
        answer("Rayleigh."),
        done(),
    ]);
    assert_eq!(turn.blocks.len(), 2);
    let t = thinking(&turn, 0);
    assert_eq!(t.text, "Light scatters.");
    assert_eq!(t.duration_ms, Some(1500));
    assert_eq!(t.state, BlockState::Done);
    assert_eq!(
        turn.blocks[1],
        Block::Answer {
            text: "Because Rayleigh.".into()
        }
    );
    assert_eq!(turn.status, TurnStatus::Done);
    assert_eq!(turn.finish_reason.as_deref(), Some("stop"));
}

#[test]
fn status_walks_waiting_thinking_answering_done() {
    let mut turn = Turn::new(0.0);
    assert_eq!(turn.status, TurnStatus::Waiting);
    turn.apply(TurnEvent::ThinkingStart, 250.0);
    assert_eq!(turn.status, TurnStatus::Thinking);
    assert_eq!(turn.ttft_ms, Some(250));
    turn.apply(end(10), 300.0);
    turn.apply(answer("a"), 300.0);
    assert_eq!(turn.status, TurnStatus::Answering);
    turn.apply(done(), 400.0);
    assert_eq!(turn.status, TurnStatus::Done);
}

#[test]
fn appends_report_only_the_new_bytes() {
    let mut turn = Turn::new(0.0);
    turn.apply(TurnEvent::ThinkingStart, 0.0);
    turn.apply(delta("abc"), 0.0);
    let changes = turn.apply(delta("de"), 0.0);
    assert_eq!(
        changes,
        vec![Change::Appended {
            index: 0,
            text: "de".into()
        }]
    );
}

#[test]
fn interleaved_blocks_keep_their_order_and_durations() {
    let turn = run(vec![
        TurnEvent::ThinkingStart,
        delta("one"),
        end(100),
        answer("A"),
        TurnEvent::ThinkingStart,
        delta("two"),
        end(200),
        answer("B"),
        done(),
    ]);
    assert_eq!(turn.blocks.len(), 4);
    assert_eq!(thinking(&turn, 0).duration_ms, Some(100));
    assert_eq!(thinking(&turn, 2).duration_ms, Some(200));
    assert_eq!(turn.answer_text(), "AB");
}

#[test]
fn empty_deltas_change_nothing() {
    let mut turn = Turn::new(0.0);
    assert!(turn.apply(answer(""), 0.0).is_empty());
    assert!(turn.blocks.is_empty());
    assert_eq!(turn.status, TurnStatus::Waiting);
}

#[test]
fn stop_freezes_an_open_block_at_the_elapsed_time() {
    let mut turn = Turn::new(0.0);
    turn.apply(TurnEvent::ThinkingStart, 1000.0);
    turn.apply(delta("partial"), 2000.0);
    turn.stop(10_000.0);
    let t = thinking(&turn, 0);
    assert_eq!(t.state, BlockState::Interrupted);
    assert_eq!(t.duration_ms, Some(9000));
    assert_eq!(t.text, "partial");
    assert_eq!(turn.status, TurnStatus::Stopped);
    // Nothing counts after the end.
    assert!(turn.apply(delta("late"), 11_000.0).is_empty());
}

#[test]
fn error_mid_thinking_marks_the_block_interrupted_and_keeps_text() {
    let turn = run(vec![
        TurnEvent::ThinkingStart,
        delta("half a thought"),
        end(900),
        TurnEvent::error(ErrorKind::Network, "connection lost"),
    ]);
    let t = thinking(&turn, 0);
    assert_eq!(t.state, BlockState::Interrupted);
    assert_eq!(t.duration_ms, Some(900));
    assert_eq!(turn.status, TurnStatus::Error);
    assert_eq!(
        turn.error.as_ref().map(|e| e.kind),
        Some(ErrorKind::Network)
    );
}

#[test]
fn answer_was_thinking_moves_answer_text_into_a_finished_block() {
    let turn = run(vec![
        answer("I should check "),
        answer("the units."),
        TurnEvent::AnswerWasThinking { duration_ms: 700 },
        answer("42"),
        done(),
    ]);
    assert_eq!(turn.blocks.len(), 2);
    let t = thinking(&turn, 0);
    assert_eq!(t.text, "I should check the units.");
    assert_eq!(t.duration_ms, Some(700));
    assert_eq!(turn.answer_text(), "42");
}

#[test]
fn opaque_flag_only_sticks_to_blocks_without_text() {
    let turn = run(vec![
        TurnEvent::ThinkingStart,
        TurnEvent::ThinkingEnd {
            duration_ms: 8000,
            opaque: true,
        },
        answer("x"),
        done(),
    ]);
    assert!(thinking(&turn, 0).opaque);
    assert!(!thinking(&turn, 0).is_empty());
    let turn = run(vec![
        TurnEvent::ThinkingStart,
        delta("\n\n"),
        end(5),
        answer("x"),
    ]);
    assert!(thinking(&turn, 0).is_empty());
}

#[test]
fn usage_events_add_up_and_thinking_without_answer_is_detected() {
    let turn = run(vec![
        TurnEvent::ThinkingStart,
        delta("hmm"),
        end(5),
        TurnEvent::Usage(Usage {
            reasoning_tokens: Some(10),
            ..Usage::default()
        }),
        TurnEvent::Usage(Usage {
            reasoning_tokens: Some(5),
            ..Usage::default()
        }),
        TurnEvent::Done {
            finish_reason: Some("length".into()),
            output_limit: None,
        },
    ]);
    assert_eq!(turn.usage.and_then(|u| u.reasoning_tokens), Some(15));
    assert!(turn.thought_without_answer());
}

#[test]
fn turn_round_trips_through_json_with_the_documented_block_shape() {
    let turn = run(vec![
        TurnEvent::ThinkingStart,
        delta("t"),
        end(1),
        answer("a"),
        done(),
    ]);
    let json = serde_json::to_value(&turn).unwrap();
    assert_eq!(json["blocks"][0]["kind"], "thinking");
    assert_eq!(json["blocks"][0]["duration_ms"], 1);
    assert_eq!(json["blocks"][0]["state"], "done");
    assert_eq!(json["blocks"][1]["kind"], "answer");
    assert_eq!(json["status"], "done");
    let back: Turn = serde_json::from_value(json).unwrap();
    assert_eq!(back.blocks, turn.blocks);
}

#[test]
fn a_delta_without_a_start_opens_a_block_instead_of_losing_the_text() {
    let mut turn = Turn::new(0.0);
    let changes = turn.apply(delta("orphan reasoning"), 50.0);
    assert_eq!(turn.blocks.len(), 1, "the text must land in a block");
    let t = thinking(&turn, 0);
    assert_eq!(t.text, "orphan reasoning");
    assert_eq!(t.state, BlockState::Streaming);
    assert_eq!(t.started_at_ms, 50.0, "the live timer starts at the delta");
    assert_eq!(turn.status, TurnStatus::Thinking);
    assert!(
        matches!(&changes[0], Change::Opened(Block::Thinking(t)) if t.text.is_empty()),
        "{changes:?}"
    );
    assert!(
        changes.contains(&Change::Appended {
            index: 0,
            text: "orphan reasoning".into()
        }),
        "{changes:?}"
    );
}

#[test]
fn done_with_a_block_open_closes_it_at_the_elapsed_time() {
    let mut turn = Turn::new(0.0);
    turn.apply(TurnEvent::ThinkingStart, 1_000.0);
    turn.apply(delta("still going"), 1_500.0);
    let changes = turn.apply(done(), 4_000.0);
    let t = thinking(&turn, 0);
    assert_ne!(t.state, BlockState::Streaming, "no block may stay open");
    assert_eq!(t.state, BlockState::Interrupted);
    assert_eq!(t.duration_ms, Some(3_000), "frozen at done, from its start");
    assert_eq!(t.text, "still going");
    assert_eq!(turn.status, TurnStatus::Done);
    assert!(updates(&changes, 0), "{changes:?}");
}

#[test]
fn thinking_after_answer_was_thinking_opens_a_new_block() {
    let turn = run(vec![
        answer("prefilled reasoning"),
        TurnEvent::AnswerWasThinking { duration_ms: 300 },
        TurnEvent::ThinkingStart,
        delta("second thoughts"),
        end(200),
        answer("42"),
        done(),
    ]);
    assert_eq!(turn.blocks.len(), 3, "{:?}", turn.blocks);
    let first = thinking(&turn, 0);
    assert_eq!(first.text, "prefilled reasoning");
    assert_eq!(first.duration_ms, Some(300));
    let second = thinking(&turn, 1);
    assert_eq!(second.text, "second thoughts");
    assert_eq!(second.duration_ms, Some(200));
    assert_eq!(turn.answer_text(), "42");
    // A delta with no start after the conversion must not reopen the
    // converted block either.
    let turn = run(vec![
        answer("prefilled"),
        TurnEvent::AnswerWasThinking { duration_ms: 300 },
        delta("more"),
        done(),
    ]);
    assert_eq!(thinking(&turn, 0).text, "prefilled");
    assert_eq!(thinking(&turn, 1).text, "more");
}

#[test]
fn answer_was_thinking_with_a_block_still_open_leaves_nothing_open_at_the_end() {
    // A contract-breaking order (seen by the fuzz target): answer text, a
    // thinking block left open, then the lone-close conversion and `done`.
    let turn = run(vec![
        answer("prefilled"),
        TurnEvent::ThinkingStart,
        TurnEvent::AnswerWasThinking { duration_ms: 136 },
        done(),
    ]);
    assert!(
        turn.blocks.iter().all(|b| !matches!(
            b,
            Block::Thinking(Thinking {
                state: BlockState::Streaming,
                ..
            })
        )),
        "{:?}",
        turn.blocks
    );
    assert_eq!(thinking(&turn, 1).text, "prefilled");
}
