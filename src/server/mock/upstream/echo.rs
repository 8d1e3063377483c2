//! `mock:echo-secrets`: a gateway that rejects the key and quotes it back,
//! with the URL it was called at and a bearer token of its own, as a careless
//! gateway's 401 did (`Invalid key sk-… for upstream http://10.1.2.3:8000/v1`).
//! Pensive must relay the rejection without any of them.

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

/// A bearer token the gateway names that Pensive never sent (so only a rule
/// about the shape of tokens can remove it).
pub const GATEWAY_BEARER: &str = "eyJhbGciOiJIUzI1NiJ9.gateway-session-7f3a";
/// An `sk-` key that is not the configured one.
pub const OTHER_SK_KEY: &str = "sk-proj-0therKeyFromTheGateway42";

/// 401 with a JSON error whose message holds every credential the request
/// carried (`Authorization`, `x-api-key`, `x-goog-api-key`), `url` and the
/// gateway's own tokens.
pub fn echo_secrets_response(headers: &HeaderMap, url: &str) -> Response {
    let sent: Vec<&str> = ["authorization", "x-api-key", "x-goog-api-key"]
        .iter()
        .filter_map(|name| headers.get(*name)?.to_str().ok())
        .map(|value| value.strip_prefix("Bearer ").unwrap_or(value))
        .collect();
    let message = format!(
        "Invalid key {} for upstream {url} (retry with Authorization: Bearer {GATEWAY_BEARER}, or key {OTHER_SK_KEY})",
        sent.join(", ")
    );
    let body =
        serde_json::json!({"error": {"message": message, "type": "mock_error", "code": 401}});
    (StatusCode::UNAUTHORIZED, Json(body)).into_response()
}
