//! Gemini (`POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`,
//! SSE of `GenerateContentResponse` chunks): parts with `thought: true` become
//! reasoning, other text parts the answer; a thought part with only a
//! `thoughtSignature` is hidden reasoning (opaque, its block open from that
//! part until the answer starts); `usageMetadata` (cumulative in every chunk)
//! is reported once, with the finish reason.
//!
//! The request (`request`) and the decoding (`decode`) each have a file;
//! the mock upstream's writer is `mock::encoders::gemini`.

mod decode;
mod request;

pub use decode::GeminiDecoder;
pub use request::{build_request, request_body};
