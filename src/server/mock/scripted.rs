//! The scripted model: deterministic scripts of reasoning and answer deltas with
//! a realistic pace. Used in-process as the built-in demo model; the mock
//! upstream (tests, benchmarks) serves the same scripts over each wire dialect.

use std::time::Duration;

use futures::{stream, Stream, StreamExt};

use crate::server::providers::delta::Delta;
use crate::turn::Usage;

/// One scripted provider chunk: wait `delay`, then deliver `deltas`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub delay: Duration,
    pub deltas: Vec<Delta>,
}

/// Pace of a script: milliseconds between chunks of reasoning and of answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pace {
    pub reasoning_ms: u64,
    pub answer_ms: u64,
}

impl Pace {
    /// Like a real reasoning model: a few seconds of thinking, a brisk answer.
    pub const REALISTIC: Pace = Pace {
        reasoning_ms: 45,
        answer_ms: 15,
    };
    /// No waiting at all (HTTP tests).
    pub const INSTANT: Pace = Pace {
        reasoning_ms: 0,
        answer_ms: 0,
    };

    /// The realistic pace scaled by `factor` (0 = instant).
    pub fn scaled(factor: f64) -> Pace {
        let scale = |ms: u64| (ms as f64 * factor.max(0.0)).round() as u64;
        Pace {
            reasoning_ms: scale(Self::REALISTIC.reasoning_ms),
            answer_ms: scale(Self::REALISTIC.answer_ms),
        }
    }
}

/// Splits text into small chunks on char boundaries, the way models stream tokens.
pub fn chunk_text(text: &str, chunk_chars: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(chunk_chars.max(1))
        .map(|c| c.iter().collect())
        .collect()
}

/// The demo model's script for a prompt: reasoning about it, then a markdown answer.
pub fn demo_script(prompt: &str, pace: Pace) -> Vec<Step> {
    let topic = summarize_prompt(prompt);
    let reasoning = format!(
        "The user asks: \u{201c}{topic}\u{201d}. Let me work out what they actually need before answering.\n\n\
         **Identifying the core question**\n\n\
         First I should pin down the key idea behind the question and recall how it works, \
         rather than jumping to a list of facts. A good answer explains the mechanism, then gives \
         one concrete example.\n\n\
         **Checking for pitfalls**\n\n\
         There is a common misconception here that I should address briefly, without making the \
         answer long. I also need to keep the units and terms consistent: a rate $r$ kept for \
         a time $t$ covers $d = r \\cdot t$, nothing more.\n\n\
         **Planning the answer**\n\n\
         Short explanation first, then the main points as a list, then a formula and a small \
         code sample to show the formatting. Markdown will make it easy to scan."
    );
    let answer = format!(
        "Here is a short answer to *{topic}*.\n\n\
         This reply comes from **Pensive's built-in demo model**: it is scripted, so it shows how \
         thinking and answers stream, not real knowledge. Configure a provider (see the README) to \
         talk to a real reasoning model.\n\n\
         ## The main points\n\n\
         1. The model **thinks first**: you watched that above, with a live timer.\n\
         2. When the answer starts, the thinking block folds to *Thought for Ns*.\n\
         3. Click the header to read the reasoning again, now or after a reload.\n\n\
         Math renders as math, inline like $e^{{i\\pi}} + 1 = 0$ or on its own line:\n\n\
         $$\\sum_{{k=1}}^{{n}} k = \\frac{{n(n+1)}}{{2}}$$\n\n\
         Code is highlighted, with a button to copy it:\n\n\
         ```rust\n/// Adds the numbers from 1 to `n`.\nfn triangle(n: u64) -> u64 {{\n    n * (n + 1) / 2 // the formula above\n}}\n\n\
         fn main() {{\n    println!(\"thinking, then answering: {{}}\", triangle(10));\n}}\n```\n\n\
         > Tip: press **Stop** at any time; what arrived so far stays readable."
    );
    let mut steps: Vec<Step> = chunk_text(&reasoning, 6)
        .into_iter()
        .map(|c| Step {
            delay: Duration::from_millis(pace.reasoning_ms),
            deltas: vec![Delta::Reasoning(c)],
        })
        .collect();
    steps.extend(chunk_text(&answer, 4).into_iter().map(|c| Step {
        delay: Duration::from_millis(pace.answer_ms),
        deltas: vec![Delta::Answer(c)],
    }));
    steps.push(Step {
        delay: Duration::ZERO,
        deltas: vec![
            Delta::Usage(Usage {
                input_tokens: Some(prompt.split_whitespace().count() as u64 + 12),
                output_tokens: Some((reasoning.len() + answer.len()) as u64 / 4),
                reasoning_tokens: Some(reasoning.len() as u64 / 4),
            }),
            Delta::Finish(Some("stop".into())),
        ],
    });
    steps
}

/// Plays a script in real time as a stream of provider chunks.
pub fn play(steps: Vec<Step>) -> impl Stream<Item = Vec<Delta>> + Send {
    stream::iter(steps).then(|step| async move {
        if !step.delay.is_zero() {
            tokio::time::sleep(step.delay).await;
        }
        step.deltas
    })
}

fn summarize_prompt(prompt: &str) -> String {
    let line = prompt.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut short: String = line.chars().take(80).collect();
    if line.chars().count() > 80 {
        short.push('\u{2026}');
    }
    if short.is_empty() {
        "your question".into()
    } else {
        short
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunking_keeps_every_character_including_multibyte() {
        let text = "Thé sky — 🌈 blue";
        assert_eq!(chunk_text(text, 3).concat(), text);
    }

    #[test]
    fn demo_script_reasons_first_then_answers_and_is_deterministic() {
        let steps = demo_script("Why is the sky blue?", Pace::REALISTIC);
        assert_eq!(steps, demo_script("Why is the sky blue?", Pace::REALISTIC));
        let first_answer = steps
            .iter()
            .position(|s| matches!(s.deltas[0], Delta::Answer(_)))
            .unwrap();
        assert!(first_answer > 10, "several sentences of reasoning first");
        assert!(steps[..first_answer]
            .iter()
            .all(|s| matches!(s.deltas[0], Delta::Reasoning(_))));
        let thinking_ms: u128 = steps[..first_answer]
            .iter()
            .map(|s| s.delay.as_millis())
            .sum();
        assert!(
            (2_000..8_000).contains(&thinking_ms),
            "a few seconds: {thinking_ms}"
        );
    }

    /// A new user's first run shows every kind of rendering the app does.
    #[test]
    fn the_demo_answer_has_a_formula_and_a_code_block_and_the_reasoning_a_formula() {
        let steps = demo_script("Why is the sky blue?", Pace::INSTANT);
        let text = |reasoning: bool| -> String {
            steps
                .iter()
                .flat_map(|s| &s.deltas)
                .filter_map(|d| match (d, reasoning) {
                    (Delta::Reasoning(t), true) | (Delta::Answer(t), false) => Some(t.as_str()),
                    _ => None,
                })
                .collect()
        };
        let answer = text(false);
        assert!(
            answer.contains("$$\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}$$"),
            "{answer}"
        );
        assert!(answer.contains("$e^{i\\pi} + 1 = 0$"), "{answer}");
        assert!(answer.contains("```rust\n"), "{answer}");
        assert!(text(true).contains("$d = r \\cdot t$"));
    }

    #[test]
    fn long_prompts_are_shortened_in_the_script() {
        let steps = demo_script(&"word ".repeat(100), Pace::INSTANT);
        let Delta::Reasoning(first) = &steps[0].deltas[0] else {
            panic!("reasoning first")
        };
        assert!(first.starts_with("The us"));
    }
}
