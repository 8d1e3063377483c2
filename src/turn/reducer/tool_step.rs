//! A tool step of a turn: one call the model made, its arguments as they
//! streamed in, its state and its result (design §4), and how the reducer
//! folds the four tool events into it.

use serde::{Deserialize, Serialize};

use super::change::Change;
use super::{Block, Turn};
use crate::turn::tool::{split_name, Approval, ToolStatus};

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
    fn started(id: String, name: String, server: String) -> Self {
        Self {
            id,
            name,
            server,
            arguments: String::new(),
            streamed: false,
            state: ToolState::Running,
            held: false,
            output: None,
            truncated_bytes: 0,
            duration_ms: None,
        }
    }

    /// The tool's own name, without its server's prefix.
    pub fn tool_name(&self) -> &str {
        split_name(&self.name).map_or(self.name.as_str(), |(_, tool)| tool)
    }

    /// True while the step has no result yet.
    pub fn is_open(&self) -> bool {
        matches!(self.state, ToolState::Running | ToolState::Waiting)
    }
}

impl Turn {
    fn tool_index(&self, id: &str) -> Option<usize> {
        self.blocks
            .iter()
            .rposition(|b| matches!(b, Block::Tool(step) if step.id == id))
    }

    fn step_changed(&self, index: usize) -> Vec<Change> {
        match self.blocks.get(index) {
            Some(Block::Tool(step)) => vec![Change::ToolUpdated {
                index,
                step: step.clone(),
            }],
            _ => Vec::new(),
        }
    }

    pub(super) fn start_tool(&mut self, id: String, name: String, server: String) -> Vec<Change> {
        let mut changes = self.close_open_thinking(None, super::BlockState::Done);
        let block = Block::Tool(ToolStep::started(id, name, server));
        changes.push(Change::Opened(block.clone()));
        self.blocks.push(block);
        changes
    }

    /// A fragment of arguments: it travels alone (a chunk costs its size).
    pub(super) fn tool_arguments(&mut self, id: &str, text: String) -> Vec<Change> {
        let Some(index) = self.tool_index(id) else {
            return Vec::new();
        };
        if let Some(Block::Tool(step)) = self.blocks.get_mut(index) {
            step.streamed = true;
            step.arguments.push_str(&text);
        }
        vec![Change::Appended { index, text }]
    }

    pub(super) fn tool_ready(
        &mut self,
        id: &str,
        arguments: &serde_json::Value,
        approval: Approval,
    ) -> Vec<Change> {
        let Some(index) = self.tool_index(id) else {
            return Vec::new();
        };
        if let Some(Block::Tool(step)) = self.blocks.get_mut(index) {
            step.arguments =
                serde_json::to_string_pretty(arguments).unwrap_or_else(|_| arguments.to_string());
            step.state = match approval {
                Approval::Needed | Approval::Held => ToolState::Waiting,
                Approval::NotNeeded => ToolState::Running,
            };
            step.held = approval == Approval::Held;
        }
        self.step_changed(index)
    }

    pub(super) fn tool_result(
        &mut self,
        id: &str,
        status: ToolStatus,
        output: String,
        truncated_bytes: u64,
        duration_ms: u64,
    ) -> Vec<Change> {
        let Some(index) = self.tool_index(id) else {
            return Vec::new();
        };
        if let Some(Block::Tool(step)) = self.blocks.get_mut(index) {
            step.state = ToolState::Ended(status);
            step.output = Some(output);
            step.truncated_bytes = truncated_bytes;
            step.duration_ms = Some(duration_ms);
        }
        self.step_changed(index)
    }

    /// The turn ended (Stop, error, lost connection) with calls still open:
    /// they read "cancelled".
    pub(super) fn cancel_open_tools(&mut self) -> Vec<Change> {
        let open: Vec<usize> = (0..self.blocks.len())
            .filter(|&i| matches!(&self.blocks[i], Block::Tool(step) if step.is_open()))
            .collect();
        let mut changes = Vec::new();
        for index in open {
            if let Some(Block::Tool(step)) = self.blocks.get_mut(index) {
                step.state = ToolState::Ended(ToolStatus::Cancelled);
            }
            changes.extend(self.step_changed(index));
        }
        changes
    }

    /// The tool steps of the turn, in order.
    pub fn tool_steps(&self) -> impl Iterator<Item = &ToolStep> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Tool(step) => Some(step),
            _ => None,
        })
    }
}
