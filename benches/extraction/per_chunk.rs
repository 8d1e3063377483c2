//! Per-chunk cost after a short and a long history, on both ends of a turn:
//! the server's `Normalizer` (answer text inside an inline `<think>` block)
//! and the browser's `NdjsonFramer` + `Turn::apply` (thinking_delta lines).
//! A stream that kept re-reading its past would get slower with history;
//! the benchmark compares one window of chunks after 1 KB and after 1 MB.

use std::time::{Duration, Instant};

use pensive::server::normalizer::Normalizer;
use pensive::server::providers::delta::Delta;
use pensive::turn::framer::{ndjson_line, NdjsonFramer};
use pensive::turn::reducer::Turn;
use pensive::turn::TurnEvent;

/// Chunks in one timed window.
pub const WINDOW: usize = 1000;
/// The two histories compared (bytes of reasoning before the window).
pub const SHORT_HISTORY: usize = 1_000;
pub const LONG_HISTORY: usize = 1_000_000;

/// Server side: a normalizer inside a `<think>` block after `history` bytes.
pub fn normalizer_after(history: usize, chunks: &[String]) -> Normalizer {
    let mut normalizer = Normalizer::default();
    normalizer.push(Delta::Answer("<think>\n".into()), 0);
    for chunk in chunks_totalling(history, chunks) {
        normalizer.push(Delta::Answer(chunk.clone()), 0);
    }
    normalizer
}

/// One window through the normalizer; returns the event count.
pub fn normalizer_window(normalizer: &mut Normalizer, window: Vec<Delta>) -> usize {
    window
        .into_iter()
        .map(|delta| normalizer.push(delta, 0).len())
        .sum()
}

/// The window's deltas (built outside the timing: a decoder hands them over owned).
pub fn window_deltas(chunks: &[String]) -> Vec<Delta> {
    chunks
        .iter()
        .map(|chunk| Delta::Answer(chunk.clone()))
        .collect()
}

/// Browser side: the framer and turn after `history` bytes of thinking_delta lines.
#[derive(Clone)]
pub struct Browser {
    framer: NdjsonFramer,
    turn: Turn,
}

impl Browser {
    pub fn after(history: usize, chunks: &[String]) -> Self {
        let mut browser = Self {
            framer: NdjsonFramer::new(),
            turn: Turn::new(0.0),
        };
        browser.feed(ndjson_line(&TurnEvent::ThinkingStart).as_bytes());
        for chunk in chunks_totalling(history, chunks) {
            browser.feed(thinking_line(chunk).as_bytes());
        }
        browser
    }

    /// A fork ready for timing. A cloned `String` has no spare capacity, so its
    /// first append would copy the whole history once: one untimed one-byte
    /// delta takes that copy here. A live stream's buffer grows by doubling,
    /// which costs O(1) per byte however long the history is.
    pub fn fork(&self) -> Self {
        let mut fork = self.clone();
        fork.feed(thinking_line(" ").as_bytes());
        fork
    }

    /// Feeds each line as its own network chunk; returns the reducer changes.
    pub fn feed_all(&mut self, lines: &[Vec<u8>]) -> usize {
        lines.iter().map(|line| self.feed(line)).sum()
    }

    /// Feeds one network chunk; returns the number of reducer changes.
    pub fn feed(&mut self, bytes: &[u8]) -> usize {
        let mut changes = 0;
        for event in self.framer.push(bytes) {
            let event = event.expect("benchmark lines are valid events");
            changes += self.turn.apply(event, 0.0).len();
        }
        changes
    }
}

/// The window as NDJSON lines, one network chunk each.
pub fn window_lines(chunks: &[String]) -> Vec<Vec<u8>> {
    chunks
        .iter()
        .map(|chunk| thinking_line(chunk).into_bytes())
        .collect()
}

fn thinking_line(text: &str) -> String {
    ndjson_line(&TurnEvent::ThinkingDelta { text: text.into() })
}

/// Cycles through `chunks` until they add up to at least `total` bytes.
fn chunks_totalling(total: usize, chunks: &[String]) -> impl Iterator<Item = &String> {
    let mut fed = 0;
    chunks.iter().cycle().take_while(move |chunk| {
        let more = fed < total;
        fed += chunk.len();
        more
    })
}

/// Per-chunk nanoseconds after the short and after the long history.
#[derive(Debug, Clone, Copy)]
pub struct Paired {
    pub short_ns: f64,
    pub long_ns: f64,
    pub pairs: usize,
}

/// Times `short` and `long` windows in alternation (ABBA), so both see the
/// same machine load, and takes each side's median. Criterion runs one
/// benchmark after the other; on a shared machine the load between them
/// drifts more than the effect a ratio of 1.2 is meant to catch.
pub fn paired(
    pairs: usize,
    mut short: impl FnMut() -> Duration,
    mut long: impl FnMut() -> Duration,
) -> Paired {
    let warm_up = pairs / 10;
    let mut short_times = Vec::with_capacity(pairs);
    let mut long_times = Vec::with_capacity(pairs);
    for i in 0..warm_up + pairs {
        let (a, b) = if i % 2 == 0 {
            let a = short();
            (a, long())
        } else {
            let b = long();
            (short(), b)
        };
        if i >= warm_up {
            short_times.push(a);
            long_times.push(b);
        }
    }
    let per_chunk = |times: &mut Vec<Duration>| {
        times.sort_unstable();
        times[times.len() / 2].as_nanos() as f64 / WINDOW as f64
    };
    Paired {
        short_ns: per_chunk(&mut short_times),
        long_ns: per_chunk(&mut long_times),
        pairs,
    }
}

/// Times one window of `run` on a fresh fork made by `fork` (not timed).
pub fn time_window<S, R>(fork: impl FnOnce() -> S, run: impl FnOnce(S) -> R) -> Duration {
    let state = fork();
    let start = Instant::now();
    let result = run(state);
    let elapsed = start.elapsed();
    drop(std::hint::black_box(result));
    elapsed
}
