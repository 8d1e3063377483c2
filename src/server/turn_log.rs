//! One tracing line per turn (DESIGN §6): counts only, never prompt or
//! reasoning text. The line is written when the turn's stream is dropped, so a
//! client that disconnects is logged too (outcome `cancelled`).

use std::time::Instant;

use crate::turn::{Effort, TurnEvent};

/// Counters of one turn, fed every event the normalizer produced.
#[derive(Debug)]
pub struct TurnLog {
    model: String,
    provider: &'static str,
    /// The reasoning effort the turn ran at (none for a refused turn or a
    /// model that takes none).
    effort: Option<Effort>,
    started: Instant,
    ttft_ms: Option<u128>,
    thinking_blocks: u32,
    thinking_chars: usize,
    answer_chars: usize,
    reasoning_tokens: u64,
    tool_calls: usize,
    outcome: &'static str,
}

impl TurnLog {
    pub fn new(model: &str, provider: &'static str) -> Self {
        Self {
            model: model.to_owned(),
            provider,
            effort: None,
            started: Instant::now(),
            ttft_ms: None,
            thinking_blocks: 0,
            thinking_chars: 0,
            answer_chars: 0,
            reasoning_tokens: 0,
            tool_calls: 0,
            outcome: "cancelled",
        }
    }

    /// Notes the effort the turn runs at.
    pub fn set_effort(&mut self, effort: Option<Effort>) {
        self.effort = effort;
    }

    pub fn record(&mut self, event: &TurnEvent) {
        if self.ttft_ms.is_none() {
            self.ttft_ms = Some(self.started.elapsed().as_millis());
        }
        match event {
            TurnEvent::ThinkingStart => self.thinking_blocks += 1,
            TurnEvent::ThinkingDelta { text } => self.thinking_chars += text.chars().count(),
            TurnEvent::AnswerDelta { text } => self.answer_chars += text.chars().count(),
            TurnEvent::AnswerWasThinking { .. } => {
                self.thinking_blocks += 1;
                self.thinking_chars += self.answer_chars;
                self.answer_chars = 0;
            }
            TurnEvent::Usage(usage) => self.reasoning_tokens += usage.reasoning_tokens.unwrap_or(0),
            TurnEvent::Done { .. } => self.outcome = "done",
            TurnEvent::Error { kind, .. } => {
                self.outcome = match kind {
                    crate::turn::ErrorKind::Timeout => "timeout",
                    _ => "error",
                }
            }
            TurnEvent::ToolCallStart { .. } => self.tool_calls += 1,
            TurnEvent::ThinkingEnd { .. }
            | TurnEvent::ReasoningSource { .. }
            | TurnEvent::ToolCallDelta { .. }
            | TurnEvent::ToolCallReady { .. }
            | TurnEvent::ToolResult { .. }
            | TurnEvent::Continuity { .. } => {}
        }
    }
}

impl Drop for TurnLog {
    fn drop(&mut self) {
        tracing::info!(
            model = %self.model,
            provider = self.provider,
            effort = self.effort.map(Effort::as_str),
            outcome = self.outcome,
            ttft_ms = self.ttft_ms.map(|v| v as u64),
            thinking_blocks = self.thinking_blocks,
            thinking_chars = self.thinking_chars,
            answer_chars = self.answer_chars,
            reasoning_tokens = self.reasoning_tokens,
            tool_calls = self.tool_calls,
            total_ms = self.started.elapsed().as_millis() as u64,
            "turn"
        );
    }
}
