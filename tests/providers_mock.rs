//! Every dialect over real HTTP: Pensive's `POST /api/chat` (router via tower
//! `oneshot`) against `pensive mock-upstream` (in-process on a loopback port),
//! for each scenario; and the requests the mock received.

#![cfg(feature = "ssr")]

mod common;

use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use futures::StreamExt;
use http_body_util::BodyExt;
use leptos::config::LeptosOptions;
use pensive::server::config::{ModelConfig, ProviderKind};
use pensive::server::http::router::build_router;
use pensive::server::mock::scenarios::{ANSWER, KEYWORDS, REASONING};
use pensive::server::mock::scripted::Pace;
use pensive::server::mock::upstream::MockState;
use pensive::server::mock::upstream::{GATEWAY_BEARER, OTHER_SK_KEY};
use pensive::server::providers::wire::{Dialect, UpstreamModel};
use pensive::server::tags::TagSet;
use pensive::server::{AppConfig, TurnService};
use pensive::turn::contract::{answer_text, check_stream, thinking_text};
use pensive::turn::framer::NdjsonFramer;
use pensive::turn::reducer::{Block, Turn};
use pensive::turn::{ErrorKind, TurnEvent};
use tower::ServiceExt;

const KEY: &str = "sk-SENTINEL-test-key";

async fn start_mock() -> (String, MockState) {
    let (port, state) = common::start_mock_in_process().await;
    (format!("http://127.0.0.1:{port}"), state)
}

fn model(dialect: Dialect, base: &str) -> ModelConfig {
    let base_url = match dialect {
        Dialect::Chat | Dialect::Responses => format!("{base}/v1"),
        _ => base.to_owned(),
    };
    ModelConfig {
        id: dialect.name().into(),
        label: dialect.name().into(),
        provider: ProviderKind::Wire(dialect),
        upstream: UpstreamModel {
            base_url,
            api_key: Some(KEY.into()),
            name: "mock-model".into(),
            ..UpstreamModel::default()
        },
        demo_pace: Pace::INSTANT,
        tags: TagSet::default(),
        start_in_thinking: false,
    }
}

/// One model per dialect on the mock at `base`, short timeouts, thinking shown.
fn config(base: &str) -> AppConfig {
    AppConfig {
        first_token_timeout: Duration::from_secs(2),
        idle_timeout: Duration::from_secs(1),
        ..common::app_config(Dialect::ALL.iter().map(|d| model(*d, base)).collect())
    }
}

fn app_with(config: AppConfig) -> axum::Router {
    build_router(
        TurnService::new(config),
        LeptosOptions::builder().output_name("pensive").build(),
    )
}

fn app(base: &str) -> axum::Router {
    app_with(config(base))
}

/// The raw response body of one turn.
async fn turn_bytes(
    app: &axum::Router,
    dialect: Dialect,
    messages: serde_json::Value,
) -> axum::body::Bytes {
    let body = serde_json::json!({"request": {"messages": messages, "model": dialect.name()}});
    let request = Request::post("/api/chat")
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .expect("request");
    let response = app.clone().oneshot(request).await.expect("response");
    response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes()
}

/// The events of a response body, checked against the contract.
fn decode(dialect: Dialect, bytes: &[u8]) -> Vec<TurnEvent> {
    let mut framer = NdjsonFramer::new();
    let mut events: Vec<TurnEvent> = framer
        .push(bytes)
        .into_iter()
        .map(|e| e.expect("ndjson"))
        .collect();
    events.extend(framer.finish().map(|e| e.expect("ndjson")));
    check_stream(&events).unwrap_or_else(|e| panic!("{dialect:?}: {e}\n{events:?}"));
    events
}

async fn turn(app: &axum::Router, dialect: Dialect, messages: serde_json::Value) -> Vec<TurnEvent> {
    decode(dialect, &turn_bytes(app, dialect, messages).await)
}

async fn ask(app: &axum::Router, dialect: Dialect, text: &str) -> Vec<TurnEvent> {
    turn(
        app,
        dialect,
        serde_json::json!([{"role": "user", "content": text}]),
    )
    .await
}

fn count(events: &[TurnEvent], f: impl Fn(&TurnEvent) -> bool) -> usize {
    events.iter().filter(|e| f(e)).count()
}

fn error_kind(events: &[TurnEvent]) -> Option<ErrorKind> {
    match events.last() {
        Some(TurnEvent::Error { kind, .. }) => Some(*kind),
        _ => None,
    }
}

#[tokio::test]
async fn normal_turn_in_every_dialect() {
    let (base, _) = start_mock().await;
    let app = app(&base);
    for dialect in Dialect::ALL {
        let events = ask(&app, dialect, "hello mock:normal").await;
        assert_eq!(thinking_text(&events), REASONING, "{dialect:?}");
        assert_eq!(answer_text(&events), ANSWER, "{dialect:?}");
        assert_eq!(
            count(&events, |e| matches!(e, TurnEvent::ThinkingStart)),
            1,
            "{dialect:?}"
        );
        assert!(
            matches!(events.last(), Some(TurnEvent::Done { .. })),
            "{dialect:?}"
        );
    }
}

#[tokio::test]
async fn inline_tags_split_tags_prefilled_and_empty_think_in_every_dialect() {
    let (base, _) = start_mock().await;
    let app = app(&base);
    for dialect in Dialect::ALL {
        for keyword in ["inline-tags", "split-tags"] {
            let events = ask(&app, dialect, &format!("mock:{keyword}")).await;
            assert_eq!(thinking_text(&events), REASONING, "{dialect:?} {keyword}");
            assert_eq!(
                answer_text(&events),
                format!("\n\n{ANSWER}"),
                "{dialect:?} {keyword}"
            );
        }
        let events = ask(&app, dialect, "mock:prefilled").await;
        assert!(
            events
                .iter()
                .any(|e| matches!(e, TurnEvent::AnswerWasThinking { .. })),
            "{dialect:?}"
        );
        let events = ask(&app, dialect, "mock:empty-think").await;
        assert_eq!(thinking_text(&events).trim(), "", "{dialect:?}");
        assert_eq!(answer_text(&events).trim(), ANSWER, "{dialect:?}");
        let events = ask(&app, dialect, "mock:tag-in-code").await;
        assert_eq!(
            count(&events, |e| matches!(e, TurnEvent::ThinkingStart)),
            0,
            "{dialect:?}"
        );
        assert!(
            answer_text(&events).contains("<think>not reasoning</think>"),
            "{dialect:?}"
        );
    }
}

#[tokio::test]
async fn opaque_and_reasoning_token_scenarios() {
    let (base, _) = start_mock().await;
    let app = app(&base);
    for dialect in [Dialect::Chat, Dialect::Responses, Dialect::Anthropic] {
        let events = ask(&app, dialect, "mock:opaque").await;
        assert!(
            events
                .iter()
                .any(|e| matches!(e, TurnEvent::ThinkingEnd { opaque: true, .. })),
            "{dialect:?}: {events:?}"
        );
    }
    for dialect in Dialect::ALL {
        let events = ask(&app, dialect, "mock:reasoning-tokens").await;
        let tokens: u64 = events
            .iter()
            .filter_map(|e| match e {
                TurnEvent::Usage(u) => u.reasoning_tokens,
                _ => None,
            })
            .sum();
        // Anthropic and Ollama do not report reasoning tokens.
        if !matches!(dialect, Dialect::Ollama | Dialect::Anthropic) {
            assert_eq!(tokens, 640, "{dialect:?}");
        }
        assert_eq!(answer_text(&events), ANSWER, "{dialect:?}");
    }
}

#[tokio::test]
async fn several_blocks_interleave_where_the_dialect_has_blocks() {
    let (base, _) = start_mock().await;
    let app = app(&base);
    for dialect in [Dialect::Responses, Dialect::Anthropic] {
        let events = ask(&app, dialect, "mock:several-blocks").await;
        assert_eq!(
            count(&events, |e| matches!(e, TurnEvent::ThinkingStart)),
            3,
            "{dialect:?}: {events:?}"
        );
        assert_eq!(answer_text(&events), "Part one. Part two.", "{dialect:?}");
    }
}

/// One row of the fault matrix (docs/fault-matrix.md): the mock keyword, the
/// error kind the turn must end with, words the message must contain, and
/// whether reasoning / answer text arrived before the fault (and must be kept).
struct Fault {
    keyword: &'static str,
    kind: ErrorKind,
    says: &'static str,
    keeps_thinking: bool,
    keeps_answer: bool,
}

const fn fault(
    keyword: &'static str,
    kind: ErrorKind,
    says: &'static str,
    keeps: (bool, bool),
) -> Fault {
    Fault {
        keyword,
        kind,
        says,
        keeps_thinking: keeps.0,
        keeps_answer: keeps.1,
    }
}

const NOTHING: (bool, bool) = (false, false);
const THINKING: (bool, bool) = (true, false);
const BOTH: (bool, bool) = (true, true);

const FAULT_MATRIX: &[Fault] = &[
    fault(
        "http-401",
        ErrorKind::Auth,
        "rejected the API key (401): Incorrect",
        NOTHING,
    ),
    fault(
        "http-403",
        ErrorKind::Auth,
        "refused access (403): Your key",
        NOTHING,
    ),
    fault(
        "http-404",
        ErrorKind::BadRequest,
        "does not know this model",
        NOTHING,
    ),
    fault(
        "http-429",
        ErrorKind::RateLimit,
        "Try again in 7 s",
        NOTHING,
    ),
    fault(
        "http-500",
        ErrorKind::Upstream,
        "internal error: The server had",
        NOTHING,
    ),
    fault(
        "http-503",
        ErrorKind::Upstream,
        "overloaded, please try again later. Try again in 30 s",
        NOTHING,
    ),
    fault(
        "slow-first",
        ErrorKind::Timeout,
        "sent nothing for 2 seconds",
        NOTHING,
    ),
    fault(
        "stall",
        ErrorKind::Timeout,
        "stopped sending for 1 seconds",
        THINKING,
    ),
    fault("malformed", ErrorKind::Upstream, "could not read", THINKING),
    fault(
        "no-terminator",
        ErrorKind::Interrupted,
        "before the model finished",
        BOTH,
    ),
    fault("drop-thinking", ErrorKind::Network, "broke off", THINKING),
    fault("drop-answer", ErrorKind::Network, "broke off", BOTH),
    fault("huge-line", ErrorKind::Upstream, "longer than", THINKING),
    fault(
        "invalid-utf8",
        ErrorKind::Upstream,
        "not valid UTF-8",
        THINKING,
    ),
];

/// Every fault in every dialect: the right kind, a message a person can act
/// on (and no address or key in it), what arrived before the fault kept, and
/// the very next turn on the same server succeeds.
#[tokio::test]
async fn the_fault_matrix_holds_in_every_dialect() {
    let (base, _) = start_mock().await;
    let app = app(&base);
    let host = base.trim_start_matches("http://").to_owned();
    for dialect in Dialect::ALL {
        for case in FAULT_MATRIX {
            let what = format!("{dialect:?} mock:{}", case.keyword);
            let events = ask(&app, dialect, &format!("mock:{}", case.keyword)).await;
            let Some(TurnEvent::Error { kind, message }) = events.last() else {
                panic!("{what}: no error at the end: {events:?}");
            };
            assert_eq!(*kind, case.kind, "{what}: {message}");
            assert!(message.contains(case.says), "{what}: {message}");
            assert!(
                message.starts_with(char::is_uppercase)
                    && !message.contains(&host)
                    && !message.contains(KEY)
                    && !message.contains('{'),
                "{what}: a plain sentence, no address, key or raw JSON: {message}"
            );
            let thinking = thinking_text(&events);
            let answer = answer_text(&events);
            assert!(REASONING.starts_with(&thinking), "{what}: {thinking}");
            assert!(ANSWER.starts_with(&answer), "{what}: {answer}");
            assert_eq!(
                !thinking.is_empty(),
                case.keeps_thinking,
                "{what}: {events:?}"
            );
            assert_eq!(!answer.is_empty(), case.keeps_answer, "{what}: {events:?}");
            let next = ask(&app, dialect, "mock:normal").await;
            assert_eq!(answer_text(&next), ANSWER, "{what}: the next turn works");
        }
    }
}

#[tokio::test]
async fn multibyte_characters_split_across_writes_survive() {
    let (base, _) = start_mock().await;
    let app = app(&base);
    for dialect in Dialect::ALL {
        let events = ask(&app, dialect, "mock:multibyte").await;
        assert_eq!(
            thinking_text(&events),
            "Ünïcödé reasoning — 漢字 and emoji 🌈🚀.",
            "{dialect:?}"
        );
        assert_eq!(answer_text(&events), "Answer: ✓ 日本語 😀", "{dialect:?}");
    }
}

#[tokio::test]
async fn requests_carry_the_key_and_the_reasoning_switch_and_never_the_thinking() {
    let (base, mock) = start_mock().await;
    let app = app(&base);
    for dialect in Dialect::ALL {
        turn(
            &app,
            dialect,
            serde_json::json!([
                {"role": "user", "content": "first"},
                {"role": "assistant", "content": "the earlier answer"},
                {"role": "user", "content": "second mock:normal"}
            ]),
        )
        .await;
    }
    let requests = mock.requests();
    assert_eq!(requests.len(), 5);
    for r in &requests {
        let headers: String = r.headers.iter().map(|(k, v)| format!("{k}={v};")).collect();
        assert!(
            headers.contains(KEY),
            "{}: key header missing: {headers}",
            r.dialect
        );
        let body = r.body.to_string();
        assert!(
            body.contains("the earlier answer"),
            "{}: history sent",
            r.dialect
        );
        let switch = match r.dialect {
            "chat" => r.body.pointer("/stream_options/include_usage").is_some(),
            "responses" => {
                r.body
                    .pointer("/reasoning/summary")
                    .and_then(|v| v.as_str())
                    == Some("auto")
            }
            // A name Pensive cannot read (`mock-claude`) gets the provider's
            // default: no thinking parameter (issue 30, item 3).
            "anthropic" => r.body.get("thinking").is_none() && r.body.get("max_tokens").is_some(),
            "gemini" => {
                r.body
                    .pointer("/generationConfig/thinkingConfig/includeThoughts")
                    == Some(&serde_json::json!(true))
            }
            "ollama" => r.body.get("think").is_none(),
            _ => false,
        };
        assert!(switch, "{}: reasoning switch missing in {body}", r.dialect);
    }
    let anthropic = requests
        .iter()
        .find(|r| r.dialect == "anthropic")
        .expect("anthropic request");
    assert!(anthropic
        .headers
        .iter()
        .any(|(k, _)| k == "anthropic-version"));
}

#[tokio::test]
async fn refused_connections_and_unknown_hosts_are_network_errors_without_the_address() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let closed = format!("http://{}", listener.local_addr().expect("addr"));
    drop(listener);
    for (base, needle) in [
        (closed.as_str(), "127.0.0.1"),
        ("http://pensive-no-such-host.invalid", "no-such-host"),
    ] {
        let app = app(base);
        for dialect in Dialect::ALL {
            let events = ask(&app, dialect, "hi").await;
            let Some(TurnEvent::Error { kind, message }) = events.last() else {
                panic!("{dialect:?} {base}: {events:?}");
            };
            assert_eq!(*kind, ErrorKind::Network, "{dialect:?} {base}: {message}");
            assert!(
                message.to_lowercase().contains("could not connect"),
                "{message}"
            );
            assert!(!message.contains(needle), "no upstream address: {message}");
        }
    }
}

#[tokio::test]
async fn a_huge_reasoning_stream_arrives_whole() {
    let (base, _) = start_mock().await;
    let app = app(&base);
    let events = ask(&app, Dialect::Chat, "mock:huge").await;
    assert!(thinking_text(&events).len() >= 1024 * 1024);
    assert_eq!(answer_text(&events), ANSWER);
}

#[tokio::test]
async fn a_stall_mid_stream_ends_with_a_timeout_and_keeps_the_reasoning() {
    let (base, _) = start_mock().await;
    let app = app(&base);
    for dialect in [Dialect::Chat, Dialect::Anthropic] {
        let started = std::time::Instant::now();
        let events = ask(&app, dialect, "mock:stall").await;
        assert_eq!(
            error_kind(&events),
            Some(ErrorKind::Timeout),
            "{dialect:?}: {events:?}"
        );
        assert!(
            !thinking_text(&events).is_empty(),
            "{dialect:?}: reasoning so far is kept"
        );
        // Bounded by the 1 s idle timeout, not by the mock's 600 s silence.
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
        assert_eq!(
            answer_text(&ask(&app, dialect, "mock:normal").await),
            ANSWER
        );
    }
}

#[tokio::test]
async fn the_api_key_and_upstream_url_never_reach_a_response() {
    let (base, _) = start_mock().await;
    let app = app(&base);
    let host = base.trim_start_matches("http://").to_owned();
    let mut seen = String::new();
    for path in ["/", "/healthz"] {
        let response = app
            .clone()
            .oneshot(Request::get(path).body(Body::empty()).expect("request"))
            .await
            .expect("response");
        seen.push_str(&format!("{:?}", response.headers()));
        seen.push_str(&String::from_utf8_lossy(
            &response
                .into_body()
                .collect()
                .await
                .expect("body")
                .to_bytes(),
        ));
    }
    let models = app
        .clone()
        .oneshot(
            Request::post("/api/models")
                .header("content-type", "application/json")
                .body(Body::from("{}"))
                .expect("request"),
        )
        .await
        .expect("response");
    seen.push_str(&String::from_utf8_lossy(
        &models.into_body().collect().await.expect("body").to_bytes(),
    ));
    for dialect in Dialect::ALL {
        for keyword in [
            "normal",
            "http-401",
            "http-429",
            "http-500",
            "malformed",
            "drop-answer",
            // A gateway quoting back the key, its URL and tokens of its own.
            "echo-secrets",
        ] {
            let events = ask(&app, dialect, &format!("mock:{keyword}")).await;
            if keyword == "echo-secrets" {
                let Some(TurnEvent::Error { kind, message }) = events.last() else {
                    panic!("{dialect:?}: {events:?}");
                };
                assert_eq!(*kind, ErrorKind::Auth, "{dialect:?}: {message}");
                assert!(
                    message.contains("Invalid key [redacted]"),
                    "{dialect:?}: the rejection is still relayed: {message}"
                );
            }
            seen.push_str(&serde_json::to_string(&events).expect("json"));
        }
    }
    assert!(
        seen.contains("mock-model") || seen.contains("chat"),
        "the responses were collected"
    );
    assert!(!seen.contains(KEY), "the API key leaked");
    assert!(!seen.contains(&host), "the upstream address leaked");
    assert!(!seen.contains("127.0.0.1"), "the upstream host leaked");
    assert!(!seen.contains(GATEWAY_BEARER), "a bearer token leaked");
    assert!(!seen.contains(OTHER_SK_KEY), "an sk- key leaked");
}

/// The reasoning a browser would show for `events` (each block's text, the
/// answer text a lone closing tag turned into reasoning included), and the
/// answer it would show, by the real reducer.
fn shown_reasoning_and_answer(events: &[TurnEvent]) -> (Vec<String>, String) {
    let mut turn = Turn::new(0.0);
    for event in events {
        turn.apply(event.clone(), 0.0);
    }
    let reasoning = turn
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Thinking(t) => Some(t.text.clone()),
            Block::Answer { .. } | Block::Tool(_) => None,
        })
        .collect();
    (reasoning, turn.answer_text())
}

/// The kill switch (`PENSIVE_SHOW_THINKING=0`) keeps reasoning on the server:
/// every mock scenario in every dialect runs once with thinking shown, to learn
/// its reasoning (thinking deltas, and answer text a lone `</think>` turned
/// into reasoning, as in `prefilled`), and once with the switch off; no block
/// of that reasoning may appear anywhere in the switch-off response body, raw
/// or JSON-escaped, or in the answer text it carries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_kill_switch_no_reasoning_text_reaches_the_browser_in_any_scenario() {
    let (base, _) = start_mock().await;
    // Generous timeouts and no per-client limit: many turns run at once here.
    let relaxed = AppConfig {
        first_token_timeout: Duration::from_secs(10),
        idle_timeout: Duration::from_secs(5),
        limits: pensive::server::limits::Limits {
            turns_per_client: 0,
            ..Default::default()
        },
        ..config(&base)
    };
    let shown = app_with(relaxed.clone());
    let hidden = app_with(AppConfig {
        show_thinking: false,
        ..relaxed
    });
    assert!(KEYWORDS.contains(&"prefilled"));
    let mut cases: Vec<(Dialect, &str)> = Dialect::ALL
        .iter()
        .flat_map(|d| KEYWORDS.iter().map(move |k| (*d, *k)))
        .collect();
    // The slowest (bench-render paces itself for ~30 s) start first.
    cases.sort_by_key(|(_, k)| *k != "bench-render");
    let runs: Vec<_> = futures::stream::iter(cases)
        .map(|(dialect, keyword)| {
            let (shown, hidden) = (shown.clone(), hidden.clone());
            async move {
                let messages =
                    serde_json::json!([{"role": "user", "content": format!("mock:{keyword}")}]);
                let (on, off) = futures::join!(
                    turn_bytes(&shown, dialect, messages.clone()),
                    turn_bytes(&hidden, dialect, messages)
                );
                (dialect, keyword, on, off)
            }
        })
        .buffer_unordered(16)
        .collect()
        .await;
    let mut checked_blocks = 0;
    let mut moved_by_a_lone_close = 0;
    for (dialect, keyword, on, off) in runs {
        let what = format!("{dialect:?} mock:{keyword}");
        let on_events = decode(dialect, &on);
        let (reasoning, answer) = shown_reasoning_and_answer(&on_events);
        moved_by_a_lone_close += on_events
            .iter()
            .filter(|e| matches!(e, TurnEvent::AnswerWasThinking { .. }))
            .count();
        let off_events = decode(dialect, &off);
        assert!(
            !off_events.iter().any(|e| matches!(
                e,
                TurnEvent::ThinkingStart
                    | TurnEvent::ThinkingDelta { .. }
                    | TurnEvent::ThinkingEnd { .. }
                    | TurnEvent::AnswerWasThinking { .. }
            )),
            "{what}: a thinking event with the switch off"
        );
        let body = String::from_utf8_lossy(&off);
        let off_answer = answer_text(&off_events);
        for block in &reasoning {
            let text = block.trim();
            // Text the model also gave as its answer may of course be shown.
            if text.chars().count() < 8 || answer.contains(text) {
                continue;
            }
            checked_blocks += 1;
            let escaped = serde_json::to_string(text).expect("json");
            let escaped = &escaped[1..escaped.len() - 1];
            assert!(
                !body.contains(text) && !body.contains(escaped) && !off_answer.contains(text),
                "{what}: reasoning reached the browser with the switch off: {:?}",
                text.chars().take(80).collect::<String>()
            );
        }
    }
    assert!(
        checked_blocks > KEYWORDS.len(),
        "{checked_blocks} blocks checked"
    );
    assert!(
        moved_by_a_lone_close >= Dialect::ALL.len(),
        "prefilled ran in every dialect"
    );
}

/// Each event of one turn with the time it arrived, read as the body streams.
async fn timed_turn(
    app: &axum::Router,
    dialect: Dialect,
    text: &str,
) -> Vec<(Duration, TurnEvent)> {
    let body = serde_json::json!({"request": {"messages": [{"role": "user", "content": text}], "model": dialect.name()}});
    let request = Request::post("/api/chat")
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .expect("request");
    let started = std::time::Instant::now();
    let mut body = app
        .clone()
        .oneshot(request)
        .await
        .expect("response")
        .into_body();
    let mut framer = NdjsonFramer::new();
    let mut events = Vec::new();
    while let Some(frame) = body.frame().await {
        if let Some(data) = frame.expect("frame").data_ref() {
            for event in framer.push(data) {
                events.push((started.elapsed(), event.expect("ndjson")));
            }
        }
    }
    events
}

/// Hidden reasoning is live from the provider's first sign and truly timed:
/// in every dialect that can hide reasoning, `thinking_start` arrives before
/// the mock's 3 s of silence (the view's live header runs through it), and
/// the block closes opaque with a duration of those 3 s, not "less than a
/// second" measured from the end of the silence.
#[tokio::test]
async fn hidden_reasoning_opens_at_its_first_sign_and_lasts_the_silence() {
    let (base, _) = start_mock().await;
    let app = app_with(AppConfig {
        idle_timeout: Duration::from_secs(10),
        ..config(&base)
    });
    let dialects = [
        Dialect::Responses,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Chat,
    ];
    let runs = futures::future::join_all(dialects.map(|d| {
        let app = app.clone();
        async move { (d, timed_turn(&app, d, "mock:hidden-reasoning").await) }
    }))
    .await;
    for (dialect, timed) in runs {
        let events: Vec<TurnEvent> = timed.iter().map(|(_, e)| e.clone()).collect();
        check_stream(&events).unwrap_or_else(|e| panic!("{dialect:?}: {e}"));
        let at = |f: fn(&TurnEvent) -> bool| {
            timed
                .iter()
                .find(|(_, e)| f(e))
                .map(|(t, _)| *t)
                .unwrap_or_else(|| panic!("{dialect:?}: missing event in {events:?}"))
        };
        let opened = at(|e| matches!(e, TurnEvent::ThinkingStart));
        let closed = at(|e| matches!(e, TurnEvent::ThinkingEnd { .. }));
        assert!(
            closed.saturating_sub(opened) >= Duration::from_millis(2500),
            "{dialect:?}: the block was announced {opened:?}, closed {closed:?}: not live"
        );
        let Some(TurnEvent::ThinkingEnd {
            duration_ms,
            opaque,
        }) = events
            .iter()
            .find(|e| matches!(e, TurnEvent::ThinkingEnd { .. }))
        else {
            unreachable!("found above")
        };
        assert!(*opaque, "{dialect:?}: hidden by the provider");
        assert!(
            (2900..4000).contains(duration_ms),
            "{dialect:?}: {duration_ms} ms for 3 s of hidden reasoning"
        );
        assert_eq!(
            answer_text(&events),
            pensive::server::mock::scenarios::HIDDEN_ANSWER,
            "{dialect:?}"
        );
    }
}
