//! Writing the dialects' streams (mock upstream): a script of `Delta`s in, the
//! events a real provider would send out. Each dialect's encoder is the
//! reverse of its decoder in `providers`, and the round-trip tests beside each
//! encoder hold them together.

pub mod anthropic;
pub mod gemini;
pub mod ollama;
pub mod openai_chat;
pub mod responses;

use crate::server::delta::Delta;
use crate::server::providers::wire::Dialect;

/// One event the mock upstream writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireFrame {
    pub event: Option<String>,
    pub data: String,
}

impl WireFrame {
    /// A frame with only a data payload.
    pub fn data(data: impl Into<String>) -> Self {
        Self {
            event: None,
            data: data.into(),
        }
    }

    /// A frame with an SSE event name.
    pub fn named(event: &str, data: impl Into<String>) -> Self {
        Self {
            event: Some(event.to_owned()),
            data: data.into(),
        }
    }
}

/// Writes a script of deltas in a dialect's wire format (mock upstream).
pub trait Encoder: Send {
    /// Frames sent before the first step (e.g. `message_start`).
    fn start(&mut self) -> Vec<WireFrame>;
    /// Frames for one scripted chunk, in order.
    fn step(&mut self, deltas: &[Delta]) -> Vec<WireFrame>;
    /// Frames that end the response (e.g. `[DONE]`, `message_stop`).
    fn finish(&mut self) -> Vec<WireFrame>;
}

/// A fresh encoder writing one response of `dialect` for `model`.
pub fn encoder(dialect: Dialect, model: &str) -> Box<dyn Encoder> {
    match dialect {
        Dialect::Chat => Box::new(openai_chat::ChatEncoder::new(model)),
        Dialect::Responses => Box::new(responses::ResponsesEncoder::new(model)),
        Dialect::Anthropic => Box::new(anthropic::AnthropicEncoder::new(model)),
        Dialect::Gemini => Box::new(gemini::GeminiEncoder::new(model)),
        Dialect::Ollama => Box::new(ollama::OllamaEncoder::new(model)),
    }
}
