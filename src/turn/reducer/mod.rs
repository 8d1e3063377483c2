//! The turn reducer: folds `TurnEvent`s into the ordered blocks of an assistant
//! turn plus its state (design §4). The result is both what the view renders and
//! what history stores. Pure: the caller passes the clock.
//!
//! `apply` reports what changed so a view can update only the block that grew;
//! appending is O(delta), never O(text so far). This file holds `Turn` and the
//! fold of each event; the blocks (`block`), the turn's status and outcome
//! (`status`), the `Change`s (`change`) and a thinking block's life and timer
//! (`thinking`) are beside it.

use serde::{Deserialize, Serialize};

use super::event::{ErrorKind, TurnEvent, Usage};

mod block;
mod change;
mod status;
mod thinking;
mod tool_step;

pub use block::{is_empty_reasoning, is_shown, Block, BlockState, Thinking, ThinkingMeta};
pub use change::{Change, TurnProgress};
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
            started_at_ms: now_ms,
            ttft_ms: None,
            effort: None,
            reasoning_source: None,
            continuity: Vec::new(),
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
        }
    }

    /// "Continue" on an answer cut at the output limit: the turn waits again
    /// and the continuation's answer text joins its last answer block.
    /// Nothing to do for a turn that was not cut.
    pub fn resume_to_continue(&mut self, now_ms: f64) -> Vec<Change> {
        if !crate::turn::turn_footer::is_cut_off(self) {
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
                self.blocks.push(Block::Thinking(Thinking::streaming(
                    now_ms,
                    self.reasoning_source,
                )));
                self.status = TurnStatus::Thinking;
                changes.extend(self.opened_change());
                changes.push(self.status_change());
                changes
            }
            // Taken in `apply`, before the clock starts.
            TurnEvent::ReasoningSource { .. } => Vec::new(),
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
            } => self.tool_ready(&id, &arguments, approval),
            TurnEvent::ToolResult {
                id,
                status,
                output,
                truncated_bytes,
                duration_ms,
            } => self.tool_result(&id, status, output, truncated_bytes, duration_ms),
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

/// Headlines, visibility and the empty-turn note. Kept apart from
/// `tests` below, which other work extends.
#[cfg(test)]
mod outcome_tests {
    use super::*;

    fn turn_of(events: Vec<TurnEvent>) -> Turn {
        let mut turn = Turn::new(0.0);
        for (i, event) in events.into_iter().enumerate() {
            turn.apply(event, i as f64 * 100.0);
        }
        turn
    }
    fn delta(text: &str) -> TurnEvent {
        TurnEvent::ThinkingDelta { text: text.into() }
    }
    fn end(opaque: bool) -> TurnEvent {
        TurnEvent::ThinkingEnd {
            duration_ms: 4000,
            opaque,
        }
    }
    fn done() -> TurnEvent {
        TurnEvent::Done {
            finish_reason: Some("stop".into()),
            output_limit: None,
        }
    }
    /// True when `changes` report new metadata for block `index`.
    fn updates(changes: &[Change], index: usize) -> bool {
        changes
            .iter()
            .any(|c| matches!(c, Change::Updated { index: i, .. } if *i == index))
    }
    fn headline(turn: &Turn, index: usize) -> Option<&str> {
        match &turn.blocks[index] {
            Block::Thinking(t) => t.headline.as_deref(),
            Block::Answer { .. } | Block::Tool(_) => None,
        }
    }

    #[test]
    fn an_empty_turn_says_thinking_only_when_the_model_reasoned() {
        use EmptyOutcome::*;
        let reasoning_tokens = |n| {
            TurnEvent::Usage(Usage {
                reasoning_tokens: Some(n),
                ..Usage::default()
            })
        };
        let cases = [
            (vec![done()], Some(EmptyAnswer)),
            // Qwen's empty <think></think>: no reasoning to speak of.
            (
                vec![TurnEvent::ThinkingStart, delta("\n\n"), end(false), done()],
                Some(EmptyAnswer),
            ),
            // The kill switch: usage arrives with the reasoning count removed.
            (
                vec![TurnEvent::Usage(Usage::default()), done()],
                Some(EmptyAnswer),
            ),
            (
                vec![TurnEvent::AnswerDelta { text: " \n".into() }, done()],
                Some(EmptyAnswer),
            ),
            (
                vec![TurnEvent::ThinkingStart, delta("hmm"), end(false), done()],
                Some(ThoughtWithoutAnswer),
            ),
            (
                vec![TurnEvent::ThinkingStart, end(true), done()],
                Some(ThoughtWithoutAnswer),
            ),
            (
                vec![reasoning_tokens(640), done()],
                Some(ThoughtWithoutAnswer),
            ),
            (vec![reasoning_tokens(0), done()], Some(EmptyAnswer)),
            (
                vec![TurnEvent::AnswerDelta { text: "42".into() }, done()],
                None,
            ),
            (vec![TurnEvent::error(ErrorKind::Upstream, "boom")], None),
        ];
        for (events, expected) in cases {
            let turn = turn_of(events.clone());
            assert_eq!(turn.empty_outcome(), expected, "{events:?}");
            assert_eq!(
                turn.thought_without_answer(),
                expected == Some(ThoughtWithoutAnswer),
                "{events:?}"
            );
        }
        let mut stopped = Turn::new(0.0);
        stopped.stop(10.0);
        assert_eq!(stopped.empty_outcome(), None, "Stop says so itself");
        assert!(!EmptyAnswer.note().to_lowercase().contains("think"));
        assert!(ThoughtWithoutAnswer.note().contains("thinking"));
    }

    #[test]
    fn a_streaming_block_is_shown_before_any_text_an_ended_empty_one_never() {
        assert!(is_shown(BlockState::Streaming, "", false));
        assert!(is_shown(BlockState::Streaming, "\n", false));
        assert!(!is_shown(BlockState::Done, "\n\n", false));
        assert!(!is_shown(BlockState::Interrupted, "", false));
        assert!(is_shown(BlockState::Done, "", true));
        assert!(is_shown(BlockState::Done, "text", false));
    }

    #[test]
    fn the_latest_label_names_the_block_as_it_streams() {
        let mut turn = Turn::new(0.0);
        turn.apply(TurnEvent::ThinkingStart, 0.0);
        let changes = turn.apply(delta("<topic>Checking the units</topic>\nm to ft"), 1.0);
        assert!(updates(&changes, 0), "{changes:?}");
        assert_eq!(headline(&turn, 0), Some("Checking the units"));
        // More text under the same label: only the text moved.
        let changes = turn.apply(delta(" and back\n"), 2.0);
        assert_eq!(
            changes,
            vec![Change::Appended {
                index: 0,
                text: " and back\n".into()
            }]
        );
        turn.apply(delta("<topic>Writing the "), 3.0);
        assert_eq!(headline(&turn, 0), Some("Checking the units"));
        let changes = turn.apply(delta("answer</topic>"), 4.0);
        assert!(updates(&changes, 0), "{changes:?}");
        assert_eq!(headline(&turn, 0), Some("Writing the answer"));
    }

    #[test]
    fn a_bold_last_line_names_the_block_once_it_ends() {
        let turn = turn_of(vec![
            TurnEvent::ThinkingStart,
            delta("Some thought.\n**Final check**"),
            end(false),
            TurnEvent::AnswerDelta { text: "42".into() },
            done(),
        ]);
        assert_eq!(headline(&turn, 0), Some("Final check"));
        let stopped = {
            let mut turn = Turn::new(0.0);
            turn.apply(TurnEvent::ThinkingStart, 0.0);
            turn.apply(delta("**Half way**"), 1.0);
            turn.stop(2.0);
            turn
        };
        assert_eq!(headline(&stopped, 0), Some("Half way"));
    }

    #[test]
    fn reasoning_found_to_be_prefilled_gets_its_headline() {
        let turn = turn_of(vec![
            TurnEvent::AnswerDelta {
                text: "<topic>Reading</topic> the question".into(),
            },
            TurnEvent::AnswerWasThinking { duration_ms: 700 },
            TurnEvent::AnswerDelta { text: "42".into() },
            done(),
        ]);
        assert_eq!(headline(&turn, 0), Some("Reading"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(text: &str) -> TurnEvent {
        TurnEvent::ThinkingDelta { text: text.into() }
    }
    fn answer(text: &str) -> TurnEvent {
        TurnEvent::AnswerDelta { text: text.into() }
    }
    fn end(ms: u64) -> TurnEvent {
        TurnEvent::ThinkingEnd {
            duration_ms: ms,
            opaque: false,
        }
    }
    fn done() -> TurnEvent {
        TurnEvent::Done {
            finish_reason: Some("stop".into()),
            output_limit: None,
        }
    }

    fn run(events: Vec<TurnEvent>) -> Turn {
        let mut turn = Turn::new(0.0);
        for (i, event) in events.into_iter().enumerate() {
            turn.apply(event, i as f64 * 100.0);
        }
        turn
    }

    /// True when `changes` report new metadata for block `index`.
    fn updates(changes: &[Change], index: usize) -> bool {
        changes
            .iter()
            .any(|c| matches!(c, Change::Updated { index: i, .. } if *i == index))
    }

    fn thinking(turn: &Turn, index: usize) -> &Thinking {
        match &turn.blocks[index] {
            Block::Thinking(t) => t,
            other => panic!("block {index} is {other:?}"),
        }
    }

    #[test]
    fn think_then_answer_gives_two_blocks_in_order() {
        let turn = run(vec![
            TurnEvent::ThinkingStart,
            delta("Light "),
            delta("scatters."),
            end(1500),
            answer("Because "),
            answer("Rayleigh."),
            done(),
        ]);
        assert_eq!(turn.blocks.len(), 2);
        let t = thinking(&turn, 0);
        assert_eq!(t.text, "Light scatters.");
        assert_eq!(t.duration_ms, Some(1500));
        assert_eq!(t.state, BlockState::Done);
        assert_eq!(
            turn.blocks[1],
            Block::Answer {
                text: "Because Rayleigh.".into()
            }
        );
        assert_eq!(turn.status, TurnStatus::Done);
        assert_eq!(turn.finish_reason.as_deref(), Some("stop"));
    }

    #[test]
    fn status_walks_waiting_thinking_answering_done() {
        let mut turn = Turn::new(0.0);
        assert_eq!(turn.status, TurnStatus::Waiting);
        turn.apply(TurnEvent::ThinkingStart, 250.0);
        assert_eq!(turn.status, TurnStatus::Thinking);
        assert_eq!(turn.ttft_ms, Some(250));
        turn.apply(end(10), 300.0);
        turn.apply(answer("a"), 300.0);
        assert_eq!(turn.status, TurnStatus::Answering);
        turn.apply(done(), 400.0);
        assert_eq!(turn.status, TurnStatus::Done);
    }

    #[test]
    fn appends_report_only_the_new_bytes() {
        let mut turn = Turn::new(0.0);
        turn.apply(TurnEvent::ThinkingStart, 0.0);
        turn.apply(delta("abc"), 0.0);
        let changes = turn.apply(delta("de"), 0.0);
        assert_eq!(
            changes,
            vec![Change::Appended {
                index: 0,
                text: "de".into()
            }]
        );
    }

    #[test]
    fn interleaved_blocks_keep_their_order_and_durations() {
        let turn = run(vec![
            TurnEvent::ThinkingStart,
            delta("one"),
            end(100),
            answer("A"),
            TurnEvent::ThinkingStart,
            delta("two"),
            end(200),
            answer("B"),
            done(),
        ]);
        assert_eq!(turn.blocks.len(), 4);
        assert_eq!(thinking(&turn, 0).duration_ms, Some(100));
        assert_eq!(thinking(&turn, 2).duration_ms, Some(200));
        assert_eq!(turn.answer_text(), "AB");
    }

    #[test]
    fn empty_deltas_change_nothing() {
        let mut turn = Turn::new(0.0);
        assert!(turn.apply(answer(""), 0.0).is_empty());
        assert!(turn.blocks.is_empty());
        assert_eq!(turn.status, TurnStatus::Waiting);
    }

    #[test]
    fn stop_freezes_an_open_block_at_the_elapsed_time() {
        let mut turn = Turn::new(0.0);
        turn.apply(TurnEvent::ThinkingStart, 1000.0);
        turn.apply(delta("partial"), 2000.0);
        turn.stop(10_000.0);
        let t = thinking(&turn, 0);
        assert_eq!(t.state, BlockState::Interrupted);
        assert_eq!(t.duration_ms, Some(9000));
        assert_eq!(t.text, "partial");
        assert_eq!(turn.status, TurnStatus::Stopped);
        // Nothing counts after the end.
        assert!(turn.apply(delta("late"), 11_000.0).is_empty());
    }

    #[test]
    fn error_mid_thinking_marks_the_block_interrupted_and_keeps_text() {
        let turn = run(vec![
            TurnEvent::ThinkingStart,
            delta("half a thought"),
            end(900),
            TurnEvent::error(ErrorKind::Network, "connection lost"),
        ]);
        let t = thinking(&turn, 0);
        assert_eq!(t.state, BlockState::Interrupted);
        assert_eq!(t.duration_ms, Some(900));
        assert_eq!(turn.status, TurnStatus::Error);
        assert_eq!(
            turn.error.as_ref().map(|e| e.kind),
            Some(ErrorKind::Network)
        );
    }

    #[test]
    fn answer_was_thinking_moves_answer_text_into_a_finished_block() {
        let turn = run(vec![
            answer("I should check "),
            answer("the units."),
            TurnEvent::AnswerWasThinking { duration_ms: 700 },
            answer("42"),
            done(),
        ]);
        assert_eq!(turn.blocks.len(), 2);
        let t = thinking(&turn, 0);
        assert_eq!(t.text, "I should check the units.");
        assert_eq!(t.duration_ms, Some(700));
        assert_eq!(turn.answer_text(), "42");
    }

    #[test]
    fn opaque_flag_only_sticks_to_blocks_without_text() {
        let turn = run(vec![
            TurnEvent::ThinkingStart,
            TurnEvent::ThinkingEnd {
                duration_ms: 8000,
                opaque: true,
            },
            answer("x"),
            done(),
        ]);
        assert!(thinking(&turn, 0).opaque);
        assert!(!thinking(&turn, 0).is_empty());
        let turn = run(vec![
            TurnEvent::ThinkingStart,
            delta("\n\n"),
            end(5),
            answer("x"),
        ]);
        assert!(thinking(&turn, 0).is_empty());
    }

    #[test]
    fn usage_events_add_up_and_thinking_without_answer_is_detected() {
        let turn = run(vec![
            TurnEvent::ThinkingStart,
            delta("hmm"),
            end(5),
            TurnEvent::Usage(Usage {
                reasoning_tokens: Some(10),
                ..Usage::default()
            }),
            TurnEvent::Usage(Usage {
                reasoning_tokens: Some(5),
                ..Usage::default()
            }),
            TurnEvent::Done {
                finish_reason: Some("length".into()),
                output_limit: None,
            },
        ]);
        assert_eq!(turn.usage.and_then(|u| u.reasoning_tokens), Some(15));
        assert!(turn.thought_without_answer());
    }

    #[test]
    fn turn_round_trips_through_json_with_the_documented_block_shape() {
        let turn = run(vec![
            TurnEvent::ThinkingStart,
            delta("t"),
            end(1),
            answer("a"),
            done(),
        ]);
        let json = serde_json::to_value(&turn).unwrap();
        assert_eq!(json["blocks"][0]["kind"], "thinking");
        assert_eq!(json["blocks"][0]["duration_ms"], 1);
        assert_eq!(json["blocks"][0]["state"], "done");
        assert_eq!(json["blocks"][1]["kind"], "answer");
        assert_eq!(json["status"], "done");
        let back: Turn = serde_json::from_value(json).unwrap();
        assert_eq!(back.blocks, turn.blocks);
    }

    #[test]
    fn a_delta_without_a_start_opens_a_block_instead_of_losing_the_text() {
        let mut turn = Turn::new(0.0);
        let changes = turn.apply(delta("orphan reasoning"), 50.0);
        assert_eq!(turn.blocks.len(), 1, "the text must land in a block");
        let t = thinking(&turn, 0);
        assert_eq!(t.text, "orphan reasoning");
        assert_eq!(t.state, BlockState::Streaming);
        assert_eq!(t.started_at_ms, 50.0, "the live timer starts at the delta");
        assert_eq!(turn.status, TurnStatus::Thinking);
        assert!(
            matches!(&changes[0], Change::Opened(Block::Thinking(t)) if t.text.is_empty()),
            "{changes:?}"
        );
        assert!(
            changes.contains(&Change::Appended {
                index: 0,
                text: "orphan reasoning".into()
            }),
            "{changes:?}"
        );
    }

    #[test]
    fn done_with_a_block_open_closes_it_at_the_elapsed_time() {
        let mut turn = Turn::new(0.0);
        turn.apply(TurnEvent::ThinkingStart, 1_000.0);
        turn.apply(delta("still going"), 1_500.0);
        let changes = turn.apply(done(), 4_000.0);
        let t = thinking(&turn, 0);
        assert_ne!(t.state, BlockState::Streaming, "no block may stay open");
        assert_eq!(t.state, BlockState::Interrupted);
        assert_eq!(t.duration_ms, Some(3_000), "frozen at done, from its start");
        assert_eq!(t.text, "still going");
        assert_eq!(turn.status, TurnStatus::Done);
        assert!(updates(&changes, 0), "{changes:?}");
    }

    #[test]
    fn thinking_after_answer_was_thinking_opens_a_new_block() {
        let turn = run(vec![
            answer("prefilled reasoning"),
            TurnEvent::AnswerWasThinking { duration_ms: 300 },
            TurnEvent::ThinkingStart,
            delta("second thoughts"),
            end(200),
            answer("42"),
            done(),
        ]);
        assert_eq!(turn.blocks.len(), 3, "{:?}", turn.blocks);
        let first = thinking(&turn, 0);
        assert_eq!(first.text, "prefilled reasoning");
        assert_eq!(first.duration_ms, Some(300));
        let second = thinking(&turn, 1);
        assert_eq!(second.text, "second thoughts");
        assert_eq!(second.duration_ms, Some(200));
        assert_eq!(turn.answer_text(), "42");
        // A delta with no start after the conversion must not reopen the
        // converted block either.
        let turn = run(vec![
            answer("prefilled"),
            TurnEvent::AnswerWasThinking { duration_ms: 300 },
            delta("more"),
            done(),
        ]);
        assert_eq!(thinking(&turn, 0).text, "prefilled");
        assert_eq!(thinking(&turn, 1).text, "more");
    }

    #[test]
    fn answer_was_thinking_with_a_block_still_open_leaves_nothing_open_at_the_end() {
        // A contract-breaking order (seen by the fuzz target): answer text, a
        // thinking block left open, then the lone-close conversion and `done`.
        let turn = run(vec![
            answer("prefilled"),
            TurnEvent::ThinkingStart,
            TurnEvent::AnswerWasThinking { duration_ms: 136 },
            done(),
        ]);
        assert!(
            turn.blocks.iter().all(|b| !matches!(
                b,
                Block::Thinking(Thinking {
                    state: BlockState::Streaming,
                    ..
                })
            )),
            "{:?}",
            turn.blocks
        );
        assert_eq!(thinking(&turn, 1).text, "prefilled");
    }
}

/// The changes carry all a view needs: a mirror built from them alone, as the
/// browser's `TurnView` is, equals the turn after every event.
#[cfg(test)]
mod change_tests {
    use proptest::prelude::*;

    use super::*;

    /// What a view keeps of one block.
    #[derive(Debug, PartialEq)]
    struct MirrorBlock {
        thinking: bool,
        text: String,
        meta: Option<ThinkingMeta>,
        tool: Option<ToolStep>,
    }

    impl MirrorBlock {
        fn of(block: &Block) -> Self {
            match block {
                Block::Thinking(t) => Self {
                    thinking: true,
                    text: t.text.clone(),
                    meta: Some(t.meta()),
                    tool: None,
                },
                Block::Answer { text } => Self {
                    thinking: false,
                    text: text.clone(),
                    meta: None,
                    tool: None,
                },
                // As `TurnView` keeps it: the arguments in the text, the
                // step beside (its arguments as of its last update).
                Block::Tool(step) => Self {
                    thinking: false,
                    text: step.arguments.clone(),
                    meta: None,
                    tool: Some(ToolStep {
                        arguments: String::new(),
                        ..step.clone()
                    }),
                },
            }
        }
    }

    /// A view that never reads the turn after creating itself.
    #[derive(Debug, PartialEq)]
    struct Mirror {
        blocks: Vec<MirrorBlock>,
        progress: TurnProgress,
    }

    impl Mirror {
        fn new(turn: &Turn) -> Self {
            Self {
                blocks: turn.blocks.iter().map(MirrorBlock::of).collect(),
                progress: turn.progress(),
            }
        }

        fn sync(&mut self, changes: Vec<Change>) {
            for change in changes {
                match change {
                    Change::Opened(block) => self.blocks.push(MirrorBlock::of(&block)),
                    Change::Appended { index, text } => {
                        let block = &mut self.blocks[index];
                        block.text.push_str(&text);
                        // Arguments appended: they stream (as `TurnView` marks it).
                        if let Some(step) = block.tool.as_mut() {
                            step.streamed = true;
                        }
                    }
                    Change::Updated { index, meta } => self.blocks[index].meta = Some(meta),
                    Change::Restructured(blocks) => {
                        self.blocks = blocks.iter().map(MirrorBlock::of).collect();
                    }
                    Change::ToolUpdated { index, step } => {
                        self.blocks[index].text = step.arguments.clone();
                        self.blocks[index].tool = Some(ToolStep {
                            arguments: String::new(),
                            ..step
                        });
                    }
                    Change::Status(progress) => self.progress = progress,
                }
            }
        }
    }

    fn event() -> impl Strategy<Value = TurnEvent> {
        let text = "[a-z <>/*\n]{0,12}|<topic>[a-z ]{1,8}</topic>\n|\\*\\*[A-Z][a-z]{1,6}\\*\\*\n";
        prop_oneof![
            Just(TurnEvent::ThinkingStart),
            text.prop_map(|text| TurnEvent::ThinkingDelta { text }),
            (0u64..20_000, any::<bool>()).prop_map(|(duration_ms, opaque)| {
                TurnEvent::ThinkingEnd {
                    duration_ms,
                    opaque,
                }
            }),
            text.prop_map(|text| TurnEvent::AnswerDelta { text }),
            (0u64..5_000).prop_map(|duration_ms| TurnEvent::AnswerWasThinking { duration_ms }),
            (0u64..100).prop_map(|n| TurnEvent::Usage(Usage {
                reasoning_tokens: Some(n),
                ..Usage::default()
            })),
            Just(TurnEvent::Done {
                finish_reason: None,
                output_limit: None,
            }),
            Just(TurnEvent::Error {
                kind: ErrorKind::Network,
                message: "lost".into()
            }),
            prop_oneof![Just("a"), Just("b")].prop_map(|id| TurnEvent::ToolCallStart {
                id: id.into(),
                name: "builtin__calculate".into(),
                server: "builtin".into(),
            }),
            (prop_oneof![Just("a"), Just("b")], "[a-z{}\":]{1,6}").prop_map(|(id, text)| {
                TurnEvent::ToolCallDelta {
                    id: id.into(),
                    text,
                }
            }),
            (
                prop_oneof![Just("a"), Just("b")],
                prop_oneof![
                    Just(crate::turn::Approval::Needed),
                    Just(crate::turn::Approval::NotNeeded),
                    Just(crate::turn::Approval::Held),
                ]
            )
                .prop_map(|(id, approval)| TurnEvent::ToolCallReady {
                    id: id.into(),
                    arguments: serde_json::json!({"expression": "1+1"}),
                    approval,
                }),
            prop_oneof![Just("a"), Just("b")].prop_map(|id| TurnEvent::ToolResult {
                id: id.into(),
                status: crate::turn::ToolStatus::Ok,
                output: "2".into(),
                truncated_bytes: 0,
                duration_ms: 5,
            }),
        ]
    }

    proptest! {
        #[test]
        fn a_view_built_from_the_changes_alone_equals_the_turn(
            events in proptest::collection::vec(event(), 0..24),
            stop_at_end in any::<bool>(),
        ) {
            let mut turn = Turn::new(0.0);
            let mut mirror = Mirror::new(&turn);
            for (i, event) in events.into_iter().enumerate() {
                let changes = turn.apply(event.clone(), 100.0 * i as f64);
                mirror.sync(changes);
                prop_assert_eq!(&mirror, &Mirror::new(&turn), "after {:?}", event);
            }
            if stop_at_end {
                mirror.sync(turn.stop(1e6));
                prop_assert_eq!(&mirror, &Mirror::new(&turn));
            }
        }
    }
}

/// "Continue" on an answer cut at the output limit.
#[cfg(test)]
mod continue_tests {
    use super::*;

    fn done(reason: &str) -> TurnEvent {
        TurnEvent::Done {
            finish_reason: Some(reason.into()),
            output_limit: Some(16_000),
        }
    }

    #[test]
    fn a_cut_answer_goes_on_in_the_same_block_and_keeps_its_state_through_storage() {
        let mut turn = Turn::new(0.0);
        turn.apply(
            TurnEvent::AnswerDelta {
                text: "At sunset the light crosses".into(),
            },
            1.0,
        );
        turn.apply(done("length"), 2.0);
        assert_eq!(turn.output_limit, Some(16_000));
        let stored: Turn = serde_json::from_str(&serde_json::to_string(&turn).unwrap()).unwrap();
        assert_eq!(stored.finish_reason.as_deref(), Some("length"));
        assert_eq!(stored.output_limit, Some(16_000), "survives a reload");
        let changes = turn.resume_to_continue(3.0);
        assert_eq!(turn.status, TurnStatus::Waiting);
        assert!(matches!(changes.last(), Some(Change::Status(p)) if p.finish_reason.is_none()));
        turn.apply(
            TurnEvent::AnswerDelta {
                text: " more air.".into(),
            },
            4.0,
        );
        turn.apply(done("stop"), 5.0);
        assert_eq!(
            turn.blocks,
            vec![Block::Answer {
                text: "At sunset the light crosses more air.".into()
            }]
        );
        assert!(
            turn.resume_to_continue(6.0).is_empty(),
            "a whole answer is not continued"
        );
    }
}
