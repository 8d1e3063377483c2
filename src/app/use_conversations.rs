//! The conversation list: load it after hydration, follow other tabs' saves,
//! start a new conversation, switch, rename, delete and undo the delete.
//! What is shown is the session's; this hook decides which conversation that is.

use leptos::prelude::*;

use super::browser::now_ms;
use super::history;
use super::use_chat_session::UseChatSessionReturn;
use super::use_notices::UseNoticesReturn;
use crate::turn::message::{Conversation, Summary};

/// The conversation list and its actions (a `Copy` handle).
#[derive(Clone, Copy)]
pub struct UseConversationsReturn {
    /// Conversations, newest first.
    pub index: RwSignal<Vec<Summary>>,
    /// The conversation last deleted, for Undo.
    pub deleted: RwSignal<Option<Conversation>>,
    session: UseChatSessionReturn,
    notices: UseNoticesReturn,
}

/// The list of the conversations stored in this browser (`index`, shared
/// with the session, which moves the shown one to the top when it saves).
pub fn use_conversations(
    session: UseChatSessionReturn,
    index: RwSignal<Vec<Summary>>,
    notices: UseNoticesReturn,
) -> UseConversationsReturn {
    let conversations = UseConversationsReturn {
        index,
        deleted: RwSignal::new(None),
        session,
        notices,
    };
    // Another tab saved: refresh (the `storage` event fires only in other tabs).
    let _ = window_event_listener(leptos::ev::storage, move |ev| {
        if history::is_history_key(ev.key().as_deref()) {
            conversations.refresh_from_storage();
        }
    });
    conversations
}

impl UseConversationsReturn {
    /// Loads history (after hydration: the server cannot see localStorage).
    pub fn load_history(&self) {
        let loaded = history::load_all();
        self.index.set(loaded.index);
        if let Some(conversation) = loaded.conversation {
            self.session.show(conversation);
        }
        self.notices.show_all(loaded.notices);
    }

    /// Another tab changed history: refresh the list, and the shown
    /// conversation unless a turn is streaming here (last writer wins).
    pub fn refresh_from_storage(&self) {
        if self.session.is_running() {
            return;
        }
        let loaded = history::load_all();
        self.index.set(loaded.index);
        // What the other tab's change revealed (e.g. a newer version's
        // history) is said once, however many events follow.
        for notice in loaded.notices {
            self.notices.push(notice);
        }
        let id = self.session.current_id.get_untracked();
        if id.is_empty() {
            return;
        }
        match history::load(&id) {
            Ok(conversation) => {
                if self.session.with_conversation(|c| *c != conversation) {
                    self.session.show(conversation);
                }
            }
            Err(_) => self.new_conversation(),
        }
    }

    /// Starts an empty conversation (saved once its first message is sent).
    pub fn new_conversation(&self) {
        self.session.clear();
    }

    /// Shows another stored conversation.
    pub fn switch(&self, id: String) {
        if self.session.current_id.get_untracked() == id {
            return;
        }
        self.session.stop_if_running();
        match history::load(&id) {
            Ok(conversation) => {
                self.session.show(conversation);
                self.session.save();
            }
            Err(notice) => {
                self.notices.push(notice);
                self.refresh_from_storage();
            }
        }
    }

    /// Renames a conversation (the shown one or another).
    pub fn rename(&self, id: String, title: String) {
        if self.session.current_id.get_untracked() == id {
            self.session.rename(title);
            return;
        }
        if let Ok(mut conversation) = history::load(&id) {
            conversation.title = title;
            let mut index = self.index.get_untracked();
            if let Err(message) = history::save(&conversation, &mut index, now_ms()) {
                self.notices.say(message);
            }
            self.index.set(index);
        }
    }

    /// Deletes a conversation; `undo_delete` brings it back.
    pub fn delete(&self, id: String) {
        let is_current = self.session.current_id.get_untracked() == id;
        let removed = if is_current {
            self.session.stop_if_running();
            Some(self.session.with_conversation(Conversation::clone))
        } else {
            history::load(&id).ok()
        };
        let mut index = self.index.get_untracked();
        if let Err(message) = history::delete(&id, &mut index) {
            self.notices.say(message);
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
        self.session.stop_if_running();
        self.session.show(conversation);
        self.session.save();
    }
}
