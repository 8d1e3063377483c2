//! Sending a turn and following it as the server runs it: the question and
//! an empty turn join the conversation, the turn's log streams into the live
//! turn (one event at a time, each change passed to its view), and the turn
//! ends by itself, by Stop (here or in another tab), or is carried on by
//! "Continue". Leaving the conversation, or the page, only stops following
//! it: showing it again attaches to the server's run where the turn left
//! off (`turn_client`).

use futures::future::{AbortHandle, Abortable, LocalBoxFuture};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::answer_now::REASONING_SENT_CHARS;
use super::UseChatSessionReturn;
use crate::app::api::stop_turn;
use crate::app::browser::{now_ms, random_id, wall_ms};
use crate::app::later::{later, now_or_later};
use crate::app::message_view::MessageView;
use crate::app::turn_client::{follow_turn, Heard, Start};
use crate::app::turn_view::TurnView;
use crate::turn::duration::{format_duration, DurationStyle::Spoken};
use crate::turn::log_line::Stamp;
use crate::turn::message::{Conversation, Message};
use crate::turn::reducer::{Change, Turn, TurnModel, TurnRun};
use crate::turn::request::keep_end;
use crate::turn::tool_listing::enabled_servers;
use crate::turn::turn_error::TurnError;
use crate::turn::{ChatRequest, PublicModel, TurnEvent};

impl UseChatSessionReturn {
    /// Starts a turn for the user's text.
    pub fn send(&self, text: String) {
        now_or_later(send_now(*self, text));
    }

    /// Asks `text`: at the end of the conversation, or (`again_at`) as a new
    /// version of the turn whose question is at that index, the version shown
    /// until now kept with what followed it (`turn::versions`).
    pub(super) fn ask(&self, text: String, again_at: Option<usize>) {
        let now = now_ms();
        let Some(request) = self.append_user_turn(&text, now, again_at) else {
            return;
        };
        self.set_current_id
            .set(self.conversation.with_value(|c| c.id.clone()));
        // The question and its turn as the conversation holds them (with the
        // versions count and the effort it asks at).
        let views: Vec<MessageView> = self.conversation.with_value(|c| {
            let start = c.messages.len().saturating_sub(2);
            c.messages
                .iter()
                .skip(start)
                .map(|m| self.views.view_of(m))
                .collect()
        });
        self.set_messages.update(|m| {
            if let Some(at) = again_at {
                m.truncate(at);
            }
            m.extend(views);
        });
        self.set_clock.set(now);
        self.set_announcement.set("Thinking".into());
        self.save();
        self.start_stream(request);
    }

    /// Adds the user's message (at the end, or as a new version of the turn
    /// asked at `again_at`) and an empty turn to the conversation (giving a
    /// new one its id, title and model), and returns what to ask the server.
    fn append_user_turn(
        &self,
        text: &str,
        now: f64,
        again_at: Option<usize>,
    ) -> Option<ChatRequest> {
        let wall = wall_ms();
        let picked = self.model.get_untracked();
        let effort = self.effort.get_untracked();
        self.conversation.try_update_value(|c| {
            if c.id.is_empty() {
                // Switches set before the first message belong to it.
                let tools_off = std::mem::take(&mut c.tools_off);
                *c = Conversation::new(format!("c{}", wall as u64), wall);
                c.tools_off = tools_off;
            }
            if c.title.is_empty() {
                c.title = text
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .chars()
                    .take(60)
                    .collect();
            }
            match again_at {
                Some(at) => {
                    if !c.start_version(at, text.to_owned()) {
                        return None;
                    }
                }
                None => c.messages.push(Message::user(text)),
            }
            if c.model.is_none() {
                c.model = picked;
            }
            let model = self.model_of(c);
            let request = ChatRequest {
                // Continuity goes back to the model that will answer, the
                // server's default included (a conversation that never
                // picked one).
                messages: c.to_chat_messages_for(model.as_ref().map(|m| m.id.as_str())),
                model: c.model.clone(),
                effort,
                ..ChatRequest::default()
            };
            let mut turn = Turn::new(now);
            // What the server will use when the request names no effort.
            turn.effort = effort.or_else(|| model.as_ref().and_then(|m| m.default_effort));
            turn.model = model.map(|m| TurnModel {
                id: m.id,
                label: m.label,
            });
            c.messages.push(Message::Assistant(turn));
            c.updated_at = wall;
            Some(request)
        })?
    }

    /// The model a request for `c` goes to: the conversation's, or the
    /// server's default (the first listed) when it names none.
    fn model_of(&self, c: &Conversation) -> Option<PublicModel> {
        self.models.with_value(|models| {
            let id = c.model.as_deref();
            models
                .iter()
                .find(|m| Some(m.id.as_str()) == id)
                .or_else(|| models.first().filter(|_| id.is_none()))
                .cloned()
        })
    }

    /// Starts `request` as the live turn (given a fresh `turn_id` and the
    /// secret that lets this browser attach to it again) and follows it
    /// until it ends, Stop is pressed, or "Answer now" replaces it.
    pub(super) fn start_stream(&self, mut request: ChatRequest) {
        request.turn_id = Some(random_id()).filter(|id| !id.is_empty());
        request.turn_secret = Some(random_id()).filter(|secret| !secret.is_empty());
        let conversation = self.current_id.get_untracked();
        request.allowed_tools = self
            .allowed_tools
            .with_value(|allowed| allowed.get(&conversation).cloned().unwrap_or_default());
        request.tools = self.conversation.with_value(|c| {
            self.tool_servers
                .with_value(|known| enabled_servers(known, &c.tools_off))
        });
        if let (Some(turn_id), Some(secret)) = (&request.turn_id, &request.turn_secret) {
            let run = TurnRun {
                turn_id: turn_id.clone(),
                secret: secret.clone(),
                seq: 0,
                boot: None,
            };
            self.update_live_turn(|turn| {
                turn.run = Some(Box::new(run));
                Vec::new()
            });
        }
        self.live_request.set_value(Some(request.clone()));
        self.follow(Start::New(request));
    }

    /// Attaches to the live turn the server runs for this page (after a
    /// reload, or when its conversation is shown again), if there is one.
    pub(super) fn resume_if_following(&self) {
        if self.is_running() {
            return;
        }
        let found = self.with_conversation(|c| match c.messages.last() {
            Some(Message::Assistant(turn)) if turn.follows_a_run() => {
                let model = self.model_of(c);
                // What the turn was asked with, for "Answer now".
                let mut before = c.clone();
                before.messages.pop();
                let request = ChatRequest {
                    messages: before.to_chat_messages_for(model.as_ref().map(|m| m.id.as_str())),
                    model: c.model.clone(),
                    effort: turn.effort,
                    ..ChatRequest::default()
                };
                turn.run.as_deref().cloned().map(|run| (run, request))
            }
            _ => None,
        });
        let Some((run, mut request)) = found else {
            return;
        };
        request.turn_id = Some(run.turn_id.clone());
        self.live_request.set_value(Some(request));
        self.set_announcement.set("Reconnecting…".into());
        self.follow(Start::Attach {
            turn_id: run.turn_id,
            secret: run.secret,
            after: run.seq,
        });
    }

    /// Follows the turn `start` reaches into the live turn until it ends.
    fn follow(&self, start: Start) {
        let generation = self.stream_generation.get_value() + 1;
        self.stream_generation.set_value(generation);
        let session = *self;
        let ticker = set_interval_with_handle(
            move || session.set_clock.set(now_ms()),
            std::time::Duration::from_millis(250),
        )
        .ok();
        let (handle, registration) = AbortHandle::new_pair();
        self.running.set(Some(handle));
        let resuming = matches!(start, Start::Attach { .. });
        spawn_local(async move {
            let turn = async move { stream(session, start, resuming).await.await };
            let _ = Abortable::new(turn, registration).await;
            if let Some(ticker) = ticker {
                ticker.clear();
            }
            // A stream "Answer now" replaced hands the turn to the new one.
            if session.stream_generation.get_value() == generation {
                session.finish_turn();
            }
        });
    }

    /// What the follower heard, folded into the live turn.
    fn hear(&self, heard: Heard, clock: &mut ServerClock) {
        match heard {
            Heard::Event(stamp, event) => {
                let now = clock.page_time(stamp);
                self.apply(stamp, event, now);
            }
            Heard::Heartbeat { at_ms, boot } => {
                let began = clock.heartbeat(at_ms);
                if let Some(boot) = boot {
                    self.update_live_turn(|turn| {
                        turn.note_boot(&boot);
                        Vec::new()
                    });
                }
                if clock.take_resume() {
                    self.set_reconnecting.set(false);
                    self.update_live_turn(|turn| turn.resume_clock(began));
                    if let Some(view) = self.live_view() {
                        view.started_at_ms.set(began);
                    }
                    self.set_announcement.set("Reconnected".into());
                }
            }
            Heard::Reconnecting => {
                clock.reconnecting();
                self.set_reconnecting.set(true);
                self.set_announcement.set("Reconnecting…".into());
            }
            Heard::NotHeld { boot } => {
                let restarted = self.with_conversation(|c| match c.messages.last() {
                    Some(Message::Assistant(turn)) => turn
                        .run
                        .as_ref()
                        .and_then(|run| run.boot.as_deref())
                        .is_some_and(|known| known != boot),
                    _ => false,
                });
                let error = if restarted {
                    TurnError::ServerRestarted
                } else {
                    TurnError::NotHeld
                };
                self.apply(None, error.event(), now_ms());
            }
        }
    }

    /// Folds one event into the live turn and its view.
    fn apply(&self, stamp: Option<Stamp>, event: TurnEvent, now: f64) {
        if self.leaving.get_value() || self.live_view().is_none() {
            return; // the conversation changed under a late event
        }
        if let Some(text) = announcement_for(&event) {
            self.set_announcement.set(text);
        }
        // A terminal event lets go of the run, one said by the page too.
        self.update_live_turn(|turn| turn.apply_logged(stamp, event, now));
        crate::app::browser::count_applied_event();
        if self.autosave.with_value(|a| a.is_due(now_ms())) {
            self.save();
        }
    }

    /// Changes the live turn (the conversation's last message) and passes
    /// what changed to its view.
    pub(super) fn update_live_turn(&self, change: impl FnOnce(&mut Turn) -> Vec<Change>) {
        let Some(view) = self.live_view() else { return };
        let changes = self
            .conversation
            .try_update_value(|c| match c.messages.last_mut() {
                Some(Message::Assistant(turn)) => change(turn),
                _ => Vec::new(),
            });
        view.sync(changes.unwrap_or_default());
    }

    /// The key of the last message shown (which turn is live).
    pub(super) fn live_key(&self) -> Option<usize> {
        self.messages
            .with_untracked(|m| m.last().map(MessageView::key))
    }

    pub(super) fn live_view(&self) -> Option<TurnView> {
        self.messages.with_untracked(|m| match m.last() {
            Some(MessageView::Assistant { turn, .. }) => Some(*turn),
            _ => None,
        })
    }

    /// Stop pressed: freeze the turn where it is, and have the server stop
    /// it (its provider request closes; other tabs following it hear
    /// `stopped`).
    pub fn stop(&self) {
        now_or_later(stop_now(*self));
    }

    fn stop_here(&self) {
        if let Some(handle) = self.running.get_untracked() {
            handle.abort();
        }
        let now = now_ms();
        let mut run = None;
        self.update_live_turn(|turn| {
            run = turn.run.take();
            turn.stop(now)
        });
        if let Some(run) = run {
            spawn_local(async move {
                // A turn the server no longer holds is stopped already.
                let _ = stop_turn(run.turn_id, run.secret).await;
            });
        }
        self.set_announcement.set("Stopped".into());
        self.finish_turn();
    }

    /// Stops the streaming turn, if one streams (its conversation is being
    /// deleted).
    pub fn stop_if_running(&self) {
        if self.is_running() {
            self.stop();
        }
    }

    /// Stops following the live turn before the conversation shown changes:
    /// the server runs it on, and showing the conversation again attaches
    /// to it where it left off.
    pub fn leave_running_turn(&self) {
        if !self.is_running() {
            return;
        }
        // The follower's task winds down without ending the turn.
        self.set_reconnecting.set(false);
        self.stream_generation.update_value(|g| *g += 1);
        if let Some(handle) = self.running.get_untracked() {
            handle.abort();
        }
        self.running.set(None);
        self.live_request.set_value(None);
        if !self.leaving.get_value() {
            self.save();
        }
    }

    fn finish_turn(&self) {
        self.set_reconnecting.set(false);
        if self.is_running() {
            self.running.set(None);
        }
        self.live_request.set_value(None);
        if !self.leaving.get_value() {
            self.save();
        }
    }

    /// "Continue" on the last turn, cut at the output limit: asks the model
    /// to go on from where it stopped; the rest joins the same answer
    /// (`server::turn_service::continuation`, docs/decisions.md).
    pub fn continue_answer(&self) {
        let cut = self.with_conversation(
            |c| matches!(c.messages.last(), Some(Message::Assistant(turn)) if turn.is_cut_off()),
        );
        if self.is_running() || !cut {
            return;
        }
        // Cut while thinking: the model goes on from its reasoning so far
        // (its end, as Answer now sends it), not from the question again.
        let reasoning_so_far = self.with_conversation(|c| match c.messages.last() {
            Some(Message::Assistant(turn)) if turn.cut_while_thinking() => {
                let text = turn.reasoning_text();
                Some(keep_end(&text, REASONING_SENT_CHARS).map_or(text.clone(), str::to_owned))
            }
            _ => None,
        });
        let now = now_ms();
        self.update_live_turn(|turn| turn.resume_to_continue(now));
        if let Some(view) = self.live_view() {
            view.started_at_ms.set(now);
        }
        let announcement = if reasoning_so_far.is_some() {
            "Continuing from the reasoning so far"
        } else {
            "Continuing"
        };
        let request = self.with_conversation(|c| ChatRequest {
            messages: c.to_chat_messages_for(self.model_of(c).as_ref().map(|m| m.id.as_str())),
            model: c.model.clone(),
            continue_answer: true,
            reasoning_so_far,
            ..ChatRequest::default()
        });
        self.set_clock.set(now);
        self.set_announcement.set(announcement.into());
        self.save();
        self.start_stream(request);
    }
}

/// Maps the server's turn time onto this page's clock: a connection's
/// first heartbeat says where the server is in the turn, and every event's
/// `at_ms` is placed from there (a replayed event at the moment it happened).
struct ServerClock {
    /// This page's time when the server's turn began.
    began_at: Option<f64>,
    /// The next heartbeat puts the turn's timers on this page's clock (an
    /// attach after a reload or a return).
    resume: bool,
}

impl ServerClock {
    fn new(resuming: bool) -> Self {
        Self {
            began_at: None,
            resume: resuming,
        }
    }

    /// Notes a heartbeat at `at_ms`; returns when the turn began on this
    /// page's clock.
    fn heartbeat(&mut self, at_ms: u64) -> f64 {
        let began = now_ms() - at_ms as f64;
        self.began_at = Some(began);
        began
    }

    /// A reconnection: the next heartbeat says the connection is back.
    fn reconnecting(&mut self) {
        self.resume = true;
    }

    fn take_resume(&mut self) -> bool {
        std::mem::take(&mut self.resume)
    }

    /// The page time of an event stamped `stamp` (now, without a stamp).
    fn page_time(&self, stamp: Option<Stamp>) -> f64 {
        match (self.began_at, stamp) {
            (Some(began), Some(stamp)) => began + stamp.at_ms as f64,
            _ => now_ms(),
        }
    }
}

// Sending, following a turn (its log read, folded by the reducer into the
// live turn) and stopping it are the turn chunk's (crate::app::later): a
// first visit sends nothing.
later! {
    turn,
    fn send_now(session: UseChatSessionReturn, text: String) {
        session.ask(text, None)
    }
}

later! {
    turn,
    fn stop_now(session: UseChatSessionReturn) {
        session.stop_here()
    }
}

later! {
    turn,
    fn stream(
        session: UseChatSessionReturn,
        start: Start,
        resuming: bool,
    ) -> LocalBoxFuture<'static, ()> {
        let mut clock = ServerClock::new(resuming);
        Box::pin(follow_turn(start, move |heard| session.hear(heard, &mut clock)))
    }
}

/// What the polite status line says for an event (never the streaming text).
fn announcement_for(event: &TurnEvent) -> Option<String> {
    match event {
        TurnEvent::ThinkingStart => Some("Thinking".into()),
        TurnEvent::ThinkingEnd { duration_ms, .. } => Some(format!(
            "Thought for {}",
            format_duration(*duration_ms as f64, Spoken)
        )),
        TurnEvent::Done { .. } => Some("Answer complete".into()),
        TurnEvent::Stopped => Some("Stopped".into()),
        TurnEvent::Error { message, .. } => Some(format!("Error: {message}")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::ErrorKind;

    #[test]
    fn the_status_line_says_what_happened_and_never_the_streaming_text() {
        assert_eq!(
            announcement_for(&TurnEvent::ThinkingStart).as_deref(),
            Some("Thinking")
        );
        let ended = TurnEvent::ThinkingEnd {
            duration_ms: 12_000,
            opaque: false,
        };
        assert_eq!(
            announcement_for(&ended).as_deref(),
            Some("Thought for 12 seconds")
        );
        let failed = TurnEvent::error(ErrorKind::Network, "The connection was lost.");
        assert_eq!(
            announcement_for(&failed).as_deref(),
            Some("Error: The connection was lost.")
        );
        assert_eq!(
            announcement_for(&TurnEvent::ThinkingDelta {
                text: "secret plan".into()
            }),
            None
        );
    }
}
