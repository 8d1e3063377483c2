//! The `pensive` binary's `parse` command, run as a user would.

#![cfg(feature = "ssr")]

use std::io::Write;
use std::process::{Command, Stdio};

use pensive::turn::contract::check_stream;
use pensive::turn::TurnEvent;

fn pensive() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pensive"))
}

fn fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn events_of(stdout: &[u8]) -> Vec<TurnEvent> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is a TurnEvent"))
        .collect()
}

#[test]
fn parse_prints_turn_events_for_every_fixture() {
    for entry in std::fs::read_dir(fixtures()).expect("fixtures") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("sse") {
            continue;
        }
        let output = pensive().arg("parse").arg(&path).output().expect("runs");
        assert!(
            output.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        let events = events_of(&output.stdout);
        check_stream(&events).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            matches!(events.last(), Some(TurnEvent::Done { .. })),
            "{}",
            path.display()
        );
    }
}

#[test]
fn parse_reads_stdin_with_explicit_dialect_and_tags() {
    let mut child = pensive()
        .args(["parse", "--dialect", "chat", "--tags", "thought", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"data: {\"choices\":[{\"delta\":{\"content\":\"<thought>hm</thought>ok <think>x</think>\"}}]}\n\ndata: [DONE]\n\n")
        .expect("write");
    let output = child.wait_with_output().expect("waits");
    assert!(output.status.success());
    let events = events_of(&output.stdout);
    assert_eq!(events[1], TurnEvent::ThinkingDelta { text: "hm".into() });
    assert!(events.contains(&TurnEvent::AnswerDelta {
        text: "ok <think>x</think>".into()
    }));
}

#[test]
fn a_malformed_line_is_an_error_event_and_unreadable_input_fails_clearly() {
    let dir = std::env::temp_dir().join(format!("pensive-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let bad = dir.join("bad.sse");
    std::fs::write(&bad, "data: {\"choices\":[]}\n\ndata: {broken\n\n").expect("write");
    let output = pensive().arg("parse").arg(&bad).output().expect("runs");
    assert!(output.status.success());
    let events = events_of(&output.stdout);
    match events.last() {
        Some(TurnEvent::Error { message, .. }) => assert!(message.contains("line 3"), "{message}"),
        other => panic!("expected an error event, got {other:?}"),
    }
    let missing = pensive()
        .args(["parse", "/nonexistent/recording.sse"])
        .output()
        .expect("runs");
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read"));
    let gibberish = dir.join("gibberish.txt");
    std::fs::write(&gibberish, "hello\nworld\n").expect("write");
    let unknown = pensive()
        .arg("parse")
        .arg(&gibberish)
        .output()
        .expect("runs");
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("dialect"));
}

/// `pensive mcp` is about the server it names: one it cannot reach, or one
/// that is not configured, is an error that says which (the conformance
/// suite, tests/fixtures/mcp/conformance/, covers the servers it can reach).
#[test]
fn mcp_commands_fail_clearly_for_a_server_they_cannot_have() {
    // A port nothing listens on: bound, read, released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let unreachable = pensive()
        .args([
            "mcp",
            "list",
            "--url",
            &format!("http://127.0.0.1:{port}/mcp"),
        ])
        .env_remove("PENSIVE_CONFIG")
        .env_remove("PENSIVE_MCP_CONFIG")
        .output()
        .expect("runs");
    assert!(!unreachable.status.success());
    let stderr = String::from_utf8_lossy(&unreachable.stderr);
    assert!(stderr.contains("MCP server `url`"), "{stderr}");

    let dir = std::env::temp_dir().join(format!("pensive-cli-mcp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let config = dir.join("mcp.json");
    std::fs::write(&config, r#"{"mcpServers": {"other": {"command": "true"}}}"#).expect("write");
    let unknown = pensive()
        .args(["mcp", "call", "nosuch", "tool", "{}"])
        .env_remove("PENSIVE_CONFIG")
        .env("PENSIVE_MCP_CONFIG", &config)
        .output()
        .expect("runs");
    assert!(!unknown.status.success());
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        stderr.contains("no enabled MCP server is named `nosuch`"),
        "{stderr}"
    );
}
