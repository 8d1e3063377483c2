//! Scripts of a tool loop, one response at a time: the demo model calls
//! `calculate` when a question holds arithmetic (thinking before and after
//! the call), and the mock upstream's `mock:tools` plays think → tool →
//! think → tool → answer. Which response comes next is read from the
//! conversation, as a real model would: how many tool results it holds.

use std::time::Duration;

use serde_json::json;

use super::scripted::{chunk_text, Pace, Step};
use crate::server::providers::delta::Delta;
use crate::turn::{ChatMessage, Role, Usage};

/// The built-in calculator's name as the model sees it.
pub const CALCULATE: &str = "builtin__calculate";
/// The built-in clock's name as the model sees it.
pub const CURRENT_TIME: &str = "builtin__current_time";

/// The arithmetic in `text`: its longest run of digits, operators,
/// parentheses and spaces that holds an operator between two numbers
/// ("What is 17 * 23?" → "17 * 23").
pub fn arithmetic_in(text: &str) -> Option<String> {
    let allowed = |c: char| c.is_ascii_digit() || "+-*/^().% ".contains(c);
    let mut best: Option<&str> = None;
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), '\n')]) {
        match (allowed(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let run = text[s..i].trim();
                if is_expression(run) && best.is_none_or(|b| run.len() > b.len()) {
                    best = Some(run);
                }
                start = None;
            }
            _ => {}
        }
    }
    best.map(str::to_owned)
}

fn is_expression(run: &str) -> bool {
    let bytes = run.as_bytes();
    bytes.iter().enumerate().any(|(i, b)| {
        b"+-*/^%".contains(b)
            && bytes[..i].iter().any(u8::is_ascii_digit)
            && bytes[i + 1..].iter().any(u8::is_ascii_digit)
    })
}

/// The tool results at the end of the conversation, in order (the current
/// turn's so far).
fn results_so_far(messages: &[ChatMessage]) -> Vec<&ChatMessage> {
    let from = messages
        .iter()
        .rposition(|m| m.role == Role::User)
        .map_or(0, |i| i + 1);
    messages[from..]
        .iter()
        .filter(|m| m.role == Role::Tool)
        .collect()
}

/// The mock's pace: `delay` before every chunk.
fn even_pace(delay: Duration) -> Pace {
    let ms = delay.as_millis() as u64;
    Pace {
        reasoning_ms: ms,
        answer_ms: ms,
    }
}

fn thinking(text: &str, pace: Pace) -> Vec<Step> {
    let mut steps: Vec<Step> = chunk_text(text, 6)
        .into_iter()
        .map(|c| Step {
            delay: Duration::from_millis(pace.reasoning_ms),
            deltas: vec![Delta::Reasoning(c)],
        })
        .collect();
    steps.push(Step {
        delay: Duration::ZERO,
        deltas: vec![Delta::ReasoningBoundary],
    });
    steps
}

/// A call whose arguments stream in small pieces, as most dialects send them.
fn call(id: &str, name: &str, arguments: &serde_json::Value, pace: Pace) -> Vec<Step> {
    let mut steps = vec![Step {
        delay: Duration::from_millis(pace.answer_ms),
        deltas: vec![Delta::ToolCallStart {
            id: id.into(),
            name: name.into(),
        }],
    }];
    steps.extend(
        chunk_text(&arguments.to_string(), 5)
            .into_iter()
            .map(|text| Step {
                delay: Duration::from_millis(pace.answer_ms),
                deltas: vec![Delta::ToolCallArguments {
                    id: id.into(),
                    text,
                }],
            }),
    );
    steps
}

fn answer(text: &str, pace: Pace) -> Vec<Step> {
    chunk_text(text, 4)
        .into_iter()
        .map(|c| Step {
            delay: Duration::from_millis(pace.answer_ms),
            deltas: vec![Delta::Answer(c)],
        })
        .collect()
}

fn end(reason: &str, words: usize) -> Step {
    Step {
        delay: Duration::ZERO,
        deltas: vec![
            Delta::Usage(Usage {
                input_tokens: Some(120),
                output_tokens: Some(words as u64 / 4),
                reasoning_tokens: Some(words as u64 / 5),
            }),
            Delta::Finish(Some(reason.into())),
        ],
    }
}

/// The demo model's next response when `messages` asks for arithmetic and
/// `calculate` is offered; `None` otherwise (the usual demo script).
pub fn demo_tool_round(messages: &[ChatMessage], offered: bool, pace: Pace) -> Option<Vec<Step>> {
    let question = messages.iter().rev().find(|m| m.role == Role::User)?;
    let expression = arithmetic_in(&question.content)?;
    if !offered {
        return None;
    }
    let results = results_so_far(messages);
    let mut steps = Vec::new();
    match results.first() {
        None => {
            steps.extend(thinking(
                &format!(
                    "The question holds arithmetic: `{expression}`. Doing it in my head risks a \
                     slip, and the user wants an exact figure.\n\n**Using the calculator**\n\n\
                     I will ask the `calculate` tool for the exact value, then check it."
                ),
                pace,
            ));
            steps.extend(call(
                "call_demo_1",
                CALCULATE,
                &json!({"expression": expression}),
                pace,
            ));
            steps.push(end("tool_calls", 60));
        }
        Some(result) => {
            let value = result.content.trim();
            let reply = if result.is_error {
                format!(
                    "The calculator could not evaluate `{expression}`: {value}\n\n\
                     Please check the expression and ask again."
                )
            } else {
                format!(
                    "**{expression} = {value}**\n\n\
                     I computed this with Pensive's built-in `calculate` tool (exact \
                     arithmetic), so the figure is not a guess. Open the tool step above to \
                     see the call and its result."
                )
            };
            steps.extend(thinking(
                &format!(
                    "**Checking the result**\n\nThe tool returned `{value}` for \
                     `{expression}`. That is the exact value; I can give it directly."
                ),
                pace,
            ));
            steps.extend(answer(&reply, pace));
            steps.push(end("stop", 80));
        }
    }
    Some(steps)
}

/// `mock:tools`: think → `calculate` → think → `current_time` → think →
/// answer, one response per request, by the tool results so far.
pub fn mock_tools_round(messages: &[ChatMessage], delay: Duration) -> Vec<Step> {
    let pace = even_pace(delay);
    let results = results_so_far(messages);
    let mut steps = Vec::new();
    match results.len() {
        0 => {
            steps.extend(thinking("First I need the product. ", pace));
            steps.extend(call(
                "call_mock_1",
                CALCULATE,
                &json!({"expression": "1234 * 5678"}),
                pace,
            ));
            steps.push(end("tool_calls", 20));
        }
        1 => {
            steps.extend(thinking(
                &format!("The product is {}. Now the date. ", results[0].content),
                pace,
            ));
            steps.extend(call("call_mock_2", CURRENT_TIME, &json!({}), pace));
            steps.push(end("tool_calls", 20));
        }
        _ => {
            steps.extend(thinking("Both tools answered; writing it up. ", pace));
            steps.extend(answer(
                &format!(
                    "1234 \u{d7} 5678 = {}, computed on {}.",
                    results[0].content, results[1].content
                ),
                pace,
            ));
            steps.push(end("stop", 20));
        }
    }
    steps
}

/// `mock:tools-parallel`: two `calculate` calls in one response, then the answer.
pub fn mock_parallel_round(messages: &[ChatMessage], delay: Duration) -> Vec<Step> {
    let pace = even_pace(delay);
    let results = results_so_far(messages);
    let mut steps = Vec::new();
    if results.is_empty() {
        steps.extend(thinking("Two products, independent of each other. ", pace));
        steps.extend(call(
            "call_par_1",
            CALCULATE,
            &json!({"expression": "12 * 12"}),
            pace,
        ));
        steps.extend(call(
            "call_par_2",
            CALCULATE,
            &json!({"expression": "13 * 13"}),
            pace,
        ));
        steps.push(end("tool_calls", 20));
    } else {
        let values: Vec<&str> = results.iter().map(|r| r.content.as_str()).collect();
        steps.extend(thinking("Both came back. ", pace));
        steps.extend(answer(
            &format!("The products are {}.", values.join(" and ")),
            pace,
        ));
        steps.push(end("stop", 20));
    }
    steps
}

/// Where `mock:tools-write` writes (the end-to-end suite gives
/// server-filesystem this folder).
pub const WRITE_DIR: &str = "/tmp/pensive-e2e-files";

/// `mock:tools-write` and `mock:tools-read`: one call to an MCP server
/// named `files` (server-filesystem), then an answer that says how it went.
pub fn mock_files_round(messages: &[ChatMessage], write: bool, delay: Duration) -> Vec<Step> {
    let pace = even_pace(delay);
    let results = results_so_far(messages);
    let mut steps = Vec::new();
    match results.first() {
        None => {
            let (thought, name, arguments) = if write {
                (
                    "I will save the note to a file. ",
                    "files__write_file",
                    json!({"path": format!("{WRITE_DIR}/note.txt"), "content": "Written after approval."}),
                )
            } else {
                (
                    "I will read the note. ",
                    "files__read_text_file",
                    json!({"path": format!("{WRITE_DIR}/note.txt")}),
                )
            };
            steps.extend(thinking(thought, pace));
            steps.extend(call("call_files_1", name, &arguments, pace));
            steps.push(end("tool_calls", 20));
        }
        Some(result) => {
            steps.extend(thinking("The tool answered. ", pace));
            steps.extend(answer(&format!("The tool said: {}", result.content), pace));
            steps.push(end("stop", 20));
        }
    }
    steps
}

/// `mock:tools-same-id`: one response with two `files__write_file` calls
/// under one id, `dup` (a broken gateway, or a model that writes its own
/// ids): first a write to `hidden.txt`, then one to `shown.txt`, both under
/// `WRITE_DIR`. Then an answer that quotes every result.
pub fn mock_same_id_round(messages: &[ChatMessage], delay: Duration) -> Vec<Step> {
    let pace = even_pace(delay);
    let results = results_so_far(messages);
    let mut steps = Vec::new();
    if results.is_empty() {
        steps.extend(thinking("Two notes to save. ", pace));
        for file in ["hidden.txt", "shown.txt"] {
            let path = format!("{WRITE_DIR}/{file}");
            let arguments = json!({"path": path, "content": format!("Written to {file}.")});
            steps.extend(call("dup", "files__write_file", &arguments, pace));
        }
        steps.push(end("tool_calls", 20));
    } else {
        let said: Vec<&str> = results.iter().map(|r| r.content.as_str()).collect();
        steps.extend(answer(
            &format!("The tools said: {}", said.join(" | ")),
            pace,
        ));
        steps.push(end("stop", 20));
    }
    steps
}

/// `mock:tools-slow`: one call to server-everything's long-running
/// operation (20 s) on the server named `slow`, for Stop and timeouts.
pub fn mock_slow_round(messages: &[ChatMessage], delay: Duration) -> Vec<Step> {
    let pace = even_pace(delay);
    let mut steps = Vec::new();
    match results_so_far(messages).first() {
        None => {
            steps.extend(thinking("This takes a while. ", pace));
            steps.extend(call(
                "call_slow_1",
                "slow__trigger-long-running-operation",
                &json!({"duration": 20, "steps": 20}),
                pace,
            ));
            steps.push(end("tool_calls", 20));
        }
        Some(result) => {
            steps.extend(answer(&format!("The tool said: {}", result.content), pace));
            steps.push(end("stop", 20));
        }
    }
    steps
}

/// `mock:call NAME {json}`: one call of any tool the question names, with
/// the JSON after the name as its arguments (`{}` when none or unreadable),
/// then an answer quoting the start of the result. Lets a story drive any
/// MCP server's tool without a script of its own.
pub fn mock_call_round(messages: &[ChatMessage], delay: Duration) -> Option<Vec<Step>> {
    let question = messages.iter().rev().find(|m| m.role == Role::User)?;
    let (name, arguments) = named_call(&question.content)?;
    let pace = even_pace(delay);
    let mut steps = Vec::new();
    match results_so_far(messages).first() {
        None => {
            steps.extend(thinking(&format!("I will call `{name}`. "), pace));
            steps.extend(call("call_named_1", &name, &arguments, pace));
            steps.push(end("tool_calls", 20));
        }
        Some(result) => {
            let start: String = result.content.chars().take(200).collect();
            steps.extend(thinking("The tool answered. ", pace));
            steps.extend(answer(&format!("The tool said: {start}"), pace));
            steps.push(end("stop", 20));
        }
    }
    Some(steps)
}

/// The tool name and arguments after `mock:call` in `text`.
fn named_call(text: &str) -> Option<(String, serde_json::Value)> {
    let rest = text.split_once("mock:call")?.1.trim_start();
    let (name, arguments) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    if name.is_empty() {
        return None;
    }
    let arguments = serde_json::from_str::<serde_json::Value>(arguments.trim())
        .ok()
        .filter(serde_json::Value::is_object)
        .unwrap_or_else(|| json!({}));
    Some((name.to_owned(), arguments))
}

/// `mock:tools-loop`: a model that keeps calling `calculate`, one call a
/// response, until the conversation holds 13 results (past the 12-call
/// limit of one turn: "Continue" lets it finish).
pub fn mock_loop_round(messages: &[ChatMessage], delay: Duration) -> Vec<Step> {
    let pace = even_pace(delay);
    let done = messages.iter().filter(|m| m.role == Role::Tool).count();
    let mut steps = Vec::new();
    if done < 13 {
        steps.extend(call(
            &format!("call_loop_{}", done + 1),
            CALCULATE,
            &json!({"expression": format!("{} * 2", done + 1)}),
            pace,
        ));
        steps.push(end("tool_calls", 4));
    } else {
        steps.extend(answer("All thirteen products are done.", pace));
        steps.push(end("stop", 4));
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_call_takes_its_arguments_from_the_question() {
        let (name, arguments) = named_call("mock:call hostile__hang {\"seconds\": 5}").unwrap();
        assert_eq!(
            (name.as_str(), arguments),
            ("hostile__hang", json!({"seconds": 5}))
        );
        let (name, arguments) = named_call("please mock:call files__list").unwrap();
        assert_eq!((name.as_str(), arguments), ("files__list", json!({})));
        assert_eq!(named_call("mock:call "), None);
        assert_eq!(named_call("no call here"), None);
    }

    #[test]
    fn finds_the_arithmetic_in_a_question() {
        assert_eq!(
            arithmetic_in("What is 17 * 23?").as_deref(),
            Some("17 * 23")
        );
        assert_eq!(
            arithmetic_in("Compute (12 + 30) / 7 please").as_deref(),
            Some("(12 + 30) / 7")
        );
        assert_eq!(arithmetic_in("Why is the sky blue?"), None);
        assert_eq!(arithmetic_in("In 2026 there were 12 months"), None);
        assert_eq!(arithmetic_in("a-b"), None);
    }

    #[test]
    fn the_demo_calls_then_answers_with_the_result() {
        let mut messages = vec![ChatMessage::user("What is 17 * 23?")];
        assert!(demo_tool_round(&messages, false, Pace::INSTANT).is_none());
        let first = demo_tool_round(&messages, true, Pace::INSTANT).unwrap();
        let deltas: Vec<_> = first.iter().flat_map(|s| s.deltas.clone()).collect();
        let call_at = deltas
            .iter()
            .position(|d| matches!(d, Delta::ToolCallStart { name, .. } if name == CALCULATE))
            .unwrap();
        assert!(
            deltas[..call_at]
                .iter()
                .any(|d| matches!(d, Delta::Reasoning(_))),
            "thinks first"
        );
        assert!(!deltas.iter().any(|d| matches!(d, Delta::Answer(_))));
        messages.push(ChatMessage::tool_result("call_demo_1", "391", false));
        let second = demo_tool_round(&messages, true, Pace::INSTANT).unwrap();
        let answer: String = second
            .iter()
            .flat_map(|s| s.deltas.clone())
            .filter_map(|d| match d {
                Delta::Answer(t) => Some(t),
                _ => None,
            })
            .collect();
        assert!(answer.contains("17 * 23 = 391"), "{answer}");
    }
}
