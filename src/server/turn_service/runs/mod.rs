//! Turns the server runs to their end, whoever watches (design §2, "The
//! turn's log"). A turn is driven by a task of its own into its log
//! (`log`, `run`); an HTTP response is only a reader of that log
//! (`reader`), so a closed tab, a reload or a dropped network cancel
//! nothing: Stop is the one way to end a turn early. The starter alone may
//! read, attach or stop (`owner`); finished logs stay for their retention
//! time, all logs within a byte bound (`registry`). Beyond this process a
//! turn lives in a `store`: nowhere (embedded) or in Redis, where other
//! replicas read it, pass on controls (`control`) and watch its `lease`.

pub(crate) mod control;
pub(crate) mod lease;
pub(crate) mod log;
pub(crate) mod owner;
pub(crate) mod reader;
pub(crate) mod registry;
pub(crate) mod run;
pub(crate) mod store;

use std::sync::Arc;
use std::time::Duration;

use futures::stream::BoxStream;
use futures::{Stream, StreamExt};

use self::owner::Owner;
use self::registry::{InUse, Registry};
use self::run::Run;
use self::store::Store;
use crate::server::shared::SharedRedis;
use crate::turn::turn_error::TurnError;
use crate::turn::TurnEvent;
pub use registry::Retention;

/// How long a Stop waits for the turn's provider request to close.
const STOP_WAIT: Duration = Duration::from_secs(2);

/// The turns of this server; clones share them.
#[derive(Debug, Clone)]
pub(crate) struct Runs {
    registry: Registry,
    /// Names this run of the server: a page whose turn is unknown to a
    /// server with another `boot` knows the server restarted. With Redis,
    /// the deployment (every replica holds every turn), not one replica.
    boot: Arc<str>,
    /// Most bytes one turn's log may hold.
    max_log_bytes: u64,
    /// Where turns live beyond this process.
    store: Store,
}

impl Runs {
    /// Logs kept as `retention` says, one turn's within `max_turn_bytes`
    /// (the turn's byte budget; 0: none) and never past all logs' bound;
    /// shared through `redis` as well when there is one.
    pub(crate) fn new(
        retention: Retention,
        max_turn_bytes: u64,
        redis: Option<SharedRedis>,
    ) -> Self {
        let all = retention.max_bytes as u64;
        let max_log_bytes = match max_turn_bytes {
            0 => all,
            budget => budget.min(all),
        };
        // This run of this process: with Redis, the replica's id.
        let run_id: Arc<str> = random_hex(8).into();
        let (boot, store) = match redis {
            Some(redis) => (
                format!("r{}", redis.deployment()).into(),
                Store::Redis(Box::new(store::redis::RedisStore::new(
                    redis,
                    run_id,
                    retention.keep_for,
                    max_log_bytes,
                ))),
            ),
            None => (run_id, Store::Embedded(store::embedded::Embedded)),
        };
        Self {
            registry: Registry::new(retention),
            boot,
            max_log_bytes,
            store,
        }
    }

    /// Where turns live beyond this process.
    pub(crate) fn store(&self) -> &Store {
        &self.store
    }

    /// This run of the server.
    pub(crate) fn boot(&self) -> &str {
        &self.boot
    }

    /// A new turn `turn_id` owned by `owner`, held from now on.
    pub(crate) fn open(&self, turn_id: &str, owner: Owner) -> Result<Arc<Run>, InUse> {
        let run = Run::new(turn_id.to_owned(), owner);
        self.registry.insert(run.clone())?;
        Ok(run)
    }

    /// Drives `events` into `run`'s log on a task of its own, to the end.
    pub(crate) fn drive(
        &self,
        run: Arc<Run>,
        events: impl Stream<Item = TurnEvent> + Send + 'static,
    ) {
        let registry = self.registry.clone();
        let max_bytes = self.max_log_bytes;
        let mirror = self.store.opened(&run);
        tokio::spawn(async move {
            let mut mirrored = 0;
            let mut append = |event: &TurnEvent| {
                registry.note_bytes(run.append(event));
                if mirror.is_none() {
                    return;
                }
                for line in run.after(mirrored).lines {
                    mirrored += 1;
                    mirror.line(mirrored, line);
                }
            };
            let mut events = Box::pin(events);
            while let Some(event) = events.next().await {
                append(&event);
                if run.has_ended() {
                    break;
                }
                if run.bytes() as u64 > max_bytes {
                    // Dropping the stream below closes the provider request.
                    append(&TurnError::LogFull { limit: max_bytes }.event());
                    break;
                }
            }
            if !run.has_ended() {
                // A turn's stream always ends with its terminal event; if it
                // ever did not, readers must still learn the turn is over.
                append(&TurnError::CutOff.event());
            }
            drop(events);
            run.mark_closed();
        });
    }

    /// `run`'s log after line `after`, for a reader.
    pub(crate) fn read(&self, run: Arc<Run>, after: u64) -> impl Stream<Item = String> + Send {
        reader::follow(run, after, self.boot.to_string(), reader::HEARTBEAT)
    }

    /// The log of a turn another replica holds (through the store), after
    /// line `after`, if `session` and `secret` are its starter's.
    pub(crate) async fn read_elsewhere(
        &self,
        turn_id: &str,
        session: Option<&str>,
        secret: &str,
        after: u64,
    ) -> Option<BoxStream<'static, String>> {
        self.store
            .attach(turn_id, session, secret, after, &self.boot)
            .await
    }

    /// The turn `turn_id` if `session` and `secret` are its starter's. A
    /// turn that exists and one that does not look the same to anyone else.
    pub(crate) fn find(
        &self,
        turn_id: &str,
        session: Option<&str>,
        secret: &str,
    ) -> Option<Arc<Run>> {
        self.registry
            .get(turn_id)
            .filter(|run| run.owner.admits(session, secret))
    }

    /// The turn `turn_id` this server holds, whoever owns it (for a control
    /// whose asker checked the owner).
    pub(crate) fn held_turn(&self, turn_id: &str) -> Option<Arc<Run>> {
        self.registry.get(turn_id)
    }

    /// Stops `run` and waits (a while) until its provider request is closed.
    pub(crate) async fn stop(&self, run: &Run) {
        run.request_stop();
        let _ = tokio::time::timeout(STOP_WAIT, run.until_closed()).await;
    }

    /// Forgets the finished turns past their retention.
    pub(crate) fn sweep(&self, now: tokio::time::Instant) {
        self.registry.sweep(now);
    }

    /// Turns held (running and finished), and the bytes their logs hold.
    pub(crate) fn held(&self) -> (usize, usize) {
        (self.registry.len(), self.registry.bytes())
    }
}

/// `bytes` random bytes in hex.
pub(crate) fn random_hex(bytes: usize) -> String {
    let mut buffer = vec![0_u8; bytes];
    // The system's random source failing is not something to go on without.
    if aws_lc_rs::rand::fill(&mut buffer).is_err() {
        tracing::error!("no random bytes from the system");
    }
    buffer.iter().map(|b| format!("{b:02x}")).collect()
}
