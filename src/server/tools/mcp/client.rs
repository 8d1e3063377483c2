//! One MCP server, through rmcp (the official Rust SDK): a stdio child
//! started without a shell, with only the environment its config names plus
//! PATH and HOME and its stderr in Pensive's log; or a Streamable HTTP
//! endpoint. Its tools are listed at each connection; a server that stops
//! is started again by its supervisor (`supervisor`). A call dropped before
//! it ends (Stop, the call's deadline) sends the server
//! `notifications/cancelled`: rmcp's `call_tool` does that on drop.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion, Tool,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::RoleClient;
use serde_json::Value;
use tokio::io::AsyncBufReadExt;
use tokio::process::Child;

use super::config::{McpServerConfig, Transport};
use super::supervisor::{self, Link, Live, Shared};

/// Longest a server may take to start and list its tools.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Longest a call that failed because the connection went away waits for
/// the supervisor to notice, so that it can say when the restart is.
const NOTICE_STOP: Duration = Duration::from_secs(1);

/// A configured server, kept connected by its supervisor.
pub struct McpServer {
    pub config: McpServerConfig,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("name", &self.config.name)
            .field("tools", &self.tools().len())
            .finish()
    }
}

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
/// it, to learn its exit status and to kill it), and the tools it listed.
pub(crate) struct Session {
    pub service: RunningService<RoleClient, ClientConfig>,
    pub child: Option<Child>,
    pub tools: Vec<Tool>,
}

/// Starts (or reaches) the server and lists its tools, then keeps it
/// connected (see `supervisor`).
pub async fn connect(config: McpServerConfig) -> Result<McpServer, String> {
    let session = open(&config).await?;
    let (shared, running) = Shared::start(session);
    tokio::spawn(supervisor::supervise(
        shared.clone(),
        config.clone(),
        running,
    ));
    Ok(McpServer { config, shared })
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
    let (service, child) = match &config.transport {
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
                let server = config.name.clone();
                tokio::spawn(async move {
                    let mut lines = tokio::io::BufReader::new(stderr).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        tracing::info!(mcp_server = %server, "{line}");
                    }
                });
            }
            let service = handshake
                .client_info()
                .serve_with_lifecycle((stdout, stdin), handshake.lifecycle())
                .await
                .map_err(|e| OpenError::Handshake(e.to_string()))?;
            (service, Some(child))
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
            let service = handshake
                .client_info()
                .serve_with_lifecycle(transport, handshake.lifecycle())
                .await
                .map_err(|e| OpenError::Handshake(e.to_string()))?;
            (service, None)
        }
    };
    let tools = list_tools(&service).await?;
    Ok(Session {
        service,
        child,
        tools,
    })
}

/// Reads the server's tool list (every page): at each connection, the
/// first and every restart.
async fn list_tools(
    service: &RunningService<RoleClient, ClientConfig>,
) -> Result<Vec<Tool>, String> {
    service
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list failed: {e}"))
}

impl McpServer {
    /// The tools the server listed at its latest connection (the list
    /// before a restart stays while it is down).
    pub fn tools(&self) -> Arc<Vec<Tool>> {
        self.shared.tools.borrow().clone()
    }

    /// Tells of each new tool list (a restarted server lists its tools
    /// again, and may list other ones).
    pub fn tool_lists(&self) -> tokio::sync::watch::Receiver<Arc<Vec<Tool>>> {
        self.shared.tools.subscribe()
    }

    /// Calls `hook` with the server's name and its tools each time a
    /// restarted server has listed them, before they are offered (where a
    /// tool that now says something else can be held). One hook; a second
    /// call replaces the first.
    pub fn on_tools_relisted(&self, hook: impl Fn(&str, &[Tool]) + Send + Sync + 'static) {
        let hook: supervisor::RelistHook = Arc::new(hook);
        match self.shared.on_relisted.lock() {
            Ok(mut slot) => *slot = Some(hook),
            Err(poisoned) => *poisoned.into_inner() = Some(hook),
        }
    }

    /// The process id of a stdio server's child while it is connected.
    pub fn pid(&self) -> Option<u32> {
        match &*self.shared.link.borrow() {
            Link::Up(live) => live.pid,
            _ => None,
        }
    }

    /// Calls `tool` with `arguments`: the text for the model and whether the
    /// tool said it failed (`isError`), or a protocol failure. Dropping the
    /// future before it ends cancels the request at the server.
    pub async fn call(&self, tool: &str, arguments: &Value) -> Result<(String, bool), String> {
        let live = match &*self.shared.link.borrow() {
            Link::Up(live) => live.clone(),
            other => return Err(self.unavailable(other)),
        };
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(map) = arguments {
            params = params.with_arguments(map.clone());
        }
        let result = match live.peer.call_tool(params).await {
            Ok(result) => result,
            Err(e @ (ServiceError::TransportClosed | ServiceError::TransportSend(_))) => {
                return Err(self.stopped_under(&live, e).await)
            }
            Err(e) => return Err(format!("the call failed: {e}")),
        };
        let mut text = String::new();
        for block in &result.content {
            let value = serde_json::to_value(block).unwrap_or(Value::Null);
            match value.get("type").and_then(Value::as_str) {
                Some("text") => {
                    text.push_str(value.get("text").and_then(Value::as_str).unwrap_or(""))
                }
                Some(kind) => text.push_str(&format!("[{kind} content]")),
                None => {}
            }
            text.push('\n');
        }
        // `structuredContent` as JSON, unless the text already carries it
        // (the spec asks servers to send it serialized as text too).
        if let Some(structured) = result
            .structured_content
            .as_ref()
            .filter(|_| text.trim().is_empty())
        {
            text.push_str(&serde_json::to_string_pretty(structured).unwrap_or_default());
        }
        Ok((text.trim_end().to_owned(), result.is_error == Some(true)))
    }

    /// The message of a call whose connection (`live`) failed under it
    /// with `error`: when the connection is gone (a stdio server's pipe
    /// failing means its process is), once the supervisor has noticed,
    /// when the restart is.
    async fn stopped_under(&self, live: &Live, error: ServiceError) -> String {
        let gone = live.peer.is_transport_closed()
            || matches!(self.config.transport, Transport::Stdio { .. });
        if gone {
            let mut link = self.shared.link.subscribe();
            let noticed = tokio::time::timeout(
                NOTICE_STOP,
                link.wait_for(
                    |link| !matches!(link, Link::Up(now) if now.generation == live.generation),
                ),
            )
            .await;
            if let Ok(Ok(link)) = noticed {
                return self.unavailable(&link);
            }
        }
        format!("the call failed: {error}")
    }

    fn unavailable(&self, link: &Link) -> String {
        supervisor::unavailable(&self.config.name, &self.config.transport, link)
    }

    /// Ends the connection for good: a stdio child gets its stdin closed,
    /// then is killed if it has not exited within a second. Returns once
    /// that is done.
    pub(crate) async fn cancel(&self) {
        self.shared.closing.send_replace(true);
        let mut link = self.shared.link.subscribe();
        let _ = tokio::time::timeout(
            Duration::from_secs(5),
            link.wait_for(|link| matches!(link, Link::Closed)),
        )
        .await;
    }
}

impl Drop for McpServer {
    fn drop(&mut self) {
        // The supervisor holds its own handle on the shared state: without
        // this it would keep the server running after the last user left.
        self.shared.closing.send_replace(true);
    }
}
