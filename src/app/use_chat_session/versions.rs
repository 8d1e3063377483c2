//! Versions of a turn: Retry and Regenerate ask a turn again, an edited
//! question is asked as a new version, and the version switcher (or a
//! search result) shows another. Only between turns: the live turn must
//! stay the conversation's last message.

use leptos::prelude::*;

use super::UseChatSessionReturn;
use crate::app::message_view::MessageView;
use crate::turn::message::Message;

impl UseChatSessionReturn {
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
}
