//! The copy buttons' acknowledgement: copy a text to the clipboard, then say
//! "Copied" for a while. One hook for every Leptos-rendered copy button (the
//! answer's, the reasoning's); the code blocks' buttons live in rendered HTML
//! and share only the timing (`code_copy`). Never reads the clipboard.

use std::time::Duration;

use leptos::prelude::*;

use super::browser;

/// How long a button says "Copied".
pub const COPIED_FOR: Duration = Duration::from_secs(2);

/// What `use_copy` gives a button.
#[derive(Clone, Copy)]
pub struct UseCopyReturn {
    /// True from a copy until `COPIED_FOR` after the latest one.
    pub copied: Signal<bool>,
    /// Copies the text and starts (or restarts) the acknowledgement.
    pub copy: Callback<String>,
}

/// A copy action with its "Copied" acknowledgement.
pub fn use_copy() -> UseCopyReturn {
    let copied = RwSignal::new(false);
    // Each copy restarts the wait: only the latest copy's timer clears it, so
    // a second click does not lose its acknowledgement to the first's timer.
    let latest = StoredValue::new(0u64);
    let copy = Callback::new(move |text: String| {
        browser::copy_to_clipboard(&text);
        latest.update_value(|n| *n += 1);
        let this = latest.get_value();
        copied.set(true);
        set_timeout(
            move || {
                // The component may be gone by now: then there is nothing to reset.
                if latest.try_get_value() == Some(this) {
                    copied.set(false);
                }
            },
            COPIED_FOR,
        );
    });
    UseCopyReturn {
        copied: copied.into(),
        copy,
    }
}
