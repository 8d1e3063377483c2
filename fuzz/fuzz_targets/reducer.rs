//! Fuzzes the turn reducer (`turn::reducer`) with random event sequences, in
//! any order, contract-breaking ones included: a browser must survive whatever
//! a broken or hostile server streams. Asserts:
//! - no panic;
//! - after a terminal event (`done`, `error`) or Stop, no block is still
//!   streaming and the turn is no longer live;
//! - every block's text equals the concatenation of the deltas routed to it,
//!   by an independent model of the routing rules written here (not the
//!   reducer's code), so text is never lost, duplicated or misplaced.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pensive::turn::reducer::{Block, BlockState, Turn};
use pensive::turn::{ErrorKind, TurnEvent, Usage};

/// The block structure the reducer must produce, tracked the simplest way.
#[derive(Debug, Default)]
struct Model {
    /// (is_thinking, text, still streaming)
    blocks: Vec<(bool, String, bool)>,
    live: bool,
}

impl Model {
    fn close_thinking(&mut self) {
        if let Some((true, _, open)) = self.blocks.last_mut() {
            *open = false;
        }
    }

    fn open_thinking(&mut self) -> bool {
        matches!(self.blocks.last(), Some((true, _, true)))
    }

    fn apply(&mut self, event: &TurnEvent) {
        if !self.live {
            return;
        }
        match event {
            TurnEvent::ThinkingStart => {
                self.close_thinking();
                self.blocks.push((true, String::new(), true));
            }
            TurnEvent::ThinkingDelta { text } if !text.is_empty() => {
                if !self.open_thinking() {
                    self.blocks.push((true, String::new(), true));
                }
                if let Some(last) = self.blocks.last_mut() {
                    last.1.push_str(text);
                }
            }
            TurnEvent::ThinkingEnd { .. } => self.close_thinking(),
            TurnEvent::AnswerDelta { text } if !text.is_empty() => {
                self.close_thinking();
                match self.blocks.last_mut() {
                    Some((false, answer, _)) => answer.push_str(text),
                    _ => self.blocks.push((false, text.clone(), false)),
                }
            }
            TurnEvent::AnswerWasThinking { .. } => {
                // Everything so far was reasoning: an open block ends here too.
                self.close_thinking();
                let text: String = self
                    .blocks
                    .iter()
                    .filter(|b| !b.0)
                    .map(|b| b.1.as_str())
                    .collect();
                self.blocks.retain(|b| b.0);
                if !text.trim().is_empty() {
                    self.blocks.push((true, text, false));
                }
            }
            TurnEvent::Done { .. } | TurnEvent::Error { .. } => {
                self.close_thinking();
                self.live = false;
            }
            _ => {}
        }
    }
}

/// Reads events off the input: one opcode byte, then (for text events) a
/// length byte and that many bytes of text (lossy UTF-8, so any input works).
fn events(mut data: &[u8]) -> Vec<TurnEvent> {
    let mut out = Vec::new();
    while let Some((&op, rest)) = data.split_first() {
        data = rest;
        let mut text = || {
            let (&len, rest) = data.split_first().unwrap_or((&0, &[]));
            let take = usize::from(len % 16).min(rest.len());
            let (text, rest) = rest.split_at(take);
            data = rest;
            String::from_utf8_lossy(text).into_owned()
        };
        out.push(match op % 10 {
            0 => TurnEvent::ThinkingStart,
            1 | 2 => TurnEvent::ThinkingDelta { text: text() },
            3 => TurnEvent::ThinkingEnd {
                duration_ms: u64::from(op),
                opaque: op & 0x80 != 0,
            },
            4 | 5 => TurnEvent::AnswerDelta { text: text() },
            6 => TurnEvent::AnswerWasThinking {
                duration_ms: u64::from(op),
            },
            7 => TurnEvent::Usage(Usage {
                input_tokens: Some(u64::from(op)),
                output_tokens: None,
                reasoning_tokens: Some(1),
            }),
            8 => TurnEvent::Done {
                finish_reason: None,
                output_limit: None,
            },
            _ => TurnEvent::error(ErrorKind::Network, "lost"),
        });
    }
    out
}

fuzz_target!(|data: &[u8]| {
    // The first byte says whether the user presses Stop after the events.
    let Some((&stop, body)) = data.split_first() else {
        return;
    };
    let mut turn = Turn::new(0.0);
    let mut model = Model {
        live: true,
        ..Model::default()
    };
    for (i, event) in events(body).into_iter().enumerate() {
        let terminal = matches!(event, TurnEvent::Done { .. } | TurnEvent::Error { .. });
        model.apply(&event);
        turn.apply(event, i as f64);
        if terminal {
            assert!(!turn.status.is_live(), "a terminal event left the turn live");
        }
    }
    if stop & 1 == 1 {
        turn.stop(1e6);
        model.close_thinking();
        model.live = false;
    }
    if !model.live {
        assert!(!turn.status.is_live());
        for block in &turn.blocks {
            if let Block::Thinking(thinking) = block {
                assert_ne!(
                    thinking.state,
                    BlockState::Streaming,
                    "a block is still open after the turn ended: {:?}",
                    turn.blocks
                );
            }
        }
    }
    let actual: Vec<(bool, &str)> = turn
        .blocks
        .iter()
        .map(|b| match b {
            Block::Thinking(t) => (true, t.text.as_str()),
            Block::Answer { text } => (false, text.as_str()),
            // No tool event is ever generated here, so a step is a bug.
            Block::Tool(step) => panic!("a tool step without a tool event: {step:?}"),
        })
        .collect();
    let expected: Vec<(bool, &str)> = model.blocks.iter().map(|b| (b.0, b.1.as_str())).collect();
    assert_eq!(actual, expected, "block texts differ from the deltas routed to them");
});
