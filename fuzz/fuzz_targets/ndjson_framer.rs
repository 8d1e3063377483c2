//! Fuzzes the browser's NDJSON `TurnEvent` framer (`turn::framer`). Input: a
//! split seed byte, then the stream. Asserts: no panic; any split gives the
//! same events and errors (with the same line numbers) as one push; every
//! event it accepts is written back by `ndjson_line` as a line that decodes to
//! the same event.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use pensive::turn::framer::{ndjson_line, FrameError, NdjsonFramer};
use pensive::turn::TurnEvent;

fn decode(chunks: &[&[u8]]) -> Vec<Result<TurnEvent, FrameError>> {
    let mut framer = NdjsonFramer::new();
    let mut out = Vec::new();
    for chunk in chunks {
        out.extend(framer.push(chunk));
    }
    out.extend(framer.finish());
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&seed, body)) = data.split_first() else {
        return;
    };
    let whole = decode(&[body]);
    let split = decode(&common::chunks(body, seed));
    assert_eq!(split, whole, "the split changed the events");
    let lines = body.iter().filter(|&&b| b == b'\n').count() + 1;
    for item in &whole {
        match item {
            Ok(event) => {
                let line = ndjson_line(event);
                assert_eq!(
                    decode(&[line.as_bytes()]),
                    vec![Ok(event.clone())],
                    "{line}"
                );
            }
            Err(err) => assert!(
                (1..=lines).contains(&err.line),
                "line {} of {lines}",
                err.line
            ),
        }
    }
});
