//! The turns this server holds: running ones, and finished ones for their
//! retention time, so a page can come back for what it missed. Bounded in
//! all: past the byte bound, the finished logs that ended first go first;
//! a running turn's log is never dropped.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use super::run::Run;

/// How long and how much the registry keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// How long a finished turn's log stays.
    pub keep_for: Duration,
    /// Most bytes all logs may hold together.
    pub max_bytes: usize,
}

impl Default for Retention {
    fn default() -> Self {
        Self {
            keep_for: Duration::from_secs(30 * 60),
            max_bytes: 256 * 1024 * 1024,
        }
    }
}

/// Over the bound, the least time between two sweeps an append asks for:
/// when running turns alone hold the bound (nothing may go), every append
/// would otherwise scan every held turn under the lock.
const SWEEP_GAP: Duration = Duration::from_millis(100);

/// Every turn held; clones share it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Registry(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    runs: Mutex<HashMap<String, Arc<Run>>>,
    bytes: AtomicUsize,
    retention: Retention,
    /// When an append over the bound last swept.
    swept_at: Mutex<Option<Instant>>,
}

/// A turn id that is already held.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct InUse;

impl Registry {
    pub(crate) fn new(retention: Retention) -> Self {
        Self(Arc::new(Inner {
            retention,
            ..Inner::default()
        }))
    }

    fn runs(&self) -> MutexGuard<'_, HashMap<String, Arc<Run>>> {
        self.0.runs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Holds `run`, unless its id is held already.
    pub(crate) fn insert(&self, run: Arc<Run>) -> Result<(), InUse> {
        self.sweep(Instant::now());
        let mut runs = self.runs();
        if runs.contains_key(&run.id) {
            return Err(InUse);
        }
        runs.insert(run.id.clone(), run);
        Ok(())
    }

    /// The held turn `id`, if there is one.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Run>> {
        self.runs().get(id).cloned()
    }

    /// Counts `added` bytes of some log; past the bound, makes room (at
    /// most once per `SWEEP_GAP`).
    pub(crate) fn note_bytes(&self, added: usize) {
        let total = self.0.bytes.fetch_add(added, Ordering::SeqCst) + added;
        let now = Instant::now();
        if total > self.0.retention.max_bytes && self.sweep_due(now) {
            self.sweep(now);
        }
    }

    fn sweep_due(&self, now: Instant) -> bool {
        let mut swept_at = self
            .0
            .swept_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if swept_at.is_some_and(|at| now.saturating_duration_since(at) < SWEEP_GAP) {
            return false;
        }
        *swept_at = Some(now);
        true
    }

    /// Bytes all held logs hold.
    pub(crate) fn bytes(&self) -> usize {
        self.0.bytes.load(Ordering::SeqCst)
    }

    /// How many turns are held.
    pub(crate) fn len(&self) -> usize {
        self.runs().len()
    }

    /// Drops the finished turns past their retention at `now`, then, while
    /// the logs hold more than the bound, the finished ones that closed first.
    pub(crate) fn sweep(&self, now: Instant) {
        let keep_for = self.0.retention.keep_for;
        let mut runs = self.runs();
        let mut dropped = 0;
        runs.retain(|_, run| {
            let expired = run
                .closed_at()
                .is_some_and(|closed| now.saturating_duration_since(closed) >= keep_for);
            if expired {
                dropped += run.bytes();
            }
            !expired
        });
        let mut total = self.0.bytes.load(Ordering::SeqCst).saturating_sub(dropped);
        if total > self.0.retention.max_bytes {
            let mut finished: Vec<(Instant, String, usize)> = runs
                .values()
                .filter_map(|run| Some((run.closed_at()?, run.id.clone(), run.bytes())))
                .collect();
            finished.sort();
            for (_, id, bytes) in finished {
                if total <= self.0.retention.max_bytes {
                    break;
                }
                runs.remove(&id);
                dropped += bytes;
                total = total.saturating_sub(bytes);
            }
        }
        self.0.bytes.fetch_sub(
            dropped.min(self.0.bytes.load(Ordering::SeqCst)),
            Ordering::SeqCst,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::turn_service::runs::owner::Owner;
    use crate::turn::TurnEvent;

    fn run(id: &str, text_bytes: usize) -> Arc<Run> {
        let run = Run::new(id.into(), Owner::new(None, None));
        run.append(&TurnEvent::AnswerDelta {
            text: "x".repeat(text_bytes),
        });
        run
    }

    fn held(registry: &Registry, id: &str, text_bytes: usize) -> Arc<Run> {
        let run = run(id, text_bytes);
        registry.insert(run.clone()).expect("a new id");
        registry.note_bytes(run.bytes());
        run
    }

    #[tokio::test(start_paused = true)]
    async fn a_finished_turn_stays_for_its_retention_and_a_running_one_for_ever() {
        let registry = Registry::new(Retention {
            keep_for: Duration::from_secs(60),
            max_bytes: usize::MAX,
        });
        let finished = held(&registry, "done", 10);
        held(&registry, "running", 10);
        finished.mark_closed();
        tokio::time::advance(Duration::from_secs(59)).await;
        registry.sweep(Instant::now());
        assert!(registry.get("done").is_some());
        tokio::time::advance(Duration::from_secs(1)).await;
        registry.sweep(Instant::now());
        assert!(registry.get("done").is_none());
        tokio::time::advance(Duration::from_secs(3600)).await;
        registry.sweep(Instant::now());
        assert!(registry.get("running").is_some());
        assert_eq!(registry.len(), 1);
        assert_eq!(registry.bytes(), registry.get("running").unwrap().bytes());
    }

    #[tokio::test(start_paused = true)]
    async fn past_the_bound_the_oldest_finished_logs_go_first_never_a_running_one() {
        let registry = Registry::new(Retention {
            keep_for: Duration::from_secs(3600),
            max_bytes: 3_000,
        });
        let running = held(&registry, "running", 1_000);
        let older = held(&registry, "older", 1_000);
        older.mark_closed();
        tokio::time::advance(Duration::from_secs(1)).await;
        let newer = held(&registry, "newer", 500);
        newer.mark_closed();
        assert_eq!(registry.len(), 3);
        // Over the bound: the older finished log goes, the newer stays.
        held(&registry, "another running", 1_000);
        assert!(registry.get("older").is_none());
        assert!(registry.get("newer").is_some());
        assert!(registry.get("running").is_some());
        // Only running logs left to drop: none is.
        tokio::time::advance(SWEEP_GAP).await;
        held(&registry, "a third running", 2_000);
        assert!(registry.get("running").is_some());
        assert!(registry.get("another running").is_some());
        assert!(registry.get("newer").is_none());
        drop(running);
    }

    #[tokio::test(start_paused = true)]
    async fn appends_over_a_bound_held_by_running_turns_sweep_once_per_gap() {
        let registry = Registry::new(Retention {
            keep_for: Duration::from_secs(3600),
            max_bytes: 1_000,
        });
        let running = held(&registry, "running", 2_000);
        let finished = run("finished", 10);
        registry.insert(finished.clone()).expect("a new id");
        finished.mark_closed();
        // The append that crossed the bound swept just now: the next ones,
        // within the gap, do not scan again.
        registry.note_bytes(running.append(&TurnEvent::AnswerDelta { text: "y".into() }));
        assert!(registry.get("finished").is_some());
        tokio::time::advance(SWEEP_GAP).await;
        registry.note_bytes(running.append(&TurnEvent::AnswerDelta { text: "y".into() }));
        assert!(registry.get("finished").is_none());
        assert!(registry.get("running").is_some());
    }

    #[test]
    fn a_held_id_is_not_taken_twice() {
        let registry = Registry::default();
        registry.insert(run("t", 1)).expect("new");
        assert_eq!(registry.insert(run("t", 1)), Err(InUse));
    }
}
