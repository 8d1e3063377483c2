//! Helpers shared by the fuzz targets: cutting input into chunks the way a
//! network might, and running one dialect's stream end to end.
#![allow(dead_code)] // each target uses only some helpers

use pensive::server::providers::delta::Delta;
use pensive::server::normalizer::Normalizer;
use pensive::server::providers::wire::Dialect;
use pensive::server::providers::framing::{Framer, Framing};
use pensive::turn::contract::check_stream;
use pensive::turn::TurnEvent;

/// Cuts `bytes` into chunks whose sizes follow `seed`: the low three bits pick
/// the largest chunk (1 byte … the whole input), the rest seed the sizes, so
/// libFuzzer explores splits by mutating one byte.
pub fn chunks(bytes: &[u8], seed: u8) -> Vec<&[u8]> {
    const LARGEST: [usize; 8] = [1, 2, 3, 5, 8, 64, 512, usize::MAX];
    let largest = LARGEST[usize::from(seed & 7)];
    let mut state = u32::from(seed >> 3).wrapping_mul(2_654_435_761) | 1;
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let size = 1 + (state >> 8) as usize % largest.min(rest.len());
        let (head, tail) = rest.split_at(size);
        out.push(head);
        rest = tail;
    }
    out
}

/// The readable text a delta carries (finish reasons included).
fn delta_text_len(delta: &Delta) -> usize {
    match delta {
        Delta::Reasoning(t) | Delta::Answer(t) => t.len(),
        Delta::Finish(Some(reason)) => reason.len(),
        _ => 0,
    }
}

fn event_text_len(event: &TurnEvent) -> usize {
    match event {
        TurnEvent::ThinkingDelta { text } | TurnEvent::AnswerDelta { text } => text.len(),
        _ => 0,
    }
}

/// Longest error message a decoder may give (the provider's words are cut to
/// 300 characters, plus our lead sentence or serde's description).
const MAX_ERROR_BYTES: usize = 2048;
/// Text a decoder may add on its own per event (a mapped finish reason).
const SYNTHETIC_BYTES: usize = 64;

/// Runs `input` (first byte: the split seed) through the framer, `dialect`'s
/// decoder and the normalizer, as the server does for a live stream. Asserts:
/// no panic; each event's deltas are bounded by its own size; errors are
/// short; the resulting `TurnEvent`s keep the event contract and carry no more
/// text than the deltas did.
pub fn fuzz_dialect(dialect: Dialect, input: &[u8]) {
    let Some((&seed, body)) = input.split_first() else {
        return;
    };
    let framing = if dialect.is_ndjson() {
        Framing::Ndjson
    } else {
        Framing::Sse
    };
    let mut framer = Framer::new(framing);
    let mut framed = Vec::new();
    for chunk in chunks(body, seed) {
        framed.extend(framer.push(chunk));
    }
    framed.extend(framer.finish());

    let mut decoder = dialect.decoder();
    let mut normalizer = Normalizer::default();
    let mut events = Vec::new();
    let mut delta_text = 0;
    for item in framed {
        let frame = match item {
            Ok(frame) => frame,
            Err(err) => {
                events.extend(normalizer.fail(
                    &pensive::turn::turn_error::TurnError::Malformed(err.to_string()),
                    0,
                ));
                break;
            }
        };
        let result = decoder.decode(&frame);
        match result {
            Ok(deltas) => {
                let size = frame.data.len();
                assert!(
                    deltas.len() <= size + 4,
                    "{} deltas from {size} bytes",
                    deltas.len()
                );
                let text: usize = deltas.iter().map(delta_text_len).sum();
                assert!(
                    text <= size + SYNTHETIC_BYTES,
                    "{text} text bytes from {size} bytes: {deltas:?}"
                );
                delta_text += text;
                for delta in deltas {
                    events.extend(normalizer.push(delta, 0));
                }
            }
            Err(err) => {
                let message = err.to_string();
                assert!(
                    message.len() <= MAX_ERROR_BYTES,
                    "error too long: {message}"
                );
                events.extend(normalizer.fail(&err, 0));
                break;
            }
        }
    }
    events.extend(normalizer.finish(0));
    if let Err(broken) = check_stream(&events) {
        panic!("contract broken: {broken}: {events:?}");
    }
    let out_text: usize = events.iter().map(event_text_len).sum();
    assert!(
        out_text <= delta_text,
        "{out_text} bytes of events from {delta_text} bytes of deltas"
    );
}
