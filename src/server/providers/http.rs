//! The HTTP leg of the non-async-openai dialects: POST the dialect's request,
//! map HTTP failures to `TurnError`, then frame and decode the body as it
//! arrives (`decode_stream`). Built as a plain stream over the response (no spawned task), so
//! dropping it closes the upstream connection.

use async_stream::stream;
use futures::StreamExt;

use super::decode_stream::decode_stream;
use super::wire::{Dialect, UpstreamRequest};
use super::{ByteBudget, DeltaStream, ERROR_BODY_LIMIT};
use crate::turn::turn_error::{NetworkFailure, TurnError};

/// Shared client: connection pooling across turns, and the TLS root store is
/// loaded once (building a client parses every root certificate, which costs
/// milliseconds of CPU and a copy of the store per turn). The chat dialect's
/// async-openai client sends through it too.
///
/// It follows no redirect: a 3xx would send the whole conversation, with the
/// key headers (`x-api-key`, `x-goog-api-key` survive a cross-host redirect
/// in reqwest), to wherever the `Location` points. A redirect is an error
/// naming its status instead ([`TurnError::from_status`]).
pub(crate) fn client() -> &'static reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            // Fails only where `reqwest::Client::new` would panic too: no
            // TLS backend at all.
            .expect("the HTTP client starts")
    })
}

/// A network failure described without the URL (reqwest's text contains it).
pub(crate) fn network_error(err: &reqwest::Error) -> TurnError {
    TurnError::Network(if err.is_connect() {
        NetworkFailure::Connect
    } else if err.is_timeout() {
        NetworkFailure::TimedOut
    } else if err.is_decode() || err.is_body() {
        NetworkFailure::BrokeOff
    } else {
        NetworkFailure::Failed
    })
}

/// Sends `request` and streams the decoded deltas, the body's bytes counted
/// against `budget`.
pub async fn open(
    dialect: Dialect,
    request: UpstreamRequest,
    mut budget: ByteBudget,
) -> Result<DeltaStream, TurnError> {
    let mut builder = client().post(&request.url).json(&request.body);
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    let response = builder.send().await.map_err(|e| network_error(&e))?;
    let status = response.status();
    if !status.is_success() {
        let retry_after = super::retry_after(response.headers());
        let body = error_body(response).await;
        let error = TurnError::from_status(status.as_u16(), &provider_message(&body));
        return Err(error.with_retry_after(retry_after));
    }
    let mut body = response.bytes_stream();
    let mut decoding = decode_stream(dialect.framing(), dialect.decoder());
    let deltas = stream! {
        loop {
            let (decoded, last) = match body.next().await {
                Some(Ok(bytes)) => {
                    if let Err(over) = budget.spend(bytes.len()) {
                        yield Err(over);
                        return;
                    }
                    (decoding.push(&bytes), false)
                }
                Some(Err(e)) => {
                    yield Err(network_error(&e));
                    return;
                }
                None => (decoding.finish(), true),
            };
            for result in decoded {
                let failed = result.is_err();
                yield result;
                if failed {
                    return;
                }
            }
            if last {
                return;
            }
        }
    };
    Ok(deltas.boxed())
}

/// The start of an error response's body (at most `ERROR_BODY_LIMIT` bytes);
/// the rest is never read, and dropping the response closes the connection.
async fn error_bytes(response: reqwest::Response) -> Vec<u8> {
    let mut body = response.bytes_stream();
    let mut kept = Vec::new();
    while let Some(Ok(bytes)) = body.next().await {
        let room = ERROR_BODY_LIMIT - kept.len();
        kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
        if kept.len() == ERROR_BODY_LIMIT {
            break;
        }
    }
    kept
}

/// The start of an error response's body as text (invalid UTF-8 replaced).
pub(super) async fn error_body(response: reqwest::Response) -> String {
    String::from_utf8_lossy(&error_bytes(response).await).into_owned()
}

/// The same error response with its body cut to `ERROR_BODY_LIMIT` bytes,
/// for a library that reads an error body whole.
pub(super) async fn with_error_body_cut(response: reqwest::Response) -> reqwest::Response {
    let status = response.status();
    let mut headers = response.headers().clone();
    headers.remove(reqwest::header::CONTENT_LENGTH);
    let kept = error_bytes(response).await;
    let mut rebuilt = axum::http::Response::new(reqwest::Body::from(kept));
    *rebuilt.status_mut() = status;
    *rebuilt.headers_mut() = headers;
    reqwest::Response::from(rebuilt)
}

/// The provider's own error message from a JSON error body, if any.
pub(super) fn provider_message(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("error"))
            .or_else(|| v.get("message"))
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    });
    message.unwrap_or_else(|| body.chars().take(200).collect())
}
