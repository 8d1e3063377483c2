//! The conversation's settings: the model, the reasoning effort, the tool
//! servers switched off, and the server's lists they are picked from.

use leptos::prelude::*;

use super::UseChatSessionReturn;
use crate::app::api::{PublicModel, PublicToolServer};
use crate::turn::Effort;

impl UseChatSessionReturn {
    /// The server's models, once listed.
    pub fn know_models(&self, models: Vec<PublicModel>) {
        self.models.set_value(models);
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
