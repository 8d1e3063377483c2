//! Gemini (`POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`,
//! SSE of `GenerateContentResponse` chunks): parts with `thought: true` become
//! reasoning, other text parts the answer; a thought part with only a
//! `thoughtSignature` is hidden reasoning (opaque, its block open from that
//! part until the answer starts); `usageMetadata` (cumulative in every chunk)
//! is reported once, with the finish reason. A `functionCall` part is a
//! tool call whose arguments arrive whole; its `thoughtSignature` is kept as
//! continuity and sent back on the same part (`request`).
//!
//! The request (`request`) and the decoding (`decode`) each have a file;
//! the mock upstream's writer is `mock::encoders::gemini`.

mod decode;
mod request;

pub(crate) use decode::GeminiDecoder;
pub(crate) use request::build_request;
