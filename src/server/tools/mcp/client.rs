//! One configured MCP server as the tool box uses it: connected in the
//! background from start (the connection itself is `session`), its tools
//! listed at each connection, started again by its supervisor
//! (`supervisor`) when it stops. A call dropped before it ends (Stop, the call's deadline) sends
//! the server `notifications/cancelled`: rmcp's `call_tool` does that on
//! drop.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, Tool};
use rmcp::service::ServiceError;
use serde_json::Value;

use super::config::{McpServerConfig, Transport};
use super::oversized::MAX_MESSAGE_BYTES;
use super::supervisor::{self, Link, Live, Shared};
use crate::server::tools::bounds::LeftOut;
use crate::turn::tool_listing::ServerState;

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

/// Starts (or reaches) the server and lists its tools, then keeps it
/// connected (see `supervisor`); the server's problem when it does not
/// start.
pub async fn connect(config: McpServerConfig) -> Result<McpServer, String> {
    let server = McpServer::start(config);
    let mut link = server.shared.link.subscribe();
    // The supervisor holds the sender until the server is dropped: an
    // error cannot happen while `server` is here.
    let settled = link
        .wait_for(|link| !matches!(link, Link::Starting))
        .await
        .map(|link| link.clone());
    match settled {
        Ok(Link::Refused { reason }) => Err(reason),
        _ => Ok(server),
    }
}

impl McpServer {
    /// The server, its first connection started in the background: it
    /// reads as starting, offers no tool until it is up, and its tools join
    /// when it is (a server that never starts stays out, with its reason).
    pub fn start(config: McpServerConfig) -> McpServer {
        let shared = Shared::new(Link::Starting, Vec::new());
        tokio::spawn(supervisor::supervise(shared.clone(), config.clone()));
        McpServer { config, shared }
    }

    /// A server that never connects, offering `tools` (unit tests of the
    /// tool box).
    #[cfg(test)]
    pub(crate) fn offline(config: McpServerConfig, tools: Vec<Tool>) -> McpServer {
        let shared = Shared::new(Link::Closed, tools);
        McpServer { config, shared }
    }

    /// Where the server stands for the Tools control, with the reason when
    /// it is unavailable.
    pub fn state(&self) -> (ServerState, Option<String>) {
        match &*self.shared.link.borrow() {
            Link::Starting => (ServerState::Starting, None),
            Link::Refused { reason } => (ServerState::Unavailable, Some(reason.clone())),
            Link::Up(_) | Link::Down { .. } | Link::Restarting | Link::Closed => {
                (ServerState::Ready, None)
            }
        }
    }

    /// Whether its tools may be offered: not while it is starting, nor once
    /// it was left out.
    pub fn offers_tools(&self) -> bool {
        self.state().0 == ServerState::Ready
    }

    /// What the bounds left out of its latest tool list.
    pub fn left_out(&self) -> LeftOut {
        self.shared.left_out.borrow().clone()
    }

    /// Waits until the server is up, left out or closed (tests, and the
    /// command line).
    pub async fn settled(&self) {
        let mut link = self.shared.link.subscribe();
        let _ = link.wait_for(|link| !matches!(link, Link::Starting)).await;
    }

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
    /// tool that now says something else can be held). Every hook given
    /// hears every list (the tool box's hashes, a test's counter).
    pub fn on_tools_relisted(&self, hook: impl Fn(&str, &[Tool]) + Send + Sync + 'static) {
        let hook: supervisor::RelistHook = Arc::new(hook);
        match self.shared.on_relisted.lock() {
            Ok(mut hooks) => hooks.push(hook),
            Err(poisoned) => poisoned.into_inner().push(hook),
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
        let mut oversized = live.oversized.clone();
        oversized.mark_unchanged();
        let answer = tokio::select! {
            answer = live.peer.call_tool(params) => answer,
            () = dropped_oversized(&mut oversized) => return Err(too_big(&self.config.name)),
        };
        let result = match answer {
            Ok(result) => result,
            Err(e @ (ServiceError::TransportClosed | ServiceError::TransportSend(_))) => {
                return Err(self.stopped_under(&live, e).await)
            }
            Err(e) => return Err(format!("the call failed: {e}")),
        };
        let mut text = String::new();
        for block in &result.content {
            // Text is copied once (never through a JSON value: a result
            // near the message bound would be held three times over).
            if let Some(said) = block.as_text() {
                text.push_str(&said.text);
            } else {
                let value = serde_json::to_value(block).unwrap_or(Value::Null);
                if let Some(kind) = value.get("type").and_then(Value::as_str) {
                    text.push_str(&format!("[{kind} content]"));
                }
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

/// Resolves when the server sent a message over the bound (rmcp dropped
/// it): the answer a call waits for may have been that one. Never, on a
/// connection that has no such watch (HTTP: rmcp refuses its own way).
async fn dropped_oversized(oversized: &mut tokio::sync::watch::Receiver<u64>) {
    if oversized.changed().await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// What a call is told when its server's message was over the bound.
fn too_big(name: &str) -> String {
    format!(
        "the MCP server `{name}` sent a message larger than {} MiB; it was dropped as it arrived, never held whole",
        MAX_MESSAGE_BYTES / (1024 * 1024)
    )
}

impl Drop for McpServer {
    fn drop(&mut self) {
        // The supervisor holds its own handle on the shared state: without
        // this it would keep the server running after the last user left.
        self.shared.closing.send_replace(true);
    }
}
