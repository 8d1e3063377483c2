//! A tool step of a turn: one call the model made, its arguments as they
//! streamed in, its state and its result (design §4). How the reducer folds
//! the tool events into it is in `tool_events.rs`.

use serde::{Deserialize, Serialize};

use crate::turn::tool::{split_name, ShownCall, ToolStatus};

/// Where a tool step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolState {
    /// The model is writing the call, or the call runs.
    Running,
    /// The call waits for the user's decision.
    Waiting,
    /// The call ended: how.
    Ended(ToolStatus),
}

impl ToolState {
    /// The state as the step's header says it.
    pub fn label(self) -> &'static str {
        match self {
            ToolState::Running => "running",
            ToolState::Waiting => "waiting for your approval",
            ToolState::Ended(status) => status.label(),
        }
    }
}

/// One tool call in the turn's timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolStep {
    pub id: String,
    /// The name the model called (`server__tool`).
    pub name: String,
    pub server: String,
    /// The arguments: JSON text as it streamed in, then pretty JSON once complete.
    #[serde(default)]
    pub arguments: String,
    /// True when the arguments streamed in; false when the dialect sent them
    /// whole (the step says they arrive complete).
    #[serde(default)]
    pub streamed: bool,
    pub state: ToolState,
    /// The call asked because its server changed what the tool says it
    /// does (`Approval::Held`): the step says so.
    #[serde(default, skip_serializing_if = "is_false")]
    pub held: bool,
    /// The server's digest of the call's tool and arguments, as
    /// `tool_call_ready` gave it: a decision on this step carries it, so the
    /// server runs only the call this step shows.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub digest: String,
    /// What the tool said (at most 64 KB), once it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// How much of the output was cut before it reached the model and the page.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub truncated_bytes: u64,
    /// Server-measured time from ready (or the decision) to the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl ToolStep {
    pub(super) fn started(id: String, name: String, server: String) -> Self {
        Self {
            id,
            name,
            server,
            arguments: String::new(),
            streamed: false,
            state: ToolState::Running,
            held: false,
            digest: String::new(),
            output: None,
            truncated_bytes: 0,
            duration_ms: None,
        }
    }

    /// The tool's own name, without its server's prefix.
    pub fn tool_name(&self) -> &str {
        split_name(&self.name).map_or(self.name.as_str(), |(_, tool)| tool)
    }

    /// What a decision on this step names: the call the user was shown.
    pub fn shown_call(&self) -> ShownCall {
        ShownCall {
            id: self.id.clone(),
            name: self.name.clone(),
            digest: self.digest.clone(),
        }
    }

    /// True while the step has no result yet.
    pub fn is_open(&self) -> bool {
        matches!(self.state, ToolState::Running | ToolState::Waiting)
    }
}
