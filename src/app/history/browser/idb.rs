//! IndexedDB through web-sys alone (no wrapper crate: the few calls history
//! needs fit here, and each `IDBRequest` becomes a future by handing a
//! `Promise`'s resolve and reject to its success and error handlers).
//!
//! One database, `pensive`, with three object stores keyed by conversation
//! id: `conversations` holds each conversation's record as the same versioned
//! JSON text localStorage held (`turn::message::encode`), `search` its search
//! text (`turn::search::search_text`), kept apart so a search never parses a
//! record, and `words` its word list (`turn::search::word_list`), so a search
//! reads the whole text only of conversations that may match. Every failure
//! ends as a [`StorageError`].
//!
//! Futures resume in a microtask of the event that resolved them, while the
//! transaction is still active, so a write can read first and then put in the
//! same transaction (nothing can come between the check and the write).

use std::cell::RefCell;

use js_sys::{Array, Promise};
use wasm_bindgen::{closure::Closure, JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    DomException, IdbDatabase, IdbObjectStore, IdbOpenDbRequest, IdbRequest, IdbTransaction,
    IdbTransactionMode,
};

use crate::app::storage::StorageError;

pub const DB_NAME: &str = "pensive";
/// Version 1: `conversations` and `search`; 2 adds `words` (a database of
/// version 1 is upgraded in place: its conversations have no word list yet,
/// and searches read their texts). A newer build that adds stores raises it,
/// and this build then cannot open the database (a `VersionError`).
const DB_VERSION: u32 = 2;
pub const RECORDS: &str = "conversations";
pub const SEARCH: &str = "search";
pub const WORDS: &str = "words";
const STORES: [&str; 3] = [RECORDS, SEARCH, WORDS];

thread_local! {
    /// The open connection, shared by every call (opening costs a few ms).
    static DB: RefCell<Option<IdbDatabase>> = const { RefCell::new(None) };
}

/// What a failed IndexedDB call reported, in the notices' words.
fn from_dom(error: Option<DomException>) -> StorageError {
    match error {
        Some(e) if e.name() == "VersionError" => StorageError::NewerDatabase,
        Some(e) => StorageError::from_dom_exception(&e.name(), &e.message()),
        None => StorageError::Refused("the transaction was aborted".into()),
    }
}

/// What a web-sys call threw synchronously.
fn thrown(value: JsValue) -> StorageError {
    from_dom(value.dyn_into::<DomException>().ok())
}

/// Waits for a request's success (its result) or error.
async fn finished(request: &IdbRequest) -> Result<JsValue, StorageError> {
    let promise = Promise::new(&mut |resolve, reject| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
    });
    let outcome = JsFuture::from(promise).await;
    request.set_onsuccess(None);
    request.set_onerror(None);
    match outcome {
        Ok(_) => request.result().map_err(thrown),
        Err(_) => Err(from_dom(request.error().ok().flatten())),
    }
}

/// Waits until `tx` has committed; `Err` when it aborted (quota, a refused
/// write, or [`IdbTransaction::abort`]).
async fn committed(tx: &IdbTransaction) -> Result<(), StorageError> {
    let promise = Promise::new(&mut |resolve, reject| {
        tx.set_oncomplete(Some(&resolve));
        tx.set_onabort(Some(&reject));
    });
    let outcome = JsFuture::from(promise).await;
    tx.set_oncomplete(None);
    tx.set_onabort(None);
    outcome.map(drop).map_err(|_| from_dom(tx.error()))
}

/// Deletes the whole database, this tab's connection closed first (other
/// tabs close theirs when told: `onversionchange` below). Resolves once the
/// browser deleted it.
pub async fn delete_database() -> Result<(), StorageError> {
    if let Some(db) = DB.with_borrow_mut(Option::take) {
        db.close();
    }
    let factory = web_sys::window()
        .and_then(|w| w.indexed_db().ok().flatten())
        .ok_or(StorageError::Unavailable)?;
    let request = factory.delete_database(DB_NAME).map_err(thrown)?;
    finished(&request).await.map(drop)
}

/// The database, opened (and created) on first use.
async fn database() -> Result<IdbDatabase, StorageError> {
    if crate::app::storage::is_sealed() {
        return Err(StorageError::Unavailable);
    }
    if let Some(db) = DB.with_borrow(Clone::clone) {
        return Ok(db);
    }
    let factory = web_sys::window()
        .and_then(|w| w.indexed_db().ok().flatten())
        .ok_or(StorageError::Unavailable)?;
    let request: IdbOpenDbRequest = factory.open_with_u32(DB_NAME, DB_VERSION).map_err(thrown)?;
    let upgrade = {
        let request = request.clone();
        Closure::<dyn FnMut()>::new(move || {
            let Ok(db) = request.result().and_then(|r| r.dyn_into::<IdbDatabase>()) else {
                return;
            };
            let names = db.object_store_names();
            for store in STORES {
                if !names.contains(store) {
                    let _ = db.create_object_store(store);
                }
            }
        })
    };
    request.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
    let opened = finished(&request).await;
    request.set_onupgradeneeded(None);
    drop(upgrade);
    let db: IdbDatabase = opened?
        .dyn_into()
        .map_err(|_| StorageError::Refused("IndexedDB opened no database".into()))?;
    // A newer build upgrading the database waits until every older
    // connection closes: close this one and open afresh next time (which
    // then fails with a VersionError, said as a notice).
    let on_version_change = Closure::<dyn FnMut()>::new(|| {
        if let Some(db) = DB.with_borrow_mut(Option::take) {
            db.close();
        }
    });
    db.set_onversionchange(Some(on_version_change.as_ref().unchecked_ref()));
    on_version_change.forget(); // lives as long as the connection
    DB.with_borrow_mut(|slot| *slot = Some(db.clone()));
    Ok(db)
}

/// A transaction over every store.
async fn transaction(mode: IdbTransactionMode) -> Result<IdbTransaction, StorageError> {
    let db = database().await?;
    let stores: Array = STORES.iter().map(|name| JsValue::from_str(name)).collect();
    db.transaction_with_str_sequence_and_mode(&stores, mode)
        .map_err(thrown)
}

fn store(tx: &IdbTransaction, name: &str) -> Result<IdbObjectStore, StorageError> {
    tx.object_store(name).map_err(thrown)
}

/// Opens the database now (so the first save does not pay for it); `Err`
/// says why history cannot be kept.
pub async fn open() -> Result<(), StorageError> {
    database().await.map(drop)
}

/// One conversation to write: its id, record, search text and word list
/// (empty: none, the search reads the text).
pub struct Item<'a> {
    pub id: &'a str,
    pub record: &'a str,
    pub search: &'a str,
    pub words: &'a str,
}

/// What to do where a record is stored already under an item's id.
pub enum Existing {
    /// Give up the whole write when `refuse` says so of the stored record
    /// (a newer build's), with its error; otherwise replace it.
    ReplaceUnless(fn(&str) -> Option<StorageError>),
    /// Keep the stored record and skip the item (moving old data over must
    /// never replace what is already here).
    Keep,
}

/// Writes `items` in one transaction: all of them or, when the browser
/// refuses (quota) or `existing` says so, none. `Ok` is how many were written.
pub async fn write(items: &[Item<'_>], existing: Existing) -> Result<usize, StorageError> {
    let tx = transaction(IdbTransactionMode::Readwrite).await?;
    match put_all(&tx, items, existing).await {
        Ok(written) => committed(&tx).await.map(|()| written),
        Err(error) => {
            // Whatever was put before the failure goes too: all or nothing.
            let _ = tx.abort();
            Err(error)
        }
    }
}

async fn put_all(
    tx: &IdbTransaction,
    items: &[Item<'_>],
    existing: Existing,
) -> Result<usize, StorageError> {
    let records = store(tx, RECORDS)?;
    let search = store(tx, SEARCH)?;
    let words = store(tx, WORDS)?;
    let checks: Vec<IdbRequest> = items
        .iter()
        .map(|item| records.get(&item.id.into()).map_err(thrown))
        .collect::<Result<_, _>>()?;
    let mut written = 0;
    for (item, check) in items.iter().zip(&checks) {
        let stored = finished(check).await?.as_string();
        match (&existing, stored) {
            (Existing::Keep, Some(_)) => continue,
            (Existing::ReplaceUnless(refuse), Some(stored)) => {
                if let Some(error) = refuse(&stored) {
                    return Err(error);
                }
            }
            (_, None) => {}
        }
        records
            .put_with_key(&item.record.into(), &item.id.into())
            .map_err(thrown)?;
        search
            .put_with_key(&item.search.into(), &item.id.into())
            .map_err(thrown)?;
        if item.words.is_empty() {
            words.delete(&item.id.into()).map_err(thrown)?;
        } else {
            words
                .put_with_key(&item.words.into(), &item.id.into())
                .map_err(thrown)?;
        }
        written += 1;
    }
    Ok(written)
}

/// Removes the conversations `ids` (every store), unless `refuse` says no
/// of one of their stored records; then nothing is removed.
pub async fn delete(
    ids: &[&str],
    refuse: fn(&str) -> Option<StorageError>,
) -> Result<(), StorageError> {
    let tx = transaction(IdbTransactionMode::Readwrite).await?;
    let records = store(&tx, RECORDS)?;
    let checks: Vec<IdbRequest> = ids
        .iter()
        .map(|id| records.get(&(*id).into()).map_err(thrown))
        .collect::<Result<_, _>>()?;
    for check in &checks {
        if let Some(error) = finished(check)
            .await?
            .as_string()
            .as_deref()
            .and_then(refuse)
        {
            let _ = tx.abort();
            return Err(error);
        }
    }
    for name in STORES {
        let store = store(&tx, name)?;
        for id in ids {
            store.delete(&(*id).into()).map_err(thrown)?;
        }
    }
    committed(&tx).await
}

/// The text stored under `id` in `store_name`, if any.
pub async fn get(store_name: &str, id: &str) -> Result<Option<String>, StorageError> {
    let tx = transaction(IdbTransactionMode::Readonly).await?;
    let request = store(&tx, store_name)?.get(&id.into()).map_err(thrown)?;
    Ok(finished(&request).await?.as_string())
}

/// The texts stored under `ids` in `store_name`, handed to `each` in the
/// order of `ids` as they arrive (absent ones are skipped). All are asked for
/// at once; `each` returning false stops early.
pub async fn each(
    store_name: &str,
    ids: &[String],
    mut each: impl FnMut(&str, String) -> bool,
) -> Result<(), StorageError> {
    let tx = transaction(IdbTransactionMode::Readonly).await?;
    let store = store(&tx, store_name)?;
    let requests: Vec<IdbRequest> = ids
        .iter()
        .map(|id| store.get(&id.into()).map_err(thrown))
        .collect::<Result<_, _>>()?;
    for (id, request) in ids.iter().zip(&requests) {
        if let Some(text) = finished(request).await?.as_string() {
            if !each(id, text) {
                let _ = tx.abort();
                break;
            }
        }
    }
    Ok(())
}

/// Every id in the records store.
pub async fn ids() -> Result<Vec<String>, StorageError> {
    let tx = transaction(IdbTransactionMode::Readonly).await?;
    let request = store(&tx, RECORDS)?.get_all_keys().map_err(thrown)?;
    let keys: Array = finished(&request).await?.unchecked_into();
    Ok(keys.iter().filter_map(|k| k.as_string()).collect())
}
