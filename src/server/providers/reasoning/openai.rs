//! OpenAI's reasoning models (both dialects): the `reasoning.effort` /
//! `reasoning_effort` words each takes, from OpenAI's documentation and the
//! 400s quoted in docs/decisions.md. A name newer than the table gets the
//! newest row of its line (`gpt-6` is read as the newest `gpt-5.x`). Pure.

use super::names::{gpt_version, is_o_series, newest_not_after, OpenAiLine, Version};
use super::Efforts;
use crate::turn::Effort::{self, High, Low, Max, Medium, Minimal, Off, Xhigh};

/// One row: the words (weakest first) and the default Pensive uses.
type Row = (&'static [Effort], Effort);

const GPT_5: Row = (&[Minimal, Low, Medium, High], Medium);
const GPT_5_1: Row = (&[Off, Low, Medium, High], Medium);
const GPT_5_2: Row = (&[Off, Low, Medium, High, Xhigh], Medium);
const GPT_5_6: Row = (&[Off, Low, Medium, High, Xhigh, Max], Medium);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn words(name: &str) -> Vec<Effort> {
        openai_efforts(name).map(|e| e.words).unwrap_or_default()
    }

    #[test]
    fn names_newer_than_the_table_take_their_lines_newest_row() {
        assert_eq!(words("gpt-6"), words("gpt-5.6"));
        assert_eq!(words("gpt-5.3"), words("gpt-5.2"));
        assert_eq!(words("gpt-5.4-mini"), words("gpt-5.2"));
        assert_eq!(words("gpt-6-codex"), words("gpt-5.2-codex"));
        assert_eq!(words("gpt-5.3-chat-latest"), words("gpt-5.2-chat-latest"));
        assert_eq!(words("gpt-5-codex-max"), words("gpt-5"));
        assert_eq!(openai_efforts("gpt-4.1"), None);
    }
}
