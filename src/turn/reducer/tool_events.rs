//! How a turn folds the tool events (design §2: a call's start, its
//! streamed arguments, ready, its result) into its tool steps, and which
//! changes the page gets for each. The step itself is in `tool_step.rs`.

use super::change::Change;
use super::tool_step::{ToolState, ToolStep};
use super::{Block, Turn};
use crate::turn::tool::{Approval, ToolStatus};

impl Turn {
    /// The step of call `id`. Ids are unique within a turn (the server makes
    /// them so, design §2), and the page finds a step as the server finds its
    /// call: the one step with that id, never a later namesake.
    fn tool_index(&self, id: &str) -> Option<usize> {
        self.blocks
            .iter()
            .position(|b| matches!(b, Block::Tool(step) if step.id == id))
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
        if self.tool_index(&id).is_some() {
            // A second call under one id breaks the contract: no second step
            // a decision could be mistaken for.
            return Vec::new();
        }
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
        digest: String,
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
            step.digest = digest;
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
