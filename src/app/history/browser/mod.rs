//! History's browser body: IndexedDB holds the records ([`idb`]),
//! localStorage what the first frame needs synchronously ([`local`]), and
//! tabs keep in step through [`channel`]. Loading is [`load`], writing
//! [`save`], searching [`search`]; what they decide about the list is
//! `reconcile`'s. Compiled for the browser only: the facade (`history`)
//! calls the in-process stand-in elsewhere.

mod channel;
mod idb;
mod load;
mod local;
mod save;
mod search;

pub use load::{load, load_every, load_quick, settle};
pub use save::{clear_current, delete, forget_everything, is_stored, save, save_all, set_current};
pub use search::search;

use super::{storage_event_refreshes, Usage};

pub fn listen(changed: impl Fn() + Copy + 'static) {
    let has_channel = channel::listen(move |_| changed());
    let _ = leptos::prelude::window_event_listener(leptos::ev::storage, move |ev| {
        if storage_event_refreshes(ev.key().as_deref(), has_channel) {
            changed();
        }
    });
}

pub async fn usage() -> Usage {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    let Some(manager) = web_sys::window().map(|w| w.navigator().storage()) else {
        return Usage::default();
    };
    let estimate = match manager.estimate() {
        Ok(promise) => JsFuture::from(promise)
            .await
            .ok()
            // A dictionary, not a class: nothing to check it against.
            .map(|e| e.unchecked_into::<web_sys::StorageEstimate>()),
        Err(_) => None,
    };
    let persisted = match manager.persisted() {
        Ok(promise) => JsFuture::from(promise).await.ok().and_then(|v| v.as_bool()),
        Err(_) => None,
    };
    Usage {
        used: estimate
            .as_ref()
            .and_then(web_sys::StorageEstimate::get_usage),
        quota: estimate
            .as_ref()
            .and_then(web_sys::StorageEstimate::get_quota),
        persisted: persisted.unwrap_or(false),
    }
}

pub async fn persist() -> bool {
    let Some(manager) = web_sys::window().map(|w| w.navigator().storage()) else {
        return false;
    };
    match manager.persist() {
        Ok(promise) => wasm_bindgen_futures::JsFuture::from(promise)
            .await
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(false),
        Err(_) => false,
    }
}
