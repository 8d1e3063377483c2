//! The user's decision on a tool call that asks first, sent to the server
//! for the live turn with the call as its step showed it (id, tool, digest);
//! "Allow in this conversation" is remembered for the conversation's later
//! turns (for this tab's life), for the tool of the step that was clicked.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::UseChatSessionReturn;
use crate::app::api::tool_decision;
use crate::turn::message::Message;
use crate::turn::reducer::ToolState;
use crate::turn::tool::ShownCall;
use crate::turn::Decision;

impl UseChatSessionReturn {
    /// The user decided on `call`, a step of the live turn that asks first;
    /// "Allow in this conversation" also lets that step's tool run without
    /// asking in this conversation's later turns. A call that is not a
    /// waiting step of the live turn (a stored one, or one already answered)
    /// is not sent.
    pub fn decide(&self, call: ShownCall, decision: Decision) {
        let Some(turn_id) = self
            .live_request
            .with_value(|r| r.as_ref().and_then(|r| r.turn_id.clone()))
        else {
            return;
        };
        if !self.is_waiting_in_live_turn(&call) {
            return;
        }
        if decision == Decision::AllowConversation {
            let conversation = self.current_id.get_untracked();
            self.allowed_tools.update_value(|allowed| {
                let list = allowed.entry(conversation).or_default();
                if !list.contains(&call.name) {
                    list.push(call.name.clone());
                }
            });
        }
        spawn_local(async move {
            // Refused or unreachable: the call waits until its deadline and
            // counts as denied; the step says so when its result comes.
            let _ = tool_decision(turn_id, call, decision).await;
        });
    }

    /// Whether the live turn (the conversation's last message) has this very
    /// step waiting: the same id, tool and digest.
    fn is_waiting_in_live_turn(&self, call: &ShownCall) -> bool {
        self.conversation.with_value(|c| match c.messages.last() {
            Some(Message::Assistant(turn)) => turn
                .tool_steps()
                .any(|step| step.state == ToolState::Waiting && step.shown_call() == *call),
            _ => false,
        })
    }
}
