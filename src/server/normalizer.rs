//! The reasoning normalizer: turns dialect-neutral provider deltas into the
//! `TurnEvent` stream and keeps every producer rule of DESIGN §2 in one place
//! (thinking ends before answer text, empty text never switches mode, one
//! terminal event, durations from the server's clock). No I/O: the caller
//! passes the elapsed time.

use super::tags::{TagExtractor, TagPart, TagSet};
use crate::turn::{ErrorKind, TurnEvent, Usage};

/// What a dialect decoder extracted from one provider chunk, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delta {
    /// Readable reasoning text.
    Reasoning(String),
    /// The provider reasoned without readable text (redacted / encrypted).
    OpaqueReasoning,
    /// The provider started a new reasoning part: close the open block, if any.
    ReasoningBoundary,
    /// Answer text (inline tags are not yet extracted here).
    Answer(String),
    Usage(Usage),
    /// The provider said why it stopped.
    Finish(Option<String>),
}

#[derive(Debug, Clone)]
struct OpenBlock {
    started_ms: u64,
    has_text: bool,
    opaque: bool,
}

/// Streaming state of one turn. `Clone` forks a turn mid-stream (the
/// per-chunk benchmark starts every sample from the same state).
#[derive(Debug, Clone)]
pub struct Normalizer {
    tags: TagExtractor,
    /// Scratch list of tag parts, reused so a chunk costs no allocation for it.
    parts: Vec<TagPart>,
    open: Option<OpenBlock>,
    /// When the first answer text arrived (a lone closing tag dates reasoning from it).
    first_answer_ms: Option<u64>,
    /// Whitespace-only answer text seen while a block was open: held, not a switch.
    held_whitespace: String,
    answer_started: bool,
    finish_reason: Option<String>,
    /// The provider said it finished (its end marker): a stream that simply
    /// stops without one was cut off.
    saw_finish: bool,
    ended: bool,
}

impl Default for Normalizer {
    fn default() -> Self {
        Self::new(TagSet::default(), false)
    }
}

impl Normalizer {
    /// A normalizer extracting `tags` from answer text; `start_in_thinking` for
    /// models whose output begins inside a thinking block.
    pub fn new(tags: TagSet, start_in_thinking: bool) -> Self {
        Self {
            tags: TagExtractor::new(tags, start_in_thinking),
            parts: Vec::new(),
            open: None,
            first_answer_ms: None,
            held_whitespace: String::new(),
            answer_started: false,
            finish_reason: None,
            saw_finish: false,
            ended: false,
        }
    }

    /// Folds one delta in at `now_ms` (ms since the turn started).
    pub fn push(&mut self, delta: Delta, now_ms: u64) -> Vec<TurnEvent> {
        let mut out = Vec::new();
        if self.ended {
            return out;
        }
        match delta {
            Delta::Reasoning(text) => {
                self.tags.note_thinking_block();
                self.reasoning(text, now_ms, &mut out);
            }
            Delta::OpaqueReasoning => {
                // Encrypted reasoning after the answer began never opens a block.
                if self.open.is_none() && self.answer_started {
                    return out;
                }
                self.tags.note_thinking_block();
                self.ensure_open(now_ms, &mut out).opaque = true;
            }
            Delta::ReasoningBoundary => self.close_block(now_ms, &mut out),
            Delta::Answer(text) => {
                let mut parts = std::mem::take(&mut self.parts);
                self.tags.push_into(&text, &mut parts);
                for part in parts.drain(..) {
                    self.tag_part(part, now_ms, &mut out);
                }
                self.parts = parts;
            }
            Delta::Usage(usage) => out.push(TurnEvent::Usage(usage)),
            Delta::Finish(reason) => {
                self.saw_finish = true;
                if reason.is_some() {
                    self.finish_reason = reason;
                }
            }
        }
        out
    }

    /// Normal end of the provider stream: close what is open, then `done`.
    pub fn finish(&mut self, now_ms: u64) -> Vec<TurnEvent> {
        let mut out = self.settle(now_ms);
        if !self.ended {
            self.ended = true;
            out.push(TurnEvent::Done {
                finish_reason: self.finish_reason.take(),
            });
        }
        out
    }

    /// The live provider stream ended. With the provider's end marker that is
    /// `done`; without it the model did not finish (a proxy or the provider cut
    /// the stream short), so the turn ends interrupted, keeping what arrived.
    pub fn end_of_stream(&mut self, now_ms: u64) -> Vec<TurnEvent> {
        if self.saw_finish {
            self.finish(now_ms)
        } else {
            self.fail(
                ErrorKind::Interrupted,
                "The provider's stream ended before the model finished (no end marker); what arrived is kept. Try again.",
                now_ms,
            )
        }
    }

    /// The turn failed: close what is open, then one `error`.
    pub fn fail(
        &mut self,
        kind: ErrorKind,
        message: impl Into<String>,
        now_ms: u64,
    ) -> Vec<TurnEvent> {
        let mut out = self.settle(now_ms);
        if !self.ended {
            self.ended = true;
            out.push(TurnEvent::error(kind, message));
        }
        out
    }

    /// True once `done` or `error` has been produced.
    pub fn has_ended(&self) -> bool {
        self.ended
    }

    fn settle(&mut self, now_ms: u64) -> Vec<TurnEvent> {
        let mut out = Vec::new();
        if self.ended {
            return out;
        }
        for part in self.tags.finish() {
            self.tag_part(part, now_ms, &mut out);
        }
        self.close_block(now_ms, &mut out);
        if !self.held_whitespace.is_empty() {
            // Lossless: whitespace held back is released as it came.
            out.push(TurnEvent::AnswerDelta {
                text: std::mem::take(&mut self.held_whitespace),
            });
        }
        out
    }

    fn reasoning(&mut self, text: String, now_ms: u64, out: &mut Vec<TurnEvent>) {
        if text.is_empty() {
            return;
        }
        let block = self.ensure_open(now_ms, out);
        block.has_text = true;
        out.push(TurnEvent::ThinkingDelta { text });
    }

    fn answer(&mut self, text: String, now_ms: u64, out: &mut Vec<TurnEvent>) {
        if text.is_empty() {
            return;
        }
        if self.open.is_some() && text.trim().is_empty() {
            self.held_whitespace.push_str(&text);
            return;
        }
        self.close_block(now_ms, out);
        self.answer_started = true;
        self.first_answer_ms.get_or_insert(now_ms);
        let text = if self.held_whitespace.is_empty() {
            text
        } else {
            std::mem::take(&mut self.held_whitespace) + &text
        };
        out.push(TurnEvent::AnswerDelta { text });
    }

    /// One part of answer text after inline-tag extraction.
    fn tag_part(&mut self, part: TagPart, now_ms: u64, out: &mut Vec<TurnEvent>) {
        match part {
            TagPart::Answer(text) => self.answer(text, now_ms, out),
            TagPart::Reasoning(text) => self.reasoning(text, now_ms, out),
            TagPart::Open(_) => {
                self.close_block(now_ms, out);
                self.ensure_open(now_ms, out);
            }
            TagPart::Close(_) => self.close_block(now_ms, out),
            TagPart::LoneClose(_) => {
                // With no answer text before it the block would be empty: no event.
                if let Some(first) = self.first_answer_ms.take() {
                    out.push(TurnEvent::AnswerWasThinking {
                        duration_ms: now_ms.saturating_sub(first),
                    });
                }
                self.answer_started = false;
            }
            TagPart::Absorbed(_) => {}
        }
    }

    fn ensure_open(&mut self, now_ms: u64, out: &mut Vec<TurnEvent>) -> &mut OpenBlock {
        self.open.get_or_insert_with(|| {
            out.push(TurnEvent::ThinkingStart);
            OpenBlock {
                started_ms: now_ms,
                has_text: false,
                opaque: false,
            }
        })
    }

    fn close_block(&mut self, now_ms: u64, out: &mut Vec<TurnEvent>) {
        if let Some(block) = self.open.take() {
            out.push(TurnEvent::ThinkingEnd {
                duration_ms: now_ms.saturating_sub(block.started_ms),
                opaque: block.opaque && !block.has_text,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(deltas: Vec<Delta>) -> Vec<TurnEvent> {
        let mut n = Normalizer::default();
        let mut out = Vec::new();
        for (i, d) in deltas.into_iter().enumerate() {
            out.extend(n.push(d, i as u64 * 10));
        }
        out.extend(n.finish(1000));
        out
    }
    fn r(t: &str) -> Delta {
        Delta::Reasoning(t.into())
    }
    fn a(t: &str) -> Delta {
        Delta::Answer(t.into())
    }

    #[test]
    fn reasoning_then_answer_closes_the_block_before_the_answer() {
        let events = run(vec![r("think"), r("ing"), a("Hi")]);
        assert_eq!(
            events,
            vec![
                TurnEvent::ThinkingStart,
                TurnEvent::ThinkingDelta {
                    text: "think".into()
                },
                TurnEvent::ThinkingDelta { text: "ing".into() },
                TurnEvent::ThinkingEnd {
                    duration_ms: 20,
                    opaque: false
                },
                TurnEvent::AnswerDelta { text: "Hi".into() },
                TurnEvent::Done {
                    finish_reason: None
                },
            ]
        );
    }

    #[test]
    fn empty_strings_never_produce_events_or_switch_mode() {
        let events = run(vec![r("x"), a(""), r(""), r("y")]);
        assert_eq!(
            events
                .iter()
                .filter(|e| matches!(e, TurnEvent::ThinkingStart))
                .count(),
            1
        );
        assert!(!events
            .iter()
            .any(|e| matches!(e, TurnEvent::AnswerDelta { .. })));
    }

    #[test]
    fn whitespace_answer_text_is_held_while_thinking_and_released_with_the_answer() {
        let events = run(vec![r("a"), a("\n\n"), r("b"), a("Answer")]);
        assert_eq!(
            events[1..3],
            [
                TurnEvent::ThinkingDelta { text: "a".into() },
                TurnEvent::ThinkingDelta { text: "b".into() },
            ]
        );
        assert!(events.contains(&TurnEvent::AnswerDelta {
            text: "\n\nAnswer".into()
        }));
    }

    #[test]
    fn whitespace_held_at_the_end_is_released_after_the_block_closes() {
        let events = run(vec![r("a"), a(" ")]);
        let end = events
            .iter()
            .position(|e| matches!(e, TurnEvent::ThinkingEnd { .. }))
            .unwrap();
        assert_eq!(events[end + 1], TurnEvent::AnswerDelta { text: " ".into() });
    }

    #[test]
    fn late_reasoning_after_the_answer_opens_a_new_block() {
        let events = run(vec![r("a"), a("x"), r("b"), a("y")]);
        assert_eq!(
            events
                .iter()
                .filter(|e| matches!(e, TurnEvent::ThinkingStart))
                .count(),
            2
        );
    }

    #[test]
    fn opaque_reasoning_marks_a_textless_block_and_is_ignored_after_the_answer() {
        let events = run(vec![Delta::OpaqueReasoning, a("x"), Delta::OpaqueReasoning]);
        assert_eq!(
            events,
            vec![
                TurnEvent::ThinkingStart,
                TurnEvent::ThinkingEnd {
                    duration_ms: 10,
                    opaque: true
                },
                TurnEvent::AnswerDelta { text: "x".into() },
                TurnEvent::Done {
                    finish_reason: None
                },
            ]
        );
        let with_text = run(vec![Delta::OpaqueReasoning, r("visible"), a("x")]);
        assert!(with_text.contains(&TurnEvent::ThinkingEnd {
            duration_ms: 20,
            opaque: false
        }));
    }

    #[test]
    fn boundaries_split_reasoning_into_blocks() {
        let events = run(vec![r("one"), Delta::ReasoningBoundary, r("two")]);
        assert_eq!(
            events
                .iter()
                .filter(|e| matches!(e, TurnEvent::ThinkingEnd { .. }))
                .count(),
            2
        );
    }

    #[test]
    fn failure_closes_the_open_block_and_ends_with_exactly_one_error() {
        let mut n = Normalizer::default();
        let mut events = n.push(r("half"), 0);
        events.extend(n.fail(ErrorKind::Network, "lost", 50));
        events.extend(n.finish(60));
        events.extend(n.push(a("late"), 70));
        assert_eq!(
            events[2..],
            [
                TurnEvent::ThinkingEnd {
                    duration_ms: 50,
                    opaque: false
                },
                TurnEvent::error(ErrorKind::Network, "lost"),
            ]
        );
    }

    #[test]
    fn inline_tags_in_answer_text_become_thinking_events() {
        let events = run(vec![a("<thi"), a("nk>plan"), a("</think>\n\nDone")]);
        assert_eq!(
            events,
            vec![
                TurnEvent::ThinkingStart,
                TurnEvent::ThinkingDelta {
                    text: "plan".into()
                },
                TurnEvent::ThinkingEnd {
                    duration_ms: 10,
                    opaque: false
                },
                TurnEvent::AnswerDelta {
                    text: "\n\nDone".into()
                },
                TurnEvent::Done {
                    finish_reason: None
                },
            ]
        );
    }

    #[test]
    fn a_lone_closing_tag_turns_the_answer_so_far_into_thinking() {
        let events = run(vec![a("step one"), a("</think>"), a("42")]);
        assert_eq!(
            events,
            vec![
                TurnEvent::AnswerDelta {
                    text: "step one".into()
                },
                TurnEvent::AnswerWasThinking { duration_ms: 10 },
                TurnEvent::AnswerDelta { text: "42".into() },
                TurnEvent::Done {
                    finish_reason: None
                },
            ]
        );
        // Nothing before it: the block would be empty, so no event.
        let events = run(vec![a("</think>"), a("42")]);
        assert!(!events
            .iter()
            .any(|e| matches!(e, TurnEvent::AnswerWasThinking { .. })));
    }

    #[test]
    fn an_unclosed_tag_block_is_closed_at_the_end_and_a_partial_tag_flushed() {
        let events = run(vec![a("<think>abc</thi")]);
        assert_eq!(
            events[1..],
            [
                TurnEvent::ThinkingDelta { text: "abc".into() },
                TurnEvent::ThinkingDelta {
                    text: "</thi".into()
                },
                TurnEvent::ThinkingEnd {
                    duration_ms: 1000,
                    opaque: false
                },
                TurnEvent::Done {
                    finish_reason: None
                },
            ]
        );
    }

    #[test]
    fn start_in_thinking_opens_a_block_for_the_first_text() {
        let mut n = Normalizer::new(TagSet::default(), true);
        let mut events = n.push(a("reasoning</think>answer"), 0);
        events.extend(n.finish(5));
        assert_eq!(events[0], TurnEvent::ThinkingStart);
        assert_eq!(
            events[1],
            TurnEvent::ThinkingDelta {
                text: "reasoning".into()
            }
        );
        assert!(events.contains(&TurnEvent::AnswerDelta {
            text: "answer".into()
        }));
    }

    #[test]
    fn finish_reason_and_usage_are_carried() {
        let events = run(vec![
            a("x"),
            Delta::Usage(Usage {
                output_tokens: Some(3),
                ..Usage::default()
            }),
            Delta::Finish(Some("length".into())),
        ]);
        assert_eq!(
            events.last(),
            Some(&TurnEvent::Done {
                finish_reason: Some("length".into())
            })
        );
    }
}
