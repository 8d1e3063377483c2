//! What history keeps in localStorage, read synchronously before the first
//! frame: the conversation list (index), which conversation is current, and a
//! quick-restore copy of it when it is small. Also the records older builds
//! kept here (`pensive.conversation.<id>`), until they are moved to IndexedDB,
//! and the backups of unreadable data.

use super::super::Notice;
use crate::app::storage::{self, StorageError};
use crate::turn::message::{self, upsert_summary, Conversation, DecodeError, Summary};

pub const CURRENT_KEY: &str = "pensive.current";
pub const INDEX_KEY: &str = "pensive.index";
/// `{id}\n{record}`: the current conversation as stored, for a reload to show
/// at once without waiting for IndexedDB.
pub const QUICK_KEY: &str = "pensive.quick";
/// Where builds before IndexedDB kept each conversation.
pub const LEGACY_PREFIX: &str = "pensive.conversation.";
/// A larger current conversation has no quick copy (its first frame is the
/// snapshot's picture; its data comes from IndexedDB a moment later):
/// localStorage's whole quota is about 5 MB, and each save rewrites the copy.
pub const QUICK_COPY_MAX_BYTES: usize = 512 * 1024;
/// While the page is hidden it may be going away before IndexedDB commits
/// (a reload, a closed tab): then the copy is kept up to this size, most of
/// localStorage's quota, so that what was on screen survives (`settle`
/// stores it in IndexedDB on the next load).
pub const QUICK_COPY_UNLOAD_MAX_BYTES: usize = 4 * 1024 * 1024;

pub fn legacy_key(id: &str) -> String {
    format!("{LEGACY_PREFIX}{id}")
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

/// A stored text, or `None` when absent or unreadable.
pub fn text(key: &str) -> Option<String> {
    storage::get_text(key).ok().flatten()
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
        message: format!(
            "Some saved data could not be opened ({err}). {where_kept}; the rest of your history is here."
        ),
        backup: Some(raw),
    }
}

/// Reads a record: `None` with a notice when it is a newer build's (left as
/// it is) or unreadable (`quarantine_key`: moved to a backup key; `None`:
/// left where it is, as IndexedDB's records are).
pub fn decode_record(
    raw: String,
    quarantine_key: Option<&str>,
    notices: &mut Vec<Notice>,
) -> Option<Conversation> {
    match message::decode(&raw) {
        Ok(c) => Some(c),
        Err(DecodeError::FutureVersion(version)) => {
            notices.push(Notice::plain(newer_record_message(version)));
            None
        }
        Err(err) => {
            match quarantine_key {
                Some(key) => notices.push(quarantine(key, raw, &err)),
                None => notices.push(Notice {
                    message: format!(
                        "A saved conversation could not be opened ({err}). It is left as it is; \
                         the rest of your history is here."
                    ),
                    backup: Some(raw),
                }),
            }
            None
        }
    }
}

/// The stored list: `Ok(None)` when there is none, `Err` with a notice when
/// it is a newer build's or unreadable (then quarantined).
pub fn read_index(notices: &mut Vec<Notice>) -> Result<Option<Vec<Summary>>, ()> {
    let Some(raw) = text(INDEX_KEY) else {
        return Ok(None);
    };
    match message::decode_index(&raw) {
        Ok(index) => Ok(Some(index)),
        Err(DecodeError::FutureVersion(version)) => {
            notices.push(Notice::plain(newer_index_message(version)));
            Err(())
        }
        Err(err) => {
            notices.push(quarantine(INDEX_KEY, raw, &err));
            Err(())
        }
    }
}

/// True when the stored index is of this build's version (not an older one,
/// which is rewritten once its records are moved over).
pub fn index_is_current() -> bool {
    text(INDEX_KEY)
        .is_some_and(|raw| raw.starts_with(&format!(r#"{{"version":{},"#, message::INDEX_VERSION)))
}

/// Why this tab must not write: a newer build's index is stored now (read
/// from storage at each write, not remembered from loading).
pub fn write_refused() -> Option<String> {
    text(INDEX_KEY)
        .as_deref()
        .and_then(message::newer_index_version)
        .map(newer_index_message)
}

/// Writes the list; an empty one is removed, so that the first-paint script
/// can tell "there is history" from the key alone.
pub fn write_index(index: &[Summary]) -> Result<(), StorageError> {
    if index.is_empty() {
        storage::delete(INDEX_KEY);
        return Ok(());
    }
    storage::set_text(INDEX_KEY, &message::encode_index(index))
}

/// Changes the stored list as `change` says, re-reading it first so that
/// another tab's lines are kept (each tab holds only its own in memory).
pub fn update_index(change: impl FnOnce(&mut Vec<Summary>)) -> Result<(), StorageError> {
    let mut ignored = Vec::new();
    let Ok(stored) = read_index(&mut ignored) else {
        return Ok(()); // a newer build's or quarantined: saving checked it
    };
    let mut index = stored.unwrap_or_default();
    change(&mut index);
    write_index(&index)
}

/// Adds or replaces one line of the stored list.
pub fn upsert_stored(summary: Summary) -> Result<(), StorageError> {
    update_index(|index| upsert_summary(index, summary))
}

/// The quick-restore copy, when it is of conversation `id`.
pub fn quick_copy(id: &str) -> Option<String> {
    let raw = text(QUICK_KEY)?;
    let (stored_id, record) = raw.split_once('\n')?;
    (stored_id == id).then(|| record.to_owned())
}

/// Keeps `record` as the quick-restore copy of `id`, or drops the copy when
/// the record is too large for it or localStorage refuses (IndexedDB holds
/// the conversation either way).
pub fn keep_quick_copy(id: &str, record: &str) {
    let page_hidden = web_sys::window()
        .and_then(|w| w.document())
        .is_some_and(|d| d.hidden());
    let max = if page_hidden {
        QUICK_COPY_UNLOAD_MAX_BYTES
    } else {
        QUICK_COPY_MAX_BYTES
    };
    if record.len() > max || storage::set_text(QUICK_KEY, &format!("{id}\n{record}")).is_err() {
        storage::delete(QUICK_KEY);
    }
}

/// Every key of an older build's record still in localStorage.
pub fn legacy_keys() -> Vec<String> {
    storage::keys()
        .unwrap_or_default()
        .into_iter()
        .filter(|k| k.starts_with(LEGACY_PREFIX))
        .collect()
}
