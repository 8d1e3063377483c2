//! The answer of `POST /api/tool_servers`: each tool server and its tools as
//! the page's Tools control lists them, and which servers a conversation
//! has switched on. Built by the server from its `ToolBox`; pure data, so
//! both builds share it.
//!
//! MCP annotations travel as what they are: claims the server makes about
//! its own tools. Nothing here turns a claim into a permission; whether a
//! call asks first is the server's decision (`asks_first`), made elsewhere.

use serde::{Deserialize, Serialize};

/// One tool server: the built-in tools, or a connected MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicToolServer {
    /// Its name, the prefix of its tools' names (`files` of `files__read_file`).
    pub name: String,
    /// Pensive's own tools (no annotations: they are not a server's claims).
    pub builtin: bool,
    /// The user's configuration says `trusted = true`.
    pub trusted: bool,
    pub tools: Vec<PublicTool>,
    /// Whether its tools can be offered now (a server still starting, or
    /// one Pensive disconnected, offers none).
    #[serde(default)]
    pub state: ServerState,
    /// How many of the tools it listed are not offered (over a limit, a name
    /// no model could call back, a schema too large).
    #[serde(default)]
    pub left_out: usize,
    /// One sentence saying what was left out or cut and why, or why the
    /// server is unavailable; the Tools control shows it under the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
}

/// Where a tool server stands, as the Tools control shows it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerState {
    /// Connected (or restarting after a stop, its last list still offered).
    #[default]
    Ready,
    /// Still connecting since Pensive started: its tools join when it is up.
    Starting,
    /// It failed to start or was disconnected for good (`notice` says why).
    Unavailable,
}

/// One tool of a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicTool {
    /// Its name on its server (without the `server__` prefix).
    pub name: String,
    /// What the server says it does.
    pub description: String,
    /// What the server claims about it (MCP annotations).
    #[serde(default)]
    pub claims: ToolClaims,
    /// A call waits for the user's Allow or Deny (unless allowed for the
    /// conversation).
    pub asks_first: bool,
    /// The server changed what this tool says it does since the user met
    /// it: its calls ask first until the user agrees again.
    #[serde(default)]
    pub held: bool,
    /// For a held tool: the hash of what it says now. Agreeing to it
    /// (`POST /api/tool_agree`) names this hash, so a server that changes
    /// the tool again meanwhile is not agreed to unseen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

/// MCP tool annotations, as the server states them (`None`: not stated).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolClaims {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

impl ToolClaims {
    /// The claims as the page words them, each to be shown as said by the
    /// server ("server says: read-only"). Only what the server stated: an
    /// unstated hint is not shown as its spec default.
    pub fn words(&self) -> Vec<&'static str> {
        let mut words = Vec::new();
        let said = |hint: Option<bool>, yes: &'static str, no: &'static str| match hint {
            Some(true) => Some(yes),
            Some(false) => Some(no),
            None => None,
        };
        words.extend(said(self.read_only, "read-only", "may change things"));
        words.extend(said(self.destructive, "destructive", "not destructive"));
        words.extend(said(self.idempotent, "idempotent", "not idempotent"));
        words.extend(said(
            self.open_world,
            "reaches outside",
            "stays within its server",
        ));
        words
    }
}

/// The `tools` of a chat request: the servers switched on, given the servers
/// the page knows and the ones the conversation switched off. `None` (every
/// server) when nothing is off; when the list of servers is unknown and
/// something is off, no server at all: a switch the user turned off must
/// never be read as on.
pub fn enabled_servers(known: &[PublicToolServer], off: &[String]) -> Option<Vec<String>> {
    if off.is_empty() {
        return None;
    }
    Some(
        known
            .iter()
            .map(|server| server.name.clone())
            .filter(|name| !off.contains(name))
            .collect(),
    )
}

/// How many tools `model` gets at `effort` from `servers`, those switched
/// `off` for the conversation left out: none for a model that takes no
/// tools at that effort; otherwise every tool of a server that is on, but
/// a held one (its new description is not offered until agreed to) and
/// one whose name (`server__tool`) the model's provider refuses. The
/// Tools button shows it; the server decides the same way per turn.
pub fn offered_count(
    servers: &[PublicToolServer],
    off: &[String],
    model: Option<&super::public_model::PublicModel>,
    effort: Option<super::Effort>,
) -> usize {
    if model.is_some_and(|m| !m.gets_tools_at(effort)) {
        return 0;
    }
    servers
        .iter()
        .filter(|s| !off.contains(&s.name))
        .flat_map(|s| s.tools.iter().map(move |t| (s, t)))
        .filter(|(_, tool)| !tool.held)
        .filter(|(server, tool)| {
            model.is_none_or(|m| m.takes_tool_name(&format!("{}__{}", server.name, tool.name)))
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str) -> PublicToolServer {
        PublicToolServer {
            name: name.into(),
            builtin: name == "builtin",
            trusted: false,
            tools: Vec::new(),
            state: ServerState::Ready,
            left_out: 0,
            notice: None,
        }
    }

    #[test]
    fn only_stated_claims_are_worded() {
        assert!(ToolClaims::default().words().is_empty());
        let claims = ToolClaims {
            read_only: Some(true),
            destructive: Some(false),
            ..ToolClaims::default()
        };
        assert_eq!(claims.words(), ["read-only", "not destructive"]);
        let writer = ToolClaims {
            read_only: Some(false),
            destructive: Some(true),
            open_world: Some(true),
            ..ToolClaims::default()
        };
        assert_eq!(
            writer.words(),
            ["may change things", "destructive", "reaches outside"]
        );
    }

    #[test]
    fn the_request_names_the_servers_left_on() {
        let known = [server("builtin"), server("files"), server("slow")];
        assert_eq!(enabled_servers(&known, &[]), None, "all on: every server");
        assert_eq!(
            enabled_servers(&known, &["builtin".into()]),
            Some(vec!["files".into(), "slow".into()])
        );
        assert_eq!(
            enabled_servers(&[], &["builtin".into()]),
            Some(vec![]),
            "unknown servers with one off: none rather than all"
        );
    }

    #[test]
    fn claims_travel_in_snake_case_without_unstated_hints() {
        let tool = PublicTool {
            name: "read_file".into(),
            description: "Reads".into(),
            claims: ToolClaims {
                read_only: Some(true),
                ..ToolClaims::default()
            },
            asks_first: false,
            held: false,
            digest: None,
        };
        let json = serde_json::to_value(&tool).unwrap();
        assert_eq!(json["claims"], serde_json::json!({"read_only": true}));
        let back: PublicTool = serde_json::from_value(json).unwrap();
        assert_eq!(back, tool);
    }
}
