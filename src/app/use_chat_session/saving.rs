//! Keeping the shown conversation: saves (when, `autosave` decides; where,
//! `history`), what a refused save leaves (kept on screen, then offered as
//! a download before the conversation gives way), and the page going away
//! and coming back.

use leptos::prelude::*;

use super::UseChatSessionReturn;
use crate::app::browser::now_ms;
use crate::app::history;
use crate::app::later::{later, now_or_later};

impl UseChatSessionReturn {
    /// Saves the shown conversation and makes it the one a reload shows.
    pub fn save(&self) {
        now_or_later(save_now(*self));
    }

    fn save_here(&self) {
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
            Ok(bytes) => crate::app::browser::record_save(now, took, bytes),
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
    pub(super) fn keep_unsaved_before_leaving(&self) {
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
}

// Saving is the turn chunk's (crate::app::later): until a conversation has
// been shown or sent (which loads the chunk) there is nothing to save.
later! {
    turn,
    fn save_now(session: UseChatSessionReturn) {
        session.save_here()
    }
}
