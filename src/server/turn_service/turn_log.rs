//! One tracing line per turn (design §6): counts only, never prompt or
//! reasoning text. The line is written when the turn's stream is dropped, so a
//! client that disconnects is logged too (outcome `cancelled`).

use std::time::Instant;

use crate::turn::{Effort, TurnEvent};

/// Counters of one turn, fed every event the normalizer produced.
#[derive(Debug)]
pub(crate) struct TurnLog {
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
    pub(crate) fn set_effort(&mut self, effort: Option<Effort>) {
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
            TurnEvent::Stopped => self.outcome = "stopped",
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
            | TurnEvent::Continuity { .. }
            | TurnEvent::ModelSwitched { .. } => {}
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
/// A turn's stream run inside its tracing span (turn id, model, client):
/// every line the turn logs carries them, the turn's summary line too, which
/// is written when the stream is dropped (so the drop happens inside the span).
pub(crate) struct InSpan<S> {
    span: tracing::Span,
    turn: Option<std::pin::Pin<Box<S>>>,
}

impl<S> InSpan<S> {
    pub fn new(span: tracing::Span, turn: S) -> Self {
        Self {
            span,
            turn: Some(Box::pin(turn)),
        }
    }
}

impl<S: futures::Stream> futures::Stream for InSpan<S> {
    type Item = S::Item;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<S::Item>> {
        let this = &mut *self;
        let _entered = this.span.enter();
        match this.turn.as_mut() {
            Some(turn) => turn.as_mut().poll_next(cx),
            None => std::task::Poll::Ready(None),
        }
    }
}

impl<S> Drop for InSpan<S> {
    fn drop(&mut self) {
        let _entered = self.span.enter();
        self.turn.take();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use futures::StreamExt;

    use super::*;

    /// What a subscriber wrote.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .expect("not poisoned")
                .extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
        type Writer = Captured;
        fn make_writer(&'a self) -> Captured {
            self.clone()
        }
    }

    /// Logs when dropped, as a turn's summary line does.
    struct LogsWhenDropped;

    impl Drop for LogsWhenDropped {
        fn drop(&mut self) {
            tracing::info!("summary");
        }
    }

    #[test]
    fn every_line_of_a_turn_carries_its_span_the_summary_written_on_drop_too() {
        let out = Captured::default();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(out.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let summary = LogsWhenDropped;
            let turn = futures::stream::iter([1, 2]).map(move |n| {
                let _kept_until_the_stream_drops = &summary;
                tracing::info!(n, "event");
                n
            });
            let span =
                tracing::info_span!("turn", turn_id = "t-7", model = "m", client = %"127.0.0.1");
            let mut turn = InSpan::new(span, turn);
            assert_eq!(futures::executor::block_on(turn.next()), Some(1));
            drop(turn);
            tracing::info!("after");
        });
        let text = String::from_utf8(out.0.lock().expect("not poisoned").clone()).expect("utf-8");
        let line = |needle: &str| {
            text.lines()
                .find(|l| l.ends_with(needle))
                .unwrap_or_else(|| panic!("no line ending {needle:?} in {text}"))
                .to_owned()
        };
        let span = "turn{turn_id=\"t-7\" model=\"m\" client=127.0.0.1}";
        assert!(line("event n=1").contains(span), "{text}");
        assert!(line("summary").contains(span), "{text}");
        assert!(!line("after").contains("turn{"), "{text}");
    }
}
