//! The real `pensive` binary as a process: graceful shutdown on SIGTERM, and a
//! client killed mid-turn (curl) closing the provider request. Loopback only;
//! every wait is a bounded poll.

#![cfg(feature = "ssr")]

mod common;

use std::io::BufRead;
use std::net::TcpStream;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{
    json_field, mock_upstream, open_turn, read_events, serve_with, sigterm, upstream_env,
    wait_until, Running, SENTINEL_KEY,
};
use pensive::turn::contract::thinking_text;
use pensive::turn::{ErrorKind, TurnEvent};

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
    let mut env = vec![
        ("PENSIVE_DEMO_PACE", demo_pace.to_string()),
        ("PENSIVE_SHUTDOWN_GRACE_SECS", grace_secs.to_string()),
    ];
    if let Some(mock) = mock {
        env.extend(upstream_env("anthropic", mock));
    }
    serve_with(&env, log, level)
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
fn a_killed_curl_leaves_its_turn_running_and_stop_closes_the_provider_request_within_a_second() {
    let (_mock, mock_port) = mock_upstream(100);
    let (_server, port) = serve(1.0, 1.0, Some(mock_port));
    let secret = "0123456789abcdef0123456789abcdef";
    let body = format!(
        r#"{{"request":{{"messages":[{{"role":"user","content":"mock:normal"}}],"turn_id":"t-curl","turn_secret":"{secret}"}}}}"#
    );
    let mut curl = Running(
        std::process::Command::new("curl")
            .args(["-sN", "-X", "POST", "-H", "content-type: application/json"])
            .args([
                "--data",
                &body,
                &format!("http://127.0.0.1:{port}/api/chat"),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("curl"),
    );
    let mut out = std::io::BufReader::new(curl.0.stdout.take().expect("stdout"));
    let mut line = String::new();
    out.read_line(&mut line).expect("a heartbeat");
    assert!(line.contains("heartbeat"), "{line}");
    out.read_line(&mut line).expect("a first event");
    assert!(line.contains("reasoning_source"), "{line}");
    assert_eq!(json_field(mock_port, "/_mock/stats", "active"), Some(1));
    // SIGKILL: no goodbye to the server. The turn runs on for a page that
    // may come back.
    let _ = curl.0.kill();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(json_field(mock_port, "/_mock/stats", "active"), Some(1));
    assert_eq!(
        json_field(mock_port, "/_mock/stats", "closed_early"),
        Some(0)
    );
    assert_eq!(json_field(port, "/healthz", "active_turns"), Some(1));
    // Stop is what ends it.
    let stopped = Instant::now();
    let status = std::process::Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST"])
        .args(["-H", "content-type: application/json", "--data"])
        .arg(format!(r#"{{"turn_id":"t-curl","secret":"{secret}"}}"#))
        .arg(format!("http://127.0.0.1:{port}/api/stop_turn"))
        .output()
        .expect("curl");
    assert_eq!(String::from_utf8_lossy(&status.stdout), "200");
    wait_until(
        Duration::from_secs(1),
        "the provider stream to close",
        || json_field(mock_port, "/_mock/stats", "closed_early") == Some(1),
    );
    let closed_after = stopped.elapsed();
    wait_until(Duration::from_secs(1), "no turn left running", || {
        json_field(port, "/healthz", "active_turns") == Some(0)
    });
    eprintln!("provider stream closed {closed_after:?} after Stop");
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
