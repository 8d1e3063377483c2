//! The scenarios that pause on purpose, whatever the mock's `--delay-ms`, so a
//! client can be seen mid-way: hidden reasoning's silence, a formula and other
//! Markdown half written.

use std::time::Duration;

use super::steps::{after_pause, answer, answered, chunks, ending, reasoning, scripted, steps};
use super::texts::{HALF_WRITTEN, HIDDEN_ANSWER, MATH_ANSWER, MATH_REASONING};
use super::Scenario;
use crate::server::mock::scripted::Step;
use crate::server::providers::delta::Delta;

/// How long `hidden-reasoning` stays silent between the provider's first sign
/// of hidden reasoning and its end, whatever the mock's `--delay-ms`.
pub const HIDDEN_SILENCE: Duration = Duration::from_secs(3);
/// Where the `math` answer pauses (right after this text, inside its last
/// display formula) and for how long, whatever the mock's `--delay-ms`: long
/// enough for a client to see the formula half written.
pub const MATH_PAUSE_AFTER: &str = "2 & \\Delta > 0 \\\\";
pub const MATH_PAUSE: Duration = Duration::from_millis(1500);
/// Where `half-written` pauses (after each of these, for `HALF_WRITTEN_PAUSE`),
/// so a client sees each unfinished: a bold phrase, a formula, a code fence
/// (twice: one more line arrives between).
pub const HALF_WRITTEN_PAUSES: [&str; 4] = [
    "**a claim in bold that is still being written",
    "The area of a circle is $\\pi r^",
    "    let pi = std::f64::consts::PI;\n",
    "    pi * r * r\n",
];
pub const HALF_WRITTEN_PAUSE: Duration = Duration::from_millis(1500);

/// `math`: the reasoning, then the answer up to `MATH_PAUSE_AFTER`, a pause of
/// `MATH_PAUSE`, and the rest.
pub(super) fn math(delay: Duration) -> Scenario {
    let cut = MATH_ANSWER
        .find(MATH_PAUSE_AFTER)
        .map_or(0, |at| at + MATH_PAUSE_AFTER.len());
    let mut all = steps(
        [reasoning(MATH_REASONING), answer(&MATH_ANSWER[..cut])].concat(),
        delay,
    );
    all.extend(after_pause(
        steps(
            [answer(&MATH_ANSWER[cut..]), ending("stop", 120)].concat(),
            delay,
        ),
        MATH_PAUSE,
    ));
    scripted("math", all)
}

/// `hidden-reasoning`: the provider's first sign of reasoning it keeps hidden
/// (an `OpaqueReasoning` step, which each dialect writes its own way: a
/// Responses reasoning item `added`, an Anthropic `redacted_thinking` block
/// start, a Gemini thought part with only a signature, an encrypted chat
/// `reasoning_details` entry), `HIDDEN_SILENCE` of nothing, the end of the
/// hidden block (the item's `done`, the block's stop; Gemini and chat have no
/// end signal, their answer ends it), then a short answer. Ollama has no
/// hidden reasoning: there it is a pause, then the answer.
pub(super) fn hidden_reasoning(delay: Duration) -> Scenario {
    let mut all = steps(vec![Delta::OpaqueReasoning], delay);
    all.push(Step {
        delay: HIDDEN_SILENCE,
        deltas: vec![Delta::ReasoningBoundary],
    });
    all.extend(steps(answered(HIDDEN_ANSWER, 512), delay));
    scripted("hidden-reasoning", all)
}

/// `half-written`: a short reasoning, then `HALF_WRITTEN`, paused after each
/// of `HALF_WRITTEN_PAUSES` (the streaming-partial story).
pub(super) fn half_written(delay: Duration) -> Scenario {
    let mut all = steps(reasoning("Writing the answer slowly."), delay);
    let mut from = 0;
    for pause_after in HALF_WRITTEN_PAUSES {
        let Some(at) = HALF_WRITTEN[from..].find(pause_after) else {
            continue;
        };
        let to = from + at + pause_after.len();
        let part = steps(answer(&HALF_WRITTEN[from..to]), delay);
        all.extend(if from > 0 {
            after_pause(part, HALF_WRITTEN_PAUSE)
        } else {
            part
        });
        from = to;
    }
    all.extend(after_pause(
        steps(
            [answer(&HALF_WRITTEN[from..]), ending("stop", 10)].concat(),
            delay,
        ),
        HALF_WRITTEN_PAUSE,
    ));
    scripted("half-written", all)
}

/// `long-reasoning-pause`: this much reasoning (past the 200,000-character
/// message limit), then a pause long enough to press "Answer now".
pub const LONG_PAUSE_REASONING_CHARS: usize = 300_000;
/// The pause after it.
pub const LONG_PAUSE: Duration = Duration::from_secs(20);
/// The reasoning's last line: a conversation that quotes it was asked again.
pub const LONG_PAUSE_LAST_LINE: &str = "Last step: the answer is ready.";

/// `long-reasoning-pause`: `LONG_PAUSE_REASONING_CHARS` of numbered steps in
/// 30 chunks, its last line, `LONG_PAUSE` of silence, then an answer.
pub(super) fn long_reasoning_pause(delay: Duration) -> Scenario {
    let mut text = String::with_capacity(LONG_PAUSE_REASONING_CHARS + 64);
    let mut step = 0;
    while text.len() < LONG_PAUSE_REASONING_CHARS {
        step += 1;
        text.push_str(&format!(
            "Step {step}: checking one more case of the question.\n"
        ));
    }
    text.push_str(LONG_PAUSE_LAST_LINE);
    let chunk = text.len() / 30 + 1;
    let mut all = steps(chunks(&text, chunk, Delta::Reasoning), delay);
    all.extend(after_pause(
        steps(answered("The long way round: blue.", 4096), delay),
        LONG_PAUSE,
    ));
    scripted("long-reasoning-pause", all)
}

/// `long-reasoning-pause` asked again with its reasoning so far: the answer.
pub fn long_reasoning_answered(delay: Duration) -> Scenario {
    scripted(
        "long-reasoning-pause",
        steps(answered("Answered at once: blue.", 0), delay),
    )
}
