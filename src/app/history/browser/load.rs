//! Loading history in the browser: the first frame's list and conversation
//! from localStorage, then IndexedDB's (moving older builds' records over
//! and healing the list as `reconcile` decides), one conversation, or all
//! of them for an export. Reading never throws data away: what cannot be
//! read is quarantined or left in place, with a notice.

use std::collections::HashSet;

use super::super::reconcile::{self, Heal};
use super::super::{Loaded, Notice};
use super::save::Encoded;
use super::{idb, local};
use crate::app::storage;
use crate::turn::message::{decode, newer_version, upsert_summary, Conversation, Summary};

pub fn load_quick() -> Loaded {
    if !storage::available() {
        return Loaded {
            notices: vec![Notice::plain(
                storage::StorageError::Unavailable.to_string(),
            )],
            ..Loaded::default()
        };
    }
    let mut notices = Vec::new();
    let index = local::read_index(&mut notices)
        .ok()
        .flatten()
        .unwrap_or_default();
    let current = reconcile::current_id(local::text(local::CURRENT_KEY), &index);
    let conversation = current.and_then(|id| {
        let raw = local::quick_copy(&id).or_else(|| local::text(&local::legacy_key(&id)))?;
        // Quarantine is for `settle`, which reads every copy.
        decode(&raw).ok().filter(|c| c.id == id)
    });
    reconcile::dedupe(&mut notices);
    Loaded {
        index,
        conversation,
        notices,
    }
}

pub async fn settle() -> Loaded {
    let mut notices = Vec::new();
    if !storage::available() {
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
    let index = match Heal::plan(local::read_index(&mut notices), local::index_is_current) {
        Heal::Keep(index) => index,
        plan => {
            let index = plan.with(rebuild_index(&mut notices).await);
            if local::write_refused().is_none() {
                let _ = local::write_index(&index);
            }
            index
        }
    };
    let conversation = match reconcile::current_id(local::text(local::CURRENT_KEY), &index) {
        Some(id) => read(&id, &mut notices).await,
        None => None,
    };
    let stored: HashSet<String> = idb::ids().await.unwrap_or_default().into_iter().collect();
    let mut index = reconcile::keep_stored(index, &stored, |id| {
        local::text(&local::legacy_key(id)).is_some()
    });
    list_unlisted_records(&mut index, &stored).await;
    leptos::task::spawn_local(async {
        let _ = super::persist().await;
    });
    reconcile::dedupe(&mut notices);
    Loaded {
        index,
        conversation,
        notices,
    }
}

/// Adds a line for each readable record of `stored` that the list lacks (its
/// line could not be written when it was saved: localStorage was full), and
/// stores the list when that changed it.
pub async fn list_unlisted_records(index: &mut Vec<Summary>, stored: &HashSet<String>) {
    let unlisted = reconcile::unlisted_ids(index, stored);
    if unlisted.is_empty() {
        return;
    }
    let mut found = Vec::new();
    let _ = idb::each(idb::RECORDS, &unlisted, |_, raw| {
        // A newer build's or damaged record is that build's, or quarantined
        // elsewhere: only what this build reads gets a line.
        if let Ok(c) = decode(&raw) {
            let bytes = raw.len() as u64;
            found.push(Summary {
                bytes,
                ..c.summary()
            });
        }
        true
    })
    .await;
    if reconcile::list_found(index, found) && local::write_refused().is_none() {
        let _ = local::write_index(index);
    }
}

/// Moves each record an older build left in localStorage into IndexedDB (a
/// record already there is kept), then removes the old copies. A newer
/// build's record is left where it is; an unreadable one is quarantined.
async fn move_legacy_records(notices: &mut Vec<Notice>) {
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
                storage::delete(key);
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
async fn rebuild_index(notices: &mut Vec<Notice>) -> Vec<Summary> {
    let mut index = Vec::new();
    let mut add = |raw: String, quarantine_key: Option<&str>, notices: &mut Vec<Notice>| {
        let bytes = raw.len() as u64;
        if let Some(c) = local::decode_record(raw, quarantine_key, notices) {
            upsert_summary(
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

pub async fn load(id: &str) -> Result<Conversation, Notice> {
    let mut notices = Vec::new();
    read(id, &mut notices).await.ok_or_else(|| {
        notices.pop().unwrap_or_else(|| {
            Notice::plain("That conversation is no longer stored (deleted in another tab?).")
        })
    })
}

pub async fn load_every() -> (Vec<Conversation>, usize) {
    let ids = idb::ids().await.unwrap_or_default();
    let mut unreadable = 0;
    let mut all = Vec::new();
    let _ = idb::each(idb::RECORDS, &ids, |_, raw| {
        match decode(&raw) {
            Ok(conversation) => all.push(conversation),
            Err(_) => unreadable += 1,
        }
        true
    })
    .await;
    all.sort_by(|a: &Conversation, b| b.updated_at.total_cmp(&a.updated_at));
    (all, unreadable)
}
