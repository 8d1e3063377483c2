//! The tool servers as the page's Tools control lists them
//! (`POST /api/tool_servers`): each server, its tools, what the server
//! claims about them, and whether a call asks first. Read-only: listing
//! never connects, calls or changes anything. The page embeds this list,
//! so it is a summary: descriptions cut to `PAGE_DESCRIPTION_BYTES`, no
//! schemas, and per server what the bounds left out and why.

use super::bounds::{summary, PAGE_DESCRIPTION_BYTES};
use super::{builtin, routes_back, ToolBox};
use crate::turn::tool::NAME_SEPARATOR;
use crate::turn::tool_listing::{PublicTool, PublicToolServer, ServerState, ToolClaims};
use crate::turn::Approval;

impl ToolBox {
    /// Every server turns may be offered, built-in first, with its tools
    /// (those the model could be offered: see `offered`), as `decider`
    /// would meet them (a hold they released is not held for them).
    pub fn listing(&self, decider: &str) -> Vec<PublicToolServer> {
        let approval = |server: &str, tool: &str| {
            let name = format!("{server}{NAME_SEPARATOR}{tool}");
            self.approval_in_conversation(&name, &[], decider)
        };
        let mut servers = Vec::new();
        if self.builtin {
            servers.push(PublicToolServer {
                name: builtin::SERVER.into(),
                builtin: true,
                trusted: true,
                tools: builtin::specs()
                    .into_iter()
                    .map(|spec| PublicTool {
                        asks_first: approval(builtin::SERVER, &spec.name) != Approval::NotNeeded,
                        held: false,
                        digest: None,
                        name: spec.name,
                        description: spec.description,
                        claims: ToolClaims::default(),
                    })
                    .collect(),
                state: ServerState::Ready,
                left_out: 0,
                notice: None,
            });
        }
        for server in self.servers() {
            let name = &server.config.name;
            let (state, unavailable) = server.state();
            let left_out = server.left_out();
            let tools = match state {
                ServerState::Ready => server
                    .tools()
                    .iter()
                    .filter(|tool| routes_back(name, &tool.name))
                    .map(|tool| {
                        let approval = approval(name, &tool.name);
                        let held = approval == Approval::Held;
                        PublicTool {
                            name: tool.name.to_string(),
                            description: summary(
                                tool.description.as_deref().unwrap_or(""),
                                PAGE_DESCRIPTION_BYTES,
                            ),
                            claims: claims_of(tool),
                            asks_first: approval != Approval::NotNeeded,
                            held,
                            digest: held.then(|| super::hashes::tool_hash(tool)),
                        }
                    })
                    .collect(),
                ServerState::Starting | ServerState::Unavailable => Vec::new(),
            };
            servers.push(PublicToolServer {
                name: name.clone(),
                builtin: false,
                trusted: server.config.trusted,
                tools,
                state,
                left_out: left_out.tools(),
                notice: unavailable.or_else(|| left_out.notice()),
            });
        }
        servers
    }
}

/// What an MCP server says about its tool (its annotations, and a title
/// given on the tool itself).
fn claims_of(tool: &rmcp::model::Tool) -> ToolClaims {
    let hints = tool.annotations.as_ref();
    ToolClaims {
        title: tool
            .title
            .clone()
            .or_else(|| hints.and_then(|h| h.title.clone()))
            .map(|title| summary(&title, super::bounds::MAX_TITLE_BYTES)),
        read_only: hints.and_then(|h| h.read_only_hint),
        destructive: hints.and_then(|h| h.destructive_hint),
        idempotent: hints.and_then(|h| h.idempotent_hint),
        open_world: hints.and_then(|h| h.open_world_hint),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_tools_are_listed_and_run_without_asking() {
        let listing = ToolBox::default().listing("tester");
        assert_eq!(listing.len(), 1);
        let builtin = &listing[0];
        assert_eq!(builtin.name, "builtin");
        assert!(builtin.builtin);
        let names: Vec<_> = builtin.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["calculate", "current_time"]);
        assert!(builtin.tools.iter().all(|t| !t.asks_first));
        assert!(builtin.tools[0].description.contains("arithmetic"));
    }

    #[test]
    fn annotations_become_claims_without_defaults_filled_in() {
        let mut tool = rmcp::model::Tool::new(
            "write_file",
            "Writes a file",
            std::sync::Arc::new(serde_json::Map::new()),
        );
        assert_eq!(claims_of(&tool), ToolClaims::default());
        let mut hints = rmcp::model::ToolAnnotations::new();
        hints.read_only_hint = Some(false);
        hints.destructive_hint = Some(true);
        tool.annotations = Some(hints);
        let claims = claims_of(&tool);
        assert_eq!(claims.read_only, Some(false));
        assert_eq!(claims.destructive, Some(true));
        assert_eq!(claims.open_world, None);
    }
}
