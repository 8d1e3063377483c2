//! Builders of a scenario's deltas and steps: text cut into reasoning or
//! answer chunks, the finish and usage that end a turn, pauses.

use std::time::Duration;

use super::Scenario;
use crate::server::mock::scripted::{chunk_text, Step};
use crate::server::providers::delta::Delta;
use crate::turn::Usage;

/// One step per delta, each after `delay`.
pub(super) fn steps(deltas: Vec<Delta>, delay: Duration) -> Vec<Step> {
    deltas
        .into_iter()
        .map(|d| Step {
            delay,
            deltas: vec![d],
        })
        .collect()
}

/// `steps` whose first waits `pause` instead (a pause before them).
pub(super) fn after_pause(mut steps: Vec<Step>, pause: Duration) -> Vec<Step> {
    if let Some(first) = steps.first_mut() {
        first.delay = pause;
    }
    steps
}

/// `text` in deltas of `chars` characters each, of one `kind`.
pub(super) fn chunks(text: &str, chars: usize, kind: fn(String) -> Delta) -> Vec<Delta> {
    chunk_text(text, chars).into_iter().map(kind).collect()
}

/// Reasoning in the scenarios' usual chunks.
pub(super) fn reasoning(text: &str) -> Vec<Delta> {
    chunks(text, 8, Delta::Reasoning)
}

/// Answer text in the scenarios' usual chunks.
pub(super) fn answer(text: &str) -> Vec<Delta> {
    chunks(text, 6, Delta::Answer)
}

fn usage(reasoning_tokens: u64) -> Delta {
    Delta::Usage(Usage {
        input_tokens: Some(12),
        output_tokens: Some(48),
        reasoning_tokens: Some(reasoning_tokens),
    })
}

/// The finish `reason` and the usage that end a turn.
pub(super) fn ending(reason: &str, reasoning_tokens: u64) -> Vec<Delta> {
    vec![Delta::Finish(Some(reason.into())), usage(reasoning_tokens)]
}

/// An answer alone, then a clean end.
pub(super) fn answered(text: &str, reasoning_tokens: u64) -> Vec<Delta> {
    [answer(text), ending("stop", reasoning_tokens)].concat()
}

/// Reasoning, then an answer, then a clean end.
pub(super) fn reasoned(
    reasoning_text: &str,
    answer_text: &str,
    reasoning_tokens: u64,
) -> Vec<Delta> {
    [
        reasoning(reasoning_text),
        answer(answer_text),
        ending("stop", reasoning_tokens),
    ]
    .concat()
}

/// A scenario of these steps and no fault.
pub(super) fn scripted(name: &'static str, steps: Vec<Step>) -> Scenario {
    Scenario {
        name,
        steps,
        fault: super::Fault::None,
        stamp_send_time: false,
    }
}
