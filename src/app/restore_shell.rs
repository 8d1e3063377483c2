//! Reload without a flash (design §5). History lives in localStorage, which
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
//!
//! The conversation itself paints in the first frame too, as it looked:
//! when the page goes away (and when a turn ends) [`capture_snapshot`] keeps
//! the HTML of the conversation's latest messages beside the quick-restore
//! copy, and a second inline script at the end of `<body>` puts it into an
//! empty, inert box at the top of the conversation before hydration (through
//! a Trusted Types policy of its own, `pensive-restore`, used for that one
//! string) and scrolls to the bottom. The app's own messages stay hidden
//! until they are formatted ([`reveal_when_rendered`]), then take the
//! snapshot's place in one frame: no blank answers, no jump.

use leptos::prelude::*;

/// The class on `<html>` while stored history is being loaded.
pub const RESTORING_CLASS: &str = "restoring";

/// Marks the document when any stored conversation exists: the list's key
/// (history removes it when the list is empty), the current conversation's,
/// or an older build's record not yet moved to IndexedDB. Storage that
/// cannot be read leaves the page as a first visit would see it.
const SCRIPT: &str = r#"try{for(var i=0,s=localStorage,k;i<s.length;i++){k=s.key(i)||"";if(k==="pensive.index"||k==="pensive.current"||k.indexOf("pensive.conversation.")===0){document.documentElement.classList.add("restoring");break}}}catch(e){}"#;

/// The inline script, for the document's `<head>`.
#[component]
pub fn RestoringScript() -> impl IntoView {
    let nonce = leptos::nonce::use_nonce();
    view! { <script nonce=nonce>{SCRIPT}</script> }
}

/// The snapshot box's element id (empty in every render: only the script fills it).
pub const SNAPSHOT_ID: &str = "restore-snapshot";
/// Where the snapshot is kept: `{"id": <conversation id>, "html": ...}`.
pub const SNAPSHOT_KEY: &str = "pensive.snapshot";
/// The Trusted Types policy the snapshot script makes (the page's CSP lists it).
pub const RESTORE_POLICY_NAME: &str = "pensive-restore";
/// The most HTML a snapshot keeps: the latest messages that fit. A reload
/// opens at the latest turn, so that is what the first frame needs.
pub const SNAPSHOT_BYTES: usize = 128 * 1024;
/// Reveal the conversation after this long even if the renderer has not
/// arrived (it then fills the answers in when it does).
#[cfg(feature = "hydrate")]
pub const REVEAL_TIMEOUT_MS: u64 = 3000;

/// Paints the stored snapshot of the current conversation into its box,
/// scrolled to the bottom. It claims the policy name even when there is
/// nothing to paint, so no other script can; the policy lives in a local and
/// turns one string into HTML, once. Until the app takes over, the view stays
/// at the bottom if the conversation's box or the snapshot changes size (the
/// model line streams into the top bar after the body; the snapshot's text
/// can settle a few pixels taller after the script measured it).
const SNAPSHOT_SCRIPT: &str = r#"(function(){try{var t=window.trustedTypes,u=0,p=t&&t.createPolicy("pensive-restore",{createHTML:function(h){if(u++)throw 0;return h}}),s=localStorage,r=JSON.parse(s.getItem("pensive.snapshot")||"null"),b=document.getElementById("restore-snapshot");if(!r||!b||typeof r.html!=="string"||r.id!==s.getItem("pensive.current")||!document.documentElement.classList.contains("restoring"))return;b.innerHTML=p?p.createHTML(r.html):r.html;var m=b.parentElement,c=document.documentElement.classList,o=function(){if(c.contains("restoring"))m.scrollTop=m.scrollHeight;else if(w)w.disconnect()},w=window.ResizeObserver&&new ResizeObserver(o);o();if(w){w.observe(m);w.observe(b)}}catch(e){}})()"#;

/// The snapshot script, for the end of `<body>` (after the app, which it
/// never touches but for the empty box). At the end, so that the page's
/// layout is whole when it scrolls the view to the bottom: run right after
/// its box, a frame painted before the composer was parsed showed the latest
/// answer lower than the next (follow-conversation.spec.ts).
#[component]
pub fn SnapshotScript() -> impl IntoView {
    let nonce = leptos::nonce::use_nonce();
    view! { <script nonce=nonce>{SNAPSHOT_SCRIPT}</script> }
}

/// Keeps how the conversation `id` looks now (the messages in `content`, the
/// latest first, up to [`SNAPSHOT_BYTES`]) for the next load's first frame.
/// Reasoning bodies are left out: a reload shows Thinking blocks folded.
pub fn capture_snapshot(content: Option<leptos::web_sys::HtmlDivElement>, id: &str) {
    #[cfg(feature = "hydrate")]
    snapshot::capture(content, id);
    #[cfg(not(feature = "hydrate"))]
    let _ = (content, id);
}

/// Shows the loaded conversation once its answers are formatted (the
/// renderer has arrived and drawn them), in place of the snapshot, and then
/// calls `then` (which scrolls to the latest turn). With nothing to show, at
/// once.
pub fn reveal_when_rendered(has_messages: bool, then: impl Fn() + Copy + 'static) {
    #[cfg(feature = "hydrate")]
    {
        use super::lazy_renderer;
        let done = StoredValue::new(false);
        let finish = move || {
            if !done.get_value() {
                done.set_value(true);
                restored();
                then();
            }
        };
        if !has_messages {
            finish();
            return;
        }
        // The views ask the renderer's worker in the frame after it is
        // ready and apply its answers as they come; the swap is the first
        // frame after that in which nothing is still with the worker.
        Effect::new(move |_| {
            if lazy_renderer::ready() || lazy_renderer::failed() {
                request_animation_frame(move || when_renderer_idle(finish));
            }
        });
        set_timeout(finish, std::time::Duration::from_millis(REVEAL_TIMEOUT_MS));
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (has_messages, then);
}

/// Calls `then` in the next animation frame in which the renderer has
/// answered every request (its answers are on the page, painted in that frame).
#[cfg(feature = "hydrate")]
fn when_renderer_idle(then: impl Fn() + Copy + 'static) {
    request_animation_frame(move || {
        if super::lazy_renderer::idle() {
            then();
        } else {
            when_renderer_idle(then);
        }
    });
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
        if let Some(snapshot) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(SNAPSHOT_ID))
        {
            snapshot.set_text_content(None);
        }
    }
}

#[cfg(feature = "hydrate")]
mod snapshot {
    use serde::Serialize;
    use wasm_bindgen::JsCast;
    use web_sys::{Element, HtmlDivElement};

    use super::{SNAPSHOT_BYTES, SNAPSHOT_KEY};
    use crate::app::storage;

    #[derive(Serialize)]
    struct Snapshot<'a> {
        id: &'a str,
        html: String,
    }

    pub fn capture(content: Option<HtmlDivElement>, id: &str) {
        let html = content.and_then(|c| latest_messages_html(&c));
        match html {
            Some(html) if !id.is_empty() => {
                if storage::set(SNAPSHOT_KEY, &Snapshot { id, html }).is_err() {
                    // Full storage: better no snapshot than a stale one.
                    storage::delete(SNAPSHOT_KEY);
                }
            }
            _ => storage::delete(SNAPSHOT_KEY),
        }
    }

    /// The latest messages' HTML, in order, as much as fits.
    fn latest_messages_html(content: &HtmlDivElement) -> Option<String> {
        let children = content.children();
        let mut parts = Vec::new();
        let mut total = 0;
        for i in (0..children.length()).rev() {
            let Some(message) = children.item(i) else {
                continue;
            };
            if !message.class_list().contains("message") {
                continue;
            }
            let Some(copy) = message
                .clone_node_with_deep(true)
                .ok()
                .and_then(|n| n.dyn_into::<Element>().ok())
            else {
                continue;
            };
            tidy(&copy);
            let html = copy.outer_html();
            if total + html.len() > SNAPSHOT_BYTES {
                break;
            }
            total += html.len();
            parts.push(html);
        }
        parts.reverse();
        (!parts.is_empty()).then(|| parts.concat())
    }

    /// A picture, not a second copy of the app: folded reasoning (a reload
    /// shows it folded) and no ids or test ids, which belong to the live page.
    fn tidy(copy: &Element) {
        if let Ok(bodies) = copy.query_selector_all(".thinking-body") {
            for i in 0..bodies.length() {
                if let Some(body) = bodies.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                    body.set_text_content(None);
                    let _ = body.set_attribute("hidden", "");
                }
            }
        }
        if let Ok(headers) = copy.query_selector_all("[aria-expanded]") {
            for i in 0..headers.length() {
                if let Some(header) = headers.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                    let _ = header.set_attribute("aria-expanded", "false");
                }
            }
        }
        let strip = |el: &Element| {
            for name in ["id", "data-testid", "aria-controls"] {
                let _ = el.remove_attribute(name);
            }
        };
        strip(copy);
        if let Ok(marked) = copy.query_selector_all("[id],[data-testid],[aria-controls]") {
            for i in 0..marked.length() {
                if let Some(el) = marked.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                    strip(&el);
                }
            }
        }
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
    fn the_snapshot_script_uses_the_names_the_app_and_the_csp_use() {
        assert!(SNAPSHOT_SCRIPT.contains(&format!("createPolicy(\"{RESTORE_POLICY_NAME}\"")));
        assert!(SNAPSHOT_SCRIPT.contains(&format!("getItem(\"{SNAPSHOT_KEY}\")")));
        assert!(SNAPSHOT_SCRIPT.contains(&format!("getElementById(\"{SNAPSHOT_ID}\")")));
        assert!(SNAPSHOT_SCRIPT.contains("getItem(\"pensive.current\")"));
        let css = include_str!("../../style/main.css");
        assert!(css.contains(&format!("html.{RESTORING_CLASS} .conversation-content")));
    }

    #[test]
    fn the_script_looks_for_the_keys_history_writes() {
        // history.rs keeps the list under this key (removed when empty) and
        // older builds kept each conversation under this prefix; both are
        // history keys, and the script must look for the same ones.
        assert!(crate::app::history::is_history_key(Some(
            "pensive.conversation.c1"
        )));
        assert!(crate::app::history::is_history_key(Some("pensive.index")));
        assert!(SCRIPT.contains("\"pensive.conversation.\""));
        assert!(SCRIPT.contains("\"pensive.index\""));
        assert!(SCRIPT.contains("\"pensive.current\""));
    }
}
