//! OpenAI Responses (`POST {base}/responses`, SSE of typed `data:` events):
//! reasoning summaries and reasoning text become reasoning (each summary part
//! its own block), reasoning items without text become opaque reasoning,
//! `output_text` becomes the answer. A reasoning item's block opens when the
//! item is added (the first sign the model reasons, seconds before any text
//! or its `done` when the reasoning is hidden) and closes when it is done.
//!
//!
//! The request (`request`) and the decoding (`decode`) each have a file,
//! the decoder's view of the stream's events another (`events`), and the
//! bounded memory of item ids it keeps (`recent_items`);
//! the mock upstream's writer is `mock::encoders::responses`.

mod decode;
mod events;
mod recent_items;
mod request;

pub(crate) use decode::ResponsesDecoder;
pub(crate) use request::{build_request, openai_word};
