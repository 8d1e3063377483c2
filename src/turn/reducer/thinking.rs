//! The life of a thinking block inside `Turn`: opening, appending, ending,
//! converting prefilled answer text, and freezing its timer when the turn is
//! cut short.

use super::block::{Block, BlockState, Thinking};
use super::change::Change;
use super::status::TurnStatus;
use super::Turn;
use crate::turn::event::TurnEvent;
use crate::turn::headline::{headline_of, HeadlineTracker};

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
        let elapsed = self
            .open_thinking()
            .map(|(_, block)| (now_ms - block.started_at_ms).max(0.0) as u64);
        self.close_open_thinking(elapsed, BlockState::Interrupted)
    }
}
