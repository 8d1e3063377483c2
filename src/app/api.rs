//! Server function declarations. Thin: take the context, call `crate::server`.

use leptos::prelude::*;
use server_fn::codec::{ByteStream, Json, Streaming};

/// The tool servers' wire type, shared with the server too.
pub use crate::turn::tool_listing::PublicToolServer;
/// The model list's wire type lives in `turn`, shared with the server.
pub use crate::turn::PublicModel;
use crate::turn::{AnswerNow, ChatRequest};

/// The codec of the page's resources: JSON, as Leptos' default, but read
/// with `from_slice`, as the server-function client reads a refetch, so each
/// type has one reader in the browser bundle rather than two
/// (crate::turn::json).
pub struct JsonBytes;

impl<T: serde::Serialize> leptos::server::codee::Encoder<T> for JsonBytes {
    type Error = serde_json::Error;
    type Encoded = String;

    fn encode(value: &T) -> Result<String, serde_json::Error> {
        serde_json::to_string(value)
    }
}

impl<T: serde::de::DeserializeOwned> leptos::server::codee::Decoder<T> for JsonBytes {
    type Error = serde_json::Error;
    type Encoded = str;

    fn decode(value: &str) -> Result<T, serde_json::Error> {
        crate::turn::json::read(value)
    }
}

/// What a server function gives the page, rendered on the server and read
/// back in the browser at hydration.
pub type Fetched<T> = Resource<Result<T, ServerFnError>, JsonBytes>;

/// `POST /api/chat`: starts the turn, which the server runs to its end
/// whoever watches, and streams its log (design §2): NDJSON `TurnEvent`
/// lines with their `seq` and `at_ms`, and heartbeats.
#[server(input = Json, output = Streaming, endpoint = "chat")]
pub async fn chat(request: ChatRequest) -> Result<ByteStream, ServerFnError> {
    use futures::StreamExt;
    // Take context first: the request's Owner is gone once the body is polled.
    let turns = expect_context::<crate::server::TurnService>();
    streamed_response();
    let asker = asker();
    let lines = turns.start_run(request, asker.caller());
    Ok(ByteStream::new(lines.map(Ok::<_, ServerFnError>)))
}

/// `POST /api/turn_events`: the log of the caller's turn `turn_id` after
/// line `after` (0: all of it), then its live lines until it ends. 404
/// (with this server's run, `boot`) for a turn the server does not hold
/// for the caller: unknown, someone else's, or past its retention.
#[server(input = Json, output = Streaming, endpoint = "turn_events")]
pub async fn turn_events(
    turn_id: String,
    secret: String,
    after: u64,
) -> Result<ByteStream, ServerFnError> {
    use futures::StreamExt;
    let turns = expect_context::<crate::server::TurnService>();
    streamed_response();
    let asker = asker();
    match turns.attach(&turn_id, &secret, after, asker.caller()).await {
        Some(lines) => Ok(ByteStream::new(lines.map(Ok::<_, ServerFnError>))),
        None => Err(not_held(&turns)),
    }
}

/// `POST /api/stop_turn`: Stop for the caller's running turn `turn_id`;
/// answers once its provider request is closed. 404 as `turn_events`.
#[server(input = Json, endpoint = "stop_turn")]
pub async fn stop_turn(turn_id: String, secret: String) -> Result<(), ServerFnError> {
    let turns = expect_context::<crate::server::TurnService>();
    let asker = asker();
    if turns.stop_run(&turn_id, &secret, asker.caller()).await {
        Ok(())
    } else {
        Err(not_held(&turns))
    }
}

/// The words of a 404 for a turn not held: `not_held:<boot>`.
pub const NOT_HELD: &str = "not_held:";

#[cfg(feature = "ssr")]
fn not_held(turns: &crate::server::TurnService) -> ServerFnError {
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(axum::http::StatusCode::NOT_FOUND);
    }
    ServerFnError::ServerError(format!("{NOT_HELD}{}", turns.boot()))
}

/// Who asks, as the router's middleware named them.
#[cfg(feature = "ssr")]
fn asker() -> crate::server::http::client::Asker {
    let parts = use_context::<axum::http::request::Parts>();
    crate::server::http::client::Asker::of(parts.as_ref())
}

/// Headers of a streamed response: no proxy buffering, no caching.
#[cfg(feature = "ssr")]
fn streamed_response() {
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        // Reverse proxies must not buffer a streamed turn.
        response.insert_header(
            axum::http::HeaderName::from_static("x-accel-buffering"),
            axum::http::HeaderValue::from_static("no"),
        );
        response.insert_header(
            axum::http::header::CACHE_CONTROL,
            axum::http::HeaderValue::from_static("no-store"),
        );
    }
}

/// `POST /api/models`: the configured models, default first.
#[server(input = Json, endpoint = "models")]
pub async fn list_models() -> Result<Vec<PublicModel>, ServerFnError> {
    let turns = expect_context::<crate::server::TurnService>();
    Ok(turns.config().models.iter().map(|m| m.public()).collect())
}

/// `POST /api/tool_servers`: each tool server turns may be offered
/// (built-in first) with its tools, their descriptions, what the server
/// claims about them (MCP annotations, shown as claims) and whether a call
/// asks first. Nothing secret: no command, URL, header or environment.
#[server(input = Json, endpoint = "tool_servers")]
pub async fn list_tool_servers() -> Result<Vec<PublicToolServer>, ServerFnError> {
    let turns = expect_context::<crate::server::TurnService>();
    // The page embeds this list while it renders, and pages answer to any
    // host: for a host the API would refuse (a DNS-rebinding page) the
    // list is empty. The API itself never gets here for such a host.
    let parts = use_context::<axum::http::request::Parts>();
    let host_allowed = parts
        .as_ref()
        .and_then(|parts| {
            parts
                .extensions
                .get::<crate::server::http::same_origin::HostAllowed>()
                .copied()
        })
        .is_some_and(|allowed| allowed.0);
    if !host_allowed {
        return Ok(Vec::new());
    }
    // Whether a tool is held is the caller's own (`tools::hashes`).
    let decider = parts
        .as_ref()
        .map(|parts| crate::server::http::client::decider_of(&parts.extensions));
    Ok(turns
        .tools()
        .listing(decider.as_deref().unwrap_or("unknown")))
}

/// `POST /api/answer_now`: "Answer now" for the caller's running turn
/// `turn_id` (the chat request's `turn_id`). llama.cpp models end their
/// thinking in the same stream (`ended`); for every other provider, or a turn
/// this client does not own, the answer is `ask_again` (stop the stream and
/// send the turn again with `reasoning_so_far`).
#[server(input = Json, endpoint = "answer_now")]
pub async fn request_answer_now(turn_id: String) -> Result<AnswerNow, ServerFnError> {
    let turns = expect_context::<crate::server::TurnService>();
    let client = use_context::<axum::http::request::Parts>()
        .map(|parts| crate::server::http::client::ClientKey::of(&parts.extensions));
    Ok(turns
        .answer_now(
            &turn_id,
            client.as_ref().map_or("unknown", |client| client.as_str()),
        )
        .await)
}

/// `POST /api/tool_decision`: the user's decision on the call `call` of the
/// caller's running turn `turn_id` (a call that asks first waits for it):
/// `call` is the step the user was shown, its id and the digest its
/// `tool_call_ready` carried. `false`: no such call of this session (or
/// client) waits (it was decided, timed out, or the turn ended), or the one
/// that waits is not the call shown; nothing runs.
#[server(input = Json, endpoint = "tool_decision")]
pub async fn tool_decision(
    turn_id: String,
    call: crate::turn::tool::ShownCall,
    decision: crate::turn::Decision,
) -> Result<bool, ServerFnError> {
    let turns = expect_context::<crate::server::TurnService>();
    let decider = use_context::<axum::http::request::Parts>()
        .map(|parts| crate::server::http::client::decider_of(&parts.extensions));
    Ok(turns
        .tool_decision_anywhere(
            decider.as_deref().unwrap_or("unknown"),
            &turn_id,
            &call,
            decision,
        )
        .await)
}

/// `POST /api/tool_agree`: the caller agrees to what the held tool `tool`
/// of `server` says now, as the Tools control showed it (`digest`, the
/// listing's hash of it). It is offered to the caller's turns again; every
/// other session still finds it held. `false`: no such held tool for this
/// caller, or it changed since it was listed (nothing is kept). Who agrees
/// is the session (or client) the router named, never the request body.
#[server(input = Json, endpoint = "tool_agree")]
pub async fn tool_agree(
    server: String,
    tool: String,
    digest: String,
) -> Result<bool, ServerFnError> {
    let turns = expect_context::<crate::server::TurnService>();
    let decider = use_context::<axum::http::request::Parts>()
        .map(|parts| crate::server::http::client::decider_of(&parts.extensions));
    let Some(decider) = decider else {
        return Ok(false);
    };
    Ok(turns
        .tools()
        .agree_listed(&server, &tool, &digest, &decider))
}

/// `POST /api/access`: whether the site is behind an access token (then the
/// page offers "Sign out").
#[server(input = Json, endpoint = "access")]
pub async fn access_token_required() -> Result<bool, ServerFnError> {
    let turns = expect_context::<crate::server::TurnService>();
    Ok(turns.config().access_token.is_some())
}

/// `POST /api/sign_out`: clears the access cookie (the page then goes to the
/// sign-in page). A JSON call like the rest of the API, so the cross-site
/// guard covers it: a form post from the page would carry `Origin: null`
/// under the site's `no-referrer` policy.
#[server(input = Json, endpoint = "sign_out")]
pub async fn sign_out() -> Result<(), ServerFnError> {
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        for cookie in crate::server::http::access::signed_out_cookies() {
            if let Ok(value) = axum::http::HeaderValue::from_str(&cookie) {
                response.append_header(axum::http::header::SET_COOKIE, value);
            }
        }
    }
    Ok(())
}
