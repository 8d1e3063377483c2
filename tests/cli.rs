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
