//! MCP servers as the user configures them: `[mcp_servers.NAME]` in the
//! TOML file (`command`, `args`, `env`, `cwd` for a stdio server; `url`,
//! `headers` for Streamable HTTP; `trusted`, `enabled`, `timeout_s`), or a
//! JSON file in the `mcpServers` shape Claude Desktop, Cursor and VS Code
//! use (`PENSIVE_MCP_CONFIG`), so a user pastes what they already have.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

/// How Pensive reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A program started directly (never through a shell).
    Stdio {
        command: String,
        args: Vec<String>,
        /// The only variables it gets besides PATH and HOME.
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerConfig {
    pub name: String,
    pub transport: Transport,
    /// Its read-only tools (`readOnlyHint: true`) run without asking.
    pub trusted: bool,
    pub timeout: Duration,
    /// A tool that says it reaches outside its server (`openWorldHint:
    /// true`) asks first even when trusted and read-only (`ask_open_world`,
    /// default true): reading the network is how a prompt injection sends
    /// what it read elsewhere.
    pub ask_open_world: bool,
}

/// The default time one call may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// One entry as either file writes it. Unknown keys are allowed: the other
/// apps' files carry their own (`type`, `disabled`, `alwaysAllow`…).
#[derive(Debug, Deserialize)]
struct Entry {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    trusted: bool,
    enabled: Option<bool>,
    /// Claude Desktop's and Cursor's way to switch one off.
    #[serde(default)]
    disabled: bool,
    timeout_s: Option<f64>,
    ask_open_world: Option<bool>,
}

/// A server name the model-facing names can carry: letters, digits, `-`
/// and `_`, no `__` (the separator), not ending in `_`, not `builtin`.
/// Then the first `__` of `server__tool` is always the one after the
/// server's name, so a name splits back into exactly the server that
/// offered it: a server `a_` with tool `b` would give `a___b`, which is
/// also server `a`'s tool `_b`, and `builtin_` + `x` would read as a
/// built-in tool.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if name.is_empty() || name.len() > 64 || !ok_chars {
        return Err(format!(
            "MCP server name `{name}`: use 1 to 64 letters, digits, `-` or `_`"
        ));
    }
    if name.contains("__") {
        return Err(format!(
            "MCP server name `{name}`: `__` separates a server from its tools in the names the model sees"
        ));
    }
    if name.ends_with('_') {
        return Err(format!(
            "MCP server name `{name}`: it must not end in `_` (its tools' names would read as another server's)"
        ));
    }
    if name == super::super::builtin::SERVER {
        return Err("MCP server name `builtin` is taken by Pensive's own tools".into());
    }
    Ok(())
}

fn server_of(name: String, entry: Entry) -> Result<Option<McpServerConfig>, String> {
    check_name(&name)?;
    if entry.disabled || entry.enabled == Some(false) {
        return Ok(None);
    }
    let transport = match (entry.command, entry.url) {
        (Some(command), None) => Transport::Stdio {
            command,
            args: entry.args,
            env: entry.env,
            cwd: entry.cwd.map(PathBuf::from),
        },
        (None, Some(url)) => Transport::Http {
            url,
            headers: entry.headers,
        },
        (Some(_), Some(_)) => {
            return Err(format!(
                "MCP server `{name}`: give either `command` (stdio) or `url` (HTTP), not both"
            ))
        }
        (None, None) => {
            return Err(format!(
                "MCP server `{name}`: give `command` (stdio) or `url` (HTTP)"
            ))
        }
    };
    let timeout = match entry.timeout_s {
        Some(s) if s > 0.0 && s.is_finite() => Duration::from_secs_f64(s),
        Some(_) => return Err(format!("MCP server `{name}`: `timeout_s` must be above 0")),
        None => DEFAULT_TIMEOUT,
    };
    Ok(Some(McpServerConfig {
        name,
        transport,
        trusted: entry.trusted,
        timeout,
        ask_open_world: entry.ask_open_world.unwrap_or(true),
    }))
}

/// The servers of a TOML file's `[mcp_servers]` table.
pub fn from_toml(text: &str) -> Result<Vec<McpServerConfig>, String> {
    #[derive(Deserialize)]
    struct File {
        #[serde(default)]
        mcp_servers: BTreeMap<String, Entry>,
    }
    let file: File = toml::from_str(text).map_err(|e| format!("[mcp_servers]: {}", e.message()))?;
    collect(file.mcp_servers)
}

/// The servers of a JSON file in the `mcpServers` shape (VS Code's
/// `servers` is read too).
pub(crate) fn from_json(text: &str) -> Result<Vec<McpServerConfig>, String> {
    #[derive(Deserialize)]
    struct File {
        #[serde(default, rename = "mcpServers")]
        mcp_servers: BTreeMap<String, Entry>,
        #[serde(default)]
        servers: BTreeMap<String, Entry>,
    }
    let file: File = serde_json::from_str(text).map_err(|e| format!("MCP JSON: {e}"))?;
    let mut all = file.mcp_servers;
    for (name, entry) in file.servers {
        if all.contains_key(&name) {
            return Err(format!("MCP server `{name}` is configured twice"));
        }
        all.insert(name, entry);
    }
    collect(all)
}

fn collect(entries: BTreeMap<String, Entry>) -> Result<Vec<McpServerConfig>, String> {
    let mut out = Vec::new();
    for (name, entry) in entries {
        out.extend(server_of(name, entry)?);
    }
    Ok(out)
}

/// Every configured server: the TOML file `PENSIVE_CONFIG` names, then the
/// JSON file `PENSIVE_MCP_CONFIG` names; a name in both is refused.
pub fn load(get: impl Fn(&str) -> Option<String>) -> Result<Vec<McpServerConfig>, String> {
    let read =
        |path: &str| std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"));
    let mut servers = match get("PENSIVE_CONFIG") {
        Some(path) => from_toml(&read(&path)?)?,
        None => Vec::new(),
    };
    if let Some(path) = get("PENSIVE_MCP_CONFIG") {
        for server in from_json(&read(&path)?)? {
            if servers.iter().any(|s| s.name == server.name) {
                return Err(format!(
                    "MCP server `{}` is configured in both PENSIVE_CONFIG and PENSIVE_MCP_CONFIG",
                    server.name
                ));
            }
            servers.push(server);
        }
    }
    Ok(servers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claude_desktop_file_reads_as_it_is() {
        let json = r#"{"mcpServers": {
            "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                      "env": {"DEBUG": "1"}, "alwaysAllow": []},
            "remote": {"type": "http", "url": "http://127.0.0.1:9000/mcp", "headers": {"Authorization": "Bearer x"}},
            "off": {"command": "x", "disabled": true}
        }}"#;
        let servers = from_json(json).unwrap();
        assert_eq!(servers.len(), 2);
        assert_eq!(servers[0].name, "files");
        assert!(
            matches!(&servers[0].transport, Transport::Stdio { command, args, env, .. }
            if command == "npx" && args.len() == 3 && env["DEBUG"] == "1")
        );
        assert!(
            matches!(&servers[1].transport, Transport::Http { url, headers }
            if url.ends_with("/mcp") && headers.contains_key("Authorization"))
        );
        assert_eq!(servers[0].timeout, DEFAULT_TIMEOUT);
        assert!(
            servers[0].ask_open_world,
            "open-world tools ask unless told"
        );
    }

    #[test]
    fn the_toml_table_reads_with_trust_and_timeouts() {
        let toml = r#"
            [[models]]
            provider = "demo"
            [mcp_servers.everything]
            command = "mcp-server-everything"
            trusted = true
            timeout_s = 5
            ask_open_world = false
            [mcp_servers.skipped]
            command = "x"
            enabled = false
        "#;
        let servers = from_toml(toml).unwrap();
        assert_eq!(servers.len(), 1);
        assert!(servers[0].trusted);
        assert_eq!(servers[0].timeout, Duration::from_secs(5));
        assert!(!servers[0].ask_open_world);
    }

    #[test]
    fn bad_entries_are_refused_with_a_reason() {
        for (json, says) in [
            (
                r#"{"mcpServers": {"a__b": {"command": "x"}}}"#,
                "`__` separates",
            ),
            (r#"{"mcpServers": {"builtin": {"command": "x"}}}"#, "taken"),
            (r#"{"mcpServers": {"a_": {"command": "x"}}}"#, "end in `_`"),
            (
                r#"{"mcpServers": {"builtin_": {"command": "x"}}}"#,
                "end in `_`",
            ),
            (r#"{"mcpServers": {"a b": {"command": "x"}}}"#, "letters"),
            (r#"{"mcpServers": {"a": {}}}"#, "give `command`"),
            (
                r#"{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}"#,
                "not both",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "timeout_s": 0}}}"#,
                "above 0",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x"}}, "servers": {"a": {"command": "y"}}}"#,
                "twice",
            ),
        ] {
            let error = from_json(json).unwrap_err();
            assert!(error.contains(says), "{json}: {error}");
        }
    }
}
