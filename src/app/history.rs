//! Conversation history in localStorage (DESIGN §5): one key per conversation
//! plus a small index, so a turn rewrites only its own conversation. Reading
//! never throws data away: an unreadable record is moved to a backup key, the
//! user is told and can download it. On the server every call is a no-op.

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
}

/// Loads the index and the current conversation, quarantining anything unreadable.
pub fn load_all() -> Loaded {
    #[cfg(feature = "hydrate")]
    {
        use crate::turn::message::decode_index;
        if !super::storage::available() {
            return Loaded {
                notices: vec![Notice::plain(
                    "Browser storage is unavailable: history will not be kept.",
                )],
                ..Loaded::default()
            };
        }
        let mut notices = Vec::new();
        let index = match store::text(store::INDEX_KEY) {
            None => store::scan(&mut notices),
            Some(raw) => match decode_index(&raw) {
                Ok(index) => index,
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
/// stored record. `Err` is a message for the user (full, unavailable, refused);
/// the last good state stays stored.
pub fn save(
    conversation: &Conversation,
    index: &mut Vec<Summary>,
    now_ms: f64,
) -> Result<usize, String> {
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

/// Removes a conversation and its index line.
pub fn delete(id: &str, index: &mut Vec<Summary>) {
    index.retain(|s| s.id != id);
    #[cfg(feature = "hydrate")]
    if super::storage::available() {
        super::storage::delete(&store::key(id));
        let _ = store::write_index(index);
        if store::text(store::CURRENT_KEY).as_deref() == Some(id) {
            super::storage::delete(store::CURRENT_KEY);
        }
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
