//! A live turn's place in the server's log of it (`turn::log_line`): which
//! run to attach to, with what secret, and the last line folded in, so that
//! a page that attaches again gets every line after it: none twice, none
//! missed.

use serde::{Deserialize, Serialize};

use super::{Block, BlockState, Change, Turn};
use crate::turn::log_line::Stamp;
use crate::turn::TurnEvent;

/// The server's run of a live turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnRun {
    /// The id the page gave the turn.
    pub turn_id: String,
    /// The page's secret for it: only its holder may attach or stop.
    pub secret: String,
    /// The last line of the log folded into the turn (0: none yet).
    #[serde(default)]
    pub seq: u64,
    /// Which run of the server holds the turn, once it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot: Option<String>,
}

impl Turn {
    /// Folds in a line of the turn's log: a line at or before the last one
    /// folded in is skipped (a reader that attached again may repeat it);
    /// the terminal event lets go of the run.
    pub fn apply_logged(
        &mut self,
        stamp: Option<super::super::log_line::Stamp>,
        event: TurnEvent,
        now_ms: f64,
    ) -> Vec<Change> {
        if let (Some(Stamp { seq, .. }), Some(run)) = (stamp, self.run.as_mut()) {
            if seq <= run.seq {
                return Vec::new();
            }
            run.seq = seq;
        }
        let terminal = event.is_terminal();
        let changes = self.apply(event, now_ms);
        if terminal {
            self.run = None;
        }
        changes
    }

    /// Notes the server's run (its first word on a connection).
    pub fn note_boot(&mut self, boot: &str) {
        if let Some(run) = self.run.as_mut() {
            run.boot.get_or_insert_with(|| boot.to_owned());
        }
    }

    /// Puts the live timers on a page's clock again: the turn began at
    /// `began_at_ms` of this page's clock (its server time subtracted from
    /// now), and the open thinking block at its offset from there.
    pub fn resume_clock(&mut self, began_at_ms: f64) -> Vec<Change> {
        self.started_at_ms = began_at_ms;
        let mut changes = Vec::new();
        for (index, block) in self.blocks.iter_mut().enumerate() {
            if let Block::Thinking(thinking) = block {
                if thinking.state == BlockState::Streaming {
                    let opened = thinking.opened_after_ms.unwrap_or(0) as f64;
                    thinking.started_at_ms = began_at_ms + opened;
                    changes.push(Change::Updated {
                        index,
                        meta: thinking.meta(),
                    });
                }
            }
        }
        changes
    }

    /// True for a turn the server may still be running for this page.
    pub fn follows_a_run(&self) -> bool {
        self.status.is_live() && self.run.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seq: u64) -> Option<Stamp> {
        Some(Stamp {
            seq,
            at_ms: seq * 100,
        })
    }

    fn following() -> Turn {
        let mut turn = Turn::new(0.0);
        turn.run = Some(Box::new(TurnRun {
            turn_id: "t".into(),
            secret: "s".into(),
            seq: 0,
            boot: None,
        }));
        turn
    }

    fn delta(text: &str) -> TurnEvent {
        TurnEvent::AnswerDelta { text: text.into() }
    }

    #[test]
    fn a_line_folded_in_once_is_never_folded_in_again() {
        let mut turn = following();
        turn.apply_logged(at(1), delta("a"), 1.0);
        turn.apply_logged(at(2), delta("b"), 2.0);
        // Attached again after line 1: line 2 comes again, then line 3.
        turn.apply_logged(at(2), delta("b"), 3.0);
        turn.apply_logged(at(3), delta("c"), 4.0);
        assert_eq!(turn.answer_text(), "abc");
        assert_eq!(turn.run.as_ref().map(|r| r.seq), Some(3));
        assert!(turn.follows_a_run());
        turn.apply_logged(at(4), TurnEvent::Stopped, 5.0);
        assert!(turn.run.is_none(), "the end lets go of the run");
        assert!(!turn.follows_a_run());
    }

    #[test]
    fn a_resumed_clock_puts_the_open_block_where_the_server_had_it() {
        let mut turn = following();
        turn.started_at_ms = 1_000.0;
        turn.apply_logged(at(1), TurnEvent::ThinkingStart, 3_500.0);
        let stored: Turn =
            serde_json::from_str(&serde_json::to_string(&turn).expect("json")).expect("back");
        let mut reloaded = stored;
        // This page's clock: the turn began at 40,000.
        reloaded.resume_clock(40_000.0);
        match &reloaded.blocks[0] {
            Block::Thinking(block) => {
                assert_eq!(block.opened_after_ms, Some(2_500));
                assert_eq!(block.started_at_ms, 42_500.0);
            }
            other => panic!("{other:?}"),
        }
    }
}
