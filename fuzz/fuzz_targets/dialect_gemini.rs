//! Fuzzes the gemini dialect decoder behind the real framer, split at arbitrary
//! byte positions (first input byte: the split seed). See `common::fuzz_dialect`.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use pensive::server::providers::wire::Dialect;

fuzz_target!(|data: &[u8]| common::fuzz_dialect(Dialect::Gemini, data));
