//! The load, relay and soak tool (docs/load.md). Spawns `pensive mock-upstream`
//! and `pensive serve` on loopback ports, drives them, writes
//! `target/bench/results/<mode>.json` and kills both at the end.
//!
//! cargo build --release --features ssr --bin pensive
//! cargo run --release --features ssr --example load -- relay|concurrency|ssr|soak

mod client;
mod concurrency;
mod procs;
mod reattach;
mod relay;
mod replicas;
mod report;
mod soak;
mod ssr;

use clap::{Parser, Subcommand};
use pensive::server::providers::wire::Dialect;

#[derive(Parser)]
#[command(name = "load", about = "Load, relay and soak measurements of pensive")]
struct Cli {
    /// The app listens here, the mock on the next port.
    #[arg(long, default_value_t = 5000)]
    port: u16,
    /// The wire dialect the app speaks to the mock.
    #[arg(long, default_value = "chat")]
    dialect: String,
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Subcommand)]
enum Mode {
    /// Relay cost: a full-speed turn direct vs through the app; added latency.
    Relay {
        #[arg(long, default_value_t = 20_000)]
        chunks: usize,
        /// Timed runs per path (after one warm-up run).
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Stamped chunks per path for the latency figures.
        #[arg(long, default_value_t = 2000)]
        stamps: usize,
    },
    /// N concurrent paced turns, N stepped up.
    Concurrency {
        #[arg(long, value_delimiter = ',', default_value = "250,500,1000,1500,2000")]
        steps: Vec<usize>,
        /// Milliseconds between the mock's chunks.
        #[arg(long, default_value_t = 20)]
        pace_ms: u64,
    },
    /// Continuous turns for a while; memory and descriptors must not grow.
    Soak {
        #[arg(long, default_value_t = 10.0)]
        minutes: f64,
        #[arg(long, default_value_t = 50)]
        concurrent: usize,
        #[arg(long, default_value_t = 10)]
        pace_ms: u64,
    },
    /// A page attaching to a turn with a megabyte of reasoning.
    Reattach {
        /// Firehose chunks (9 bytes each, half of them reasoning).
        #[arg(long, default_value_t = 240_000)]
        chunks: usize,
    },
    /// Two replicas sharing a Redis, under load: per-event latency through
    /// the replica running a turn and through the other.
    Replicas {
        /// Paced turns running alongside, spread over both replicas (0: the
        /// relay's load, which its goals are set for).
        #[arg(long, default_value_t = 0)]
        background: usize,
        /// Milliseconds between the mock's chunks in the background turns.
        #[arg(long, default_value_t = 20)]
        pace_ms: u64,
        /// Stamped chunks per path for the latency figures.
        #[arg(long, default_value_t = 2000)]
        stamps: usize,
    },
    /// Server-rendered page throughput with wrk.
    Ssr {
        #[arg(long, default_value_t = 10)]
        seconds: u64,
    },
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match run(cli).await {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("load: the run failed its checks (see above)");
            std::process::ExitCode::FAILURE
        }
        Err(message) => {
            eprintln!("load: {message}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Runs a mode; `Ok(false)` when a check that must hold did not.
async fn run(cli: Cli) -> Result<bool, String> {
    let dialect =
        Dialect::from_name(&cli.dialect).ok_or(format!("unknown dialect {:?}", cli.dialect))?;
    let name = match &cli.mode {
        Mode::Relay { .. } => "relay",
        Mode::Concurrency { .. } => "concurrency",
        Mode::Soak { .. } => "soak",
        Mode::Ssr { .. } => "ssr",
        Mode::Reattach { .. } => "reattach",
        Mode::Replicas { .. } => "replicas",
    };
    if let Some(limit) = procs::fd_limit() {
        println!("open-file limit: {limit} (raise with `ulimit -n` for large N)");
    }
    let load_before = procs::load_average();
    // Replicas: a redis-server on port + 2 and a second app on port + 3.
    let redis_url = format!("redis://127.0.0.1:{}/", cli.port + 2);
    let redis = match cli.mode {
        Mode::Replicas { .. } => {
            let redis = procs::spawn_redis(name, cli.port + 2)?;
            procs::wait_for_port(cli.port + 2).await?;
            Some(redis)
        }
        _ => None,
    };
    let shared: Vec<(&str, &str)> = match redis {
        Some(_) => vec![("PENSIVE_REDIS_URL", redis_url.as_str())],
        None => Vec::new(),
    };
    let servers = procs::start(name, cli.port, dialect, &shared).await?;
    println!(
        "pensive (pid {}) on {}, mock (pid {}) on {}, dialect {}",
        servers.pensive.pid(),
        servers.app,
        servers.mock.pid(),
        servers.upstream,
        dialect.name()
    );
    let (title, rows, passed) = match cli.mode {
        Mode::Relay {
            chunks,
            runs,
            stamps,
        } => {
            let rows = relay::run(&servers, chunks, runs, stamps).await?;
            (
                "Relay cost: direct from the mock vs through POST /api/chat",
                rows,
                true,
            )
        }
        Mode::Concurrency { steps, pace_ms } => {
            let rows = concurrency::run(&servers, &steps, pace_ms).await?;
            ("Concurrent paced turns through POST /api/chat", rows, true)
        }
        Mode::Soak {
            minutes,
            concurrent,
            pace_ms,
        } => {
            let (rows, passed) = soak::run(&servers, minutes, concurrent, pace_ms).await?;
            (
                "Soak: continuous turns, memory and descriptors",
                rows,
                passed,
            )
        }
        Mode::Reattach { chunks } => {
            let rows = reattach::run(&servers, chunks).await?;
            let passed = rows.iter().all(|r| r.met != Some(false));
            (
                "Attaching again to a turn with 1 MB of reasoning",
                rows,
                passed,
            )
        }
        Mode::Replicas {
            background,
            pace_ms,
            stamps,
        } => {
            let other_port = cli.port + 3;
            let other = format!("http://127.0.0.1:{other_port}");
            let _second = procs::spawn_app(
                name,
                "second",
                other_port,
                dialect,
                &servers.upstream,
                &shared,
            )?;
            procs::wait_until_up(&format!("{other}/healthz")).await?;
            let (rows, passed) =
                replicas::run(&servers, &other, background, pace_ms, stamps).await?;
            (
                "Two replicas sharing a Redis: per-event latency through each",
                rows,
                passed,
            )
        }
        Mode::Ssr { seconds } => {
            let rows = ssr::run(&servers.app, seconds).await?;
            let passed = rows.iter().all(|r| r.met != Some(false));
            ("Server-rendered GET / with wrk (keep-alive)", rows, passed)
        }
    };
    // The machine's other work competes for the same cores: record how busy it was.
    let mut rows = rows;
    rows.extend(
        [("start", load_before), ("end", procs::load_average())]
            .into_iter()
            .filter_map(|(when, load)| {
                Some(report::Row::info(
                    format!("machine load average (1 min) at the {when}"),
                    load?,
                    &format!("runnable threads, {} cores", procs::cores()),
                ))
            }),
    );
    report::write(name, title, &rows)?;
    if let Some((rss, hwm)) = procs::memory_kib(servers.pensive.pid()) {
        println!(
            "pensive at the end: RSS {:.1} MiB, peak {:.1} MiB",
            rss as f64 / 1024.0,
            hwm as f64 / 1024.0
        );
    }
    Ok(passed)
}
