//! Reasoning control per provider row (issue 20): Pensive's `POST /api/chat`
//! with an `effort`, against the mock upstream, which enforces each
//! provider's real rules for reasoning parameters by model name and answers
//! a wrong request with the provider's own 400 body. Per row: Pensive's
//! request is accepted and carries the effort in the provider's words; a
//! wrong request (forced by configuration) is refused as the provider refuses
//! it; a word the model does not take never reaches the provider.

#![cfg(feature = "ssr")]

mod common;

use std::time::Duration;

use leptos::config::LeptosOptions;
use pensive::server::config::{EffortSettings, ModelConfig, ProviderKind};
use pensive::server::http::router::build_router;
use pensive::server::mock::scripted::Pace;
use pensive::server::mock::upstream::MockState;
use pensive::server::providers::wire::{Dialect, UpstreamModel};
use pensive::server::tags::TagSet;
use pensive::server::{AppConfig, TurnService};
use pensive::turn::{Effort, ErrorKind, TurnEvent};
use serde_json::{json, Value};

/// One configured model: dialect, upstream name, and its TOML-like settings.
struct Row {
    dialect: Dialect,
    name: &'static str,
    efforts: Option<&'static [&'static str]>,
    default_effort: Option<&'static str>,
    thinking: Option<&'static str>,
    llamacpp: bool,
    max_output_tokens: Option<u32>,
    base_path: &'static str,
}

impl Row {
    fn new(dialect: Dialect, name: &'static str) -> Self {
        Self {
            dialect,
            name,
            efforts: None,
            default_effort: None,
            thinking: None,
            llamacpp: false,
            max_output_tokens: None,
            base_path: match dialect {
                Dialect::Chat | Dialect::Responses => "/v1",
                _ => "",
            },
        }
    }

    fn thinking(mut self, style: &'static str) -> Self {
        self.thinking = Some(style);
        self
    }

    fn efforts(mut self, words: &'static [&'static str]) -> Self {
        self.efforts = Some(words);
        self
    }

    fn model(&self, base: &str) -> ModelConfig {
        let mut upstream = UpstreamModel {
            base_url: format!("{base}{}", self.base_path),
            api_key: Some("sk-test".into()),
            name: self.name.into(),
            llamacpp: self.llamacpp,
            max_output_tokens: self.max_output_tokens,
            ..UpstreamModel::default()
        };
        let efforts: Option<Vec<String>> = self
            .efforts
            .map(|list| list.iter().map(|w| w.to_string()).collect());
        EffortSettings::parse(efforts.as_deref(), self.default_effort, self.thinking)
            .and_then(|settings| settings.apply(self.dialect, &mut upstream))
            .expect("valid settings");
        ModelConfig {
            id: "m".into(),
            label: self.name.into(),
            provider: ProviderKind::Wire(self.dialect),
            upstream,
            demo_pace: Pace::INSTANT,
            tags: TagSet::default(),
            start_in_thinking: false,
        }
    }
}

/// The mock, and Pensive with `row` as its only model.
async fn setup(row: &Row) -> (axum::Router, MockState, ModelConfig) {
    let (port, mock) = common::start_mock_in_process().await;
    let model = row.model(&format!("http://127.0.0.1:{port}"));
    let config = AppConfig {
        models: vec![model.clone()],
        ..common::app_config(Vec::new())
    };
    let app = build_router(
        TurnService::new(config),
        LeptosOptions::builder().output_name("pensive").build(),
    );
    (app, mock, model)
}

/// One turn at `effort` (none: the model's default); its events, checked
/// against the contract.
async fn turn(app: &axum::Router, effort: Option<&str>) -> Vec<TurnEvent> {
    let mut request =
        json!({"messages": [{"role": "user", "content": "Why? mock:normal"}], "model": "m"});
    if let Some(effort) = effort {
        request["effort"] = json!(effort);
    }
    common::post_chat(app, &json!({ "request": request }), "the turn").await
}

fn done(events: &[TurnEvent]) -> bool {
    matches!(events.last(), Some(TurnEvent::Done { .. }))
}

fn error(events: &[TurnEvent]) -> Option<(ErrorKind, String)> {
    match events.last() {
        Some(TurnEvent::Error { kind, message }) => Some((*kind, message.clone())),
        _ => None,
    }
}

/// The body of the last request the mock received.
fn last_body(mock: &MockState) -> Value {
    mock.requests()
        .last()
        .expect("a request upstream")
        .body
        .clone()
}

/// "Answer now" on a provider without a control: the turn asked again with
/// `reasoning` so far; it must end done.
async fn asked_again(app: &axum::Router, reasoning: &str) {
    let body = json!({"request": {
        "messages": [{"role": "user", "content": "Why? mock:normal"}],
        "model": "m",
        "reasoning_so_far": reasoning,
    }});
    let bytes = common::post_chat_bytes(app, &body).await;
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("\"done\""), "{text}");
}

/// The answer text of a turn's events.
fn answer_of(events: &[TurnEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::AnswerDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// Pensive's request at `effort` is accepted; returns what was sent.
async fn accepted(row: &Row, effort: Option<&str>) -> Value {
    let (app, mock, _) = setup(row).await;
    let events = turn(&app, effort).await;
    assert!(
        done(&events),
        "{} at {effort:?}: {events:?}\nsent: {}",
        row.name,
        last_body(&mock)
    );
    last_body(&mock)
}

/// A word the model does not take is refused before anything goes upstream,
/// naming the words it takes.
async fn refused_before_upstream(row: &Row, effort: &str, names: &str) {
    let (app, mock, _) = setup(row).await;
    let events = turn(&app, Some(effort)).await;
    let (kind, message) = error(&events).expect("an error");
    assert_eq!(kind, ErrorKind::BadRequest);
    assert!(message.contains(names), "{message}");
    assert!(mock.requests().is_empty(), "nothing sent upstream");
}

#[tokio::test]
async fn anthropic_opus_4_7_gets_adaptive_thinking_summarized_with_its_effort() {
    let row = Row::new(Dialect::Anthropic, "claude-opus-4-7");
    let (_, _, model) = setup(&row).await;
    let public = model.public();
    use Effort::*;
    assert_eq!(public.efforts, vec![Off, Low, Medium, High, Xhigh, Max]);
    assert_eq!(public.default_effort, Some(High));
    for (effort, word) in [
        (None, "high"),
        (Some("low"), "low"),
        (Some("xhigh"), "xhigh"),
        (Some("max"), "max"),
    ] {
        let sent = accepted(&row, effort).await;
        assert_eq!(
            sent["thinking"],
            json!({"type": "adaptive", "display": "summarized"})
        );
        assert_eq!(sent["output_config"], json!({"effort": word}));
        for absent in ["temperature", "top_p", "top_k"] {
            assert!(sent.get(absent).is_none(), "{absent} sent: {sent}");
        }
        assert!(sent.pointer("/thinking/budget_tokens").is_none());
    }
    let off = accepted(&row, Some("off")).await;
    assert_eq!(off["thinking"], json!({"type": "disabled"}));
    assert!(off.get("output_config").is_none());
    refused_before_upstream(&row, "minimal", "off, low, medium, high, xhigh or max").await;
}

#[tokio::test]
async fn anthropic_forced_budget_on_opus_4_7_gets_the_real_400_naming_the_thinking_key() {
    let row = Row::new(Dialect::Anthropic, "claude-opus-4-7").thinking("budget");
    let (app, mock, _) = setup(&row).await;
    let events = turn(&app, Some("high")).await;
    let (kind, message) = error(&events).expect("refused upstream");
    assert_eq!(kind, ErrorKind::BadRequest);
    assert!(
        message.contains("\"thinking.type.enabled\" is not supported for this model"),
        "{message}"
    );
    assert!(
        message.contains("thinking = \"adaptive\" | \"budget\" | \"none\""),
        "{message}"
    );
    assert_eq!(last_body(&mock)["thinking"]["type"], "enabled");
}

#[tokio::test]
async fn anthropic_sonnet_4_6_is_adaptive_without_xhigh_and_forced_adaptive_on_4_5_is_refused() {
    let row = Row::new(Dialect::Anthropic, "claude-sonnet-4-6");
    let sent = accepted(&row, Some("max")).await;
    assert_eq!(sent["output_config"]["effort"], "max");
    refused_before_upstream(&row, "xhigh", "off, low, medium, high or max").await;
    let wrong = Row::new(Dialect::Anthropic, "claude-sonnet-4-5").thinking("adaptive");
    let (app, _, _) = setup(&wrong).await;
    let (_, message) = error(&turn(&app, None).await).expect("refused");
    assert!(
        message.contains("adaptive thinking is not supported"),
        "{message}"
    );
    assert!(message.contains("thinking = "), "{message}");
}

#[tokio::test]
async fn anthropic_before_4_6_gets_a_budget_between_1024_and_max_tokens() {
    let row = Row::new(Dialect::Anthropic, "claude-sonnet-4-5");
    for (effort, budget) in [(None, 8000), (Some("low"), 2048), (Some("high"), 16000)] {
        let sent = accepted(&row, effort).await;
        assert_eq!(sent["thinking"]["type"], "enabled");
        assert_eq!(sent["thinking"]["budget_tokens"], json!(budget));
        assert!(sent["max_tokens"].as_u64() > Some(budget));
        assert!(sent.get("output_config").is_none());
    }
    assert_eq!(
        accepted(&row, Some("off")).await["thinking"],
        json!({"type": "disabled"})
    );
    refused_before_upstream(&row, "max", "off, low, medium or high").await;
}

#[tokio::test]
async fn anthropic_thinking_none_and_claude_3_5_send_no_thinking() {
    let none = Row::new(Dialect::Anthropic, "claude-opus-4-7").thinking("none");
    assert!(accepted(&none, None).await.get("thinking").is_none());
    refused_before_upstream(&none, "high", "takes no reasoning effort").await;
    let old = Row::new(Dialect::Anthropic, "claude-3-5-haiku-latest");
    assert!(accepted(&old, None).await.get("thinking").is_none());
}

#[tokio::test]
async fn gemini_3_takes_thinking_levels_pro_low_high_flash_minimal_to_high() {
    let pro = Row::new(Dialect::Gemini, "gemini-3-pro-preview");
    for (effort, level) in [(None, "high"), (Some("low"), "low")] {
        let sent = accepted(&pro, effort).await;
        let config = &sent["generationConfig"]["thinkingConfig"];
        assert_eq!(
            config,
            &json!({"includeThoughts": true, "thinkingLevel": level})
        );
    }
    refused_before_upstream(&pro, "medium", "low or high").await;
    let flash = Row::new(Dialect::Gemini, "gemini-3-flash-preview");
    for level in ["minimal", "low", "medium", "high"] {
        let sent = accepted(&flash, Some(level)).await;
        assert_eq!(
            sent["generationConfig"]["thinkingConfig"]["thinkingLevel"],
            level
        );
    }
}

#[tokio::test]
async fn gemini_2_5_takes_budgets_off_only_on_flash_and_never_both_fields() {
    let flash = Row::new(Dialect::Gemini, "gemini-2.5-flash");
    let off = accepted(&flash, Some("off")).await;
    assert_eq!(
        off["generationConfig"]["thinkingConfig"],
        json!({"thinkingBudget": 0})
    );
    for (effort, budget) in [(None, -1), (Some("low"), 1024), (Some("high"), 24576)] {
        let sent = accepted(&flash, effort).await;
        let config = &sent["generationConfig"]["thinkingConfig"];
        assert_eq!(
            config,
            &json!({"includeThoughts": true, "thinkingBudget": budget})
        );
        assert!(config.get("thinkingLevel").is_none());
    }
    let pro = Row::new(Dialect::Gemini, "gemini-2.5-pro");
    assert_eq!(
        accepted(&pro, Some("high")).await["generationConfig"]["thinkingConfig"]["thinkingBudget"],
        32768
    );
    refused_before_upstream(&pro, "off", "low, medium or high").await;
}

#[tokio::test]
async fn gemini_rules_refuse_both_fields_a_level_on_2_5_and_budget_0_on_pro() {
    use pensive::server::providers::wire::UpstreamRequest;
    let (port, _) = common::start_mock_in_process().await;
    let url = |model: &str| {
        format!("http://127.0.0.1:{port}/v1beta/models/{model}:streamGenerateContent?alt=sse")
    };
    let cases = [
        (
            "gemini-3-pro-preview",
            json!({"thinkingLevel": "low", "thinkingBudget": 1024}),
            "You can only set only one of thinking budget and thinking level.",
        ),
        (
            "gemini-2.5-flash",
            json!({"thinkingLevel": "low"}),
            "Thinking level is not supported",
        ),
        (
            "gemini-2.5-pro",
            json!({"thinkingBudget": 0}),
            "Budget 0 is invalid. This model only works in thinking mode.",
        ),
        (
            "gemini-3-pro-preview",
            json!({"thinkingLevel": "medium"}),
            "Thinking level MEDIUM is not supported",
        ),
    ];
    for (model, config, words) in cases {
        let request = UpstreamRequest {
            url: url(model),
            headers: Vec::new(),
            body: json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "generationConfig": {"thinkingConfig": config}}),
        };
        let response = reqwest::Client::new()
            .post(&request.url)
            .json(&request.body)
            .send()
            .await
            .expect("mock answers");
        assert_eq!(response.status(), 400, "{model}");
        let body: Value = response.json().await.expect("json");
        assert_eq!(body["error"]["status"], "INVALID_ARGUMENT");
        let message = body["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains(words), "{model}: {message}");
    }
}

#[tokio::test]
async fn responses_sends_reasoning_effort_in_openai_words_always_with_a_summary() {
    let row = Row::new(Dialect::Responses, "gpt-5.2");
    for (effort, word) in [
        (None, "medium"),
        (Some("off"), "none"),
        (Some("xhigh"), "xhigh"),
    ] {
        let sent = accepted(&row, effort).await;
        assert_eq!(
            sent["reasoning"],
            json!({"summary": "auto", "effort": word})
        );
    }
    refused_before_upstream(&row, "max", "off, low, medium, high or xhigh").await;
    let gpt5 = Row::new(Dialect::Responses, "gpt-5-mini");
    assert_eq!(
        accepted(&gpt5, Some("minimal")).await["reasoning"]["effort"],
        "minimal"
    );
    refused_before_upstream(&gpt5, "off", "minimal, low, medium or high").await;
}

#[tokio::test]
async fn responses_an_effort_the_model_lacks_gets_openais_real_400() {
    // Pensive never sends such a request (its families know the words), so
    // the mock is asked directly with what an older Pensive would have sent.
    let (port, _) = common::start_mock_in_process().await;
    let response = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{port}/v1/responses"))
        .json(&json!({"model": "gpt-5.1", "input": [], "stream": true, "reasoning": {"summary": "auto", "effort": "minimal"}}))
        .send()
        .await
        .expect("mock answers");
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.expect("json");
    assert_eq!(
        body["error"]["message"],
        "Unsupported value: 'minimal' is not supported with the 'gpt-5.1' model. Supported values are: 'none', 'low', 'medium', and 'high'."
    );
    assert_eq!(body["error"]["param"], "reasoning.effort");
    assert_eq!(body["error"]["code"], "unsupported_value");
}

#[tokio::test]
async fn chat_on_openai_sends_reasoning_effort_and_refuses_template_kwargs() {
    let row = Row::new(Dialect::Chat, "gpt-5.1");
    assert_eq!(accepted(&row, None).await["reasoning_effort"], "medium");
    let off = accepted(&row, Some("off")).await;
    assert_eq!(off["reasoning_effort"], "none");
    assert!(off.get("chat_template_kwargs").is_none());
    refused_before_upstream(&row, "minimal", "off, low, medium or high").await;
    let (port, _) = common::start_mock_in_process().await;
    let refused = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{port}/v1/chat/completions"))
        .json(&json!({"model": "gpt-5.1", "messages": [], "chat_template_kwargs": {"enable_thinking": false}}))
        .send()
        .await
        .expect("mock answers");
    assert_eq!(refused.status(), 400);
    let body: Value = refused.json().await.expect("json");
    assert_eq!(
        body["error"]["message"],
        "Unrecognized request argument supplied: chat_template_kwargs"
    );
}

#[tokio::test]
async fn chat_on_deepseek_switches_thinking_and_sends_high_or_max() {
    let row = Row::new(Dialect::Chat, "deepseek-v4-pro");
    let (_, _, model) = setup(&row).await;
    assert_eq!(
        model.public().efforts,
        vec![Effort::Off, Effort::Low, Effort::High, Effort::Max]
    );
    assert_eq!(accepted(&row, Some("low")).await["reasoning_effort"], "low");
    let on = accepted(&row, None).await;
    assert_eq!(on["thinking"], json!({"type": "enabled"}));
    assert_eq!(on["reasoning_effort"], "high");
    assert_eq!(accepted(&row, Some("max")).await["reasoning_effort"], "max");
    let off = accepted(&row, Some("off")).await;
    assert_eq!(off["thinking"], json!({"type": "disabled"}));
    assert!(off.get("reasoning_effort").is_none());
    refused_before_upstream(&row, "medium", "off, low, high or max").await;
}

#[tokio::test]
async fn chat_on_vllm_turns_qwen3_thinking_off_through_the_template() {
    let row = Row::new(Dialect::Chat, "Qwen/Qwen3-8B");
    let off = accepted(&row, Some("off")).await;
    assert_eq!(
        off["chat_template_kwargs"],
        json!({"enable_thinking": false})
    );
    let on = accepted(&row, None).await;
    assert_eq!(on["chat_template_kwargs"], json!({"enable_thinking": true}));
    refused_before_upstream(&row, "medium", "off or high").await;
    // A model of unknown family offers what the configuration lists.
    let listed = Row::new(Dialect::Chat, "house-model").efforts(&["off", "low", "high"]);
    assert_eq!(
        accepted(&listed, Some("low")).await["reasoning_effort"],
        "low"
    );
}

#[tokio::test]
async fn llamacpp_asks_for_reasoning_control_and_can_end_thinking() {
    let mut row = Row::new(Dialect::Chat, "qwen3.5-27b");
    row.llamacpp = true;
    let sent = accepted(&row, Some("off")).await;
    assert_eq!(sent["reasoning_control"], true);
    assert_eq!(
        sent["chat_template_kwargs"],
        json!({"enable_thinking": false})
    );
    // The control names a running completion; an unknown id is refused.
    let (_, mock, model) = setup(&row).await;
    let refused =
        pensive::server::providers::openai_chat::end_reasoning(&model.upstream, "chatcmpl-42")
            .await
            .expect_err("no such completion");
    assert_eq!(refused.kind(), ErrorKind::BadRequest);
    let control = mock.requests().pop().expect("the control request");
    assert_eq!(control.path, "/v1/chat/completions/control");
    assert_eq!(
        control.body,
        json!({"id": "chatcmpl-42", "action": "reasoning_end", "model": "qwen3.5-27b"})
    );
}

#[tokio::test]
async fn ollama_thinks_at_a_level_on_gpt_oss_and_on_or_off_elsewhere() {
    let oss = Row::new(Dialect::Ollama, "gpt-oss:20b");
    for (effort, think) in [
        (None, json!("medium")),
        (Some("low"), json!("low")),
        (Some("high"), json!("high")),
    ] {
        assert_eq!(accepted(&oss, effort).await["think"], think);
    }
    refused_before_upstream(&oss, "off", "low, medium or high").await;
    let qwen = Row::new(Dialect::Ollama, "qwen3:8b");
    assert_eq!(accepted(&qwen, None).await["think"], json!(true));
    assert_eq!(accepted(&qwen, Some("off")).await["think"], json!(false));
    refused_before_upstream(&qwen, "low", "off or high").await;
    // A level forced on a switch-only model (an unknown alias configured with
    // levels would send one): the mock refuses it as Ollama does.
    let (port, _) = common::start_mock_in_process().await;
    let refused = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{port}/api/chat"))
        .json(&json!({"model": "qwen3:8b", "messages": [], "think": "low"}))
        .send()
        .await
        .expect("mock answers");
    assert_eq!(refused.status(), 400);
    let body: Value = refused.json().await.expect("json");
    assert!(body["error"]
        .as_str()
        .is_some_and(|e| e.contains("not supported")));
}

#[tokio::test]
async fn answer_now_on_llamacpp_ends_the_running_completions_thinking() {
    use futures::StreamExt;
    use pensive::turn::{AnswerNow, ChatMessage, ChatRequest};
    let mut row = Row::new(Dialect::Chat, "qwen3.5-27b");
    row.llamacpp = true;
    let (port, mock) = common::start_mock_in_process().await;
    let model = row.model(&format!("http://127.0.0.1:{port}"));
    let service = TurnService::new(AppConfig {
        idle_timeout: Duration::from_secs(10),
        ..common::app_config(vec![model])
    });
    let request = ChatRequest {
        // Reasoning starts, then 3 s of silence: time to press the button.
        messages: vec![ChatMessage::user("Why? mock:hidden-reasoning")],
        turn_id: Some("turn-1".into()),
        ..ChatRequest::default()
    };
    let mut events = Box::pin(service.start(request, "client-a"));
    assert_eq!(
        events.next().await,
        Some(TurnEvent::ReasoningSource {
            source: pensive::turn::ReasoningSource::Full
        }),
        "llama.cpp sends the model's own reasoning"
    );
    assert_eq!(events.next().await, Some(TurnEvent::ThinkingStart));
    assert_eq!(
        service.answer_now("turn-1", "client-b").await,
        AnswerNow::AskAgain {
            effort: None,
            control_failed: false
        },
        "another client's turn is out of reach"
    );
    let pressed = std::time::Instant::now();
    assert_eq!(
        service.answer_now("turn-1", "client-a").await,
        AnswerNow::Ended
    );
    let control = mock.requests().pop().expect("the control request");
    assert_eq!(control.path, "/v1/chat/completions/control");
    assert_eq!(
        control.body,
        json!({"id": "chatcmpl-mock-1", "action": "reasoning_end", "model": "qwen3.5-27b"})
    );
    // The same stream goes on with the answer at once (not after the 3 s).
    let rest: Vec<TurnEvent> = events.by_ref().collect().await;
    assert!(
        pressed.elapsed() < Duration::from_millis(2500),
        "{:?}",
        pressed.elapsed()
    );
    assert!(
        rest.iter()
            .any(|e| matches!(e, TurnEvent::AnswerDelta { .. })),
        "{rest:?}"
    );
    assert!(
        matches!(rest.last(), Some(TurnEvent::Done { .. })),
        "{rest:?}"
    );
    drop(events);
    assert_eq!(
        service.answer_now("turn-1", "client-a").await,
        AnswerNow::AskAgain {
            effort: None,
            control_failed: false
        },
        "a finished turn is forgotten"
    );
}

#[tokio::test]
async fn answer_now_elsewhere_asks_again_at_the_weakest_effort_with_the_reasoning_so_far() {
    let row = Row::new(Dialect::Anthropic, "claude-opus-4-7");
    let (app, mock, _) = setup(&row).await;
    asked_again(&app, "The sky scatters blue light more.").await;
    let sent = last_body(&mock);
    assert_eq!(
        sent["thinking"],
        json!({"type": "disabled"}),
        "off, which stops Opus 4.7 thinking: {sent}"
    );
    let question = sent["messages"][0]["content"].as_str().unwrap_or("");
    assert!(question.starts_with("Why? mock:normal"), "{question}");
    assert!(
        question.contains("The sky scatters blue light more."),
        "{question}"
    );
    assert!(
        question.ends_with("without further thinking."),
        "{question}"
    );
}

/// "Answer now" over HTTP, as the page calls it: `POST /api/answer_now`
/// with the turn's id ends a llama.cpp turn's thinking in its running
/// stream; a cross-site caller is refused before it reaches the turn.
#[tokio::test]
async fn answer_now_over_http_ends_a_running_llamacpp_turns_thinking() {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let mut row = Row::new(Dialect::Chat, "qwen3.5-27b");
    row.llamacpp = true;
    let (app, mock, _) = setup(&row).await;
    let post = |path: &str, body: Value, origin: Option<&str>| {
        let mut request =
            axum::http::Request::post(path).header("content-type", "application/json");
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        request
            .body(axum::body::Body::from(body.to_string()))
            .expect("request")
    };
    let chat = json!({"request": {
        "messages": [{"role": "user", "content": "Why? mock:hidden-reasoning"}],
        "model": "m",
        "turn_id": "page-turn-7",
    }});
    let response = app
        .clone()
        .oneshot(post("/api/chat", chat, None))
        .await
        .expect("chat response");
    let mut body = response.into_body();
    let mut seen = String::new();
    while !seen.contains("thinking_start") {
        let frame = body.frame().await.expect("a frame").expect("body");
        if let Ok(data) = frame.into_data() {
            seen.push_str(&String::from_utf8_lossy(&data));
        }
    }
    let answer_now = json!({"turn_id": "page-turn-7"});
    let refused = app
        .clone()
        .oneshot(post(
            "/api/answer_now",
            answer_now.clone(),
            Some("https://evil.example"),
        ))
        .await
        .expect("response");
    assert_eq!(refused.status(), 403);
    assert!(
        !mock.requests().iter().any(|r| r.path.ends_with("/control")),
        "a refused call reaches nothing"
    );
    let pressed = std::time::Instant::now();
    let response = app
        .clone()
        .oneshot(post("/api/answer_now", answer_now, None))
        .await
        .expect("response");
    assert_eq!(response.status(), 200);
    let outcome: Value = serde_json::from_slice(
        &response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes(),
    )
    .expect("json");
    assert_eq!(outcome, json!({"outcome": "ended"}));
    let rest = body.collect().await.expect("rest").to_bytes();
    let rest = String::from_utf8_lossy(&rest);
    assert!(rest.contains("answer_delta"), "{rest}");
    assert!(
        pressed.elapsed() < Duration::from_millis(2500),
        "the answer came at once, not after the 3 s pause: {:?}",
        pressed.elapsed()
    );
}

// ---- Issue 30: today's families against the mock's independent rules ----

fn thinking_text(events: &[TurnEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ThinkingDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn opened_thinking(events: &[TurnEvent]) -> bool {
    events.iter().any(|e| matches!(e, TurnEvent::ThinkingStart))
}

#[tokio::test]
async fn claude_5_off_stops_the_thinking_and_every_other_effort_shows_its_summary() {
    let row = Row::new(Dialect::Anthropic, "claude-opus-5");
    let (app, mock, model) = setup(&row).await;
    use Effort::*;
    assert_eq!(
        model.public().efforts,
        vec![Off, Low, Medium, High, Xhigh, Max]
    );
    // Claude 5 thinks when no `thinking` field is sent: off must say disabled.
    let off = turn(&app, Some("off")).await;
    assert!(done(&off), "{off:?}");
    assert!(!opened_thinking(&off), "no thinking at off: {off:?}");
    assert_eq!(last_body(&mock)["thinking"], json!({"type": "disabled"}));
    // Its thinking text is omitted unless asked for: Pensive asks.
    let high = turn(&app, Some("high")).await;
    assert!(done(&high));
    assert!(!thinking_text(&high).is_empty(), "readable: {high:?}");
    assert_eq!(last_body(&mock)["thinking"]["display"], "summarized");
    assert_eq!(
        last_body(&mock)["max_tokens"],
        32_000,
        "grows with the effort"
    );
}

#[tokio::test]
async fn claude_models_that_always_think_offer_no_off_and_the_provider_refuses_it() {
    for name in [
        "claude-fable-5",
        "claude-fable-5-1",
        "claude-opus-5-5",
        "claude-sonnet-5-5",
    ] {
        let row = Row::new(Dialect::Anthropic, name);
        let (_, _, model) = setup(&row).await;
        assert!(!model.public().efforts.contains(&Effort::Off), "{name}");
        assert!(model.public().efforts.contains(&Effort::Xhigh), "{name}");
        refused_before_upstream(&row, "off", "low, medium, high, xhigh or max").await;
    }
    // Widened by the configuration, off goes out and gets Anthropic's 400.
    let widened = Row::new(Dialect::Anthropic, "claude-fable-5-1").efforts(&["off", "high"]);
    let (app, _, _) = setup(&widened).await;
    let (kind, message) = error(&turn(&app, Some("off")).await).expect("refused upstream");
    assert_eq!(kind, ErrorKind::BadRequest);
    assert!(
        message.contains("\"thinking.type.disabled\" is not supported for this model."),
        "{message}"
    );
    assert_eq!(
        Row::new(Dialect::Anthropic, "claude-opus-5-5")
            .model("http://x")
            .public()
            .default_effort,
        Some(Effort::Medium),
        "Opus 5.5's own default"
    );
}

#[tokio::test]
async fn openai_codex_chat_and_pro_variants_offer_the_words_openai_takes() {
    let words = |name: &'static str| {
        Row::new(Dialect::Responses, name)
            .model("http://x")
            .public()
            .efforts
    };
    use Effort::*;
    assert_eq!(words("gpt-5.1-codex"), vec![Low, Medium, High]);
    assert_eq!(words("gpt-5-codex"), vec![Low, Medium, High]);
    assert_eq!(words("gpt-5.1-codex-mini"), vec![Low, Medium, High]);
    assert_eq!(words("gpt-5.2-chat-latest"), vec![Medium]);
    assert_eq!(words("gpt-5-chat-latest"), vec![]);
    assert_eq!(words("gpt-5.6"), vec![Off, Low, Medium, High, Xhigh, Max]);
    let codex = Row::new(Dialect::Responses, "gpt-5.1-codex");
    refused_before_upstream(&codex, "off", "low, medium or high").await;
    assert_eq!(
        accepted(&codex, Some("low")).await["reasoning"]["effort"],
        "low"
    );
    let chat = Row::new(Dialect::Responses, "gpt-5-chat-latest");
    assert!(accepted(&chat, None)
        .await
        .pointer("/reasoning/effort")
        .is_none());
    // On chat completions an OpenAI model's limit is max_completion_tokens.
    let mut limited = Row::new(Dialect::Chat, "gpt-5.2");
    limited.max_output_tokens = Some(4000);
    let sent = accepted(&limited, Some("xhigh")).await;
    assert_eq!(sent["max_completion_tokens"], 4000);
    assert!(sent.get("max_tokens").is_none());
}

#[tokio::test]
async fn gemini_3_1_pro_takes_medium_and_3_7_flash_starts_at_low() {
    let pro = Row::new(Dialect::Gemini, "gemini-3.1-pro-preview");
    assert_eq!(
        accepted(&pro, Some("medium")).await["generationConfig"]["thinkingConfig"]["thinkingLevel"],
        "medium"
    );
    let flash = Row::new(Dialect::Gemini, "gemini-3.7-flash");
    refused_before_upstream(&flash, "minimal", "low, medium or high").await;
}

#[tokio::test]
async fn names_newer_than_the_table_are_served_as_their_newest_member() {
    let public = |dialect, name: &'static str| Row::new(dialect, name).model("http://x").public();
    for (dialect, newer, newest) in [
        (Dialect::Anthropic, "claude-opus-6", "claude-opus-5-5"),
        (Dialect::Anthropic, "claude-fable-7", "claude-fable-5-1"),
        (Dialect::Responses, "gpt-7", "gpt-6-sol"),
        (Dialect::Gemini, "gemini-4-pro", "gemini-3.1-pro-preview"),
    ] {
        let (a, b) = (public(dialect, newer), public(dialect, newest));
        assert_eq!(a.efforts, b.efforts, "{newer}");
        assert_eq!(a.default_effort, b.default_effort, "{newer}");
        assert_eq!(a.efforts_from, "table");
    }
    let unreadable = public(Dialect::Anthropic, "house-claude");
    assert!(unreadable.efforts.is_empty());
    assert_eq!(unreadable.efforts_from, "unknown");
}

#[tokio::test]
async fn answer_now_asks_again_at_the_weakest_effort_that_does_not_think_again() {
    for (name, thinking) in [
        (
            "claude-fable-5-1",
            json!({"type": "adaptive", "display": "summarized"}),
        ),
        ("claude-opus-5", json!({"type": "disabled"})),
    ] {
        let row = Row::new(Dialect::Anthropic, name);
        let (app, mock, _) = setup(&row).await;
        asked_again(&app, "The sky scatters blue light more.").await;
        let sent = last_body(&mock);
        assert_eq!(sent["thinking"], thinking, "{name}: {sent}");
        if name == "claude-fable-5-1" {
            assert_eq!(
                sent["output_config"],
                json!({"effort": "low"}),
                "the lowest it takes"
            );
        }
    }
}

#[tokio::test]
async fn answer_now_on_a_reasoning_longer_than_a_message_is_cut_to_fit_not_refused() {
    let row = Row::new(Dialect::Anthropic, "claude-opus-5");
    let (app, mock, _) = setup(&row).await;
    let long: String = (0..30_000)
        .map(|i| format!("step {i} of the reasoning\n"))
        .collect();
    assert!(long.chars().count() > 200_000);
    asked_again(&app, &long).await;
    let question = last_body(&mock)["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert!(question.chars().count() <= 200_000);
    assert!(question.contains("its start was cut to fit"));
    assert!(question.contains("step 29999 of the reasoning"));
}

#[tokio::test]
async fn a_cut_answer_names_its_limit_and_continue_goes_on_from_where_it_stopped() {
    let row = Row::new(Dialect::Anthropic, "claude-opus-5");
    let (app, mock, _) = setup(&row).await;
    let request = json!({"request": {
        "messages": [{"role": "user", "content": "Why? mock:cut-off"}],
        "model": "m",
        "effort": "max",
    }});
    let events = common::post_chat(&app, &request, "the cut turn").await;
    assert_eq!(
        events.last(),
        Some(&TurnEvent::Done {
            finish_reason: Some("length".into()),
            output_limit: Some(128_000),
        })
    );
    let partial = answer_of(&events);
    let again = json!({"request": {
        "messages": [
            {"role": "user", "content": "Why? mock:cut-off"},
            {"role": "assistant", "content": partial},
        ],
        "model": "m",
        "continue_answer": true,
    }});
    let rest = common::post_chat(&app, &again, "the continuation").await;
    assert!(done(&rest), "{rest:?}");
    assert!(!opened_thinking(&rest), "does not think again: {rest:?}");
    let sent = last_body(&mock);
    let messages = sent["messages"].as_array().cloned().unwrap_or_default();
    assert_eq!(messages.len(), 3, "{sent}");
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"], json!(partial));
    assert_eq!(
        messages[2]["role"], "user",
        "no prefill: Claude 5 refuses one"
    );
    assert_eq!(sent["thinking"], json!({"type": "disabled"}));
    let continued = answer_of(&rest);
    assert_eq!(continued, " more air, and the reds remain.");
}

#[tokio::test]
async fn a_failed_llamacpp_control_says_so_and_asks_again() {
    use pensive::server::turn_service::answer_now::AnswerNowRegistry;
    use pensive::turn::AnswerNow;
    // A llama.cpp that answers the control with success: false, as its
    // handler does for a completion not started with reasoning_control.
    let (port, _) = common::start_mock_in_process().await;
    let mut row = Row::new(Dialect::Chat, "qwen3.5-27b");
    row.llamacpp = true;
    let model = row.model(&format!("http://127.0.0.1:{port}"));
    let registry = AnswerNowRegistry::default();
    let (_guard, slot) = registry.register("t", "me", &model).expect("registered");
    slot.expect("a llama.cpp turn has a slot")
        .set("chatcmpl-not-running".into())
        .expect("empty slot");
    assert_eq!(
        registry.answer_now("t", "me").await,
        AnswerNow::AskAgain {
            effort: Some(Effort::Off),
            control_failed: true
        }
    );
}

#[tokio::test]
async fn what_the_providers_model_list_says_wins_over_the_table_and_loses_to_the_config() {
    let (port, _) = common::start_mock_in_process().await;
    let base = format!("http://127.0.0.1:{port}");
    let mut config = AppConfig {
        models: vec![
            Row::new(Dialect::Ollama, "llama3.2").model(&base),
            Row::new(Dialect::Ollama, "phi4-reasoning:14b").model(&base),
            Row::new(Dialect::Ollama, "qwen3:8b").model(&base),
            Row::new(Dialect::Ollama, "llama3.2:1b")
                .efforts(&["off", "low"])
                .model(&base),
            Row::new(Dialect::Gemini, "gemini-2.0-flash").model(&base),
            Row::new(Dialect::Gemini, "gemini-3.1-pro-preview").model(&base),
        ],
        ..common::app_config(Vec::new())
    };
    pensive::server::config::discover(&mut config).await;
    let seen: Vec<(Vec<Effort>, String)> = config
        .models
        .iter()
        .map(|m| (m.public().efforts, m.public().efforts_from))
        .collect();
    use Effort::*;
    assert_eq!(
        seen,
        vec![
            (vec![], "provider".into()),
            (vec![Off, High], "provider".into()),
            // Its `thinking.values` are listed: they, not the table, decide.
            (vec![Off, High], "provider".into()),
            (vec![Off, Low], "config".into()),
            (vec![], "provider".into()),
            (vec![Low, Medium, High], "table".into()),
        ]
    );
    // A list that cannot be read leaves the table standing.
    let mut offline = AppConfig {
        models: vec![Row::new(Dialect::Ollama, "qwen3:8b").model("http://127.0.0.1:9")],
        ..config
    };
    pensive::server::config::discover(&mut offline).await;
    assert_eq!(offline.models[0].public().efforts_from, "table");
}

/// A model made from gpt-oss under a name of its own (`ollama create
/// house-assistant`, `FROM gpt-oss:20b`): its name says nothing, and
/// `/api/show`'s `thinking.values` says levels. They are offered, with the
/// listed default, and sent as levels; a model without the `thinking`
/// capability is offered no effort at all.
#[tokio::test]
async fn ollama_offers_the_thinking_values_api_show_lists_not_a_guess_from_the_name() {
    let (port, mock) = common::start_mock_in_process().await;
    let base = format!("http://127.0.0.1:{port}");
    let mut config = AppConfig {
        models: vec![
            Row::new(Dialect::Ollama, "house-assistant").model(&base),
            Row::new(Dialect::Ollama, "gemma3:4b").model(&base),
        ],
        ..common::app_config(Vec::new())
    };
    pensive::server::config::discover(&mut config).await;
    use Effort::*;
    let offered: Vec<_> = config
        .models
        .iter()
        .map(|m| {
            let public = m.public();
            (public.efforts, public.default_effort, public.efforts_from)
        })
        .collect();
    assert_eq!(
        offered,
        vec![
            (vec![Low, Medium, High], Some(Medium), "provider".into()),
            (vec![], None, "provider".into()),
        ]
    );
    config.models.truncate(1);
    let app = build_router(
        TurnService::new(config),
        LeptosOptions::builder().output_name("pensive").build(),
    );
    for (effort, think) in [(None, json!("medium")), (Some("low"), json!("low"))] {
        let events = turn(&app, effort).await;
        assert!(done(&events), "{effort:?}: {events:?}");
        assert_eq!(last_body(&mock)["think"], think);
    }
}

/// A Claude configured with `fallbacks`: Pensive asks for the server-side
/// fallback (the list and its beta), and when the asked model declines, the
/// turn says which model answered (`model_switched`) and is answered.
#[tokio::test]
async fn anthropic_server_side_fallback_names_the_model_that_answered() {
    let (port, mock) = common::start_mock_in_process().await;
    let mut model =
        Row::new(Dialect::Anthropic, "claude-fable-5").model(&format!("http://127.0.0.1:{port}"));
    model.upstream.fallbacks = vec!["claude-opus-4-8".into()];
    let config = AppConfig {
        models: vec![model],
        ..common::app_config(Vec::new())
    };
    let app = build_router(
        TurnService::new(config),
        LeptosOptions::builder().output_name("pensive").build(),
    );
    let request = json!({"request": {"messages": [{"role": "user", "content": "Why? mock:refuse mock:normal"}], "model": "m"}});
    let events = common::post_chat(&app, &request, "the turn").await;
    assert!(done(&events), "{events:?}");
    assert!(
        events.contains(&TurnEvent::ModelSwitched {
            model: "claude-opus-4-8".into()
        }),
        "{events:?}"
    );
    assert!(!answer_of(&events).is_empty());
    let sent = mock.requests().last().cloned().expect("a request upstream");
    assert_eq!(
        sent.body["fallbacks"],
        json!([{"model": "claude-opus-4-8"}])
    );
    assert!(sent
        .headers
        .iter()
        .any(|(k, v)| k == "anthropic-beta" && v.contains("server-side-fallback-2026-06-01")));
}

/// Opus 5.5 takes per-message effort: a turn asked at another effort than
/// the first keeps the first on top and says the change in a `system`
/// marker right after its question, so every request starts with the one
/// before it (the cached prefix) and the mock's rules accept it.
#[tokio::test]
async fn anthropic_an_effort_change_between_turns_keeps_the_cached_prefix() {
    use pensive::turn::message::{Conversation, Message};
    use pensive::turn::reducer::{Turn, TurnModel};
    let (app, mock, _) = setup(&Row::new(Dialect::Anthropic, "claude-opus-5-5")).await;
    let mut conversation = Conversation::new("c".into(), 0.0);
    conversation.model = Some("m".into());
    let mut sent: Vec<Value> = Vec::new();
    for (question, effort) in [
        ("First? mock:normal", "high"),
        ("Then? mock:normal", "low"),
        ("And? mock:normal", "low"),
    ] {
        conversation.messages.push(Message::user(question));
        let messages = serde_json::to_value(conversation.to_chat_messages()).expect("messages");
        let request = json!({"request": {"messages": messages, "model": "m", "effort": effort}});
        let events = common::post_chat(&app, &request, "the turn").await;
        assert!(
            done(&events),
            "{effort}: {events:?}\nsent: {}",
            last_body(&mock)
        );
        sent.push(last_body(&mock));
        let mut turn = Turn::new(0.0);
        for event in events {
            turn.apply(event, 0.0);
        }
        turn.model = Some(TurnModel {
            id: "m".into(),
            label: "m".into(),
        });
        turn.effort = Effort::parse(effort).ok();
        conversation.messages.push(Message::Assistant(turn));
    }
    for body in &sent {
        assert_eq!(
            body["output_config"],
            json!({"effort": "high"}),
            "the top stays: {body}"
        );
    }
    let marker = json!({"role": "system", "content": [], "output_config": {"effort": "low"}});
    assert_eq!(
        sent[1]["messages"][2],
        json!({"role": "user", "content": "Then? mock:normal"})
    );
    assert_eq!(sent[1]["messages"][3], marker);
    for pair in sent.windows(2) {
        let (before, after) = (&pair[0]["messages"], &pair[1]["messages"]);
        let n = before.as_array().map_or(0, Vec::len);
        assert_eq!(
            after.as_array().map(|m| &m[..n]),
            before.as_array().map(Vec::as_slice),
            "each request starts with the one before"
        );
    }
    let headers = mock
        .requests()
        .last()
        .map(|r| r.headers.clone())
        .unwrap_or_default();
    assert!(headers
        .iter()
        .any(|(k, v)| k == "anthropic-beta"
            && v.contains("mid-conversation-output-config-2026-07-01")));
}
