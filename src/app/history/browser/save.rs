//! Writing history in the browser: a conversation (its list line at once,
//! its record in IndexedDB a moment later), an import of many in one
//! transaction, a deletion, and forgetting everything. A newer build's
//! index or record is never replaced or deleted: the write is refused with
//! the words the user reads, and the conversation stays on screen.

use super::super::save_outcome::{kept_in_memory, listed};
use super::super::Saved;
use super::{channel, idb, local};
use crate::app::storage::{self, StorageError};
use crate::turn::message::{encode, newer_version, upsert_summary, Conversation, Summary};

pub fn save(
    conversation: &Conversation,
    index: &mut Vec<Summary>,
    now_ms: f64,
    settled: impl FnOnce(Saved) + 'static,
) -> Result<usize, String> {
    if let Some(refused) = local::write_refused() {
        return Err(refused);
    }
    let mut line = conversation.summary();
    let record = encode(conversation, now_ms);
    line.bytes = record.len() as u64;
    upsert_summary(index, line.clone());
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

/// A conversation as IndexedDB keeps it: its record, and beside it its
/// search text and word list.
pub struct Encoded {
    id: String,
    record: String,
    search: String,
    words: String,
}

impl Encoded {
    pub fn new(c: &Conversation, record: String) -> Self {
        let search = crate::turn::search::search_text(c);
        let words = crate::turn::search::word_list(c, &search);
        Encoded {
            id: c.id.clone(),
            record,
            search,
            words,
        }
    }

    pub fn item(&self) -> idb::Item<'_> {
        idb::Item {
            id: &self.id,
            record: &self.record,
            search: &self.search,
            words: &self.words,
        }
    }
}

pub async fn save_all(
    conversations: &[Conversation],
    index: &mut Vec<Summary>,
    now_ms: f64,
) -> Result<Saved, String> {
    if let Some(refused) = local::write_refused() {
        return Err(refused);
    }
    let encoded: Vec<Encoded> = conversations
        .iter()
        .map(|c| Encoded::new(c, encode(c, now_ms)))
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
            upsert_summary(stored, line.clone());
        }
    });
    for line in lines {
        upsert_summary(index, line);
    }
    for c in conversations {
        channel::announce(&c.id);
    }
    Ok(listed(list_write))
}

/// A stored record this build must not replace or delete: a newer build's.
fn refuse_newer(stored: &str) -> Option<StorageError> {
    newer_version(stored).map(|v| StorageError::Newer(local::newer_record_message(v)))
}

pub async fn delete(id: &str) -> Result<(), String> {
    if let Some(refused) = local::write_refused() {
        return Err(refused);
    }
    idb::delete(&[id], refuse_newer)
        .await
        .map_err(|err| err.to_string())?;
    storage::delete(&local::legacy_key(id));
    let _ = local::update_index(|index| index.retain(|s| s.id != id));
    if local::text(local::CURRENT_KEY).as_deref() == Some(id) {
        clear_current();
    }
    channel::announce(id);
    Ok(())
}

pub async fn is_stored(id: &str) -> bool {
    matches!(idb::get(idb::RECORDS, id).await, Ok(Some(_)))
        || local::text(&local::legacy_key(id)).is_some()
}

pub fn set_current(id: &str) {
    let _ = storage::set_text(local::CURRENT_KEY, id);
}

pub fn clear_current() {
    storage::delete(local::CURRENT_KEY);
    storage::delete(local::QUICK_KEY);
}

pub async fn forget_everything() -> Result<(), String> {
    storage::seal();
    let keys = storage::keys().map_err(|e| e.to_string())?;
    for key in keys.iter().filter(|k| k.starts_with("pensive.")) {
        storage::delete(key);
    }
    let deleted = idb::delete_database().await.map_err(|e| e.to_string());
    // Other tabs on this history show what is left: nothing.
    channel::announce("");
    deleted
}
