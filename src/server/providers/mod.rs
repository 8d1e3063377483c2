//! Model providers: each dialect turns a `ChatRequest` into the provider's real
//! request and its real stream into `Delta`s. One directory per wire dialect,
//! request building and decoding apart; `framing` cuts response bytes into
//! events, `decode_stream` is the one path from those bytes to deltas; the
//! normalizer (not the dialects) enforces the event rules.
//!
//! This is the server's lowest layer: it uses `turn` and nothing else of the
//! crate (only its tests run deltas through the normalizer). The rest of the server (normalizer, turn service, mock, config)
//! builds on its vocabulary (`Delta`, `WireEvent`, `Framer`, `Secret`), never
//! the other way round.

pub(crate) mod anthropic;
pub(crate) mod decode_stream;
pub mod delta;
pub mod framing;
pub(crate) mod gemini;
pub(crate) mod http;
pub(crate) mod ollama;
pub mod openai_chat;
pub(crate) mod reasoning;
pub(crate) mod responses;
pub mod secret;
#[cfg(test)]
pub(crate) mod test_support;
pub mod wire;

use futures::stream::BoxStream;

use crate::turn::turn_error::TurnError;
use crate::turn::ChatRequest;
use delta::Delta;
use wire::{Dialect, UpstreamModel, UpstreamRequest};

/// A provider's stream: each item is one upstream chunk's deltas, in order.
pub type DeltaStream = BoxStream<'static, Result<Vec<Delta>, TurnError>>;

/// Where a chat-completions stream leaves the completion id of its chunks
/// (llama.cpp's reasoning control names the completion by it).
pub type CompletionId = std::sync::Arc<std::sync::OnceLock<String>>;

/// Most bytes of an error response read for its message: the provider's own
/// words fit many times over, and an endless error body costs nothing more.
pub const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// The provider's real HTTP request for a turn, per dialect.
pub fn build_request(
    dialect: Dialect,
    model: &UpstreamModel,
    request: &ChatRequest,
) -> UpstreamRequest {
    match dialect {
        Dialect::Chat => openai_chat::build_request(model, request),
        Dialect::Responses => responses::build_request(model, request),
        Dialect::Anthropic => anthropic::build_request(model, request),
        Dialect::Gemini => gemini::build_request(model, request),
        Dialect::Ollama => ollama::build_request(model, request),
    }
}

/// Opens the model's stream for a request in `dialect`. The stream ends with
/// `TurnError::TooLarge` once the provider has sent more than `max_bytes`
/// (0: no limit) in this turn. A chat-completions stream leaves its
/// completion id in `completion_id`, if given.
pub async fn open(
    dialect: Dialect,
    model: &UpstreamModel,
    request: &ChatRequest,
    max_bytes: u64,
    completion_id: Option<CompletionId>,
) -> Result<DeltaStream, TurnError> {
    let budget = ByteBudget::new(max_bytes);
    match dialect {
        Dialect::Chat => openai_chat::open(model, request, budget, completion_id).await,
        Dialect::Anthropic => {
            let upstream = build_request(dialect, model, request);
            http::open(dialect, upstream, budget)
                .await
                .map_err(anthropic::explain_refusal)
        }
        dialect => http::open(dialect, build_request(dialect, model, request), budget).await,
    }
}

/// Counts the bytes of one turn's response body against its limit.
#[derive(Debug, Clone, Copy)]
pub struct ByteBudget {
    limit: u64,
    received: u64,
}

impl ByteBudget {
    /// A budget of `limit` bytes; 0 means no limit.
    pub fn new(limit: u64) -> Self {
        Self { limit, received: 0 }
    }

    /// Counts `bytes` more; `Err` once the total passes the limit.
    pub fn spend(&mut self, bytes: usize) -> Result<(), TurnError> {
        self.received = self.received.saturating_add(bytes as u64);
        if self.limit > 0 && self.received > self.limit {
            return Err(TurnError::TooLarge { limit: self.limit });
        }
        Ok(())
    }
}

/// A `Retry-After` header in seconds. The HTTP-date form is read too, as the
/// seconds from now (a provider's clock skew only shifts the advice).
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<u64> {
    let value = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(seconds);
    }
    let when = httpdate::parse_http_date(value).ok()?;
    let wait = when.duration_since(std::time::SystemTime::now()).ok()?;
    Some(wait.as_secs().max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::ErrorKind;

    #[test]
    fn a_byte_budget_refuses_the_bytes_past_its_limit_and_zero_means_none() {
        let mut budget = ByteBudget::new(10);
        assert!(budget.spend(6).is_ok());
        assert!(budget.spend(4).is_ok(), "exactly the limit is fine");
        let over = budget.spend(1).unwrap_err();
        assert_eq!(over, TurnError::TooLarge { limit: 10 });
        assert_eq!(over.kind(), ErrorKind::Upstream);
        let mut unlimited = ByteBudget::new(0);
        assert!(unlimited.spend(usize::MAX).is_ok());
        assert!(unlimited.spend(usize::MAX).is_ok());
    }
}
