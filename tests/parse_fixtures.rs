//! `pensive parse` on every recorded fixture gives exactly its provider's
//! reasoning and answer text (expected texts derived independently, see
//! tests/fixtures/README.md), and keeps the event contract.

#![cfg(feature = "ssr")]

use pensive::server::parse::{parse_recording, ParseOptions};
use pensive::turn::contract::check_stream;
use pensive::turn::TurnEvent;

fn fixture(name: &str) -> (Vec<TurnEvent>, String, String) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let input = std::fs::read(format!("{dir}/{name}.sse")).expect("fixture");
    let thinking = std::fs::read_to_string(format!("{dir}/expected/{name}.thinking.txt"))
        .expect("expected thinking");
    let answer = std::fs::read_to_string(format!("{dir}/expected/{name}.answer.txt"))
        .expect("expected answer");
    let events = parse_recording(&input, &ParseOptions::default()).expect("dialect detected");
    check_stream(&events).expect("design §2 rules hold");
    (events, thinking, answer)
}

fn texts(events: &[TurnEvent]) -> (String, String) {
    let mut thinking = String::new();
    let mut answer = String::new();
    for e in events {
        match e {
            TurnEvent::ThinkingDelta { text } => thinking.push_str(text),
            TurnEvent::AnswerDelta { text } => answer.push_str(text),
            _ => {}
        }
    }
    (thinking, answer)
}

fn blocks(events: &[TurnEvent]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, TurnEvent::ThinkingStart))
        .count()
}

fn usage_reasoning_tokens(events: &[TurnEvent]) -> u64 {
    events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::Usage(u) => u.reasoning_tokens,
            _ => None,
        })
        .sum()
}

fn assert_fixture(name: &str, expected_blocks: usize) -> Vec<TurnEvent> {
    let (events, thinking, answer) = fixture(name);
    let (got_thinking, got_answer) = texts(&events);
    assert_eq!(got_thinking, thinking, "{name}: thinking");
    assert_eq!(got_answer, answer, "{name}: answer");
    assert_eq!(blocks(&events), expected_blocks, "{name}: blocks");
    assert!(
        matches!(events.last(), Some(TurnEvent::Done { .. })),
        "{name}: ends with done"
    );
    assert_eq!(
        events.iter().filter(|e| e.is_terminal()).count(),
        1,
        "{name}: one terminal event"
    );
    events
}

#[test]
fn deepseek_reasoning_content() {
    let events = assert_fixture("deepseek-reasoner-reasoning_content", 1);
    assert_eq!(usage_reasoning_tokens(&events), 205);
}

#[test]
fn groq_reasoning_field() {
    let events = assert_fixture("groq-qwen3-32b-reasoning-field", 1);
    assert_eq!(usage_reasoning_tokens(&events), 963);
}

#[test]
fn mistral_thinking_content_array() {
    assert_fixture("mistral-magistral-thinking-content-array", 1);
}

#[test]
fn anthropic_extended_thinking() {
    assert_fixture("anthropic-extended-thinking-clear-thinking", 1);
}

#[test]
fn openai_responses_summary_across_a_tool_loop() {
    let events = assert_fixture("openai-responses-reasoning-summary", 1);
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, TurnEvent::Done { .. }))
            .count(),
        1,
        "several responses, one done at the end"
    );
    assert!(
        events
            .iter()
            .filter(|e| matches!(e, TurnEvent::Usage(_)))
            .count()
            >= 2
    );
}

#[test]
fn gemini_hidden_thoughts_report_reasoning_tokens_only() {
    let events = assert_fixture("gemini-3-pro-hidden-thoughts-signature", 0);
    assert_eq!(usage_reasoning_tokens(&events), 256);
}

#[test]
fn a_malformed_line_is_an_error_naming_the_line() {
    let input =
        b"data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hm\"}}]}\n\ndata: {oops\n\n";
    let events = parse_recording(input, &ParseOptions::default()).unwrap();
    check_stream(&events).unwrap();
    match events.last() {
        Some(TurnEvent::Error { message, .. }) => assert!(message.contains("line 3"), "{message}"),
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn unrecognisable_input_is_refused() {
    assert!(parse_recording(b"hello world\n", &ParseOptions::default()).is_err());
}
