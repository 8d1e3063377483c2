//! Conversation history (design §5, docs/history.md). Conversations live in
//! IndexedDB, which holds hundreds of MB; localStorage keeps what the first
//! frame needs synchronously: the list, which one is current, and a
//! quick-restore copy of it. Records older builds kept in localStorage are
//! moved over on first load ([`settle`]), losing nothing.
//!
//! Reading never throws data away: an unreadable record is moved to a backup
//! key (or, in IndexedDB, left in place), the user is told and can download
//! it. Data written by a newer version of Pensive is that version's: this
//! build skips it with a notice and never moves, rewrites or deletes it; when
//! the index is newer this tab saves nothing at all (docs/security.md,
//! "Stored history"). Tabs keep in step through a BroadcastChannel.
//!
//! This file is the facade: the types and the calls the hooks make. The
//! browser body is `browser/` (IndexedDB, localStorage, the channel); what
//! loading decides about the list is `reconcile`, and what a user reads of
//! a save that ended badly `save_outcome`, both pure and tested natively.
//! On the server and in native tests `in_process` stands in: nothing is
//! stored, and every call answers at once.

#[cfg(feature = "hydrate")]
mod browser;
#[cfg(feature = "hydrate")]
use browser as imp;
#[cfg(not(feature = "hydrate"))]
mod in_process;
#[cfg(not(feature = "hydrate"))]
use in_process as imp;
#[cfg(any(feature = "hydrate", test))]
mod reconcile;
#[cfg(any(feature = "hydrate", test))]
mod save_outcome;

use futures::future::LocalBoxFuture;

use super::later::later;
use crate::turn::message::{Conversation, Summary};

/// Something the user must know about their saved data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub message: String,
    /// The unreadable data, offered as a download.
    pub backup: Option<String>,
}

impl Notice {
    fn plain(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            backup: None,
        }
    }
}

/// What loading found.
#[derive(Debug, Default)]
pub struct Loaded {
    pub index: Vec<Summary>,
    pub conversation: Option<Conversation>,
    pub notices: Vec<Notice>,
}

/// How much this site stores and whether the browser keeps it for good.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// Bytes this site uses (every kind of storage), when the browser says.
    pub used: Option<f64>,
    /// Bytes it may use in all, when the browser says.
    pub quota: Option<f64>,
    /// True when the browser will not clear it under storage pressure.
    pub persisted: bool,
}

/// How a save ended, once IndexedDB has answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Saved {
    /// The record and its list line are stored.
    Stored,
    /// The record is stored but the list in localStorage could not be
    /// updated: what to tell the user (a reload lists it again).
    Unlisted(String),
    /// IndexedDB refused the record: what to tell the user, and the record
    /// (an importable file of the conversation as this save saw it).
    NotStored { reason: String, record: String },
}

/// The list and the current conversation, read synchronously from
/// localStorage for the first frame: the conversation comes from its
/// quick-restore copy (or, before the move to IndexedDB, its old record),
/// else `None` until [`settle`] reads it from IndexedDB.
pub fn load_quick() -> Loaded {
    imp::load_quick()
}

/// Opens IndexedDB, moves older builds' records over from localStorage,
/// rebuilds a missing or broken list, and reads the current conversation:
/// what the page shows once it is known. Asks the browser to keep storage
/// for good (`navigator.storage.persist()`).
pub async fn settle() -> Loaded {
    imp::settle().await
}

/// Loads one conversation (switching); `Err` explains what happened.
pub async fn load(id: &str) -> Result<Conversation, Notice> {
    imp::load(id).await
}

/// Every conversation stored in this browser that this build can read, for
/// Export all: newest first, and the number it could not read (damaged, or a
/// newer version's), which the caller names in a notice. Nothing is moved or
/// rewritten.
pub async fn load_every() -> (Vec<Conversation>, usize) {
    imp::load_every().await
}

/// Saves a conversation: its line in `index` at once, the record in
/// IndexedDB a moment later. `Ok` is the size of the record; `Err` (a message
/// for the user) when a newer build's index is stored, and nothing changes.
/// `settled` is told how the write ended. When IndexedDB refuses (quota,
/// private mode, a newer build's record) the conversation stays on screen
/// and what was stored before stays stored; a list that could not be
/// written is reported too.
pub fn save(
    conversation: &Conversation,
    index: &mut Vec<Summary>,
    now_ms: f64,
    settled: impl FnOnce(Saved) + 'static,
) -> Result<usize, String> {
    imp::save(conversation, index, now_ms, settled)
}

/// Saves every one of `conversations` in one transaction, or none (an
/// import of many); `index` gets their lines once they are stored. `Ok` says
/// whether the stored list could be updated too.
pub async fn save_all(
    conversations: &[Conversation],
    index: &mut Vec<Summary>,
    now_ms: f64,
) -> Result<Saved, String> {
    imp::save_all(conversations, index, now_ms).await
}

/// Removes a conversation and its list line; `Err` (a message for the user)
/// when a newer build's index or record is stored: then nothing changes.
pub async fn delete(id: &str) -> Result<(), String> {
    imp::delete(id).await
}

/// True when something is stored under this conversation id, of any version,
/// readable or not (an import must not take that id). Asks storage itself: the
/// list in memory lists neither newer records nor another tab's latest.
pub async fn is_stored(id: &str) -> bool {
    imp::is_stored(id).await
}

/// Remembers which conversation is shown, for the next load.
pub fn set_current(id: &str) {
    imp::set_current(id)
}

/// Removes everything Pensive stored in this browser: the history database
/// and every `pensive.` key of localStorage (the list, the current
/// conversation, preferences), for a shared machine on sign-out. `Err`
/// names what could not be removed.
pub async fn forget_everything() -> Result<(), String> {
    imp::forget_everything().await
}

/// Forgets which conversation is current (a new, unsaved one is shown).
pub fn clear_current() {
    imp::clear_current()
}

/// Calls `changed` when another tab saved or deleted a conversation (after
/// its write committed), or changed the list.
pub fn listen(changed: impl Fn() + Copy + 'static) {
    imp::listen(changed)
}

/// Whether a `storage` event from another tab should refresh this one. With
/// a BroadcastChannel every committed write is announced there, so the
/// list's own event is left to it (one refresh per write, and a broken
/// announcement cannot hide behind the list's event); without one, the list's
/// event is the only word. An older build's record, or storage cleared, always
/// counts: nothing announces those.
pub fn storage_event_refreshes(key: Option<&str>, has_channel: bool) -> bool {
    match key {
        Some("pensive.index") => !has_channel,
        key => is_history_key(key),
    }
}

/// True when a `storage` event's key belongs to Pensive's history (the list
/// or, from an older build, a record).
pub fn is_history_key(key: Option<&str>) -> bool {
    key.is_none_or(|k| k.starts_with("pensive.conversation.") || k == "pensive.index")
}

/// How much is stored and whether it is kept for good.
pub async fn usage() -> Usage {
    imp::usage().await
}

/// Asks the browser to keep this site's storage under pressure; true when
/// it will. Browsers decide by their own rules (Chromium: how much the site
/// is used, installed or bookmarked; Firefox asks the user).
pub async fn persist() -> bool {
    imp::persist().await
}

/// Most matches a search lists in all, and from one conversation: every
/// match a reader could scan, without a common word listing thousands.
pub const SEARCH_HITS: usize = 200;
pub const SEARCH_HITS_PER_CONVERSATION: usize = 50;

/// One match of a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    pub id: String,
    pub title: String,
    pub hit: crate::turn::search::Hit,
}

/// Searches every stored conversation, newest first, calling `found` for each
/// match as soon as it is found; stops early when `cancelled()` turns true
/// (a newer query took over). Only the search texts are read (IndexedDB's
/// `search` store, written beside each record), never the records: nothing
/// is decoded, quarantined or rewritten. All are asked for at once and each
/// arrives as an event of its own, so the page paints and takes input
/// between two conversations.
pub async fn search(
    query: String,
    found: impl FnMut(SearchHit) + 'static,
    cancelled: impl Fn() -> bool + 'static,
) {
    search_task(query, Box::new(found), Box::new(cancelled))
        .await
        .await
}

// Searching is the library chunk's (crate::app::later).
later! {
    library,
    fn search_task(
        query: String,
        found: Box<dyn FnMut(SearchHit)>,
        cancelled: Box<dyn Fn() -> bool>,
    ) -> LocalBoxFuture<'static, ()> {
        Box::pin(imp::search(query, found, cancelled))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_a_channel_only_records_of_older_builds_and_a_cleared_storage_refresh_from_storage_events(
    ) {
        assert!(!storage_event_refreshes(Some("pensive.index"), true));
        assert!(storage_event_refreshes(Some("pensive.index"), false));
        for has_channel in [true, false] {
            assert!(storage_event_refreshes(
                Some("pensive.conversation.c1"),
                has_channel
            ));
            assert!(storage_event_refreshes(None, has_channel));
            assert!(!storage_event_refreshes(Some("pensive.theme"), has_channel));
            assert!(!storage_event_refreshes(
                Some("pensive.current"),
                has_channel
            ));
        }
    }
}
