//! Replay: a recording cut into its events and served again, one event per
//! `--delay-ms`, instead of a scenario.

use std::time::Duration;

use async_stream::stream;
use axum::body::Bytes;

use super::frame::Chunk;

/// Splits a recording into the raw text of each event (blank-line separated
/// for SSE, one per line for NDJSON), so replay keeps `event:` lines.
pub fn replay_events(recording: &str) -> Vec<String> {
    let ndjson = !recording.trim_start().starts_with("data:")
        && !recording.trim_start().starts_with("event:")
        && !recording.trim_start().starts_with(':');
    if ndjson {
        recording
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| format!("{l}\n"))
            .collect()
    } else {
        recording
            .replace("\r\n", "\n")
            .split("\n\n")
            .filter(|e| !e.trim().is_empty())
            .map(|e| format!("{e}\n\n"))
            .collect()
    }
}

pub(super) fn replay_body(
    events: Vec<String>,
    delay: Duration,
) -> impl futures::Stream<Item = Chunk> + Send {
    stream! {
        for event in events {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            yield Ok(Bytes::from(event));
        }
    }
}
