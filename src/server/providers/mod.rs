//! Model providers: each dialect turns a `ChatRequest` into the provider's real
//! request and its real stream into `Delta`s. One file per wire dialect; the
//! normalizer (not the dialects) enforces the event rules.

pub mod anthropic;
pub mod gemini;
pub mod http;
pub mod ollama;
pub mod openai_chat;
pub mod responses;
#[cfg(test)]
mod test_support;
pub mod wire;

use futures::stream::BoxStream;

use super::delta::Delta;
use crate::turn::{ChatRequest, ErrorKind};
use wire::{Dialect, UpstreamModel, UpstreamRequest};

/// A provider's stream: each item is one upstream chunk's deltas, in order.
pub type DeltaStream = BoxStream<'static, Result<Vec<Delta>, ProviderError>>;

/// Why a provider call failed. Messages are safe to show a user: they never
/// contain the upstream URL or the API key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    #[error("{message}")]
    Http { status: u16, message: String },
    #[error("{0}")]
    Network(String),
    #[error("The provider sent data Pensive could not read ({0}).")]
    Malformed(String),
    #[error("{0}")]
    Config(String),
    /// The provider reported an error inside the stream (e.g. Anthropic `error`).
    #[error("{message}")]
    Stream { kind: ErrorKind, message: String },
    /// The turn received more than `PENSIVE_MAX_TURN_BYTES` from the provider.
    #[error("The provider sent more than {}, this server's limit for one turn (PENSIVE_MAX_TURN_BYTES), so the turn was ended; what arrived is kept.", human_bytes(*limit))]
    TooLarge { limit: u64 },
}

impl ProviderError {
    /// The wire's `error.kind` for this failure (the one place this is mapped).
    pub fn kind(&self) -> ErrorKind {
        match self {
            ProviderError::Http { status, .. } => match status {
                401 | 403 => ErrorKind::Auth,
                429 => ErrorKind::RateLimit,
                400 | 404 | 409 | 413 | 422 => ErrorKind::BadRequest,
                408 | 504 => ErrorKind::Timeout,
                _ => ErrorKind::Upstream,
            },
            ProviderError::Network(_) => ErrorKind::Network,
            ProviderError::Malformed(_) | ProviderError::TooLarge { .. } => ErrorKind::Upstream,
            ProviderError::Config(_) => ErrorKind::Config,
            ProviderError::Stream { kind, .. } => *kind,
        }
    }

    /// A user-facing message for an HTTP status, with the provider's own words.
    pub fn from_status(status: u16, detail: &str) -> Self {
        let lead = match status {
            401 => "The provider rejected the API key (401)",
            403 => "The provider refused access (403)",
            404 => "The provider does not know this model or path (404)",
            429 => "The provider is rate limiting requests (429)",
            503 => "The provider is overloaded or down for maintenance (503)",
            400 | 422 => "The provider rejected the request",
            500..=599 => "The provider had an internal error",
            _ => "The provider answered with an error",
        };
        ProviderError::Http {
            status,
            message: with_detail(lead, detail),
        }
    }

    /// Adds when to try again (the provider's `Retry-After`, in seconds) to an
    /// HTTP error's message.
    pub fn with_retry_after(mut self, seconds: Option<u64>) -> Self {
        if let (Some(seconds), ProviderError::Http { message, .. }) = (seconds, &mut self) {
            message.push_str(&format!(" Try again in {seconds} s."));
        }
        self
    }

    /// An error the provider reported inside its stream: our lead sentence,
    /// then the provider's own words (shortened).
    pub fn stream(kind: ErrorKind, lead: &str, detail: &str) -> Self {
        ProviderError::Stream {
            kind,
            message: with_detail(lead, detail),
        }
    }

    /// A network failure described without the URL (reqwest's text contains it).
    pub fn from_reqwest(err: &reqwest::Error) -> Self {
        let what = if err.is_connect() {
            "could not connect to the model provider"
        } else if err.is_timeout() {
            "the connection to the model provider timed out"
        } else if err.is_decode() || err.is_body() {
            "the connection to the model provider broke off mid-response"
        } else {
            "the request to the model provider failed"
        };
        ProviderError::Network(capitalize(what))
    }
}

/// "Lead." or "Lead: detail" with the detail cut to 300 characters.
fn with_detail(lead: &str, detail: &str) -> String {
    let detail = detail.trim();
    if detail.is_empty() {
        format!("{lead}.")
    } else {
        let short: String = detail.chars().take(300).collect();
        format!("{lead}: {short}")
    }
}

/// A byte count as people write it: `64 MiB`, `1.5 KiB`, `100 bytes`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes >= size {
            return if bytes.is_multiple_of(size) {
                format!("{} {unit}", bytes / size)
            } else {
                format!("{:.1} {unit}", bytes as f64 / size as f64)
            };
        }
    }
    format!("{bytes} bytes")
}

/// Most bytes of an error response read for its message: the provider's own
/// words fit many times over, and an endless error body costs nothing more.
pub const ERROR_BODY_LIMIT: usize = 64 * 1024;

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

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
/// `ProviderError::TooLarge` once the provider has sent more than `max_bytes`
/// (0: no limit) in this turn.
pub async fn open(
    dialect: Dialect,
    model: &UpstreamModel,
    request: &ChatRequest,
    max_bytes: u64,
) -> Result<DeltaStream, ProviderError> {
    let budget = ByteBudget::new(max_bytes);
    match dialect {
        Dialect::Chat => openai_chat::open(model, request, budget).await,
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
    pub fn spend(&mut self, bytes: usize) -> Result<(), ProviderError> {
        self.received = self.received.saturating_add(bytes as u64);
        if self.limit > 0 && self.received > self.limit {
            return Err(ProviderError::TooLarge { limit: self.limit });
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

    #[test]
    fn a_byte_budget_refuses_the_bytes_past_its_limit_and_zero_means_none() {
        let mut budget = ByteBudget::new(10);
        assert!(budget.spend(6).is_ok());
        assert!(budget.spend(4).is_ok(), "exactly the limit is fine");
        let over = budget.spend(1).unwrap_err();
        assert_eq!(over, ProviderError::TooLarge { limit: 10 });
        assert_eq!(over.kind(), ErrorKind::Upstream);
        let mut unlimited = ByteBudget::new(0);
        assert!(unlimited.spend(usize::MAX).is_ok());
        assert!(unlimited.spend(usize::MAX).is_ok());
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_bytes(64 * 1024 * 1024), "64 MiB");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(100), "100 bytes");
        assert!(ProviderError::TooLarge { limit: 1 << 20 }
            .to_string()
            .contains("more than 1 MiB"));
    }
}
