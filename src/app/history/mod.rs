//! Conversation history (design §5, docs/history.md). Conversations live in
//! IndexedDB ([`idb`]), which holds hundreds of MB; localStorage keeps what
//! the first frame needs synchronously ([`local`]): the list, which one is
//! current, and a quick-restore copy of it. Records older builds kept in
//! localStorage are moved over on first load ([`settle`]), losing nothing.
//!
//! Reading never throws data away: an unreadable record is moved to a backup
//! key (or, in IndexedDB, left in place), the user is told and can download
//! it. Data written by a newer version of Pensive is that version's: this
//! build skips it with a notice and never moves, rewrites or deletes it; when
//! the index is newer this tab saves nothing at all (docs/security.md,
//! "Stored history"). Tabs keep in step through [`channel`]. On the server
//! every call is a no-op.

#[cfg(feature = "hydrate")]
mod channel;
#[cfg(feature = "hydrate")]
mod idb;
#[cfg(feature = "hydrate")]
mod local;

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

/// How a stored record's save ended, given how writing the list went: what a
/// user reads when localStorage refused the list (full).
#[cfg(feature = "hydrate")]
fn listed(list_write: Result<(), crate::app::storage::StorageError>) -> Saved {
    match list_write {
        Ok(()) => Saved::Stored,
        Err(err) => Saved::Unlisted(format!(
            "The conversation is saved, but the list of conversations could not be updated ({err}). \
             It is listed again when this page loads; make room to keep the list current."
        )),
    }
}

/// What a user reads when IndexedDB refuses a save: the conversation stays
/// on screen (in memory), the last stored state stays stored.
#[cfg(feature = "hydrate")]
fn kept_in_memory(err: &crate::app::storage::StorageError) -> String {
    use crate::app::storage::StorageError;
    match err {
        StorageError::Full => "Could not save: browser storage is full. This conversation is \
            kept in this tab only, until you make room (delete or export old conversations); \
            everything saved before is kept."
            .to_owned(),
        // The words loading used: one notice, however many saves fail.
        StorageError::Unavailable => StorageError::Unavailable.to_string(),
        StorageError::Newer(message) => message.clone(),
        other => format!("{other} This conversation is kept in this tab only for now."),
    }
}

/// The list and the current conversation, read synchronously from
/// localStorage for the first frame: the conversation comes from its
/// quick-restore copy (or, before the move to IndexedDB, its old record),
/// else `None` until [`settle`] reads it from IndexedDB.
pub fn load_quick() -> Loaded {
    #[cfg(feature = "hydrate")]
    {
        if !super::storage::available() {
            return Loaded {
                notices: vec![Notice::plain(
                    super::storage::StorageError::Unavailable.to_string(),
                )],
                ..Loaded::default()
            };
        }
        let mut notices = Vec::new();
        let index = local::read_index(&mut notices)
            .ok()
            .flatten()
            .unwrap_or_default();
        let current =
            local::text(local::CURRENT_KEY).or_else(|| index.first().map(|s| s.id.clone()));
        let conversation = current.and_then(|id| {
            let raw = local::quick_copy(&id).or_else(|| local::text(&local::legacy_key(&id)))?;
            // Quarantine is for `settle`, which reads every copy.
            crate::turn::message::decode(&raw)
                .ok()
                .filter(|c| c.id == id)
        });
        dedupe(&mut notices);
        Loaded {
            index,
            conversation,
            notices,
        }
    }
    #[cfg(not(feature = "hydrate"))]
    Loaded::default()
}

/// Several newer records give the same notice: say it once. (Pure: natively
/// tested.)
#[cfg(any(feature = "hydrate", test))]
fn dedupe(notices: &mut Vec<Notice>) {
    let mut seen = std::collections::HashSet::new();
    notices.retain(|n| seen.insert(n.message.clone()));
}

/// Opens IndexedDB, moves older builds' records over from localStorage,
/// rebuilds a missing or broken list, and reads the current conversation:
/// what the page shows once it is known. Asks the browser to keep storage
/// for good (`navigator.storage.persist()`).
pub async fn settle() -> Loaded {
    #[cfg(feature = "hydrate")]
    {
        let mut notices = Vec::new();
        if !super::storage::available() {
            return load_quick();
        }
        if let Err(err) = idb::open().await {
            // Nothing moves while IndexedDB is closed to us: older records
            // stay in localStorage, readable by `load`.
            notices.push(Notice::plain(err.to_string()));
            let mut quick = load_quick();
            quick.notices.append(&mut notices);
            return quick;
        }
        // A newer build's index: that build manages storage now, and this
        // one moves nothing (it reads what it can, below).
        if local::write_refused().is_none() {
            move_legacy_records(&mut notices).await;
        }
        let index = match local::read_index(&mut notices) {
            Ok(Some(index)) if local::index_is_current() => index,
            Ok(Some(old)) => {
                // An older build's list: keep its order and titles, add sizes.
                let rebuilt = rebuild_index(&mut notices).await;
                let index = merge_sizes(old, &rebuilt);
                if local::write_refused().is_none() {
                    let _ = local::write_index(&index);
                }
                index
            }
            Ok(None) | Err(()) => {
                let index = rebuild_index(&mut notices).await;
                if local::write_refused().is_none() {
                    let _ = local::write_index(&index);
                }
                index
            }
        };
        let current =
            local::text(local::CURRENT_KEY).or_else(|| index.first().map(|s| s.id.clone()));
        let conversation = match current {
            Some(id) => read(&id, &mut notices).await,
            None => None,
        };
        // Only lines whose record is here (not quarantined or deleted
        // elsewhere); a newer build's record left in localStorage counts.
        let stored: std::collections::HashSet<String> =
            idb::ids().await.unwrap_or_default().into_iter().collect();
        let mut index: Vec<Summary> = index
            .into_iter()
            .filter(|s| stored.contains(&s.id) || local::text(&local::legacy_key(&s.id)).is_some())
            .collect();
        list_unlisted_records(&mut index, &stored).await;
        leptos::task::spawn_local(async {
            let _ = persist().await;
        });
        dedupe(&mut notices);
        Loaded {
            index,
            conversation,
            notices,
        }
    }
    #[cfg(not(feature = "hydrate"))]
    Loaded::default()
}

/// Adds a line for each readable record of `stored` that the list lacks (its
/// line could not be written when it was saved: localStorage was full), and
/// stores the list when that changed it.
#[cfg(feature = "hydrate")]
async fn list_unlisted_records(
    index: &mut Vec<Summary>,
    stored: &std::collections::HashSet<String>,
) {
    let unlisted = unlisted_ids(index, stored);
    if unlisted.is_empty() {
        return;
    }
    let before = index.len();
    let _ = idb::each(idb::RECORDS, &unlisted, |_, raw| {
        // A newer build's or damaged record is that build's, or quarantined
        // elsewhere: only what this build reads gets a line.
        if let Ok(c) = crate::turn::message::decode(&raw) {
            let bytes = raw.len() as u64;
            crate::turn::message::upsert_summary(
                index,
                Summary {
                    bytes,
                    ..c.summary()
                },
            );
        }
        true
    })
    .await;
    if index.len() != before && local::write_refused().is_none() {
        let _ = local::write_index(index);
    }
}

/// The ids of `stored` that no line of `index` names, sorted.
pub fn unlisted_ids(index: &[Summary], stored: &std::collections::HashSet<String>) -> Vec<String> {
    let mut unlisted: Vec<String> = stored
        .iter()
        .filter(|id| !index.iter().any(|line| &line.id == *id))
        .cloned()
        .collect();
    unlisted.sort();
    unlisted
}

/// Keeps the old list's lines (order, titles) and takes each record's size
/// from `rebuilt`; a record the old list lost is added. (Pure: natively
/// tested.)
#[cfg(any(feature = "hydrate", test))]
fn merge_sizes(old: Vec<Summary>, rebuilt: &[Summary]) -> Vec<Summary> {
    let mut index = old;
    for line in &mut index {
        if let Some(found) = rebuilt.iter().find(|r| r.id == line.id) {
            line.bytes = found.bytes;
        }
    }
    for found in rebuilt {
        if !index.iter().any(|l| l.id == found.id) {
            crate::turn::message::upsert_summary(&mut index, found.clone());
        }
    }
    index
}

/// Moves each record an older build left in localStorage into IndexedDB (a
/// record already there is kept), then removes the old copies. A newer
/// build's record is left where it is; an unreadable one is quarantined.
#[cfg(feature = "hydrate")]
async fn move_legacy_records(notices: &mut Vec<Notice>) {
    use crate::turn::message::newer_version;
    // Each with the localStorage key it leaves.
    let mut moving: Vec<(String, Encoded)> = Vec::new();
    for key in local::legacy_keys() {
        let Some(raw) = local::text(&key) else {
            continue;
        };
        if newer_version(&raw).is_some() {
            local::decode_record(raw, None, notices);
            continue;
        }
        if let Some(conversation) = local::decode_record(raw.clone(), Some(&key), notices) {
            moving.push((key, Encoded::new(&conversation, raw)));
        }
    }
    if moving.is_empty() {
        return;
    }
    let items: Vec<idb::Item> = moving.iter().map(|(_, e)| e.item()).collect();
    match idb::write(&items, idb::Existing::Keep).await {
        Ok(_) => {
            for (key, ..) in &moving {
                super::storage::delete(key);
            }
        }
        Err(err) => notices.push(Notice::plain(format!(
            "Your conversations could not be moved to the browser's larger storage ({err}). \
             They stay where they were and are all here."
        ))),
    }
}

/// The list made afresh from every record in IndexedDB and every readable
/// one still in localStorage (newest first).
#[cfg(feature = "hydrate")]
async fn rebuild_index(notices: &mut Vec<Notice>) -> Vec<Summary> {
    let mut index = Vec::new();
    let mut add = |raw: String, quarantine_key: Option<&str>, notices: &mut Vec<Notice>| {
        let bytes = raw.len() as u64;
        if let Some(c) = local::decode_record(raw, quarantine_key, notices) {
            crate::turn::message::upsert_summary(
                &mut index,
                Summary {
                    bytes,
                    ..c.summary()
                },
            );
        }
    };
    for key in local::legacy_keys() {
        if let Some(raw) = local::text(&key) {
            add(raw, Some(&key), notices);
        }
    }
    let ids = idb::ids().await.unwrap_or_default();
    let _ = idb::each(idb::RECORDS, &ids, |_, raw| {
        add(raw, None, notices);
        true
    })
    .await;
    index
}

/// One conversation from IndexedDB, or an older build's record still in
/// localStorage (when moving it has not happened or could not).
#[cfg(feature = "hydrate")]
async fn read(id: &str, notices: &mut Vec<Notice>) -> Option<Conversation> {
    match idb::get(idb::RECORDS, id).await {
        Ok(Some(raw)) => local::decode_record(raw, None, notices),
        Ok(None) | Err(_) => {
            let key = local::legacy_key(id);
            let raw = local::text(&key)?;
            local::decode_record(raw, Some(&key), notices)
        }
    }
}

/// Loads one conversation (switching); `Err` explains what happened.
pub async fn load(id: &str) -> Result<Conversation, Notice> {
    #[cfg(feature = "hydrate")]
    {
        let mut notices = Vec::new();
        read(id, &mut notices).await.ok_or_else(|| {
            notices.pop().unwrap_or_else(|| {
                Notice::plain("That conversation is no longer stored (deleted in another tab?).")
            })
        })
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = id;
        Err(Notice::plain("History is only available in the browser."))
    }
}

/// Every conversation stored in this browser that this build can read, for
/// Export all: newest first, and the number it could not read (damaged, or a
/// newer version's), which the caller names in a notice. Nothing is moved or
/// rewritten.
pub async fn load_every() -> (Vec<Conversation>, usize) {
    #[cfg(feature = "hydrate")]
    {
        let ids = idb::ids().await.unwrap_or_default();
        let mut unreadable = 0;
        let mut all = Vec::new();
        let _ = idb::each(idb::RECORDS, &ids, |_, raw| {
            match crate::turn::message::decode(&raw) {
                Ok(conversation) => all.push(conversation),
                Err(_) => unreadable += 1,
            }
            true
        })
        .await;
        all.sort_by(|a: &Conversation, b| b.updated_at.total_cmp(&a.updated_at));
        (all, unreadable)
    }
    #[cfg(not(feature = "hydrate"))]
    (Vec::new(), 0)
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
    #[cfg(feature = "hydrate")]
    if let Some(refused) = local::write_refused() {
        return Err(refused);
    }
    let mut line = conversation.summary();
    #[cfg(feature = "hydrate")]
    {
        let record = crate::turn::message::encode(conversation, now_ms);
        line.bytes = record.len() as u64;
        crate::turn::message::upsert_summary(index, line.clone());
        if local::text(local::CURRENT_KEY).as_deref() == Some(conversation.id.as_str()) {
            local::keep_quick_copy(&conversation.id, &record);
        }
        let bytes = record.len();
        let encoded = Encoded::new(conversation, record);
        leptos::task::spawn_local(async move {
            let item = encoded.item();
            match idb::write(&[item], idb::Existing::ReplaceUnless(refuse_newer)).await {
                Ok(_) => {
                    let list_write = local::upsert_stored(line);
                    channel::announce(&encoded.id);
                    settled(listed(list_write));
                }
                Err(err) => settled(Saved::NotStored {
                    reason: kept_in_memory(&err),
                    record: encoded.record,
                }),
            }
        });
        Ok(bytes)
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = (now_ms, settled);
        line.bytes = 0;
        crate::turn::message::upsert_summary(index, line);
        Ok(0)
    }
}

/// A conversation as IndexedDB keeps it: its record, and beside it its
/// search text and word list.
#[cfg(feature = "hydrate")]
struct Encoded {
    id: String,
    record: String,
    search: String,
    words: String,
}

#[cfg(feature = "hydrate")]
impl Encoded {
    fn new(c: &Conversation, record: String) -> Self {
        let search = crate::turn::search::search_text(c);
        let words = crate::turn::search::word_list(c, &search);
        Encoded {
            id: c.id.clone(),
            record,
            search,
            words,
        }
    }

    fn item(&self) -> idb::Item<'_> {
        idb::Item {
            id: &self.id,
            record: &self.record,
            search: &self.search,
            words: &self.words,
        }
    }
}

/// Saves every one of `conversations` in one transaction, or none (an
/// import of many); `index` gets their lines once they are stored. `Ok` says
/// whether the stored list could be updated too.
pub async fn save_all(
    conversations: &[Conversation],
    index: &mut Vec<Summary>,
    now_ms: f64,
) -> Result<Saved, String> {
    #[cfg(feature = "hydrate")]
    {
        if let Some(refused) = local::write_refused() {
            return Err(refused);
        }
        let encoded: Vec<Encoded> = conversations
            .iter()
            .map(|c| Encoded::new(c, crate::turn::message::encode(c, now_ms)))
            .collect();
        let items: Vec<idb::Item> = encoded.iter().map(Encoded::item).collect();
        idb::write(&items, idb::Existing::ReplaceUnless(refuse_newer))
            .await
            .map_err(|err| err.to_string())?;
        let lines: Vec<Summary> = conversations
            .iter()
            .zip(&encoded)
            .map(|(c, e)| Summary {
                bytes: e.record.len() as u64,
                ..c.summary()
            })
            .collect();
        let list_write = local::update_index(|stored| {
            for line in &lines {
                crate::turn::message::upsert_summary(stored, line.clone());
            }
        });
        for line in lines {
            crate::turn::message::upsert_summary(index, line);
        }
        for c in conversations {
            channel::announce(&c.id);
        }
        Ok(listed(list_write))
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = (conversations, index, now_ms);
        Ok(Saved::Stored)
    }
}

/// A stored record this build must not replace or delete: a newer build's.
#[cfg(feature = "hydrate")]
fn refuse_newer(stored: &str) -> Option<crate::app::storage::StorageError> {
    crate::turn::message::newer_version(stored)
        .map(|v| crate::app::storage::StorageError::Newer(local::newer_record_message(v)))
}

/// Removes a conversation and its list line; `Err` (a message for the user)
/// when a newer build's index or record is stored: then nothing changes.
pub async fn delete(id: &str) -> Result<(), String> {
    #[cfg(feature = "hydrate")]
    {
        if let Some(refused) = local::write_refused() {
            return Err(refused);
        }
        idb::delete(&[id], refuse_newer)
            .await
            .map_err(|err| err.to_string())?;
        super::storage::delete(&local::legacy_key(id));
        let _ = local::update_index(|index| index.retain(|s| s.id != id));
        if local::text(local::CURRENT_KEY).as_deref() == Some(id) {
            clear_current();
        }
        channel::announce(id);
        Ok(())
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = id;
        Ok(())
    }
}

/// True when something is stored under this conversation id, of any version,
/// readable or not (an import must not take that id). Asks storage itself: the
/// list in memory lists neither newer records nor another tab's latest.
pub async fn is_stored(id: &str) -> bool {
    #[cfg(feature = "hydrate")]
    {
        matches!(idb::get(idb::RECORDS, id).await, Ok(Some(_)))
            || local::text(&local::legacy_key(id)).is_some()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = id;
        false
    }
}

/// Remembers which conversation is shown, for the next load.
pub fn set_current(id: &str) {
    #[cfg(feature = "hydrate")]
    let _ = super::storage::set_text(local::CURRENT_KEY, id);
    #[cfg(not(feature = "hydrate"))]
    let _ = id;
}

/// Removes everything Pensive stored in this browser: the history database
/// and every `pensive.` key of localStorage (the list, the current
/// conversation, preferences), for a shared machine on sign-out. `Err`
/// names what could not be removed.
pub async fn forget_everything() -> Result<(), String> {
    #[cfg(feature = "hydrate")]
    {
        super::storage::seal();
        let keys = super::storage::keys().map_err(|e| e.to_string())?;
        for key in keys.iter().filter(|k| k.starts_with("pensive.")) {
            super::storage::delete(key);
        }
        let deleted = idb::delete_database().await.map_err(|e| e.to_string());
        // Other tabs on this history show what is left: nothing.
        channel::announce("");
        deleted
    }
    #[cfg(not(feature = "hydrate"))]
    Ok(())
}

/// Forgets which conversation is current (a new, unsaved one is shown).
pub fn clear_current() {
    #[cfg(feature = "hydrate")]
    {
        super::storage::delete(local::CURRENT_KEY);
        super::storage::delete(local::QUICK_KEY);
    }
}

/// Calls `changed` when another tab saved or deleted a conversation (after
/// its write committed), or changed the list.
pub fn listen(changed: impl Fn() + Copy + 'static) {
    #[cfg(feature = "hydrate")]
    {
        let has_channel = channel::listen(move |_| changed());
        let _ = leptos::prelude::window_event_listener(leptos::ev::storage, move |ev| {
            if storage_event_refreshes(ev.key().as_deref(), has_channel) {
                changed();
            }
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = changed;
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
    #[cfg(feature = "hydrate")]
    {
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
    #[cfg(not(feature = "hydrate"))]
    Usage::default()
}

/// Asks the browser to keep this site's storage under pressure; true when
/// it will. Browsers decide by their own rules (Chromium: how much the site
/// is used, installed or bookmarked; Firefox asks the user).
pub async fn persist() -> bool {
    #[cfg(feature = "hydrate")]
    {
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
    #[cfg(not(feature = "hydrate"))]
    false
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
pub async fn search(query: String, mut found: impl FnMut(SearchHit), cancelled: impl Fn() -> bool) {
    #[cfg(feature = "hydrate")]
    {
        use crate::turn::search::{find_all, may_match};
        if query.trim().is_empty() {
            return;
        }
        // Newest first, as the list; a record the list lacks (its line could
        // not be written) is listed from the record itself, and a list that
        // cannot be read gives every stored id (unordered).
        let mut ignored = Vec::new();
        let stored = idb::ids().await.unwrap_or_default();
        let lines = match local::read_index(&mut ignored) {
            Ok(Some(mut index)) => {
                list_unlisted_records(&mut index, &stored.into_iter().collect()).await;
                index
            }
            _ => stored
                .into_iter()
                .map(|id| Summary {
                    title: id.clone(),
                    id,
                    updated_at: 0.0,
                    bytes: 0,
                })
                .collect(),
        };
        let ids: Vec<String> = lines.iter().map(|s| s.id.clone()).collect();
        // The word lists first (a small fraction of the texts): only the
        // conversations that may match have their whole text read (and those
        // without a list, or whose list could not be read).
        let mut ruled_out = std::collections::HashSet::new();
        let _ = idb::each(idb::WORDS, &ids, |id, list| {
            if !may_match(&list, &query) {
                ruled_out.insert(id.to_owned());
            }
            !cancelled()
        })
        .await;
        if cancelled() {
            return;
        }
        let ids: Vec<String> = ids
            .into_iter()
            .filter(|id| !ruled_out.contains(id))
            .collect();
        let mut left = SEARCH_HITS;
        let _ = idb::each(idb::SEARCH, &ids, |id, text| {
            if cancelled() {
                return false;
            }
            let hits = find_all(&text, &query, SEARCH_HITS_PER_CONVERSATION.min(left));
            if !hits.is_empty() {
                let title = lines
                    .iter()
                    .find(|s| s.id == id)
                    .map(|s| s.title.clone())
                    .unwrap_or_default();
                left -= hits.len();
                for hit in hits {
                    found(SearchHit {
                        id: id.to_owned(),
                        title: title.clone(),
                        hit,
                    });
                }
            }
            left > 0
        })
        .await;
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (query, &mut found, cancelled);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: &str) -> Summary {
        Summary {
            id: id.into(),
            title: String::new(),
            updated_at: 0.0,
            bytes: 0,
        }
    }

    #[test]
    fn an_older_list_keeps_its_order_and_titles_takes_sizes_and_gains_what_it_lost() {
        let old = vec![
            Summary {
                title: "Renamed by hand".into(),
                updated_at: 2.0,
                ..line("b")
            },
            Summary {
                updated_at: 1.0,
                ..line("a")
            },
        ];
        let rebuilt = vec![
            Summary {
                title: "From the record".into(),
                updated_at: 2.0,
                bytes: 200,
                ..line("b")
            },
            Summary {
                updated_at: 1.0,
                bytes: 100,
                ..line("a")
            },
            Summary {
                updated_at: 3.0,
                bytes: 300,
                ..line("c")
            },
        ];
        let merged = merge_sizes(old, &rebuilt);
        let seen: Vec<(&str, &str, u64)> = merged
            .iter()
            .map(|s| (s.id.as_str(), s.title.as_str(), s.bytes))
            .collect();
        assert_eq!(
            seen,
            [
                ("c", "", 300),
                ("b", "Renamed by hand", 200),
                ("a", "", 100)
            ]
        );
    }

    #[test]
    fn the_same_notice_is_said_once_in_the_order_first_found() {
        let mut notices = vec![
            Notice::plain("newer"),
            Notice::plain("unreadable"),
            Notice::plain("newer"),
        ];
        dedupe(&mut notices);
        let messages: Vec<&str> = notices.iter().map(|n| n.message.as_str()).collect();
        assert_eq!(messages, ["newer", "unreadable"]);
    }

    #[test]
    fn a_stored_record_that_the_list_lacks_is_found() {
        let stored: std::collections::HashSet<String> =
            ["b", "a", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(unlisted_ids(&[line("a")], &stored), ["b", "c"]);
        assert!(unlisted_ids(&[line("c"), line("a"), line("b")], &stored).is_empty());
    }

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
