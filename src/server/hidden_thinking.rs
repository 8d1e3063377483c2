//! The kill switch (`PENSIVE_SHOW_THINKING=0`): what of a turn may leave the
//! server when reasoning must not. Thinking events are dropped, reasoning
//! token counts removed, and answer text is held back while it may still turn
//! out to be reasoning: a model whose template prefilled `<think>` writes its
//! reasoning as plain text and only then a lone `</think>` (design §3), so the
//! normalizer first sends that reasoning as answer text and says
//! `answer_was_thinking` only at the closing tag.
//!
//! Held text is released the moment the question is settled (a thinking block
//! happened, the caller says no lone closing tag can come, or the turn ends)
//! and dropped only when it was reasoning. Its size is the turn's own answer
//! text, which is owed to the user: there is no cap that could drop any of it.
//!
//! Pure, no I/O. Per event the work is the event's own text (an append);
//! releasing costs the held text once.

use crate::turn::TurnEvent;

/// The kill switch's filter for one turn.
#[derive(Debug, Clone)]
pub(crate) struct HiddenThinking {
    /// Answer text may still turn out to be reasoning.
    holding: bool,
    /// Answer text held back while `holding`.
    held: String,
}

impl Default for HiddenThinking {
    /// Holding: until told otherwise, any answer text may be a prefilled block.
    fn default() -> Self {
        Self {
            holding: true,
            held: String::new(),
        }
    }
}

impl HiddenThinking {
    /// Passes one event through, appending what may be sent to `out`.
    pub fn push(&mut self, event: TurnEvent, out: &mut Vec<TurnEvent>) {
        match event {
            // After a thinking block a lone closing tag is literal text
            // (design §3): the answer held so far is the answer.
            TurnEvent::ThinkingStart => self.release(out),
            TurnEvent::ReasoningSource { .. }
            | TurnEvent::ThinkingDelta { .. }
            | TurnEvent::ThinkingEnd { .. } => {}
            // Everything so far was reasoning: it never leaves.
            TurnEvent::AnswerWasThinking { .. } => {
                self.holding = false;
                self.held.clear();
            }
            TurnEvent::AnswerDelta { text } if self.holding => self.held.push_str(&text),
            TurnEvent::Usage(mut usage) => {
                // The kill switch hides that reasoning happened at all.
                usage.reasoning_tokens = None;
                out.push(TurnEvent::Usage(usage));
            }
            TurnEvent::Done { .. } | TurnEvent::Stopped | TurnEvent::Error { .. } => {
                self.release(out);
                out.push(event);
            }
            TurnEvent::AnswerDelta { .. } => out.push(event),
            // Continuity may hold the reasoning's text (Anthropic thinking
            // blocks, DeepSeek's `reasoning_content`): with the switch on it
            // stays on the server, which keeps it for the rest of the turn.
            TurnEvent::Continuity { .. } => {}
            // Who answers is not reasoning.
            TurnEvent::ModelSwitched { .. } => out.push(event),
            // A call ends the text before it: that text was the answer.
            TurnEvent::ToolCallStart { .. } => {
                self.release(out);
                out.push(event);
            }
            TurnEvent::ToolCallDelta { .. }
            | TurnEvent::ToolCallReady { .. }
            | TurnEvent::ToolResult { .. } => out.push(event),
        }
    }

    /// No lone closing tag can come any more: send what is held, hold no more.
    pub fn release(&mut self, out: &mut Vec<TurnEvent>) {
        self.holding = false;
        if !self.held.is_empty() {
            out.push(TurnEvent::AnswerDelta {
                text: std::mem::take(&mut self.held),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::{ErrorKind, Usage};

    fn answer(text: &str) -> TurnEvent {
        TurnEvent::AnswerDelta { text: text.into() }
    }

    fn done() -> TurnEvent {
        TurnEvent::Done {
            finish_reason: None,
            output_limit: None,
        }
    }

    fn run(filter: &mut HiddenThinking, events: Vec<TurnEvent>) -> Vec<TurnEvent> {
        let mut out = Vec::new();
        for event in events {
            filter.push(event, &mut out);
        }
        out
    }

    #[test]
    fn prefilled_reasoning_before_a_lone_close_never_leaves() {
        let mut filter = HiddenThinking::default();
        let out = run(
            &mut filter,
            vec![
                answer("I should check "),
                answer("the units."),
                TurnEvent::AnswerWasThinking { duration_ms: 700 },
                answer("\n\n42"),
                done(),
            ],
        );
        assert_eq!(out, vec![answer("\n\n42"), done()]);
    }

    #[test]
    fn held_answer_text_is_released_whole_at_the_end_of_the_turn() {
        let mut filter = HiddenThinking::default();
        let out = run(&mut filter, vec![answer("Here "), answer("it is.")]);
        assert!(out.is_empty(), "held while a lone close may come: {out:?}");
        assert_eq!(
            run(&mut filter, vec![done()]),
            vec![answer("Here it is."), done()]
        );
        let mut filter = HiddenThinking::default();
        let failed = TurnEvent::error(ErrorKind::Network, "lost");
        assert_eq!(
            run(&mut filter, vec![answer("partial"), failed.clone()]),
            vec![answer("partial"), failed]
        );
    }

    #[test]
    fn a_thinking_block_settles_it_and_its_events_are_dropped() {
        let mut filter = HiddenThinking::default();
        let out = run(
            &mut filter,
            vec![
                answer("Intro. "),
                TurnEvent::ThinkingStart,
                TurnEvent::ThinkingDelta {
                    text: "secret plan".into(),
                },
                TurnEvent::ThinkingEnd {
                    duration_ms: 5,
                    opaque: false,
                },
                answer("Rest."),
            ],
        );
        assert_eq!(out, vec![answer("Intro. "), answer("Rest.")]);
    }

    #[test]
    fn after_release_answer_text_streams_through_at_once() {
        let mut filter = HiddenThinking::default();
        let mut out = Vec::new();
        filter.push(answer("a"), &mut out);
        filter.release(&mut out);
        filter.push(answer("b"), &mut out);
        assert_eq!(out, vec![answer("a"), answer("b")]);
        filter.release(&mut out);
        assert_eq!(out.len(), 2, "nothing is sent twice");
    }

    #[test]
    fn usage_loses_its_reasoning_token_count() {
        let mut filter = HiddenThinking::default();
        let usage = Usage {
            input_tokens: Some(3),
            output_tokens: Some(9),
            reasoning_tokens: Some(640),
        };
        assert_eq!(
            run(&mut filter, vec![TurnEvent::Usage(usage)]),
            vec![TurnEvent::Usage(Usage {
                reasoning_tokens: None,
                ..usage
            })]
        );
    }
}
