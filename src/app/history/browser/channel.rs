//! Tabs keep in step through a BroadcastChannel: IndexedDB fires no
//! `storage` event, so after each committed write or delete a tab names the
//! conversation on `pensive.history`, and the others refresh. (Without a
//! BroadcastChannel, the `storage` event of the index, which is written after
//! the record has committed, does that instead.) One channel object both posts and listens, so a
//! tab never hears its own messages.

use std::cell::RefCell;

use wasm_bindgen::{closure::Closure, JsCast, JsValue};
use web_sys::{BroadcastChannel, MessageEvent};

const CHANNEL: &str = "pensive.history";

thread_local! {
    static CHANNEL_OF_THIS_TAB: RefCell<Option<BroadcastChannel>> = const { RefCell::new(None) };
}

/// This tab's channel, opened on first use (`None` without BroadcastChannel:
/// then the index's `storage` event alone refreshes other tabs).
fn channel() -> Option<BroadcastChannel> {
    CHANNEL_OF_THIS_TAB.with_borrow_mut(|slot| {
        if slot.is_none() {
            *slot = BroadcastChannel::new(CHANNEL).ok();
        }
        slot.clone()
    })
}

/// Tells the other tabs that conversation `id` changed (saved or deleted).
pub fn announce(id: &str) {
    if let Some(channel) = channel() {
        let _ = channel.post_message(&JsValue::from_str(id));
    }
}

/// Calls `changed` with the id another tab names; false when this browser
/// has no BroadcastChannel. The listener lives as long as the page (one per
/// page, made by the conversation list).
pub fn listen(changed: impl Fn(String) + 'static) -> bool {
    let Some(channel) = channel() else {
        return false;
    };
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        if let Some(id) = event.data().as_string() {
            changed(id);
        }
    });
    channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    true
}
