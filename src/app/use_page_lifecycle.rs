//! What the chat page does around the document's life, apart from what it
//! shows: history loads once after hydration and the page opens at the
//! latest turn; when the page goes away (a reload, a closed tab, a phone
//! switching apps) the session saves and a picture of the conversation is
//! kept for the next load (`restore_shell`); a turn that ends, and another
//! conversation shown, move the view too.
//!
//! Renders nothing: the server and the first client render stay the same.

use leptos::prelude::*;

use super::restore_shell;
use super::use_chat_session::UseChatSessionReturn;
use super::use_conversations::UseConversationsReturn;
use super::use_stick_to_bottom::UseStickToBottomReturn;

/// Wires the page's load, leave and return to the session, the list and
/// the conversation's scroller.
pub fn use_page_lifecycle(
    session: UseChatSessionReturn,
    conversations: UseConversationsReturn,
    stick: UseStickToBottomReturn,
) {
    let running = session.running();
    // Once, after hydration (untracked: what loading reads must not run it again).
    Effect::new(move |_| {
        // A reload opens at the latest turn, as it looked (restore_shell),
        // once the conversation to show is known.
        untrack(|| {
            conversations.load_history(move |has_messages| {
                restore_shell::reveal_when_rendered(has_messages, move || stick.follow(true));
            })
        });
        // IndexedDB can stall (another tab blocking an upgrade): the page
        // shows what it has by then rather than the snapshot for ever.
        #[cfg(feature = "hydrate")]
        set_timeout(
            restore_shell::restored,
            std::time::Duration::from_millis(2 * restore_shell::REVEAL_TIMEOUT_MS),
        );
    });
    // What was on screen is kept when the page goes away (a reload, a closed
    // tab, a phone switching apps): the turn as it stands, and its picture.
    let snapshot = move || {
        let id = session.current_id.get_untracked();
        restore_shell::capture_snapshot(stick.content.get_untracked(), &id);
    };
    let _ = window_event_listener(leptos::ev::pagehide, move |_| {
        // Browsers hide the page before unloading it, and the hidden handler
        // below has kept everything then; save here only if it did not run.
        let kept = super::browser::page_hidden();
        session.page_leaving(!kept);
        if !kept {
            snapshot();
        }
    });
    let _ = window_event_listener(leptos::ev::pageshow, move |_| session.page_shown_again());
    let _ = window_event_listener_untyped("visibilitychange", move |_| {
        if super::browser::page_hidden() {
            session.save();
            snapshot();
        }
    });
    // A turn ended: its picture, once its last frame is drawn.
    Effect::new(move |was_running: Option<bool>| {
        let now_running = running.get();
        if was_running == Some(true) && !now_running {
            request_animation_frame(move || request_animation_frame(snapshot));
        }
        now_running
    });
    // Another conversation shown: open it at its latest turn too.
    Effect::new(move |previous: Option<String>| {
        let id = session.current_id.get();
        if previous.is_some_and(|p| p != id) {
            stick.follow(true);
        }
        id
    });
}
