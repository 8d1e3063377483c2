//! Caps request bodies on the API. An oversized request is answered with 413
//! and a server-function error the browser shows as it is
//! (`TurnError::RequestTooLarge`'s words), rather than a reset connection or a
//! generic failure.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use server_fn::error::{FromServerFnError, ServerFnError};

use crate::turn::turn_error::TurnError;

/// The middleware: declared-too-large bodies are refused before reading; a
/// body without a length is cut off at the limit while it is read.
pub async fn limit_api_bodies(State(max): State<usize>, request: Request, next: Next) -> Response {
    if !request.uri().path().starts_with("/api/") {
        return next.run(request).await;
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if let Some(length) = declared.filter(|length| *length > max as u64) {
        return too_large(length, max);
    }
    let (parts, body) = request.into_parts();
    let limited = Body::new(http_body_util::Limited::new(body, max));
    next.run(Request::from_parts(parts, limited)).await
}

fn too_large(length: u64, max: usize) -> Response {
    let message = TurnError::RequestTooLarge {
        bytes: length,
        limit: max as u64,
    }
    .user_message();
    let error: ServerFnError = ServerFnError::ServerError(message);
    let body = error.ser();
    let mut response = (StatusCode::PAYLOAD_TOO_LARGE, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
