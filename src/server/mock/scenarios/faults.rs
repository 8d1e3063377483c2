//! What the mock does besides streaming the steps (`Fault`, `Endless`), and
//! the scenarios of a broken or hostile upstream that inject one.

use std::time::Duration;

use super::steps::{answer, ending, reasoned, reasoning};
use super::texts::{ANSWER, REASONING};
use crate::server::providers::delta::Delta;

/// Something the mock does besides streaming the steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    None,
    /// Answer with this HTTP status (and `Retry-After` seconds) instead of a stream.
    Status {
        code: u16,
        retry_after: Option<u64>,
    },
    /// Close the connection after this many steps, without the end marker.
    DropAfter(usize),
    /// Write a malformed JSON line after this many steps.
    MalformedAfter(usize),
    /// Wait this long before the first byte of the body.
    SlowFirst(Duration),
    /// Go silent (connection open) after this many steps.
    StallAfter(usize),
    /// Write every frame in pieces split inside multi-byte characters.
    SplitBytes,
    /// End the body cleanly but without the dialect's end marker.
    NoTerminator,
    /// Write one line of this many bytes (no newline for all of it) after `after` steps.
    HugeLineAfter {
        after: usize,
        bytes: usize,
    },
    /// Write a frame holding bytes that are not UTF-8 after this many steps.
    InvalidUtf8After(usize),
    /// After the steps, write without end (see `Endless`).
    Endless(Endless),
    /// Answer HTTP 500 with an error body that does not end.
    HugeErrorBody,
    /// Answer HTTP 401 with an error message that quotes the request's
    /// credentials, its URL and a bearer token back (a careless gateway).
    EchoSecrets,
}

/// What a hostile or broken upstream writes without end, after the steps and
/// with no end marker. Each stops after `ENDLESS_BYTES` (`Trickle`: after
/// `TRICKLE_FOR`), so a client without bounds still finishes, late.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endless {
    /// `data:` lines and never the blank line that ends an event (SSE); one
    /// line that never ends (NDJSON).
    Event,
    /// Whitespace-only answer text, while the steps' thinking block is open.
    Whitespace,
    /// Reasoning deltas, each under a reasoning item id never seen before
    /// (Responses; the other dialects have no item ids: plain reasoning).
    Items,
    /// Valid reasoning at full speed.
    Reasoning,
    /// A short reasoning chunk every `TRICKLE_PAUSE`.
    Trickle,
}

/// Bytes an endless scenario writes before it gives up (more than the 500 MB
/// the memory test needs a hostile upstream to offer).
pub const ENDLESS_BYTES: usize = 512 * 1024 * 1024;
/// The pause between `trickle` chunks.
pub const TRICKLE_PAUSE: Duration = Duration::from_millis(100);
/// How long `trickle` goes on.
pub const TRICKLE_FOR: Duration = Duration::from_secs(600);

/// The deltas and fault of the scenario `name` when it is one of a broken or
/// hostile upstream, else `None`.
pub(super) fn broken(name: &str) -> Option<(Vec<Delta>, Fault)> {
    // Where the faults that strike mid-reasoning strike.
    let half = reasoning(REASONING).len() / 2;
    Some(match name {
        "drop-thinking" => (reasoning(REASONING), Fault::DropAfter(half)),
        "drop-answer" => {
            let d = [reasoning(REASONING), answer(ANSWER)].concat();
            let fault = Fault::DropAfter(d.len() - 2);
            (d, fault)
        }
        "slow-first" => (
            reasoned(REASONING, ANSWER, 20),
            Fault::SlowFirst(Duration::from_secs(3)),
        ),
        "http-401" | "http-403" | "http-404" | "http-429" | "http-500" | "http-503" => {
            let code = name[5..].parse().unwrap_or(500);
            let retry_after = match code {
                429 => Some(7),
                503 => Some(30),
                _ => None,
            };
            (Vec::new(), Fault::Status { code, retry_after })
        }
        "no-terminator" => (
            [reasoning(REASONING), answer(ANSWER)].concat(),
            Fault::NoTerminator,
        ),
        "huge-line" => (
            reasoned(REASONING, ANSWER, 20),
            Fault::HugeLineAfter {
                after: half,
                bytes: 10 * 1024 * 1024,
            },
        ),
        "invalid-utf8" => (
            reasoned(REASONING, ANSWER, 20),
            Fault::InvalidUtf8After(half),
        ),
        "malformed" => (reasoning(REASONING), Fault::MalformedAfter(2)),
        "multibyte" => (
            [
                reasoning("Ünïcödé reasoning — 漢字 and emoji 🌈🚀."),
                answer("Answer: ✓ 日本語 😀"),
                ending("stop", 5),
            ]
            .concat(),
            Fault::SplitBytes,
        ),
        "stall" => (reasoning(REASONING), Fault::StallAfter(half)),
        "endless-event" | "endless-whitespace" | "many-items" | "endless" | "trickle" => {
            let kind = match name {
                "endless-event" => Endless::Event,
                "endless-whitespace" => Endless::Whitespace,
                "many-items" => Endless::Items,
                "endless" => Endless::Reasoning,
                _ => Endless::Trickle,
            };
            (reasoning(REASONING), Fault::Endless(kind))
        }
        "huge-error" => (Vec::new(), Fault::HugeErrorBody),
        "echo-secrets" => (Vec::new(), Fault::EchoSecrets),
        _ => return None,
    })
}
