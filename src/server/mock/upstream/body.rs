//! The body a scenario streams: each step's deltas through the dialect's
//! encoder, framed as SSE or NDJSON, with the scenario's fault injected on the
//! way (a drop, a stall, a malformed, huge or non-UTF-8 line, split bytes, a
//! slow start, a missing end marker, or an endless tail).

use std::time::Duration;

use async_stream::stream;
use axum::body::Bytes;

use super::endless::endless_body;
use super::frame::{frame_bytes, Chunk};
use super::state::Control;
use crate::server::mock::encoders;
use crate::server::mock::scenarios::{Fault, Scenario};
use crate::server::providers::delta::Delta;
use crate::server::providers::wire::Dialect;

/// Only reasoning (or nothing): what an ended reasoning leaves out.
fn reasoning_only(deltas: &[Delta]) -> bool {
    deltas.iter().all(|d| {
        matches!(
            d,
            Delta::Reasoning(_)
                | Delta::ReasoningStarted
                | Delta::OpaqueReasoning
                | Delta::ReasoningBoundary
        )
    })
}

/// `scenario`'s body in `dialect`: its steps' frames, with its fault. Under a
/// `control`, once its reasoning is ended the remaining reasoning is left out
/// (a pause before it cut short) and the answer follows at once.
pub(super) fn scenario_body(
    dialect: Dialect,
    model: &str,
    scenario: Scenario,
    control: Option<Control>,
    bound_prefix: Option<String>,
) -> impl futures::Stream<Item = Chunk> + Send {
    let mut encoder: Box<dyn encoders::Encoder> = match (&control, bound_prefix) {
        (Some(control), _) => Box::new(encoders::openai_chat::ChatEncoder::with_id(
            model,
            &control.id,
        )),
        (None, Some(prefix)) if dialect == Dialect::Anthropic => {
            Box::new(encoders::anthropic::AnthropicEncoder::new(model).bound_to(prefix))
        }
        (None, _) => encoders::encoder(dialect, model),
    };
    let mut control = control;
    stream! {
        if let Fault::SlowFirst(wait) = scenario.fault {
            tokio::time::sleep(wait).await;
        }
        let split = scenario.fault == Fault::SplitBytes;
        for frame in encoder.start() {
            yield Ok(Bytes::from(frame_bytes(dialect, &frame)));
        }
        for (index, step) in scenario.steps.iter().enumerate() {
            match scenario.fault {
                Fault::DropAfter(n) if index == n => {
                    // Let what was written reach the client before the reset.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    yield Err(std::io::Error::other("mock: connection dropped"));
                    return;
                }
                Fault::StallAfter(n) if index == n => {
                    // Silent but connected, until the client gives up (bounded).
                    tokio::time::sleep(Duration::from_secs(600)).await;
                }
                Fault::MalformedAfter(n) if index == n => {
                    let bad = if dialect.is_ndjson() { "{\"message\": {oops\n" } else { "data: {\"oops\": \n\n" };
                    yield Ok(Bytes::from_static(bad.as_bytes()));
                }
                Fault::HugeLineAfter { after, bytes } if index == after => {
                    // In 64 KB writes, as a runaway upstream would send it.
                    let prefix = if dialect.is_ndjson() { "{\"junk\":\"" } else { "data: {\"junk\":\"" };
                    yield Ok(Bytes::from_static(prefix.as_bytes()));
                    let piece = Bytes::from(vec![b'a'; 64 * 1024]);
                    for _ in 0..bytes / piece.len() {
                        yield Ok(piece.clone());
                    }
                    yield Ok(Bytes::from_static(if dialect.is_ndjson() { b"\"}\n" } else { b"\"}\n\n" }));
                }
                Fault::InvalidUtf8After(n) if index == n => {
                    let bad: &[u8] = if dialect.is_ndjson() { b"{\"junk\":\"\xff\xfe\"}\n" } else { b"data: {\"junk\":\"\xff\xfe\"}\n\n" };
                    yield Ok(Bytes::from_static(bad));
                }
                _ => {}
            }
            let ended = |control: &Option<Control>| {
                control.as_ref().is_some_and(|c| *c.ended.borrow())
            };
            if ended(&control) && reasoning_only(&step.deltas) {
                continue;
            }
            if !step.delay.is_zero() {
                match control.as_mut() {
                    Some(c) => {
                        tokio::select! {
                            _ = tokio::time::sleep(step.delay) => {}
                            _ = c.ended.wait_for(|ended| *ended) => {}
                        }
                    }
                    None => tokio::time::sleep(step.delay).await,
                }
            }
            let kept;
            let step_deltas = if ended(&control) {
                kept = step
                    .deltas
                    .iter()
                    .filter(|d| !reasoning_only(std::slice::from_ref(*d)))
                    .cloned()
                    .collect::<Vec<_>>();
                &kept
            } else {
                &step.deltas
            };
            let stamped;
            let deltas = if scenario.stamp_send_time {
                stamped = with_send_time(step_deltas);
                &stamped
            } else {
                step_deltas
            };
            for frame in encoder.step(deltas) {
                let text = frame_bytes(dialect, &frame);
                if split {
                    for piece in split_inside_chars(&text) {
                        yield Ok(Bytes::from(piece));
                        tokio::task::yield_now().await;
                    }
                } else {
                    yield Ok(Bytes::from(text));
                }
            }
        }
        if scenario.fault == Fault::NoTerminator {
            return;
        }
        if let Fault::Endless(kind) = scenario.fault {
            let mut endless = std::pin::pin!(endless_body(dialect, encoder.as_mut(), kind));
            while let Some(chunk) = futures::StreamExt::next(&mut endless).await {
                yield chunk;
            }
            return;
        }
        for frame in encoder.finish() {
            yield Ok(Bytes::from(frame_bytes(dialect, &frame)));
        }
    }
}

/// Appends the current wall-clock time (`@<µs since the Unix epoch>;`) to each
/// text delta. Read just before the chunk is yielded: the body is polled when
/// the connection can take it, so this is the moment the bytes are written.
fn with_send_time(deltas: &[Delta]) -> Vec<Delta> {
    let micros = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros())
        .unwrap_or(0);
    deltas
        .iter()
        .map(|delta| match delta {
            Delta::Reasoning(text) => Delta::Reasoning(format!("{text}@{micros};")),
            Delta::Answer(text) => Delta::Answer(format!("{text}@{micros};")),
            other => other.clone(),
        })
        .collect()
}

/// Cuts text into byte pieces that end inside multi-byte characters.
fn split_inside_chars(text: &str) -> Vec<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut pieces = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c.len_utf8() > 1 {
            pieces.push(bytes[start..i + 1].to_vec());
            start = i + 1;
        }
    }
    pieces.push(bytes[start..].to_vec());
    pieces
}
