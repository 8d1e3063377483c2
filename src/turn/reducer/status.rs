//! Where a turn stands (`TurnStatus`) and how it ended badly or empty
//! (`ShownError`, `EmptyOutcome`).

use serde::{Deserialize, Serialize};

use crate::turn::event::ErrorKind;

/// Where a turn is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnStatus {
    /// Request sent, nothing received yet.
    Waiting,
    Thinking,
    Answering,
    Done,
    Error,
    /// Ended by the user (Stop) or by a lost connection / reload.
    Stopped,
}

impl TurnStatus {
    /// True while events may still arrive.
    pub fn is_live(self) -> bool {
        matches!(self, Self::Waiting | Self::Thinking | Self::Answering)
    }
}

/// What went wrong, as the turn keeps it and the user sees it (why it went
/// wrong is `turn_error::TurnError`, whose `event()` carries these two fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShownError {
    pub kind: ErrorKind,
    pub message: String,
}

/// The note an ended turn without answer text gets (design §4). The one
/// predicate the view and the tests share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmptyOutcome {
    /// The model reasoned (readable, hidden by the provider, or counted in
    /// reasoning tokens) but wrote no answer.
    ThoughtWithoutAnswer,
    /// No answer and no reasoning the user can see or was told of: also what
    /// the browser gets under the kill switch, which hides that reasoning
    /// happened at all, so this note never mentions thinking.
    EmptyAnswer,
}

impl EmptyOutcome {
    /// The note for a turn in `status` with this `answer` text; `reasoned`: a
    /// non-empty thinking block; `reasoning_tokens`: the provider's count.
    pub fn of(
        status: TurnStatus,
        answer: &str,
        reasoned: bool,
        reasoning_tokens: Option<u64>,
    ) -> Option<Self> {
        if status != TurnStatus::Done || !answer.trim().is_empty() {
            return None; // errors and Stop say so themselves
        }
        Some(if reasoned || reasoning_tokens.is_some_and(|n| n > 0) {
            Self::ThoughtWithoutAnswer
        } else {
            Self::EmptyAnswer
        })
    }

    /// What the user reads.
    pub fn note(self) -> &'static str {
        match self {
            Self::ThoughtWithoutAnswer => "The model finished thinking without an answer.",
            Self::EmptyAnswer => "The model returned an empty answer.",
        }
    }
}
