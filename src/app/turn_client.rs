//! Browser side of a turn: calls the `chat` server function and turns its
//! NDJSON byte stream back into `TurnEvent`s. A stream that breaks or ends
//! without `done`/`error` becomes an `error` event, so the caller always sees
//! exactly one terminal event.
//!
//! The server itself never ends a stream without one of them (design §2), so
//! a body that breaks off or simply stops means the connection between the
//! browser and Pensive went (server killed, proxy cut, network gone): the
//! user is told so in plain words, and what arrived is kept by the caller.
//! The words are `TurnError`'s, with the server's own.

use futures::StreamExt;

use super::api::chat;
use crate::turn::framer::NdjsonFramer;
use crate::turn::turn_error::TurnError;
use crate::turn::{ChatRequest, TurnEvent};

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
            deliver(TurnError::Refused(message).event(), &mut ended);
            return;
        }
        // The browser's own wording ("TypeError: Failed to fetch") helps no one.
        Err(server_fn::ServerFnError::Request(_)) => {
            deliver(TurnError::Unreachable.event(), &mut ended);
            return;
        }
        Err(_) => {
            deliver(TurnError::NotStarted.event(), &mut ended);
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
                            TurnError::UnreadableEvent(err.to_string()).event(),
                            &mut ended,
                        ),
                    }
                }
            }
            Err(_) => {
                deliver(TurnError::ConnectionLost.event(), &mut ended);
                return;
            }
        }
    }
    if let Some(Ok(event)) = framer.finish() {
        deliver(event, &mut ended);
    }
    // Ended cleanly but without `done`/`error`: a proxy closed it for us.
    deliver(TurnError::ConnectionLost.event(), &mut ended);
}
