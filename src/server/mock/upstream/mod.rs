//! `pensive mock-upstream`: a deterministic provider speaking every dialect at
//! its real path, so the real provider code runs over real HTTP in tests and
//! benchmarks. Scenarios come from `mock:<name>` keywords (see `scenarios`);
//! `--replay FILE` serves a recording instead. Every request is recorded, and
//! so is every response stream the client closed early.
//!
//! This file holds the routes and picks each request's answer; beside it are
//! what the mock records (`state`), a scenario's body with its fault
//! (`body`), the endless bodies of a hostile upstream (`endless`) and replay
//! (`replay`).

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::Value;

use crate::server::mock::scenarios::{scenario_for, Fault};
use crate::server::providers::wire::Dialect;

mod body;
mod echo;
mod endless;
mod replay;
mod rules;
mod state;

pub use echo::{GATEWAY_BEARER, OTHER_SK_KEY};
pub use replay::replay_events;
pub use state::{MockConfig, MockState, RecordedRequest};

use body::scenario_body;
use echo::echo_secrets_response;
use endless::huge_error_response;
use replay::replay_body;
use state::stream_response;

/// The dialects answered at one fixed path each (Gemini's path names the model).
const FIXED_PATHS: [(Dialect, &str); 4] = [
    (Dialect::Chat, "/v1/chat/completions"),
    (Dialect::Responses, "/v1/responses"),
    (Dialect::Anthropic, "/v1/messages"),
    (Dialect::Ollama, "/api/chat"),
];

/// The mock's routes.
pub fn router(state: MockState) -> Router {
    FIXED_PATHS
        .iter()
        .fold(Router::new(), |router, &(dialect, path)| {
            router.route(
                path,
                post(
                    move |State(s): State<MockState>,
                          headers: HeaderMap,
                          Json(body): Json<Value>| async move {
                        serve(s, dialect, path.into(), headers, body)
                    },
                ),
            )
        })
        .route("/v1beta/models/{*rest}", post(gemini))
        .route("/v1/chat/completions/control", post(control))
        .route("/_mock/requests", get(list_requests))
        .route("/_mock/stats", get(stats))
        .with_state(state)
}

async fn gemini(
    State(s): State<MockState>,
    Path(rest): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    serve(
        s,
        Dialect::Gemini,
        format!("/v1beta/models/{rest}"),
        headers,
        body,
    )
}

/// llama.cpp's reasoning control (`reasoning_end`): recorded; the stream of
/// that completion id leaves out the rest of its reasoning and answers.
async fn control(State(s): State<MockState>, Json(body): Json<Value>) -> Response {
    s.record(RecordedRequest {
        dialect: "chat",
        path: "/v1/chat/completions/control".into(),
        headers: Vec::new(),
        body: body.clone(),
    });
    let id = body.get("id").and_then(Value::as_str);
    let action = body.get("action").and_then(Value::as_str);
    match (id, action) {
        (Some(id), Some("reasoning_end")) if s.end_reasoning(id) => {
            Json(serde_json::json!({"id": id, "action": "reasoning_end", "success": true}))
                .into_response()
        }
        _ => (
            StatusCode::BAD_REQUEST,
            Json(serde_json::json!({"error": {"code": 400, "message": "expected {\"id\": <the id of a running completion started with reasoning_control>, \"action\": \"reasoning_end\"}", "type": "invalid_request_error"}})),
        )
            .into_response(),
    }
}

async fn list_requests(State(s): State<MockState>) -> Json<Vec<RecordedRequest>> {
    Json(s.requests())
}

async fn stats(State(s): State<MockState>) -> Json<Value> {
    Json(serde_json::json!({
        "requests": s.requests().len(),
        "active": s.active(),
        "closed_early": s.closed_early(),
        "sent_bytes": s.sent_bytes(),
    }))
}

fn serve(
    state: MockState,
    dialect: Dialect,
    path: String,
    headers: HeaderMap,
    body: Value,
) -> Response {
    let recorded_headers = headers
        .iter()
        .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
        .collect();
    let text = body.to_string();
    let url = format!(
        "http://{}{path}",
        headers
            .get("host")
            .and_then(|h| h.to_str().ok())
            .unwrap_or("")
    );
    let refused = rules::refusal(dialect, &path, &body);
    let controlled =
        dialect == Dialect::Chat && body.get("reasoning_control") == Some(&Value::Bool(true));
    state.record(RecordedRequest {
        dialect: dialect.name(),
        path,
        headers: recorded_headers,
        body,
    });
    if let Some(refusal) = refused {
        return refusal;
    }
    if let Some(events) = state.config.replay.clone() {
        let delay = state.config.delay;
        return stream_response(state, dialect, replay_body(events.as_ref().clone(), delay));
    }
    let scenario = scenario_for(&text, state.config.delay);
    if let Fault::Status { code, retry_after } = scenario.fault {
        return status_response(code, retry_after);
    }
    if scenario.fault == Fault::HugeErrorBody {
        return huge_error_response(state);
    }
    if scenario.fault == Fault::EchoSecrets {
        return echo_secrets_response(&headers, &url);
    }
    let model = "mock-model";
    let control = controlled.then(|| state.new_control()).flatten();
    stream_response(
        state.clone(),
        dialect,
        scenario_body(dialect, model, scenario, control),
    )
}

fn status_response(code: u16, retry_after: Option<u64>) -> Response {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let message = match code {
        401 => "Incorrect API key provided.",
        403 => "Your key does not have access to this model.",
        404 => "The model `mock-model` does not exist or you do not have access to it.",
        429 => "Rate limit reached for requests.",
        503 => "The engine is currently overloaded, please try again later.",
        _ => "The server had an error while processing your request.",
    };
    let body =
        serde_json::json!({"error": {"message": message, "type": "mock_error", "code": code}});
    let mut response = (status, Json(body)).into_response();
    if let Some(seconds) = retry_after {
        if let Ok(value) = seconds.to_string().parse() {
            response.headers_mut().insert("retry-after", value);
        }
    }
    response
}

/// Serves the mock on `listener` until the process ends.
/// Like a provider's server, it writes each chunk at once (`TCP_NODELAY`): with
/// Nagle's algorithm a paced chunk would wait for the ACK of the previous one.
pub async fn serve_on(listener: tokio::net::TcpListener, state: MockState) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|stream| {
        let _ = stream.set_nodelay(true);
    });
    axum::serve(listener, router(state)).await
}
