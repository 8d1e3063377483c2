//! The conversation list: load it after hydration, follow other tabs' saves,
//! start a new conversation, switch, rename, delete and undo the delete.
//! What is shown is the session's; this hook decides which conversation that is.

use leptos::prelude::*;

use super::browser::now_ms;
use super::history;
use super::later::{later, now_or_later};
use super::use_chat_session::UseChatSessionReturn;
use super::use_notices::UseNoticesReturn;
use crate::turn::message::{Conversation, Summary};

/// The conversation list and its actions (a `Copy` handle).
#[derive(Clone, Copy)]
pub struct UseConversationsReturn {
    /// Conversations, newest first.
    pub index: Signal<Vec<Summary>>,
    /// The conversation last deleted, for Undo.
    pub deleted: Signal<Option<Conversation>>,
    // The write halves, for this hook's methods (the session's saves and
    // imports write the list too: ChatPage gives it to them at construction).
    set_index: WriteSignal<Vec<Summary>>,
    set_deleted: WriteSignal<Option<Conversation>>,
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
    let (deleted, set_deleted) = signal(None);
    let conversations = UseConversationsReturn {
        index: index.into(),
        deleted: deleted.into(),
        set_index: index.write_only(),
        set_deleted,
        session,
        notices,
    };
    // Another tab saved or deleted (IndexedDB fires no `storage` event: the
    // other tab says so on a BroadcastChannel once its write committed).
    history::listen(move || conversations.refresh_from_storage());
    conversations
}

impl UseConversationsReturn {
    /// Loads history (after hydration: the server cannot see the browser's
    /// storage). What localStorage holds shows at once; IndexedDB's answer
    /// follows. `known(has_messages)` is called once the conversation to show
    /// is known: at once when its quick-restore copy was there, else when
    /// IndexedDB has answered.
    pub fn load_history(&self, known: impl FnOnce(bool) + 'static) {
        now_or_later(load_history_now(*self, Box::new(known)));
    }

    /// Another tab changed history: refresh the list, and the shown
    /// conversation unless a turn is streaming here (last writer wins).
    pub fn refresh_from_storage(&self) {
        if self.session.is_running() {
            return;
        }
        let this = *self;
        now_or_later(refresh_now(this));
    }

    /// Starts an empty conversation (saved once its first message is sent).
    pub fn new_conversation(&self) {
        self.session.clear();
    }

    /// Shows another stored conversation; `then` runs once it is shown.
    pub fn switch(&self, id: String) {
        self.open(id, |_| {});
    }

    /// Shows stored conversation `id`, then calls `then` with it shown (or
    /// not: `false` when it could not be read).
    pub fn open(&self, id: String, then: impl FnOnce(bool) + 'static) {
        if self.session.current_id.get_untracked() == id {
            then(true);
            return;
        }
        self.session.leave_running_turn();
        let this = *self;
        // `then` may make effects: under the page's owner.
        let owner = Owner::current();
        let then = move |shown: bool| match &owner {
            Some(owner) => owner.with(|| then(shown)),
            None => then(shown),
        };
        now_or_later(open_now(this, id, Box::new(then)));
    }

    /// Renames a conversation (the shown one or another).
    pub fn rename(&self, id: String, title: String) {
        if self.session.current_id.get_untracked() == id {
            self.session.rename(title);
            return;
        }
        let this = *self;
        now_or_later(rename_now(this, id, title));
    }

    /// Deletes a conversation; `undo_delete` brings it back.
    pub fn delete(&self, id: String) {
        let is_current = self.session.current_id.get_untracked() == id;
        if is_current {
            self.session.stop_if_running();
        }
        let this = *self;
        now_or_later(delete_now(this, id, is_current));
    }
    /// Restores the conversation deleted last, and shows it.
    pub fn undo_delete(&self) {
        let Some(conversation) = self.deleted.get_untracked() else {
            return;
        };
        self.set_deleted.set(None);
        self.session.leave_running_turn();
        self.session.show(conversation);
        self.session.save();
    }

    /// The user dismissed the Undo offer: the deleted conversation is gone.
    pub fn dismiss_undo(&self) {
        self.set_deleted.set(None);
    }
}

// Reading stored conversations is the turn chunk's (super::later): a first
// visit has none, and the list comes a moment after the page is interactive.
later! {
    turn,
    fn load_history_now(this: UseConversationsReturn, known: Box<dyn FnOnce(bool)>) {
        let quick = history::load_quick();
        this.set_index.set(quick.index);
        let shown_at_once = quick.conversation.is_some();
        if let Some(conversation) = quick.conversation {
            this.session.show(conversation);
        }
        this.notices.show_all(quick.notices);
        let mut known = Some(known);
        if shown_at_once {
            if let Some(known) = known.take() {
                known(true);
            }
        }
        // `known` may make effects (the reveal): under the page's owner.
        let owner = Owner::current();
        leptos::task::spawn_local(async move {
            let settled = history::settle().await;
            this.set_index.set(settled.index);
            for notice in settled.notices {
                this.notices.push(notice);
            }
            // The user may have moved on meanwhile (a new conversation, a
            // send): only a page still showing what loading showed changes.
            let untouched = !this.session.is_running()
                && (this.session.current_id.get_untracked().is_empty() && !shown_at_once
                    || settled
                        .conversation
                        .as_ref()
                        .is_some_and(|c| this.session.current_id.get_untracked() == c.id));
            if let Some(conversation) = settled.conversation.filter(|_| untouched) {
                // Every save writes the quick copy (or removes it) before
                // IndexedDB: a quick copy that differs from the stored
                // record is from a save that did not commit (refused, or the
                // page went away first). It is the newer: keep it, store it.
                let differs = this.session.with_conversation(|c| *c != conversation);
                if shown_at_once && differs {
                    this.session.save();
                } else if differs {
                    this.session.show(conversation);
                }
            }
            if let Some(known) = known.take() {
                let has_messages = !this.session.messages.with_untracked(Vec::is_empty);
                match owner {
                    Some(owner) => owner.with(|| known(has_messages)),
                    None => known(has_messages),
                }
            }
        });
    }
}

later! {
    turn,
    fn refresh_now(this: UseConversationsReturn) {
        leptos::task::spawn_local(async move {
            let loaded = history::load_quick();
            this.set_index.set(loaded.index);
            // What the other tab's change revealed (e.g. a newer version's
            // history) is said once, however many events follow.
            for notice in loaded.notices {
                this.notices.push(notice);
            }
            let id = this.session.current_id.get_untracked();
            if id.is_empty() || this.session.is_running() {
                return;
            }
            match history::load(&id).await {
                Ok(conversation) => {
                    if this.session.current_id.get_untracked() == id
                        && !this.session.is_running()
                        && this.session.with_conversation(|c| *c != conversation)
                    {
                        this.session.show(conversation);
                    }
                }
                Err(_) => {
                    if this.session.current_id.get_untracked() == id {
                        this.new_conversation();
                    }
                }
            }
        });
    }
}

later! {
    turn,
    fn open_now(
        this: UseConversationsReturn,
        id: String,
        then: Box<dyn FnOnce(bool)>,
    ) {
        leptos::task::spawn_local(async move {
            match history::load(&id).await {
                Ok(conversation) => {
                    this.session.show(conversation);
                    this.session.save();
                    then(true);
                }
                Err(notice) => {
                    this.notices.push(notice);
                    this.refresh_from_storage();
                    then(false);
                }
            }
        });
    }
}

later! {
    turn,
    fn rename_now(
        this: UseConversationsReturn,
        id: String,
        title: String,
    ) {
        leptos::task::spawn_local(async move {
            if let Ok(mut conversation) = history::load(&id).await {
                conversation.title = title;
                let mut index = this.index.get_untracked();
                let notices = this.notices;
                let saved =
                    history::save(
                        &conversation,
                        &mut index,
                        now_ms(),
                        move |saved| match saved {
                            history::Saved::Stored => {}
                            history::Saved::Unlisted(message)
                            | history::Saved::NotStored {
                                reason: message, ..
                            } => notices.say(message),
                        },
                    );
                if let Err(message) = saved {
                    this.notices.say(message);
                }
                this.set_index.set(index);
            }
        });
    }
}

later! {
    turn,
    fn delete_now(
        this: UseConversationsReturn,
        id: String,
        is_current: bool,
    ) {
        leptos::task::spawn_local(async move {
            let removed = if is_current {
                Some(this.session.with_conversation(Conversation::clone))
            } else {
                history::load(&id).await.ok()
            };
            if let Err(message) = history::delete(&id).await {
                this.notices.say(message);
                return;
            }
            if is_current && this.session.current_id.get_untracked() == id {
                this.new_conversation();
            }
            this.set_index.update(|index| index.retain(|s| s.id != id));
            this.set_deleted.set(removed);
        });
    }
}
