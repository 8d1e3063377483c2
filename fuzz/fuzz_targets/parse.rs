//! Fuzzes `pensive parse`: any bytes (framing, every dialect decoder, the
//! normalizer) must give a stream that keeps the event contract, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pensive::server::parse::{parse_recording, ParseOptions};
use pensive::server::providers::wire::Dialect;
use pensive::turn::contract::check_stream;

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let dialect = Dialect::ALL.get(usize::from(control) % 6).copied();
    let options = ParseOptions {
        dialect,
        ..ParseOptions::default()
    };
    if let Ok(events) = parse_recording(rest, &options) {
        if let Err(e) = check_stream(&events) {
            panic!("contract broken: {e}: {events:?}");
        }
    }
});
