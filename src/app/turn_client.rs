//! Browser side of a turn: calls the `chat` server function and turns its
//! NDJSON byte stream back into `TurnEvent`s. A stream that breaks or ends
//! without `done`/`error` becomes an `error` event, so the caller always sees
//! exactly one terminal event.

use futures::StreamExt;

use super::api::chat;
use crate::turn::framer::NdjsonFramer;
use crate::turn::{ChatRequest, ErrorKind, TurnEvent};

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
        Err(err) => {
            let message = format!("Could not reach the Pensive server: {err}");
            deliver(TurnEvent::error(ErrorKind::Network, message), &mut ended);
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
                    TurnEvent::error(
                        ErrorKind::Network,
                        "The connection to the Pensive server was lost.",
                    ),
                    &mut ended,
                );
                return;
            }
        }
    }
    if let Some(Ok(event)) = framer.finish() {
        deliver(event, &mut ended);
    }
    deliver(
        TurnEvent::error(
            ErrorKind::Interrupted,
            "The turn ended before the model finished.",
        ),
        &mut ended,
    );
}
