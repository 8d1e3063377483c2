//! Reactive mirror of a reducer `Turn`: one signal per block, so a chunk
//! touches only the block that grew (never the whole message list). The pure
//! `Turn` stays the source of truth; `sync` replays the reducer's `Change`s,
//! which carry their data, so the view never reads the `Turn` back.

use leptos::prelude::*;

use crate::turn::reducer::{
    Block, BlockState, Change, ShownError, ToolStep, Turn, TurnModel, TurnProgress, TurnStatus,
};
use crate::turn::turn_footer::{cut_note, model_line};
use crate::turn::{Effort, Usage};

pub use crate::turn::reducer::ThinkingMeta;

/// Which kind of block a `BlockView` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    Thinking,
    Answer,
    Tool,
}

/// One block's signals.
#[derive(Debug, Clone, Copy)]
pub struct BlockView {
    /// Stable key for `<For>`.
    pub key: usize,
    pub kind: BlockKind,
    pub text: RwSignal<String>,
    pub meta: RwSignal<ThinkingMeta>,
    /// A tool step's state and result (`None` for other blocks); its
    /// arguments stream into `text`.
    pub tool: RwSignal<Option<ToolStep>>,
}

/// A turn's signals.
#[derive(Debug, Clone, Copy)]
pub struct TurnView {
    pub blocks: RwSignal<Vec<BlockView>>,
    pub status: RwSignal<TurnStatus>,
    pub error: RwSignal<Option<ShownError>>,
    pub usage: RwSignal<Option<Usage>>,
    pub started_at_ms: RwSignal<f64>,
    /// Time to the first event (the "Reasoned for" duration of hidden reasoning).
    pub ttft_ms: RwSignal<Option<u64>>,
    /// The effort the turn was asked at (fixed when it is sent).
    pub effort: Option<Effort>,
    /// The model the turn was sent to.
    model: StoredValue<Option<TurnModel>>,
    /// "qwen3-32b · low effort": who wrote the turn (set when it is sent;
    /// names the model that took over, when one does).
    pub model_line: StoredValue<Option<String>>,
    /// "Cut off at the length limit (…)" once the turn ended at the limit.
    pub cut_note: RwSignal<Option<String>>,
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
            effort: turn.effort,
            model: StoredValue::new(turn.model.clone()),
            model_line: StoredValue::new(model_line(
                turn.model.as_ref(),
                turn.effort,
                turn.answered_by.as_deref(),
            )),
            cut_note: RwSignal::new(cut_note(turn.finish_reason.as_deref(), turn.output_limit)),
            next_key: StoredValue::new(0),
        };
        view.rebuild(&turn.blocks);
        view
    }

    /// Applies the reducer's changes, from what they carry alone; work is
    /// proportional to what changed.
    pub fn sync(&self, changes: impl IntoIterator<Item = Change>) {
        for change in changes {
            match change {
                Change::Opened(block) => {
                    let view = self.block_view(&block);
                    self.blocks.update(|b| b.push(view));
                }
                Change::Appended { index, text } => {
                    if let Some(view) = self.blocks.with_untracked(|b| b.get(index).copied()) {
                        view.text.update(|t| t.push_str(&text));
                        // A tool step's arguments stream in: said once.
                        let unmarked = view
                            .tool
                            .with_untracked(|s| s.as_ref().is_some_and(|s| !s.streamed));
                        if unmarked {
                            view.tool.update(|s| {
                                if let Some(step) = s {
                                    step.streamed = true;
                                }
                            });
                        }
                    }
                }
                Change::Updated { index, meta } => {
                    if let Some(view) = self.blocks.with_untracked(|b| b.get(index).copied()) {
                        view.meta.set(meta);
                    }
                }
                Change::ToolUpdated { index, step } => {
                    if let Some(view) = self.blocks.with_untracked(|b| b.get(index).copied()) {
                        if view.text.with_untracked(|t| t != &step.arguments) {
                            view.text.set(step.arguments.clone());
                        }
                        view.tool.set(Some(step));
                    }
                }
                Change::Restructured(blocks) => self.rebuild(&blocks),
                Change::Status(progress) => self.set_progress(progress),
            }
        }
    }

    fn set_progress(&self, progress: TurnProgress) {
        if let Some(name) = progress.answered_by.as_deref() {
            let line = self
                .model
                .with_value(|m| model_line(m.as_ref(), self.effort, Some(name)));
            self.model_line.set_value(line);
        }
        self.status.set(progress.status);
        if self.error.with_untracked(|e| e != &progress.error) {
            self.error.set(progress.error);
        }
        if self.usage.get_untracked() != progress.usage {
            self.usage.set(progress.usage);
        }
        if self.ttft_ms.get_untracked() != progress.ttft_ms {
            self.ttft_ms.set(progress.ttft_ms);
        }
        let cut = cut_note(progress.finish_reason.as_deref(), progress.output_limit);
        if self.cut_note.with_untracked(|c| c != &cut) {
            self.cut_note.set(cut);
        }
    }

    fn rebuild(&self, blocks: &[Block]) {
        let views = blocks.iter().map(|b| self.block_view(b)).collect();
        self.blocks.set(views);
    }

    fn block_view(&self, block: &Block) -> BlockView {
        let key = self.next_key.get_value();
        self.next_key.set_value(key + 1);
        let plain = ThinkingMeta {
            duration_ms: None,
            opaque: false,
            state: BlockState::Done,
            source: None,
            started_at_ms: 0.0,
            headline: None,
        };
        let (kind, meta, tool) = match block {
            Block::Thinking(t) => (BlockKind::Thinking, t.meta(), None),
            Block::Answer { .. } => (BlockKind::Answer, plain, None),
            Block::Tool(step) => (BlockKind::Tool, plain, Some(step.clone())),
        };
        BlockView {
            key,
            kind,
            text: RwSignal::new(block_text(block).to_owned()),
            meta: RwSignal::new(meta),
            tool: RwSignal::new(tool),
        }
    }
}

fn block_text(block: &Block) -> &str {
    match block {
        Block::Thinking(t) => &t.text,
        Block::Answer { text } => text,
        Block::Tool(step) => &step.arguments,
    }
}
