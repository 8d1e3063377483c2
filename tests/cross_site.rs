//! Other web sites cannot drive the API (docs/security.md): requests a page
//! on another origin could make from the user's browser, or a DNS-rebinding
//! page under its own host name, are refused before any provider is called.
//! The router runs via tower `oneshot` against the mock upstream (in-process),
//! whose request record proves that a refused turn reached no provider.

#![cfg(feature = "ssr")]

mod common;

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use leptos::config::LeptosOptions;
use pensive::server::config::{ModelConfig, ProviderKind, SiteAccess};
use pensive::server::http::router::build_router;
use pensive::server::mock::scripted::Pace;
use pensive::server::mock::upstream::MockState;
use pensive::server::providers::wire::{Dialect, UpstreamModel};
use pensive::server::tags::TagSet;
use pensive::server::{AppConfig, TurnService};
use tower::ServiceExt;

/// The address the app believes it listens on (what the default allow-list is built from).
const LISTEN: &str = "127.0.0.1:3000";
const TURN: &str = r#"{"request":{"messages":[{"role":"user","content":"mock:normal"}]}}"#;

async fn start_mock() -> (String, MockState) {
    let (port, state) = common::start_mock_in_process().await;
    (format!("http://127.0.0.1:{port}"), state)
}

/// Pensive with one model on the mock, listening (as far as it knows) on `LISTEN`.
fn app(mock: &str, site_access: SiteAccess, token: Option<&str>) -> axum::Router {
    let model = ModelConfig {
        id: "mock".into(),
        label: "mock".into(),
        provider: ProviderKind::Wire(Dialect::Responses),
        upstream: UpstreamModel {
            base_url: format!("{mock}/v1"),
            api_key: Some("sk-cross-site-test".into()),
            name: "mock-model".into(),
            ..UpstreamModel::default()
        },
        demo_pace: Pace::INSTANT,
        tags: TagSet::default(),
        start_in_thinking: false,
    };
    let config = AppConfig {
        models: vec![model],
        first_token_timeout: Duration::from_secs(2),
        idle_timeout: Duration::from_secs(2),
        access_token: token.map(Into::into),
        site_access,
        show_thinking: true,
        limits: Default::default(),
        shutdown_grace: Duration::from_secs(1),
    };
    let options = LeptosOptions::builder()
        .output_name("pensive")
        .site_addr(LISTEN.parse::<std::net::SocketAddr>().expect("address"))
        .build();
    build_router(TurnService::new(config), options)
}

/// `POST /api/chat` with these headers (a browser always sends `Host`).
fn turn(headers: &[(&str, &str)]) -> Request<Body> {
    let mut request = Request::post("/api/chat");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Body::from(TURN)).expect("request")
}

async fn send(app: &axum::Router, request: Request<Body>) -> (StatusCode, String) {
    let response = app.clone().oneshot(request).await.expect("router answers");
    let status = response.status();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

const HOST: (&str, &str) = ("host", LISTEN);
const JSON: (&str, &str) = ("content-type", "application/json");

/// Request headers, as name and value.
type Headers = Vec<(&'static str, &'static str)>;

/// Each request a browser on another site (or a rebinding page) could send,
/// and what the guard answers.
fn hostile_requests() -> Vec<(&'static str, Headers, StatusCode)> {
    vec![
        (
            "a page on another origin (fetch with mode: 'no-cors' sends text/plain)",
            vec![
                HOST,
                ("content-type", "text/plain;charset=UTF-8"),
                ("origin", "https://attacker.example"),
                ("sec-fetch-site", "cross-site"),
            ],
            StatusCode::FORBIDDEN,
        ),
        (
            "another origin, even with a JSON type",
            vec![HOST, JSON, ("origin", "http://127.0.0.1:3150")],
            StatusCode::FORBIDDEN,
        ),
        (
            "a sandboxed frame or file (Origin: null)",
            vec![HOST, JSON, ("origin", "null")],
            StatusCode::FORBIDDEN,
        ),
        (
            "Sec-Fetch-Site: cross-site without an Origin",
            vec![HOST, JSON, ("sec-fetch-site", "cross-site")],
            StatusCode::FORBIDDEN,
        ),
        (
            "a text/plain body with no Origin (a browser that sends no Origin)",
            vec![HOST, ("content-type", "text/plain")],
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (
            "an HTML form post",
            vec![HOST, ("content-type", "application/x-www-form-urlencoded")],
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ),
        (
            "DNS rebinding: same-origin JSON, but under the attacker's host name",
            vec![
                ("host", "rebind.attacker.example:3000"),
                JSON,
                ("origin", "http://rebind.attacker.example:3000"),
                ("sec-fetch-site", "same-origin"),
            ],
            StatusCode::FORBIDDEN,
        ),
    ]
}

#[tokio::test]
async fn requests_other_sites_could_make_are_refused_and_reach_no_provider() {
    let (mock, state) = start_mock().await;
    let app = app(&mock, SiteAccess::default(), None);
    for (what, headers, expected) in hostile_requests() {
        let (status, body) = send(&app, turn(&headers)).await;
        assert_eq!(status, expected, "{what}: {body}");
        assert!(!body.contains("thinking"), "{what}: no turn ran: {body}");
    }
    assert_eq!(
        state.requests().len(),
        0,
        "no refused request reached the provider"
    );

    // The app's own page, and a script without Origin (curl, as the README
    // shows), still run turns on the same server.
    for (what, headers) in [
        (
            "the app's own page",
            vec![
                HOST,
                JSON,
                ("origin", "http://127.0.0.1:3000"),
                ("sec-fetch-site", "same-origin"),
            ],
        ),
        (
            "the page opened as localhost",
            vec![
                ("host", "localhost:3000"),
                JSON,
                ("origin", "http://localhost:3000"),
            ],
        ),
        ("curl", vec![HOST, JSON]),
        ("a client that sends no Host", vec![JSON]),
    ] {
        let (status, body) = send(&app, turn(&headers)).await;
        assert_eq!(status, StatusCode::OK, "{what}: {body}");
        assert!(body.contains("\"type\":\"done\""), "{what}: {body}");
    }
    assert_eq!(
        state.requests().len(),
        4,
        "each allowed turn reached the provider"
    );
}

#[tokio::test]
async fn allowed_hosts_extend_the_default_names_for_a_deployment() {
    let (mock, state) = start_mock().await;
    let deployed = SiteAccess {
        allowed_hosts: vec!["chat.example.com".into()],
        ..SiteAccess::default()
    };
    let behind_proxy = [
        ("host", "chat.example.com"),
        JSON,
        ("origin", "https://chat.example.com"),
        ("sec-fetch-site", "same-origin"),
    ];
    let (status, body) = send(
        &app(&mock, SiteAccess::default(), None),
        turn(&behind_proxy),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "not allowed by default: {body}"
    );
    assert_eq!(state.requests().len(), 0);
    let (status, body) = send(&app(&mock, deployed, None), turn(&behind_proxy)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(state.requests().len(), 1);
}

fn sign_in(headers: &[(&str, &str)], token: &str) -> Request<Body> {
    let mut request =
        Request::post("/sign-in").header("content-type", "application/x-www-form-urlencoded");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
        .body(Body::from(format!("token={token}")))
        .expect("request")
}

#[tokio::test]
async fn a_sign_in_posted_from_another_site_is_refused_and_not_counted() {
    const TOKEN: &str = "cross-site-test-token";
    let (mock, _) = start_mock().await;
    let app = app(&mock, SiteAccess::default(), Some(TOKEN));
    let foreign = [HOST, ("origin", "https://attacker.example")];
    // More than the ten attempts a minute the sign-in allows.
    for _ in 0..12 {
        let response = app
            .clone()
            .oneshot(sign_in(&foreign, TOKEN))
            .await
            .expect("answer");
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        assert!(response.headers().get("set-cookie").is_none());
    }
    let rebound = [("host", "rebind.attacker.example:3000")];
    let response = app
        .clone()
        .oneshot(sign_in(&rebound, TOKEN))
        .await
        .expect("answer");
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    // The sign-in page's own form, from its own origin: not locked out by the above.
    let own = [
        HOST,
        ("origin", "http://127.0.0.1:3000"),
        ("sec-fetch-site", "same-origin"),
    ];
    let response = app
        .clone()
        .oneshot(sign_in(&own, TOKEN))
        .await
        .expect("answer");
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert!(response.headers().get("set-cookie").is_some());
}

/// The page embeds the Tools control's listing as it renders, and pages
/// answer to any host: under a host the API refuses (a DNS-rebinding page
/// reading the page instead of `/api/tool_servers`) it embeds none.
#[tokio::test]
async fn the_page_embeds_the_tool_listing_only_for_an_allowed_host() {
    let (mock, _state) = start_mock().await;
    let app = app(&mock, SiteAccess::default(), None);
    let page = |host: &'static str| Request::get("/").header("host", host).body(Body::empty());
    let tool_words = ["current_time", "Evaluates an arithmetic expression"];

    let (status, html) = send(&app, page(LISTEN).expect("request")).await;
    assert_eq!(status, StatusCode::OK);
    for word in tool_words {
        assert!(
            html.contains(word),
            "{word} missing from the page for its own host"
        );
    }

    let (status, html) = send(
        &app,
        page("rebound.attacker.example:3000").expect("request"),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "pages answer to any host");
    for word in tool_words {
        assert!(!html.contains(word), "{word} reached a foreign host's page");
    }
}
