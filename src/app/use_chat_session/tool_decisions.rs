//! The user's decision on a tool call that asks first, sent to the server
//! for the live turn; "Allow in this conversation" is remembered for the
//! conversation's later turns (for this tab's life).

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::UseChatSessionReturn;
use crate::app::api::tool_decision;
use crate::turn::message::Message;
use crate::turn::Decision;

impl UseChatSessionReturn {
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
}
