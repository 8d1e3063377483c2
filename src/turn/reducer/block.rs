//! The blocks of a turn: a thinking block (its text, state, timer start and
//! headline) and an answer block, whether a thinking block is shown, and
//! what a view shows of a thinking block besides its text (`ThinkingMeta`).

use serde::{Deserialize, Serialize};

use crate::turn::headline::HeadlineTracker;
use crate::turn::ReasoningSource;

/// A thinking block's metadata as the view shows it (changes a handful of
/// times per block, unlike its text).
#[derive(Debug, Clone, PartialEq)]
pub struct ThinkingMeta {
    pub duration_ms: Option<u64>,
    pub opaque: bool,
    pub state: BlockState,
    /// Where the text comes from (`None`: not known, an older record).
    pub source: Option<ReasoningSource>,
    pub started_at_ms: f64,
    /// The label naming the block (latest `<topic>` or bold-only line).
    pub headline: Option<String>,
}

/// Life of one thinking block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockState {
    Streaming,
    Done,
    /// Cut short (Stop, lost connection, error): the timer froze.
    Interrupted,
}

/// A reasoning block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Thinking {
    pub text: String,
    /// Server-measured duration; `None` while streaming or when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(default)]
    pub opaque: bool,
    /// The latest headline (`<topic>` label or bold-only line) of the text,
    /// kept up to date as it streams; it names the block in its header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headline: Option<String>,
    pub state: BlockState,
    /// Where the text comes from (full, summary, hidden, cut short); `None`
    /// in records from before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<ReasoningSource>,
    /// Client clock (ms) when the block opened; drives the live timer only.
    #[serde(skip)]
    pub started_at_ms: f64,
    /// While it streams: when the block opened, in ms after its turn began,
    /// so a page that attaches to the turn later restarts the timer there
    /// (`Turn::resume_clock`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opened_after_ms: Option<u64>,
    /// Where the headline scan of the text stands (so a chunk costs its size).
    #[serde(skip)]
    pub(super) headlines: HeadlineTracker,
}

impl Thinking {
    pub(super) fn streaming(now_ms: f64, source: Option<ReasoningSource>) -> Self {
        Self {
            text: String::new(),
            duration_ms: None,
            opaque: false,
            headline: None,
            state: BlockState::Streaming,
            source,
            started_at_ms: now_ms,
            opened_after_ms: None,
            headlines: HeadlineTracker::default(),
        }
    }

    /// What the view shows of the block besides its text.
    pub fn meta(&self) -> ThinkingMeta {
        ThinkingMeta {
            duration_ms: self.duration_ms,
            opaque: self.opaque,
            state: self.state,
            source: self.source,
            started_at_ms: self.started_at_ms,
            // A stored blank label (hand-edited or imported) names nothing.
            headline: self.headline.clone().filter(|h| !h.trim().is_empty()),
        }
    }

    /// A block with no readable text and no opaque signal: hidden, not stored.
    pub fn is_empty(&self) -> bool {
        is_empty_reasoning(&self.text, self.opaque)
    }

    /// Brings the headline up to the text; true when it changed. `complete`:
    /// the block ended, so its last line counts even without a newline.
    pub(super) fn track_headline(&mut self, complete: bool) -> bool {
        let changed = if complete {
            self.headlines.finish(&self.text)
        } else {
            self.headlines.update(&self.text)
        };
        if changed {
            self.headline = self.headlines.headline().map(str::to_owned);
        }
        changed
    }
}

/// Reasoning with no readable text and no opaque signal (design §3 "empty").
pub fn is_empty_reasoning(text: &str, opaque: bool) -> bool {
    !opaque && text.trim().is_empty()
}

/// Whether the view shows a thinking block: always while it streams (hidden
/// reasoning shows a live "Thinking… Ns" header before any text, or with none
/// at all), and afterwards only when it is not empty.
pub fn is_shown(state: BlockState, text: &str, opaque: bool) -> bool {
    state == BlockState::Streaming || !is_empty_reasoning(text, opaque)
}

/// One block of an assistant turn, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Block {
    Thinking(Thinking),
    Answer {
        text: String,
    },
    /// A tool call and its result.
    Tool(super::tool_step::ToolStep),
}
