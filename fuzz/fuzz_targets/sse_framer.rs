//! Fuzzes the upstream framer (`server::providers::framing::Framer`, SSE and NDJSON framing).
//! Input: a split seed byte, a line-limit byte, then the stream. Asserts: no
//! panic; nothing held between pushes grows past the line limit; no event
//! carries more data than the limit; splitting the bytes anywhere gives the
//! same events and errors as one push.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use pensive::server::providers::framing::{Framer, Framing, FramingError, WireEvent};

fn frame(framing: Framing, limit: usize, chunks: &[&[u8]]) -> Vec<Result<WireEvent, FramingError>> {
    let mut framer = Framer::with_line_limit(framing, limit);
    let mut out = Vec::new();
    for chunk in chunks {
        out.extend(framer.push(chunk));
        assert!(
            framer.longest_buffer() <= limit,
            "{} bytes held, limit {limit}",
            framer.longest_buffer()
        );
    }
    out.extend(framer.finish());
    out
}

fuzz_target!(|data: &[u8]| {
    let [seed, limit, body @ ..] = data else {
        return;
    };
    // 1..=256 bytes: small enough that the fuzzer crosses it all the time.
    let limit = usize::from(*limit) + 1;
    let lines = body.iter().filter(|&&b| b == b'\n').count() + 1;
    for framing in [Framing::Sse, Framing::Ndjson] {
        let whole = frame(framing, limit, &[body]);
        for item in &whole {
            let line = match item {
                Ok(framed) => {
                    assert!(framed.data.len() <= limit, "event data over the limit");
                    framed.line
                }
                Err(
                    FramingError::InvalidUtf8 { line }
                    | FramingError::TooLong { line, .. }
                    | FramingError::EventTooLong { line, .. },
                ) => *line,
            };
            assert!((1..=lines).contains(&line), "line {line} of {lines}");
        }
        let split = frame(framing, limit, &common::chunks(body, *seed));
        assert_eq!(split, whole, "{framing:?}: the split changed the events");
    }
});
