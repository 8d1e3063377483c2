//! Where a turn lives beyond this process's memory. Two stores: `embedded`
//! (the default: nothing leaves the process, and a turn this process does
//! not hold is not held at all) and `redis` (`PENSIVE_REDIS_URL`: each
//! line is written to the turn's Redis Stream as well, with its owner
//! record and lease, so another replica can serve the log, pass on a
//! control and mark the turn interrupted when its replica dies). The turn's
//! task and its local readers always work from memory (`Run`): a store never
//! holds a turn up.

pub(crate) mod embedded;
pub(crate) mod redis;
#[cfg(test)]
pub(crate) mod redis_tests;

use std::sync::Arc;

use futures::stream::BoxStream;

use super::control::{Control, Handler, Reply};
use super::run::Run;

/// The store a server's turns use.
#[derive(Debug, Clone)]
pub(crate) enum Store {
    Embedded(embedded::Embedded),
    Redis(Box<redis::RedisStore>),
}

/// Where a running turn's task sends each new line beyond memory.
pub(crate) enum Mirror {
    None,
    Redis(redis::Mirror),
}

impl Mirror {
    /// True when lines go nowhere beyond memory (the embedded store).
    pub(crate) fn is_none(&self) -> bool {
        matches!(self, Mirror::None)
    }

    /// Line `seq` of the turn was appended.
    pub(crate) fn line(&self, seq: u64, line: Arc<str>) {
        match self {
            Mirror::None => {}
            Mirror::Redis(mirror) => mirror.line(seq, line),
        }
    }
}

impl Store {
    /// `run` starts; its lines go to the returned mirror.
    pub(crate) fn opened(&self, run: &Arc<Run>) -> Mirror {
        match self {
            Store::Embedded(_) => Mirror::None,
            Store::Redis(store) => Mirror::Redis(store.opened(run)),
        }
    }

    /// Starts what a replica runs beside its turns: acting on controls sent
    /// to it (`handler`), and watching other replicas' leases.
    pub(crate) fn start_background(&self, handler: Handler) {
        match self {
            Store::Embedded(_) => {}
            Store::Redis(store) => store.start_background(handler),
        }
    }

    /// The log of a turn another replica runs (or ran), after line `after`,
    /// if `session` and `secret` are its starter's.
    pub(crate) async fn attach(
        &self,
        turn_id: &str,
        session: Option<&str>,
        secret: &str,
        after: u64,
        boot: &str,
    ) -> Option<BoxStream<'static, String>> {
        match self {
            Store::Embedded(_) => None,
            Store::Redis(store) => store.attach(turn_id, session, secret, after, boot).await,
        }
    }

    /// Stops a turn another replica runs. `None`: not held for this caller;
    /// `Some(true)`: it ended (or had ended); `Some(false)`: no running
    /// replica answered.
    pub(crate) async fn stop(
        &self,
        turn_id: &str,
        session: Option<&str>,
        secret: &str,
    ) -> Option<bool> {
        match self {
            Store::Embedded(_) => None,
            Store::Redis(store) => store.stop(turn_id, session, secret).await,
        }
    }

    /// Sends `control` to the replica that runs its turn; `None` when no
    /// replica running it answered.
    pub(crate) async fn send(&self, turn_id: &str, control: Control) -> Option<Reply> {
        match self {
            Store::Embedded(_) => None,
            Store::Redis(store) => store.send(turn_id, control).await,
        }
    }
}
