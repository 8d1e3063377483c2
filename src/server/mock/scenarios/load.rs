//! The numbered load scenarios (docs/load.md): `firehose` at full speed,
//! `paced` between chunks, `stamped` with send times.

use std::time::Duration;

use super::steps::{ending, scripted, steps};
use super::Scenario;
use crate::server::providers::delta::Delta;

/// Chunks of `firehose` without a number.
pub const FIREHOSE_CHUNKS: usize = 1000;
/// Milliseconds between chunks of `paced` without a number.
pub const PACED_MS: u64 = 20;
/// Chunks of `stamped` without a number.
pub const STAMPED_CHUNKS: usize = 1000;
/// Milliseconds between `stamped` chunks: long enough for every hop to be idle
/// when the next chunk is sent, so its latency is not queueing behind the last.
pub const STAMPED_MS: u64 = 2;

/// The text of chunk `index` of `firehose`: fixed width, so a receiver can
/// check every byte and see which chunk went missing.
pub fn firehose_chunk(index: usize) -> String {
    format!("f{index:07} ")
}

/// `paced` reasoning and answer: numbered sentences, one per chunk.
pub fn paced_texts() -> (Vec<String>, Vec<String>) {
    let reasoning = (0..150)
        .map(|i| format!("Thought {i:03} leads on. "))
        .collect();
    let answer = (0..50).map(|i| format!("Answer {i:02}. ")).collect();
    (reasoning, answer)
}

/// `firehose[-<chunks>]`: fixed-width chunks, half reasoning, half answer.
pub(super) fn firehose(number: Option<u64>, delay: Duration) -> Scenario {
    let chunks = number.map_or(FIREHOSE_CHUNKS, |n| n as usize);
    // Half reasoning, half answer: both relay paths and the switch between them.
    let deltas = (0..chunks)
        .map(|i| {
            let text = firehose_chunk(i);
            if i < chunks / 2 {
                Delta::Reasoning(text)
            } else {
                Delta::Answer(text)
            }
        })
        .chain(ending("stop", chunks as u64 / 2))
        .collect();
    scripted("firehose", steps(deltas, delay))
}

/// `paced[-<ms>]`: `paced_texts`, one chunk every `ms`.
pub(super) fn paced(number: Option<u64>) -> Scenario {
    let pace = Duration::from_millis(number.unwrap_or(PACED_MS));
    let (reasoning, answer) = paced_texts();
    let deltas = reasoning
        .into_iter()
        .map(Delta::Reasoning)
        .chain(answer.into_iter().map(Delta::Answer))
        .chain(ending("stop", 150))
        .collect();
    scripted("paced", steps(deltas, pace))
}

/// `stamped[-<chunks>]`: answer chunks, each with its send time appended.
pub(super) fn stamped(number: Option<u64>, delay: Duration) -> Scenario {
    let chunks = number.map_or(STAMPED_CHUNKS, |n| n as usize);
    let deltas = (0..chunks)
        .map(|i| Delta::Answer(firehose_chunk(i)))
        .chain(ending("stop", 0))
        .collect();
    let mut scenario = scripted(
        "stamped",
        steps(deltas, Duration::from_millis(STAMPED_MS).max(delay)),
    );
    scenario.stamp_send_time = true;
    scenario
}
