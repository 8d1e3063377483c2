//! Forgets clients that went quiet. The per-client turn counts and sign-in
//! attempts are kept by client address; without a sweep, every address ever
//! seen would keep an entry for as long as the process runs, and a client
//! that walks through addresses (IPv6 gives it billions) grows the maps
//! without bound. A task started with the router sweeps them every minute.

use std::time::Duration;

use tokio::time::{Instant, MissedTickBehavior};

/// How often the maps are swept: their window is a minute, so an entry
/// outlives its use by at most this.
pub(crate) const PRUNE_EVERY: Duration = Duration::from_secs(60);

/// Calls `prune` with the time every `PRUNE_EVERY`, forever.
pub(crate) async fn prune_forever(prune: impl Fn(Instant) + Send + 'static) {
    let mut every = tokio::time::interval(PRUNE_EVERY);
    every.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        prune(Instant::now());
    }
}
