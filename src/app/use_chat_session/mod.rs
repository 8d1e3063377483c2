//! The conversation shown and its turns: send, stop, retry, edit, the
//! versions of a turn, the model, the live clock and the status line, and
//! saving it (when, `autosave` decides; where, `history`).
//!
//! The pure `Conversation` (with the live reducer `Turn` inside) is the source
//! of truth; `MessageView`s mirror it for rendering, one signal per block, fed
//! by the `Change`s the reducer returns.
//!
//! This module holds the handle and what shows a conversation; each other
//! job has its own module: `sending` (a turn sent, streamed, stopped,
//! continued), `answer_now`, `tool_decisions`, `versions` (retry, edit,
//! switch), `saving` (saves, a refused save, the page leaving) and
//! `settings` (model, effort, tool servers).

use futures::future::AbortHandle;
use leptos::prelude::*;

mod answer_now;
mod saving;
mod sending;
mod settings;
mod tool_decisions;
mod versions;

use super::api::{PublicModel, PublicToolServer};
use super::autosave::Autosave;
use super::history;
use super::later::{later, now_or_later};
use super::message_view::{MessageView, MessageViews};
use super::use_notices::UseNoticesReturn;
use crate::turn::message::{Conversation, Summary};
use crate::turn::{ChatRequest, Effort};

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
    /// The live turn's connection broke and the page is attaching again
    /// (shown above the composer, not only announced).
    pub reconnecting: Signal<bool>,
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
    set_reconnecting: WriteSignal<bool>,
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
    let (reconnecting, set_reconnecting) = signal(false);
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
        reconnecting: reconnecting.into(),
        current_id: current_id.into(),
        first_rendered,
        model: model.into(),
        effort: effort.into(),
        tools_off: tools_off.into(),
        set_messages,
        set_clock,
        set_announcement,
        set_reconnecting,
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
        now_or_later(show_now(*self, conversation));
    }

    fn show_here(&self, conversation: Conversation) {
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
        self.resume_if_following();
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
        now_or_later(clear_now(*self));
    }

    fn clear_here(&self) {
        self.leave_running_turn();
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
}

// Showing a conversation (which may attach to its running turn) and
// clearing it are the turn chunk's (super::super::later).
later! {
    turn,
    fn show_now(session: UseChatSessionReturn, conversation: Conversation) {
        session.show_here(conversation)
    }
}

later! {
    turn,
    fn clear_now(session: UseChatSessionReturn) {
        session.clear_here()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::message::Message;

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
}
