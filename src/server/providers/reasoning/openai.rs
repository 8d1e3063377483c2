//! OpenAI's reasoning models (both dialects): the `reasoning.effort` /
//! `reasoning_effort` words each takes, from OpenAI's documentation and the
//! 400s quoted in docs/decisions.md. A name newer than the table gets the
//! newest row of its line (`gpt-7` is read as GPT-6, `gpt-5.7` as gpt-5.6).
//! Also which of them Chat Completions refuses function tools from. Pure.

use super::names::{gpt_version, is_o_series, newest_not_after, OpenAiLine, Version};
use super::Efforts;
use crate::turn::Effort::{self, High, Low, Max, Medium, Minimal, Off, Xhigh};

/// One row: the words (weakest first) and the default Pensive uses.
type Row = (&'static [Effort], Effort);

const GPT_5: Row = (&[Minimal, Low, Medium, High], Medium);
const GPT_5_1: Row = (&[Off, Low, Medium, High], Medium);
const GPT_5_2: Row = (&[Off, Low, Medium, High, Xhigh], Medium);
const GPT_5_6: Row = (&[Off, Low, Medium, High, Xhigh, Max], Medium);
/// GPT-6 (Astra, Sol, Luna, …): no `none`, no `minimal` (LibreChat#15560
/// quoting OpenAI: "`reasoning_effort: none` is not supported … starting
/// with `low`"; bolna-ai/bolna#1019 measured low … max). OpenAI publishes
/// no default (langchain#40330): Pensive asks medium, as for gpt-5.6.
const GPT_6: Row = (&[Low, Medium, High, Xhigh, Max], Medium);
const CODEX: Row = (&[Low, Medium, High], Medium);
const CODEX_XHIGH: Row = (&[Low, Medium, High, Xhigh], Medium);
const PRO_5: Row = (&[High], High);
const PRO_5_2: Row = (&[Medium, High, Xhigh], High);
/// gpt-5-chat-latest takes no reasoning parameter at all.
const NO_EFFORT: Row = (&[], Medium);
const CHAT: Row = (&[Medium], Medium);

const ROWS: &[(Version, OpenAiLine, Row)] = &[
    ((5, 0), OpenAiLine::Main, GPT_5),
    ((5, 1), OpenAiLine::Main, GPT_5_1),
    ((5, 2), OpenAiLine::Main, GPT_5_2),
    ((5, 6), OpenAiLine::Main, GPT_5_6),
    ((6, 0), OpenAiLine::Main, GPT_6),
    ((5, 0), OpenAiLine::Pro, PRO_5),
    ((5, 2), OpenAiLine::Pro, PRO_5_2),
    ((5, 0), OpenAiLine::Codex, CODEX),
    ((5, 2), OpenAiLine::Codex, CODEX_XHIGH),
    ((5, 0), OpenAiLine::CodexMini, CODEX),
    ((5, 1), OpenAiLine::CodexMax, CODEX_XHIGH),
    ((5, 0), OpenAiLine::Chat, NO_EFFORT),
    ((5, 1), OpenAiLine::Chat, CHAT),
];

/// The efforts of an OpenAI model name; `None` for names that are not
/// OpenAI reasoning models (gpt-4.1, gpt-oss, an alias).
pub(crate) fn openai_efforts(name: &str) -> Option<Efforts> {
    if is_o_series(name) {
        return Some(Efforts::new(&[Low, Medium, High], Medium));
    }
    let (version, line) = gpt_version(name)?;
    if version < (5, 0) {
        return None;
    }
    // A line that starts later than this version (gpt-5-codex-max) reads as
    // the main line of its version.
    let (words, default) = newest_not_after(ROWS, version, line)
        .or_else(|| newest_not_after(ROWS, version, OpenAiLine::Main))?;
    Some(Efforts::new(words, default))
}

/// The efforts of an OpenAI model on Chat Completions: GPT-6 and later
/// take `max` on the Responses API only ("Chat Completions accepts low,
/// medium, high, and xhigh, Responses API adds max", litellm-docs#1173).
pub(crate) fn openai_chat_efforts(name: &str) -> Option<Efforts> {
    let mut efforts = openai_efforts(name)?;
    if gpt_version(name).is_some_and(|(version, _)| version >= (6, 0)) {
        efforts.words.retain(|e| *e != Max);
    }
    Some(efforts)
}

/// gpt-5.2 to 5.6 take tools on Chat Completions with reasoning off only.
const TOOLS_ONLY_WITHOUT_REASONING: &str = "OpenAI's chat completions take this model's tools only with reasoning off (the `off` effort): at this effort Pensive sends the turn without tools. The `responses` provider takes tools at every effort.";
/// GPT-6 cannot turn reasoning off, so it takes no tools there at all.
const NO_TOOLS_ON_CHAT: &str = "OpenAI's chat completions take no tools from this model (its reasoning cannot be turned off): Pensive sends its turns without tools. The `responses` provider takes them.";

/// Why Chat Completions would refuse this model's function tools at
/// `effort`; `None` where it takes them. OpenAI's 400: "Function tools with
/// reasoning_effort are not supported for gpt-5.6-sol in
/// /v1/chat/completions. To use function tools, use /v1/responses or set
/// reasoning_effort to 'none'." (BerriAI/litellm#34569; gpt-5.2 to 5.5 ask
/// for /v1/responses: pipecat#4043, livekit/agents#5088). gpt-5.2 to 5.5
/// take tools with no effort named; from gpt-5.6 on the model reasons
/// unasked and only an explicit `none` is taken (litellm#34569). Every line
/// is covered (codex and pro are Responses models anyway), but ChatGPT's
/// `-chat-latest`, of which no such 400 was reported.
pub(crate) fn chat_tools_refusal(name: &str, effort: Option<Effort>) -> Option<&'static str> {
    let (version, line) = gpt_version(name)?;
    if version < (5, 2) || line == OpenAiLine::Chat {
        return None;
    }
    match effort {
        _ if version >= (6, 0) => Some(NO_TOOLS_ON_CHAT),
        Some(Off) => None,
        None if version < (5, 6) => None,
        _ => Some(TOOLS_ONLY_WITHOUT_REASONING),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(name: &str) -> Vec<Effort> {
        openai_efforts(name).map(|e| e.words).unwrap_or_default()
    }

    #[test]
    fn names_newer_than_the_table_take_their_lines_newest_row() {
        assert_eq!(words("gpt-7"), words("gpt-6-sol"));
        assert_eq!(words("gpt-5.7"), words("gpt-5.6"));
        assert_eq!(words("gpt-5.3"), words("gpt-5.2"));
        assert_eq!(words("gpt-5.4-mini"), words("gpt-5.2"));
        assert_eq!(words("gpt-6-codex"), words("gpt-5.2-codex"));
        assert_eq!(words("gpt-5.3-chat-latest"), words("gpt-5.2-chat-latest"));
        assert_eq!(words("gpt-5-codex-max"), words("gpt-5"));
        assert_eq!(openai_efforts("gpt-4.1"), None);
    }

    #[test]
    fn gpt_6_and_later_take_low_to_max_and_never_off_or_minimal() {
        for name in [
            "gpt-6",
            "gpt-6-sol",
            "gpt-6-luna",
            "gpt-6-astra",
            "gpt-6.1-terra",
            "openai/gpt-6-sol-2026-09-22",
            "gpt-7",
            "gpt-10-nova",
        ] {
            assert_eq!(words(name), [Low, Medium, High, Xhigh, Max], "{name}");
        }
    }
}
