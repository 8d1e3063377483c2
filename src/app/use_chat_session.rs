//! The conversation shown and its turns: send, stop, retry, edit, the
//! versions of a turn, the model, the live clock and the status line, and
//! saving it (when, `autosave` decides; where, `history`).
//!
//! The pure `Conversation` (with the live reducer `Turn` inside) is the source
//! of truth; `MessageView`s mirror it for rendering, one signal per block, fed
//! by the `Change`s the reducer returns.

use futures::future::{AbortHandle, Abortable};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::api::{request_answer_now, tool_decision, PublicModel, PublicToolServer};
use super::autosave::Autosave;
use super::browser::{now_ms, random_id, wall_ms};
use super::history;
use super::message_view::{MessageView, MessageViews};
use super::turn_client::stream_turn;
use super::turn_view::TurnView;
use super::use_notices::UseNoticesReturn;
use crate::turn::duration::{format_duration, DurationStyle::Spoken};
use crate::turn::message::{Conversation, Message, Summary};
use crate::turn::reducer::{Change, Turn, TurnModel, TurnStatus};
use crate::turn::request::keep_end;
use crate::turn::tool_listing::enabled_servers;
use crate::turn::turn_footer::is_cut_off;

/// Most characters of the reasoning so far that "Answer now" sends back (the
/// server fits it into one message of at most 200,000).
const REASONING_SENT_CHARS: usize = 200_000;
use crate::turn::{AnswerNow, ChatRequest, Decision, Effort, TurnEvent};

/// How many of its latest messages a conversation renders when it opens;
/// "Show earlier" adds as many again. Laying out every message of a long
/// conversation at once blocked the page for seconds (10,000 turns: 23 s).
pub const RENDER_WINDOW: usize = 60;

/// The shown conversation and what the user can do with it (a `Copy` handle).
#[derive(Clone, Copy)]
pub struct UseChatSessionReturn {
    conversation: StoredValue<Conversation>,
    /// What the conversation view renders, in order.
    pub messages: Signal<Vec<MessageView>>,
    /// The streaming turn's abort handle, while one streams.
    running: RwSignal<Option<AbortHandle>>,
    /// Now, ticking while a turn streams (for the Thinking block's timer).
    pub clock: Signal<f64>,
    /// The polite status line (never the streaming text).
    pub announcement: Signal<String>,
    /// The id of the conversation shown ("" until its first message).
    pub current_id: Signal<String>,
    /// The index of the first message rendered: those before it wait behind
    /// "Show earlier" until asked for.
    pub first_rendered: Signal<usize>,
    /// The model picked for this conversation (`None`: the server's default).
    pub model: Signal<Option<String>>,
    /// The reasoning effort the next message asks for (`None`: the model's
    /// default); the effort picker keeps it per model (`pick_effort`).
    pub effort: Signal<Option<Effort>>,
    /// The tool servers switched off for the shown conversation (the Tools
    /// control; kept with the conversation).
    pub tools_off: Signal<Vec<String>>,
    // The write halves of the signals above: only this hook's methods
    // change what it hands out.
    set_messages: WriteSignal<Vec<MessageView>>,
    set_clock: WriteSignal<f64>,
    set_announcement: WriteSignal<String>,
    set_current_id: WriteSignal<String>,
    set_first_rendered: WriteSignal<usize>,
    set_model: WriteSignal<Option<String>>,
    set_effort: WriteSignal<Option<Effort>>,
    set_tools_off: WriteSignal<Vec<String>>,
    /// The server's tool servers (`POST /api/tool_servers`), so a request
    /// can name the ones left on.
    tool_servers: StoredValue<Vec<PublicToolServer>>,
    /// Conversations, newest first: a save moves the shown one to the top.
    index: RwSignal<Vec<Summary>>,
    notices: UseNoticesReturn,
    autosave: StoredValue<Autosave>,
    views: MessageViews,
    /// The page is going away (`pagehide`): what is on screen has been saved,
    /// and the stream's end that the unload causes is not the turn's outcome.
    leaving: StoredValue<bool>,
    /// The request of the streaming turn (with its `turn_id`), for "Answer now".
    live_request: StoredValue<Option<ChatRequest>>,
    /// Counts the streams started: a stream replaced by "Answer now" must not
    /// end the turn when its task winds down.
    stream_generation: StoredValue<u64>,
    /// The server's models (`POST /api/models`), so each turn can name the
    /// model that wrote it.
    models: StoredValue<Vec<PublicModel>>,
    /// Tools the user allowed for a whole conversation, by conversation id
    /// (kept for this tab's life, sent with each request).
    allowed_tools: StoredValue<std::collections::HashMap<String, Vec<String>>>,
    /// The id of the shown conversation when its latest save was refused:
    /// then it lives only on screen, and showing another keeps it first.
    unsaved: StoredValue<Option<String>>,
}

/// A session showing an empty conversation; saves go to `index`'s history
/// and their failures to `notices`.
pub fn use_chat_session(
    index: RwSignal<Vec<Summary>>,
    notices: UseNoticesReturn,
) -> UseChatSessionReturn {
    let (messages, set_messages) = signal(Vec::new());
    let (clock, set_clock) = signal(0.0);
    let (announcement, set_announcement) = signal(String::new());
    let (current_id, set_current_id) = signal(String::new());
    let (first_asked, set_first_rendered) = signal(0_usize);
    // Never past the latest window: a conversation that got shorter (a
    // version with fewer turns) still shows its latest messages.
    let first_rendered = Signal::derive(move || {
        first_asked
            .get()
            .min(messages.with(|m: &Vec<MessageView>| m.len().saturating_sub(RENDER_WINDOW)))
    });
    let (model, set_model) = signal(None);
    let (effort, set_effort) = signal(None);
    let (tools_off, set_tools_off) = signal(Vec::new());
    UseChatSessionReturn {
        conversation: StoredValue::new(Conversation::new(String::new(), 0.0)),
        messages: messages.into(),
        running: RwSignal::new(None),
        clock: clock.into(),
        announcement: announcement.into(),
        current_id: current_id.into(),
        first_rendered,
        model: model.into(),
        effort: effort.into(),
        tools_off: tools_off.into(),
        set_messages,
        set_clock,
        set_announcement,
        set_current_id,
        set_first_rendered,
        set_model,
        set_effort,
        set_tools_off,
        tool_servers: StoredValue::new(Vec::new()),
        index,
        notices,
        autosave: StoredValue::new(Autosave::default()),
        views: MessageViews::new(),
        leaving: StoredValue::new(false),
        live_request: StoredValue::new(None),
        models: StoredValue::new(Vec::new()),
        stream_generation: StoredValue::new(0),
        allowed_tools: StoredValue::new(Default::default()),
        unsaved: StoredValue::new(None),
    }
}

impl UseChatSessionReturn {
    /// Whether a turn streams (tracked: for views).
    pub fn running(&self) -> Signal<bool> {
        let running = self.running;
        Signal::derive(move || running.with(Option::is_some))
    }

    /// Whether a turn streams right now (untracked: for handlers).
    pub fn is_running(&self) -> bool {
        self.running.with_untracked(Option::is_some)
    }

    /// Reads the shown conversation.
    pub fn with_conversation<R>(&self, read: impl FnOnce(&Conversation) -> R) -> R {
        self.conversation.with_value(read)
    }

    /// Shows a conversation (loaded from history, imported, undeleted).
    pub fn show(&self, conversation: Conversation) {
        // Compared only when a refused save left something to keep.
        if self.unsaved.with_value(Option::is_some)
            && self.conversation.with_value(|c| *c != conversation)
        {
            self.keep_unsaved_before_leaving();
        }
        self.set_current_id.set(conversation.id.clone());
        if conversation.model.is_some() {
            self.set_model.set(conversation.model.clone());
        }
        self.set_tools_off.set(conversation.tools_off.clone());
        let views = conversation
            .messages
            .iter()
            .map(|m| self.views.view_of(m))
            .collect();
        let opened = self.conversation.with_value(|c| c.id != conversation.id);
        let count = conversation.messages.len();
        self.conversation.set_value(conversation);
        if opened {
            self.set_first_rendered
                .set(count.saturating_sub(RENDER_WINDOW));
        }
        self.set_messages.set(views);
    }

    /// "Show earlier": renders up to [`RENDER_WINDOW`] more of the messages
    /// before the first one rendered.
    pub fn show_earlier(&self) {
        let first = self.first_rendered.get_untracked();
        self.set_first_rendered
            .set(first.saturating_sub(RENDER_WINDOW));
    }

    /// Makes sure message `at` is rendered (a search result opens it).
    pub fn render_from(&self, at: usize) {
        if self.first_rendered.get_untracked() > at {
            self.set_first_rendered.set(at);
        }
    }

    /// Shows an empty conversation (stored once its first message is sent),
    /// and a reload shows one too.
    pub fn clear(&self) {
        self.stop_if_running();
        self.keep_unsaved_before_leaving();
        self.conversation
            .set_value(Conversation::new(String::new(), 0.0));
        self.set_messages.set(Vec::new());
        self.set_first_rendered.set(0);
        self.set_current_id.set(String::new());
        self.set_tools_off.set(Vec::new());
        history::clear_current();
    }

    /// Renames the shown conversation.
    pub fn rename(&self, title: String) {
        self.conversation.update_value(|c| c.title = title);
        self.save();
    }

    /// Starts a turn for the user's text.
    pub fn send(&self, text: String) {
        self.ask(text, None);
    }

    /// Asks `text`: at the end of the conversation, or (`again_at`) as a new
    /// version of the turn whose question is at that index, the version shown
    /// until now kept with what followed it (`turn::versions`).
    fn ask(&self, text: String, again_at: Option<usize>) {
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

    /// Streams `request` into the live turn (given a fresh `turn_id`), until
    /// it ends, Stop is pressed, or "Answer now" replaces it.
    fn start_stream(&self, mut request: ChatRequest) {
        request.turn_id = Some(random_id());
        let conversation = self.current_id.get_untracked();
        request.allowed_tools = self
            .allowed_tools
            .with_value(|allowed| allowed.get(&conversation).cloned().unwrap_or_default());
        request.tools = self.conversation.with_value(|c| {
            self.tool_servers
                .with_value(|known| enabled_servers(known, &c.tools_off))
        });
        self.live_request.set_value(Some(request.clone()));
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
        spawn_local(async move {
            let turn = stream_turn(request, move |event| session.apply(event));
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

    /// The user decided on call `call_id` of the live turn (a call that asks
    /// first); "Allow in this conversation" also lets that tool run without
    /// asking in this conversation's later turns.
    pub fn decide(&self, call_id: String, decision: Decision) {
        let Some(turn_id) = self
            .live_request
            .with_value(|r| r.as_ref().and_then(|r| r.turn_id.clone()))
        else {
            return;
        };
        if decision == Decision::AllowConversation {
            let tool = self.conversation.with_value(|c| match c.messages.last() {
                Some(Message::Assistant(turn)) => turn
                    .tool_steps()
                    .find(|step| step.id == call_id)
                    .map(|step| step.name.clone()),
                _ => None,
            });
            let conversation = self.current_id.get_untracked();
            if let Some(tool) = tool {
                self.allowed_tools.update_value(|allowed| {
                    let list = allowed.entry(conversation).or_default();
                    if !list.contains(&tool) {
                        list.push(tool);
                    }
                });
            }
        }
        spawn_local(async move {
            // Refused or unreachable: the call waits until its deadline and
            // counts as denied; the step says so when its result comes.
            let _ = tool_decision(turn_id, call_id, decision).await;
        });
    }

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
        self.update_live_turn(|turn| turn.cut_short_to_ask_again(now, control_failed));
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
            let request = ChatRequest {
                messages: c.to_chat_messages(),
                model: c.model.clone(),
                effort,
                ..ChatRequest::default()
            };
            let mut turn = Turn::new(now);
            let model = self.models.with_value(|models| {
                let id = c.model.as_deref();
                models
                    .iter()
                    .find(|m| Some(m.id.as_str()) == id)
                    .or_else(|| models.first().filter(|_| id.is_none()))
                    .cloned()
            });
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

    /// The page is going away: keep the conversation as it stands now
    /// (`save`: unless that was just done when the page was hidden). The
    /// connection the unload cuts ends the stream with an error a moment
    /// later; that is not what happened to the turn (a reload shows it
    /// stopped where it was), so nothing after this is applied or saved.
    pub fn page_leaving(&self, save: bool) {
        if save {
            self.save();
        }
        self.leaving.set_value(true);
    }

    /// The page came back from the back/forward cache: carry on as before.
    pub fn page_shown_again(&self) {
        self.leaving.set_value(false);
    }

    /// Folds one event into the live turn and its view.
    fn apply(&self, event: TurnEvent) {
        if self.leaving.get_value() || self.live_view().is_none() {
            return; // the conversation changed under a late event
        }
        let now = now_ms();
        if let Some(text) = announcement_for(&event) {
            self.set_announcement.set(text);
        }
        self.update_live_turn(|turn| turn.apply(event, now));
        super::browser::count_applied_event();
        if self.autosave.with_value(|a| a.is_due(now)) {
            self.save();
        }
    }

    /// Changes the live turn (the conversation's last message) and passes
    /// what changed to its view.
    fn update_live_turn(&self, change: impl FnOnce(&mut Turn) -> Vec<Change>) {
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
    fn live_key(&self) -> Option<usize> {
        self.messages
            .with_untracked(|m| m.last().map(MessageView::key))
    }

    fn live_view(&self) -> Option<TurnView> {
        self.messages.with_untracked(|m| match m.last() {
            Some(MessageView::Assistant { turn, .. }) => Some(*turn),
            _ => None,
        })
    }

    /// Where the message shown with `key` is, when no turn is running (history
    /// may only be rewritten between turns).
    fn idle_index_of(&self, key: usize) -> Option<usize> {
        if self.is_running() {
            return None;
        }
        self.messages
            .with_untracked(|m| m.iter().position(|v| v.key() == key))
    }

    /// Retry the turn shown with `key`: the last turn is asked again as a new
    /// version (the attempt is kept), an older one is asked again at the end.
    pub fn retry(&self, key: usize) {
        let Some(index) = self.idle_index_of(key) else {
            return;
        };
        let is_last = self.messages.with_untracked(|m| index + 1 == m.len());
        let user_text = self.conversation.with_value(|c| {
            match index.checked_sub(1).and_then(|i| c.messages.get(i)) {
                Some(Message::User { content, .. }) => Some(content.clone()),
                _ => None,
            }
        });
        let Some(text) = user_text else { return };
        if is_last {
            self.ask(text, Some(index - 1));
        } else {
            self.send(text);
        }
    }

    /// Asks `text` as a new version of the turn whose question is shown with
    /// `key`: the earlier question, its answer and the turns after it stay,
    /// as the version before.
    pub fn edit_and_resend(&self, key: usize, text: String) {
        let Some(index) = self.idle_index_of(key) else {
            return;
        };
        self.ask(text, Some(index));
    }

    /// Shows version `target` (from 0) of the turn whose question is shown
    /// with `key`, with the later turns that version had. Not while a turn
    /// streams: the live turn must stay the conversation's last message.
    pub fn show_version(&self, key: usize, target: usize) {
        let Some(at) = self.idle_index_of(key) else {
            return;
        };
        self.show_version_at(at, target);
    }

    /// Shows the versions a search result is in, outermost first (each as
    /// the index of its turn's question and the version).
    pub fn show_versions(&self, path: &[(usize, usize)]) {
        if self.is_running() {
            return;
        }
        for &(at, target) in path {
            self.show_version_at(at, target);
        }
    }

    fn show_version_at(&self, at: usize, target: usize) {
        let switched = self
            .conversation
            .try_update_value(|c| c.show_version(at, target))
            .unwrap_or(false);
        if !switched {
            return;
        }
        let (views, position): (Vec<MessageView>, _) = self.conversation.with_value(|c| {
            let views = c
                .messages
                .iter()
                .skip(at)
                .map(|m| self.views.view_of(m))
                .collect();
            (views, c.version_position(at))
        });
        self.set_messages.update(|m| {
            m.truncate(at);
            m.extend(views);
        });
        if let Some(position) = position {
            self.set_announcement.set(format!(
                "Showing version {} of {}",
                position.shown + 1,
                position.count
            ));
        }
        self.save();
    }

    /// Stop pressed: freeze the turn where it is.
    pub fn stop(&self) {
        if let Some(handle) = self.running.get_untracked() {
            handle.abort();
        }
        let now = now_ms();
        self.update_live_turn(|turn| turn.stop(now));
        self.set_announcement.set("Stopped".into());
        self.finish_turn();
    }

    /// Stops the streaming turn, if one streams, before the conversation shown changes.
    pub fn stop_if_running(&self) {
        if self.is_running() {
            self.stop();
        }
    }

    fn finish_turn(&self) {
        if self.is_running() {
            self.running.set(None);
        }
        self.live_request.set_value(None);
        if !self.leaving.get_value() {
            self.save();
        }
    }

    /// Saves the shown conversation and makes it the one a reload shows.
    pub fn save(&self) {
        let now = now_ms();
        if self.conversation.with_value(|c| c.id.is_empty()) {
            self.autosave.update_value(|a| a.skipped(now));
            return; // nothing sent yet: nothing to keep
        }
        let mut index = self.index.get_untracked();
        let session = *self;
        let result = self.conversation.with_value(|c| {
            history::set_current(&c.id);
            let id = c.id.clone();
            history::save(c, &mut index, now, move |saved| session.saved(id, saved))
        });
        self.index.set(index);
        let took = now_ms() - now;
        let streaming = self.is_running();
        self.autosave
            .update_value(|a| a.saved(now, took, streaming));
        match result {
            Ok(bytes) => super::browser::record_save(now, took, bytes),
            Err(message) => self.notices.say(message),
        }
    }

    /// How the save of conversation `id` ended. A refused record is kept:
    /// on screen while the conversation is shown (marked, so that showing
    /// another offers it first), else at once as a download.
    fn saved(&self, id: String, saved: history::Saved) {
        let shown = self.conversation.with_value(|c| c.id == id);
        match saved {
            history::Saved::Stored => {}
            history::Saved::Unlisted(message) => self.notices.say(message),
            history::Saved::NotStored { reason, record } => {
                self.notices.say(reason);
                if shown {
                    self.unsaved.set_value(Some(id));
                } else {
                    let title = crate::turn::message::decode(&record)
                        .map(|c| c.title)
                        .unwrap_or_default();
                    self.offer_recovery(&title, record);
                }
                return;
            }
        }
        if shown {
            self.unsaved.set_value(None);
        }
    }

    /// Before the shown conversation gives way to another: when its latest
    /// save was refused, it is nowhere else (the quick copy is the next
    /// one's), so the page offers it as a file to import later.
    fn keep_unsaved_before_leaving(&self) {
        let Some(id) = self.unsaved.get_value() else {
            return;
        };
        self.unsaved.set_value(None);
        let kept = self.conversation.with_value(|c| {
            (c.id == id).then(|| (c.title.clone(), crate::turn::message::encode(c, now_ms())))
        });
        if let Some((title, record)) = kept {
            self.offer_recovery(&title, record);
        }
    }

    fn offer_recovery(&self, title: &str, record: String) {
        self.notices.push(history::Notice {
            message: format!(
                "\u{201c}{title}\u{201d} could not be saved and is no longer on screen. \
                 Download it to keep it, and import it once there is room: nothing else holds it."
            ),
            backup: Some(record),
        });
    }

    /// The server's models, once listed.
    pub fn know_models(&self, models: Vec<PublicModel>) {
        self.models.set_value(models);
    }

    /// "Continue" on the last turn, cut at the output limit: asks the model
    /// to go on from where it stopped; the rest joins the same answer
    /// (`server::continuation`, docs/decisions.md).
    pub fn continue_answer(&self) {
        let cut = self.with_conversation(
            |c| matches!(c.messages.last(), Some(Message::Assistant(turn)) if is_cut_off(turn)),
        );
        if self.is_running() || !cut {
            return;
        }
        let now = now_ms();
        self.update_live_turn(|turn| turn.resume_to_continue(now));
        if let Some(view) = self.live_view() {
            view.started_at_ms.set(now);
        }
        let request = self.with_conversation(|c| ChatRequest {
            messages: c.to_chat_messages(),
            model: c.model.clone(),
            continue_answer: true,
            ..ChatRequest::default()
        });
        self.set_clock.set(now);
        self.set_announcement.set("Continuing".into());
        self.save();
        self.start_stream(request);
    }

    /// The user picked a model: this conversation uses it from now on.
    pub fn pick_model(&self, id: String) {
        self.set_model.set(Some(id.clone()));
        self.conversation.update_value(|c| c.model = Some(id));
        self.save();
    }

    /// The server's tool servers, once listed.
    pub fn know_tool_servers(&self, servers: Vec<PublicToolServer>) {
        self.tool_servers.set_value(servers);
    }

    /// The user switched tool server `name` on or off for this conversation:
    /// its next requests offer the model only the servers left on.
    pub fn switch_tool_server(&self, name: String, on: bool) {
        let mut off = self.tools_off.get_untracked();
        off.retain(|server| *server != name);
        if !on {
            off.push(name);
        }
        self.conversation
            .update_value(|c| c.tools_off = off.clone());
        self.set_tools_off.set(off);
        self.save();
    }

    /// The effort the next message asks for: the user's pick, or the
    /// remembered one of a newly chosen model (the effort picker's).
    pub fn pick_effort(&self, effort: Option<Effort>) {
        self.set_effort.set(effort);
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
        TurnEvent::Error { message, .. } => Some(format!("Error: {message}")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::ErrorKind;

    #[test]
    fn what_the_session_hands_out_changes_through_its_methods() {
        let owner = Owner::new();
        owner.with(|| {
            let notices = super::super::use_notices::use_notices();
            let session = use_chat_session(RwSignal::new(Vec::new()), notices);
            session.pick_model("m2".into());
            session.pick_effort(Some(Effort::Low));
            assert_eq!(session.model.get_untracked().as_deref(), Some("m2"));
            assert_eq!(session.effort.get_untracked(), Some(Effort::Low));
            let mut shown = Conversation::new("c1".into(), 0.0);
            shown.messages.push(Message::user("hi"));
            session.show(shown);
            assert_eq!(session.current_id.get_untracked(), "c1");
            assert_eq!(session.messages.with_untracked(Vec::len), 1);
            session.switch_tool_server("builtin".into(), false);
            assert_eq!(session.tools_off.get_untracked(), ["builtin"]);
            assert_eq!(
                session.with_conversation(|c| c.tools_off.clone()),
                ["builtin"]
            );
            session.switch_tool_server("builtin".into(), true);
            assert!(session.tools_off.get_untracked().is_empty());
            session.switch_tool_server("files".into(), false);
            session.clear();
            assert_eq!(session.current_id.get_untracked(), "");
            assert!(session.messages.with_untracked(Vec::is_empty));
            assert!(
                session.tools_off.get_untracked().is_empty(),
                "a new conversation has every server on"
            );
        });
    }

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
