//! One way to read JSON, in both builds.
//!
//! serde_json instantiates a type's whole deserializer once per kind of input:
//! `from_str` (its `StrRead`) and `from_slice` (`SliceRead`) are two copies of
//! every visitor in the browser bundle. The server-function client reads its
//! replies with `from_slice`, so everything else in the browser reads that way
//! too: a `&str` is valid UTF-8 already, and `from_slice` reads it the same.
//! (2026-12-05, with reading stored records without `from_value`: 24 KB of
//! code before wasm-opt, 2.7 KB brotli; docs/benchmarks-browser.md, B.)

use serde::de::DeserializeOwned;

/// `serde_json::from_str`, through the one reader the browser build keeps.
pub fn read<T: DeserializeOwned>(raw: &str) -> serde_json::Result<T> {
    serde_json::from_slice(raw.as_bytes())
}
