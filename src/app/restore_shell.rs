//! Reload without a flash (DESIGN §5). History lives in localStorage, which
//! the server cannot see, so the server renders the empty conversation and the
//! app loads history after hydration. For a returning user that would paint
//! the "Ask a reasoning model something hard" welcome until the WASM loads.
//!
//! A tiny inline script in `<head>` (it carries the page's CSP nonce) runs
//! before the body is parsed: when a stored conversation exists it puts
//! `restoring` on `<html>`, and the stylesheet keeps the welcome hidden while
//! that class is there. The app removes it once history is loaded. It touches
//! only `<html>`, which is never hydrated, so the hydrated body matches the
//! server's HTML exactly. It must never read more than key names.

use leptos::prelude::*;

/// The class on `<html>` while stored history is being loaded.
pub const RESTORING_CLASS: &str = "restoring";

/// Marks the document when any stored conversation exists (the key prefix of
/// `history.rs`; the index alone is not enough: it may be missing and rebuilt,
/// or list nothing after every conversation was deleted). Storage that cannot
/// be read leaves the page as a first visit would see it.
const SCRIPT: &str = r#"try{for(var i=0,s=localStorage;i<s.length;i++){if((s.key(i)||"").indexOf("pensive.conversation.")===0){document.documentElement.classList.add("restoring");break}}}catch(e){}"#;

/// The inline script, for the document's `<head>`.
#[component]
pub fn RestoringScript() -> impl IntoView {
    let nonce = leptos::nonce::use_nonce();
    view! { <script nonce=nonce>{SCRIPT}</script> }
}

/// History is loaded (or found unreadable): let the page show what it has,
/// including the welcome when there turned out to be nothing to show.
pub fn restored() {
    #[cfg(feature = "hydrate")]
    if let Some(html) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = html.class_list().remove_1(RESTORING_CLASS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_sets_the_class_the_stylesheet_and_the_app_use() {
        assert!(SCRIPT.contains(&format!("classList.add(\"{RESTORING_CLASS}\")")));
        let css = include_str!("../../style/main.css");
        assert!(css.contains(&format!("html.{RESTORING_CLASS} .empty-state")));
    }

    #[test]
    fn the_script_looks_for_the_keys_history_writes() {
        // history.rs stores each conversation under this prefix and treats it
        // as a history key; the script must look for the same one.
        assert!(crate::app::history::is_history_key(Some(
            "pensive.conversation.c1"
        )));
        assert!(SCRIPT.contains("\"pensive.conversation.\""));
    }
}
