//! Ollama native chat (`POST {base}/api/chat`, NDJSON: one JSON object a line):
//! `message.thinking` becomes reasoning, `message.content` the answer, the
//! `done` line usage and the finish reason. Also writes the same lines for the
//! mock upstream.
//!
//! The request (`request`) and the decoding (`decode`) each have a file;
//! the mock upstream's writer is `mock::encoders::ollama`.

mod decode;
mod request;

pub(crate) use decode::OllamaDecoder;
pub(crate) use request::build_request;
