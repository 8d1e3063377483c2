//! The reasoning normalizer: turns dialect-neutral provider deltas into the
//! `TurnEvent` stream and keeps every producer rule of design §2 in one place
//! (thinking ends before answer text, empty text never switches mode, one
//! terminal event, durations from the server's clock). No I/O: the caller
//! passes the elapsed time.
//!
//! When a block is announced: a block opened by a provider's signal
//! (`ReasoningStarted`, `OpaqueReasoning`) at once, so the view's live header
//! and the duration both start at the first sign of reasoning. A block opened
//! by text (a tag, a reasoning field) only once it has non-whitespace text,
//! an opaque signal, or at its close: an empty `<think>\n\n</think>` must
//! never flash a live header. Its whitespace is held meanwhile (bounded by
//! `MAX_HELD_THINKING`) and sent with the announcement, byte for byte, and its
//! duration still counts from when it really opened.

use super::providers::delta::Delta;
use super::tags::{TagExtractor, TagPart, TagSet, TurnSoFar};
use crate::turn::turn_error::TurnError;
use crate::turn::TurnEvent;

/// Most whitespace held for a text-opened block not yet announced; beyond it
/// the block is announced (a model writing that much whitespace is reasoning
/// about something, and the hold must stay bounded). Nothing is ever dropped.
pub(crate) const MAX_HELD_THINKING: usize = 64 * 1024;

/// Most whitespace-only answer text held while a block is open; beyond it
/// the block closes and the whitespace goes out as the answer it is (a model
/// that writes that much whitespace has started answering, and the hold must
/// stay bounded whatever the provider sends). Nothing is ever dropped.
pub const MAX_HELD_WHITESPACE: usize = 64 * 1024;

#[derive(Debug, Clone)]
struct OpenBlock {
    started_ms: u64,
    has_text: bool,
    opaque: bool,
    /// `thinking_start` has been sent.
    announced: bool,
}

/// Streaming state of one turn. `Clone` forks a turn mid-stream (the
/// per-chunk benchmark starts every sample from the same state).
#[derive(Debug, Clone)]
pub struct Normalizer {
    tags: TagExtractor,
    /// The provider has sent reasoning (a field or a signal); passed to the
    /// tag extractor with every call.
    had_reasoning: bool,
    /// Scratch list of tag parts, reused so a chunk costs no allocation for it.
    parts: Vec<TagPart>,
    open: Option<OpenBlock>,
    /// When the first answer text arrived (a lone closing tag dates reasoning from it).
    first_answer_ms: Option<u64>,
    /// Whitespace-only answer text seen while a block was open: held, not a
    /// switch (at most `MAX_HELD_WHITESPACE`).
    held_whitespace: String,
    /// Whitespace-only reasoning of a block not yet announced.
    held_thinking: String,
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
            had_reasoning: false,
            parts: Vec::new(),
            open: None,
            first_answer_ms: None,
            held_whitespace: String::new(),
            held_thinking: String::new(),
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
                self.had_reasoning = true;
                self.reasoning(text, now_ms, &mut out);
            }
            Delta::ReasoningStarted => {
                self.had_reasoning = true;
                self.close_block(now_ms, &mut out);
                self.ensure_open(now_ms, true, &mut out);
            }
            Delta::OpaqueReasoning => {
                // Encrypted reasoning after the answer began never opens a block.
                if self.open.is_none() && self.answer_started {
                    return out;
                }
                self.had_reasoning = true;
                self.ensure_open(now_ms, true, &mut out).opaque = true;
            }
            Delta::ReasoningBoundary => self.close_block(now_ms, &mut out),
            Delta::Answer(text) => {
                let mut parts = std::mem::take(&mut self.parts);
                self.tags.push_into(&text, self.so_far(), &mut parts);
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
            Delta::ToolCallStart { id, name } => {
                // Thinking ends before the call starts, and the text before
                // it is settled answer text (design §2).
                self.close_block(now_ms, &mut out);
                if !self.held_whitespace.is_empty() {
                    out.push(TurnEvent::AnswerDelta {
                        text: std::mem::take(&mut self.held_whitespace),
                    });
                }
                // The tool loop names the server (it knows the tools).
                out.push(TurnEvent::ToolCallStart {
                    id,
                    name,
                    server: String::new(),
                });
            }
            Delta::ToolCallArguments { id, text } => {
                if !text.is_empty() {
                    out.push(TurnEvent::ToolCallDelta { id, text });
                }
            }
            // Whole arguments are the tool loop's to announce (`tool_call_ready`).
            Delta::ToolCallWhole { .. } => {}
            Delta::Continuity(data) => out.push(TurnEvent::Continuity { data }),
            Delta::ModelSwitched(model) => out.push(TurnEvent::ModelSwitched { model }),
        }
        out
    }

    /// One response of a tool loop ended with calls to run: close what is
    /// open, as at the end, but the turn goes on (no `done`); the next
    /// response starts afresh.
    pub(crate) fn end_round(&mut self, now_ms: u64) -> Vec<TurnEvent> {
        let out = self.settle(now_ms);
        self.saw_finish = false;
        self.finish_reason = None;
        self.answer_started = false;
        self.first_answer_ms = None;
        out
    }

    /// The provider's stop reason, once it said one (`tool_calls`, `tool_use`…).
    pub(crate) fn saw_finish(&self) -> bool {
        self.saw_finish
    }

    /// The turn ends on Pensive's side (the tool-call limit) with `reason`.
    pub(crate) fn finish_with(&mut self, reason: Option<String>, now_ms: u64) -> Vec<TurnEvent> {
        self.finish_reason = reason;
        self.finish(now_ms)
    }

    /// Normal end of the provider stream: close what is open, then `done`.
    pub fn finish(&mut self, now_ms: u64) -> Vec<TurnEvent> {
        let mut out = self.settle(now_ms);
        if !self.ended {
            self.ended = true;
            out.push(TurnEvent::Done {
                finish_reason: self.finish_reason.take(),
                output_limit: None,
            });
        }
        out
    }

    /// The live provider stream ended. With the provider's end marker that is
    /// `done`; without it the model did not finish (a proxy or the provider cut
    /// the stream short), so the turn ends interrupted, keeping what arrived.
    pub(crate) fn end_of_stream(&mut self, now_ms: u64) -> Vec<TurnEvent> {
        if self.saw_finish {
            self.finish(now_ms)
        } else {
            self.fail(&TurnError::CutOff, now_ms)
        }
    }

    /// The turn failed: close what is open, then one `error`.
    pub fn fail(&mut self, error: &TurnError, now_ms: u64) -> Vec<TurnEvent> {
        let mut out = self.settle(now_ms);
        if !self.ended {
            self.ended = true;
            out.push(error.event());
        }
        out
    }

    /// True once `done` or `error` has been produced.
    pub(crate) fn has_ended(&self) -> bool {
        self.ended
    }

    /// True while a lone closing tag could still turn the answer text so far
    /// into reasoning (`answer_was_thinking`); see `TagExtractor`.
    pub(crate) fn lone_close_possible(&self) -> bool {
        self.tags.lone_close_possible(self.so_far())
    }

    /// What the tag extractor cannot see in the answer text.
    fn so_far(&self) -> TurnSoFar {
        TurnSoFar {
            had_reasoning: self.had_reasoning,
        }
    }

    fn settle(&mut self, now_ms: u64) -> Vec<TurnEvent> {
        let mut out = Vec::new();
        if self.ended {
            return out;
        }
        for part in self.tags.finish(self.so_far()) {
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
        let block = self.ensure_open(now_ms, false, out);
        block.has_text = true;
        let announced = block.announced;
        if !announced {
            let within = self.held_thinking.len() + text.len() <= MAX_HELD_THINKING;
            if within && text.trim().is_empty() {
                self.held_thinking.push_str(&text);
                return;
            }
            self.announce(out);
        }
        out.push(TurnEvent::ThinkingDelta { text });
    }

    fn answer(&mut self, text: String, now_ms: u64, out: &mut Vec<TurnEvent>) {
        if text.is_empty() {
            return;
        }
        let within = self.held_whitespace.len() + text.len() <= MAX_HELD_WHITESPACE;
        if self.open.is_some() && within && text.trim().is_empty() {
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
                self.ensure_open(now_ms, false, out);
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

    /// The open block, or a new one opened at `now_ms`; `announce` for a
    /// provider's reasoning signal (announces a held block too).
    fn ensure_open(
        &mut self,
        now_ms: u64,
        announce: bool,
        out: &mut Vec<TurnEvent>,
    ) -> &mut OpenBlock {
        let block = self.open.get_or_insert(OpenBlock {
            started_ms: now_ms,
            has_text: false,
            opaque: false,
            announced: false,
        });
        if announce {
            announce_block(block, &mut self.held_thinking, out);
        }
        block
    }

    /// Sends `thinking_start` for the open block if not yet sent.
    fn announce(&mut self, out: &mut Vec<TurnEvent>) {
        if let Some(block) = self.open.as_mut() {
            announce_block(block, &mut self.held_thinking, out);
        }
    }

    fn close_block(&mut self, now_ms: u64, out: &mut Vec<TurnEvent>) {
        self.announce(out);
        if let Some(block) = self.open.take() {
            out.push(TurnEvent::ThinkingEnd {
                duration_ms: now_ms.saturating_sub(block.started_ms),
                opaque: block.opaque && !block.has_text,
            });
        }
    }
}

/// Sends `thinking_start` for `block` if not yet sent, then the whitespace
/// `held` for it, as it came.
fn announce_block(block: &mut OpenBlock, held: &mut String, out: &mut Vec<TurnEvent>) {
    if block.announced {
        return;
    }
    block.announced = true;
    out.push(TurnEvent::ThinkingStart);
    if !held.is_empty() {
        out.push(TurnEvent::ThinkingDelta {
            text: std::mem::take(held),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::turn_error::NetworkFailure;
    use crate::turn::{ErrorKind, Usage};
    use proptest::prelude::*;

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
                    finish_reason: None,
                    output_limit: None,
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

    /// `mock:endless-whitespace`: a provider that writes whitespace-only
    /// answer text without end while a block is open. The hold stays bounded;
    /// past it the whitespace goes out as answer text, none of it lost.
    #[test]
    fn endless_whitespace_while_thinking_is_held_only_so_far() {
        let mut n = Normalizer::default();
        let mut out = n.push(r("thinking"), 0);
        let chunk = " \n".repeat(2048);
        let chunks = 8 * MAX_HELD_WHITESPACE / chunk.len();
        for i in 0..chunks {
            out.extend(n.push(a(&chunk), i as u64));
            assert!(n.held_whitespace.len() <= MAX_HELD_WHITESPACE);
        }
        out.extend(n.finish(10_000));
        let answer: String = out
            .iter()
            .filter_map(|e| match e {
                TurnEvent::AnswerDelta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(answer.len(), chunks * chunk.len(), "nothing is dropped");
        let end = out
            .iter()
            .position(|e| matches!(e, TurnEvent::ThinkingEnd { .. }))
            .unwrap();
        assert!(
            end < out.len() - 2,
            "the block closes once the hold is full, not at the end: {end} of {}",
            out.len()
        );
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
                    finish_reason: None,
                    output_limit: None,
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
        let lost = TurnError::Network(NetworkFailure::BrokeOff);
        events.extend(n.fail(&lost, 50));
        events.extend(n.finish(60));
        events.extend(n.push(a("late"), 70));
        assert_eq!(
            events[2..],
            [
                TurnEvent::ThinkingEnd {
                    duration_ms: 50,
                    opaque: false
                },
                TurnEvent::error(ErrorKind::Network, lost.user_message()),
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
                    finish_reason: None,
                    output_limit: None,
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
                    finish_reason: None,
                    output_limit: None,
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
                    finish_reason: None,
                    output_limit: None,
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

    /// Events of one push, per push, with times: `(ms, delta)`.
    fn pushes(n: &mut Normalizer, deltas: Vec<(u64, Delta)>) -> Vec<Vec<TurnEvent>> {
        deltas.into_iter().map(|(at, d)| n.push(d, at)).collect()
    }

    #[test]
    fn an_empty_tag_block_is_announced_only_at_its_close_with_its_whitespace() {
        let mut n = Normalizer::default();
        let out = pushes(
            &mut n,
            vec![
                (0, a("<think>")),
                (10, a("\n")),
                (20, a("\n")),
                (30, a("</think>")),
                (40, a("\n\nHi")),
            ],
        );
        assert!(
            out[..3].iter().all(Vec::is_empty),
            "nothing to show yet: {out:?}"
        );
        assert_eq!(
            out[3],
            vec![
                TurnEvent::ThinkingStart,
                TurnEvent::ThinkingDelta {
                    text: "\n\n".into()
                },
                TurnEvent::ThinkingEnd {
                    duration_ms: 30,
                    opaque: false
                },
            ],
            "start, held whitespace and end together; timed from the real open"
        );
    }

    #[test]
    fn a_tag_block_is_announced_with_its_first_non_whitespace_text() {
        let mut n = Normalizer::default();
        let out = pushes(
            &mut n,
            vec![(0, a("<think>\n")), (500, a(" \n")), (900, a("plan"))],
        );
        assert_eq!(out[0], vec![]);
        assert_eq!(out[1], vec![]);
        assert_eq!(
            out[2],
            vec![
                TurnEvent::ThinkingStart,
                TurnEvent::ThinkingDelta {
                    text: "\n \n".into()
                },
                TurnEvent::ThinkingDelta {
                    text: "plan".into()
                },
            ]
        );
        assert_eq!(
            n.push(a("</think>ok"), 2000)[0],
            TurnEvent::ThinkingEnd {
                duration_ms: 2000,
                opaque: false
            },
            "the duration counts from the opening tag"
        );
    }

    #[test]
    fn a_reasoning_field_block_of_whitespace_waits_too_and_a_signal_announces_it() {
        let mut n = Normalizer::default();
        assert_eq!(n.push(r("\n"), 0), vec![]);
        assert_eq!(
            n.push(Delta::OpaqueReasoning, 50),
            vec![
                TurnEvent::ThinkingStart,
                TurnEvent::ThinkingDelta { text: "\n".into() },
            ]
        );
    }

    #[test]
    fn held_thinking_whitespace_is_bounded_and_never_dropped() {
        let mut n = Normalizer::default();
        let chunk = " ".repeat(4096);
        let mut events = Vec::new();
        let mut announced_after = None;
        for i in 0..20 {
            let out = n.push(a(if i == 0 { "<think>" } else { &chunk }), i);
            if announced_after.is_none() && out.contains(&TurnEvent::ThinkingStart) {
                announced_after = Some(i as usize * chunk.len());
            }
            events.extend(out);
        }
        events.extend(n.finish(99));
        let held = announced_after.expect("announced before the end");
        assert!(
            held > MAX_HELD_THINKING - chunk.len() && held <= MAX_HELD_THINKING + chunk.len(),
            "{held}"
        );
        assert_eq!(
            crate::turn::contract::thinking_text(&events),
            chunk.repeat(19)
        );
    }

    #[test]
    fn reasoning_started_opens_a_block_at_once_and_its_text_joins_it() {
        let mut n = Normalizer::default();
        let out = pushes(
            &mut n,
            vec![
                (100, Delta::ReasoningStarted),
                (900, r("hm")),
                (1000, Delta::ReasoningBoundary),
                (1100, Delta::ReasoningStarted),
                (1200, Delta::ReasoningStarted),
            ],
        );
        assert_eq!(out[0], vec![TurnEvent::ThinkingStart]);
        assert_eq!(out[1], vec![TurnEvent::ThinkingDelta { text: "hm".into() }]);
        assert_eq!(
            out[2],
            vec![TurnEvent::ThinkingEnd {
                duration_ms: 900,
                opaque: false
            }]
        );
        assert_eq!(out[3], vec![TurnEvent::ThinkingStart]);
        // A second start is a new part: the first one ends.
        assert_eq!(
            out[4],
            vec![
                TurnEvent::ThinkingEnd {
                    duration_ms: 100,
                    opaque: false
                },
                TurnEvent::ThinkingStart
            ]
        );
    }

    #[test]
    fn a_started_block_made_opaque_closes_opaque() {
        let events = run(vec![
            Delta::ReasoningStarted,
            Delta::OpaqueReasoning,
            Delta::ReasoningBoundary,
            a("x"),
        ]);
        assert_eq!(
            events[..2],
            [
                TurnEvent::ThinkingStart,
                TurnEvent::ThinkingEnd {
                    duration_ms: 20,
                    opaque: true
                }
            ]
        );
    }

    #[test]
    fn a_lone_close_is_possible_only_before_any_block() {
        let mut n = Normalizer::default();
        assert!(n.lone_close_possible());
        n.push(a("plain answer"), 0);
        assert!(n.lone_close_possible());
        n.push(a("\n<think>x"), 1);
        assert!(!n.lone_close_possible(), "after an opening tag");
        let mut n = Normalizer::default();
        n.push(r("field"), 0);
        assert!(!n.lone_close_possible(), "after a reasoning field");
        let mut n = Normalizer::default();
        n.push(a("reasoning</think>"), 0);
        assert!(!n.lone_close_possible(), "after the lone close itself");
        assert!(!Normalizer::new(TagSet::none(), false).lone_close_possible());
        assert!(!Normalizer::new(TagSet::default(), true).lone_close_possible());
    }

    fn piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "<think>", "</think>", "\n", " ", "\t", "plan", "a b", "\n\n", "<thi", "nk>",
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Whatever the chunks: no block is announced by a push that leaves it
        /// open with only whitespace shown, and no byte is lost.
        #[test]
        fn no_block_is_announced_with_only_whitespace_and_nothing_is_lost(
            chunks in prop::collection::vec(prop::collection::vec(piece(), 1..4), 0..16),
        ) {
            let mut n = Normalizer::default();
            let mut all = Vec::new();
            let mut open = false;
            for (i, chunk) in chunks.iter().enumerate() {
                let out = n.push(a(&chunk.concat()), i as u64);
                let mut shown = String::new();
                let mut announced = false;
                for event in &out {
                    match event {
                        TurnEvent::ThinkingStart => { open = true; announced = true; shown.clear(); }
                        TurnEvent::ThinkingDelta { text } => shown.push_str(text),
                        TurnEvent::ThinkingEnd { .. } => { open = false; announced = false; }
                        _ => {}
                    }
                }
                prop_assert!(!(announced && open && shown.trim().is_empty()), "{:?}", out);
                all.extend(out);
            }
            all.extend(n.finish(99));
            prop_assert_eq!(crate::turn::contract::check_stream(&all), Ok(()));
            let mut rebuilt = String::new();
            for e in &all {
                if let TurnEvent::ThinkingDelta { text } | TurnEvent::AnswerDelta { text } = e {
                    rebuilt.push_str(text);
                }
            }
            // Every byte of text the tag extractor found (it is lossless
            // itself, see `tags`) is carried, in order.
            let input: String = chunks.iter().map(|c| c.concat()).collect();
            let mut extractor = TagExtractor::new(TagSet::default(), false);
            let mut parts = extractor.push(&input, TurnSoFar::default());
            parts.extend(extractor.finish(TurnSoFar::default()));
            let text: String = parts
                .iter()
                .filter(|p| matches!(p, TagPart::Answer(_) | TagPart::Reasoning(_)))
                .map(TagPart::text)
                .collect();
            prop_assert_eq!(rebuilt, text);
        }
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
                finish_reason: Some("length".into()),
                output_limit: None,
            })
        );
    }
}
