//! The tools Pensive offers a model, and running one call: the built-in
//! tools today (MCP servers join them under their own server names). Names
//! the model sees are namespaced `server__tool`; a call runs under a
//! deadline, and its output is capped before it goes anywhere.

pub(crate) mod builtin;
pub mod hashes;
pub(crate) mod listing;
pub mod mcp;
pub mod output;

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::turn::tool::{split_name, Approval, ToolSpec, NAME_SEPARATOR};
use crate::turn::ToolStatus;

/// How one call ended, as the model and the page learn it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallOutcome {
    pub status: ToolStatus,
    /// What the model reads (capped; an error says what went wrong).
    pub output: String,
    pub truncated_bytes: u64,
    pub duration_ms: u64,
}

/// The tools at hand for turns.
#[derive(Debug, Clone)]
pub struct ToolBox {
    /// Offer the built-in tools.
    builtin: bool,
    /// Longest a built-in call may run (an MCP server's own `timeout_s`
    /// bounds its calls).
    pub call_timeout: Duration,
    /// The connected MCP servers.
    servers: Vec<std::sync::Arc<mcp::McpServer>>,
    /// What each MCP tool said it does when first seen (`hashes`).
    hashes: std::sync::Arc<hashes::ToolHashes>,
}

impl Default for ToolBox {
    fn default() -> Self {
        Self {
            builtin: true,
            call_timeout: Duration::from_secs(30),
            servers: Vec::new(),
            hashes: Default::default(),
        }
    }
}

/// A tool name as MCP allows it (1 to 128 of `[A-Za-z0-9_.-]`); others are
/// not offered (a model could not call them back by name anyway).
fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

impl ToolBox {
    /// The built-in tools and `servers` (connected).
    /// Their tools' hashes are kept in memory only: see `with_hashes`.
    pub fn with_servers(servers: Vec<mcp::McpServer>) -> Self {
        Self {
            servers: servers.into_iter().map(std::sync::Arc::new).collect(),
            ..Self::default()
        }
        .with_hashes(hashes::ToolHashes::in_memory())
    }

    /// Checks every server's tools against `hashes` (what the user met
    /// before): a tool that changed since is held.
    pub fn with_hashes(mut self, hashes: hashes::ToolHashes) -> Self {
        for server in &self.servers {
            hashes.review(&server.config.name, &server.tools());
        }
        self.hashes = std::sync::Arc::new(hashes);
        self
    }

    /// The connected servers (the Tools control lists them).
    pub fn servers(&self) -> impl Iterator<Item = &mcp::McpServer> {
        self.servers.iter().map(|s| s.as_ref())
    }

    /// Ends every server's connection (stdio children are killed).
    pub async fn close(&self) {
        for server in &self.servers {
            server.cancel().await;
        }
    }

    fn mcp_tool(&self, name: &str) -> Option<(&mcp::McpServer, rmcp::model::Tool)> {
        let (server, tool) = split_name(name)?;
        let server = self.servers.iter().find(|s| s.config.name == server)?;
        // A copy: a restarted server's list may replace the one it is in.
        let tool = server.tools().iter().find(|t| t.name == tool)?.clone();
        Some((server, tool))
    }

    /// The tools offered when the request names the servers `enabled`
    /// (absent: every enabled server), namespaced.
    pub fn offered(&self, enabled: Option<&[String]>) -> Vec<ToolSpec> {
        let on = |server: &str| enabled.is_none_or(|list| list.iter().any(|s| s == server));
        let mut specs = Vec::new();
        if self.builtin && on(builtin::SERVER) {
            specs.extend(builtin::specs().into_iter().map(|spec| ToolSpec {
                name: format!("{}{NAME_SEPARATOR}{}", builtin::SERVER, spec.name),
                ..spec
            }));
        }
        for server in &self.servers {
            if !on(&server.config.name) {
                continue;
            }
            for tool in server.tools().iter().filter(|t| valid_tool_name(&t.name)) {
                specs.push(ToolSpec {
                    name: format!("{}{NAME_SEPARATOR}{}", server.config.name, tool.name),
                    description: tool.description.as_deref().unwrap_or("").to_owned(),
                    parameters: Value::Object((*tool.input_schema).clone()),
                });
            }
        }
        specs
    }

    /// The server of a namespaced tool name ("" for a name no server has).
    pub fn server_of(&self, name: &str) -> String {
        split_name(name)
            .map(|(server, _)| server.to_owned())
            .unwrap_or_default()
    }

    /// Whether a call needs the user's approval before it runs: built-in
    /// tools never do.
    /// MCP tools need it unless their server is `trusted` and the tool
    /// says it only reads (`readOnlyHint: true`): an annotation is the
    /// server's claim, believed only from a server the user trusts.
    /// A tool whose server changed what it says it does is held: it asks,
    /// whatever its trust.
    pub fn approval(&self, name: &str) -> Approval {
        if let Some((builtin::SERVER, _)) = split_name(name) {
            return Approval::NotNeeded;
        }
        match self.mcp_tool(name) {
            Some((server, tool)) if self.hashes.is_held(&server.config.name, &tool) => {
                Approval::Held
            }
            _ => self.unheld_approval(name),
        }
    }

    /// `approval`, for `decider` once they allowed tools for the
    /// conversation (`allowed`): those run without asking, unless held; a
    /// tool held is released only by `decider`'s own agreement (`agree`).
    pub fn approval_in_conversation(
        &self,
        name: &str,
        allowed: &[String],
        decider: &str,
    ) -> Approval {
        let approval = match self.approval(name) {
            Approval::Held if !self.is_held_for(name, decider) => self.unheld_approval(name),
            other => other,
        };
        match approval {
            Approval::Needed if allowed.iter().any(|a| a == name) => Approval::NotNeeded,
            other => other,
        }
    }

    /// Whether the tool `name` is held for `decider`.
    fn is_held_for(&self, name: &str, decider: &str) -> bool {
        self.mcp_tool(name).is_some_and(|(server, tool)| {
            self.hashes.is_held_for(&server.config.name, &tool, decider)
        })
    }

    /// The approval of a tool as if it were not held (its trust and claims).
    fn unheld_approval(&self, name: &str) -> Approval {
        match self.mcp_tool(name) {
            Some((server, tool))
                if server.config.trusted
                    && tool.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true) =>
            {
                Approval::NotNeeded
            }
            _ => Approval::Needed,
        }
    }

    /// `decider` allowed a call of a held tool: it is no longer held for
    /// them (for everyone else it still is).
    pub fn agree(&self, name: &str, decider: &str) {
        if let Some((server, tool)) = self.mcp_tool(name) {
            self.hashes.agree(&server.config.name, &tool, decider);
        }
    }

    /// Runs one call with `arguments` (or the reason they are unusable),
    /// under the call deadline.
    pub async fn call(&self, name: &str, arguments: Result<&Value, &str>) -> CallOutcome {
        let started = Instant::now();
        let result = match arguments {
            Err(problem) => Err(format!("the arguments are not a JSON object: {problem}")),
            Ok(arguments) => {
                let timeout = self
                    .mcp_tool(name)
                    .map_or(self.call_timeout, |(server, _)| server.config.timeout);
                let run = self.run(name, arguments);
                match tokio::time::timeout(timeout, run).await {
                    Ok(result) => result,
                    Err(_) => {
                        return self.ended(
                            ToolStatus::Timeout,
                            format!("The tool did not answer within {}s.", timeout.as_secs_f64()),
                            started,
                        )
                    }
                }
            }
        };
        match result {
            Ok(text) => self.ended(ToolStatus::Ok, text, started),
            Err(message) => self.ended(ToolStatus::Error, message, started),
        }
    }

    async fn run(&self, name: &str, arguments: &Value) -> Result<String, String> {
        match split_name(name) {
            Some((builtin::SERVER, tool)) if self.builtin => {
                // Calculations are bounded (fend's interrupt); off the async
                // workers all the same.
                let tool = tool.to_owned();
                let arguments = arguments.clone();
                tokio::task::spawn_blocking(move || builtin::call(&tool, &arguments))
                    .await
                    .map_err(|_| "the tool failed unexpectedly".to_owned())?
            }
            _ => match self.mcp_tool(name) {
                Some((server, tool)) => match server.call(&tool.name, arguments).await {
                    Ok((text, false)) => Ok(text),
                    Ok((text, true)) => Err(text),
                    Err(problem) => Err(problem),
                },
                None => Err(format!("there is no tool named `{name}`")),
            },
        }
    }

    fn ended(&self, status: ToolStatus, text: String, started: Instant) -> CallOutcome {
        let (output, truncated_bytes) = output::cap_output(text, output::MAX_OUTPUT_BYTES);
        CallOutcome {
            status,
            output,
            truncated_bytes,
            duration_ms: started.elapsed().as_millis() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builtin_tools_are_offered_namespaced_and_need_no_approval() {
        let tools = ToolBox::default();
        let names: Vec<_> = tools.offered(None).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["builtin__calculate", "builtin__current_time"]);
        assert!(tools.offered(Some(&["files".into()])).is_empty());
        assert_eq!(tools.approval("builtin__calculate"), Approval::NotNeeded);
        assert_eq!(tools.approval("files__write_file"), Approval::Needed);
        assert_eq!(tools.server_of("builtin__calculate"), "builtin");
    }

    #[tokio::test]
    async fn a_call_reports_its_outcome() {
        let tools = ToolBox::default();
        let ok = tools
            .call("builtin__calculate", Ok(&json!({"expression": "6 * 7"})))
            .await;
        assert_eq!((ok.status, ok.output.as_str()), (ToolStatus::Ok, "42"));
        let bad = tools.call("builtin__calculate", Err("EOF")).await;
        assert_eq!(bad.status, ToolStatus::Error);
        assert!(bad.output.contains("EOF"), "{}", bad.output);
        let unknown = tools.call("nowhere__x", Ok(&json!({}))).await;
        assert_eq!(unknown.status, ToolStatus::Error);
    }
}
