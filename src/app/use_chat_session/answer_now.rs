//! "Answer now" while the live turn thinks: a provider with a control ends
//! the thinking in the same stream; for any other the stream is dropped and
//! the turn asked again with its reasoning so far.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::UseChatSessionReturn;
use crate::app::api::{request_answer_now, stop_turn};
use crate::app::browser::now_ms;
use crate::turn::message::Message;
use crate::turn::reducer::TurnStatus;
use crate::turn::request::keep_end;
use crate::turn::{AnswerNow, Effort};

/// Most characters of the reasoning so far that "Answer now" sends back (the
/// server fits it into one message of at most 200,000).
pub(super) const REASONING_SENT_CHARS: usize = 200_000;

impl UseChatSessionReturn {
    /// "Answer now" pressed while the live turn thinks: a provider with a
    /// control (llama.cpp) ends the thinking in the same stream; for any
    /// other, the stream is dropped and the turn asked again, at the model's
    /// weakest effort, with the reasoning so far (docs/decisions.md).
    pub fn answer_now(&self) {
        let Some(turn_id) = self
            .live_request
            .with_value(|r| r.as_ref().and_then(|r| r.turn_id.clone()))
        else {
            return;
        };
        // The block the user pressed on: the provider may end it before the
        // reply to the press is back.
        let Some(pressed_on) = self
            .conversation
            .try_update_value(|c| match c.messages.last_mut() {
                Some(Message::Assistant(turn)) => turn.open_thinking_index(),
                _ => None,
            })
            .flatten()
        else {
            return;
        };
        let pressed_in = self.live_key();
        let session = *self;
        spawn_local(async move {
            // Unreachable or refused: asking again needs nothing from the server.
            let outcome =
                request_answer_now(turn_id.clone())
                    .await
                    .unwrap_or(AnswerNow::AskAgain {
                        effort: None,
                        control_failed: false,
                    });
            let same_turn = session.live_request.with_value(|r| {
                r.as_ref().and_then(|r| r.turn_id.as_deref()) == Some(turn_id.as_str())
            });
            match outcome {
                // The same stream ends the thinking (it may have already):
                // the block is marked even if the turn has ended meanwhile.
                AnswerNow::Ended if session.live_key() == pressed_in => {
                    session.update_live_turn(|turn| turn.mark_cut_short(pressed_on));
                    session.save();
                }
                AnswerNow::AskAgain {
                    effort,
                    control_failed,
                } if same_turn && session.is_running() => session.ask_again(effort, control_failed),
                _ => {} // the turn was stopped or replaced meanwhile
            }
        });
    }

    /// Drops the live stream and asks again at `effort` (`None`: the server
    /// picks the model's weakest) with the turn's reasoning so far; the open
    /// block ends "Cut short". Nothing to do once the answer has begun.
    fn ask_again(&self, effort: Option<Effort>, control_failed: bool) {
        let thinking = self.with_conversation(|c| {
            matches!(c.messages.last(), Some(Message::Assistant(turn)) if turn.status == TurnStatus::Thinking)
        });
        let Some(mut request) = self.live_request.get_value().filter(|_| thinking) else {
            return;
        };
        // The old stream's task must not end the turn: it is replaced.
        self.stream_generation.update_value(|g| *g += 1);
        if let Some(handle) = self.running.get_untracked() {
            handle.abort();
        }
        let now = now_ms();
        let mut replaced = None;
        self.update_live_turn(|turn| {
            replaced = turn.run.take();
            turn.cut_short_to_ask_again(now, control_failed)
        });
        // Its end is what matters, and the server keeps at most a message's
        // worth: a reasoning of megabytes must not make the request too large.
        request.reasoning_so_far = self.with_conversation(|c| match c.messages.last() {
            Some(Message::Assistant(turn)) => {
                let text = turn.reasoning_text();
                Some(keep_end(&text, REASONING_SENT_CHARS).map_or(text.clone(), str::to_owned))
            }
            _ => None,
        });
        request.effort = effort;
        self.set_announcement.set("Answering now".into());
        self.save();
        // The server stops the old turn first: it would hold one of the
        // client's turns (and the provider's) until it ended by itself.
        let session = *self;
        spawn_local(async move {
            if let Some(run) = replaced {
                let _ = stop_turn(run.turn_id, run.secret).await;
            }
            session.start_stream(request);
        });
    }
}
