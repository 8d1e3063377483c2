//! A request body a server function cannot read is the client's mistake: it
//! is answered 400 with words saying what was wrong, not 500. server_fn 0.8
//! answers every error 500 (`Res::error_response` has no status per error),
//! so this middleware finds its request-decoding errors by the error body's
//! marker and rewrites only those. It never touches a response that is not a
//! server function's error (streamed turns are 200 and pass untouched).

use axum::body::{to_bytes, Body, Bytes};
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use server_fn::error::{FromServerFnError, ServerFnError, SERVER_FN_ERROR_HEADER};

/// The markers server_fn writes before a request-decoding error (its
/// `ServerFnErrorEncoding`): the body did not deserialize (`Deserialization`,
/// also an unreadable body), or an argument is wrong or missing.
const REQUEST_ERRORS: [&str; 3] = ["Deserialization|", "Args|", "MissingArg|"];

/// A server function's error body is a short line; more is not one.
const MAX_ERROR_BYTES: usize = 64 * 1024;

/// The middleware, on `/api/*`.
pub(crate) async fn answer_unreadable_requests(request: Request, next: Next) -> Response {
    if !request.uri().path().starts_with("/api/") {
        return next.run(request).await;
    }
    let response = next.run(request).await;
    if response.status() != StatusCode::INTERNAL_SERVER_ERROR
        || !response.headers().contains_key(SERVER_FN_ERROR_HEADER)
    {
        return response;
    }
    let (parts, body) = response.into_parts();
    // An error body that cannot be read whole is no request error: it stays
    // a 500, without the body it no longer has.
    let bytes = to_bytes(body, MAX_ERROR_BYTES).await.unwrap_or_default();
    match request_error(&bytes) {
        Some(reason) => unreadable(reason),
        None => Response::from_parts(parts, Body::from(bytes)),
    }
}

/// What server_fn said was wrong with the request, if that is what the
/// error body says.
fn request_error(body: &Bytes) -> Option<&str> {
    let text = std::str::from_utf8(body).ok()?;
    REQUEST_ERRORS
        .iter()
        .find_map(|marker| text.strip_prefix(marker))
}

/// 400, as a server-function error the page's client decodes (the same
/// encoding as the body cap's 413, `body_limit`), whose words a person reads.
fn unreadable(reason: &str) -> Response {
    let message = format!("Pensive could not read this request: {reason}.");
    let error: ServerFnError = ServerFnError::ServerError(message);
    let mut response = (StatusCode::BAD_REQUEST, error.ser()).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_request_decoding_errors_are_the_clients() {
        let reason = "unknown variant `ultra`, expected one of `low`";
        for marker in REQUEST_ERRORS {
            let body = Bytes::from(format!("{marker}{reason}"));
            assert_eq!(request_error(&body), Some(reason));
        }
        for server_side in [
            "ServerError|the provider is down",
            "Response|x",
            "",
            "\u{fffd}",
        ] {
            assert_eq!(request_error(&Bytes::from(server_side)), None);
        }
    }
}
