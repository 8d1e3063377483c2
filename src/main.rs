//! The `pensive` command: the web app (`serve`, the default), `parse` for
//! recorded provider streams, and `mock-upstream`, a deterministic provider.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand};
use leptos::config::get_configuration;
use pensive::server::http::router::build_router;
use pensive::server::http::serve::{serve as serve_app, ServeLimits};
use pensive::server::mock::upstream::{replay_events, serve_on, MockConfig, MockState};
use pensive::server::parse::{parse_recording, ParseOptions};
use pensive::server::providers::wire::Dialect;
use pensive::server::tags::TagSet;
use pensive::server::tools::{hashes::ToolHashes, mcp, ToolBox};
use pensive::server::{AppConfig, TurnService};
use pensive::turn::framer::ndjson_line;
use tracing_subscriber::EnvFilter;

#[derive(Parser)]
#[command(
    name = "pensive",
    about = "Chat with a reasoning model and watch it think"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the web app on LEPTOS_SITE_ADDR (default 127.0.0.1:3000).
    Serve,
    /// Print the TurnEvents a recorded provider stream (SSE or NDJSON) produces.
    Parse {
        /// auto, chat, responses, anthropic, gemini or ollama.
        #[arg(long, default_value = "auto")]
        dialect: String,
        /// Inline tags to extract, replacing the defaults (e.g. think,thought); "none" for none.
        #[arg(long)]
        tags: Option<String>,
        /// The output starts inside a thinking block (prefilled <think>).
        #[arg(long)]
        start_in_thinking: bool,
        /// The recording; "-" or nothing reads standard input.
        file: Option<PathBuf>,
    },
    /// The configured MCP servers' tools, and one call, as Pensive's client sees them.
    Mcp {
        #[command(subcommand)]
        action: McpAction,
    },
    /// Run a deterministic provider speaking every dialect (tests, benchmarks).
    MockUpstream {
        #[arg(long, default_value = "127.0.0.1:4000")]
        addr: String,
        /// Serve this recording for every request instead of scripted scenarios.
        #[arg(long)]
        replay: Option<PathBuf>,
        /// Only with --replay: the recording's dialect (informational; paths decide).
        #[arg(long)]
        dialect: Option<String>,
        /// Pause before each chunk, in milliseconds.
        #[arg(long, default_value_t = 0)]
        delay_ms: u64,
    },
}

#[derive(Subcommand)]
enum McpAction {
    /// List each server's tools (one server, if named), as the model is offered them.
    List {
        server: Option<String>,
        /// Reach the Streamable HTTP server at this URL instead of the
        /// configured ones; it goes by SERVER (default `url`).
        #[arg(long)]
        url: Option<String>,
        /// Print each tool whole (name, description, JSON Schema), one JSON object a line.
        #[arg(long)]
        json: bool,
    },
    /// Call one tool with JSON arguments (default `{}`) and print its result.
    Call {
        server: String,
        tool: String,
        arguments: Option<String>,
        /// Reach the Streamable HTTP server at this URL instead of the
        /// configured one named SERVER.
        #[arg(long)]
        url: Option<String>,
    },
}

/// Dependencies whose logs carry what Pensive must never write down, held
/// to these levels whatever `RUST_LOG` says: async-openai logs a body it
/// cannot read at ERROR, whole (a gateway's 401 quoting the key, a chunk of
/// answer); hyper, reqwest and h2 name the provider's address at DEBUG.
/// Pensive's own log line per turn (`turn_log`) says what went wrong.
const QUIET_DEPENDENCIES: [&str; 5] = [
    "async_openai=off",
    "hyper=warn",
    "hyper_util=warn",
    "reqwest=warn",
    "h2=warn",
];

/// `RUST_LOG`, or `info` (rmcp at `warn`: it logs each server's whole
/// handshake, its instructions, at info), with [`QUIET_DEPENDENCIES`].
fn log_filter() -> EnvFilter {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,rmcp=warn"));
    QUIET_DEPENDENCIES
        .iter()
        .filter_map(|directive| directive.parse().ok())
        .fold(filter, EnvFilter::add_directive)
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(log_filter())
        .with_writer(std::io::stderr)
        // Colour only on a terminal: log files and collectors get plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cli = Cli::parse();
    let result = match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve().await,
        Command::Parse {
            dialect,
            tags,
            start_in_thinking,
            file,
        } => parse(&dialect, tags.as_deref(), start_in_thinking, file),
        Command::MockUpstream {
            addr,
            replay,
            dialect,
            delay_ms,
        } => mock_upstream(&addr, replay, dialect, delay_ms).await,
        Command::Mcp { action } => mcp(action).await,
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("pensive: {message}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Starts every configured MCP server side by side, without waiting for
/// any: the site serves at once, a server still starting offers no tools
/// yet, and one that fails is logged and listed as unavailable.
fn start_tools() -> Result<ToolBox, String> {
    let get = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let servers: Vec<_> = mcp::load(get)?
        .into_iter()
        .map(mcp::McpServer::start)
        .collect();
    let hashes = tool_hashes(&get, !servers.is_empty());
    Ok(ToolBox::with_servers(servers).with_hashes(hashes))
}

/// What each tool said when the user first met it (a tool changed since is
/// held). Not even read without a server to check.
fn tool_hashes(get: &impl Fn(&str) -> Option<String>, any_servers: bool) -> ToolHashes {
    match pensive::server::tools::hashes::default_path(get) {
        Some(_) if !any_servers => ToolHashes::in_memory(),
        Some(path) => ToolHashes::open(path),
        None => {
            tracing::warn!(
                "neither PENSIVE_TOOL_HASHES nor HOME is set: tool hashes last until Pensive stops"
            );
            ToolHashes::in_memory()
        }
    }
}

/// The servers `pensive mcp` talks to: the one at `url` (named `name`, or
/// `url`), or the configured ones (only `name`, if given), whose tools are
/// held as in the app when they changed. Unlike `serve`, a server that
/// cannot be reached is an error: the command is about it.
async fn cli_tools(name: Option<&str>, url: Option<String>) -> Result<ToolBox, String> {
    let Some(url) = url else {
        let get = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let mut configs = mcp::load(get)?;
        if let Some(name) = name {
            configs.retain(|config| config.name == name);
            if configs.is_empty() {
                return Err(format!("no enabled MCP server is named `{name}`"));
            }
        }
        // Side by side: one slow server does not add to the others' time.
        let servers = futures::future::try_join_all(configs.into_iter().map(mcp::connect)).await?;
        let hashes = tool_hashes(&get, !servers.is_empty());
        return Ok(ToolBox::with_servers(servers).with_hashes(hashes));
    };
    let name = name.unwrap_or("url");
    mcp::config::check_name(name)?;
    let config = mcp::McpServerConfig {
        name: name.to_owned(),
        transport: mcp::Transport::Http {
            url,
            headers: Default::default(),
        },
        trusted: false,
        timeout: mcp::config::DEFAULT_TIMEOUT,
        ask_open_world: true,
    };
    Ok(ToolBox::with_servers(vec![mcp::connect(config).await?]))
}

/// `pensive mcp list|call`: the client as the app uses it, from the shell
/// (and what the MCP conformance suite drives: tests/fixtures/mcp/conformance/).
async fn mcp(action: McpAction) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match action {
        McpAction::List { server, url, json } => {
            let tools = cli_tools(server.as_deref(), url).await?;
            for spec in tools.listed(None) {
                let line = if json {
                    serde_json::to_string(&spec).map_err(|e| e.to_string())?
                } else {
                    let approval = match tools.approval(&spec.name) {
                        pensive::turn::Approval::Needed => "asks first",
                        pensive::turn::Approval::NotNeeded => "runs at once",
                        pensive::turn::Approval::Held => {
                            "held: the server changed what it says it does"
                        }
                    };
                    let summary = spec.description.lines().next().unwrap_or("");
                    format!("{}\t{approval}\t{summary}", spec.name)
                };
                let _ = writeln!(out, "{line}");
            }
            tools.close().await;
        }
        McpAction::Call {
            server,
            tool,
            arguments,
            url,
        } => {
            let arguments: serde_json::Value =
                serde_json::from_str(arguments.as_deref().unwrap_or("{}"))
                    .map_err(|e| format!("the arguments are not JSON: {e}"))?;
            let tools = cli_tools(Some(&server), url).await?;
            let outcome = tools
                .call(&format!("{server}__{tool}"), Ok(&arguments))
                .await;
            tools.close().await;
            let _ = writeln!(out, "{}", outcome.output);
            if outcome.status != pensive::turn::ToolStatus::Ok {
                return Err(format!("the call ended {}", outcome.status.label()));
            }
        }
    }
    Ok(())
}

async fn serve() -> Result<(), String> {
    let mut config = AppConfig::from_env().map_err(|e| e.to_string())?;
    let tools = start_tools()?;
    // What the providers' model lists say about each model (a few seconds at most).
    pensive::server::config::discover(&mut config).await;
    let leptos = get_configuration(None).map_err(|e| format!("Leptos configuration: {e}"))?;
    let mut options = leptos.leptos_options;
    if options.output_name.is_empty() {
        // Running outside cargo-leptos without LEPTOS_OUTPUT_NAME: the crate's name.
        options.output_name = "pensive".into();
    }
    let addr = options.site_addr;
    let exposure = pensive::server::http::access::check_exposure(
        addr,
        config.access_token.is_some(),
        config.site_access.allow_open,
    )?;
    if let Some(warning) = exposure {
        tracing::warn!("{warning}");
    }
    if addr.ip().is_unspecified() && config.site_access.allowed_hosts.is_empty() {
        tracing::warn!(
            "listening on {addr}: the API answers only to localhost and 127.0.0.1 until PENSIVE_ALLOWED_HOSTS names the host names browsers use"
        );
    }
    for model in &config.models {
        tracing::info!(model = %model.id, provider = model.provider.name(), "model configured");
    }
    let grace = config.shutdown_grace;
    let limits = ServeLimits::from_config(&config);
    let turns = TurnService::new(config).with_tools(tools.clone());
    let app = build_router(turns.clone(), options);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    tracing::info!("serving http://{addr}");
    serve_app(listener, app, limits, shutdown_signal(turns, grace)).await;
    // Stdio servers end with Pensive.
    tools.close().await;
    Ok(())
}

/// Resolves on SIGTERM or Ctrl-C: the serve loop then stops accepting and
/// waits for open responses. Running turns get `grace` to finish; then each ends with an
/// `interrupted` error event (the browser keeps what arrived), their responses
/// complete, and the process exits.
async fn shutdown_signal(turns: TurnService, grace: Duration) {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = terminate => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    tracing::info!(
        active_turns = turns.active_turns(),
        grace_secs = grace.as_secs_f64(),
        "shutting down: no new connections; running turns may finish"
    );
    tokio::spawn(async move {
        tokio::time::sleep(grace).await;
        if turns.active_turns() > 0 {
            tracing::info!(
                active_turns = turns.active_turns(),
                "grace period over: ending running turns"
            );
        }
        turns.end_running_turns();
    });
}

fn parse(
    dialect: &str,
    tags: Option<&str>,
    start_in_thinking: bool,
    file: Option<PathBuf>,
) -> Result<(), String> {
    let dialect = match dialect {
        "auto" => None,
        name => Some(Dialect::from_name(name).ok_or_else(|| format!("unknown dialect {name:?}"))?),
    };
    let tags = match tags {
        None => TagSet::default(),
        Some("none") => TagSet::none(),
        Some(list) => TagSet::parse_list(list).map_err(|e| e.to_string())?,
    };
    let input = read_input(file)?;
    let options = ParseOptions {
        dialect,
        tags,
        start_in_thinking,
    };
    let events = parse_recording(&input, &options).map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    for event in &events {
        out.write_all(ndjson_line(event).as_bytes())
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn read_input(file: Option<PathBuf>) -> Result<Vec<u8>, String> {
    match file {
        Some(path) if path.as_os_str() != "-" => {
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
        }
        _ => {
            let mut buffer = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buffer)
                .map_err(|e| format!("cannot read standard input: {e}"))?;
            Ok(buffer)
        }
    }
}

async fn mock_upstream(
    addr: &str,
    replay: Option<PathBuf>,
    dialect: Option<String>,
    delay_ms: u64,
) -> Result<(), String> {
    if let Some(name) = &dialect {
        Dialect::from_name(name).ok_or_else(|| format!("unknown dialect {name:?}"))?;
    }
    let replay = match replay {
        Some(path) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            Some(Arc::new(replay_events(&text)))
        }
        None => None,
    };
    let state = MockState::new(MockConfig {
        delay: Duration::from_millis(delay_ms),
        replay,
    });
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    tracing::info!("mock upstream on http://{addr}");
    serve_on(listener, state).await.map_err(|e| e.to_string())
}
