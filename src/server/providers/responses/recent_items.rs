//! The item ids a Responses decoder remembers, bounded however many a
//! stream names.

use std::collections::{HashSet, VecDeque};
use std::hash::{BuildHasher, RandomState};

/// Most item ids `RecentItems` keeps.
pub(super) const MAX_TRACKED_ITEMS: usize = 1024;

/// The latest item ids seen, at most `MAX_TRACKED_ITEMS`, each kept as a
/// fixed-size hash: a stream may name any number of items with ids of any
/// length, and this must not grow with them. Items stream one after another,
/// so an item this many items old is long done; forgetting it could only mark
/// its (never coming) `done` opaque. The hasher is keyed per decoder, so a
/// stream cannot aim for collisions.
#[derive(Debug, Default)]
pub(super) struct RecentItems {
    hasher: RandomState,
    ids: HashSet<u64>,
    order: VecDeque<u64>,
}

impl RecentItems {
    pub(super) fn insert(&mut self, id: &str) {
        let hash = self.hasher.hash_one(id);
        if !self.ids.insert(hash) {
            return;
        }
        self.order.push_back(hash);
        if self.order.len() > MAX_TRACKED_ITEMS {
            if let Some(oldest) = self.order.pop_front() {
                self.ids.remove(&oldest);
            }
        }
    }

    pub(super) fn contains(&self, id: &str) -> bool {
        self.ids.contains(&self.hasher.hash_one(id))
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.order.len()
    }
}
