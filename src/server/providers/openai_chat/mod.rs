//! OpenAI-compatible chat completions (`POST {base}/chat/completions`, SSE).
//! Live turns go through async-openai's `byot` calls with our own chunk types
//! (its typed delta drops the reasoning fields reasoning servers add); the same
//! types decode recordings (`pensive parse`). The request (`request`), the
//! decoding (`decode`) and the live transport (`transport`) each have a file;
//! the mock upstream's writer is `mock::encoders::openai_chat`.

pub(crate) mod control;
mod decode;
mod request;
mod transport;

pub use control::end_reasoning;
pub(crate) use decode::ChatDecoder;
pub(crate) use request::build_request;
pub(crate) use transport::open;
