//! What the conversation view renders per message, and where those views are
//! made: each gets a key of its own (the list's identity across edits and
//! retries), and its signals are created under the page's reactive owner, not
//! under the component whose handler happened to run (Retry disposes that one).

use leptos::prelude::*;

use super::turn_view::TurnView;
use crate::turn::message::Message;
use crate::turn::versions::VersionPosition;

/// One rendered message.
#[derive(Clone)]
pub enum MessageView {
    User {
        key: usize,
        content: String,
        /// Which version of its turn is shown, when it has several (a new
        /// view is made whenever that changes).
        versions: Option<VersionPosition>,
    },
    Assistant {
        key: usize,
        turn: TurnView,
    },
}

impl MessageView {
    pub fn key(&self) -> usize {
        match self {
            MessageView::User { key, .. } | MessageView::Assistant { key, .. } => *key,
        }
    }
}

/// Makes message views for one page (a `Copy` handle).
#[derive(Clone, Copy)]
pub struct MessageViews {
    next_key: StoredValue<usize>,
    owner: StoredValue<Owner>,
}

impl MessageViews {
    /// Views made later live as long as the owner current now (the page's).
    pub fn new() -> Self {
        Self {
            next_key: StoredValue::new(0),
            owner: StoredValue::new(Owner::current().unwrap_or_default()),
        }
    }

    /// A fresh view of `message`, with a key no other view of this page has.
    pub fn view_of(&self, message: &Message) -> MessageView {
        let key = self.next_key.get_value();
        self.next_key.set_value(key + 1);
        self.owner.get_value().with(|| match message {
            Message::User { content, versions } => MessageView::User {
                key,
                content: content.clone(),
                versions: versions.as_ref().and_then(|v| v.position()),
            },
            Message::Assistant(turn) => MessageView::Assistant {
                key,
                turn: TurnView::new(turn),
            },
        })
    }
}

impl Default for MessageViews {
    fn default() -> Self {
        Self::new()
    }
}
