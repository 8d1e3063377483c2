//! Reactive mirror of a reducer `Turn`: one signal per block, so a chunk
//! touches only the block that grew (never the whole message list). The pure
//! `Turn` stays the source of truth; `sync` replays the reducer's `Change`s.

use leptos::prelude::*;

use crate::turn::reducer::{Block, BlockState, Change, Turn, TurnError, TurnStatus};
use crate::turn::Usage;

/// Metadata of a thinking block (changes a handful of times per block).
#[derive(Debug, Clone, PartialEq)]
pub struct ThinkingMeta {
    pub duration_ms: Option<u64>,
    pub opaque: bool,
    pub state: BlockState,
    pub started_at_ms: f64,
    /// The label naming the block (latest `<topic>` or bold-only line).
    pub headline: Option<String>,
}

/// Which kind of block a `BlockView` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    Thinking,
    Answer,
}

/// One block's signals.
#[derive(Debug, Clone, Copy)]
pub struct BlockView {
    /// Stable key for `<For>`.
    pub key: usize,
    pub kind: BlockKind,
    pub text: RwSignal<String>,
    pub meta: RwSignal<ThinkingMeta>,
}

/// A turn's signals.
#[derive(Debug, Clone, Copy)]
pub struct TurnView {
    pub blocks: RwSignal<Vec<BlockView>>,
    pub status: RwSignal<TurnStatus>,
    pub error: RwSignal<Option<TurnError>>,
    pub usage: RwSignal<Option<Usage>>,
    pub started_at_ms: RwSignal<f64>,
    /// Time to the first event (the "Reasoned for" duration of hidden reasoning).
    pub ttft_ms: RwSignal<Option<u64>>,
    next_key: StoredValue<usize>,
}

impl TurnView {
    /// Signals showing `turn` as it is now.
    pub fn new(turn: &Turn) -> Self {
        let view = Self {
            blocks: RwSignal::new(Vec::new()),
            status: RwSignal::new(turn.status),
            error: RwSignal::new(turn.error.clone()),
            usage: RwSignal::new(turn.usage),
            started_at_ms: RwSignal::new(turn.started_at_ms),
            ttft_ms: RwSignal::new(turn.ttft_ms),
            next_key: StoredValue::new(0),
        };
        view.rebuild(turn);
        view
    }

    /// Applies the reducer's changes; work is proportional to what changed.
    pub fn sync(&self, turn: &Turn, changes: &[Change]) {
        for change in changes {
            match *change {
                Change::Opened(index) => {
                    if let Some(block) = turn.blocks.get(index) {
                        let view = self.block_view(block);
                        self.blocks.update(|b| b.push(view));
                    }
                }
                Change::Appended { index, from } => {
                    let (Some(view), Some(block)) = (
                        self.blocks.with_untracked(|b| b.get(index).copied()),
                        turn.blocks.get(index),
                    ) else {
                        continue;
                    };
                    let text = block_text(block);
                    if let Some(tail) = text.get(from..) {
                        view.text.update(|t| t.push_str(tail));
                    }
                }
                Change::Updated(index) => {
                    let view = self.blocks.with_untracked(|b| b.get(index).copied());
                    if let (Some(view), Some(Block::Thinking(t))) = (view, turn.blocks.get(index)) {
                        view.meta.set(meta_of(t));
                    }
                }
                Change::Restructured => self.rebuild(turn),
                Change::Status => {
                    self.status.set(turn.status);
                    if self.error.with_untracked(|e| e != &turn.error) {
                        self.error.set(turn.error.clone());
                    }
                    if self.usage.get_untracked() != turn.usage {
                        self.usage.set(turn.usage);
                    }
                    if self.ttft_ms.get_untracked() != turn.ttft_ms {
                        self.ttft_ms.set(turn.ttft_ms);
                    }
                }
            }
        }
    }

    fn rebuild(&self, turn: &Turn) {
        let views = turn.blocks.iter().map(|b| self.block_view(b)).collect();
        self.blocks.set(views);
    }

    fn block_view(&self, block: &Block) -> BlockView {
        let key = self.next_key.get_value();
        self.next_key.set_value(key + 1);
        let (kind, meta) = match block {
            Block::Thinking(t) => (BlockKind::Thinking, meta_of(t)),
            Block::Answer { .. } => (
                BlockKind::Answer,
                ThinkingMeta {
                    duration_ms: None,
                    opaque: false,
                    state: BlockState::Done,
                    started_at_ms: 0.0,
                    headline: None,
                },
            ),
        };
        BlockView {
            key,
            kind,
            text: RwSignal::new(block_text(block).to_owned()),
            meta: RwSignal::new(meta),
        }
    }
}

fn block_text(block: &Block) -> &str {
    match block {
        Block::Thinking(t) => &t.text,
        Block::Answer { text } => text,
    }
}

fn meta_of(t: &crate::turn::reducer::Thinking) -> ThinkingMeta {
    ThinkingMeta {
        duration_ms: t.duration_ms,
        opaque: t.opaque,
        state: t.state,
        started_at_ms: t.started_at_ms,
        // A stored blank label (hand-edited or imported) names nothing.
        headline: t.headline.clone().filter(|h| !h.trim().is_empty()),
    }
}
