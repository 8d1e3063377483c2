//! The real `pensive` binary as a process: graceful shutdown on SIGTERM, and a
//! client killed mid-turn (curl) closing the provider request. Loopback only;
//! every wait is a bounded poll.

#![cfg(feature = "ssr")]

use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pensive::turn::contract::thinking_text;
use pensive::turn::framer::NdjsonFramer;
use pensive::turn::{ErrorKind, TurnEvent};

const BIN: &str = env!("CARGO_BIN_EXE_pensive");
const SENTINEL_KEY: &str = "sk-SENTINEL-lifecycle-91c2";

/// A child process killed when the test ends, however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Polls `check` every 20 ms until it holds or `limit` passes.
fn wait_until(limit: Duration, what: &str, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while !check() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn get(port: u16, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    use std::io::Write;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).ok()?;
    text.split("\r\n\r\n").nth(1).map(str::to_owned)
}

fn json_field(port: u16, path: &str, field: &str) -> Option<u64> {
    let body = get(port, path)?;
    let body = body.trim();
    // Tolerate a chunked body: take the JSON object inside.
    let json = &body[body.find('{')?..=body.rfind('}')?];
    serde_json::from_str::<serde_json::Value>(json).ok()?[field].as_u64()
}

fn mock_upstream(delay_ms: u64) -> (Running, u16) {
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

/// `pensive serve` on the demo model (or against `mock`), with a grace period.
fn serve(grace_secs: f64, demo_pace: f64, mock: Option<u16>) -> (Running, u16) {
    serve_logging(grace_secs, demo_pace, mock, Stdio::null(), "warn")
}

fn serve_logging(
    grace_secs: f64,
    demo_pace: f64,
    mock: Option<u16>,
    log: Stdio,
    level: &str,
) -> (Running, u16) {
    let port = free_port();
    let mut command = Command::new(BIN);
    command
        .arg("serve")
        .env("LEPTOS_SITE_ADDR", format!("127.0.0.1:{port}"))
        .env("LEPTOS_SITE_ROOT", "target/site")
        .env("PENSIVE_DEMO_PACE", demo_pace.to_string())
        .env("PENSIVE_SHUTDOWN_GRACE_SECS", grace_secs.to_string())
        .env("RUST_LOG", level)
        .stderr(log);
    if let Some(mock) = mock {
        command
            .env("PENSIVE_PROVIDER", "anthropic")
            .env("PENSIVE_BASE_URL", format!("http://127.0.0.1:{mock}"))
            .env("PENSIVE_MODEL", "mock-model")
            .env("PENSIVE_API_KEY", SENTINEL_KEY);
    }
    let running = Running(command.spawn().expect("start pensive serve"));
    wait_until(Duration::from_secs(20), "pensive serve", || {
        json_field(port, "/healthz", "active_turns").is_some()
    });
    (running, port)
}

/// Opens a turn and returns a reader positioned after the response headers.
fn open_turn(port: u16, text: &str) -> BufReader<TcpStream> {
    use std::io::Write;
    let body = serde_json::json!({"request": {"messages": [{"role": "user", "content": text}]}})
        .to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(
        stream,
        "POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    while reader.read_line(&mut line).map(|n| n > 0).unwrap_or(false) && line != "\r\n" {
        line.clear();
    }
    reader
}

/// Reads the chunked NDJSON body to its end and decodes the events.
fn read_events(reader: &mut BufReader<TcpStream>) -> Vec<TurnEvent> {
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

fn sigterm(child: &Running) {
    let status = Command::new("kill")
        .args(["-TERM", &child.0.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
}

#[test]
fn on_sigterm_new_connections_stop_and_a_long_turn_ends_interrupted_after_the_grace_period() {
    let (mut server, port) = serve(1.0, 1.0, None); // a demo turn of about 8 s
    let mut turn = open_turn(port, "Why is the sky blue?");
    let mut first = String::new();
    turn.read_line(&mut first).expect("first chunk size");
    sigterm(&server);
    let signalled = Instant::now();
    wait_until(Duration::from_secs(5), "the listener to close", || {
        TcpStream::connect(("127.0.0.1", port)).is_err()
    });
    let events = read_events(&mut turn);
    let ended = signalled.elapsed();
    let Some(TurnEvent::Error { kind, message }) = events.last() else {
        panic!("the turn ends with an error event: {events:?}");
    };
    assert_eq!(*kind, ErrorKind::Interrupted, "{message}");
    assert!(message.contains("restarting"), "{message}");
    assert!(
        !thinking_text(&events).is_empty(),
        "reasoning so far arrives"
    );
    assert!(
        ended >= Duration::from_millis(900) && ended < Duration::from_secs(5),
        "ended {ended:?} after SIGTERM, grace 1 s"
    );
    wait_until(Duration::from_secs(5), "the process to exit", || {
        matches!(server.0.try_wait(), Ok(Some(_)))
    });
    assert!(server
        .0
        .try_wait()
        .ok()
        .flatten()
        .is_some_and(|s| s.success()));
}

#[test]
fn on_sigterm_a_turn_that_fits_the_grace_period_finishes_normally() {
    let (mut server, port) = serve(30.0, 0.15, None); // a demo turn of about 1.2 s
    let mut turn = open_turn(port, "Why is the sky blue?");
    let mut first = String::new();
    turn.read_line(&mut first).expect("first chunk size");
    sigterm(&server);
    let events = read_events(&mut turn);
    assert!(
        matches!(events.last(), Some(TurnEvent::Done { .. })),
        "{events:?}"
    );
    wait_until(Duration::from_secs(5), "the process to exit", || {
        matches!(server.0.try_wait(), Ok(Some(_)))
    });
}

#[test]
fn a_killed_curl_closes_the_provider_request_within_a_second() {
    let (_mock, mock_port) = mock_upstream(100);
    let (_server, port) = serve(1.0, 1.0, Some(mock_port));
    let body = r#"{"request":{"messages":[{"role":"user","content":"mock:normal"}]}}"#;
    let mut curl = Running(
        Command::new("curl")
            .args(["-sN", "-X", "POST", "-H", "content-type: application/json"])
            .args(["--data", body, &format!("http://127.0.0.1:{port}/api/chat")])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("curl"),
    );
    let mut out = BufReader::new(curl.0.stdout.take().expect("stdout"));
    let mut line = String::new();
    out.read_line(&mut line).expect("a first event");
    assert!(line.contains("thinking_start"), "{line}");
    assert_eq!(json_field(mock_port, "/_mock/stats", "active"), Some(1));
    let _ = curl.0.kill(); // SIGKILL: no goodbye to the server
    let killed = Instant::now();
    wait_until(
        Duration::from_secs(1),
        "the provider stream to close",
        || json_field(mock_port, "/_mock/stats", "closed_early") == Some(1),
    );
    let closed_after = killed.elapsed();
    wait_until(Duration::from_secs(1), "no turn left running", || {
        json_field(port, "/healthz", "active_turns") == Some(0)
    });
    eprintln!("provider stream closed {closed_after:?} after the client was killed");
}

#[test]
fn info_logs_never_hold_the_api_key_or_the_upstream_address() {
    let (_mock, mock_port) = mock_upstream(0);
    let log_path = std::env::temp_dir().join(format!("pensive-log-{}.txt", std::process::id()));
    let log = std::fs::File::create(&log_path).expect("log file");
    let (mut server, port) = serve_logging(1.0, 1.0, Some(mock_port), log.into(), "info");
    for keyword in [
        "normal",
        "http-401",
        "http-500",
        "malformed",
        "drop-answer",
        "invalid-utf8",
    ] {
        let mut turn = open_turn(port, &format!("mock:{keyword}"));
        let events = read_events(&mut turn);
        assert!(
            events.last().is_some_and(TurnEvent::is_terminal),
            "{keyword}: {events:?}"
        );
    }
    sigterm(&server);
    wait_until(Duration::from_secs(5), "the process to exit", || {
        matches!(server.0.try_wait(), Ok(Some(_)))
    });
    let text = std::fs::read_to_string(&log_path).expect("read the log");
    let _ = std::fs::remove_file(&log_path);
    assert!(
        text.contains("outcome=\"error\""),
        "the log is real: {text}"
    );
    assert!(!text.contains(SENTINEL_KEY), "the key is logged: {text}");
    assert!(
        !text.contains(&format!("127.0.0.1:{mock_port}")),
        "the upstream address is logged: {text}"
    );
}
