//! The pure core shared by server and browser: the wire contract (`TurnEvent`),
//! the request and model-list types, the NDJSON framer, the turn reducer and
//! the persisted model and its versions of a turn, and search in it.
//! No I/O and no Leptos here: everything is tested natively.

pub mod block_label;
pub mod contract;
pub mod duration;
pub mod effort;
pub mod event;
pub mod export;
pub mod framer;
pub mod headline;
pub mod json;
pub mod log_line;
pub mod message;
pub mod public_model;
pub mod reasoning_source;
pub mod reducer;
pub mod replay;
pub mod request;
pub mod scrub;
pub mod search;
pub mod tool;
pub mod tool_listing;
pub mod turn_error;
pub mod turn_footer;
pub mod versions;

pub use effort::Effort;
pub use event::{ErrorKind, TurnEvent, Usage};
pub use public_model::PublicModel;
pub use reasoning_source::ReasoningSource;
pub use request::{AnswerNow, ChatMessage, ChatRequest, Role};
pub use tool::{Approval, Decision, ToolCall, ToolStatus};
