//! The scenarios that stream and end cleanly: `normal` and the shapes of
//! reasoning and answer a parser or view must handle (blocks, inline and split
//! tags, opaque reasoning, empty parts, a megabyte, hostile text, math, code).

use super::steps::{answer, answered, chunks, ending, reasoned, reasoning};
use super::texts::{
    ANSWER, CODE_ANSWER, CODE_REASONING, CUT_ANSWER_REST, CUT_ANSWER_START, HEADLINES,
    HOSTILE_CODE, HOSTILE_MARKDOWN, HOSTILE_MATH, REASONING, TOPIC_TAGS,
};
use crate::server::providers::delta::Delta;

/// Bytes of each of `nested-markdown`'s two texts.
const NESTED_BYTES: usize = 100 * 1024;

/// The deltas of the clean scenario `name` (an unknown name plays `normal`).
pub(super) fn deltas(name: &str) -> Vec<Delta> {
    match name {
        "several-blocks" => [
            reasoning("First I look at the question."),
            vec![Delta::ReasoningBoundary],
            reasoning("Then I check my plan."),
            answer("Part one. "),
            reasoning("One more consideration."),
            answer("Part two."),
            ending("stop", 30),
        ]
        .concat(),
        "inline-tags" => answered(&format!("<think>{REASONING}</think>\n\n{ANSWER}"), 0),
        "split-tags" => [
            chunks(
                &format!("<think>{REASONING}</think>\n\n{ANSWER}"),
                1,
                Delta::Answer,
            ),
            ending("stop", 0),
        ]
        .concat(),
        "tag-in-code" => answered(
            "Use it like this:\n\n```xml\n<think>not reasoning</think>\n```\n\nThat is all.",
            0,
        ),
        "prefilled" => answered(&format!("{REASONING}</think>\n\n{ANSWER}"), 0),
        "empty-think" => answered(&format!("<think>\n\n</think>\n\n{ANSWER}"), 0),
        "opaque" => [vec![Delta::OpaqueReasoning], answered(ANSWER, 640)].concat(),
        "reasoning-tokens" => answered(ANSWER, 640),
        "no-answer" => [reasoning(REASONING), ending("length", 200)].concat(),
        // An answer cut at the output limit, and (asked to go on) its rest.
        "cut-off" => [
            reasoning(REASONING),
            answer(CUT_ANSWER_START),
            ending("length", 200),
        ]
        .concat(),
        "cut-off-rest" => answered(CUT_ANSWER_REST, 0),
        "no-answer-rest" => reasoned("Picking up where I stopped.", ANSWER, 20),
        // Nothing at all: no reasoning, no answer text (the empty-answer note).
        "empty-answer" => ending("stop", 0),
        "huge" => {
            let sentence = "Considering one more case in detail to be thorough. ";
            let text = sentence.repeat(1024 * 1024 / sentence.len() + 1);
            [
                chunks(&text, 1000, Delta::Reasoning),
                answered(ANSWER, 250_000),
            ]
            .concat()
        }
        // Reasoning taller than the Thinking block's box and an answer of
        // several paragraphs, in about four seconds at the suite's pace: for
        // the stories of a reader following (and scrolling) a long session.
        "long-reasoning" => {
            let reasoning: String = (1..=40)
                .map(|step| {
                    format!(
                        "Step {step}: I check one more part of the question, weigh what it \
                         changes, and note what is still open before going on.\n\n"
                    )
                })
                .collect();
            let answer_text = (1..=6)
                .map(|part| {
                    format!(
                        "**Part {part}.** The answer goes on with a paragraph of its own, long \
                         enough to wrap over a few lines on a phone.\n\n"
                    )
                })
                .collect::<String>();
            [
                chunks(&reasoning, 120, Delta::Reasoning),
                chunks(&answer_text, 40, Delta::Answer),
                ending("stop", 512),
            ]
            .concat()
        }
        // The nesting that made the sanitizer's parse quadratic:
        // 100 KB of nested list markers as reasoning, 100 KB of nested
        // quote markers as the answer, in 4 KB chunks.
        "nested-markdown" => {
            let reasoning = format!("{}x", "- ".repeat(NESTED_BYTES / 2));
            let answer_text = format!("{} x", ">".repeat(NESTED_BYTES));
            [
                chunks(&reasoning, 4096, Delta::Reasoning),
                chunks(&answer_text, 4096, Delta::Answer),
                ending("stop", 64),
            ]
            .concat()
        }
        // Larger chunks than other scenarios (still splitting every piece):
        // the text is long, and the suite's stories wait for it to finish.
        "hostile-markdown" => {
            let text = [HOSTILE_MARKDOWN, HOSTILE_MATH].concat();
            [
                chunks(&text, 24, Delta::Reasoning),
                chunks(&text, 24, Delta::Answer),
                ending("stop", 40),
            ]
            .concat()
        }
        "hostile-code" => reasoned(HOSTILE_CODE, HOSTILE_CODE, 40),
        "topic-tags" => answered(TOPIC_TAGS, 0),
        "code" => reasoned(CODE_REASONING, CODE_ANSWER, 90),
        "headlines" => [chunks(HEADLINES, 4, Delta::Reasoning), answered(ANSWER, 20)].concat(),
        _ => reasoned(REASONING, ANSWER, 20),
    }
}
