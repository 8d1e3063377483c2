//! Tool loops over HTTP: Pensive's `POST /api/chat` against the demo model
//! and against the mock upstream's Chat completions tool scenarios, whose
//! rules refuse a loop that does not send back what the provider requires
//! (a result per call; DeepSeek's `reasoning_content`). The request bodies
//! of a two-call loop are pinned (golden), and the events keep the order
//! the model produced: thinking, tool step, thinking, tool step, answer.

#![cfg(feature = "ssr")]

mod common;

use std::time::Duration;

use leptos::config::LeptosOptions;
use pensive::server::config::{ModelConfig, ProviderKind};
use pensive::server::http::router::build_router;
use pensive::server::mock::scripted::Pace;
use pensive::server::mock::upstream::MockState;
use pensive::server::providers::wire::{Dialect, UpstreamModel};
use pensive::server::tags::TagSet;
use pensive::server::{AppConfig, TurnService};
use pensive::turn::contract::answer_text;
use pensive::turn::message::{Conversation, Message};
use pensive::turn::reducer::{Block, ToolState, Turn, TurnModel};
use pensive::turn::{ToolStatus, TurnEvent};
use serde_json::{json, Value};

fn app_with(model: ModelConfig) -> axum::Router {
    app_with_limits(model, Default::default())
}

fn app_with_limits(model: ModelConfig, limits: pensive::server::limits::Limits) -> axum::Router {
    app_with_everything(vec![model], limits)
}

fn app_with_models(models: Vec<ModelConfig>) -> axum::Router {
    app_with_everything(models, Default::default())
}

fn app_with_everything(
    models: Vec<ModelConfig>,
    limits: pensive::server::limits::Limits,
) -> axum::Router {
    app_of(config_of(models, limits))
}

fn app_of(config: AppConfig) -> axum::Router {
    build_router(
        TurnService::new(config),
        LeptosOptions::builder().output_name("pensive").build(),
    )
}

fn config_of(models: Vec<ModelConfig>, limits: pensive::server::limits::Limits) -> AppConfig {
    AppConfig {
        limits,
        ..common::app_config(models)
    }
}

fn chat_model(port: u16, name: &str) -> ModelConfig {
    wire_model(port, Dialect::Chat, name)
}

/// Model `m`: `name` in `dialect` at the mock on `port` (base URLs as each
/// provider's configuration takes them).
fn wire_model(port: u16, dialect: Dialect, name: &str) -> ModelConfig {
    let base_url = match dialect {
        Dialect::Chat | Dialect::Responses => format!("http://127.0.0.1:{port}/v1"),
        _ => format!("http://127.0.0.1:{port}"),
    };
    ModelConfig {
        id: "m".into(),
        label: name.into(),
        provider: ProviderKind::Wire(dialect),
        upstream: UpstreamModel {
            base_url,
            api_key: Some("sk-test".into()),
            name: name.into(),
            ..UpstreamModel::default()
        },
        demo_pace: Pace::INSTANT,
        tags: TagSet::default(),
        start_in_thinking: false,
    }
}

fn demo_model() -> ModelConfig {
    ModelConfig {
        id: "demo".into(),
        label: "Demo".into(),
        provider: ProviderKind::Demo,
        upstream: UpstreamModel::default(),
        demo_pace: Pace::INSTANT,
        tags: TagSet::default(),
        start_in_thinking: false,
    }
}

async fn turn(app: &axum::Router, messages: Value, model: &str) -> Vec<TurnEvent> {
    let body = json!({"request": {"messages": messages, "model": model}});
    common::post_chat(app, &body, "the tool turn").await
}

/// The kinds of `events` in order, tool steps by their tool's name, runs of
/// text deltas folded into one.
fn timeline(events: &[TurnEvent]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for event in events {
        let kind = match event {
            TurnEvent::ThinkingStart => "think".to_owned(),
            TurnEvent::AnswerDelta { .. } => "answer".to_owned(),
            TurnEvent::ToolCallStart { name, server, .. } => format!("tool {name} ({server})"),
            TurnEvent::ToolResult { status, .. } => format!("result {status:?}"),
            TurnEvent::Done { .. } => "done".to_owned(),
            _ => continue,
        };
        if out.last() != Some(&kind) {
            out.push(kind);
        }
    }
    out
}

/// `question` and the turn `events` made, as the browser stores them (the
/// turn written by model `m`, the conversation's model).
fn stored_conversation(question: &str, events: Vec<TurnEvent>) -> Conversation {
    let mut stored = Turn::new(0.0);
    for event in events {
        stored.apply(event, 0.0);
    }
    stored.model = Some(TurnModel {
        id: "m".into(),
        label: "m".into(),
    });
    let mut conversation = Conversation::new("c".into(), 0.0);
    conversation.model = Some("m".into());
    conversation.messages = vec![Message::user(question), Message::Assistant(stored)];
    conversation
}

fn request_bodies(mock: &MockState) -> Vec<Value> {
    mock.requests().into_iter().map(|r| r.body).collect()
}

#[tokio::test]
async fn the_demo_calls_calculate_between_two_thoughts() {
    let app = app_with(demo_model());
    let events = turn(
        &app,
        json!([{"role": "user", "content": "What is 1234 * 5678?"}]),
        "demo",
    )
    .await;
    assert_eq!(
        timeline(&events),
        [
            "think",
            "tool builtin__calculate (builtin)",
            "result Ok",
            "think",
            "answer",
            "done"
        ]
    );
    let result = events.iter().find_map(|e| match e {
        TurnEvent::ToolResult { output, status, .. } => Some((output.clone(), *status)),
        _ => None,
    });
    assert_eq!(result, Some(("7006652".into(), ToolStatus::Ok)));
    assert!(answer_text(&events).contains("1234 * 5678 = 7006652"));
    // Arguments streamed, then arrived whole as an object.
    assert!(events
        .iter()
        .any(|e| matches!(e, TurnEvent::ToolCallDelta { .. })));
    assert!(events.iter().any(|e| matches!(e,
        TurnEvent::ToolCallReady { arguments, .. } if arguments == &json!({"expression": "1234 * 5678"}))));
}

#[tokio::test]
async fn a_question_without_arithmetic_gets_no_tool_step() {
    let app = app_with(demo_model());
    let events = turn(
        &app,
        json!([{"role": "user", "content": "Why is the sky blue?"}]),
        "demo",
    )
    .await;
    assert!(!events
        .iter()
        .any(|e| matches!(e, TurnEvent::ToolCallStart { .. })));
}

#[tokio::test]
async fn a_chat_loop_of_two_calls_sends_back_calls_and_results_in_order() {
    let (_, bodies) = two_call_loop(Dialect::Chat, "mock-model").await;
    // Golden: the three request bodies' conversations and tools.
    let tool_names: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .expect("tools offered")
        .iter()
        .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
        .collect();
    assert_eq!(tool_names, ["builtin__calculate", "builtin__current_time"]);
    assert_eq!(
        bodies[0]["messages"],
        json!([{"role": "user", "content": "Two tools please mock:tools"}])
    );
    assert_eq!(
        bodies[1]["messages"].as_array().expect("messages")[1..],
        json!([
            {"role": "assistant", "content": null, "reasoning_content": "First I need the product. ",
             "tool_calls": [{"id": "call_mock_1", "type": "function",
                "function": {"name": "builtin__calculate", "arguments": "{\"expression\":\"1234 * 5678\"}"}}]},
            {"role": "tool", "tool_call_id": "call_mock_1", "content": "7006652"}
        ])
        .as_array()
        .expect("golden")[..]
    );
    let second = &bodies[2]["messages"];
    assert_eq!(second.as_array().map(Vec::len), Some(5));
    assert_eq!(
        second[3]["tool_calls"][0]["function"]["name"],
        "builtin__current_time"
    );
    assert_eq!(second[4]["role"], "tool");
    assert_eq!(second[4]["tool_call_id"], "call_mock_2");
}

#[tokio::test]
async fn parallel_calls_both_run_and_both_results_go_back() {
    let (port, mock) = common::start_mock_in_process().await;
    let app = app_with(chat_model(port, "mock-model"));
    let events = turn(
        &app,
        json!([{"role": "user", "content": "mock:tools-parallel"}]),
        "m",
    )
    .await;
    let starts = events
        .iter()
        .filter(|e| matches!(e, TurnEvent::ToolCallStart { .. }))
        .count();
    assert_eq!(starts, 2);
    assert!(
        answer_text(&events).contains("144 and 169"),
        "{}",
        answer_text(&events)
    );
    let second = &request_bodies(&mock)[1]["messages"];
    assert_eq!(second[1]["tool_calls"].as_array().map(Vec::len), Some(2));
    assert_eq!(second[2]["tool_call_id"], "call_par_1");
    assert_eq!(second[3]["tool_call_id"], "call_par_2");
}

/// A stored turn of the loop, as the browser keeps it, sent back in a
/// later turn: DeepSeek refuses the history without the tool-call
/// message's reasoning (its real 400), accepts it with the continuity kept.
#[tokio::test]
async fn deepseek_gets_its_reasoning_back_in_later_turns() {
    let (port, mock) = common::start_mock_in_process().await;
    let app = app_with(chat_model(port, "deepseek-v4-flash"));
    let first = turn(
        &app,
        json!([{"role": "user", "content": "mock:tools-parallel"}]),
        "m",
    )
    .await;
    assert!(
        matches!(first.last(), Some(TurnEvent::Done { .. })),
        "{first:?}"
    );
    assert!(first.iter().any(
        |e| matches!(e, TurnEvent::Continuity { data } if data.get("reasoning_content").is_some())
    ));
    // The browser's side: reduce, store, and build the next request.
    let mut conversation = stored_conversation("mock:tools-parallel", first);
    let Some(Message::Assistant(stored)) = conversation.messages.last().cloned() else {
        panic!("the stored turn");
    };
    conversation
        .messages
        .push(Message::user("And now? mock:normal"));
    let later = serde_json::to_value(conversation.to_chat_messages()).expect("messages");
    let events = turn(&app, later, "m").await;
    assert!(
        matches!(events.last(), Some(TurnEvent::Done { .. })),
        "{events:?}"
    );
    let sent = request_bodies(&mock).last().expect("a request")["messages"].clone();
    assert!(
        sent[1]["reasoning_content"]
            .as_str()
            .is_some_and(|r| !r.is_empty()),
        "{sent}"
    );
    // The same history written by another model: its tool rounds go as
    // text, which DeepSeek's thinking mode takes (calls without their
    // `reasoning_content` it refuses).
    let told =
        serde_json::to_value(conversation.to_chat_messages_for(Some("other"))).expect("messages");
    let events = turn(&app, told, "m").await;
    assert!(
        matches!(events.last(), Some(TurnEvent::Done { .. })),
        "{events:?}"
    );
    let sent = request_bodies(&mock).last().expect("a request")["messages"].clone();
    assert!(
        sent.as_array()
            .is_some_and(|m| m.iter().all(|m| m.get("tool_calls").is_none())),
        "{sent}"
    );
    assert!(
        sent[1]["content"]
            .as_str()
            .is_some_and(|c| c.contains("[Tool call: builtin__calculate(")),
        "{sent}"
    );
    let steps: Vec<_> = stored.tool_steps().map(|s| s.state).collect();
    assert_eq!(steps, [ToolState::Ended(ToolStatus::Ok); 2]);
    assert!(stored.blocks.iter().any(|b| matches!(b, Block::Tool(_))));
}

/// The models of the switch test: one per dialect, each under its own id,
/// named so the mock applies its strictest rules (DeepSeek's thinking mode,
/// Gemini 3's signatures, Claude's signed thinking, Responses' reasoning
/// items), and the demo.
fn every_dialect(port: u16) -> Vec<ModelConfig> {
    let mut models = vec![demo_model()];
    for (id, dialect, name) in [
        ("deepseek", Dialect::Chat, "deepseek-v4-flash"),
        ("kimi", Dialect::Chat, "kimi-k2-thinking"),
        ("claude", Dialect::Anthropic, "claude-opus-4-7"),
        ("gpt", Dialect::Responses, "gpt-5"),
        ("gemini", Dialect::Gemini, "gemini-3-pro-preview"),
        ("ollama", Dialect::Ollama, "qwen3:8b"),
    ] {
        models.push(ModelConfig {
            id: id.into(),
            ..wire_model(port, dialect, name)
        });
    }
    models
}

/// For every pair of models (the one that wrote a tool turn, the one asked
/// next in the same conversation), the next turn, built as the page builds
/// it, is accepted by the mock's rules and answered. Before, another
/// model's tool rounds went back as calls without their continuity, and
/// DeepSeek refused every later turn.
#[tokio::test]
async fn a_switch_of_model_after_a_tool_turn_keeps_the_conversation_working() {
    let (port, _mock) = common::start_mock_in_process().await;
    let models = every_dialect(port);
    let app = app_with_models(models.clone());
    for writer in &models {
        let question = if writer.id == "demo" {
            "What is 1234 * 5678?"
        } else {
            "Two tools please mock:tools"
        };
        let first = turn(
            &app,
            json!([{"role": "user", "content": question}]),
            &writer.id,
        )
        .await;
        assert!(
            first
                .iter()
                .any(|e| matches!(e, TurnEvent::ToolResult { .. })),
            "{} made no tool call: {first:?}",
            writer.id
        );
        let mut conversation = stored_conversation(question, first);
        if let Some(Message::Assistant(turn)) = conversation.messages.last_mut() {
            turn.model = Some(TurnModel {
                id: writer.id.clone(),
                label: writer.label.clone(),
            });
        }
        conversation
            .messages
            .push(Message::user("And now? mock:normal"));
        for asked in &models {
            conversation.model = Some(asked.id.clone());
            let messages = serde_json::to_value(conversation.to_chat_messages()).expect("messages");
            let events = turn(&app, messages, &asked.id).await;
            assert!(
                matches!(events.last(), Some(TurnEvent::Done { .. })),
                "{} after {}: {:?}",
                asked.id,
                writer.id,
                events.last()
            );
        }
    }
}

/// Ollama lists no `tools` capability for gemma3: read at start-up, the
/// model is offered no tools (the Tools panel says why) and answers; sent
/// tools, it would be refused ("… does not support tools").
#[tokio::test]
async fn a_model_its_provider_lists_without_tools_is_offered_none_and_answers() {
    let (port, mock) = common::start_mock_in_process().await;
    let mut config = config_of(
        vec![wire_model(port, Dialect::Ollama, "gemma3:4b")],
        Default::default(),
    );
    pensive::server::config::discover(&mut config).await;
    let note = config.models[0].public().tools_note;
    assert!(
        note.as_deref()
            .is_some_and(|n| n.contains("no tool support")),
        "{note:?}"
    );
    let app = app_of(config);
    let events = turn(
        &app,
        json!([{"role": "user", "content": "Hi mock:normal"}]),
        "m",
    )
    .await;
    assert!(
        matches!(events.last(), Some(TurnEvent::Done { .. })),
        "{events:?}"
    );
    let chat = request_bodies(&mock)
        .into_iter()
        .rfind(|b| b.get("messages").is_some())
        .expect("the chat request");
    assert!(chat.get("tools").is_none(), "{chat}");
}

/// A vLLM started without a tool parser refuses every request with tools:
/// the turn is asked again without them and is answered.
#[tokio::test]
async fn a_server_without_tool_support_still_answers() {
    let (port, mock) = common::start_mock_in_process().await;
    let app = app_with(chat_model(port, "vllm-no-tool-parser"));
    let events = turn(
        &app,
        json!([{"role": "user", "content": "Hello mock:normal"}]),
        "m",
    )
    .await;
    assert!(
        matches!(events.last(), Some(TurnEvent::Done { .. })),
        "{events:?}"
    );
    let bodies = request_bodies(&mock);
    assert_eq!(bodies.len(), 2, "refused once, then asked without tools");
    assert!(bodies[0].get("tools").is_some());
    assert!(bodies[1].get("tools").is_none());
}

/// A model that keeps calling tools stops at the 12-call limit, with
/// `tool_limit`; Continue (the stored turn sent back with
/// `continue_answer`) lets it finish.
#[tokio::test]
async fn the_tool_call_limit_ends_the_turn_and_continue_resumes_it() {
    let (port, _mock) = common::start_mock_in_process().await;
    let app = app_with(chat_model(port, "mock-model"));
    let question = "Keep going mock:tools-loop";
    let events = turn(&app, json!([{"role": "user", "content": question}]), "m").await;
    let results: Vec<ToolStatus> = events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ToolResult { status, .. } => Some(*status),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 13);
    assert!(results[..12].iter().all(|s| *s == ToolStatus::Ok));
    assert_eq!(
        results[12],
        ToolStatus::Cancelled,
        "the 13th call is not run"
    );
    assert!(
        matches!(events.last(), Some(TurnEvent::Done { finish_reason: Some(r), .. }) if r == "tool_limit")
    );

    let conversation = stored_conversation(question, events);
    assert!(
        matches!(conversation.messages.last(), Some(Message::Assistant(turn))
        if turn.is_cut_off())
    );
    let body = json!({"request": {"messages": conversation.to_chat_messages(), "model": "m", "continue_answer": true}});
    let resumed = common::post_chat(&app, &body, "the continued turn").await;
    assert_eq!(answer_text(&resumed), "All thirteen products are done.");
}

/// Asks `mock:tools` of `name` in `dialect` and checks the timeline of the
/// whole loop: the mock's rules (the provider's) refuse any request of the
/// loop that does not carry back what the provider requires, so a loop
/// that ends in an answer proves each of its requests passed them.
async fn two_call_loop(dialect: Dialect, name: &str) -> (Vec<TurnEvent>, Vec<Value>) {
    let (port, mock) = common::start_mock_in_process().await;
    let app = app_with(wire_model(port, dialect, name));
    let events = turn(
        &app,
        json!([{"role": "user", "content": "Two tools please mock:tools"}]),
        "m",
    )
    .await;
    assert_eq!(
        timeline(&events),
        [
            "think",
            "tool builtin__calculate (builtin)",
            "result Ok",
            "think",
            "tool builtin__current_time (builtin)",
            "result Ok",
            "think",
            "answer",
            "done"
        ],
        "{events:?}"
    );
    assert!(answer_text(&events).starts_with("1234 \u{d7} 5678 = 7006652, computed on 20"));
    let bodies = request_bodies(&mock);
    assert_eq!(bodies.len(), 3, "one request per response");
    (events, bodies)
}

/// Anthropic: each assistant message of the loop goes back as the API
/// wrote it, its signed thinking block first, then `tool_use`; the
/// results follow as `tool_result` blocks (golden second request).
#[tokio::test]
async fn an_anthropic_loop_echoes_signed_thinking_before_each_tool_use() {
    let (events, bodies) = two_call_loop(Dialect::Anthropic, "claude-sonnet-4-5").await;
    let continuity = events
        .iter()
        .filter(|e| matches!(e, TurnEvent::Continuity { .. }))
        .count();
    assert_eq!(continuity, 2, "one thinking block per tool-calling message");
    let tools: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .expect("tools offered")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(tools, ["builtin__calculate", "builtin__current_time"]);
    assert!(bodies[0]["tools"][0]["input_schema"].is_object());
    let thought = "First I need the product. ";
    assert_eq!(
        bodies[1]["messages"],
        json!([
            {"role": "user", "content": "Two tools please mock:tools"},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": thought,
                 "signature": pensive::server::mock::encoders::anthropic::mock_signature(thought)},
                {"type": "tool_use", "id": "call_mock_1", "name": "builtin__calculate",
                 "input": {"expression": "1234 * 5678"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_mock_1", "content": "7006652", "is_error": false},
            ]},
        ])
    );
    let last = bodies[2]["messages"].as_array().expect("messages");
    assert_eq!(last.len(), 5);
    assert_eq!(last[3]["content"][0]["type"], "thinking");
    assert_eq!(last[3]["content"][1]["name"], "builtin__current_time");
}

/// Parallel calls in one Anthropic message: both results go back in one
/// user message, first.
#[tokio::test]
async fn anthropic_parallel_calls_share_one_results_message() {
    let (port, mock) = common::start_mock_in_process().await;
    let app = app_with(wire_model(port, Dialect::Anthropic, "claude-opus-4-7"));
    let events = turn(
        &app,
        json!([{"role": "user", "content": "mock:tools-parallel"}]),
        "m",
    )
    .await;
    assert!(answer_text(&events).contains("144 and 169"), "{events:?}");
    let second = &request_bodies(&mock)[1]["messages"];
    let results: Vec<&str> = second[2]["content"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|b| b["tool_use_id"].as_str())
        .collect();
    assert_eq!(results, ["call_par_1", "call_par_2"]);
    assert_eq!(second[1]["content"][0]["type"], "thinking");
}

/// Gemini: each call goes back whole on a `functionCall` part, the first
/// with the thought signature Gemini gave it; the results as
/// `functionResponse` parts, named (golden second request).
#[tokio::test]
async fn a_gemini_loop_returns_each_signature_on_its_call() {
    use pensive::server::mock::encoders::gemini::call_signature;
    let (_, bodies) = two_call_loop(Dialect::Gemini, "gemini-3-pro-preview").await;
    let declared: Vec<&str> = bodies[0]["tools"][0]["functionDeclarations"]
        .as_array()
        .expect("declarations")
        .iter()
        .filter_map(|d| d["name"].as_str())
        .collect();
    assert_eq!(declared, ["builtin__calculate", "builtin__current_time"]);
    let arguments = json!({"expression": "1234 * 5678"});
    assert_eq!(
        bodies[1]["contents"],
        json!([
            {"role": "user", "parts": [{"text": "Two tools please mock:tools"}]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "builtin__calculate", "args": arguments},
                 "thoughtSignature": call_signature("builtin__calculate", &arguments)},
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "builtin__calculate", "response": {"output": "7006652"}}},
            ]},
        ])
    );
    assert_eq!(
        bodies[2]["contents"][3]["parts"][0]["thoughtSignature"],
        call_signature("builtin__current_time", &json!({}))
    );
}

/// History Gemini did not sign (its continuity is gone: a conversation
/// imported from an export without reasoning) goes back with the documented
/// sentinel, and Gemini 3 takes it.
#[tokio::test]
async fn gemini_history_without_signatures_carries_the_sentinel() {
    let (port, mock) = common::start_mock_in_process().await;
    let app = app_with(wire_model(port, Dialect::Gemini, "gemini-3-pro-preview"));
    let first = turn(
        &app,
        json!([{"role": "user", "content": "mock:tools-parallel"}]),
        "m",
    )
    .await;
    assert!(answer_text(&first).contains("144 and 169"), "{first:?}");
    let parallel = &request_bodies(&mock)[1]["contents"][1]["parts"];
    assert!(parallel[0].get("thoughtSignature").is_some());
    assert!(
        parallel[1].get("thoughtSignature").is_none(),
        "only the first call is signed"
    );
    let mut conversation = stored_conversation("mock:tools-parallel", first).without_reasoning();
    if let Some(Message::Assistant(stored)) = conversation.messages.last_mut() {
        assert!(stored.continuity.is_empty(), "no signature is left");
    }
    let mut messages = conversation.to_chat_messages();
    // The loop again, in this turn: the old calls are history now.
    messages.push(pensive::turn::ChatMessage::user(
        "Again mock:tools-parallel",
    ));
    let events = turn(&app, serde_json::to_value(messages).expect("messages"), "m").await;
    assert!(answer_text(&events).contains("144 and 169"), "{events:?}");
    let sent = &request_bodies(&mock)[2]["contents"];
    assert_eq!(
        sent[1]["parts"][0]["thoughtSignature"],
        "skip_thought_signature_validator"
    );
}

/// Responses: stateless (`store: false`, encrypted reasoning included);
/// each call goes back after the reasoning item that preceded it, whole
/// with its `encrypted_content`, and with the API's own item id; each
/// result as `function_call_output` (golden second request).
#[tokio::test]
async fn a_responses_loop_returns_each_reasoning_item_before_its_call() {
    let (_, bodies) = two_call_loop(Dialect::Responses, "gpt-5").await;
    assert_eq!(bodies[0]["store"], false);
    assert_eq!(bodies[0]["include"], json!(["reasoning.encrypted_content"]));
    let tools: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(tools, ["builtin__calculate", "builtin__current_time"]);
    let input = bodies[1]["input"].as_array().expect("input");
    assert_eq!(
        input[0],
        json!({"role": "user", "content": "Two tools please mock:tools"})
    );
    assert_eq!(input[1]["type"], "reasoning");
    assert_eq!(input[1]["id"], "rs_mock0000");
    assert_eq!(
        input[1]["summary"],
        json!([{"type": "summary_text", "text": "First I need the product. "}])
    );
    assert!(input[1]["encrypted_content"]
        .as_str()
        .is_some_and(|e| e.starts_with("gAAAA")));
    assert_eq!(
        input[2..],
        [
            json!({"type": "function_call", "id": "fc_mock0001_for_rs_mock0000", "call_id": "call_mock_1",
                   "name": "builtin__calculate", "arguments": "{\"expression\":\"1234 * 5678\"}"}),
            json!({"type": "function_call_output", "call_id": "call_mock_1", "output": "7006652"}),
        ]
    );
    let last = bodies[2]["input"].as_array().expect("input");
    assert_eq!(last.len(), 7);
    assert_eq!(last[4]["type"], "reasoning");
    assert_eq!(last[5]["name"], "builtin__current_time");
}

/// Ollama: calls arrive whole (the step says so: no argument deltas); the
/// message that called them goes back with its `thinking` and
/// `tool_calls` (object arguments), each result as a `tool` message
/// naming its tool (golden second request). Ollama refuses nothing here
/// (a lost `thinking` only costs quality), so the golden body is the check.
#[tokio::test]
async fn an_ollama_loop_returns_thinking_and_calls_whole() {
    let (events, bodies) = two_call_loop(Dialect::Ollama, "qwen3:8b").await;
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, TurnEvent::ToolCallDelta { .. })),
        "arguments arrive whole"
    );
    assert_eq!(
        bodies[0]["tools"][0]["function"]["name"],
        "builtin__calculate"
    );
    assert_eq!(
        bodies[1]["messages"],
        json!([
            {"role": "user", "content": "Two tools please mock:tools"},
            {"role": "assistant", "content": "", "thinking": "First I need the product. ",
             "tool_calls": [{"function": {"name": "builtin__calculate", "arguments": {"expression": "1234 * 5678"}}}]},
            {"role": "tool", "tool_name": "builtin__calculate", "content": "7006652"},
        ])
    );
    assert_eq!(
        bodies[2]["messages"][4]["tool_name"],
        "builtin__current_time"
    );
}

/// OpenRouter relaying Gemini 3: the `reasoning_details` of each message
/// that called tools go back unmodified and in order (the readable text,
/// then the sealed signature), or OpenRouter passes on Gemini's 400.
#[tokio::test]
async fn openrouter_gets_its_reasoning_details_back_unmodified() {
    use pensive::server::mock::encoders::anthropic::mock_signature;
    let (_, bodies) = two_call_loop(Dialect::Chat, "google/gemini-3-pro-preview").await;
    let thought = "First I need the product. ";
    let details = &bodies[1]["messages"][1]["reasoning_details"];
    assert_eq!(
        details,
        &json!([
            {"type": "reasoning.text", "text": thought, "format": "google-gemini-v1", "index": 0},
            {"type": "reasoning.encrypted", "data": mock_signature(thought), "format": "google-gemini-v1", "index": 1},
        ])
    );
    assert!(bodies[2]["messages"][3]["reasoning_details"].is_array());
}

#[tokio::test]
async fn a_tool_switched_off_in_the_conversation_never_runs_even_when_called() {
    let (port, mock) = common::start_mock_in_process().await;
    let app = app_with(chat_model(port, "mock-model"));
    // The model asks for `calculate` although the user switched the
    // built-in server off: the call is answered "switched off", not run.
    let body = json!({"request": {
        "messages": [{"role": "user", "content": "mock:call builtin__calculate {\"expression\": \"6 * 7\"}"}],
        "model": "m",
        "tools": [],
    }});
    let events = common::post_chat(&app, &body, "the switched-off turn").await;
    let result = events.iter().find_map(|e| match e {
        TurnEvent::ToolResult { output, status, .. } => Some((output.clone(), *status)),
        _ => None,
    });
    assert_eq!(
        result,
        Some((
            "That tool is switched off in this conversation.".into(),
            ToolStatus::Denied
        ))
    );
    assert!(events.iter().any(|e| matches!(e,
        TurnEvent::ToolCallReady { approval, .. } if *approval == pensive::turn::Approval::NotNeeded)));
    let bodies = request_bodies(&mock);
    assert!(bodies[0].get("tools").is_none(), "no tool was offered");
    assert!(!bodies[1].to_string().contains("42"), "calculate never ran");
}

#[tokio::test]
async fn the_turns_tool_time_limit_ends_the_turn_and_continue_resumes_it() {
    let (port, _mock) = common::start_mock_in_process().await;
    // Any round of tools uses up a limit this small: the second call the
    // model asks for is not run, and the turn stops offering Continue.
    let limits = pensive::server::limits::Limits {
        max_tool_time: Duration::from_nanos(1),
        ..Default::default()
    };
    let app = app_with_limits(chat_model(port, "mock-model"), limits);
    let question = "Keep going mock:tools-loop";
    let events = turn(&app, json!([{"role": "user", "content": question}]), "m").await;
    let results: Vec<(ToolStatus, String)> = events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ToolResult { status, output, .. } => Some((*status, output.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 2, "{results:?}");
    assert_eq!(results[1].0, ToolStatus::Cancelled);
    assert!(results[1]
        .1
        .starts_with("Not run: the turn reached its limit of"));
    assert!(matches!(events.last(),
        Some(TurnEvent::Done { finish_reason: Some(r), output_limit: Some(0) }) if r == "tool_time_limit"));
    let conversation = stored_conversation(question, events);
    let Some(Message::Assistant(stopped)) = conversation.messages.last() else {
        panic!("the turn is stored");
    };
    assert!(stopped.is_cut_off(), "Continue is offered");
    assert_eq!(
        pensive::turn::turn_footer::cut_note(
            stopped.finish_reason.as_deref(),
            stopped.output_limit
        )
        .as_deref(),
        Some("Stopped at the limit of 0 seconds of tool time")
    );
}

/// Fable 5.1 binds each thinking block to the conversation before it, and
/// refuses a block whose prefix changed. A tool switched off between turns
/// changes `tools`: Pensive asks the API to drop such blocks
/// (`drop_block`), so the next turn is answered, not refused for good.
#[tokio::test]
async fn a_tool_list_changed_between_turns_does_not_break_a_claude_that_binds_its_thinking() {
    let (port, mock) = common::start_mock_in_process().await;
    let app = app_with(wire_model(port, Dialect::Anthropic, "claude-fable-5-1"));
    let question = "Two tools please mock:tools";
    let first = turn(&app, json!([{"role": "user", "content": question}]), "m").await;
    assert!(
        matches!(first.last(), Some(TurnEvent::Done { .. })),
        "{first:?}"
    );
    let mut conversation = stored_conversation(question, first);
    conversation
        .messages
        .push(Message::user("And now? mock:normal"));
    let later = serde_json::to_value(conversation.to_chat_messages()).expect("messages");
    let body = json!({"request": {"messages": later, "model": "m", "tools": []}});
    let events = common::post_chat(&app, &body, "the later turn").await;
    assert!(
        matches!(events.last(), Some(TurnEvent::Done { .. })),
        "{events:?}"
    );
    let sent = mock.requests().last().cloned().expect("a request");
    assert!(
        sent.body.to_string().contains("\"type\":\"thinking\""),
        "the thinking went back: {}",
        sent.body
    );
    assert_eq!(
        sent.body["thinking"]["block_binding"],
        json!({"prefix_mismatch_behavior": "drop_block"})
    );
    assert!(sent
        .headers
        .iter()
        .any(|(k, v)| k == "anthropic-beta" && v.contains("thinking-binding-controls-2026-08-01")));
}
