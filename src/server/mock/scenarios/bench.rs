//! The browser benchmarks' scenarios (`bench-render`, `bench-code`): large
//! generated texts in many small chunks, paced by the scenario itself.

use std::time::Duration;

use super::steps::{chunks, ending, scripted};
use super::Scenario;
use crate::server::mock::scripted::Step;
use crate::server::providers::delta::Delta;

/// Reasoning chunks of `bench-render` (1 MB in all).
pub const BENCH_REASONING_CHUNKS: usize = 20_000;
const BENCH_REASONING_BYTES: usize = 1024 * 1024;
const BENCH_ANSWER_BYTES: usize = 200 * 1024;
const BENCH_ANSWER_CHUNK_CHARS: usize = 32;
/// `bench-render` sleeps this long after every this-many chunks: the scenario
/// paces itself (10-20 s in all), whatever the mock's `--delay-ms`.
pub(super) const BENCH_PAUSE: Duration = Duration::from_millis(1);
const BENCH_CHUNKS_PER_PAUSE: usize = 2;

/// One step per delta, a `BENCH_PAUSE` before every `BENCH_CHUNKS_PER_PAUSE`th.
fn bench_paced(deltas: impl Iterator<Item = Delta>) -> Vec<Step> {
    deltas
        .enumerate()
        .map(|(i, delta)| Step {
            delay: if i.is_multiple_of(BENCH_CHUNKS_PER_PAUSE) {
                BENCH_PAUSE
            } else {
                Duration::ZERO
            },
            deltas: vec![delta],
        })
        .collect()
}

/// `text` (ASCII) cut into exactly `count` pieces of near-equal length.
fn even_pieces(text: &str, count: usize) -> impl Iterator<Item = String> + '_ {
    let cut = move |i: usize| i * text.len() / count;
    (0..count).map(move |i| text[cut(i)..cut(i + 1)].to_owned())
}

/// The browser rendering benchmark (docs/benchmarks-browser.md): 1 MB of
/// markdown-ish reasoning in 20,000 chunks, then a 200 KB markdown answer in
/// small chunks, so the page's per-chunk cost can be compared early and late.
pub(super) fn bench_render() -> Scenario {
    let reasoning_text = bench_reasoning_text();
    // Exactly BENCH_REASONING_CHUNKS pieces of 52 or 53 bytes (the text is ASCII).
    let reasoning = even_pieces(&reasoning_text, BENCH_REASONING_CHUNKS).map(Delta::Reasoning);
    let answer = chunks(
        &bench_answer_text(),
        BENCH_ANSWER_CHUNK_CHARS,
        Delta::Answer,
    );
    let deltas = reasoning.chain(answer).chain(ending("stop", 250_000));
    scripted("bench-render", bench_paced(deltas))
}

/// Exactly `BENCH_REASONING_BYTES` of ASCII reasoning: paragraphs, and a
/// **bold** headline every few paragraphs (as summarised reasoning looks).
fn bench_reasoning_text() -> String {
    let sentences = [
        "Let me look at the next part of the problem more closely.",
        "The constraint on the second value rules out the obvious approach.",
        "If I assume the input is sorted, the search becomes logarithmic.",
        "That assumption needs checking against the examples given earlier.",
        "A counter-example would be a list with repeated values at the ends.",
        "So the invariant has to hold for equal keys as well.",
    ];
    let mut text = String::with_capacity(BENCH_REASONING_BYTES + 256);
    let mut paragraph = 0usize;
    while text.len() < BENCH_REASONING_BYTES {
        if paragraph.is_multiple_of(5) {
            text.push_str(&format!(
                "**Step {} of the analysis**\n\n",
                paragraph / 5 + 1
            ));
        }
        for k in 0..4 {
            text.push_str(sentences[(paragraph + k) % sentences.len()]);
            text.push(' ');
        }
        text.push_str("\n\n");
        paragraph += 1;
    }
    text.truncate(BENCH_REASONING_BYTES);
    text
}

/// About `BENCH_ANSWER_BYTES` of markdown: paragraphs, lists and a code fence.
fn bench_answer_text() -> String {
    let mut text = String::with_capacity(BENCH_ANSWER_BYTES + 1024);
    let mut section = 0usize;
    while text.len() < BENCH_ANSWER_BYTES {
        section += 1;
        text.push_str(&format!("## Part {section}\n\n"));
        text.push_str(
            "The approach keeps an *invariant* over the range and narrows it by half \
             each round, so the work stays small even for **large inputs**.\n\n",
        );
        text.push_str("- the range starts as the whole list\n- each round halves it\n- equal keys go left\n\n");
        text.push_str("1. compare the middle\n2. move one bound\n3. stop when the bounds meet\n\n");
        if section.is_multiple_of(4) {
            text.push_str(
                "```rust\nfn search(xs: &[i32], key: i32) -> usize {\n    xs.partition_point(|x| *x < key)\n}\n```\n\n",
            );
        }
    }
    text
}

/// Answer chunks of `bench-code`.
pub const BENCH_CODE_CHUNKS: usize = 7_500;
/// Bytes of code in `bench-code`'s one fenced block.
pub const BENCH_CODE_BYTES: usize = 350 * 1024;

/// The browser benchmark of a long code block (docs/benchmarks.md): an
/// answer that is a sentence, then one fenced Rust block of
/// `BENCH_CODE_BYTES`, then a sentence, in exactly `BENCH_CODE_CHUNKS`
/// pieces (about 48 bytes each), paced as `bench-render` is.
pub(super) fn bench_code() -> Scenario {
    let text = bench_code_text();
    let deltas = even_pieces(&text, BENCH_CODE_CHUNKS)
        .map(Delta::Answer)
        .chain(ending("stop", 0));
    scripted("bench-code", bench_paced(deltas))
}

/// Bytes of `bench-long-line`'s one line of code.
pub const BENCH_LONG_LINE_BYTES: usize = 200 * 1024;
/// Bytes per chunk of `bench-long-line`.
const BENCH_LONG_LINE_CHUNK: usize = 256;
/// Chunks of `bench-long-line`'s answer.
pub const BENCH_LONG_LINE_CHUNKS: usize = 801;

/// The browser benchmark of one long line in an open fence (minified code):
/// `BENCH_LONG_LINE_BYTES` on one line of a JavaScript block, the whole
/// answer in exactly `BENCH_LONG_LINE_CHUNKS` chunks of 256 bytes (the last
/// one shorter), paced as `bench-render` is.
pub(super) fn bench_long_line() -> Scenario {
    let text = bench_long_line_text();
    let deltas = text
        .as_bytes()
        .chunks(BENCH_LONG_LINE_CHUNK)
        // ASCII: every cut is a character boundary.
        .map(|chunk| Delta::Answer(String::from_utf8_lossy(chunk).into_owned()))
        .chain(ending("stop", 0));
    scripted("bench-long-line", bench_paced(deltas))
}

/// `bench-long-line`'s answer (ASCII): minified JavaScript, one line.
pub fn bench_long_line_text() -> String {
    let statement = "var a0=f(1,\"s\")+g[2]*0x1f;";
    let mut line = statement.repeat(BENCH_LONG_LINE_BYTES / statement.len() + 1);
    line.truncate(BENCH_LONG_LINE_BYTES);
    format!("Minified:\n\n```js\n{line}\n```\n")
}

/// `bench-code`'s answer (ASCII): a generated Rust module with comments,
/// strings, numbers and keywords on every few lines.
pub fn bench_code_text() -> String {
    let mut code = String::with_capacity(BENCH_CODE_BYTES + 256);
    let mut i = 0usize;
    while code.len() < BENCH_CODE_BYTES {
        code.push_str(&format!(
            "/// Step {i}: folds one value into the running total.\n\
             pub fn step_{i}(acc: u64, x: u64) -> u64 {{\n\
             \x20   let y = x.wrapping_mul({}) ^ (acc >> 3); // mix the bits\n\
             \x20   acc.wrapping_add(y) + \"step {i}\".len() as u64\n\
             }}\n\n",
            2 * i + 1
        ));
        i += 1;
    }
    code.truncate(code[..BENCH_CODE_BYTES].rfind('\n').map_or(0, |at| at + 1));
    while code.len() < BENCH_CODE_BYTES {
        code.push_str(&"/".repeat((BENCH_CODE_BYTES - code.len()).min(60)));
        code.push('\n');
        let over = code.len().saturating_sub(BENCH_CODE_BYTES);
        if over > 0 {
            code.truncate(code.len() - over - 1);
            code.push('\n');
        }
    }
    format!("Here is the generated module:\n\n```rust\n{code}```\n\nThat is the whole file.\n")
}
