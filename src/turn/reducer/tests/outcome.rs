//! Headlines, visibility and the empty-turn note. Kept apart from
//! `fold.rs`, which other work extends.

use crate::turn::reducer::*;

fn turn_of(events: Vec<TurnEvent>) -> Turn {
    let mut turn = Turn::new(0.0);
    for (i, event) in events.into_iter().enumerate() {
        turn.apply(event, i as f64 * 100.0);
    }
    turn
}
fn delta(text: &str) -> TurnEvent {
    TurnEvent::ThinkingDelta { text: text.into() }
}
fn end(opaque: bool) -> TurnEvent {
    TurnEvent::ThinkingEnd {
        duration_ms: 4000,
        opaque,
    }
}
fn done() -> TurnEvent {
    TurnEvent::Done {
        finish_reason: Some("stop".into()),
        output_limit: None,
    }
}
/// True when `changes` report new metadata for block `index`.
fn updates(changes: &[Change], index: usize) -> bool {
    changes
        .iter()
        .any(|c| matches!(c, Change::Updated { index: i, .. } if *i == index))
}
fn headline(turn: &Turn, index: usize) -> Option<&str> {
    match &turn.blocks[index] {
        Block::Thinking(t) => t.headline.as_deref(),
        Block::Answer { .. } | Block::Tool(_) => None,
    }
}

#[test]
fn an_empty_turn_says_thinking_only_when_the_model_reasoned() {
    use EmptyOutcome::*;
    let reasoning_tokens = |n| {
        TurnEvent::Usage(Usage {
            reasoning_tokens: Some(n),
            ..Usage::default()
        })
    };
    let cases = [
        (vec![done()], Some(EmptyAnswer)),
        // Qwen's empty <think></think>: no reasoning to speak of.
        (
            vec![TurnEvent::ThinkingStart, delta("\n\n"), end(false), done()],
            Some(EmptyAnswer),
        ),
        // The kill switch: usage arrives with the reasoning count removed.
        (
            vec![TurnEvent::Usage(Usage::default()), done()],
            Some(EmptyAnswer),
        ),
        (
            vec![TurnEvent::AnswerDelta { text: " \n".into() }, done()],
            Some(EmptyAnswer),
        ),
        (
            vec![TurnEvent::ThinkingStart, delta("hmm"), end(false), done()],
            Some(ThoughtWithoutAnswer),
        ),
        (
            vec![TurnEvent::ThinkingStart, end(true), done()],
            Some(ThoughtWithoutAnswer),
        ),
        (
            vec![reasoning_tokens(640), done()],
            Some(ThoughtWithoutAnswer),
        ),
        (vec![reasoning_tokens(0), done()], Some(EmptyAnswer)),
        (
            vec![TurnEvent::AnswerDelta { text: "42".into() }, done()],
            None,
        ),
        (vec![TurnEvent::error(ErrorKind::Upstream, "boom")], None),
    ];
    for (events, expected) in cases {
        let turn = turn_of(events.clone());
        assert_eq!(turn.empty_outcome(), expected, "{events:?}");
        assert_eq!(
            turn.thought_without_answer(),
            expected == Some(ThoughtWithoutAnswer),
            "{events:?}"
        );
    }
    let mut stopped = Turn::new(0.0);
    stopped.stop(10.0);
    assert_eq!(stopped.empty_outcome(), None, "Stop says so itself");
    assert!(!EmptyAnswer.note().to_lowercase().contains("think"));
    assert!(ThoughtWithoutAnswer.note().contains("thinking"));
}

#[test]
fn a_streaming_block_is_shown_before_any_text_an_ended_empty_one_never() {
    assert!(is_shown(BlockState::Streaming, "", false));
    assert!(is_shown(BlockState::Streaming, "\n", false));
    assert!(!is_shown(BlockState::Done, "\n\n", false));
    assert!(!is_shown(BlockState::Interrupted, "", false));
    assert!(is_shown(BlockState::Done, "", true));
    assert!(is_shown(BlockState::Done, "text", false));
}

#[test]
fn the_latest_label_names_the_block_as_it_streams() {
    let mut turn = Turn::new(0.0);
    turn.apply(TurnEvent::ThinkingStart, 0.0);
    let changes = turn.apply(delta("<topic>Checking the units</topic>\nm to ft"), 1.0);
    assert!(updates(&changes, 0), "{changes:?}");
    assert_eq!(headline(&turn, 0), Some("Checking the units"));
    // More text under the same label: only the text moved.
    let changes = turn.apply(delta(" and back\n"), 2.0);
    assert_eq!(
        changes,
        vec![Change::Appended {
            index: 0,
            text: " and back\n".into()
        }]
    );
    turn.apply(delta("<topic>Writing the "), 3.0);
    assert_eq!(headline(&turn, 0), Some("Checking the units"));
    let changes = turn.apply(delta("answer</topic>"), 4.0);
    assert!(updates(&changes, 0), "{changes:?}");
    assert_eq!(headline(&turn, 0), Some("Writing the answer"));
}

#[test]
fn a_bold_last_line_names_the_block_once_it_ends() {
    let turn = turn_of(vec![
        TurnEvent::ThinkingStart,
        delta("Some thought.\n**Final check**"),
        end(false),
        TurnEvent::AnswerDelta { text: "42".into() },
        done(),
    ]);
    assert_eq!(headline(&turn, 0), Some("Final check"));
    let stopped = {
        let mut turn = Turn::new(0.0);
        turn.apply(TurnEvent::ThinkingStart, 0.0);
        turn.apply(delta("**Half way**"), 1.0);
        turn.stop(2.0);
        turn
    };
    assert_eq!(headline(&stopped, 0), Some("Half way"));
}

#[test]
fn reasoning_found_to_be_prefilled_gets_its_headline() {
    let turn = turn_of(vec![
        TurnEvent::AnswerDelta {
            text: "<topic>Reading</topic> the question".into(),
        },
        TurnEvent::AnswerWasThinking { duration_ms: 700 },
        TurnEvent::AnswerDelta { text: "42".into() },
        done(),
    ]);
    assert_eq!(headline(&turn, 0), Some("Reading"));
}
