//! The versions of a turn as stored: the others hang off its question
//! (`Message::User`'s `versions`). What Regenerate, Edit and switching do
//! with them is in `turn/versions.rs`.

use serde::{Deserialize, Serialize};

use super::Message;

/// The versions of a turn other than the one shown, kept on its question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Versions {
    /// Where the shown version sits among all of them (0: the first asked).
    pub shown: usize,
    /// The others, oldest first; the shown one goes in at `shown`.
    pub others: Vec<Version>,
}

/// One version of a turn that is not shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Version {
    /// The question as asked in this version.
    pub content: String,
    /// Its answer and every message after it, as last shown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<Message>,
}

/// Which version of a turn is shown, of how many (what "2 / 3" says).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionPosition {
    /// The shown version, counted from 0.
    pub shown: usize,
    /// How many versions the turn has (at least 2).
    pub count: usize,
}

impl VersionPosition {
    /// The count as the page shows it: "2 / 3".
    pub fn label(&self) -> String {
        format!("{} / {}", self.shown + 1, self.count)
    }

    /// The version before the shown one, if any.
    pub fn previous(&self) -> Option<usize> {
        self.shown.checked_sub(1)
    }

    /// The version after the shown one, if any.
    pub fn next(&self) -> Option<usize> {
        (self.shown + 1 < self.count).then_some(self.shown + 1)
    }
}

impl Versions {
    /// Which version is shown, of how many; `None` when there is no other.
    pub fn position(&self) -> Option<VersionPosition> {
        (!self.others.is_empty()).then(|| VersionPosition {
            shown: self.shown.min(self.others.len()),
            count: self.others.len() + 1,
        })
    }

    /// Makes the shown index point at a version that exists (a hand-edited
    /// record may say otherwise); `None` when there is no other version.
    pub(crate) fn settled(mut self) -> Option<Self> {
        if self.others.is_empty() {
            return None;
        }
        self.shown = self.shown.min(self.others.len());
        Some(self)
    }
}
