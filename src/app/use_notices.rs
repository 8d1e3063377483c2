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
    pub notices: Signal<Vec<Notice>>,
    /// Only this hook's methods change the list.
    set_notices: WriteSignal<Vec<Notice>>,
}

/// The notice list of a page.
pub fn use_notices() -> UseNoticesReturn {
    let (notices, set_notices) = signal(Vec::new());
    UseNoticesReturn {
        notices: notices.into(),
        set_notices,
    }
}

impl UseNoticesReturn {
    /// Shows a notice unless the same one is already shown.
    pub fn push(&self, notice: Notice) {
        self.set_notices.update(|n| {
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
            self.set_notices.update(|n| n.extend(found));
        }
    }

    /// The user dismissed the notice saying `message`.
    pub fn dismiss(&self, message: &str) {
        self.set_notices
            .update(|n| n.retain(|x| x.message != message));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice(message: &str, backup: Option<&str>) -> Notice {
        Notice {
            message: message.into(),
            backup: backup.map(Into::into),
        }
    }

    #[test]
    fn a_repeated_cause_is_said_once_and_dismissing_removes_only_that_notice() {
        let owner = Owner::new();
        owner.with(|| {
            let notices = use_notices();
            notices.say("Storage is full.".into());
            notices.say("Storage is full.".into());
            notices.push(notice("Another tab wrote a newer version.", None));
            let shown = || notices.notices.with_untracked(|n| n.len());
            assert_eq!(shown(), 2);
            notices.dismiss("Storage is full.");
            assert_eq!(
                notices.notices.with_untracked(|n| n[0].message.clone()),
                "Another tab wrote a newer version."
            );
        });
    }

    #[test]
    fn what_loading_found_is_all_shown_each_with_its_own_backup() {
        let owner = Owner::new();
        owner.with(|| {
            let notices = use_notices();
            notices.show_all(vec![
                notice("A conversation could not be read.", Some("{1")),
                notice("A conversation could not be read.", Some("{2")),
            ]);
            let backups: Vec<Option<String>> = notices
                .notices
                .with_untracked(|n| n.iter().map(|x| x.backup.clone()).collect());
            assert_eq!(backups, [Some("{1".to_owned()), Some("{2".to_owned())]);
        });
    }
}
