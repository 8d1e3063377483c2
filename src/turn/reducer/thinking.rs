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
        block.opened_after_ms = None;
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
                opened_after_ms: None,
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
                block.opened_after_ms = None;
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
