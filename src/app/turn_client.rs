//! Browser side of a turn: calls the `chat` server function and turns its
//! NDJSON byte stream back into `TurnEvent`s. A stream that breaks or ends
//! without `done`/`error` becomes an `error` event, so the caller always sees
//! exactly one terminal event.
//!
//! The server itself never ends a stream without one of them (DESIGN §2), so
//! a body that breaks off or simply stops means the connection between the
//! browser and Pensive went (server killed, proxy cut, network gone): the
//! user is told so in plain words, and what arrived is kept by the caller.

use futures::StreamExt;

use super::api::chat;
use crate::turn::framer::NdjsonFramer;
use crate::turn::{ChatRequest, ErrorKind, TurnEvent};

/// Shown when the turn's stream breaks off mid-turn.
pub const CONNECTION_LOST: &str = "The connection to Pensive was lost. What arrived before it is kept; press Retry once the server is reachable again.";
/// Shown when the request never reached the server (the fetch itself failed).
pub const UNREACHABLE: &str = "Could not reach Pensive. Check that the server is running and the network is up, then press Retry.";
/// Shown when something answered, but with an error instead of a turn (a
/// proxy's error page, a refusal in a body that is not the server's own words).
pub const NO_TURN: &str = "Pensive did not start the turn: the server, or a proxy in front of it, answered with an error. Press Retry; if it keeps failing, the server's log says why.";

/// Streams one turn, calling `on_event` for each event as it arrives.
pub async fn stream_turn(request: ChatRequest, mut on_event: impl FnMut(TurnEvent)) {
    let mut ended = false;
    let mut deliver = |event: TurnEvent, ended: &mut bool| {
        if !*ended {
            *ended = event.is_terminal();
            on_event(event);
        }
    };
    let stream = match chat(request).await {
        Ok(stream) => stream,
        // The server refused the request itself (e.g. too large): its words.
        Err(server_fn::ServerFnError::ServerError(message)) => {
            deliver(TurnEvent::error(ErrorKind::BadRequest, message), &mut ended);
            return;
        }
        // The browser's own wording ("TypeError: Failed to fetch") helps no one.
        Err(server_fn::ServerFnError::Request(_)) => {
            deliver(
                TurnEvent::error(ErrorKind::Network, UNREACHABLE),
                &mut ended,
            );
            return;
        }
        Err(_) => {
            deliver(TurnEvent::error(ErrorKind::Upstream, NO_TURN), &mut ended);
            return;
        }
    };
    let mut bytes = stream.into_inner();
    let mut framer = NdjsonFramer::new();
    while let Some(chunk) = bytes.next().await {
        match chunk {
            Ok(chunk) => {
                for decoded in framer.push(&chunk) {
                    match decoded {
                        Ok(event) => deliver(event, &mut ended),
                        Err(err) => deliver(
                            TurnEvent::error(
                                ErrorKind::Internal,
                                format!("Unreadable event from the server ({err})"),
                            ),
                            &mut ended,
                        ),
                    }
                }
            }
            Err(_) => {
                deliver(
                    TurnEvent::error(ErrorKind::Network, CONNECTION_LOST),
                    &mut ended,
                );
                return;
            }
        }
    }
    if let Some(Ok(event)) = framer.finish() {
        deliver(event, &mut ended);
    }
    // Ended cleanly but without `done`/`error`: a proxy closed it for us.
    deliver(
        TurnEvent::error(ErrorKind::Network, CONNECTION_LOST),
        &mut ended,
    );
}
