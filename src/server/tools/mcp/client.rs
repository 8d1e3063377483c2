//! One connected MCP server, through rmcp (the official Rust SDK): a stdio
//! child started without a shell, with only the environment its config
//! names plus PATH and HOME and its stderr in Pensive's log; or a
//! Streamable HTTP endpoint. Its tools are listed once, at connection.

use std::collections::HashMap;
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion, Tool,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::RoleClient;
use serde_json::Value;
use tokio::io::AsyncBufReadExt;

use super::config::{McpServerConfig, Transport};

/// Longest a server may take to start and list its tools.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// A connected server and the tools it listed.
pub struct McpServer {
    pub config: McpServerConfig,
    pub tools: Vec<Tool>,
    service: RunningService<RoleClient, ClientConfig>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("name", &self.config.name)
            .field("tools", &self.tools.len())
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

fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    }
}

/// The environment a stdio server gets: its config's variables, PATH and HOME.
pub fn child_env(config_env: &std::collections::BTreeMap<String, String>) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = ["PATH", "HOME"]
        .into_iter()
        .filter_map(|name| std::env::var(name).ok().map(|v| (name.to_owned(), v)))
        .collect();
    env.extend(config_env.iter().map(|(k, v)| (k.clone(), v.clone())));
    env
}

/// Starts (or reaches) the server and lists its tools.
pub async fn connect(config: McpServerConfig) -> Result<McpServer, String> {
    let name = config.name.clone();
    let work = async {
        let service = match &config.transport {
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
                    .kill_on_drop(true);
                if let Some(cwd) = cwd {
                    cmd.current_dir(cwd);
                }
                let (transport, stderr) = TokioChildProcess::builder(cmd)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| format!("cannot start `{command}`: {e}"))?;
                if let Some(stderr) = stderr {
                    let server = name.clone();
                    tokio::spawn(async move {
                        let mut lines = tokio::io::BufReader::new(stderr).lines();
                        while let Ok(Some(line)) = lines.next_line().await {
                            tracing::info!(mcp_server = %server, "{line}");
                        }
                    });
                }
                client_info()
                    .serve_with_lifecycle(transport, lifecycle())
                    .await
                    .map_err(|e| e.to_string())?
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
                        .map_err(|e| e.to_string())?,
                    StreamableHttpClientTransportConfig::with_uri(url.as_str())
                        .custom_headers(custom),
                );
                client_info()
                    .serve_with_lifecycle(transport, lifecycle())
                    .await
                    .map_err(|e| e.to_string())?
            }
        };
        let tools = service
            .list_all_tools()
            .await
            .map_err(|e| format!("tools/list failed: {e}"))?;
        Ok::<_, String>((service, tools))
    };
    let (service, tools) = tokio::time::timeout(CONNECT_TIMEOUT, work)
        .await
        .map_err(|_| {
            format!(
                "MCP server `{name}` did not answer within {}s",
                CONNECT_TIMEOUT.as_secs()
            )
        })?
        .map_err(|e| format!("MCP server `{name}`: {e}"))?;
    Ok(McpServer {
        config,
        tools,
        service,
    })
}

impl McpServer {
    /// Calls `tool` with `arguments`: the text for the model and whether the
    /// tool said it failed (`isError`), or a protocol failure.
    pub async fn call(&self, tool: &str, arguments: &Value) -> Result<(String, bool), String> {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(map) = arguments {
            params = params.with_arguments(map.clone());
        }
        let result = self
            .service
            .call_tool(params)
            .await
            .map_err(|e| format!("the call failed: {e}"))?;
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

    /// Ends the connection (a stdio child is killed: rmcp's own cleanup
    /// runs on a task that a runtime shutting down may never run).
    pub async fn cancel(&self) {
        self.service.cancellation_token().cancel();
    }
}
