//! How a save ended, in the words a user reads: a record stored but not
//! listed (localStorage full), or refused by IndexedDB while the
//! conversation stays on screen. Pure, so the wording is tested natively;
//! the browser body (`browser/save.rs`) calls it.

use super::Saved;
use crate::app::storage::StorageError;

/// How a stored record's save ended, given how writing the list went: what a
/// user reads when localStorage refused the list (full).
pub fn listed(list_write: Result<(), StorageError>) -> Saved {
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
pub fn kept_in_memory(err: &StorageError) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_record_whose_list_could_not_be_written_says_it_is_listed_again_on_load() {
        assert_eq!(listed(Ok(())), Saved::Stored);
        let Saved::Unlisted(message) = listed(Err(StorageError::Full)) else {
            panic!("a refused list write is reported");
        };
        assert!(
            message.starts_with("The conversation is saved"),
            "{message}"
        );
        assert!(
            message.contains(&StorageError::Full.to_string()),
            "{message}"
        );
        assert!(
            message.contains("listed again when this page loads"),
            "{message}"
        );
    }

    #[test]
    fn a_refused_save_says_the_conversation_stays_in_this_tab() {
        let full = kept_in_memory(&StorageError::Full);
        assert!(full.contains("browser storage is full"), "{full}");
        assert!(full.contains("kept in this tab only"), "{full}");
        // The words loading used, so the notice list shows them once.
        assert_eq!(
            kept_in_memory(&StorageError::Unavailable),
            StorageError::Unavailable.to_string()
        );
        assert_eq!(
            kept_in_memory(&StorageError::Newer("A newer build's.".into())),
            "A newer build's."
        );
        let refused = kept_in_memory(&StorageError::Refused("AbortError".into()));
        assert!(
            refused.starts_with(&StorageError::Refused("AbortError".into()).to_string()),
            "{refused}"
        );
        assert!(
            refused.ends_with("kept in this tab only for now."),
            "{refused}"
        );
    }
}
