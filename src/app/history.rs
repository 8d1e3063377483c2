//! Conversation history in localStorage (DESIGN §5): one key per conversation
//! plus a small index, so a turn rewrites only its own conversation. Reading
//! never throws data away: an unreadable record is moved to a backup key, the
//! user is told and can download it. On the server every call is a no-op.
//!
//! Data written by a newer version of Pensive (a tab opened after a deploy) is
//! that version's: this build skips it with a notice and never moves, rewrites
//! or deletes it. Every write checks storage itself first, since a newer tab
//! may have written since this one loaded. When the index is newer this tab
//! saves nothing at all (docs/security.md, "Stored history"): a record saved
//! without its index line would be invisible to the newer version.

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

#[cfg(feature = "hydrate")]
mod store {
    use super::*;
    use crate::app::storage::{self, StorageError};
    use crate::turn::message::{self, upsert_summary, DecodeError};

    pub const CURRENT_KEY: &str = "pensive.current";
    pub const INDEX_KEY: &str = "pensive.index";
    pub const PREFIX: &str = "pensive.conversation.";

    pub fn key(id: &str) -> String {
        format!("{PREFIX}{id}")
    }

    /// Why this tab saves nothing: a newer build wrote the index.
    pub fn newer_index_message(version: u32) -> String {
        format!(
            "Your history was saved by a newer version of Pensive (schema {version}). This tab runs \
             an older version, so it leaves that history as it is and saves nothing (export a \
             conversation to keep it). Reload the page to use the newer version."
        )
    }

    /// Why a conversation is not shown or saved: a newer build wrote it.
    pub fn newer_record_message(version: u32) -> String {
        format!(
            "A conversation was saved by a newer version of Pensive (schema {version}), so this tab \
             leaves it as it is and does not show or save it. Reload the page to use the newer version."
        )
    }

    /// Moves an unreadable value to a backup key; returns the notice.
    pub fn quarantine(key: &str, raw: String, err: &DecodeError) -> Notice {
        let backup = format!(
            "pensive.backup.{}.{}",
            key.trim_start_matches("pensive."),
            js_sys::Date::now() as u64
        );
        let kept = storage::set_text(&backup, &raw).is_ok();
        if kept {
            storage::delete(key);
        }
        let where_kept = if kept {
            format!("It was kept under \u{201c}{backup}\u{201d}")
        } else {
            "It was left in place".to_owned()
        };
        Notice {
            message: format!("Some saved data could not be opened ({err}). {where_kept}; the rest of your history is here."),
            backup: Some(raw),
        }
    }

    /// A stored text, or `None` when absent or unreadable (the caller has
    /// already checked that storage exists).
    pub fn text(key: &str) -> Option<String> {
        storage::get_text(key).ok().flatten()
    }

    pub fn load(id: &str, notices: &mut Vec<Notice>) -> Option<Conversation> {
        let key = key(id);
        let raw = text(&key)?;
        match message::decode(&raw) {
            Ok(c) => Some(c),
            // Another build's record: not ours to move (see the module doc).
            Err(DecodeError::FutureVersion(version)) => {
                notices.push(Notice::plain(newer_record_message(version)));
                None
            }
            Err(err) => {
                notices.push(quarantine(&key, raw, &err));
                None
            }
        }
    }

    /// Every stored conversation key (to rebuild a missing or broken index).
    pub fn scan(notices: &mut Vec<Notice>) -> Vec<Summary> {
        let ids: Vec<String> = storage::keys()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|k| k.strip_prefix(PREFIX).map(str::to_owned))
            .collect();
        let mut index = Vec::new();
        for id in ids {
            if let Some(c) = load(&id, notices) {
                upsert_summary(&mut index, c.summary());
            }
        }
        index
    }

    pub fn write_index(index: &[Summary]) -> Result<(), StorageError> {
        storage::set_text(INDEX_KEY, &message::encode_index(index))
    }

    /// Why this tab must not write the index or the record under
    /// `record_key`: a newer build's data is stored there now. Read from
    /// storage at each write, not remembered from loading.
    pub fn write_refused(record_key: Option<&str>) -> Option<String> {
        let newer_at = |key: &str| text(key).as_deref().and_then(message::newer_version);
        if let Some(version) = newer_at(INDEX_KEY) {
            return Some(newer_index_message(version));
        }
        record_key.and_then(newer_at).map(newer_record_message)
    }
}

/// Loads the index and the current conversation, quarantining anything unreadable.
pub fn load_all() -> Loaded {
    #[cfg(feature = "hydrate")]
    {
        use crate::turn::message::decode_index;
        if !super::storage::available() {
            return Loaded {
                notices: vec![Notice::plain(
                    super::storage::StorageError::Unavailable.to_string(),
                )],
                ..Loaded::default()
            };
        }
        let mut notices = Vec::new();
        let index = match store::text(store::INDEX_KEY) {
            None => store::scan(&mut notices),
            Some(raw) => match decode_index(&raw) {
                Ok(index) => index,
                // A newer build's index stays as it is; list what this build
                // can read (saving is refused while it is there).
                Err(crate::turn::message::DecodeError::FutureVersion(version)) => {
                    notices.push(Notice::plain(store::newer_index_message(version)));
                    store::scan(&mut notices)
                }
                Err(err) => {
                    notices.push(store::quarantine(store::INDEX_KEY, raw, &err));
                    store::scan(&mut notices)
                }
            },
        };
        let current = store::text(store::CURRENT_KEY);
        let conversation = current
            .as_deref()
            .or(index.first().map(|s| s.id.as_str()))
            .and_then(|id| store::load(id, &mut notices));
        // Drop index lines whose record is gone (quarantined or deleted elsewhere).
        let index = index
            .into_iter()
            .filter(|s| store::text(&store::key(&s.id)).is_some())
            .collect();
        // Several newer records give the same notice: say it once.
        let mut seen = std::collections::HashSet::new();
        notices.retain(|n| seen.insert(n.message.clone()));
        Loaded {
            index,
            conversation,
            notices,
        }
    }
    #[cfg(not(feature = "hydrate"))]
    {
        Loaded::default()
    }
}

/// Every conversation stored in this browser that this build can read, for
/// Export all: newest first, and the number it could not read (damaged, or a
/// newer version's), which the caller names in a notice. Every key is read,
/// not only the index's lines, so a record the index lost is kept too; and
/// nothing is moved or rewritten (quarantine is for loading, not exporting).
pub fn load_every() -> (Vec<Conversation>, usize) {
    #[cfg(feature = "hydrate")]
    {
        let keys = super::storage::keys().unwrap_or_default();
        let mut unreadable = 0;
        let mut all: Vec<Conversation> = keys
            .iter()
            .filter(|key| key.starts_with(store::PREFIX))
            .filter_map(|key| {
                let read = store::text(key).map(|raw| crate::turn::message::decode(&raw));
                match read {
                    Some(Ok(conversation)) => Some(conversation),
                    Some(Err(_)) => {
                        unreadable += 1;
                        None
                    }
                    // Deleted since the keys were listed.
                    None => None,
                }
            })
            .collect();
        all.sort_by(|a, b| b.updated_at.total_cmp(&a.updated_at));
        (all, unreadable)
    }
    #[cfg(not(feature = "hydrate"))]
    {
        (Vec::new(), 0)
    }
}

/// Loads one conversation (switching); `Err` explains what happened.
pub fn load(id: &str) -> Result<Conversation, Notice> {
    #[cfg(feature = "hydrate")]
    {
        if !super::storage::available() {
            return Err(Notice::plain(
                super::storage::StorageError::Unavailable.to_string(),
            ));
        }
        let mut notices = Vec::new();
        store::load(id, &mut notices).ok_or_else(|| {
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

/// Saves a conversation and updates its index line; `Ok` is the size of the
/// stored record. `Err` is a message for the user (full, unavailable, refused,
/// or a newer build's data in the way); the last good state stays stored.
pub fn save(
    conversation: &Conversation,
    index: &mut Vec<Summary>,
    now_ms: f64,
) -> Result<usize, String> {
    #[cfg(feature = "hydrate")]
    if let Some(refused) = store::write_refused(Some(&store::key(&conversation.id))) {
        return Err(refused);
    }
    crate::turn::message::upsert_summary(index, conversation.summary());
    #[cfg(feature = "hydrate")]
    {
        let encoded = crate::turn::message::encode(conversation, now_ms);
        super::storage::set_text(&store::key(&conversation.id), &encoded)
            .and_then(|()| store::write_index(index))
            .map_err(|err| err.to_string())?;
        Ok(encoded.len())
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = now_ms;
        Ok(0)
    }
}

/// Removes a conversation and its index line; `Err` (a message for the user)
/// when a newer build's index or record is stored: then nothing changes.
pub fn delete(id: &str, index: &mut Vec<Summary>) -> Result<(), String> {
    #[cfg(feature = "hydrate")]
    if let Some(refused) = store::write_refused(Some(&store::key(id))) {
        return Err(refused);
    }
    index.retain(|s| s.id != id);
    #[cfg(feature = "hydrate")]
    if super::storage::available() {
        super::storage::delete(&store::key(id));
        let _ = store::write_index(index);
        if store::text(store::CURRENT_KEY).as_deref() == Some(id) {
            super::storage::delete(store::CURRENT_KEY);
        }
    }
    Ok(())
}

/// True when something is stored under this conversation id, of any version,
/// readable or not (an import must not take that id). Asks storage itself: the
/// index in memory lists neither newer records nor another tab's latest.
pub fn is_stored(id: &str) -> bool {
    #[cfg(feature = "hydrate")]
    {
        store::text(&store::key(id)).is_some()
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
    let _ = super::storage::set_text(store::CURRENT_KEY, id);
    #[cfg(not(feature = "hydrate"))]
    let _ = id;
}

/// Forgets which conversation is current (a new, unsaved one is shown).
pub fn clear_current() {
    #[cfg(feature = "hydrate")]
    super::storage::delete(store::CURRENT_KEY);
}

/// True when a `storage` event's key belongs to Pensive's history.
pub fn is_history_key(key: Option<&str>) -> bool {
    key.is_none_or(|k| k.starts_with("pensive.conversation.") || k == "pensive.index")
}

/// One conversation that matches a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    pub id: String,
    pub title: String,
    pub hit: crate::turn::search::Hit,
}

/// Searches every stored conversation, newest first, calling `found` for each
/// match as soon as it is found; stops early when `cancelled()` turns true
/// (a newer query took over). Async: storage is read without blocking the page.
///
/// This version reads localStorage: each record is decoded and its search
/// text made on the spot. It only reads (nothing is quarantined or rewritten:
/// that is loading's job), and gives the page the event loop back whenever it
/// has worked for `SEARCH_SLICE_MS`, so typing and painting go on meanwhile.
pub async fn search(query: String, mut found: impl FnMut(SearchHit), cancelled: impl Fn() -> bool) {
    #[cfg(feature = "hydrate")]
    {
        use crate::turn::message::{decode, decode_index};
        use crate::turn::search::{find, search_text};
        /// Work between two returns to the event loop (ms): well under a frame.
        const SEARCH_SLICE_MS: f64 = 8.0;
        if query.trim().is_empty() || !super::storage::available() {
            return;
        }
        let ids: Vec<String> = match store::text(store::INDEX_KEY).map(|raw| decode_index(&raw)) {
            Some(Ok(index)) => index.into_iter().map(|s| s.id).collect(),
            // No readable index (loading rebuilds it): every record, unordered.
            _ => super::storage::keys()
                .unwrap_or_default()
                .into_iter()
                .filter_map(|k| k.strip_prefix(store::PREFIX).map(str::to_owned))
                .collect(),
        };
        let mut slice_started = super::browser::now_ms();
        for id in ids {
            if super::browser::now_ms() - slice_started > SEARCH_SLICE_MS {
                next_task().await;
                slice_started = super::browser::now_ms();
            }
            if cancelled() {
                return;
            }
            let Some(Ok(conversation)) = store::text(&store::key(&id)).map(|raw| decode(&raw))
            else {
                continue;
            };
            if let Some(hit) = find(&search_text(&conversation), &query) {
                found(SearchHit {
                    id,
                    title: conversation.summary().title,
                    hit,
                });
            }
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (query, &mut found, cancelled);
}

/// Resolves in a later task of the event loop (a zero timeout), so input and
/// painting run in between. A microtask (`leptos::task::tick`) would not.
#[cfg(feature = "hydrate")]
async fn next_task() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let scheduled = web_sys::window().map(|w| w.set_timeout_with_callback(&resolve));
        if !matches!(scheduled, Some(Ok(_))) {
            let _ = resolve.call0(&wasm_bindgen::JsValue::UNDEFINED);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
