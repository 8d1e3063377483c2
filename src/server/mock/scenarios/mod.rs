//! Scripted scenarios for the mock upstream (tests, benchmarks, demos of every
//! state), chosen by a `mock:<name>` keyword in the last user message. Each is
//! deterministic: a list of steps of neutral deltas plus an optional fault the
//! mock injects at the HTTP level.
//!
//! This file holds the keyword table and picks the scenario; each kind is
//! built beside it: clean ones (`shapes`), broken or hostile upstreams
//! (`faults`), deliberate pauses (`paused`), load (`load`) and the browser
//! benchmarks (`bench`), from the texts in `texts` and the builders in `steps`.

use std::time::Duration;

use super::scripted::Step;

mod bench;
mod faults;
mod load;
mod paused;
mod shapes;
mod steps;
mod texts;

pub use bench::{
    bench_code_text, bench_long_line_text, BENCH_CODE_BYTES, BENCH_CODE_CHUNKS,
    BENCH_LONG_LINE_BYTES, BENCH_LONG_LINE_CHUNKS, BENCH_REASONING_CHUNKS,
};
pub use faults::{Endless, Fault, ENDLESS_BYTES, TRICKLE_FOR, TRICKLE_PAUSE};
pub use load::{
    firehose_chunk, paced_texts, FIREHOSE_CHUNKS, PACED_MS, STAMPED_CHUNKS, STAMPED_MS,
};
pub use paused::{
    long_reasoning_answered, HALF_WRITTEN_PAUSE, HALF_WRITTEN_PAUSES, HIDDEN_SILENCE, LONG_PAUSE,
    LONG_PAUSE_LAST_LINE, LONG_PAUSE_REASONING_CHARS, MATH_PAUSE, MATH_PAUSE_AFTER,
};
pub use texts::*;

use steps::{scripted, steps};

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
    "cut-off",
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
    "echo-secrets",
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
    "bench-long-line",
    "half-written",
    "long-reasoning",
    "nested-markdown",
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

/// Keywords of a scenario with a long deliberate pause (a story presses
/// "Answer now" in it), kept out of `KEYWORDS` so the suites that play every
/// keyword whole do not wait through it.
pub const SLOW_KEYWORDS: &[&str] = &["long-reasoning-pause"];

/// Keywords that take a number, `mock:<name>-<n>` (load tool, docs/load.md):
/// `firehose-<chunks>` at full speed, `paced-<ms>` between chunks,
/// `stamped-<chunks>` with send times.
pub const NUMBERED: &[&str] = &["firehose", "paced", "stamped"];

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

/// `no-answer`'s second part: asked to go on from its reasoning so far
/// (Continue after the output limit cut it), it thinks a little more and
/// answers.
pub fn reasoning_continued_scenario(delay: Duration) -> Scenario {
    scripted("no-answer", steps(shapes::deltas("no-answer-rest"), delay))
}

/// `cut-off`'s second part: the conversation already holds the cut answer.
pub fn continued_scenario(delay: Duration) -> Scenario {
    scripted("cut-off", steps(shapes::deltas("cut-off-rest"), delay))
}

/// `word` as a known keyword and, for a numbered one, its number.
fn keyword(word: &str) -> Option<(&'static str, Option<u64>)> {
    if let Some(name) = KEYWORDS
        .iter()
        .chain(HOSTILE_KEYWORDS)
        .chain(SLOW_KEYWORDS)
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

fn build(name: &'static str, number: Option<u64>, delay: Duration) -> Scenario {
    match name {
        "firehose" => load::firehose(number, delay),
        "paced" => load::paced(number),
        "stamped" => load::stamped(number, delay),
        "bench-render" => bench::bench_render(),
        "bench-code" => bench::bench_code(),
        "bench-long-line" => bench::bench_long_line(),
        "half-written" => paused::half_written(delay),
        "hidden-reasoning" => paused::hidden_reasoning(delay),
        "long-reasoning-pause" => paused::long_reasoning_pause(delay),
        "math" => paused::math(delay),
        _ => match faults::broken(name) {
            Some((deltas, fault)) => Scenario {
                fault,
                ..scripted(name, steps(deltas, delay))
            },
            None => scripted(name, steps(shapes::deltas(name), delay)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::bench::BENCH_PAUSE;
    use super::*;
    use crate::server::providers::delta::Delta;

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
        for k in KEYWORDS.iter().chain(HOSTILE_KEYWORDS).chain(SLOW_KEYWORDS) {
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
        use crate::app::markdown::check::inert_violation;
        use crate::app::markdown::render_markdown;
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
    fn bench_long_line_streams_one_200_kb_line_in_256_byte_chunks() {
        let s = scenario_for("mock:bench-long-line", Duration::from_millis(60));
        let chunks: Vec<&String> = s
            .steps
            .iter()
            .flat_map(|step| &step.deltas)
            .filter_map(|d| match d {
                Delta::Answer(text) => Some(text),
                _ => None,
            })
            .collect();
        assert_eq!(chunks.len(), BENCH_LONG_LINE_CHUNKS);
        assert!(chunks[..chunks.len() - 1].iter().all(|c| c.len() == 256));
        let text = answer_text(&s);
        assert_eq!(text, bench_long_line_text());
        let code = &text[text.find("```js\n").unwrap() + 6..text.rfind("```").unwrap()];
        assert_eq!(code.len(), BENCH_LONG_LINE_BYTES + 1);
        assert_eq!(code.matches('\n').count(), 1);
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
