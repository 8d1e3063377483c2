//! When the shown conversation is saved (design §5): every change between
//! turns, and at most about once a second while a turn streams, spaced out
//! further as saves grow costly. Only the timing lives here: no storage, no
//! clock (the caller passes the time).

/// How often a streaming turn is saved, at most (design §5).
pub const SAVE_INTERVAL_MS: f64 = 1000.0;
/// A save rewrites the whole conversation, so it costs more as a turn grows:
/// while streaming, the next save waits this many times as long as the last one
/// took (saving then takes at most 1/50 of the main thread for saves of up to
/// 200 ms, far beyond what localStorage's quota lets a record grow to)…
const SAVE_BUDGET_FACTOR: f64 = 50.0;
/// …but never longer than this, which bounds what a crash mid-turn can lose.
const MAX_SAVE_INTERVAL_MS: f64 = 10_000.0;

/// How long to wait before saving a streaming turn again, given that the last
/// save took `last_save_ms`; between turns every change is saved at once.
fn next_save_interval(last_save_ms: f64, streaming: bool) -> f64 {
    if !streaming {
        return SAVE_INTERVAL_MS;
    }
    (last_save_ms * SAVE_BUDGET_FACTOR).clamp(SAVE_INTERVAL_MS, MAX_SAVE_INTERVAL_MS)
}

/// The autosave policy's state: when a streaming turn may be saved next.
#[derive(Debug, Clone, Copy, Default)]
pub struct Autosave {
    next_save_at_ms: f64,
}

impl Autosave {
    /// True when a streamed event at `now_ms` should be followed by a save.
    pub fn is_due(&self, now_ms: f64) -> bool {
        now_ms >= self.next_save_at_ms
    }

    /// A save at `now_ms` found nothing to keep (nothing sent yet).
    pub fn skipped(&mut self, now_ms: f64) {
        self.next_save_at_ms = now_ms + SAVE_INTERVAL_MS;
    }

    /// A save at `now_ms` took `took_ms`; `streaming`: a turn is running.
    pub fn saved(&mut self, now_ms: f64, took_ms: f64, streaming: bool) {
        self.next_save_at_ms = now_ms + next_save_interval(took_ms, streaming);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_saves_space_out_as_saves_grow_slower_within_bounds() {
        // Small conversations: once a second, as design §5 says.
        assert_eq!(next_save_interval(2.0, true), SAVE_INTERVAL_MS);
        // A 40 ms save (a turn of megabytes) waits 2 s: saving stays at 1/50.
        assert_eq!(next_save_interval(40.0, true), 2000.0);
        // Never longer than the cap, whatever one save cost.
        assert_eq!(next_save_interval(900.0, true), MAX_SAVE_INTERVAL_MS);
        // Between turns there is no spacing to keep.
        assert_eq!(next_save_interval(900.0, false), SAVE_INTERVAL_MS);
    }

    #[test]
    fn a_save_is_due_once_its_interval_has_passed() {
        let mut autosave = Autosave::default();
        assert!(autosave.is_due(0.0), "the first event of a turn may save");
        autosave.saved(1_000.0, 40.0, true);
        assert!(!autosave.is_due(2_999.0));
        assert!(autosave.is_due(3_000.0));
        autosave.skipped(5_000.0);
        assert!(!autosave.is_due(5_999.0));
        assert!(autosave.is_due(6_000.0));
    }
}
