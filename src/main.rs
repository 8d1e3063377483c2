//! The `pensive` command: the web app (`serve`, the default).

use clap::{Parser, Subcommand};
use leptos::config::get_configuration;
use pensive::server::{router::build_router, AppConfig, TurnService};
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
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve().await,
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("pensive: {message}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn serve() -> Result<(), String> {
    let config = AppConfig::from_env().map_err(|e| e.to_string())?;
    let leptos = get_configuration(None).map_err(|e| format!("Leptos configuration: {e}"))?;
    let options = leptos.leptos_options;
    let addr = options.site_addr;
    for model in &config.models {
        tracing::info!(model = %model.id, provider = ?model.provider, "model configured");
    }
    let app = build_router(TurnService::new(config), options);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    tracing::info!("serving http://{addr}");
    axum::serve(listener, app.into_make_service())
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(|e| e.to_string())
}
