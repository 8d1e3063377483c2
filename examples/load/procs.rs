//! The processes under test: `pensive mock-upstream` and `pensive serve`,
//! spawned on loopback ports and killed when dropped, plus what Linux reports
//! about them (/proc/<pid>/status and /proc/<pid>/fd).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pensive::server::config::{ModelConfig, ProviderKind};
use pensive::server::mock::scripted::Pace;
use pensive::server::providers::wire::{Dialect, UpstreamModel};

/// A child process killed (and reaped) when dropped, even on an early return.
pub struct Proc {
    child: Child,
}

impl Proc {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The mock and the app, running.
pub struct Servers {
    pub pensive: Proc,
    pub mock: Proc,
    /// `http://127.0.0.1:<port>` of `pensive serve`.
    pub app: String,
    /// `http://127.0.0.1:<port>` of the mock.
    pub upstream: String,
    pub dialect: Dialect,
}

/// The `pensive` binary: `PENSIVE_BIN`, else the one cargo built next to this
/// example (`<target>/release/examples/load` → `<target>/release/pensive`).
fn pensive_bin() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("PENSIVE_BIN") {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let bin = exe
        .parent()
        .and_then(|examples| examples.parent())
        .map(|profile| profile.join("pensive"))
        .ok_or("cannot locate the target directory")?;
    if bin.exists() {
        Ok(bin)
    } else {
        Err(format!(
            "{} is missing: run `cargo build --release --features ssr --bin pensive` first",
            bin.display()
        ))
    }
}

/// Where the built site lives (`LEPTOS_SITE_ROOT`, else `<target>/site`).
fn site_root() -> PathBuf {
    if let Some(root) = std::env::var_os("LEPTOS_SITE_ROOT") {
        return PathBuf::from(root);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.parent()?.join("site")))
        .unwrap_or_else(|| PathBuf::from("target/site"))
}

/// The model configuration pointing at the mock, as the app will see it.
pub fn mock_model(dialect: Dialect, upstream: &str) -> ModelConfig {
    let base_url = match dialect {
        Dialect::Chat | Dialect::Responses => format!("{upstream}/v1"),
        _ => upstream.to_owned(),
    };
    ModelConfig {
        id: "mock-model".into(),
        label: "mock-model".into(),
        provider: ProviderKind::Wire(dialect),
        upstream: UpstreamModel {
            base_url,
            api_key: Some("load-test-key".into()),
            name: "mock-model".into(),
            ..UpstreamModel::default()
        },
        ..ModelConfig::demo(Pace::INSTANT)
    }
}

fn log_file(name: &str) -> Result<Stdio, String> {
    let dir = PathBuf::from("target/bench/logs");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(name);
    std::fs::File::create(&path)
        .map(Stdio::from)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Starts the mock on `port + 1` and the app on `port`, and waits until both answer.
pub async fn start(
    mode: &str,
    port: u16,
    dialect: Dialect,
    extra: &[(&str, &str)],
) -> Result<Servers, String> {
    let bin = pensive_bin()?;
    let upstream = format!("http://127.0.0.1:{}", port + 1);
    let app = format!("http://127.0.0.1:{port}");
    let mock = Proc {
        child: Command::new(&bin)
            .args([
                "mock-upstream",
                "--addr",
                &format!("127.0.0.1:{}", port + 1),
            ])
            .env_clear()
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(log_file(&format!("{mode}-mock.log"))?)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", bin.display()))?,
    };
    let pensive = spawn_app(mode, "pensive", port, dialect, &upstream, extra)?;
    let servers = Servers {
        pensive,
        mock,
        app,
        upstream,
        dialect,
    };
    wait_until_up(&format!("{}/_mock/stats", servers.upstream)).await?;
    wait_until_up(&format!("{}/healthz", servers.app)).await?;
    Ok(servers)
}

/// Starts `pensive serve` on `port` against the mock at `upstream`, with
/// `extra` settings; `name` names its log (`<mode>-<name>.log`).
pub fn spawn_app(
    mode: &str,
    name: &str,
    port: u16,
    dialect: Dialect,
    upstream: &str,
    extra: &[(&str, &str)],
) -> Result<Proc, String> {
    let bin = pensive_bin()?;
    let model = mock_model(dialect, upstream);
    // A clean environment: no configuration file or access token from the
    // caller's shell changes what is measured.
    let mut command = Command::new(&bin);
    command
        .arg("serve")
        .env_clear()
        .env("LEPTOS_SITE_ADDR", format!("127.0.0.1:{port}"))
        .env("LEPTOS_SITE_ROOT", site_root())
        .env("LEPTOS_OUTPUT_NAME", "pensive")
        .env("PENSIVE_PROVIDER", dialect.name())
        .env("PENSIVE_BASE_URL", &model.upstream.base_url)
        .env("PENSIVE_MODEL", &model.upstream.name)
        .env("PENSIVE_API_KEY", "load-test-key")
        // Every load turn comes from 127.0.0.1: no per-client turn limit,
        // and no per-address connection share (issue 21's cap of 16 would
        // turn the load tool's own connections away with 503s).
        .env("PENSIVE_MAX_TURNS_PER_CLIENT", "0")
        .env("PENSIVE_MAX_CONNECTIONS_PER_ADDRESS", "0")
        .env(
            "RUST_LOG",
            std::env::var("LOAD_PENSIVE_LOG").unwrap_or("info".into()),
        )
        .envs(extra.iter().copied())
        .stdout(Stdio::null())
        .stderr(log_file(&format!("{mode}-{name}.log"))?);
    let child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    Ok(Proc { child })
}

/// Debian's `redis-server` on `port`, without persistence (`make setup-redis`).
pub fn spawn_redis(mode: &str, port: u16) -> Result<Proc, String> {
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(log_file(&format!("{mode}-redis.log"))?)
        .spawn()
        .map_err(|e| format!("cannot start redis-server (make setup-redis): {e}"))?;
    Ok(Proc { child })
}

/// Waits until something accepts connections on 127.0.0.1:`port`.
pub async fn wait_for_port(port: u16) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(15);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        if Instant::now() > deadline {
            return Err(format!("nothing listens on 127.0.0.1:{port}"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

/// Polls `url` until it answers 200 (a freshly spawned server is binding).
pub async fn wait_until_up(url: &str) -> Result<(), String> {
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Ok(response) = client.get(url).send().await {
            if response.status().is_success() {
                return Ok(());
            }
        }
        if Instant::now() > deadline {
            return Err(format!("{url} did not come up (see target/bench/logs)"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Memory of a process in KiB: (VmRSS now, VmHWM = peak RSS so far).
pub fn memory_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse::<u64>()
            .ok()
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// CPU time (user + system) a process has used, in seconds; `None` = this process.
pub fn cpu_seconds(pid: Option<u32>) -> Option<f64> {
    let path = match pid {
        Some(pid) => format!("/proc/{pid}/stat"),
        None => "/proc/self/stat".into(),
    };
    let stat = std::fs::read_to_string(path).ok()?;
    // Fields after the command name (which may hold spaces) start at field 3;
    // utime and stime are fields 14 and 15, in clock ticks (USER_HZ = 100).
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// Seconds the threads of a process spent runnable but waiting for a CPU
/// (`/proc/<pid>/task/*/schedstat`, second field, ns); `None` = this process.
/// High when other programs take the cores: latency the app cannot help.
pub fn run_queue_wait_seconds(pid: Option<u32>) -> Option<f64> {
    let dir = match pid {
        Some(pid) => format!("/proc/{pid}/task"),
        None => "/proc/self/task".into(),
    };
    let mut total_ns = 0u64;
    for task in std::fs::read_dir(dir).ok()?.flatten() {
        let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
        total_ns += stat
            .split_whitespace()
            .nth(1)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
    }
    Some(total_ns as f64 / 1e9)
}

/// The 1-minute load average of the machine.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Cores this process may run on.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Open file descriptors of a process.
pub fn open_fds(pid: u32) -> Option<usize> {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .ok()
        .map(|d| d.count())
}

/// The soft limit on open files this process (and so its children) has.
pub fn fd_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    limits
        .lines()
        .find(|l| l.starts_with("Max open files"))?
        .split_whitespace()
        .nth(3)?
        .parse()
        .ok()
}

/// `GET <app>/healthz` → `active_turns`.
pub async fn active_turns(client: &reqwest::Client, app: &str) -> Result<u64, String> {
    let health: serde_json::Value = client
        .get(format!("{app}/healthz"))
        .send()
        .await
        .map_err(|e| format!("/healthz: {e}"))?
        .json()
        .await
        .map_err(|e| format!("/healthz: {e}"))?;
    health["active_turns"]
        .as_u64()
        .ok_or_else(|| format!("/healthz without active_turns: {health}"))
}

/// `GET <mock>/_mock/stats` → (active, closed_early).
pub async fn mock_stats(client: &reqwest::Client, upstream: &str) -> Result<(u64, u64), String> {
    let stats: serde_json::Value = client
        .get(format!("{upstream}/_mock/stats"))
        .send()
        .await
        .map_err(|e| format!("/_mock/stats: {e}"))?
        .json()
        .await
        .map_err(|e| format!("/_mock/stats: {e}"))?;
    Ok((
        stats["active"].as_u64().unwrap_or(u64::MAX),
        stats["closed_early"].as_u64().unwrap_or(u64::MAX),
    ))
}

/// Waits (bounded) until the app reports no live turn: a turn's count drops
/// when its stream is dropped, a moment after the client read `done`.
pub async fn settle(client: &reqwest::Client, app: &str) -> Result<u64, String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let active = active_turns(client, app).await?;
        if active == 0 || Instant::now() > deadline {
            return Ok(active);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
