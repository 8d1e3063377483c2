//! The real `pensive` binary as a process, for the tests that need one (a
//! signal, a socket's own behaviour, the memory of the server): start it and
//! the mock upstream on free loopback ports, speak raw HTTP/1.1 to it, read a
//! turn's events. Every wait is a bounded poll. Each test binary uses a part.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pensive::turn::framer::NdjsonFramer;
use pensive::turn::TurnEvent;

pub const BIN: &str = env!("CARGO_BIN_EXE_pensive");
pub const SENTINEL_KEY: &str = "sk-SENTINEL-lifecycle-91c2";

/// The tests' configuration for `models`: 5 s timeouts, no access token,
/// thinking shown, default limits, 1 s shutdown grace. A test changes what it
/// tests with `AppConfig { field, ..common::app_config(models) }`.
pub fn app_config(models: Vec<pensive::server::config::ModelConfig>) -> pensive::server::AppConfig {
    pensive::server::AppConfig {
        models,
        first_token_timeout: Duration::from_secs(5),
        idle_timeout: Duration::from_secs(5),
        access_token: None,
        site_access: Default::default(),
        show_thinking: true,
        limits: Default::default(),
        shutdown_grace: Duration::from_secs(1),
    }
}

/// A child process killed when the test ends, however it ends.
pub struct Running(pub Child);

impl Running {
    pub fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Polls `check` every 20 ms until it holds or `limit` passes.
pub fn wait_until(limit: Duration, what: &str, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while !check() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The body of `GET path`, or `None` if the server does not answer.
pub fn get(port: u16, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).ok()?;
    text.split("\r\n\r\n").nth(1).map(str::to_owned)
}

pub fn json_field(port: u16, path: &str, field: &str) -> Option<u64> {
    let body = get(port, path)?;
    let body = body.trim();
    // Tolerate a chunked body: take the JSON object inside.
    let json = &body[body.find('{')?..=body.rfind('}')?];
    serde_json::from_str::<serde_json::Value>(json).ok()?[field].as_u64()
}

/// `pensive mock-upstream` on a free port, pausing `delay_ms` before each chunk.
pub fn mock_upstream(delay_ms: u64) -> (Running, u16) {
    let port = free_port();
    let child = Command::new(BIN)
        .args(["mock-upstream", "--addr", &format!("127.0.0.1:{port}")])
        .args(["--delay-ms", &delay_ms.to_string()])
        .stderr(Stdio::null())
        .spawn()
        .expect("start the mock");
    let running = Running(child);
    wait_until(Duration::from_secs(20), "the mock", || {
        json_field(port, "/_mock/stats", "active").is_some()
    });
    (running, port)
}

/// `pensive serve` on a free port with `env` set, logging to `log` at `level`
/// (`""`: no `RUST_LOG`, the server's default filter).
pub fn serve_with(env: &[(&str, String)], log: Stdio, level: &str) -> (Running, u16) {
    let port = free_port();
    let mut command = Command::new(BIN);
    command
        .arg("serve")
        .env("LEPTOS_SITE_ADDR", format!("127.0.0.1:{port}"))
        .env("LEPTOS_SITE_ROOT", "target/site")
        .stderr(log);
    match level {
        "" => command.env_remove("RUST_LOG"),
        level => command.env("RUST_LOG", level),
    };
    for (name, value) in env {
        command.env(name, value);
    }
    let running = Running(command.spawn().expect("start pensive serve"));
    wait_until(Duration::from_secs(20), "pensive serve", || {
        json_field(port, "/healthz", "active_turns").is_some()
    });
    (running, port)
}

/// The environment that points `pensive serve` at the mock in `dialect`.
pub fn upstream_env(dialect: &str, mock: u16) -> Vec<(&'static str, String)> {
    let base = match dialect {
        "openai" | "responses" => format!("http://127.0.0.1:{mock}/v1"),
        _ => format!("http://127.0.0.1:{mock}"),
    };
    vec![
        ("PENSIVE_PROVIDER", dialect.to_owned()),
        ("PENSIVE_BASE_URL", base),
        ("PENSIVE_MODEL", "mock-model".to_owned()),
        ("PENSIVE_API_KEY", SENTINEL_KEY.to_owned()),
    ]
}

/// A file in the temp directory, removed when dropped.
pub struct TempFile(std::path::PathBuf);

impl TempFile {
    pub fn write(name: &str, text: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let path =
            std::env::temp_dir().join(format!("pensive-{name}-{}-{nanos}", std::process::id()));
        std::fs::write(&path, text).expect("write a temporary file");
        Self(path)
    }

    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A `PENSIVE_CONFIG` file with one model per dialect in `providers` (as
/// `PENSIVE_PROVIDER` names them), each on the mock and named after it.
pub fn models_config(mock: u16, providers: &[&str]) -> TempFile {
    let mut text = String::new();
    for provider in providers {
        let base = match *provider {
            "openai" | "responses" => format!("http://127.0.0.1:{mock}/v1"),
            _ => format!("http://127.0.0.1:{mock}"),
        };
        text.push_str(&format!(
            "[[models]]\nid = \"{provider}\"\nprovider = \"{provider}\"\nbase_url = \"{base}\"\nmodel = \"mock-model\"\napi_key = \"{SENTINEL_KEY}\"\n\n"
        ));
    }
    TempFile::write("models.toml", &text)
}

/// Sends `POST /api/chat` for one user message (and model, if given).
pub fn send_turn(port: u16, text: &str, model: Option<&str>) -> TcpStream {
    let mut request = serde_json::json!({"messages": [{"role": "user", "content": text}]});
    if let Some(model) = model {
        request["model"] = model.into();
    }
    let body = serde_json::json!({ "request": request }).to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(
        stream,
        "POST /api/chat HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    stream
}

/// Opens a turn and returns a reader positioned after the response headers.
pub fn open_turn(port: u16, text: &str) -> BufReader<TcpStream> {
    open_turn_on(port, text, None)
}

/// `open_turn` for a named model.
pub fn open_turn_on(port: u16, text: &str, model: Option<&str>) -> BufReader<TcpStream> {
    let mut reader = BufReader::new(send_turn(port, text, model));
    let mut line = String::new();
    while reader.read_line(&mut line).map(|n| n > 0).unwrap_or(false) && line != "\r\n" {
        line.clear();
    }
    reader
}

/// Reads the chunked NDJSON body to its end and decodes the events.
pub fn read_events(reader: &mut BufReader<TcpStream>) -> Vec<TurnEvent> {
    let mut framer = NdjsonFramer::new();
    let mut events = Vec::new();
    loop {
        let mut size = String::new();
        if reader.read_line(&mut size).unwrap_or(0) == 0 {
            break;
        }
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            continue;
        };
        if size == 0 {
            break;
        }
        let mut chunk = vec![0; size + 2];
        if reader.read_exact(&mut chunk).is_err() {
            break;
        }
        events.extend(framer.push(&chunk[..size]).into_iter().flatten());
    }
    events
}

/// Sends SIGTERM to the process.
pub fn sigterm(child: &Running) {
    let status = Command::new("kill")
        .args(["-TERM", &child.pid().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
}

/// The process's peak resident memory so far (`VmHWM`), in bytes.
pub fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM in /proc/<pid>/status");
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("VmHWM in kB");
    kib * 1024
}

/// The mock upstream in this test's own runtime, on a free loopback port:
/// its port and its state (request record, stream counters).
pub async fn start_mock_in_process() -> (u16, pensive::server::mock::upstream::MockState) {
    use pensive::server::mock::upstream::{serve_on, MockConfig, MockState};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a loopback port for the mock");
    let port = listener.local_addr().expect("the mock's address").port();
    let state = MockState::new(MockConfig::default());
    tokio::spawn(serve_on(listener, state.clone()));
    (port, state)
}

/// `POST /api/chat` with `body` through the router in process: the raw
/// response body.
pub async fn post_chat_bytes(app: &axum::Router, body: &serde_json::Value) -> Vec<u8> {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let request = axum::http::Request::post("/api/chat")
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body.to_string()))
        .expect("request");
    let response = app.clone().oneshot(request).await.expect("response");
    response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes()
        .to_vec()
}

/// `POST /api/chat` with `body` in process: its events, checked against the
/// wire contract (`what` names the turn in a failure).
pub async fn post_chat(app: &axum::Router, body: &serde_json::Value, what: &str) -> Vec<TurnEvent> {
    let bytes = post_chat_bytes(app, body).await;
    let mut framer = NdjsonFramer::new();
    let mut events: Vec<TurnEvent> = framer
        .push(&bytes)
        .into_iter()
        .map(|e| e.expect("ndjson"))
        .collect();
    events.extend(framer.finish().map(|e| e.expect("ndjson")));
    pensive::turn::contract::check_stream(&events)
        .unwrap_or_else(|e| panic!("{what}: {e}\n{events:?}"));
    events
}

/// Model `m`: the mock upstream's `mock-model` on `port`, spoken to as
/// Chat completions (the mock plays its tool scenarios to it).
pub fn mock_chat_model(port: u16) -> pensive::server::config::ModelConfig {
    use pensive::server::config::{ModelConfig, ProviderKind};
    use pensive::server::providers::wire::{Dialect, UpstreamModel};
    ModelConfig {
        id: "m".into(),
        label: "m".into(),
        provider: ProviderKind::Wire(Dialect::Chat),
        upstream: UpstreamModel {
            base_url: format!("http://127.0.0.1:{port}/v1"),
            api_key: Some("sk-test".into()),
            name: "mock-model".into(),
            ..UpstreamModel::default()
        },
        demo_pace: pensive::server::mock::scripted::Pace::INSTANT,
        tags: pensive::server::tags::TagSet::default(),
        start_in_thinking: false,
    }
}
