//! The life of a thinking block inside `Turn`: opening, appending, ending,
//! converting prefilled answer text, and freezing its timer when the turn is
//! cut short.

use super::block::{Block, BlockState, Thinking};
use super::change::Change;
use super::status::TurnStatus;
use super::Turn;
use crate::turn::event::TurnEvent;
use crate::turn::headline::{headline_of, HeadlineTracker};
use crate::turn::ReasoningSource;

impl Turn {
    pub(super) fn open_thinking(&mut self) -> Option<(usize, &mut Thinking)> {
        let index = self.blocks.len().checked_sub(1)?;
        match &mut self.blocks[index] {
            Block::Thinking(block) if block.state == BlockState::Streaming => Some((index, block)),
            _ => None,
        }
    }

    pub(super) fn append_thinking(&mut self, text: String, now_ms: f64) -> Vec<Change> {
        let mut changes = Vec::new();
        if self.open_thinking().is_none() {
            // Tolerate a producer that forgot `thinking_start`.
            changes.extend(self.apply(TurnEvent::ThinkingStart, now_ms));
        }
        if let Some((index, block)) = self.open_thinking() {
            block.text.push_str(&text);
            let headline_moved = block.track_headline(false);
            let meta = headline_moved.then(|| block.meta());
            changes.push(Change::Appended { index, text });
            if let Some(meta) = meta {
                changes.push(Change::Updated { index, meta });
            }
        }
        changes
    }

    pub(super) fn end_thinking(&mut self, duration_ms: u64, opaque: bool) -> Vec<Change> {
        let Some((index, block)) = self.open_thinking() else {
            return Vec::new();
        };
        block.duration_ms = Some(duration_ms);
        block.opaque = opaque && block.text.trim().is_empty();
        if block.opaque && !block.source.is_some_and(ReasoningSource::is_cut_short) {
            block.source = Some(ReasoningSource::Hidden);
        }
        block.state = BlockState::Done;
        block.track_headline(true);
        vec![Change::Updated {
            index,
            meta: block.meta(),
        }]
    }

    pub(super) fn answer_was_thinking(&mut self, duration_ms: u64) -> Vec<Change> {
        // Everything so far was reasoning from a prefilled `<think>`: fold all the
        // answer text received into one finished thinking block. A block still
        // open (a producer that broke the contract) is closed first: the
        // converted block goes last, so the open one would otherwise never be
        // closed by the end of the turn (found by the `reducer` fuzz target).
        let mut changes = self.close_open_thinking(None, BlockState::Done);
        let text = self.answer_text();
        self.blocks.retain(|b| !matches!(b, Block::Answer { .. }));
        if !text.trim().is_empty() {
            self.blocks.push(Block::Thinking(Thinking {
                headline: headline_of(&text),
                text,
                duration_ms: Some(duration_ms),
                opaque: false,
                state: BlockState::Done,
                // Reasoning the model wrote in its answer text: all of it.
                source: Some(ReasoningSource::Full),
                started_at_ms: self.started_at_ms,
                headlines: HeadlineTracker::default(),
            }));
        }
        self.status = TurnStatus::Thinking;
        changes.extend([
            Change::Restructured(self.blocks.clone()),
            self.status_change(),
        ]);
        changes
    }

    /// Closes a still-streaming block (contract violation or end of stream).
    pub(super) fn close_open_thinking(
        &mut self,
        duration_ms: Option<u64>,
        state: BlockState,
    ) -> Vec<Change> {
        match self.open_thinking() {
            Some((index, block)) => {
                block.state = state;
                if duration_ms.is_some() {
                    block.duration_ms = duration_ms;
                }
                block.track_headline(true);
                vec![Change::Updated {
                    index,
                    meta: block.meta(),
                }]
            }
            None => Vec::new(),
        }
    }

    /// Freezes a streaming block at the client-measured elapsed time.
    pub(super) fn interrupt_open_thinking(&mut self, now_ms: f64) -> Vec<Change> {
        let elapsed = self.open_thinking_elapsed(now_ms);
        self.close_open_thinking(elapsed, BlockState::Interrupted)
    }

    /// How long the open block has been thinking, by the client's clock.
    fn open_thinking_elapsed(&mut self, now_ms: f64) -> Option<u64> {
        self.open_thinking()
            .map(|(_, block)| (now_ms - block.started_at_ms).max(0.0) as u64)
    }

    /// Where the thinking block that streams now is (what "Answer now" cuts).
    pub fn open_thinking_index(&mut self) -> Option<usize> {
        self.open_thinking().map(|(index, _)| index)
    }

    /// "Answer now" reached a provider that ends thinking on request
    /// (llama.cpp): block `index`, open when the user pressed, reads "Cut
    /// short" from now on. It may have ended already (the provider is quick
    /// to stop, the reply to the press slower); its stream gave its time.
    pub fn mark_cut_short(&mut self, index: usize) -> Vec<Change> {
        match self.blocks.get_mut(index) {
            Some(Block::Thinking(block)) if block.state != BlockState::Interrupted => {
                block.source = Some(ReasoningSource::CutShort);
                vec![Change::Updated {
                    index,
                    meta: block.meta(),
                }]
            }
            _ => Vec::new(),
        }
    }

    /// "Answer now" on a provider without a control: the stream is dropped
    /// and the turn asked again. The open block ends here, at the elapsed
    /// time the client measured, cut short; the turn waits for the answer.
    pub fn cut_short_to_ask_again(&mut self, now_ms: f64, control_failed: bool) -> Vec<Change> {
        if !self.status.is_live() {
            return Vec::new();
        }
        if let Some((_, block)) = self.open_thinking() {
            block.source = Some(if control_failed {
                ReasoningSource::AskedAgain
            } else {
                ReasoningSource::CutShort
            });
        }
        let elapsed = self.open_thinking_elapsed(now_ms);
        let mut changes = self.close_open_thinking(elapsed, BlockState::Done);
        self.status = TurnStatus::Waiting;
        changes.push(self.status_change());
        changes
    }

    /// The reasoning text of the turn so far, its blocks joined (what a turn
    /// asked again is given back).
    pub fn reasoning_text(&self) -> String {
        self.blocks
            .iter()
            .filter_map(|b| match b {
                Block::Thinking(t) if !t.text.trim().is_empty() => Some(t.text.trim_end()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

/// "Answer now" and where reasoning comes from.
#[cfg(test)]
mod answer_now_tests {
    use super::*;
    use crate::turn::reducer::TurnProgress;

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
}
