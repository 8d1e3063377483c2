//! How many turns are streaming right now (`/healthz`, and a graceful
//! shutdown waits for it to reach zero). Each turn holds an `ActiveTurn` for
//! as long as its stream exists, so a client that goes away counts down too.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The server's count of live turns; clones share it.
#[derive(Debug, Clone, Default)]
pub(crate) struct ActiveTurns(Arc<AtomicUsize>);

impl ActiveTurns {
    /// Turns streaming now.
    pub fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// Counts a turn until the returned guard is dropped.
    pub(crate) fn enter(&self) -> ActiveTurn {
        self.0.fetch_add(1, Ordering::SeqCst);
        ActiveTurn(self.0.clone())
    }
}

/// One live turn in the count; dropping it counts the turn out.
#[derive(Debug)]
pub(crate) struct ActiveTurn(Arc<AtomicUsize>);

impl Drop for ActiveTurn {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_counts_while_its_guard_lives() {
        let active = ActiveTurns::default();
        let first = active.enter();
        let second = active.clone().enter();
        assert_eq!(active.count(), 2);
        drop(first);
        assert_eq!(active.count(), 1);
        drop(second);
        assert_eq!(active.count(), 0);
    }
}
