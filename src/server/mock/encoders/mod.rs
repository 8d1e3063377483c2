//! Writing the dialects' streams (mock upstream): a script of `Delta`s in, the
//! events a real provider would send out. Each dialect's encoder is the
//! reverse of its decoder in `providers`, and the round-trip tests beside each
//! encoder hold them together.

pub mod anthropic;
pub mod gemini;
pub mod ollama;
pub mod openai_chat;
pub mod responses;
#[cfg(test)]
mod test_support;

use crate::server::providers::delta::Delta;
use crate::server::providers::framing::WireEvent;
use crate::server::providers::wire::Dialect;

/// Writes a script of deltas in a dialect's wire format (mock upstream).
pub trait Encoder: Send {
    /// Frames sent before the first step (e.g. `message_start`).
    fn start(&mut self) -> Vec<WireEvent>;
    /// Frames for one scripted chunk, in order.
    fn step(&mut self, deltas: &[Delta]) -> Vec<WireEvent>;
    /// Frames that end the response (e.g. `[DONE]`, `message_stop`).
    fn finish(&mut self) -> Vec<WireEvent>;
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

/// Gathers the script's calls whole, `(name, arguments JSON)`, for the
/// dialects that send each call in one piece (Gemini, Ollama). True when
/// `delta` was a call's.
fn gather_call(calls: &mut Vec<(String, String)>, delta: &Delta) -> bool {
    match delta {
        Delta::ToolCallStart { name, .. } => calls.push((name.clone(), String::new())),
        Delta::ToolCallArguments { text, .. } => {
            if let Some((_, arguments)) = calls.last_mut() {
                arguments.push_str(text);
            }
        }
        Delta::ToolCallWhole { arguments, .. } => {
            if let Some((_, text)) = calls.last_mut() {
                *text = arguments.to_string();
            }
        }
        _ => return false,
    }
    true
}
