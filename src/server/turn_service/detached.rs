//! The doors to turns the server runs to their end (`runs`): start one and
//! read its log, attach to one after the line a page already has, stop one.
//! Only the turn's starter gets through them (`runs::owner`).

use futures::{Stream, StreamExt};

use super::runs::owner::Owner;
use super::runs::random_hex;
use super::TurnService;
use crate::turn::framer::ndjson_line;
use crate::turn::turn_error::TurnError;
use crate::turn::ChatRequest;

/// Who asks, as the router's middleware named them (`http::client`).
#[derive(Debug, Clone, Copy)]
pub struct Caller<'a> {
    /// Whose per-client limits the turn counts against.
    pub client: &'a str,
    /// Who decides on the turn's tool calls.
    pub decider: &'a str,
    /// The signed-in session, behind an access token.
    pub session: Option<&'a str>,
}

impl TurnService {
    /// Starts `request` as a turn run to its end, whoever stays to watch;
    /// returns its log from the first line. A request without a `turn_id`
    /// gets one; without a `turn_secret`, nobody can attach to it later.
    pub fn start_run(
        &self,
        mut request: ChatRequest,
        caller: Caller<'_>,
    ) -> impl Stream<Item = String> + Send + 'static {
        let turn_id = request
            .turn_id
            .clone()
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| random_hex(16));
        request.turn_id = Some(turn_id.clone());
        let owner = Owner::new(caller.session, request.turn_secret.take().as_deref());
        match self.runs.open(&turn_id, owner) {
            Ok(run) => {
                let events =
                    self.stoppable(request, caller.client, caller.decider, run.stop_signal());
                self.runs.drive(run.clone(), events);
                self.runs.read(run, 0).left_stream()
            }
            Err(_in_use) => {
                let refused = TurnError::Refused("This turn is already running.".into());
                futures::stream::iter([ndjson_line(&refused.event())]).right_stream()
            }
        }
    }

    /// The log of `caller`'s turn `turn_id` after line `after`, then its
    /// live lines; `None` for a turn this server does not hold for them
    /// (unknown, someone else's, or past its retention: all alike).
    /// A turn another replica runs is read from the shared store.
    pub async fn attach(
        &self,
        turn_id: &str,
        secret: &str,
        after: u64,
        caller: Caller<'_>,
    ) -> Option<impl Stream<Item = String> + Send + 'static> {
        if let Some(run) = self.runs.find(turn_id, caller.session, secret) {
            return Some(self.runs.read(run, after).left_stream());
        }
        let elsewhere = self
            .runs
            .read_elsewhere(turn_id, caller.session, secret, after)
            .await?;
        Some(elsewhere.right_stream())
    }

    /// Stops `caller`'s turn `turn_id`; returns once its provider request is
    /// closed (or a short wait is over). False for a turn not held for them,
    /// and for one another replica runs that did not answer.
    pub async fn stop_run(&self, turn_id: &str, secret: &str, caller: Caller<'_>) -> bool {
        let Some(run) = self.runs.find(turn_id, caller.session, secret) else {
            return self
                .runs
                .store()
                .stop(turn_id, caller.session, secret)
                .await
                .unwrap_or(false);
        };
        self.runs.stop(&run).await;
        true
    }

    /// Names this run of the server (a page told a turn is unknown by a
    /// server with another `boot` knows the server restarted).
    pub fn boot(&self) -> &str {
        self.runs.boot()
    }
}
