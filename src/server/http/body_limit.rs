//! Caps request bodies on the API. An oversized request is answered with 413
//! and a server-function error the browser shows as it is
//! (`TurnError::RequestTooLarge`'s words), rather than a reset connection or a
//! generic failure.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use server_fn::error::{FromServerFnError, ServerFnError};

use crate::turn::turn_error::TurnError;

/// The middleware: declared-too-large bodies are refused before reading; a
/// body without a length is cut off at the limit while it is read. axum's
/// own 2 MiB default is lifted (`router`): this is the one limit.
pub(crate) async fn limit_api_bodies(
    State(max): State<usize>,
    request: Request,
    next: Next,
) -> Response {
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
    // Counted as it is read: past the limit the read fails, and whatever
    // the handler then answers becomes the same readable 413.
    // How much had been read when the limit was passed (0: it was not).
    let over = Arc::new(AtomicUsize::new(0));
    let flagged = over.clone();
    let mut read = 0usize;
    let counted = body.into_data_stream().map(move |chunk| {
        let chunk = chunk?;
        read = read.saturating_add(chunk.len());
        if read > max {
            flagged.store(read, Ordering::Relaxed);
            return Err(axum::Error::new("the request body is over the limit"));
        }
        Ok(chunk)
    });
    let response = next
        .run(Request::from_parts(parts, Body::from_stream(counted)))
        .await;
    match over.load(Ordering::Relaxed) {
        0 => response,
        read => too_large(read as u64, max),
    }
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
