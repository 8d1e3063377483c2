//! The lines under a turn's answer: which model
//! wrote it and at what effort ("qwen3-32b · low effort"), and whether the
//! answer was cut at the output limit ("Cut off at the length limit (16,000
//! tokens)"). The page and the Markdown export say the same words. Pure.

use super::reducer::{Turn, TurnModel};
use super::Effort;

/// The model line: its name, the model that took over when one did
/// ("Switched to Opus 4.8"), and, when known, the effort it was asked at.
pub fn model_line(
    model: Option<&TurnModel>,
    effort: Option<Effort>,
    answered_by: Option<&str>,
) -> Option<String> {
    let mut line = model?.label.clone();
    if let Some(name) = answered_by {
        line.push_str(&format!(" \u{b7} Switched to {}", model_label(name)));
    }
    if let Some(effort) = effort {
        line.push_str(&format!(" \u{b7} {effort} effort"));
    }
    Some(line)
}

/// A provider's model name as people say it: `claude-opus-4-8` is
/// "Opus 4.8" (a date suffix dropped); other names stay as they are.
pub fn model_label(name: &str) -> String {
    let Some(rest) = name.strip_prefix("claude-") else {
        return name.to_owned();
    };
    let mut parts = rest.split('-');
    let Some(tier) = parts.next().filter(|t| !t.is_empty()) else {
        return name.to_owned();
    };
    let version: Vec<&str> = parts
        .filter(|p| p.len() < 8 && p.chars().all(|c| c.is_ascii_digit()))
        .collect();
    let mut tier_word: String = tier[..1].to_ascii_uppercase();
    tier_word.push_str(&tier[1..]);
    if version.is_empty() {
        tier_word
    } else {
        format!("{tier_word} {}", version.join("."))
    }
}

/// A part of a turn that took time, for its time line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimedPart {
    /// A thinking block with readable or opaque reasoning, and its duration.
    Thought(Option<u64>),
    /// A tool step and its server-measured duration.
    Tool(Option<u64>),
}

/// The time line of a turn that used tools: thinking and tool time apart,
/// each summed ("Thought 14s \u{b7} 3 tools 4.1s"); `None` without tools.
/// Thinking never includes tool time: each block's duration ends before
/// the next call starts (design §2).
pub fn time_line_of(parts: impl IntoIterator<Item = TimedPart>) -> Option<String> {
    use super::duration::{format_duration, DurationStyle};
    let (mut thought, mut thought_ms) = (false, 0u64);
    let (mut tools, mut tool_ms) = (0usize, 0u64);
    for part in parts {
        match part {
            TimedPart::Thought(ms) => {
                thought = true;
                thought_ms += ms.unwrap_or(0);
            }
            TimedPart::Tool(ms) => {
                tools += 1;
                tool_ms += ms.unwrap_or(0);
            }
        }
    }
    if tools == 0 {
        return None;
    }
    let noun = if tools == 1 { "tool" } else { "tools" };
    let tool_part = format!(
        "{tools} {noun} {}",
        format_duration(tool_ms as f64, DurationStyle::Tenths)
    );
    Some(if thought {
        let seconds = format_duration(thought_ms as f64, DurationStyle::Seconds);
        format!("Thought {seconds} \u{b7} {tool_part}")
    } else {
        tool_part
    })
}

/// [`time_line_of`] a stored turn.
pub fn time_line(turn: &Turn) -> Option<String> {
    use super::reducer::Block;
    time_line_of(turn.blocks.iter().filter_map(|block| match block {
        Block::Thinking(t) if !t.is_empty() => Some(TimedPart::Thought(t.duration_ms)),
        Block::Tool(step) => Some(TimedPart::Tool(step.duration_ms)),
        _ => None,
    }))
}

/// The note of an answer cut at the output limit, naming the limit when the
/// server sent one. A turn stopped at the tool-call limit carries that limit
/// in the same field (`done.output_limit`); turns stored before it was sent
/// name the default.
pub fn cut_note(finish_reason: Option<&str>, output_limit: Option<u32>) -> Option<String> {
    if finish_reason == Some(super::tool::FINISH_TOOL_LIMIT) {
        let limit = output_limit.map_or(super::tool::TOOL_CALL_LIMIT, |n| n as usize);
        return Some(format!("Stopped at the limit of {limit} tool calls"));
    }
    if finish_reason == Some(super::tool::FINISH_TOOL_TIME_LIMIT) {
        let secs = output_limit.map_or(super::tool::TOOL_TIME_LIMIT.as_secs(), u64::from);
        return Some(format!(
            "Stopped at the limit of {} of tool time",
            spoken_duration(secs)
        ));
    }
    if finish_reason != Some("length") {
        return None;
    }
    Some(match output_limit {
        Some(limit) => format!(
            "Cut off at the length limit ({} tokens)",
            thousands(u64::from(limit))
        ),
        None => "Cut off at the length limit".into(),
    })
}

/// `600` as "10 minutes", `90` as "90 seconds", `60` as "1 minute".
pub fn spoken_duration(secs: u64) -> String {
    let (n, unit) = if secs >= 60 && secs.is_multiple_of(60) {
        (secs / 60, "minute")
    } else {
        (secs, "second")
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

/// `16000` as "16,000".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::reducer::TurnStatus;

    #[test]
    fn a_turn_stopped_at_the_tool_limit_says_so() {
        assert_eq!(
            cut_note(Some("tool_limit"), None).as_deref(),
            Some("Stopped at the limit of 12 tool calls")
        );
        assert_eq!(
            cut_note(Some("tool_limit"), Some(3)).as_deref(),
            Some("Stopped at the limit of 3 tool calls"),
            "the configured limit, as the server named it"
        );
        assert_eq!(cut_note(Some("tool_calls"), None), None);
        assert_eq!(
            cut_note(Some("tool_time_limit"), None).as_deref(),
            Some("Stopped at the limit of 10 minutes of tool time")
        );
        assert_eq!(
            cut_note(Some("tool_time_limit"), Some(90)).as_deref(),
            Some("Stopped at the limit of 90 seconds of tool time")
        );
        assert_eq!(spoken_duration(60), "1 minute");
    }

    #[test]
    fn the_time_line_sums_thinking_and_tools_apart() {
        use TimedPart::{Thought, Tool};
        assert_eq!(
            time_line_of([Thought(Some(9_000))]),
            None,
            "no tools: no line"
        );
        assert_eq!(
            time_line_of([
                Thought(Some(9_000)),
                Tool(Some(1_000)),
                Thought(Some(5_000)),
                Tool(Some(2_600)),
                Tool(Some(500)),
            ]),
            Some("Thought 14s \u{b7} 3 tools 4.1s".into())
        );
        assert_eq!(time_line_of([Tool(Some(120))]), Some("1 tool 0.1s".into()));
    }

    #[test]
    fn the_model_line_names_the_model_and_its_effort() {
        let model = TurnModel {
            id: "q".into(),
            label: "qwen3-32b".into(),
        };
        assert_eq!(
            model_line(Some(&model), Some(Effort::Low), None).as_deref(),
            Some("qwen3-32b \u{b7} low effort")
        );
        assert_eq!(
            model_line(Some(&model), None, None).as_deref(),
            Some("qwen3-32b")
        );
        assert_eq!(model_line(None, Some(Effort::Low), None), None);
    }

    #[test]
    fn a_turn_a_fallback_answered_names_the_model_that_took_over() {
        let model = TurnModel {
            id: "fable".into(),
            label: "Claude Fable 5".into(),
        };
        assert_eq!(
            model_line(Some(&model), Some(Effort::High), Some("claude-opus-4-8")).as_deref(),
            Some("Claude Fable 5 \u{b7} Switched to Opus 4.8 \u{b7} high effort")
        );
        assert_eq!(model_label("claude-sonnet-4-5-20250929"), "Sonnet 4.5");
        assert_eq!(model_label("claude-haiku"), "Haiku");
        assert_eq!(model_label("gpt-5.1"), "gpt-5.1");
        // The reducer keeps who took over, for the line and the export.
        let mut turn = Turn::new(0.0);
        let changes = turn.apply(
            crate::turn::TurnEvent::ModelSwitched {
                model: "claude-opus-4-8".into(),
            },
            1.0,
        );
        assert_eq!(turn.answered_by.as_deref(), Some("claude-opus-4-8"));
        assert!(changes.iter().any(|c| matches!(
            c,
            crate::turn::reducer::Change::Status(p) if p.answered_by.as_deref() == Some("claude-opus-4-8")
        )));
    }

    #[test]
    fn only_a_length_ending_is_a_cut_and_the_limit_reads_with_separators() {
        assert_eq!(
            cut_note(Some("length"), Some(16_000)).as_deref(),
            Some("Cut off at the length limit (16,000 tokens)")
        );
        assert_eq!(
            cut_note(Some("length"), Some(128_000)).as_deref(),
            Some("Cut off at the length limit (128,000 tokens)")
        );
        assert_eq!(
            cut_note(Some("length"), None).as_deref(),
            Some("Cut off at the length limit")
        );
        assert_eq!(cut_note(Some("stop"), Some(16_000)), None);
        assert_eq!(cut_note(None, None), None);
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
        let mut turn = Turn::new(0.0);
        turn.status = TurnStatus::Done;
        turn.finish_reason = Some("length".into());
        assert!(turn.is_cut_off());
        turn.status = TurnStatus::Stopped;
        assert!(!turn.is_cut_off());
    }
}
