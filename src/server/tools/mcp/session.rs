//! One connection to an MCP server through rmcp (the official Rust SDK): a
//! stdio child started without a shell, with only the environment its
//! config names plus PATH and HOME and its stderr in Pensive's log, or a
//! Streamable HTTP endpoint; the handshake (the newest protocol first, an
//! older server asked again) and its tools listed. The client opens one at
//! connect time and the supervisor opens the next after a stop.

use std::collections::HashMap;
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, PaginatedRequestParams, ProtocolVersion, Tool,
};
use rmcp::service::Peer;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::RoleClient;
use tokio::process::Child;
use tokio::sync::watch;

use super::config::{McpServerConfig, Transport};
use super::guard::Guard;
use super::oversized::{Watched, MAX_MESSAGE_BYTES};
use super::stderr;
use crate::server::tools::bounds::{self, LeftOut};

/// Longest a server may take to start and list its tools.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Who Pensive says it is, and which protocol versions it speaks: the
/// current one first, then the two before it.
fn client_info() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("pensive", env!("CARGO_PKG_VERSION")),
    )
}

/// How a connection starts: the 2026-07-28 `server/discover` probe, which
/// rmcp answers with the legacy `initialize` when the server says it is
/// legacy; or, asked again after the probe failed some other way, the
/// legacy handshake alone.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Handshake {
    Discover,
    Legacy,
}

impl Handshake {
    fn lifecycle(self) -> ClientLifecycleMode {
        match self {
            Handshake::Discover => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
            Handshake::Legacy => ClientLifecycleMode::Initialize,
        }
    }

    fn client_info(self) -> ClientConfig {
        let mut info = client_info();
        if self == Handshake::Legacy {
            info.protocol_version = ProtocolVersion::V_2025_11_25;
        }
        info
    }
}

/// Why a connection could not open: the handshake failed (worth one more
/// try with the legacy handshake), or anything before it.
enum OpenError {
    Handshake(String),
    Other(String),
}

impl From<String> for OpenError {
    fn from(message: String) -> Self {
        OpenError::Other(message)
    }
}

/// The environment a stdio server gets: its config's variables, PATH and HOME.
pub(crate) fn child_env(
    config_env: &std::collections::BTreeMap<String, String>,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = ["PATH", "HOME"]
        .into_iter()
        .filter_map(|name| std::env::var(name).ok().map(|v| (name.to_owned(), v)))
        .collect();
    env.extend(config_env.iter().map(|(k, v)| (k.clone(), v.clone())));
    env
}

/// One connection: the rmcp service, a stdio server's child (Pensive owns
/// it, to learn its exit status and to kill it), the tools it listed
/// (within `bounds`) and what the bounds left out, and whether it flooded
/// Pensive with notifications (`guard`).
pub(crate) struct Session {
    pub service: RunningService<RoleClient, Guard>,
    pub child: Option<Child>,
    pub tools: Vec<Tool>,
    pub left_out: LeftOut,
    pub flooded: watch::Receiver<bool>,
    /// Bumped each time a message over `MAX_MESSAGE_BYTES` was dropped.
    pub oversized: watch::Receiver<u64>,
    /// Bumped each time the server says its tool list changed.
    pub list_changed: watch::Receiver<u64>,
}

/// One connection to the server, its tools listed, within `CONNECT_TIMEOUT`.
pub async fn open(config: &McpServerConfig) -> Result<Session, String> {
    let name = &config.name;
    tokio::time::timeout(CONNECT_TIMEOUT, open_unbounded(config))
        .await
        .map_err(|_| {
            format!(
                "MCP server `{name}` did not answer within {}s",
                CONNECT_TIMEOUT.as_secs()
            )
        })?
        .map_err(|e| format!("MCP server `{name}`: {e}"))
}

/// Some servers of 2025 answer the `server/discover` probe with an empty
/// result instead of the "method not found" error rmcp falls back on; for
/// them the handshake fails, and the legacy `initialize` alone (on a fresh
/// connection: a stdio server is started again) gets through.
async fn open_unbounded(config: &McpServerConfig) -> Result<Session, String> {
    match open_with(config, Handshake::Discover).await {
        Ok(session) => Ok(session),
        Err(OpenError::Other(message)) => Err(message),
        Err(OpenError::Handshake(first)) => {
            tracing::info!(mcp_server = %config.name, "the server/discover handshake failed ({first}); trying initialize alone");
            open_with(config, Handshake::Legacy)
                .await
                .map_err(|error| match error {
                    OpenError::Handshake(second) => {
                        format!("{first}; with initialize alone: {second}")
                    }
                    OpenError::Other(message) => message,
                })
        }
    }
}

async fn open_with(config: &McpServerConfig, handshake: Handshake) -> Result<Session, OpenError> {
    let guard = Guard::new(handshake.client_info());
    let flooded = guard.flooded();
    let list_changed = guard.list_changed();
    let (service, child, oversized) = match &config.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args)
                .env_clear()
                .envs(child_env(env))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                // Whatever path ends this connection (a failed handshake,
                // a runtime shutting down), the child does not outlive it.
                .kill_on_drop(true);
            if let Some(cwd) = cwd {
                cmd.current_dir(cwd);
            }
            let mut child = cmd
                .spawn()
                .map_err(|e| format!("cannot start `{command}`: {e}"))?;
            let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                return Err(format!("`{command}` started without its stdio").into());
            };
            if let Some(stderr) = child.stderr.take() {
                tokio::spawn(stderr::drain(
                    stderr,
                    config.name.clone(),
                    stderr::secrets_of(env),
                ));
            }
            // rmcp's cap on a line, and Pensive's watch of the same bound.
            let stdout = Watched::new(stdout, MAX_MESSAGE_BYTES);
            let oversized = stdout.oversized();
            let transport =
                AsyncRwTransport::new_client(stdout, stdin).with_max_line_length(MAX_MESSAGE_BYTES);
            let service = guard
                .clone()
                .serve_with_lifecycle(transport, handshake.lifecycle())
                .await
                .map_err(|e| OpenError::Handshake(e.to_string()))?;
            (service, Some(child), oversized)
        }
        Transport::Http { url, headers } => {
            let mut custom = HashMap::new();
            for (key, value) in headers {
                let key = axum::http::HeaderName::try_from(key.as_str())
                    .map_err(|_| format!("header name `{key}` is not valid"))?;
                let value = axum::http::HeaderValue::try_from(value.as_str())
                    .map_err(|_| format!("the value of header `{key}` is not valid"))?;
                custom.insert(key, value);
            }
            let transport = StreamableHttpClientTransport::with_client(
                reqwest::Client::builder()
                    .redirect(reqwest::redirect::Policy::none())
                    .build()
                    .map_err(|e| OpenError::Other(e.to_string()))?,
                StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom),
            );
            let service = guard
                .clone()
                .serve_with_lifecycle(transport, handshake.lifecycle())
                .await
                .map_err(|e| OpenError::Handshake(e.to_string()))?;
            // rmcp bounds an HTTP answer itself (16 MiB a JSON body or an
            // SSE event): nothing to watch here.
            (service, None, watch::channel(0).1)
        }
    };
    let (tools, left_out) = list_bounded(&config.name, service.peer()).await?;
    Ok(Session {
        service,
        child,
        tools,
        left_out,
        flooded,
        oversized,
        list_changed,
    })
}

/// The server's tools within `bounds`, and what the bounds left out: at
/// each connection, and when the server says its list changed.
pub(crate) async fn list_bounded(
    name: &str,
    peer: &Peer<RoleClient>,
) -> Result<(Vec<Tool>, LeftOut), String> {
    let (listed, unread) = list_tools(peer).await?;
    if unread {
        tracing::warn!(
            mcp_server = %name,
            "the MCP server's tool list goes on past {} pages; the rest is not read",
            bounds::MAX_LIST_PAGES
        );
    }
    Ok(bounds::bound_list(name, listed))
}

/// Reads the server's tool list, page by page up to `MAX_LIST_PAGES` (or
/// enough tools to fill the bound twice over). Whether pages were left
/// unread.
async fn list_tools(peer: &Peer<RoleClient>) -> Result<(Vec<Tool>, bool), String> {
    let mut tools = Vec::new();
    let mut cursor = None;
    for _ in 0..bounds::MAX_LIST_PAGES {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        let page = peer
            .list_tools(Some(params))
            .await
            .map_err(|e| format!("tools/list failed: {e}"))?;
        tools.extend(page.tools);
        cursor = page.next_cursor;
        if cursor.is_none() || tools.len() > 2 * bounds::MAX_TOOLS_PER_SERVER {
            break;
        }
    }
    Ok((tools, cursor.is_some()))
}
