//! Searching history in the browser: only the search texts and word lists
//! IndexedDB keeps beside each record are read, never the records, so
//! nothing is decoded, quarantined or rewritten. The matching itself is
//! `turn::search`'s.

use std::collections::HashSet;

use super::super::{reconcile, SearchHit, SEARCH_HITS, SEARCH_HITS_PER_CONVERSATION};
use super::load::list_unlisted_records;
use super::{idb, local};
use crate::turn::search::{find_all, may_match};

pub async fn search(query: String, mut found: impl FnMut(SearchHit), cancelled: impl Fn() -> bool) {
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
        _ => reconcile::untitled_lines(stored),
    };
    let ids: Vec<String> = lines.iter().map(|s| s.id.clone()).collect();
    // The word lists first (a small fraction of the texts): only the
    // conversations that may match have their whole text read (and those
    // without a list, or whose list could not be read).
    let mut ruled_out = HashSet::new();
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
