//! How loading reconciles the stored list with the stored records, with no
//! storage in it: which conversation is current, whether a list found in
//! localStorage is kept, merged with the records or rebuilt from them, which
//! lines lose their record and which records gain a line, and that a notice
//! is said once. The browser body (`browser/load.rs`) reads and writes;
//! every decision is made here and tested natively.

use std::collections::HashSet;

use super::Notice;
use crate::turn::message::{upsert_summary, Summary};

/// Several newer records give the same notice: say it once.
pub fn dedupe(notices: &mut Vec<Notice>) {
    let mut seen = HashSet::new();
    notices.retain(|n| seen.insert(n.message.clone()));
}

/// The conversation to show: the one remembered as current, else the
/// newest listed.
pub fn current_id(remembered: Option<String>, index: &[Summary]) -> Option<String> {
    remembered.or_else(|| index.first().map(|s| s.id.clone()))
}

/// What becomes of the list found in localStorage.
#[derive(Debug, PartialEq)]
pub enum Heal {
    /// This build's list: kept as it is.
    Keep(Vec<Summary>),
    /// An older build's list: its order and titles are kept, the sizes come
    /// from the records, and a record it lost is added ([`merge_sizes`]).
    Merge(Vec<Summary>),
    /// No list, or one that could not be read: made afresh from the records.
    Rebuild,
}

impl Heal {
    /// What to do with the list read from localStorage (`Ok(None)`: there
    /// is none; `Err`: a newer build's or unreadable); `is_current` says
    /// whether a readable one is of this build's version.
    pub fn plan(
        found: Result<Option<Vec<Summary>>, ()>,
        is_current: impl FnOnce() -> bool,
    ) -> Self {
        match found {
            Ok(Some(index)) if is_current() => Heal::Keep(index),
            Ok(Some(old)) => Heal::Merge(old),
            Ok(None) | Err(()) => Heal::Rebuild,
        }
    }

    /// The list, given the one made afresh from every record (newest first).
    pub fn with(self, rebuilt: Vec<Summary>) -> Vec<Summary> {
        match self {
            Heal::Keep(index) => index,
            Heal::Merge(old) => merge_sizes(old, &rebuilt),
            Heal::Rebuild => rebuilt,
        }
    }
}

/// Keeps the old list's lines (order, titles) and takes each record's size
/// from `rebuilt`; a record the old list lost is added.
pub fn merge_sizes(old: Vec<Summary>, rebuilt: &[Summary]) -> Vec<Summary> {
    let mut index = old;
    for line in &mut index {
        if let Some(found) = rebuilt.iter().find(|r| r.id == line.id) {
            line.bytes = found.bytes;
        }
    }
    for found in rebuilt {
        if !index.iter().any(|l| l.id == found.id) {
            upsert_summary(&mut index, found.clone());
        }
    }
    index
}

/// Only the lines whose record is here: one quarantined or deleted
/// elsewhere loses its line; an older build's record still in localStorage
/// (`legacy_stored`) counts as here.
pub fn keep_stored(
    index: Vec<Summary>,
    stored: &HashSet<String>,
    legacy_stored: impl Fn(&str) -> bool,
) -> Vec<Summary> {
    index
        .into_iter()
        .filter(|s| stored.contains(&s.id) || legacy_stored(&s.id))
        .collect()
}

/// The ids of `stored` that no line of `index` names, sorted.
pub fn unlisted_ids(index: &[Summary], stored: &HashSet<String>) -> Vec<String> {
    let mut unlisted: Vec<String> = stored
        .iter()
        .filter(|id| !index.iter().any(|line| &line.id == *id))
        .cloned()
        .collect();
    unlisted.sort();
    unlisted
}

/// Gives each of `found` (the lines of records the list lacked) its place
/// in `index`, newest first; true when the list changed and is to be stored.
pub fn list_found(index: &mut Vec<Summary>, found: Vec<Summary>) -> bool {
    let before = index.len();
    for line in found {
        upsert_summary(index, line);
    }
    index.len() != before
}

/// A line for each stored id, titled by its id: what a search lists when
/// the list itself cannot be read.
pub fn untitled_lines(ids: Vec<String>) -> Vec<Summary> {
    ids.into_iter()
        .map(|id| Summary {
            title: id.clone(),
            id,
            updated_at: 0.0,
            bytes: 0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: &str) -> Summary {
        Summary {
            id: id.into(),
            title: String::new(),
            updated_at: 0.0,
            bytes: 0,
        }
    }

    fn ids(index: &[Summary]) -> Vec<&str> {
        index.iter().map(|s| s.id.as_str()).collect()
    }

    fn set(ids: &[&str]) -> HashSet<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn an_older_list_keeps_its_order_and_titles_takes_sizes_and_gains_what_it_lost() {
        let old = vec![
            Summary {
                title: "Renamed by hand".into(),
                updated_at: 2.0,
                ..line("b")
            },
            Summary {
                updated_at: 1.0,
                ..line("a")
            },
        ];
        let rebuilt = vec![
            Summary {
                title: "From the record".into(),
                updated_at: 2.0,
                bytes: 200,
                ..line("b")
            },
            Summary {
                updated_at: 1.0,
                bytes: 100,
                ..line("a")
            },
            Summary {
                updated_at: 3.0,
                bytes: 300,
                ..line("c")
            },
        ];
        let merged = merge_sizes(old, &rebuilt);
        let seen: Vec<(&str, &str, u64)> = merged
            .iter()
            .map(|s| (s.id.as_str(), s.title.as_str(), s.bytes))
            .collect();
        assert_eq!(
            seen,
            [
                ("c", "", 300),
                ("b", "Renamed by hand", 200),
                ("a", "", 100)
            ]
        );
    }

    #[test]
    fn the_same_notice_is_said_once_in_the_order_first_found() {
        let mut notices = vec![
            Notice::plain("newer"),
            Notice::plain("unreadable"),
            Notice::plain("newer"),
        ];
        dedupe(&mut notices);
        let messages: Vec<&str> = notices.iter().map(|n| n.message.as_str()).collect();
        assert_eq!(messages, ["newer", "unreadable"]);
    }

    #[test]
    fn a_stored_record_that_the_list_lacks_is_found() {
        let stored = set(&["b", "a", "c"]);
        assert_eq!(unlisted_ids(&[line("a")], &stored), ["b", "c"]);
        assert!(unlisted_ids(&[line("c"), line("a"), line("b")], &stored).is_empty());
    }

    #[test]
    fn the_remembered_conversation_is_shown_else_the_newest_listed() {
        let index = [line("new"), line("old")];
        assert_eq!(
            current_id(Some("old".into()), &index).as_deref(),
            Some("old")
        );
        assert_eq!(current_id(None, &index).as_deref(), Some("new"));
        assert_eq!(current_id(None, &[]), None);
    }

    #[test]
    fn this_builds_list_is_kept_as_it_is() {
        let found = vec![Summary {
            title: "Mine".into(),
            ..line("a")
        }];
        let plan = Heal::plan(Ok(Some(found.clone())), || true);
        assert_eq!(plan, Heal::Keep(found.clone()));
        // What the records say does not change a current list.
        let rebuilt = vec![line("a"), line("b")];
        assert_eq!(plan.with(rebuilt), found);
    }

    #[test]
    fn an_older_builds_list_is_merged_with_the_records() {
        let old = vec![Summary {
            title: "Renamed".into(),
            ..line("a")
        }];
        let plan = Heal::plan(Ok(Some(old.clone())), || false);
        assert_eq!(plan, Heal::Merge(old));
        let rebuilt = vec![
            Summary {
                bytes: 10,
                ..line("a")
            },
            Summary {
                updated_at: 1.0,
                ..line("b")
            },
        ];
        let healed = plan.with(rebuilt);
        assert_eq!(ids(&healed), ["b", "a"]);
        assert_eq!((healed[1].title.as_str(), healed[1].bytes), ("Renamed", 10));
    }

    #[test]
    fn a_missing_or_unreadable_list_is_made_afresh_from_the_records() {
        let mut asked = false;
        assert_eq!(
            Heal::plan(Ok(None), || {
                asked = true;
                true
            }),
            Heal::Rebuild
        );
        assert!(!asked, "no list: its version is not asked");
        assert_eq!(Heal::plan(Err(()), || true), Heal::Rebuild);
        let rebuilt = vec![line("a")];
        assert_eq!(Heal::Rebuild.with(rebuilt.clone()), rebuilt);
    }

    #[test]
    fn a_line_whose_record_is_gone_is_dropped_and_an_older_builds_record_counts() {
        let index = vec![line("idb"), line("gone"), line("legacy")];
        let kept = keep_stored(index, &set(&["idb"]), |id| id == "legacy");
        assert_eq!(ids(&kept), ["idb", "legacy"]);
    }

    #[test]
    fn records_the_list_lacked_take_their_place_newest_first_and_the_list_is_stored_again() {
        let mut index = vec![
            Summary {
                updated_at: 3.0,
                ..line("c")
            },
            Summary {
                updated_at: 1.0,
                ..line("a")
            },
        ];
        let found = vec![Summary {
            updated_at: 2.0,
            ..line("b")
        }];
        assert!(list_found(&mut index, found));
        assert_eq!(ids(&index), ["c", "b", "a"]);
        assert!(!list_found(&mut index, Vec::new()), "nothing to store");
    }

    #[test]
    fn without_a_readable_list_a_search_names_each_stored_record_by_its_id() {
        let lines = untitled_lines(vec!["x".into(), "y".into()]);
        assert_eq!(ids(&lines), ["x", "y"]);
        assert_eq!(lines[0].title, "x");
    }
}
