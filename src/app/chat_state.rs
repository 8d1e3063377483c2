//! The chat page's state and what the user can do with it: send, stop, retry,
//! and the conversation list (new, switch, rename, delete, undo).
//!
//! The pure `Conversation` (with the live reducer `Turn` inside) is the source of
//! truth; `TurnView`s mirror it for rendering, one signal per block. When a
//! streaming turn is saved is `autosave`'s to decide.
//!
//! Longer than the ~450 lines a file keeps here (≈ 530): it still holds four
//! jobs (the session, the conversation list, notices, import/export); the
//! split into `use_*` hooks is issue 14's open item, planned in the closing
//! note of 2026-12-01.

use futures::future::{AbortHandle, Abortable};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::autosave::Autosave;
use super::browser::{now_ms, wall_ms};
use super::history::{self, Notice};
use super::turn_client::stream_turn;
use super::turn_view::TurnView;
use crate::turn::duration::{format_duration, DurationStyle::Spoken};
use crate::turn::message::{Conversation, Message, Summary};
use crate::turn::reducer::Turn;
use crate::turn::{ChatRequest, TurnEvent};

/// One rendered message.
#[derive(Clone)]
pub enum MessageView {
    User { key: usize, content: String },
    Assistant { key: usize, turn: TurnView },
}

impl MessageView {
    pub fn key(&self) -> usize {
        match self {
            MessageView::User { key, .. } | MessageView::Assistant { key, .. } => *key,
        }
    }
}

/// The page's state, shared by its handlers (all fields are `Copy` handles).
#[derive(Clone, Copy)]
pub struct ChatState {
    conversation: StoredValue<Conversation>,
    pub messages: RwSignal<Vec<MessageView>>,
    pub running: RwSignal<Option<AbortHandle>>,
    pub clock: RwSignal<f64>,
    pub notices: RwSignal<Vec<Notice>>,
    pub announcement: RwSignal<String>,
    /// Conversations, newest first.
    pub index: RwSignal<Vec<Summary>>,
    /// The id of the conversation shown ("" until its first message).
    pub current_id: RwSignal<String>,
    /// The conversation last deleted, for Undo.
    pub deleted: RwSignal<Option<Conversation>>,
    /// The model picked for this conversation (`None`: the server's default).
    pub model: RwSignal<Option<String>>,
    /// When the streaming turn may be saved next.
    autosave: StoredValue<Autosave>,
    next_key: StoredValue<usize>,
    /// The page's reactive owner: message signals are created under it, not
    /// under the component whose handler happened to run (Retry disposes that one).
    owner: StoredValue<Owner>,
}

impl ChatState {
    pub fn new() -> Self {
        Self {
            conversation: StoredValue::new(Conversation::new(String::new(), 0.0)),
            messages: RwSignal::new(Vec::new()),
            running: RwSignal::new(None),
            clock: RwSignal::new(0.0),
            notices: RwSignal::new(Vec::new()),
            announcement: RwSignal::new(String::new()),
            index: RwSignal::new(Vec::new()),
            current_id: RwSignal::new(String::new()),
            deleted: RwSignal::new(None),
            model: RwSignal::new(None),
            autosave: StoredValue::new(Autosave::default()),
            next_key: StoredValue::new(0),
            owner: StoredValue::new(Owner::current().unwrap_or_default()),
        }
    }

    fn key(&self) -> usize {
        let key = self.next_key.get_value();
        self.next_key.set_value(key + 1);
        key
    }

    fn view_of(&self, message: &Message) -> MessageView {
        let owner = self.owner.get_value();
        owner.with(|| self.view_in_owner(message))
    }

    fn view_in_owner(&self, message: &Message) -> MessageView {
        match message {
            Message::User { content } => MessageView::User {
                key: self.key(),
                content: content.clone(),
            },
            Message::Assistant(turn) => MessageView::Assistant {
                key: self.key(),
                turn: TurnView::new(turn),
            },
        }
    }

    /// Loads history (after hydration: the server cannot see localStorage).
    pub fn load_history(&self) {
        let loaded = history::load_all();
        self.index.set(loaded.index);
        if let Some(conversation) = loaded.conversation {
            self.show(conversation);
        }
        if !loaded.notices.is_empty() {
            self.notices.update(|n| n.extend(loaded.notices));
        }
    }

    /// Another tab changed history: refresh the list, and the shown
    /// conversation unless a turn is streaming here (last writer wins).
    pub fn refresh_from_storage(&self) {
        if self.running.get_untracked().is_some() {
            return;
        }
        let loaded = history::load_all();
        self.index.set(loaded.index);
        // What the other tab's change revealed (e.g. a newer version's
        // history) is said once, however many events follow.
        for notice in loaded.notices {
            self.push_notice(notice);
        }
        let id = self.current_id.get_untracked();
        if id.is_empty() {
            return;
        }
        match history::load(&id) {
            Ok(conversation) => {
                if self.conversation.with_value(|c| *c != conversation) {
                    self.show(conversation);
                }
            }
            Err(_) => self.new_conversation(),
        }
    }

    /// Shows a conversation loaded from history.
    fn show(&self, conversation: Conversation) {
        self.current_id.set(conversation.id.clone());
        if conversation.model.is_some() {
            self.model.set(conversation.model.clone());
        }
        let views = conversation
            .messages
            .iter()
            .map(|m| self.view_of(m))
            .collect();
        self.conversation.set_value(conversation);
        self.messages.set(views);
    }

    fn live_view(&self) -> Option<TurnView> {
        self.messages.with_untracked(|m| match m.last() {
            Some(MessageView::Assistant { turn, .. }) => Some(*turn),
            _ => None,
        })
    }

    /// Starts a turn for the user's text.
    pub fn send(&self, text: String) {
        let now = now_ms();
        let wall = wall_ms();
        let request = self.conversation.try_update_value(|c| {
            if c.id.is_empty() {
                *c = Conversation::new(format!("c{}", wall as u64), wall);
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
            c.messages.push(Message::User {
                content: text.clone(),
            });
            if c.model.is_none() {
                c.model = self.model.get_untracked();
            }
            let request = ChatRequest {
                messages: c.to_chat_messages(),
                model: c.model.clone(),
            };
            c.messages.push(Message::Assistant(Turn::new(now)));
            c.updated_at = wall;
            request
        });
        let Some(request) = request else { return };
        self.current_id
            .set(self.conversation.with_value(|c| c.id.clone()));
        let user = self.view_of(&Message::User { content: text });
        let turn = self.view_of(&Message::Assistant(Turn::new(now)));
        self.messages.update(|m| {
            m.push(user);
            m.push(turn);
        });
        self.clock.set(now);
        self.announcement.set("Thinking".into());
        self.save();

        let state = *self;
        let ticker = set_interval_with_handle(
            move || state.clock.set(now_ms()),
            std::time::Duration::from_millis(250),
        )
        .ok();
        let (handle, registration) = AbortHandle::new_pair();
        self.running.set(Some(handle));
        spawn_local(async move {
            let turn = stream_turn(request, move |event| state.apply(event));
            let _ = Abortable::new(turn, registration).await;
            if let Some(ticker) = ticker {
                ticker.clear();
            }
            state.finish_turn();
        });
    }

    /// Folds one event into the live turn and its view.
    fn apply(&self, event: TurnEvent) {
        let now = now_ms();
        let Some(view) = self.live_view() else { return };
        if let Some(text) = announcement_for(&event) {
            self.announcement.set(text);
        }
        let changes = self
            .conversation
            .try_update_value(|c| match c.messages.last_mut() {
                Some(Message::Assistant(turn)) => turn.apply(event, now),
                _ => Vec::new(),
            });
        view.sync(changes.unwrap_or_default());
        super::browser::count_applied_event();
        if self.autosave.with_value(|a| a.is_due(now)) {
            self.save();
        }
    }

    /// Where the message shown with `key` is, when no turn is running (history
    /// may only be rewritten between turns).
    fn idle_index_of(&self, key: usize) -> Option<usize> {
        if self.running.get_untracked().is_some() {
            return None;
        }
        self.messages
            .with_untracked(|m| m.iter().position(|v| v.key() == key))
    }

    /// Retry the turn shown with `key`: the last turn is replaced, an older one
    /// is asked again at the end.
    pub fn retry(&self, key: usize) {
        let Some(index) = self.idle_index_of(key) else {
            return;
        };
        let is_last = self.messages.with_untracked(|m| index + 1 == m.len());
        let user_text = self.conversation.with_value(|c| {
            match index.checked_sub(1).and_then(|i| c.messages.get(i)) {
                Some(Message::User { content }) => Some(content.clone()),
                _ => None,
            }
        });
        let Some(text) = user_text else { return };
        if is_last {
            self.conversation
                .update_value(|c| c.messages.truncate(index - 1));
            self.messages.update(|m| m.truncate(index - 1));
        }
        self.send(text);
    }

    /// Replaces the user message shown with `key` (and everything after it)
    /// with `text`, and asks again.
    pub fn edit_and_resend(&self, key: usize, text: String) {
        let Some(index) = self.idle_index_of(key) else {
            return;
        };
        self.conversation
            .update_value(|c| c.messages.truncate(index));
        self.messages.update(|m| m.truncate(index));
        self.send(text);
    }

    /// Stop pressed: freeze the turn where it is.
    pub fn stop(&self) {
        if let Some(handle) = self.running.get_untracked() {
            handle.abort();
        }
        let now = now_ms();
        if let Some(view) = self.live_view() {
            let changes = self
                .conversation
                .try_update_value(|c| match c.messages.last_mut() {
                    Some(Message::Assistant(turn)) => turn.stop(now),
                    _ => Vec::new(),
                });
            view.sync(changes.unwrap_or_default());
        }
        self.announcement.set("Stopped".into());
        self.finish_turn();
    }

    fn finish_turn(&self) {
        if self.running.get_untracked().is_some() {
            self.running.set(None);
        }
        self.save();
    }

    /// Saves the shown conversation and makes it the one a reload shows.
    fn save(&self) {
        let now = now_ms();
        if self.conversation.with_value(|c| c.id.is_empty()) {
            self.autosave.update_value(|a| a.skipped(now));
            return; // nothing sent yet: nothing to keep
        }
        let mut index = self.index.get_untracked();
        let result = self.conversation.with_value(|c| {
            history::set_current(&c.id);
            history::save(c, &mut index, now)
        });
        self.index.set(index);
        let took = now_ms() - now;
        let streaming = self.running.get_untracked().is_some();
        self.autosave
            .update_value(|a| a.saved(now, took, streaming));
        match result {
            Ok(bytes) => super::browser::record_save(now, took, bytes),
            Err(message) => self.notice(message),
        }
    }

    fn notice(&self, message: String) {
        self.push_notice(Notice {
            message,
            backup: None,
        });
    }

    /// Shows a notice unless the same one is already shown.
    fn push_notice(&self, notice: Notice) {
        self.notices.update(|n| {
            if !n.iter().any(|x| x.message == notice.message) {
                n.push(notice);
            }
        });
    }

    /// The user picked a model: this conversation uses it from now on.
    pub fn pick_model(&self, id: String) {
        self.model.set(Some(id.clone()));
        self.conversation.update_value(|c| c.model = Some(id));
        self.save();
    }

    /// Downloads the shown conversation as Markdown or JSON.
    pub fn export(&self, as_json: bool) {
        let mut failure = None;
        self.conversation.with_value(|c| {
            if as_json {
                let name = crate::turn::export::file_name(c, "json");
                super::browser::download(
                    &name,
                    "application/json",
                    &crate::turn::message::encode(c, now_ms()),
                );
            } else {
                // The exporter is in the renderer's module, loaded right
                // after hydration; before that (or if it failed) a notice says so.
                match super::lazy_renderer::export_markdown(c) {
                    Ok(markdown) => {
                        let name = crate::turn::export::file_name(c, "md");
                        super::browser::download(&name, "text/markdown", &markdown);
                    }
                    Err(message) => failure = Some(message),
                }
            }
        });
        if let Some(message) = failure {
            self.notice(message);
        }
    }

    /// Imports an exported JSON conversation; a bad file changes nothing.
    pub fn import(&self, raw: Result<String, String>) {
        let parsed = raw.and_then(|raw| {
            crate::turn::message::decode(&raw)
                .map_err(|e| format!("That file is not a Pensive conversation: {e}"))
        });
        match parsed {
            Ok(mut conversation) => {
                // Never over what is stored: storage itself is asked, since the
                // index here lists neither a newer version's records nor
                // another tab's latest.
                let taken = |id: &str| {
                    id.is_empty()
                        || history::is_stored(id)
                        || self.index.with_untracked(|i| i.iter().any(|s| s.id == id))
                };
                if taken(&conversation.id) {
                    let base = format!("c{}", wall_ms() as u64);
                    let mut id = base.clone();
                    for n in 1.. {
                        if !taken(&id) {
                            break;
                        }
                        id = format!("{base}-{n}");
                    }
                    conversation.id = id;
                }
                self.stop_if_running();
                self.show(conversation);
                self.save();
            }
            Err(message) => self.notice(format!("Import failed: {message} Nothing was changed.")),
        }
    }

    /// Starts an empty conversation (saved once its first message is sent).
    pub fn new_conversation(&self) {
        self.stop_if_running();
        self.conversation
            .set_value(Conversation::new(String::new(), 0.0));
        self.messages.set(Vec::new());
        self.current_id.set(String::new());
        history::clear_current();
    }

    /// Shows another stored conversation.
    pub fn switch(&self, id: String) {
        if self.current_id.get_untracked() == id {
            return;
        }
        self.stop_if_running();
        match history::load(&id) {
            Ok(conversation) => {
                self.show(conversation);
                self.save();
            }
            Err(notice) => {
                self.push_notice(notice);
                self.refresh_from_storage();
            }
        }
    }

    /// Renames a conversation (the shown one or another).
    pub fn rename(&self, id: String, title: String) {
        if self.current_id.get_untracked() == id {
            self.conversation.update_value(|c| c.title = title);
            self.save();
            return;
        }
        if let Ok(mut conversation) = history::load(&id) {
            conversation.title = title;
            let mut index = self.index.get_untracked();
            if let Err(message) = history::save(&conversation, &mut index, now_ms()) {
                self.notice(message);
            }
            self.index.set(index);
        }
    }

    /// Deletes a conversation; `undo_delete` brings it back.
    pub fn delete(&self, id: String) {
        let is_current = self.current_id.get_untracked() == id;
        let removed = if is_current {
            self.stop_if_running();
            Some(self.conversation.with_value(|c| c.clone()))
        } else {
            history::load(&id).ok()
        };
        let mut index = self.index.get_untracked();
        if let Err(message) = history::delete(&id, &mut index) {
            self.notice(message);
            return;
        }
        if is_current {
            self.new_conversation();
        }
        self.index.set(index);
        self.deleted.set(removed);
    }

    /// Restores the conversation deleted last, and shows it.
    pub fn undo_delete(&self) {
        let Some(conversation) = self.deleted.get_untracked() else {
            return;
        };
        self.deleted.set(None);
        self.stop_if_running();
        self.show(conversation);
        self.save();
    }

    fn stop_if_running(&self) {
        if self.running.get_untracked().is_some() {
            self.stop();
        }
    }
}

impl Default for ChatState {
    fn default() -> Self {
        Self::new()
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
