//! The bytes of a mock response: one piece of a body (or the error that
//! resets the connection), and one event as its dialect frames it. Every
//! body the mock streams (a scenario, a replay, an endless tail) is made of
//! these.

use axum::body::Bytes;

use crate::server::providers::framing::WireEvent;
use crate::server::providers::wire::Dialect;

/// One piece of a response body, or the error that resets the connection.
pub(super) type Chunk = Result<Bytes, std::io::Error>;

/// One event's bytes as the dialect frames it: an NDJSON line or an SSE event.
pub(super) fn frame_bytes(dialect: Dialect, frame: &WireEvent) -> String {
    if dialect.is_ndjson() {
        format!("{}\n", frame.data)
    } else {
        match &frame.event {
            Some(name) => format!("event: {name}\ndata: {}\n\n", frame.data),
            None => format!("data: {}\n\n", frame.data),
        }
    }
}
