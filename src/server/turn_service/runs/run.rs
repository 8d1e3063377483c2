//! One turn run by the server: its owner, its log, and the signals around
//! it (more lines, a Stop, the turn's end). Shared by the task that drives
//! the turn and every reader of it.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;
use tokio::time::Instant;

use super::log::RunLog;
use super::owner::Owner;
use crate::turn::TurnEvent;

/// A running or finished turn.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) id: String,
    pub(crate) owner: Owner,
    started: Instant,
    log: Mutex<RunLog>,
    /// The log's last line number, for readers waiting for more.
    progress: watch::Sender<u64>,
    /// Flips to true on Stop.
    stop: watch::Sender<bool>,
    /// When the turn's task let go of the turn (its provider request
    /// closed); `None` while it runs.
    closed: watch::Sender<Option<Instant>>,
}

/// What a reader gets after a line number.
pub(crate) struct Lines {
    pub(crate) lines: Vec<Arc<str>>,
    /// The terminal event is among what was read before or now.
    pub(crate) ended: bool,
}

impl Run {
    pub(crate) fn new(id: String, owner: Owner) -> Arc<Self> {
        Arc::new(Self {
            id,
            owner,
            started: Instant::now(),
            log: Mutex::default(),
            progress: watch::Sender::new(0),
            stop: watch::Sender::new(false),
            closed: watch::Sender::new(None),
        })
    }

    /// Server milliseconds since the turn began.
    pub(crate) fn at_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    fn log(&self) -> MutexGuard<'_, RunLog> {
        // A panic while appending leaves a whole log behind: keep using it.
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds `event` to the log and wakes the readers; returns the bytes added.
    pub(crate) fn append(&self, event: &TurnEvent) -> usize {
        let at_ms = self.at_ms();
        let (added, last) = {
            let mut log = self.log();
            (log.append(event, at_ms), log.last_seq())
        };
        self.progress.send_replace(last);
        added
    }

    /// The lines after `seq`.
    pub(crate) fn after(&self, seq: u64) -> Lines {
        let log = self.log();
        Lines {
            lines: log.after(seq).to_vec(),
            ended: log.has_ended(),
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        self.log().bytes()
    }

    pub(crate) fn has_ended(&self) -> bool {
        self.log().has_ended()
    }

    /// Wakes when lines are added.
    pub(crate) fn watch(&self) -> watch::Receiver<u64> {
        self.progress.subscribe()
    }

    /// Asks the turn's task to stop the turn.
    pub(crate) fn request_stop(&self) {
        self.stop.send_replace(true);
    }

    /// Flips when Stop is asked.
    pub(crate) fn stop_signal(&self) -> watch::Receiver<bool> {
        self.stop.subscribe()
    }

    /// The turn's task let go of it: its provider request is closed.
    pub(crate) fn mark_closed(&self) {
        self.closed.send_replace(Some(Instant::now()));
    }

    /// When the task let go of the turn (`None`: it still runs).
    pub(crate) fn closed_at(&self) -> Option<Instant> {
        *self.closed.borrow()
    }

    /// Resolves once the task has let go of the turn.
    pub(crate) async fn until_closed(&self) {
        let mut closed = self.closed.subscribe();
        // The sender lives in `self`: the wait ends with the turn's close.
        let _ = closed.wait_for(Option::is_some).await;
    }
}
