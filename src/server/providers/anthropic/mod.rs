//! Anthropic Messages (`POST {base}/v1/messages`, SSE with `event:` names):
//! `thinking` blocks become reasoning (each block its own), `redacted_thinking`
//! opaque reasoning, `text` blocks the answer, `tool_use` blocks tool calls
//! (their input streams as `input_json_delta`). A reasoning block opens at
//! its `content_block_start` and closes at its `content_block_stop`, so
//! hidden reasoning is timed from its first sign to its end. In a message
//! that calls a tool, each reasoning block also goes out whole (text and
//! signature, or redacted data) as continuity: the next request of the loop
//! must echo it unchanged.
//!
//! The request (`request`) and the decoding (`decode`) each have a file;
//! the mock upstream's writer is `mock::encoders::anthropic`.

mod decode;
mod request;

pub(crate) use decode::AnthropicDecoder;
pub(crate) use request::{build_request, explain_refusal};
