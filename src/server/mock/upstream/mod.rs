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

use crate::server::mock::scenarios::{
    continued_scenario, long_reasoning_answered, reasoning_continued_scenario, scenario_for, Fault,
    Scenario, CUT_ANSWER_START, LONG_PAUSE_LAST_LINE, REASONING,
};
use crate::server::mock::tool_scripts;
use crate::server::providers::delta::Delta;
use crate::server::providers::wire::Dialect;
use crate::turn::ChatMessage;

mod body;
mod conversation;
mod echo;
mod endless;
mod frame;
mod replay;
pub mod rules;
mod state;

pub use echo::{GATEWAY_BEARER, OTHER_SK_KEY};
pub use replay::replay_events;
pub use state::{MockConfig, MockState, RecordedRequest};

use body::scenario_body;
use echo::echo_secrets_response;
use endless::huge_error_response;
use replay::replay_body;
use rules::Thinks;
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
        .route("/v1beta/models/{*rest}", post(gemini).get(gemini_model))
        .route("/api/show", post(ollama_show))
        .route("/v1/models", get(openrouter_models))
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

/// Gemini's `models.get` (`rules::model_lists`).
async fn gemini_model(Path(rest): Path<String>) -> Response {
    match rules::model_lists::gemini_model(&rest) {
        Some(model) => Json(model).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            Json(serde_json::json!({"error": {"code": 404, "message": format!("models/{rest} is not found for API version v1beta"), "status": "NOT_FOUND"}})),
        )
            .into_response(),
    }
}

/// Ollama's `/api/show`.
async fn ollama_show(Json(body): Json<Value>) -> Response {
    match body.get("model").and_then(Value::as_str) {
        Some(name) => Json(rules::model_lists::ollama_show(name)).into_response(),
        None => (
            StatusCode::BAD_REQUEST,
            Json(serde_json::json!({"error": "model is required"})),
        )
            .into_response(),
    }
}

/// OpenRouter's `/models`.
async fn openrouter_models() -> Json<Value> {
    Json(rules::model_lists::openrouter_models())
}

/// llama.cpp's reasoning control, as its server's handler reads it
/// (tools/server/server-context.cpp at 00dd081, `post_control`): `id` (the
/// `chatcmpl-…` id of the stream) and `action` (only `reasoning_end`) are
/// required, a 400 naming the missing one otherwise; an id with no running
/// completion, or one not started with `reasoning_control: true`, is a 200
/// with `success: false`; success is `{"success": true}`. (Router mode also
/// needs `model`; Pensive always sends it and the single-model server
/// ignores it.) The stream of that id then leaves out the rest of its
/// reasoning and answers.
async fn control(State(s): State<MockState>, Json(body): Json<Value>) -> Response {
    s.record(RecordedRequest {
        dialect: "chat",
        path: "/v1/chat/completions/control".into(),
        headers: Vec::new(),
        body: body.clone(),
    });
    let refused = |message: &str| {
        (
            StatusCode::BAD_REQUEST,
            Json(serde_json::json!({"error": {"code": 400, "message": message, "type": "invalid_request_error"}})),
        )
            .into_response()
    };
    let id = body.get("id").and_then(Value::as_str).unwrap_or("");
    if id.is_empty() {
        return refused("missing completion id");
    }
    if body.get("action").and_then(Value::as_str) != Some("reasoning_end") {
        return refused("unknown control action");
    }
    if s.end_reasoning(id) {
        Json(serde_json::json!({"success": true})).into_response()
    } else {
        Json(serde_json::json!({"success": false, "message": "no active completion for this id"}))
            .into_response()
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
    let verdict = rules::verdict(&path, &body);
    let interleaves = rules::anthropic::thinks_after_tools(
        &body,
        headers
            .get("anthropic-beta")
            .and_then(|h| h.to_str().ok())
            .unwrap_or(""),
    );
    let requested = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let messages = conversation::messages_of(dialect, &body);
    let beta = headers
        .get("anthropic-beta")
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let (prefix_refused, bound_prefix) = if dialect == Dialect::Anthropic {
        let count = body
            .get("messages")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        (
            rules::anthropic::prefix_check(&body, beta)
                .and_then(|()| rules::anthropic::effort_markers(&body, beta))
                .err(),
            rules::anthropic::prefix_digest(&body, count),
        )
    } else {
        (None, None)
    };
    let fallback = (dialect == Dialect::Anthropic)
        .then(|| {
            let question = messages
                .iter()
                .rev()
                .find(|m| m.role == crate::turn::Role::User)
                .map_or("", |m| m.content.as_str());
            rules::anthropic::fallback_to(&body, beta, question)
        })
        .flatten();
    let controlled =
        dialect == Dialect::Chat && body.get("reasoning_control") == Some(&Value::Bool(true));
    state.record(RecordedRequest {
        dialect: dialect.name(),
        path,
        headers: recorded_headers,
        body,
    });
    if let Some((status, body)) = prefix_refused {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
        return (status, Json(body)).into_response();
    }
    let thinks = match verdict {
        rules::Verdict::Refused { status, body } => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
            return (status, Json(body)).into_response();
        }
        rules::Verdict::Accepted(thinks) => thinks,
    };
    // A response right after tool results thinks only if the model
    // interleaves thinking with tool calls.
    let after_tools = matches!(messages.last(), Some(m) if m.role == crate::turn::Role::Tool);
    let thinks = if dialect == Dialect::Anthropic && after_tools && !interleaves {
        rules::Thinks::No
    } else {
        thinks
    };
    if let Some(events) = state.config.replay.clone() {
        let delay = state.config.delay;
        return stream_response(state, dialect, replay_body(events.as_ref().clone(), delay));
    }
    let mut scenario = scenario_for(&text, state.config.delay);
    if let Some(played) = tool_scenario(&messages, state.config.delay) {
        scenario = played;
    }
    if scenario.name == "cut-off" && text.contains(CUT_ANSWER_START) {
        // Asked to go on from the cut answer: the rest of it.
        scenario = continued_scenario(state.config.delay);
    }
    if scenario.name == "no-answer" && text.contains(REASONING) {
        // Continued after the output limit cut its reasoning: it reads its
        // reasoning back and answers.
        scenario = reasoning_continued_scenario(state.config.delay);
    }
    if scenario.name == "long-reasoning-pause" && text.contains(LONG_PAUSE_LAST_LINE) {
        // Asked again with its reasoning so far ("Answer now").
        scenario = long_reasoning_answered(state.config.delay);
    }
    let mut scenario = shape_thinking(scenario, thinks);
    if let Some(to) = fallback {
        // The asked model declined at once; the fallback answers.
        scenario.steps.insert(
            0,
            crate::server::mock::scripted::Step {
                delay: std::time::Duration::ZERO,
                deltas: vec![Delta::ModelSwitched(to)],
            },
        );
    }
    if let Fault::Status { code, retry_after } = scenario.fault {
        return status_response(code, retry_after);
    }
    if scenario.fault == Fault::HugeErrorBody {
        return huge_error_response(state);
    }
    if scenario.fault == Fault::EchoSecrets {
        return echo_secrets_response(&headers, &url);
    }
    // OpenRouter names the model it relays in every chunk; the encoder
    // reads from the name whether details are relayed.
    let model = if dialect == Dialect::Chat
        && crate::server::mock::encoders::openai_chat::relays_reasoning_details(&requested)
    {
        requested.as_str()
    } else {
        "mock-model"
    };
    let control = controlled.then(|| state.new_control()).flatten();
    stream_response(
        state.clone(),
        dialect,
        scenario_body(dialect, model, scenario, control, bound_prefix),
    )
}

/// `mock:tools`, `mock:call` and the other tool scripts, in any dialect:
/// the next response of that loop.
fn tool_scenario(messages: &[ChatMessage], delay: std::time::Duration) -> Option<Scenario> {
    let question = messages
        .iter()
        .rev()
        .find(|m| m.role == crate::turn::Role::User)?;
    let steps = if let Some(steps) = tool_scripts::mock_call_round(messages, delay) {
        steps
    } else if question.content.contains("mock:tools-parallel") {
        tool_scripts::mock_parallel_round(messages, delay)
    } else if question.content.contains("mock:tools-loop") {
        tool_scripts::mock_loop_round(messages, delay)
    } else if question.content.contains("mock:tools-slow") {
        tool_scripts::mock_slow_round(messages, delay)
    } else if question.content.contains("mock:tools-same-id") {
        tool_scripts::mock_same_id_round(messages, delay)
    } else if question.content.contains("mock:tools-write") {
        tool_scripts::mock_files_round(messages, true, delay)
    } else if question.content.contains("mock:tools-read") {
        tool_scripts::mock_files_round(messages, false, delay)
    } else if question.content.contains("mock:tools") {
        tool_scripts::mock_tools_round(messages, delay)
    } else {
        return None;
    };
    Some(Scenario {
        name: "tools",
        steps,
        fault: Fault::None,
        stamp_send_time: false,
    })
}

/// The scenario as the model would stream it under the provider's verdict:
/// no reasoning when it does not think; reasoning without its text when the
/// provider omits it (one opaque signal per block).
fn shape_thinking(mut scenario: Scenario, thinks: Thinks) -> Scenario {
    if thinks == Thinks::Shown {
        return scenario;
    }
    let mut opened = false;
    for step in &mut scenario.steps {
        step.deltas.retain_mut(|delta| match delta {
            Delta::Reasoning(_) | Delta::ReasoningStarted | Delta::OpaqueReasoning
                if thinks == Thinks::Omitted =>
            {
                let first = !opened;
                opened = true;
                *delta = Delta::OpaqueReasoning;
                first
            }
            Delta::ReasoningBoundary if thinks == Thinks::Omitted => {
                opened = false;
                true
            }
            Delta::Reasoning(_)
            | Delta::ReasoningStarted
            | Delta::OpaqueReasoning
            | Delta::ReasoningBoundary => false,
            Delta::Answer(_) => {
                opened = false;
                true
            }
            _ => true,
        });
    }
    scenario
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
