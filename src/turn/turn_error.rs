//! Why a turn ended badly, whatever the cause: refused before it started,
//! the provider failed or reported an error, a timeout, the server's own
//! limits, a shutdown, a stream cut off. One enum, so the wire's `error.kind`
//! is chosen in one place (`kind`) and every sentence a user reads about a
//! failed turn is written here (`user_message`); the provider's own words are
//! quoted after our lead sentence, shortened, never with its URL or our key.
//!
//! The browser's own endings (the connection to Pensive lost, the server
//! unreachable) are here too, so the two sides' wording is kept together.
//!
//! Pure data and formatting: no I/O.

use std::time::Duration;

use crate::turn::{ErrorKind, TurnEvent};

/// Why a turn ended badly. `Display` is the user's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TurnError {
    // Refused before the provider is asked.
    #[error("Unknown model {0:?}.")]
    UnknownModel(String),
    #[error(
        "This conversation has {count} messages; the limit is {limit}. Start a new conversation."
    )]
    TooManyMessages { count: usize, limit: usize },
    #[error("A message is {chars} characters long; the limit is {limit}.")]
    MessageTooLong { chars: usize, limit: usize },
    #[error("The request has no messages.")]
    NoMessages,
    #[error("The last message must be a non-empty user message.")]
    LastMessageNotFromUser,
    #[error("This request is {}; the server accepts at most {}. Shorten the message or start a new conversation.", human_bytes(*bytes), human_bytes(*limit))]
    RequestTooLarge { bytes: u64, limit: u64 },
    #[error("You already have {active} answers streaming; the limit is {limit}. Wait for one to finish or stop one, then try again.")]
    TooManyStreaming { active: usize, limit: usize },
    #[error("You started {started} turns in the last minute; the limit is {limit}. Try again in {retry_secs} s.")]
    TooManyPerMinute {
        started: usize,
        limit: usize,
        retry_secs: u64,
    },
    #[error("The server's turn counter failed.")]
    CounterFailed,

    // The provider.
    /// An HTTP error status; the message is built by `from_status`.
    #[error("{message}")]
    Http { status: u16, message: String },
    #[error("{}", .0.message())]
    Network(NetworkFailure),
    #[error("The provider sent data Pensive could not read ({0}).")]
    Malformed(String),
    /// The provider reported an error inside its stream; built by `reported`.
    #[error("{message}")]
    Reported {
        fault: ProviderFault,
        message: String,
    },
    #[error("The provider blocked the prompt (reason: {reason}).")]
    Blocked { reason: String },

    // The turn's own limits and endings.
    #[error("The provider sent more than {}, this server's limit for one turn (PENSIVE_MAX_TURN_BYTES), so the turn was ended; what arrived is kept.", human_bytes(*limit))]
    TooLarge { limit: u64 },
    #[error("The model sent nothing for {} seconds, so the turn was ended. Try again, or raise PENSIVE_FIRST_TOKEN_TIMEOUT_SECS.", .limit.as_secs())]
    FirstTokenTimeout { limit: Duration },
    #[error("The model stopped sending for {} seconds, so the turn was ended; what arrived is kept. Raise PENSIVE_IDLE_TIMEOUT_SECS if your model pauses longer.", .limit.as_secs())]
    IdleTimeout { limit: Duration },
    #[error("This turn ran for {}, this server's limit for one turn (PENSIVE_MAX_TURN_SECS), so it was ended; what arrived is kept.", span(*limit))]
    OverTime { limit: Duration },
    #[error("This turn's log reached {}, the most this server keeps of one turn (PENSIVE_MAX_TURN_BYTES, PENSIVE_MAX_TURN_LOGS_BYTES), so the turn was ended; what arrived is kept.", human_bytes(*limit))]
    LogFull { limit: u64 },
    #[error("The server is restarting, so this turn was ended; what arrived is kept. Try again in a moment.")]
    Shutdown,
    #[error("Stopped.")]
    Stopped,
    #[error("The provider's stream ended before the model finished (no end marker); what arrived is kept. Try again.")]
    CutOff,

    // Between the browser and Pensive (app/turn_client.rs): the server never
    // ends a stream without `done`/`error`, so these mean the connection or
    // something in front of the server failed.
    /// The request never reached the server (the fetch itself failed).
    #[error("Could not reach Pensive. Check that the server is running and the network is up, then press Retry.")]
    Unreachable,
    /// Something answered, but with an error instead of a turn (a proxy's
    /// error page, a refusal that is not the server's own words).
    #[error("Pensive did not start the turn: the server, or a proxy in front of it, answered with an error. Press Retry; if it keeps failing, the server's log says why.")]
    NotStarted,
    /// The server refused the request itself (e.g. too large), in its words.
    #[error("{0}")]
    Refused(String),
    /// The turn's stream broke off, or ended without `done`/`error`.
    #[error("The connection to Pensive was lost. What arrived before it is kept; press Retry once the server is reachable again.")]
    ConnectionLost,
    /// The server no longer holds the turn (it ended longer ago than the
    /// server keeps turns, or its log was dropped to make room).
    #[error("The server no longer holds this turn; what arrived here is kept.")]
    NotHeld,
    /// The server that ran the turn restarted (another run answered).
    #[error(
        "Interrupted: the server restarted. What arrived here is kept; press Retry to ask again."
    )]
    ServerRestarted,
    /// Another replica found the lease of the one running the turn lapsed
    /// (written into the turn's shared log by that replica).
    #[error("Interrupted: the server that ran this turn stopped.")]
    ReplicaStopped,
    /// A line of the turn's stream was not an event.
    #[error("Pensive sent an event this page could not read ({0}). Press Retry; if it keeps failing, reload the page.")]
    UnreadableEvent(String),

    /// `pensive parse`: the failure, at a line of the recording.
    #[error("line {line}: {error}")]
    AtLine { line: usize, error: Box<TurnError> },
}

/// How the connection to the provider failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkFailure {
    Connect,
    TimedOut,
    BrokeOff,
    Failed,
}

impl NetworkFailure {
    fn message(self) -> &'static str {
        match self {
            NetworkFailure::Connect => "Could not connect to the model provider",
            NetworkFailure::TimedOut => "The connection to the model provider timed out",
            NetworkFailure::BrokeOff => {
                "The connection to the model provider broke off mid-response"
            }
            NetworkFailure::Failed => "The request to the model provider failed",
        }
    }
}

/// What a provider's in-stream error says, as each dialect reads its codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderFault {
    Overloaded,
    RateLimited,
    KeyRejected,
    /// The Responses API's wording: its codes do not say key or token.
    CredentialsRejected,
    AccessRefused,
    RequestRejected,
    /// The model cannot serve this request (Ollama: not pulled, or no thinking).
    ModelUnsuitable,
    Internal,
    TimedOut,
    Other,
}

impl ProviderFault {
    fn kind(self) -> ErrorKind {
        match self {
            ProviderFault::RateLimited => ErrorKind::RateLimit,
            ProviderFault::KeyRejected
            | ProviderFault::CredentialsRejected
            | ProviderFault::AccessRefused => ErrorKind::Auth,
            ProviderFault::RequestRejected | ProviderFault::ModelUnsuitable => {
                ErrorKind::BadRequest
            }
            ProviderFault::TimedOut => ErrorKind::Timeout,
            ProviderFault::Overloaded | ProviderFault::Internal | ProviderFault::Other => {
                ErrorKind::Upstream
            }
        }
    }

    fn lead(self) -> &'static str {
        match self {
            ProviderFault::Overloaded => "The provider is overloaded; try again shortly",
            ProviderFault::RateLimited => "The provider is rate limiting requests",
            ProviderFault::KeyRejected => "The provider rejected the API key",
            ProviderFault::CredentialsRejected => "The provider rejected the credentials",
            ProviderFault::AccessRefused => "The provider refused access",
            ProviderFault::RequestRejected => "The provider rejected the request",
            ProviderFault::Internal => "The provider had an internal error",
            ProviderFault::TimedOut => "The provider timed out",
            ProviderFault::ModelUnsuitable | ProviderFault::Other => {
                "The provider reported an error"
            }
        }
    }
}

impl TurnError {
    /// The wire's `error.kind` (the one place this is mapped).
    pub fn kind(&self) -> ErrorKind {
        match self {
            TurnError::UnknownModel(_)
            | TurnError::TooManyMessages { .. }
            | TurnError::MessageTooLong { .. }
            | TurnError::NoMessages
            | TurnError::LastMessageNotFromUser
            | TurnError::RequestTooLarge { .. }
            | TurnError::Blocked { .. } => ErrorKind::BadRequest,
            TurnError::TooManyStreaming { .. } | TurnError::TooManyPerMinute { .. } => {
                ErrorKind::RateLimit
            }
            TurnError::CounterFailed => ErrorKind::Internal,
            TurnError::Http { status, .. } => match status {
                401 | 403 => ErrorKind::Auth,
                429 => ErrorKind::RateLimit,
                400 | 404 | 409 | 413 | 422 => ErrorKind::BadRequest,
                408 | 504 => ErrorKind::Timeout,
                _ => ErrorKind::Upstream,
            },
            TurnError::Network(_) => ErrorKind::Network,
            TurnError::Malformed(_) | TurnError::TooLarge { .. } => ErrorKind::Upstream,
            TurnError::Reported { fault, .. } => fault.kind(),
            TurnError::FirstTokenTimeout { .. }
            | TurnError::IdleTimeout { .. }
            | TurnError::OverTime { .. } => ErrorKind::Timeout,
            TurnError::Shutdown
            | TurnError::CutOff
            | TurnError::Stopped
            | TurnError::LogFull { .. } => ErrorKind::Interrupted,
            TurnError::Unreachable | TurnError::ConnectionLost => ErrorKind::Network,
            TurnError::NotHeld | TurnError::ServerRestarted | TurnError::ReplicaStopped => {
                ErrorKind::Interrupted
            }
            TurnError::NotStarted => ErrorKind::Upstream,
            TurnError::Refused(_) => ErrorKind::BadRequest,
            TurnError::UnreadableEvent(_) => ErrorKind::Internal,
            TurnError::AtLine { error, .. } => error.kind(),
        }
    }

    /// What the user reads (the `error` event's `message`).
    pub fn user_message(&self) -> String {
        self.to_string()
    }

    /// The terminal event that reports this failure: `stopped` for a Stop,
    /// else an `error`.
    pub fn event(&self) -> TurnEvent {
        match self {
            TurnError::Stopped => TurnEvent::Stopped,
            _ => TurnEvent::error(self.kind(), self.user_message()),
        }
    }

    /// An HTTP error status, with the provider's own words.
    pub fn from_status(status: u16, detail: &str) -> Self {
        let redirected;
        let lead = match status {
            401 => "The provider rejected the API key (401)",
            403 => "The provider refused access (403)",
            404 => "The provider does not know this model or path (404)",
            429 => "The provider is rate limiting requests (429)",
            503 => "The provider is overloaded or down for maintenance (503)",
            400 | 422 => "The provider rejected the request",
            // Redirects are not followed: they would carry the key elsewhere.
            300..=399 => {
                redirected = format!(
                    "The provider redirected the request ({status}); Pensive does not follow \
                     redirects, which would send the key and the conversation elsewhere: set \
                     the base URL to the address it moved to"
                );
                &redirected
            }
            500..=599 => "The provider had an internal error",
            _ => "The provider answered with an error",
        };
        TurnError::Http {
            status,
            message: with_detail(lead, detail),
        }
    }

    /// Adds when to try again (the provider's `Retry-After`, in seconds) to an
    /// HTTP error's message.
    pub fn with_retry_after(mut self, seconds: Option<u64>) -> Self {
        if let (Some(seconds), TurnError::Http { message, .. }) = (seconds, &mut self) {
            message.push_str(&format!(" Try again in {seconds} s."));
        }
        self
    }

    /// An error the provider reported inside its stream: our lead sentence
    /// for `fault`, then the provider's own words (shortened).
    pub fn reported(fault: ProviderFault, detail: &str) -> Self {
        TurnError::Reported {
            fault,
            message: with_detail(fault.lead(), detail),
        }
    }
}

/// Most characters of the provider's own words quoted in a message.
const DETAIL_CHARS: usize = 300;

/// "Lead." or "Lead: detail", the detail without anything shaped like a
/// credential (`scrub`) and cut to `DETAIL_CHARS` at a space. Cutting inside
/// a word could leave the start of a key or URL that the server's own
/// redaction (which matches them whole) would then miss.
fn with_detail(lead: &str, detail: &str) -> String {
    let detail = crate::turn::scrub::credentials(detail.trim());
    if detail.is_empty() {
        return format!("{lead}.");
    }
    match detail.char_indices().nth(DETAIL_CHARS) {
        None => format!("{lead}: {detail}"),
        Some((cut, _)) => {
            let kept = detail[..cut]
                .rfind(char::is_whitespace)
                .map_or("", |space| detail[..space].trim_end());
            format!("{lead}: {kept}…")
        }
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

/// A duration as the over-time message says it: whole minutes as minutes,
/// anything else in seconds.
fn span(limit: Duration) -> String {
    let secs = limit.as_secs_f64();
    let (count, unit) = if secs >= 60.0 && secs % 60.0 == 0.0 {
        (secs / 60.0, "minute")
    } else {
        (secs, "second")
    };
    if count == 1.0 {
        format!("1 {unit}")
    } else {
        format!("{count} {unit}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_bytes(64 * 1024 * 1024), "64 MiB");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(100), "100 bytes");
        assert!(TurnError::TooLarge { limit: 1 << 20 }
            .user_message()
            .contains("more than 1 MiB"));
    }

    #[test]
    fn http_statuses_map_to_kinds_and_say_when_to_retry() {
        let limited = TurnError::from_status(429, "Slow down.").with_retry_after(Some(30));
        assert_eq!(limited.kind(), ErrorKind::RateLimit);
        assert_eq!(
            limited.user_message(),
            "The provider is rate limiting requests (429): Slow down. Try again in 30 s."
        );
        assert_eq!(TurnError::from_status(401, "").kind(), ErrorKind::Auth);
        assert_eq!(TurnError::from_status(504, "").kind(), ErrorKind::Timeout);
        assert_eq!(TurnError::from_status(500, "").kind(), ErrorKind::Upstream);
        assert_eq!(
            TurnError::from_status(500, "").user_message(),
            "The provider had an internal error."
        );
    }

    #[test]
    fn the_providers_words_follow_our_lead_shortened() {
        let long = "word ".repeat(100);
        let reported = TurnError::reported(ProviderFault::KeyRejected, &long);
        assert_eq!(reported.kind(), ErrorKind::Auth);
        assert_eq!(
            reported.user_message(),
            format!(
                "The provider rejected the API key: {}…",
                "word ".repeat(60).trim_end()
            )
        );
    }

    #[test]
    fn the_providers_words_are_cut_between_words_and_lose_their_credentials() {
        // A URL across the 300th character goes whole: half of it would
        // escape the server's redaction of the configured address.
        let detail = format!("{} http://10.1.2.3:8000/v1/chat", "a".repeat(290));
        let message = TurnError::from_status(401, &detail).user_message();
        assert!(!message.contains("http"), "{message}");
        assert!(message.ends_with('…'), "{message}");
        let echoed = "Invalid key sk-live-0123456789abcdef; send Bearer eyJ0eXAi.OiJKV1Qi";
        let message = TurnError::from_status(401, echoed).user_message();
        assert_eq!(
            message,
            "The provider rejected the API key (401): Invalid key [redacted]; send Bearer [redacted]"
        );
    }

    #[test]
    fn the_browsers_endings_are_errors_of_their_kind_that_say_what_is_kept() {
        let lost = TurnError::ConnectionLost.event();
        assert!(lost.is_terminal());
        assert_eq!(
            lost,
            TurnEvent::error(
                ErrorKind::Network,
                "The connection to Pensive was lost. What arrived before it is kept; press Retry once the server is reachable again."
            )
        );
        assert_eq!(TurnError::Unreachable.kind(), ErrorKind::Network);
        assert!(TurnError::Unreachable
            .user_message()
            .starts_with("Could not reach Pensive."));
        assert_eq!(TurnError::NotStarted.kind(), ErrorKind::Upstream);
        let large = TurnError::RequestTooLarge {
            bytes: 70_000,
            limit: 65_536,
        };
        assert_eq!(large.kind(), ErrorKind::BadRequest);
        assert!(large
            .user_message()
            .starts_with("This request is 68.4 KiB; the server accepts at most 64 KiB."));
        // The server's own refusal is shown in its words, unchanged.
        let refused = TurnError::Refused("The request is too large.".into());
        assert_eq!(refused.kind(), ErrorKind::BadRequest);
        assert_eq!(refused.user_message(), "The request is too large.");
        assert_eq!(
            TurnError::UnreadableEvent("line 1".into()).kind(),
            ErrorKind::Internal
        );
    }

    #[test]
    fn the_turns_own_endings_have_their_kinds_and_say_what_to_do() {
        let over = TurnError::OverTime {
            limit: Duration::from_secs(1800),
        };
        assert_eq!(over.kind(), ErrorKind::Timeout);
        assert!(over
            .user_message()
            .starts_with("This turn ran for 30 minutes,"));
        assert!(TurnError::OverTime {
            limit: Duration::from_secs(90)
        }
        .user_message()
        .starts_with("This turn ran for 90 seconds,"));
        assert_eq!(TurnError::Shutdown.kind(), ErrorKind::Interrupted);
        assert_eq!(TurnError::CutOff.kind(), ErrorKind::Interrupted);
        let idle = TurnError::IdleTimeout {
            limit: Duration::from_secs(120),
        };
        assert!(idle.user_message().contains("PENSIVE_IDLE_TIMEOUT_SECS"));
        let at = TurnError::AtLine {
            line: 3,
            error: Box::new(TurnError::Malformed("bad".into())),
        };
        assert_eq!(at.kind(), ErrorKind::Upstream);
        assert_eq!(
            at.user_message(),
            "line 3: The provider sent data Pensive could not read (bad)."
        );
    }
}
