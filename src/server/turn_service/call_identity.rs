//! What names one call of a turn, so that a decision can name exactly the
//! call the user was shown.
//!
//! - **Ids a turn can tell apart.** A provider's call ids are not to be
//!   trusted to be unique: a broken gateway, or a model that writes its own
//!   ids (Kimi K2 through vLLM writes `functions.name:0` in every round),
//!   repeats them. Two calls under one id would let an approval shown on one
//!   of them let the other run. `CallIds` gives every call an id no other
//!   call of the conversation has, before the normalizer (and so the page) or
//!   the tool loop sees it: a repeated id becomes `<id>_<n>`. The provider
//!   gets the same ids back in the assistant message and the results, so the
//!   request stays consistent (ids in a request are the client's to choose).
//! - **A digest of what the user saw.** `call_digest` hashes the call's tool
//!   and the arguments the page shows; `tool_call_ready` carries it and a
//!   decision must carry it back.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::server::providers::delta::Delta;
use crate::server::tools::hashes::canonical_hash;
use crate::turn::ChatMessage;

/// The call ids of one turn (and of the conversation before it).
#[derive(Debug, Default)]
pub(super) struct CallIds {
    /// Every id given so far, the conversation's earlier calls included.
    used: HashSet<String>,
    /// The provider's id → the id its latest call got, for the fragments
    /// and whole arguments that follow the call's start.
    latest: HashMap<String, String>,
}

impl CallIds {
    /// Ids the calls and results of `history` already use are taken.
    pub(super) fn new(history: &[ChatMessage]) -> Self {
        let used = history
            .iter()
            .flat_map(|m| {
                m.tool_calls
                    .iter()
                    .map(|c| c.id.clone())
                    .chain(m.tool_call_id.clone())
            })
            .collect();
        Self {
            used,
            latest: HashMap::new(),
        }
    }

    /// `delta` with its call id made distinct (every other delta as it is).
    pub(super) fn distinct(&mut self, delta: Delta) -> Delta {
        match delta {
            Delta::ToolCallStart { id, name } => Delta::ToolCallStart {
                id: self.give(&id),
                name,
            },
            Delta::ToolCallArguments { id, text } => Delta::ToolCallArguments {
                id: self.latest_for(id),
                text,
            },
            Delta::ToolCallWhole { id, arguments } => Delta::ToolCallWhole {
                id: self.latest_for(id),
                arguments,
            },
            other => other,
        }
    }

    /// An id for a new call the provider named `id`: `id` itself when no
    /// call has it yet, else the first free `<id>_<n>`.
    fn give(&mut self, id: &str) -> String {
        let base = if id.is_empty() { "call" } else { id };
        let mut given = base.to_owned();
        let mut n = 1;
        while self.used.contains(&given) {
            n += 1;
            given = format!("{base}_{n}");
        }
        self.used.insert(given.clone());
        self.latest.insert(id.to_owned(), given.clone());
        given
    }

    /// The id given to the latest call the provider named `id`.
    fn latest_for(&self, id: String) -> String {
        self.latest.get(&id).cloned().unwrap_or(id)
    }
}

/// The digest of a call as the user sees it: its namespaced tool name and
/// its arguments (keys in any order give one digest).
pub(crate) fn call_digest(name: &str, arguments: &Value) -> String {
    canonical_hash(&serde_json::json!({ "tool": name, "arguments": arguments }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::{Role, ToolCall};
    use serde_json::json;

    fn start(id: &str) -> Delta {
        Delta::ToolCallStart {
            id: id.into(),
            name: "files__write_file".into(),
        }
    }

    fn started_id(delta: Delta) -> String {
        match delta {
            Delta::ToolCallStart { id, .. } => id,
            other => panic!("not a start: {other:?}"),
        }
    }

    #[test]
    fn a_repeated_id_gets_a_distinct_one_and_its_fragments_follow_it() {
        let mut ids = CallIds::new(&[]);
        assert_eq!(started_id(ids.distinct(start("dup"))), "dup");
        let first_args = ids.distinct(Delta::ToolCallArguments {
            id: "dup".into(),
            text: "{\"path\":\"notes.txt\"}".into(),
        });
        assert!(matches!(first_args, Delta::ToolCallArguments { id, .. } if id == "dup"));
        assert_eq!(started_id(ids.distinct(start("dup"))), "dup_2");
        let second = ids.distinct(Delta::ToolCallWhole {
            id: "dup".into(),
            arguments: json!({"path": "~/.ssh/authorized_keys"}),
        });
        assert!(matches!(second, Delta::ToolCallWhole { id, .. } if id == "dup_2"));
        assert_eq!(started_id(ids.distinct(start("dup"))), "dup_3");
        assert_eq!(started_id(ids.distinct(start(""))), "call");
        assert_eq!(started_id(ids.distinct(start(""))), "call_2");
    }

    #[test]
    fn ids_of_the_conversation_before_are_taken_and_a_made_up_name_is_skipped() {
        let mut earlier = ChatMessage::new(Role::Assistant, "");
        earlier.tool_calls.push(ToolCall {
            id: "functions.f:0".into(),
            name: "builtin__calculate".into(),
            arguments: json!({}),
        });
        let result = ChatMessage::tool_result("x_2", "ok", false);
        let mut ids = CallIds::new(&[earlier, result]);
        assert_eq!(
            started_id(ids.distinct(start("functions.f:0"))),
            "functions.f:0_2"
        );
        assert_eq!(started_id(ids.distinct(start("x"))), "x");
        assert_eq!(started_id(ids.distinct(start("x"))), "x_3", "x_2 is taken");
        let other = ids.distinct(Delta::Answer("a".into()));
        assert_eq!(other, Delta::Answer("a".into()));
    }

    #[test]
    fn the_digest_names_the_tool_and_the_arguments_whatever_their_key_order() {
        let one = call_digest("files__write_file", &json!({"path": "a", "content": "b"}));
        let same: Value = serde_json::from_str(r#"{"content":"b","path":"a"}"#).unwrap();
        assert_eq!(one, call_digest("files__write_file", &same));
        assert_ne!(one, call_digest("files__edit_file", &same));
        assert_ne!(
            one,
            call_digest("files__write_file", &json!({"path": "b", "content": "b"}))
        );
        assert!(one.starts_with("sha256:"), "{one}");
    }
}
