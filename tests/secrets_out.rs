//! Secrets stay where they were configured. A provider that redirects gets
//! no second request: the key headers would follow the conversation to the
//! new host. And the server's log (the real binary, its default filter)
//! holds neither the key, nor the provider's URL, nor a word of an answer,
//! even when a gateway quotes them back in a 401 or a chunk cannot be read.

#![cfg(feature = "ssr")]

mod common;

use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use leptos::config::LeptosOptions;
use pensive::server::http::router::build_router;
use pensive::server::{AppConfig, TurnService};
use pensive::turn::TurnEvent;
use serde_json::json;

/// Every dialect, as `PENSIVE_PROVIDER` names it.
const DIALECTS: [&str; 5] = ["openai", "responses", "anthropic", "gemini", "ollama"];

const KEY: &str = "sk-REDIRECT-test-key-5f1e2d";

/// Serves `app` on a free loopback port; its port.
async fn serve(app: axum::Router) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a loopback port");
    let port = listener.local_addr().expect("its address").port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

/// A host that counts every request it gets (the thief).
async fn thief() -> (u16, Arc<AtomicUsize>) {
    let seen = Arc::new(AtomicUsize::new(0));
    let counted = seen.clone();
    let app = axum::Router::new().fallback(move || {
        let counted = counted.clone();
        async move {
            counted.fetch_add(1, Ordering::SeqCst);
            "stolen"
        }
    });
    (serve(app).await, seen)
}

/// A provider that answers every request with `status` pointing at `to`.
async fn redirector(status: StatusCode, to: u16) -> u16 {
    let app = axum::Router::new().fallback(move || async move {
        (
            status,
            [(
                "location",
                format!("http://127.0.0.1:{to}/v1/chat/completions"),
            )],
        )
    });
    serve(app).await
}

fn app_for(provider: &str, port: u16) -> axum::Router {
    let base = match provider {
        "openai" | "responses" => format!("http://127.0.0.1:{port}/v1"),
        _ => format!("http://127.0.0.1:{port}"),
    };
    let text = format!(
        "[[models]]\nid = \"m\"\nprovider = \"{provider}\"\nbase_url = \"{base}\"\nmodel = \"mock-model\"\napi_key = \"{KEY}\"\n"
    );
    let config = AppConfig::from_toml(&text, |_| None).expect("config");
    build_router(
        TurnService::new(config),
        LeptosOptions::builder().output_name("pensive").build(),
    )
}

#[tokio::test]
async fn a_provider_that_redirects_gets_no_second_request_and_the_turn_names_the_status() {
    let (thief_port, stolen) = thief().await;
    for status in [
        StatusCode::TEMPORARY_REDIRECT,
        StatusCode::MOVED_PERMANENTLY,
    ] {
        let provider_port = redirector(status, thief_port).await;
        for provider in DIALECTS {
            let app = app_for(provider, provider_port);
            let body = json!({"request": {"messages": [{"role": "user", "content": "hello"}], "model": "m"}});
            let events = common::post_chat(&app, &body, provider).await;
            let Some(TurnEvent::Error { message, .. }) = events.last() else {
                panic!("{provider}: the turn ends in an error: {events:?}");
            };
            let code = status.as_u16().to_string();
            assert!(
                message.contains(&format!("redirected the request ({code})")),
                "{provider}: {message}"
            );
            assert!(!message.contains(KEY), "{provider}: {message}");
        }
    }
    assert_eq!(
        stolen.load(Ordering::SeqCst),
        0,
        "no request followed a redirect"
    );
}

/// A gateway that rejects the key quoting it, its own URL and the question's
/// words back (401), or streams an answer whose second chunk cannot be read.
async fn careless_gateway(answer_words: &'static str) -> u16 {
    let app = axum::Router::new().fallback(move |headers: HeaderMap, body: String| async move {
        let key = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        if body.contains("reject me") {
            let message = format!(
                "Invalid key {key} for upstream {} while answering: {answer_words}",
                headers
                    .get("host")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
            );
            // Not OpenAI's error shape: async-openai logs what it cannot read.
            return (
                StatusCode::UNAUTHORIZED,
                [("content-type", "application/json")],
                json!({"detail": message, "error": 401}).to_string(),
            )
                .into_response();
        }
        let chunk = |content: &str| {
            format!(
                "data: {}\n\n",
                json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "mock-model",
                       "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]})
            )
        };
        // The second chunk is JSON, but not a chunk: its choices are text.
        let unreadable = format!(
            "data: {}\n\n",
            json!({"id": "c1", "object": "chat.completion.chunk", "choices": answer_words})
        );
        let stream = format!("{}{unreadable}data: [DONE]\n\n", chunk(answer_words));
        Response::builder()
            .header("content-type", "text/event-stream")
            .body(axum::body::Body::from(stream))
            .expect("a response")
    });
    serve(app).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_holds_no_key_no_provider_url_and_no_answer_text() {
    const WORDS: &str = "quokka-marmalade-answer";
    let gateway = careless_gateway(WORDS).await;
    let log_path = std::env::temp_dir().join(format!("pensive-log-{}.txt", std::process::id()));
    let log = std::fs::File::create(&log_path).expect("a log file");
    let env = vec![
        ("PENSIVE_PROVIDER", "openai".to_owned()),
        ("PENSIVE_BASE_URL", format!("http://127.0.0.1:{gateway}/v1")),
        ("PENSIVE_MODEL", "mock-model".to_owned()),
        ("PENSIVE_API_KEY", KEY.to_owned()),
    ];
    // The default filter (no RUST_LOG), and a curious operator's `debug`.
    for level in ["", "debug"] {
        let (server, port) = common::serve_with(
            &env,
            Stdio::from(log.try_clone().expect("the log file again")),
            level,
        );
        for question in ["reject me", "answer me"] {
            let events = tokio::task::spawn_blocking(move || {
                let mut turn = common::open_turn(port, question);
                common::read_events(&mut turn)
            })
            .await
            .expect("the turn");
            assert!(
                matches!(events.last(), Some(TurnEvent::Error { .. })),
                "{question}: {events:?}"
            );
        }
        drop(server);
    }
    // What the server wrote: it has stopped (dropping it waits for it).
    let written = std::fs::read_to_string(&log_path).expect("the log");
    let _ = std::fs::remove_file(&log_path);
    assert!(
        written.contains("outcome"),
        "the turns were logged:\n{written}"
    );
    for secret in [KEY, &format!("127.0.0.1:{gateway}"), WORDS, "quokka"] {
        assert!(
            !written.contains(secret),
            "`{secret}` is in the log:\n{written}"
        );
    }
}
