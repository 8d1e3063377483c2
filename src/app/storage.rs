//! localStorage through gloo-storage, behind one seam. Whatever the browser
//! does wrong ends as one of a few [`StorageError`]s the user can be told
//! about. Records the app encodes itself (history) go in and out as text, so
//! their format stays the app's; small typed values (the preference) use
//! gloo-storage's JSON get/set. Never throws into JavaScript: gloo-storage's
//! `LocalStorage::raw()` aborts when storage is missing, so every call checks
//! first. On the server there is no storage and every call says so.

use serde::{de::DeserializeOwned, Serialize};

/// Why a storage call failed, in the words the notices use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StorageError {
    /// No localStorage (disabled, blocked for this site, or the server). One
    /// wording wherever it shows, so the notice list shows it once.
    #[error("Browser storage is unavailable: history will not be kept.")]
    Unavailable,
    /// The quota is used up.
    #[error("Could not save: browser storage is full. The last saved state is kept; delete or export old conversations to make room.")]
    Full,
    /// The browser refused the write for another reason.
    #[error(
        "Could not save: the browser refused to store it ({0}). The last saved state is kept."
    )]
    Refused(String),
    /// A stored value is not what it should be.
    #[error("{0}")]
    Unreadable(String),
    /// A newer build's data is in the way (the message says which).
    #[error("{0}")]
    Newer(String),
    /// A newer build upgraded the IndexedDB database past what this one knows.
    #[error("Your history was saved by a newer version of Pensive, which this tab cannot open, so it saves nothing. Reload the page to use the newer version.")]
    NewerDatabase,
}

impl StorageError {
    /// Sorts a DOMException thrown by the Storage API by its `name`.
    pub fn from_dom_exception(name: &str, message: &str) -> Self {
        match name {
            // Firefox before 2020 used its own name for the same condition.
            "QuotaExceededError" | "NS_ERROR_DOM_QUOTA_REACHED" => Self::Full,
            "SecurityError" => Self::Unavailable,
            _ if message.is_empty() => Self::Refused(name.to_owned()),
            _ => Self::Refused(format!("{name}: {message}")),
        }
    }
}

#[cfg(feature = "hydrate")]
impl From<gloo_storage::errors::StorageError> for StorageError {
    fn from(err: gloo_storage::errors::StorageError) -> Self {
        use gloo_storage::errors::StorageError as Gloo;
        match err {
            Gloo::JsError(js) => Self::from_dom_exception(&js.name, &js.message),
            Gloo::SerdeError(err) => Self::Unreadable(err.to_string()),
            Gloo::KeyNotFound(key) => Self::Unreadable(format!("{key} is not stored")),
        }
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    use super::*;
    use gloo_storage::{LocalStorage, Storage};
    use wasm_bindgen::JsValue;

    /// `LocalStorage::raw()` panics (throws) when `window.localStorage` is
    /// missing or its getter throws (storage blocked): ask web-sys first.
    fn check() -> Result<(), StorageError> {
        web_sys::window()
            .and_then(|w| w.local_storage().ok().flatten())
            .map(drop)
            .ok_or(StorageError::Unavailable)
    }

    /// What a raw Storage call threw, sorted as gloo-storage's errors are.
    fn thrown(value: JsValue) -> StorageError {
        use wasm_bindgen::JsCast;
        match value.dyn_into::<js_sys::Error>() {
            Ok(error) => StorageError::from_dom_exception(
                &String::from(error.name()),
                &String::from(error.message()),
            ),
            Err(other) => StorageError::Refused(format!("{other:?}")),
        }
    }

    pub fn available() -> bool {
        check().is_ok()
    }

    pub fn get_text(key: &str) -> Result<Option<String>, StorageError> {
        check()?;
        LocalStorage::raw().get_item(key).map_err(thrown)
    }

    pub fn set_text(key: &str, value: &str) -> Result<(), StorageError> {
        check()?;
        LocalStorage::raw().set_item(key, value).map_err(thrown)
    }

    pub fn get<T: DeserializeOwned>(key: &str) -> Result<Option<T>, StorageError> {
        // Not gloo's `LocalStorage::get`: its `from_str` would be a second
        // copy of each type's reader in the bundle (crate::turn::json).
        get_text(key)?
            .map(|text| crate::turn::json::read(&text))
            .transpose()
            .map_err(|err| StorageError::Unreadable(err.to_string()))
    }

    pub fn set<T: Serialize>(key: &str, value: &T) -> Result<(), StorageError> {
        check()?;
        LocalStorage::set(key, value).map_err(Into::into)
    }

    pub fn delete(key: &str) {
        if check().is_ok() {
            LocalStorage::delete(key);
        }
    }

    pub fn keys() -> Result<Vec<String>, StorageError> {
        check()?;
        let storage = LocalStorage::raw();
        Ok((0..LocalStorage::length())
            .filter_map(|i| storage.key(i).ok().flatten())
            .collect())
    }
}

#[cfg(not(feature = "hydrate"))]
mod browser {
    use super::*;

    pub fn get_text(_key: &str) -> Result<Option<String>, StorageError> {
        Err(StorageError::Unavailable)
    }

    pub fn set_text(_key: &str, _value: &str) -> Result<(), StorageError> {
        Err(StorageError::Unavailable)
    }

    pub fn get<T: DeserializeOwned>(_key: &str) -> Result<Option<T>, StorageError> {
        Err(StorageError::Unavailable)
    }

    pub fn set<T: Serialize>(_key: &str, _value: &T) -> Result<(), StorageError> {
        Err(StorageError::Unavailable)
    }

    pub fn delete(_key: &str) {}

    pub fn available() -> bool {
        false
    }

    pub fn keys() -> Result<Vec<String>, StorageError> {
        Err(StorageError::Unavailable)
    }
}

/// True when localStorage can be used at all.
pub fn available() -> bool {
    browser::available()
}

/// The text stored under `key`, as stored.
pub fn get_text(key: &str) -> Result<Option<String>, StorageError> {
    browser::get_text(key)
}

std::thread_local! {
    /// Set by [`seal`]: this page writes nothing more.
    static SEALED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// From now on this page stores nothing (its history was just removed, and
/// the page is going away: the saves it would make as it hides must not put
/// any of it back). Lasts as long as the page.
pub fn seal() {
    SEALED.with(|sealed| sealed.set(true));
}

/// Whether [`seal`] was called.
pub fn is_sealed() -> bool {
    SEALED.with(std::cell::Cell::get)
}

/// Stores `value` as it is (text the app encoded itself).
pub fn set_text(key: &str, value: &str) -> Result<(), StorageError> {
    if is_sealed() {
        return Err(StorageError::Unavailable);
    }
    browser::set_text(key, value)
}

/// The JSON value stored under `key` (gloo-storage's `get`).
pub fn get<T: DeserializeOwned>(key: &str) -> Result<Option<T>, StorageError> {
    browser::get(key)
}

/// Stores `value` as JSON (gloo-storage's `set`).
pub fn set<T: Serialize>(key: &str, value: &T) -> Result<(), StorageError> {
    if is_sealed() {
        return Err(StorageError::Unavailable);
    }
    browser::set(key, value)
}

/// Removes `key` (nothing to report: removing cannot fail once storage exists).
pub fn delete(key: &str) {
    browser::delete(key)
}

/// Every key stored.
pub fn keys() -> Result<Vec<String>, StorageError> {
    browser::keys()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_page_stores_nothing() {
        // Native: storage is unavailable anyway, so the seal's own error is
        // what is checked (the same as no storage: nothing is written).
        assert!(!is_sealed());
        seal();
        assert!(is_sealed());
        assert_eq!(
            set_text("pensive.index", "[]"),
            Err(StorageError::Unavailable)
        );
        assert_eq!(set("pensive.fold", &true), Err(StorageError::Unavailable));
    }

    #[test]
    fn dom_exceptions_become_the_notices_the_user_knows() {
        assert_eq!(
            StorageError::from_dom_exception("QuotaExceededError", "The quota has been exceeded."),
            StorageError::Full
        );
        assert_eq!(
            StorageError::from_dom_exception("NS_ERROR_DOM_QUOTA_REACHED", ""),
            StorageError::Full
        );
        assert_eq!(
            StorageError::from_dom_exception("SecurityError", "The operation is insecure."),
            StorageError::Unavailable
        );
        assert_eq!(
            StorageError::from_dom_exception("InvalidStateError", "closing"),
            StorageError::Refused("InvalidStateError: closing".into())
        );
        assert!(StorageError::Full.to_string().contains("storage is full"));
        assert!(StorageError::Unavailable
            .to_string()
            .contains("unavailable"));
    }
}
