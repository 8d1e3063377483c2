//! What a hostile upstream writes without end: the tail of an `Endless`
//! scenario and an error body that never closes (`Fault::HugeErrorBody`),
//! each stopped only by `ENDLESS_BYTES` or `TRICKLE_FOR`.

use async_stream::stream;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::Response;

use super::frame::{frame_bytes, Chunk};
use super::state::{stream_response, MockState};
use crate::server::mock::encoders::Encoder;
use crate::server::mock::scenarios::{Endless, ENDLESS_BYTES, TRICKLE_FOR, TRICKLE_PAUSE};
use crate::server::providers::delta::Delta;
use crate::server::providers::wire::Dialect;

/// What an endless scenario writes after its steps (see `Endless`): at most
/// `ENDLESS_BYTES`, most of it one piece of bytes written again and again.
pub(super) fn endless_body<'e>(
    dialect: Dialect,
    encoder: &'e mut dyn Encoder,
    kind: Endless,
) -> impl futures::Stream<Item = Chunk> + Send + 'e {
    stream! {
        let frames = |encoder: &mut dyn Encoder, delta: Delta| -> Bytes {
            let text: String = encoder.step(&[delta]).iter().map(|f| frame_bytes(dialect, f)).collect();
            Bytes::from(text)
        };
        let (opening, piece) = match kind {
            Endless::Event if dialect.is_ndjson() => (
                Bytes::from_static(b"{\"junk\":\""),
                Bytes::from(vec![b'a'; 16 * 1024]),
            ),
            Endless::Event => {
                let mut line = b"data: ".to_vec();
                line.resize(16 * 1024 - 1, b'a');
                line.push(b'\n');
                (Bytes::new(), Bytes::from(line))
            }
            Endless::Whitespace => {
                let blank = " \n".repeat(2048);
                // The first frames may open the answer's part; the rest repeat.
                (frames(encoder, Delta::Answer(blank.clone())), frames(encoder, Delta::Answer(blank)))
            }
            Endless::Items if dialect == Dialect::Responses => {
                let mut sent = 0;
                let mut item = 0usize;
                let padding = "x".repeat(1000);
                while sent < ENDLESS_BYTES {
                    let event = serde_json::json!({
                        "type": "response.reasoning_summary_text.delta",
                        "item_id": format!("rs_{item}_{padding}"),
                        "output_index": 0,
                        "summary_index": 0,
                        "delta": "More. ",
                    });
                    let bytes = Bytes::from(format!("data: {event}\n\n"));
                    sent += bytes.len();
                    item += 1;
                    yield Ok(bytes);
                }
                return;
            }
            Endless::Items | Endless::Reasoning => {
                let text = "Considering yet another case. ".repeat(128);
                (frames(encoder, Delta::Reasoning(text.clone())), frames(encoder, Delta::Reasoning(text)))
            }
            Endless::Trickle => {
                let piece = frames(encoder, Delta::Reasoning("Still thinking. ".into()));
                let started = tokio::time::Instant::now();
                while started.elapsed() < TRICKLE_FOR {
                    tokio::time::sleep(TRICKLE_PAUSE).await;
                    yield Ok(piece.clone());
                }
                return;
            }
        };
        let mut sent = opening.len();
        yield Ok(opening);
        while sent < ENDLESS_BYTES {
            sent += piece.len();
            yield Ok(piece.clone());
        }
    }
}

/// HTTP 500 with a JSON error body that never closes: `ENDLESS_BYTES` of message.
pub(super) fn huge_error_response(state: MockState) -> Response {
    let body = stream! {
        yield Ok(Bytes::from_static(b"{\"error\":{\"message\":\"The server is melting"));
        let piece = Bytes::from(vec![b'!'; 64 * 1024]);
        for _ in 0..ENDLESS_BYTES / piece.len() {
            yield Ok(piece.clone());
        }
    };
    let mut response = stream_response(state, Dialect::Chat, body);
    *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    response
}
