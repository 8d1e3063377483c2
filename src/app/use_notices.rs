//! Notices about saved data (storage full, a record unreadable, history from
//! a newer version): what the page shows above the conversation until the user
//! dismisses it. Each is shown once, however often its cause repeats: another
//! tab's saves can report the same thing many times over.

use leptos::prelude::*;

use super::history::Notice;

/// The page's notices (a `Copy` handle).
#[derive(Clone, Copy)]
pub struct UseNoticesReturn {
    /// Shown in order of arrival.
    pub notices: RwSignal<Vec<Notice>>,
}

/// The notice list of a page.
pub fn use_notices() -> UseNoticesReturn {
    UseNoticesReturn {
        notices: RwSignal::new(Vec::new()),
    }
}

impl UseNoticesReturn {
    /// Shows a notice unless the same one is already shown.
    pub fn push(&self, notice: Notice) {
        self.notices.update(|n| {
            if !n.iter().any(|x| x.message == notice.message) {
                n.push(notice);
            }
        });
    }

    /// Shows a plain message (nothing to download).
    pub fn say(&self, message: String) {
        self.push(Notice {
            message,
            backup: None,
        });
    }

    /// Shows what loading history found, each as found (two unreadable
    /// records each offer their own backup, even when worded alike).
    pub fn show_all(&self, found: Vec<Notice>) {
        if !found.is_empty() {
            self.notices.update(|n| n.extend(found));
        }
    }

    /// The user dismissed the notice saying `message`.
    pub fn dismiss(&self, message: &str) {
        self.notices.update(|n| n.retain(|x| x.message != message));
    }
}
