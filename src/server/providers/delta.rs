//! `Delta`: what one provider chunk said, in terms no dialect owns. Every
//! dialect decoder (and the scripted demo model) produces deltas; the
//! normalizer alone turns them into `TurnEvent`s. Pure data.

use crate::turn::Usage;

/// What a dialect decoder extracted from one provider chunk, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delta {
    /// Readable reasoning text.
    Reasoning(String),
    /// The provider signalled that a reasoning part started (e.g. a Responses
    /// reasoning item was added); its text, if it has any, follows. Opens a
    /// new block at once, so its duration counts from this sign.
    ReasoningStarted,
    /// The provider reasoned without readable text (redacted / encrypted).
    OpaqueReasoning,
    /// The provider started a new reasoning part: close the open block, if any.
    ReasoningBoundary,
    /// Answer text (inline tags are not yet extracted here).
    Answer(String),
    Usage(Usage),
    /// The provider said why it stopped.
    Finish(Option<String>),
    /// The model began tool call `id` (`name` as the model wrote it).
    ToolCallStart {
        id: String,
        name: String,
    },
    /// A fragment of call `id`'s arguments (JSON text).
    ToolCallArguments {
        id: String,
        text: String,
    },
    /// Call `id`'s arguments arrived whole (dialects that do not stream them).
    ToolCallWhole {
        id: String,
        arguments: serde_json::Value,
    },
    /// State the provider needs back with this response (opaque JSON).
    Continuity(serde_json::Value),
    /// Another model answers from here on (the provider's name for it).
    ModelSwitched(String),
}
