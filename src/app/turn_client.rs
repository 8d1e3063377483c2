//! Browser side of a turn the server runs (design §2, "The turn's log"):
//! starts it (`chat`) or attaches to it (`turn_events`), reads its log's
//! lines, and when the connection breaks or falls silent (no heartbeat),
//! attaches again after the last line it has, with backoff, until the
//! turn's terminal event. The caller always hears of the end: the terminal
//! event, a turn the server no longer holds, or an error in plain words
//! (`TurnError`'s) when the turn could not start at all.

use futures::{FutureExt, StreamExt};

use super::api::{chat, turn_events, NOT_HELD};
use super::browser::sleep_ms;
use crate::turn::framer::NdjsonFramer;
use crate::turn::log_line::{LogLine, Stamp};
use crate::turn::turn_error::TurnError;
use crate::turn::{ChatRequest, TurnEvent};

/// No byte for this long (three heartbeats) means the connection is dead.
const SILENCE_MS: u32 = 30_000;
/// Waits between attempts to attach again, the last one repeated.
const BACKOFF_MS: [u32; 6] = [500, 1_000, 2_000, 4_000, 8_000, 15_000];
/// Attempts before giving up (about ten minutes of backoff).
const MAX_ATTEMPTS: usize = 45;

/// What the caller hears.
#[derive(Debug, Clone, PartialEq)]
pub enum Heard {
    /// A line of the turn's log.
    Event(Option<Stamp>, TurnEvent),
    /// The server is there: its time in the turn now, and which run of it
    /// holds the turn (on a connection's first line).
    Heartbeat { at_ms: u64, boot: Option<String> },
    /// The connection went; attaching again.
    Reconnecting,
    /// The server does not hold the turn; `boot` names the run that said so.
    NotHeld { boot: String },
}

/// How the turn is reached.
pub enum Start {
    /// Ask the server to start it.
    New(ChatRequest),
    /// Attach to the running turn after line `after`.
    Attach {
        turn_id: String,
        secret: String,
        after: u64,
    },
}

/// How one connection ended.
enum Ended {
    /// The terminal event was delivered.
    Terminal,
    /// Broken, cut off or silent: attach again.
    Lost,
    /// Over, with what the caller was told.
    Told,
}

/// Follows one turn to its end, calling `hear` for what arrives.
pub async fn follow_turn(start: Start, mut hear: impl FnMut(Heard)) {
    let (turn_id, secret, mut after) = match &start {
        Start::New(request) => (
            request.turn_id.clone().unwrap_or_default(),
            request.turn_secret.clone().unwrap_or_default(),
            0,
        ),
        Start::Attach {
            turn_id,
            secret,
            after,
        } => (turn_id.clone(), secret.clone(), *after),
    };
    let mut ended = match start {
        Start::New(request) => match chat(request).await {
            Ok(stream) => read(stream.into_inner(), &mut after, &mut hear).await,
            Err(err) => {
                hear(Heard::Event(None, not_started(err)));
                Ended::Told
            }
        },
        Start::Attach { .. } => Ended::Lost,
    };
    let mut attempt = 0;
    while matches!(ended, Ended::Lost) {
        // A turn that cannot be attached to (no id or secret) ends here.
        if turn_id.is_empty() || secret.is_empty() || attempt >= MAX_ATTEMPTS {
            hear(Heard::Event(None, TurnError::ConnectionLost.event()));
            return;
        }
        if attempt > 0 || after > 0 {
            hear(Heard::Reconnecting);
            sleep_ms(BACKOFF_MS[attempt.min(BACKOFF_MS.len() - 1)]).await;
        }
        attempt += 1;
        ended = match turn_events(turn_id.clone(), secret.clone(), after).await {
            Ok(stream) => {
                let ended = read(stream.into_inner(), &mut after, &mut hear).await;
                if matches!(ended, Ended::Lost) && after > 0 {
                    attempt = attempt.min(1); // it was reached: start the backoff again
                }
                ended
            }
            Err(server_fn::ServerFnError::ServerError(message))
                if message.starts_with(NOT_HELD) =>
            {
                let boot = message[NOT_HELD.len()..].to_owned();
                hear(Heard::NotHeld { boot });
                Ended::Told
            }
            Err(_) => Ended::Lost,
        };
    }
}

/// The turn could not start: why, in the user's words.
fn not_started(err: server_fn::ServerFnError) -> TurnEvent {
    match err {
        // The server refused the request itself (e.g. too large): its words.
        server_fn::ServerFnError::ServerError(message) => TurnError::Refused(message).event(),
        // The browser's own wording ("TypeError: Failed to fetch") helps no one.
        server_fn::ServerFnError::Request(_) => TurnError::Unreachable.event(),
        _ => TurnError::NotStarted.event(),
    }
}

/// Reads one connection's lines until the terminal event, a break or silence.
async fn read<S, E>(bytes: S, after: &mut u64, hear: &mut impl FnMut(Heard)) -> Ended
where
    S: futures::Stream<Item = Result<bytes::Bytes, E>>,
{
    let mut bytes = std::pin::pin!(bytes);
    let mut framer = NdjsonFramer::new();
    loop {
        let next = futures::select! {
            next = bytes.next().fuse() => next,
            () = sleep_ms(SILENCE_MS).fuse() => return Ended::Lost,
        };
        let Some(Ok(chunk)) = next else {
            return Ended::Lost; // broken, or ended without its terminal event
        };
        for line in framer.push_lines(&chunk) {
            let heard = match line {
                Ok(LogLine::Event { stamp, event }) => {
                    if let Some(stamp) = stamp {
                        *after = (*after).max(stamp.seq);
                    }
                    Heard::Event(stamp, event)
                }
                Ok(LogLine::Heartbeat { at_ms, boot }) => Heard::Heartbeat { at_ms, boot },
                Err(err) => Heard::Event(None, TurnError::UnreadableEvent(err.to_string()).event()),
            };
            let terminal = matches!(&heard, Heard::Event(_, event) if event.is_terminal());
            hear(heard);
            if terminal {
                return Ended::Terminal;
            }
        }
    }
}
