//! Tool calls in the wire contract (design §2): how a call's result ended,
//! whether it waits for the user, and the neutral shape in which earlier
//! calls and results travel back to the model. Pure data.

use serde::{Deserialize, Serialize};

/// How a tool call ended (`tool_result.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    Ok,
    Error,
    /// The user said no (or did not answer in time): the model was told so.
    Denied,
    Timeout,
    /// Stop during the call, or the turn ended with the call pending.
    Cancelled,
}

impl ToolStatus {
    /// The word the step's header shows.
    pub fn label(self) -> &'static str {
        match self {
            ToolStatus::Ok => "done",
            ToolStatus::Error => "failed",
            ToolStatus::Denied => "denied",
            ToolStatus::Timeout => "timed out",
            ToolStatus::Cancelled => "cancelled",
        }
    }

    /// Whether the model is told the call did not succeed (`is_error`).
    pub fn is_error(self) -> bool {
        self != ToolStatus::Ok
    }
}

/// Whether a call waits for the user before it runs (`tool_call_ready.approval`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Approval {
    Needed,
    NotNeeded,
    /// Needed, because the server changed what the tool says it does since
    /// the user last agreed: asks even where trust or an earlier "Allow in
    /// this conversation" would let it run, and the step says why.
    Held,
}

impl Approval {
    /// Whether the call waits for the user.
    pub fn asks(self) -> bool {
        self != Approval::NotNeeded
    }
}

/// What a held call's approval step says (`Approval::Held`).
pub const HELD_REASON: &str =
    "The server changed what this tool says it does since you last allowed it.";

/// The user's answer to a call that asks first (`POST /api/tool_decision`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    AllowOnce,
    /// Allow, and this tool runs without asking for the rest of the conversation.
    AllowConversation,
    Deny,
}

/// The call a decision is about, as the user's step showed it: its id
/// within the turn, its tool (what "Allow in this conversation" allows) and
/// the server's digest of its tool and arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShownCall {
    pub id: String,
    /// The namespaced name (`server__tool`).
    pub name: String,
    pub digest: String,
}

/// What the model reads for a call the user declined.
pub const DECLINED: &str = "The user declined this tool call.";

/// An earlier call, as an assistant message carries it back to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    /// The namespaced name (`server__tool`).
    pub name: String,
    /// The arguments object.
    pub arguments: serde_json::Value,
}

/// A tool as the model is offered it: its namespaced name, what it does,
/// and the JSON Schema of its arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

/// Most tool calls in one turn; the calls past it are not run and the turn
/// ends with `finish_reason: "tool_limit"` (design §6).
pub const TOOL_CALL_LIMIT: usize = 12;

/// `done.finish_reason` of a turn stopped at the tool-call limit.
pub const FINISH_TOOL_LIMIT: &str = "tool_limit";

/// `done.finish_reason` of a turn stopped at its limit of tool time.
pub const FINISH_TOOL_TIME_LIMIT: &str = "tool_time_limit";

/// Time the tools of one turn may run in all before the turn stops with
/// `finish_reason: "tool_time_limit"` (the wait for approvals not counted).
pub const TOOL_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// Separates a server's name from its tool's in the names the model sees.
pub const NAME_SEPARATOR: &str = "__";

/// `server__tool` split at its first separator; `None` for a name without one.
pub fn split_name(name: &str) -> Option<(&str, &str)> {
    name.split_once(NAME_SEPARATOR)
        .filter(|(server, tool)| !server.is_empty() && !tool.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_at_the_first_separator() {
        assert_eq!(split_name("files__read_file"), Some(("files", "read_file")));
        assert_eq!(split_name("a__b__c"), Some(("a", "b__c")));
        assert_eq!(split_name("calculate"), None);
        assert_eq!(split_name("__x"), None);
    }

    #[test]
    fn only_ok_is_not_an_error() {
        assert!(!ToolStatus::Ok.is_error());
        for status in [
            ToolStatus::Error,
            ToolStatus::Denied,
            ToolStatus::Timeout,
            ToolStatus::Cancelled,
        ] {
            assert!(status.is_error(), "{status:?}");
        }
        assert_eq!(
            serde_json::to_value(ToolStatus::Timeout).unwrap(),
            serde_json::json!("timeout")
        );
    }
}
