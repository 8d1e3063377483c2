//! The turn reducer: folds `TurnEvent`s into the ordered blocks of an assistant
//! turn plus its state (design §4). The result is both what the view renders and
//! what history stores. Pure: the caller passes the clock.
//!
//! `apply` reports what changed so a view can update only the block that grew;
//! appending is O(delta), never O(text so far). This file holds `Turn` and the
//! fold of each event; the blocks (`block`), the turn's status and outcome
//! (`status`), the `Change`s (`change`) and a thinking block's life and timer
//! (`thinking`) are beside it, and every test of the reducer is in `tests/`.

use serde::{Deserialize, Serialize};

use super::event::{ErrorKind, TurnEvent, Usage};
use super::tool::{FINISH_TOOL_LIMIT, FINISH_TOOL_TIME_LIMIT};

mod block;
mod change;
mod run;
mod status;
mod thinking;
mod tool_events;
mod tool_step;

pub use block::{is_empty_reasoning, is_shown, Block, BlockState, Thinking, ThinkingMeta};
pub use change::{Change, TurnProgress};
pub use run::TurnRun;
pub use status::{EmptyOutcome, ShownError, TurnStatus};
pub use tool_step::{ToolState, ToolStep};

/// A `continuity` event's data and where in the turn it arrived (after how
/// many blocks), so it goes back with the response that produced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Continuity {
    pub after_blocks: usize,
    pub data: serde_json::Value,
}

/// Which model wrote a turn: the id the page asked for and the name it showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnModel {
    pub id: String,
    pub label: String,
}

/// An assistant turn: its blocks, state, usage and outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub blocks: Vec<Block>,
    pub status: TurnStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ShownError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The output limit the turn was asked with, when the server sent one
    /// (a turn cut at it says "Cut off at the length limit (16,000 tokens)");
    /// for a turn stopped at the tool-call limit, that limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_limit: Option<u32>,
    /// The model that wrote the turn (its id and name), as the page chose it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<TurnModel>,
    /// The provider's name of the model that took over from it mid-turn
    /// (a server-side fallback), when one did. Boxed: a `Turn` sits in
    /// every stored message, and most never change model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<Box<str>>,
    /// Client clock when the request was sent (waiting timer).
    #[serde(skip)]
    pub started_at_ms: f64,
    /// Client ms from request to the first event (time to first token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<u64>,
    /// The reasoning effort the turn was asked at (`None`: the model's
    /// default, or a model that takes none), shown in its blocks' headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<crate::turn::Effort>,
    /// Where the turn's reasoning comes from, as the server said
    /// (`reasoning_source`); each block keeps its own copy.
    #[serde(skip)]
    pub reasoning_source: Option<crate::turn::ReasoningSource>,
    /// What the provider needs back later (never shown, never exported as text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub continuity: Vec<Continuity>,
    /// While the server runs the turn: how to attach to it again (kept with
    /// the turn so a reload, another tab or a return to the conversation
    /// follows it); `None` once it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<Box<TurnRun>>,
}

impl Turn {
    /// A turn whose request was just sent at `now_ms`.
    pub fn new(now_ms: f64) -> Self {
        Self {
            blocks: Vec::new(),
            status: TurnStatus::Waiting,
            error: None,
            usage: None,
            finish_reason: None,
            output_limit: None,
            model: None,
            answered_by: None,
            started_at_ms: now_ms,
            ttft_ms: None,
            effort: None,
            reasoning_source: None,
            continuity: Vec::new(),
            run: None,
        }
    }

    /// The turn-wide values, for a `Change::Status`.
    pub fn progress(&self) -> TurnProgress {
        TurnProgress {
            status: self.status,
            error: self.error.clone(),
            usage: self.usage,
            ttft_ms: self.ttft_ms,
            finish_reason: self.finish_reason.clone(),
            output_limit: self.output_limit,
            answered_by: self.answered_by.as_deref().map(str::to_owned),
        }
    }

    /// Whether the turn ended at the output limit (`finish_reason: "length"`)
    /// or at a tool limit (`tool_limit`, `tool_time_limit`): each offers
    /// Continue.
    pub fn is_cut_off(&self) -> bool {
        self.status == TurnStatus::Done
            && matches!(
                self.finish_reason.as_deref(),
                Some("length" | FINISH_TOOL_LIMIT | FINISH_TOOL_TIME_LIMIT)
            )
    }

    /// Whether the output limit cut the turn while the model was still
    /// thinking (no answer text after its last thinking block): Continue then
    /// goes on from the reasoning so far.
    pub fn cut_while_thinking(&self) -> bool {
        self.is_cut_off()
            && self.finish_reason.as_deref() == Some("length")
            && matches!(self.blocks.last(), Some(Block::Thinking(_)))
    }

    /// "Continue" on an answer cut at the output limit: the turn waits again
    /// and the continuation's answer text joins its last answer block.
    /// Nothing to do for a turn that was not cut.
    pub fn resume_to_continue(&mut self, now_ms: f64) -> Vec<Change> {
        if !self.is_cut_off() {
            return Vec::new();
        }
        self.status = TurnStatus::Waiting;
        self.finish_reason = None;
        self.output_limit = None;
        self.started_at_ms = now_ms;
        vec![self.status_change()]
    }

    fn status_change(&self) -> Change {
        Change::Status(self.progress())
    }

    fn opened_change(&self) -> Option<Change> {
        self.blocks.last().cloned().map(Change::Opened)
    }

    /// Folds one event in; `now_ms` is the caller's clock.
    pub fn apply(&mut self, event: TurnEvent, now_ms: f64) -> Vec<Change> {
        if !self.status.is_live() {
            return Vec::new(); // nothing counts after the end (design §2)
        }
        if matches!(&event, TurnEvent::ThinkingDelta { text } | TurnEvent::AnswerDelta { text } if text.is_empty())
        {
            return Vec::new(); // nothing arrived, not even a first token
        }
        if let TurnEvent::ReasoningSource { source } = event {
            // Says how to read what follows; not a token of its own.
            self.reasoning_source = Some(source);
            return Vec::new();
        }
        let first_event = self.ttft_ms.is_none();
        if first_event {
            self.ttft_ms = Some((now_ms - self.started_at_ms).max(0.0) as u64);
        }
        let mut changes = self.fold(event, now_ms);
        // The time to first token is turn-wide too: reported with the first event.
        if first_event && !changes.iter().any(|c| matches!(c, Change::Status(_))) {
            changes.push(self.status_change());
        }
        changes
    }

    fn fold(&mut self, event: TurnEvent, now_ms: f64) -> Vec<Change> {
        match event {
            TurnEvent::ThinkingStart => {
                let mut changes = self.close_open_thinking(None, BlockState::Done);
                let mut block = Thinking::streaming(now_ms, self.reasoning_source);
                block.opened_after_ms = Some((now_ms - self.started_at_ms).max(0.0) as u64);
                self.blocks.push(Block::Thinking(block));
                self.status = TurnStatus::Thinking;
                changes.extend(self.opened_change());
                changes.push(self.status_change());
                changes
            }
            // Taken in `apply`, before the clock starts.
            TurnEvent::ReasoningSource { .. } => Vec::new(),
            // Stop, pressed here or in another tab that follows the turn.
            TurnEvent::Stopped => self.stop(now_ms),
            TurnEvent::ThinkingDelta { text } => self.append_thinking(text, now_ms),
            TurnEvent::ThinkingEnd {
                duration_ms,
                opaque,
            } => self.end_thinking(duration_ms, opaque),
            TurnEvent::AnswerDelta { text } => self.append_answer(text),
            TurnEvent::AnswerWasThinking { duration_ms } => self.answer_was_thinking(duration_ms),
            TurnEvent::Usage(usage) => {
                self.usage.get_or_insert_with(Usage::default).add(&usage);
                vec![self.status_change()]
            }
            TurnEvent::ToolCallStart { id, name, server } => {
                let mut changes = self.start_tool(id, name, server);
                if self.status == TurnStatus::Waiting {
                    self.status = TurnStatus::Thinking;
                    changes.push(self.status_change());
                }
                changes
            }
            TurnEvent::ToolCallDelta { id, text } => self.tool_arguments(&id, text),
            TurnEvent::ToolCallReady {
                id,
                arguments,
                approval,
                digest,
            } => self.tool_ready(&id, &arguments, approval, digest),
            TurnEvent::ToolResult {
                id,
                status,
                output,
                truncated_bytes,
                duration_ms,
            } => self.tool_result(&id, status, output, truncated_bytes, duration_ms),
            TurnEvent::ModelSwitched { model } => {
                self.answered_by = Some(model.into_boxed_str());
                vec![Change::Status(self.progress())]
            }
            TurnEvent::Continuity { data } => {
                self.continuity.push(Continuity {
                    after_blocks: self.blocks.len(),
                    data,
                });
                Vec::new()
            }
            TurnEvent::Done {
                finish_reason,
                output_limit,
            } => {
                let mut changes = self.interrupt_open_thinking(now_ms);
                changes.extend(self.cancel_open_tools());
                self.finish_reason = finish_reason;
                self.output_limit = output_limit;
                self.status = TurnStatus::Done;
                changes.push(self.status_change());
                changes
            }
            TurnEvent::Error { kind, message } => {
                let mut changes = self.interrupt_open_thinking(now_ms);
                changes.extend(self.cancel_open_tools());
                // An error right after reasoning (no answer yet) cut that reasoning short.
                let index = self.blocks.len().saturating_sub(1);
                if let Some(Block::Thinking(block)) = self.blocks.last_mut() {
                    if block.state == BlockState::Done {
                        block.state = BlockState::Interrupted;
                        changes.push(Change::Updated {
                            index,
                            meta: block.meta(),
                        });
                    }
                }
                self.error = Some(ShownError { kind, message });
                self.status = TurnStatus::Error;
                changes.push(self.status_change());
                changes
            }
        }
    }

    /// The user pressed Stop or the connection was lost: freeze everything.
    pub fn stop(&mut self, now_ms: f64) -> Vec<Change> {
        if !self.status.is_live() {
            return Vec::new();
        }
        let mut changes = self.interrupt_open_thinking(now_ms);
        changes.extend(self.cancel_open_tools());
        self.status = TurnStatus::Stopped;
        changes.push(self.status_change());
        changes
    }

    /// The answer text of the turn (what is sent back to the model later).
    pub fn answer_text(&self) -> String {
        self.blocks
            .iter()
            .filter_map(|b| match b {
                Block::Answer { text } => Some(text.as_str()),
                Block::Thinking(_) | Block::Tool(_) => None,
            })
            .collect()
    }

    /// True when the server refused the request itself (too large, over a
    /// limit, invalid) before the model saw it: nothing arrived.
    pub fn was_refused(&self) -> bool {
        self.blocks.is_empty()
            && matches!(
                &self.error,
                Some(ShownError {
                    kind: ErrorKind::BadRequest | ErrorKind::RateLimit,
                    ..
                })
            )
    }

    /// The note this turn gets for having no answer text, if it ended so.
    pub fn empty_outcome(&self) -> Option<EmptyOutcome> {
        let reasoned = self
            .blocks
            .iter()
            .any(|b| matches!(b, Block::Thinking(t) if !t.is_empty()));
        EmptyOutcome::of(
            self.status,
            &self.answer_text(),
            reasoned,
            self.usage.and_then(|u| u.reasoning_tokens),
        )
    }

    /// True when the model reasoned but wrote no answer text.
    pub fn thought_without_answer(&self) -> bool {
        self.empty_outcome() == Some(EmptyOutcome::ThoughtWithoutAnswer)
    }

    fn append_answer(&mut self, text: String) -> Vec<Change> {
        let mut changes = Vec::new();
        // The contract closes thinking first; if a producer did not, freeze it here.
        changes.extend(self.close_open_thinking(None, BlockState::Done));
        let status_changed = self.status != TurnStatus::Answering;
        self.status = TurnStatus::Answering;
        let index = self.blocks.len().saturating_sub(1);
        match self.blocks.last_mut() {
            Some(Block::Answer { text: answer }) => {
                answer.push_str(&text);
                changes.push(Change::Appended { index, text });
            }
            _ => {
                let block = Block::Answer { text };
                changes.push(Change::Opened(block.clone()));
                self.blocks.push(block);
            }
        }
        if status_changed {
            changes.push(self.status_change());
        }
        changes
    }
}

#[cfg(test)]
mod tests;
