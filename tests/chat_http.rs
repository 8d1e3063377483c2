//! `POST /api/chat` over the real router (tower `oneshot`), on the demo model.

#![cfg(feature = "ssr")]

mod common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use leptos::config::LeptosOptions;
use pensive::server::http::router::build_router;
use pensive::server::mock::scripted::{demo_script, Pace};
use pensive::server::providers::delta::Delta;
use pensive::server::{config::ModelConfig, AppConfig, TurnService};
use pensive::turn::contract::check_stream;
use pensive::turn::framer::NdjsonFramer;
use pensive::turn::{ErrorKind, TurnEvent};
use tower::ServiceExt;

/// The first event of a turn that started reasoning: where the reasoning
/// comes from (the demo's is its own, in full), right before its first block.
const STARTED: TurnEvent = TurnEvent::ReasoningSource {
    source: pensive::turn::ReasoningSource::Full,
};

/// The demo model at `pace`, short timeouts, no access token, thinking shown.
fn demo_config(pace: Pace) -> AppConfig {
    common::app_config(vec![ModelConfig::demo(pace)])
}

fn app_with(config: AppConfig) -> axum::Router {
    let options = LeptosOptions::builder().output_name("pensive").build();
    build_router(TurnService::new(config), options)
}

fn app(pace: Pace) -> axum::Router {
    app_with(demo_config(pace))
}

fn without_thinking() -> axum::Router {
    app_with(AppConfig {
        show_thinking: false,
        ..demo_config(Pace::INSTANT)
    })
}

fn chat_request(body: &str) -> Request<Body> {
    chat_request_to("/api/chat", body)
}

fn chat_request_to(path: &str, body: &str) -> Request<Body> {
    Request::post(path)
        .header("content-type", "application/json")
        .body(Body::from(body.to_owned()))
        .expect("valid request")
}

/// A response header as text, if present.
fn header(response: &axum::response::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The whole body of a response, as text.
async fn body_text(response: axum::response::Response) -> String {
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `GET path` on `app`.
async fn get(app: axum::Router, path: &str) -> axum::response::Response {
    app.oneshot(Request::get(path).body(Body::empty()).unwrap())
        .await
        .unwrap()
}

/// Sends a chat request and returns the decoded events and the number of body frames.
async fn run(app: axum::Router, body: &str) -> (Vec<TurnEvent>, usize) {
    let response = app
        .oneshot(chat_request(body))
        .await
        .expect("router answers");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response
            .headers()
            .get("x-accel-buffering")
            .map(|v| v.to_str().unwrap()),
        Some("no")
    );
    let mut body = response.into_body();
    let mut framer = NdjsonFramer::new();
    let mut events = Vec::new();
    let mut frames = 0;
    while let Some(frame) = body.frame().await {
        let frame = frame.expect("body frame");
        if let Some(data) = frame.data_ref() {
            frames += 1;
            events.extend(
                framer
                    .push(data)
                    .into_iter()
                    .map(|e| e.expect("valid NDJSON")),
            );
        }
    }
    events.extend(framer.finish().map(|e| e.expect("valid NDJSON")));
    (events, frames)
}

const SKY: &str = r#"{"request":{"messages":[{"role":"user","content":"Why is the sky blue?"}]}}"#;

#[tokio::test]
async fn demo_turn_streams_thinking_then_answer_then_done() {
    let (events, _) = run(app(Pace::INSTANT), SKY).await;
    check_stream(&events).expect("design §2 rules hold");
    assert_eq!(
        events[0], STARTED,
        "the demo's reasoning is its own, in full"
    );
    assert_eq!(events[1], TurnEvent::ThinkingStart);
    assert!(matches!(events[2], TurnEvent::ThinkingDelta { .. }));
    let end = events
        .iter()
        .position(|e| matches!(e, TurnEvent::ThinkingEnd { .. }))
        .expect("the block closes");
    assert!(matches!(events[end + 1], TurnEvent::AnswerDelta { .. }));
    assert!(events[end + 1..events.len() - 1]
        .iter()
        .all(|e| matches!(e, TurnEvent::AnswerDelta { .. } | TurnEvent::Usage(_))));
    assert_eq!(
        events.last(),
        Some(&TurnEvent::Done {
            finish_reason: Some("stop".into()),
            output_limit: None,
        })
    );
    let thinking = pensive::turn::contract::thinking_text(&events);
    assert!(
        thinking.contains("Why is the sky blue?"),
        "the demo reasons about the prompt"
    );
}

#[tokio::test]
async fn a_paced_turn_arrives_as_many_body_frames_not_one() {
    let (events, frames) = run(app(Pace::scaled(0.05)), SKY).await;
    check_stream(&events).expect("design §2 rules hold");
    assert!(
        frames > 10,
        "events are flushed as they happen, got {frames} frames"
    );
}

#[tokio::test]
async fn the_server_measures_thinking_duration() {
    let (events, _) = run(app(Pace::scaled(0.2)), SKY).await;
    let duration = events
        .iter()
        .find_map(|e| match e {
            TurnEvent::ThinkingEnd { duration_ms, .. } => Some(*duration_ms),
            _ => None,
        })
        .expect("thinking_end");
    // ~80 reasoning chunks at 9 ms each: the duration reflects real elapsed time.
    assert!(duration >= 300, "duration {duration} ms");
}

#[tokio::test]
async fn bad_requests_are_in_band_errors() {
    for body in [
        r#"{"request":{"messages":[]}}"#,
        r#"{"request":{"messages":[{"role":"user","content":"hi"}],"model":"nope"}}"#,
        r#"{"request":{"messages":[{"role":"assistant","content":"hi"}]}}"#,
    ] {
        let (events, _) = run(app(Pace::INSTANT), body).await;
        check_stream(&events).expect("design §2 rules hold");
        assert!(
            matches!(
                &events[..],
                [TurnEvent::Error {
                    kind: ErrorKind::BadRequest,
                    ..
                }]
            ),
            "{body} -> {events:?}"
        );
    }
}

#[tokio::test]
async fn oversized_requests_are_refused_in_band_with_a_clear_message() {
    let huge = "x".repeat(200_001);
    let too_long =
        serde_json::json!({"request": {"messages": [{"role": "user", "content": huge}]}});
    let (events, _) = run(app(Pace::INSTANT), &too_long.to_string()).await;
    assert!(
        matches!(&events[..], [TurnEvent::Error { kind: ErrorKind::BadRequest, message }] if message.contains("200000")),
        "{events:?}"
    );
    let many: Vec<_> = (0..501)
        .map(|i| serde_json::json!({"role": "user", "content": format!("m{i}")}))
        .collect();
    let too_many = serde_json::json!({"request": {"messages": many}});
    let (events, _) = run(app(Pace::INSTANT), &too_many.to_string()).await;
    assert!(
        matches!(&events[..], [TurnEvent::Error { kind: ErrorKind::BadRequest, message }] if message.contains("limit is 500")),
        "{events:?}"
    );
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let response = get(app(Pace::INSTANT), "/").await;
    let header = |name: &str| header(&response, name).unwrap_or_default();
    assert_eq!(header("x-content-type-options"), "nosniff");
    assert_eq!(header("referrer-policy"), "no-referrer");
    assert!(header("content-security-policy").contains("frame-ancestors 'none'"));
}

/// The page's policy names a fresh nonce, the hydration script carries that
/// nonce, and nothing else inline may run; other responses run no script.
#[tokio::test]
async fn pages_allow_only_their_own_nonced_script_and_each_page_gets_a_new_nonce() {
    let mut nonces = Vec::new();
    for _ in 0..2 {
        let response = get(app(Pace::INSTANT), "/").await;
        let policy = header(&response, "content-security-policy").unwrap_or_default();
        let html = body_text(response).await;
        let nonce = policy
            .split("'nonce-")
            .nth(1)
            .and_then(|rest| rest.split('\'').next())
            .expect("the page policy names a nonce")
            .to_owned();
        assert!(policy.contains("script-src 'self' 'nonce-"), "{policy}");
        assert!(!policy.contains("unsafe-inline"), "{policy}");
        // Images from the site only; HTML sinks take only the one policy's output.
        assert!(policy.contains("img-src 'self';"), "{policy}");
        assert!(
            policy.contains("require-trusted-types-for 'script'; trusted-types pensive-markdown pensive-restore"),
            "{policy}"
        );
        let scripts = html.matches("<script").count();
        let nonced = html.matches(&format!("nonce=\"{nonce}\"")).count();
        assert!(
            scripts > 0 && nonced >= scripts,
            "{scripts} scripts, {nonced} nonced: {html}"
        );
        nonces.push(nonce);
    }
    assert_ne!(nonces[0], nonces[1], "a nonce is never reused");

    let models = app(Pace::INSTANT)
        .oneshot(chat_request_to("/api/models", "{}"))
        .await
        .unwrap();
    let policy = header(&models, "content-security-policy").unwrap_or_default();
    assert!(policy.starts_with("default-src 'none'"), "{policy}");
}

/// Reverse proxies (nginx) must pass a turn on as it streams, and never cache
/// it: docs/nginx.md and tests/proxy_nginx.rs rely on these headers.
#[tokio::test]
async fn the_turn_stream_tells_proxies_not_to_buffer_or_store_it() {
    let response = app(Pace::INSTANT)
        .oneshot(chat_request(SKY))
        .await
        .expect("router answers");
    assert_eq!(
        header(&response, "x-accel-buffering").as_deref(),
        Some("no")
    );
    assert_eq!(
        header(&response, "cache-control").as_deref(),
        Some("no-store")
    );
    assert_eq!(
        header(&response, "content-encoding"),
        None,
        "never compressed"
    );
}

#[tokio::test]
async fn the_kill_switch_keeps_thinking_off_the_wire() {
    let app = without_thinking();
    let (events, _) = run(app, SKY).await;
    check_stream(&events).expect("design §2 rules hold");
    assert!(events.iter().all(|e| !matches!(
        e,
        TurnEvent::ThinkingStart | TurnEvent::ThinkingDelta { .. } | TurnEvent::ThinkingEnd { .. }
    )));
    assert!(events
        .iter()
        .any(|e| matches!(e, TurnEvent::AnswerDelta { .. })));
}

#[tokio::test]
async fn the_page_is_server_rendered_with_the_composer() {
    let response = get(app(Pace::INSTANT), "/").await;
    assert_eq!(response.status(), StatusCode::OK);
    let html = body_text(response).await;
    assert!(html.contains("data-testid=\"composer\""));
    assert!(html.contains("Pensive"));
}

/// Collects what the tracing subscriber writes.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut bytes) = self.0.lock() {
            bytes.extend_from_slice(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn with_the_kill_switch_the_turn_log_still_counts_the_thinking() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let app = without_thinking();
    let (events, _) = run(app, SKY).await;
    assert!(events
        .iter()
        .all(|e| !matches!(e, TurnEvent::ThinkingDelta { .. })));
    let log = String::from_utf8(captured.0.lock().map(|b| b.clone()).unwrap_or_default())
        .unwrap_or_default();
    let line = log
        .lines()
        .find(|l| l.contains(" turn "))
        .unwrap_or_else(|| panic!("no turn line in {log}"));
    assert!(line.contains("outcome=\"done\""), "{line}");
    assert!(line.contains("thinking_blocks=1"), "{line}");
    // Every character of the demo script's reasoning for this prompt, counted.
    let expected: usize = demo_script("Why is the sky blue?", Pace::INSTANT)
        .iter()
        .flat_map(|step| &step.deltas)
        .map(|delta| match delta {
            Delta::Reasoning(text) => text.chars().count(),
            _ => 0,
        })
        .sum();
    let logged = line
        .split_whitespace()
        .find_map(|field| field.strip_prefix("thinking_chars="))
        .unwrap_or_else(|| panic!("no thinking_chars field in {line}"));
    assert_eq!(logged, expected.to_string(), "{line}");
    assert!(
        !line.contains("Why is the sky blue"),
        "the prompt is never logged: {line}"
    );
}

/// A secret as the page makes them (32 hex digits).
const SECRET: &str = "0123456789abcdef0123456789abcdef";

/// The sky question as turn `turn_id`, with the page's secret.
fn sky_turn(turn_id: &str) -> String {
    serde_json::json!({"request": {
        "messages": [{"role": "user", "content": "Why is the sky blue?"}],
        "turn_id": turn_id,
        "turn_secret": SECRET,
    }})
    .to_string()
}

/// `POST /api/turn_events` for `turn_id` after line `after`, with the page's secret.
async fn attach(app: &axum::Router, turn_id: &str, after: u64) -> axum::response::Response {
    let body = serde_json::json!({"turn_id": turn_id, "secret": SECRET, "after": after});
    app.clone()
        .oneshot(chat_request_to("/api/turn_events", &body.to_string()))
        .await
        .unwrap()
}

/// `POST /api/stop_turn` for `turn_id` with the page's secret.
async fn stop_turn(app: &axum::Router, turn_id: &str) -> StatusCode {
    let body = serde_json::json!({"turn_id": turn_id, "secret": SECRET}).to_string();
    app.clone()
        .oneshot(chat_request_to("/api/stop_turn", &body))
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn a_dropped_client_leaves_its_turn_running_until_stop_ends_it() {
    let app = app(Pace::REALISTIC);
    let health = || async {
        let body = body_text(get(app.clone(), "/healthz").await).await;
        serde_json::from_str::<serde_json::Value>(&body).unwrap()["active_turns"].as_u64()
    };
    assert_eq!(health().await, Some(0));
    let response = app
        .clone()
        .oneshot(chat_request(&sky_turn("t-dropped")))
        .await
        .unwrap();
    let mut body = response.into_body();
    let first = body
        .frame()
        .await
        .expect("a first frame")
        .expect("ok frame");
    assert!(first.data_ref().is_some());
    assert_eq!(health().await, Some(1));
    // The client goes away mid-thinking; the turn goes on: a reader
    // attaching now gets lines the first never read.
    drop(body);
    let response = attach(&app, "t-dropped", 0).await;
    assert_eq!(response.status(), StatusCode::OK);
    let mut attached = response.into_body();
    let mut framer = NdjsonFramer::new();
    let mut events = Vec::new();
    while events.len() < 3 {
        let frame = attached.frame().await.expect("more").expect("ok frame");
        events.extend(
            framer
                .push(frame.data_ref().expect("data"))
                .into_iter()
                .flatten(),
        );
    }
    assert_eq!(
        health().await,
        Some(1),
        "still running with its first reader gone"
    );
    assert_eq!(stop_turn(&app, "t-dropped").await, StatusCode::OK);
    assert_eq!(health().await, Some(0), "Stop returns once the turn let go");
    // The attached reader hears the end: `stopped`, as every other tab would.
    while let Some(frame) = attached.frame().await {
        if let Some(data) = frame.expect("ok frame").data_ref() {
            events.extend(framer.push(data).into_iter().flatten());
        }
    }
    assert_eq!(events.last(), Some(&TurnEvent::Stopped), "{events:?}");
    check_stream(&events).expect("a whole stream");
}

fn guarded_app() -> axum::Router {
    app_with(AppConfig {
        access_token: Some("open-sesame-42".into()),
        ..demo_config(Pace::INSTANT)
    })
}

fn sign_in_request(token: &str) -> Request<Body> {
    Request::post("/sign-in")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Body::from(format!("token={token}")))
        .expect("request")
}

#[tokio::test]
async fn with_an_access_token_nothing_works_until_sign_in_and_the_cookie_is_strict() {
    let app = guarded_app();
    let page = get(app.clone(), "/").await;
    assert_eq!(page.status(), StatusCode::SEE_OTHER);
    assert_eq!(page.headers()["location"], "/sign-in");
    let api = app.clone().oneshot(chat_request(SKY)).await.unwrap();
    assert_eq!(api.status(), StatusCode::UNAUTHORIZED);
    let form = get(app.clone(), "/sign-in").await;
    assert_eq!(form.status(), StatusCode::OK);

    let wrong = app.clone().oneshot(sign_in_request("guess")).await.unwrap();
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert!(wrong.headers().get("set-cookie").is_none());

    let right = app
        .clone()
        .oneshot(sign_in_request("open-sesame-42"))
        .await
        .unwrap();
    assert_eq!(right.status(), StatusCode::SEE_OTHER);
    let cookie = right.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let cookie_pair = cookie.split(';').next().unwrap().to_owned();

    let mut signed_in = chat_request(SKY);
    signed_in
        .headers_mut()
        .insert("cookie", cookie_pair.parse().unwrap());
    let response = app.clone().oneshot(signed_in).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body = body_text(response).await;
    assert!(body.contains("\"type\":\"done\""));
}

#[tokio::test]
async fn sign_in_attempts_are_rate_limited() {
    let app = guarded_app();
    let mut statuses = Vec::new();
    for _ in 0..12 {
        statuses.push(
            app.clone()
                .oneshot(sign_in_request("guess"))
                .await
                .unwrap()
                .status(),
        );
    }
    assert_eq!(statuses[..10], [StatusCode::UNAUTHORIZED; 10]);
    assert_eq!(statuses[10..], [StatusCode::TOO_MANY_REQUESTS; 2]);
    // Even the right token waits out the window.
    let right = app
        .clone()
        .oneshot(sign_in_request("open-sesame-42"))
        .await
        .unwrap();
    assert_eq!(right.status(), StatusCode::TOO_MANY_REQUESTS);
}

fn limited_app(limits: pensive::server::limits::Limits, pace: Pace) -> axum::Router {
    app_with(AppConfig {
        limits,
        ..demo_config(pace)
    })
}

/// A request from `ip` (as if the connection came from there).
fn chat_from(ip: &str) -> Request<Body> {
    from(ip, chat_request(SKY))
}

/// `request` as if its connection came from `ip`.
fn from(ip: &str, mut request: Request<Body>) -> Request<Body> {
    let addr: std::net::SocketAddr = format!("{ip}:40000").parse().unwrap();
    request
        .extensions_mut()
        .insert(axum::extract::ConnectInfo(addr));
    request
}

/// The first event of a turn that is still streaming (the body is kept open).
async fn first_event(app: &axum::Router, request: Request<Body>) -> (TurnEvent, Body) {
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut body = response.into_body();
    let mut framer = NdjsonFramer::new();
    loop {
        let frame = body.frame().await.expect("a frame").expect("ok frame");
        if let Some(event) = frame
            .data_ref()
            .and_then(|d| framer.push(d).into_iter().next())
        {
            return (event.expect("valid NDJSON"), body);
        }
    }
}

#[tokio::test]
async fn concurrent_turns_per_client_are_limited_with_a_clear_in_band_error() {
    let app = limited_app(
        pensive::server::limits::Limits {
            turns_per_client: 2,
            ..Default::default()
        },
        Pace::REALISTIC,
    );
    let (_, _first) = first_event(&app, from("192.0.2.1", chat_request(&sky_turn("t-1")))).await;
    let (_, _second) = first_event(&app, chat_from("192.0.2.1")).await;
    let (refused, _) = first_event(&app, chat_from("192.0.2.1")).await;
    assert!(
        matches!(&refused, TurnEvent::Error { kind: ErrorKind::RateLimit, message } if message.contains("the limit is 2")),
        "{refused:?}"
    );
    let (other, _other_body) = first_event(&app, chat_from("192.0.2.2")).await;
    assert_eq!(other, STARTED, "another client is unaffected");
    // One turn ends (Stop): its slot frees. A client gone frees nothing.
    assert_eq!(stop_turn(&app, "t-1").await, StatusCode::OK);
    let (again, _) = first_event(&app, chat_from("192.0.2.1")).await;
    assert_eq!(again, STARTED);
}

#[tokio::test]
async fn an_optional_per_client_turn_rate_says_when_to_try_again() {
    let app = limited_app(
        pensive::server::limits::Limits {
            turns_per_minute: 2,
            ..Default::default()
        },
        Pace::REALISTIC,
    );
    for _ in 0..2 {
        let (event, _) = first_event(&app, chat_from("192.0.2.9")).await;
        assert_eq!(event, STARTED);
    }
    let (refused, _) = first_event(&app, chat_from("192.0.2.9")).await;
    assert!(
        matches!(&refused, TurnEvent::Error { kind: ErrorKind::RateLimit, message } if message.contains("Try again in")),
        "{refused:?}"
    );
}

/// `response` is a 413 whose server-function error names `limit`.
async fn assert_readable_413(response: axum::response::Response, limit: &str) {
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let text = response.into_body().collect().await.unwrap().to_bytes();
    let error = <server_fn::ServerFnError as server_fn::error::FromServerFnError>::de(text);
    assert!(
        matches!(&error, server_fn::ServerFnError::ServerError(m) if m.contains(limit)),
        "{error:?}"
    );
}

#[tokio::test]
async fn an_oversized_body_is_refused_with_a_readable_413_before_it_is_read() {
    let app = limited_app(
        pensive::server::limits::Limits {
            max_body_bytes: 64 * 1024,
            ..Default::default()
        },
        Pace::INSTANT,
    );
    let big = "x".repeat(100 * 1024);
    let body = serde_json::json!({"request": {"messages": [{"role": "user", "content": big}]}});
    let body = body.to_string();
    let mut request = chat_request(&body);
    // As a browser's fetch declares it.
    request
        .headers_mut()
        .insert("content-length", body.len().to_string().parse().unwrap());
    let response = app.clone().oneshot(request).await.unwrap();
    assert_readable_413(response, "at most 64 KiB").await;
    // (A body without a declared length: `the_documented_body_limit_is_the_real_one`.)
    // A normal turn still works.
    let (events, _) = run(app, SKY).await;
    assert!(matches!(events.last(), Some(TurnEvent::Done { .. })));
}

#[tokio::test]
async fn the_documented_body_limit_is_the_real_one() {
    // 8 MiB by default: a 3 MiB conversation (past axum's own 2 MiB
    // default) is a turn, not an unreadable 500.
    let app = limited_app(Default::default(), Pace::INSTANT);
    let long = "x".repeat(190_000);
    let messages: Vec<serde_json::Value> = (0..18)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            serde_json::json!({"role": role, "content": long})
        })
        .chain([serde_json::json!({"role": "user", "content": SKY})])
        .collect();
    let body = serde_json::json!({"request": {"messages": messages}}).to_string();
    assert!(body.len() > 3 * 1024 * 1024);
    let response = app.clone().oneshot(chat_request(&body)).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    // A body over the limit without a declared length: a readable 413 too.
    let app = limited_app(
        pensive::server::limits::Limits {
            max_body_bytes: 64 * 1024,
            ..Default::default()
        },
        Pace::INSTANT,
    );
    let chunks = futures::stream::iter(
        (0..100).map(|_| Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b' '; 1024]))),
    );
    let chunked = Request::post("/api/chat")
        .header("content-type", "application/json")
        .body(Body::from_stream(chunks))
        .unwrap();
    let response = app.clone().oneshot(chunked).await.unwrap();
    assert_readable_413(response, "at most 64 KiB").await;
}

/// A signed-in cookie's `name=value` from a sign-in response.
fn cookie_pair(response: &axum::response::Response) -> String {
    header(response, "set-cookie")
        .and_then(|c| c.split(';').next().map(str::to_owned))
        .expect("a cookie")
}

fn guarded_with(
    token: &str,
    secret: &str,
    limits: pensive::server::limits::Limits,
) -> axum::Router {
    app_with(AppConfig {
        access_token: Some(token.into()),
        site_access: pensive::server::config::SiteAccess {
            cookie_secret: Some(secret.into()),
            ..Default::default()
        },
        limits,
        ..demo_config(Pace::INSTANT)
    })
}

/// `POST /api/chat` with `cookie` (and extra headers): the status.
async fn chat_status(
    app: &axum::Router,
    cookie: &str,
    extra: &[(&'static str, &str)],
) -> StatusCode {
    let mut request = chat_request(SKY);
    request
        .headers_mut()
        .insert("cookie", cookie.parse().unwrap());
    for (name, value) in extra {
        request.headers_mut().insert(*name, value.parse().unwrap());
    }
    app.clone().oneshot(request).await.unwrap().status()
}

#[tokio::test]
async fn the_access_cookie_is_never_the_token_and_a_new_token_signs_everyone_out() {
    const SECRET: &str = "a-cookie-secret-shared-by-every-process";
    let token = "first-token-0123456789";
    let first = guarded_with(token, SECRET, Default::default());
    let response = first.clone().oneshot(sign_in_request(token)).await.unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let cookie = cookie_pair(&response);
    let value = cookie.split_once('=').map(|(_, v)| v).unwrap_or_default();
    assert!(
        !value.is_empty() && !value.contains(token) && !value.contains("0123456789"),
        "{cookie}"
    );
    assert_ne!(value, token);
    // A second process with the same token and secret accepts it (scaled out behind a proxy).
    let second = guarded_with(token, SECRET, Default::default());
    assert_eq!(chat_status(&second, &cookie, &[]).await, StatusCode::OK);
    // The operator rotates the token: the old cookie no longer opens anything.
    let rotated = guarded_with("second-token-9876543210", SECRET, Default::default());
    assert_eq!(
        chat_status(&rotated, &cookie, &[]).await,
        StatusCode::UNAUTHORIZED
    );
    // And the token itself, sent as the cookie (the old format), is refused.
    let raw = format!("pensive_access={token}");
    assert_eq!(
        chat_status(&first, &raw, &[]).await,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn over_https_through_a_trusted_proxy_the_cookie_is_secure_and_host_prefixed() {
    const SECRET: &str = "a-cookie-secret-shared-by-every-process";
    const TOKEN: &str = "https-test-token-0123";
    let trusted = pensive::server::limits::Limits {
        client_ip_header: Some("x-forwarded-for".into()),
        ..Default::default()
    };
    let behind_tls = guarded_with(TOKEN, SECRET, trusted);
    let mut request = sign_in_request(TOKEN);
    request
        .headers_mut()
        .insert("x-forwarded-proto", "https".parse().unwrap());
    let response = behind_tls.clone().oneshot(request).await.unwrap();
    let set_cookie = header(&response, "set-cookie").unwrap_or_default();
    assert!(
        set_cookie.starts_with("__Host-pensive_access="),
        "{set_cookie}"
    );
    for attribute in ["Secure", "HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(
            set_cookie.split("; ").any(|a| a == attribute),
            "{attribute}: {set_cookie}"
        );
    }
    assert!(!set_cookie.contains("Domain"), "{set_cookie}");
    let cookie = cookie_pair(&response);
    let https = [("x-forwarded-proto", "https")];
    assert_eq!(
        chat_status(&behind_tls, &cookie, &https).await,
        StatusCode::OK
    );

    // Without a trusted proxy configured, a client's own X-Forwarded-Proto is not believed.
    let direct = guarded_with(TOKEN, SECRET, Default::default());
    let mut request = sign_in_request(TOKEN);
    request
        .headers_mut()
        .insert("x-forwarded-proto", "https".parse().unwrap());
    let response = direct.clone().oneshot(request).await.unwrap();
    let set_cookie = header(&response, "set-cookie").unwrap_or_default();
    assert!(set_cookie.starts_with("pensive_access="), "{set_cookie}");
    assert!(!set_cookie.contains("Secure"), "{set_cookie}");
}

/// The request of a turn that came through a proxy appending to X-Forwarded-For.
fn forwarded_chat(x_forwarded_for: &str) -> Request<Body> {
    let mut request = chat_from("127.0.0.1");
    request
        .headers_mut()
        .insert("x-forwarded-for", x_forwarded_for.parse().unwrap());
    request
}

#[tokio::test]
async fn a_client_cannot_escape_its_turn_limit_by_spoofing_x_forwarded_for() {
    let app = limited_app(
        pensive::server::limits::Limits {
            turns_per_client: 1,
            client_ip_header: Some("x-forwarded-for".into()),
            ..Default::default()
        },
        Pace::REALISTIC,
    );
    // The client writes its own left-most entries; nginx appends 203.0.113.5.
    let (first, _streaming) = first_event(&app, forwarded_chat("1.1.1.1, 203.0.113.5")).await;
    assert_eq!(first, STARTED);
    let (spoofed, _) = first_event(&app, forwarded_chat("2.2.2.2, 203.0.113.5")).await;
    assert!(
        matches!(
            &spoofed,
            TurnEvent::Error {
                kind: ErrorKind::RateLimit,
                ..
            }
        ),
        "a new left-most entry is the same client: {spoofed:?}"
    );
    let (other, _other) = first_event(&app, forwarded_chat("1.1.1.1, 203.0.113.6")).await;
    assert_eq!(other, STARTED, "another real client is unaffected");
}

/// Under the site's `no-referrer` policy a browser's form post says
/// `Origin: null`, which the cross-site guard refuses; the sign-in page sets a
/// policy under which its own form sends its real origin.
#[tokio::test]
async fn the_sign_in_form_is_served_so_that_its_post_carries_the_real_origin() {
    let app = guarded_app();
    for response in [
        get(app.clone(), "/sign-in").await,
        app.clone().oneshot(sign_in_request("wrong")).await.unwrap(),
    ] {
        assert_eq!(
            header(&response, "referrer-policy").as_deref(),
            Some("same-origin")
        );
    }
    let mut from_null = sign_in_request("open-sesame-42");
    from_null
        .headers_mut()
        .insert("origin", "null".parse().unwrap());
    let refused = app.clone().oneshot(from_null).await.unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
}

/// The Tools control's list (`POST /api/tool_servers`): the built-in server
/// and its tools, none asking first; behind the same guard as every entry
/// point (the access cookie when a token is set, a JSON body).
#[tokio::test]
async fn the_tool_servers_are_listed_for_the_page_and_guarded_like_the_api() {
    let response = app(Pace::INSTANT)
        .oneshot(chat_request_to("/api/tool_servers", "{}"))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let servers: serde_json::Value = serde_json::from_str(&body_text(response).await).unwrap();
    assert_eq!(servers[0]["name"], "builtin");
    assert_eq!(servers[0]["builtin"], true);
    let tools = servers[0]["tools"].as_array().expect("a list of tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["calculate", "current_time"]);
    assert!(tools.iter().all(|t| t["asks_first"] == false));

    let guarded = guarded_app()
        .oneshot(chat_request_to("/api/tool_servers", "{}"))
        .await
        .unwrap();
    assert_eq!(guarded.status(), StatusCode::UNAUTHORIZED);
    let mut cross_site = chat_request_to("/api/tool_servers", "{}");
    cross_site
        .headers_mut()
        .insert("origin", "https://evil.example".parse().unwrap());
    let refused = app(Pace::INSTANT).oneshot(cross_site).await.unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
}

/// POSTs `body` to `path` on the demo app: the status and the body's text.
async fn post(path: &str, body: &str) -> (StatusCode, String) {
    let response = app(Pace::INSTANT)
        .oneshot(chat_request_to(path, body))
        .await
        .expect("router answers");
    let status = response.status();
    (status, body_text(response).await)
}

/// A request the server cannot read is the client's mistake (issue 40): a
/// 4xx whose words say what was wrong, never server_fn's 500.
fn assert_refused_readably(status: StatusCode, text: &str, names: &str, what: &str) {
    assert_eq!(status, StatusCode::BAD_REQUEST, "{what}: {text}");
    assert!(
        text.contains("Pensive could not read this request: ") && text.contains(names),
        "{what}: {text}"
    );
}

#[tokio::test]
async fn a_turn_asked_at_an_unknown_effort_is_a_400_naming_the_word() {
    let body = r#"{"request":{"messages":[{"role":"user","content":"hi"}],"effort":"ultra"}}"#;
    let (status, text) = post("/api/chat", body).await;
    assert_refused_readably(status, &text, "unknown variant `ultra`", "chat");
    // The same request at a known effort is a turn.
    let (events, _) = run(app(Pace::INSTANT), &body.replace("ultra", "low")).await;
    assert!(
        matches!(events.last(), Some(TurnEvent::Done { .. })),
        "{events:?}"
    );
}

#[tokio::test]
async fn a_body_that_is_not_json_is_a_400_on_every_endpoint() {
    for endpoint in [
        "chat",
        "models",
        "tool_servers",
        "answer_now",
        "tool_decision",
        "tool_agree",
        "access",
        "sign_out",
    ] {
        let (status, text) = post(&format!("/api/{endpoint}"), "{not json").await;
        assert_refused_readably(status, &text, "key must be a string", endpoint);
    }
    // A good request still reads.
    let (status, text) = post("/api/models", "{}").await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert!(text.contains("demo"), "{text}");
}

/// Agreeing to a held tool (`POST /api/tool_agree`) keeps nothing for a
/// tool that is not held for the caller: here, no MCP server at all.
#[tokio::test]
async fn agreeing_to_a_tool_that_is_not_held_keeps_nothing() {
    let body = r#"{"server": "builtin", "tool": "calculate", "digest": "sha256:x"}"#;
    let (status, text) = post("/api/tool_agree", body).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert_eq!(text.trim(), "false");
}

#[tokio::test]
async fn a_tool_decision_missing_its_decision_is_a_400_naming_the_field() {
    let call = r#""turn_id":"t1","call":{"id":"c1","name":"demo__clock","digest":"d"}"#;
    let (status, text) = post("/api/tool_decision", &format!("{{{call}}}")).await;
    assert_refused_readably(status, &text, "missing field `decision`", "tool_decision");
    // Complete, it is read, and answers that no such call waits.
    let (status, text) = post(
        "/api/tool_decision",
        &format!(r#"{{{call},"decision":"deny"}}"#),
    )
    .await;
    assert_eq!((status, text.as_str()), (StatusCode::OK, "false"));
}

/// The stamped lines of a whole body (heartbeats left out).
async fn logged_lines(response: axum::response::Response) -> Vec<(u64, TurnEvent)> {
    use pensive::turn::log_line::LogLine;
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let mut framer = NdjsonFramer::new();
    framer
        .push_lines(&bytes)
        .into_iter()
        .filter_map(|line| match line.expect("a valid line") {
            LogLine::Event { stamp, event } => Some((stamp.expect("stamped").seq, event)),
            LogLine::Heartbeat { .. } => None,
        })
        .collect()
}

#[tokio::test]
async fn a_page_that_attaches_after_a_line_gets_every_later_line_once_in_order() {
    let app = app(Pace::INSTANT);
    let response = app
        .clone()
        .oneshot(chat_request(&sky_turn("t-whole")))
        .await
        .unwrap();
    let whole = logged_lines(response).await;
    let seqs: Vec<u64> = whole.iter().map(|(seq, _)| *seq).collect();
    assert_eq!(seqs, (1..=whole.len() as u64).collect::<Vec<_>>());
    assert!(whole.len() > 5, "{whole:?}");
    let events: Vec<TurnEvent> = whole.iter().map(|(_, e)| e.clone()).collect();
    check_stream(&events).expect("a whole stream");
    // After the turn ended, within its retention: from line 4 on, once each.
    let response = attach(&app, "t-whole", 3).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(logged_lines(response).await, whole[3..].to_vec());
}

#[tokio::test]
async fn a_guessed_turn_id_and_a_wrong_secret_get_the_same_404() {
    let app = app(Pace::REALISTIC);
    let (_, _running) = first_event(&app, chat_request(&sky_turn("t-mine"))).await;
    let ask = |turn_id: &str, secret: &str| {
        let body = serde_json::json!({"turn_id": turn_id, "secret": secret, "after": 0});
        let app = app.clone();
        async move {
            let response = app
                .oneshot(chat_request_to("/api/turn_events", &body.to_string()))
                .await
                .unwrap();
            (response.status(), body_text(response).await)
        }
    };
    let wrong_secret = ask("t-mine", "ffffffffffffffffffffffffffffffff").await;
    let unknown = ask("t-guessed", SECRET).await;
    assert_eq!(wrong_secret.0, StatusCode::NOT_FOUND);
    assert_eq!(wrong_secret, unknown, "nothing tells the two apart");
    assert!(unknown.1.contains("not_held:"), "{}", unknown.1);
    // Stop by someone else does not stop it either.
    let stop = serde_json::json!({"turn_id": "t-mine", "secret": "f".repeat(32)});
    let response = app
        .clone()
        .oneshot(chat_request_to("/api/stop_turn", &stop.to_string()))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert_eq!(ask("t-mine", SECRET).await.0, StatusCode::OK);
}
