//! Tabs keep in step through a BroadcastChannel: IndexedDB fires no
//! `storage` event, so after each committed write or delete a tab names the
//! conversation on `pensive.history`, and the others refresh. (localStorage's
//! `storage` event still fires for the index, a moment before the record has
//! committed; only this message says the record can be read.)

use std::cell::RefCell;

use wasm_bindgen::{closure::Closure, JsCast, JsValue};
use web_sys::{BroadcastChannel, MessageEvent};

const CHANNEL: &str = "pensive.history";

thread_local! {
    static OUTGOING: RefCell<Option<BroadcastChannel>> = const { RefCell::new(None) };
}

/// Tells the other tabs that conversation `id` changed (saved or deleted).
pub fn announce(id: &str) {
    OUTGOING.with_borrow_mut(|slot| {
        if slot.is_none() {
            *slot = BroadcastChannel::new(CHANNEL).ok();
        }
        if let Some(channel) = slot {
            let _ = channel.post_message(&JsValue::from_str(id));
        }
    });
}

/// Calls `changed` with the id another tab names. The listener lives as long
/// as the page (one per page, made by the conversation list).
pub fn listen(changed: impl Fn(String) + 'static) {
    let Ok(channel) = BroadcastChannel::new(CHANNEL) else {
        return; // no BroadcastChannel: the index's storage event still refreshes the list
    };
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        if let Some(id) = event.data().as_string() {
            changed(id);
        }
    });
    channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    std::mem::forget(channel);
}
