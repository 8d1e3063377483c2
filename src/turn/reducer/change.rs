//! What one `Turn::apply` reports (`Change`) and the values it carries, so a
//! view mirrors the turn from the changes alone.

use super::block::{Block, ThinkingMeta};
use super::status::{ShownError, TurnStatus};
use crate::turn::event::Usage;

/// The turn-wide values a view shows, as they are after a change.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnProgress {
    pub status: TurnStatus,
    pub error: Option<ShownError>,
    pub usage: Option<Usage>,
    pub ttft_ms: Option<u64>,
    /// Why the provider ended (`length`: cut at the output limit).
    pub finish_reason: Option<String>,
    /// The output limit the turn was asked with, when known.
    pub output_limit: Option<u32>,
    /// The model that took over from the one asked (`model_switched`).
    pub answered_by: Option<String>,
}

/// What one `apply` changed, carrying the new data, so a view mirrors the turn
/// from the changes alone and touches only what moved. What a change carries
/// is proportional to what moved: a chunk carries its own text, never the
/// text so far.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A block was pushed at the end, as it opened (empty, or its first chunk).
    Opened(Block),
    /// `text` was appended to block `index`.
    Appended { index: usize, text: String },
    /// Block `index`'s metadata is now `meta` (state, duration, opaque, headline).
    Updated { index: usize, meta: ThinkingMeta },
    /// Tool step `index` changed state (ready, waiting, ended): all of it now
    /// (a handful of times per call; its streaming arguments are `Appended`).
    ToolUpdated {
        index: usize,
        step: super::tool_step::ToolStep,
    },
    /// The block list changed shape (removal or conversion): all of it now.
    Restructured(Vec<Block>),
    /// Status, usage, error or time to first token changed: all of them now.
    Status(TurnProgress),
}
