//! Reading a model name: its family, tier and version, as the providers
//! spell them (`claude-opus-4-7`, `claude-sonnet-4-5-20250929`,
//! `anthropic.claude-opus-4-6-v1:0`, `gpt-5.1-codex-mini`, `openai/gpt-5`,
//! `models/gemini-3.1-pro-preview`). Pure: only string work.

/// A version as `(major, minor)`; ordered, so "the newest row not newer than
/// this name" is a comparison.
pub(crate) type Version = (u32, u32);

/// The Claude tier and version in a model name, with any `anthropic/` or
/// `us.anthropic.` prefix and `@date`/`-v1:0` suffix; both orders
/// (`claude-3-7-sonnet`). Mythos Preview carries no number: it came between
/// Opus 4.7 and Claude 5, read as 4.9.
pub(crate) fn claude_version(name: &str) -> Option<(&'static str, Version)> {
    let lower = name.to_ascii_lowercase();
    let start = lower.find("claude-")?;
    let rest = &lower[start + "claude-".len()..];
    let mut tier = None;
    let mut numbers = Vec::new();
    for part in rest.split(['-', '@', ':', '.', '_']) {
        match part {
            "opus" => tier = Some("opus"),
            "sonnet" => tier = Some("sonnet"),
            "haiku" => tier = Some("haiku"),
            "fable" => tier = Some("fable"),
            "mythos" => tier = Some("mythos"),
            // Dates (8 digits) and `v1` are not versions.
            p if !p.is_empty()
                && p.len() <= 2
                && p.bytes().all(|b| b.is_ascii_digit())
                && numbers.len() < 2 =>
            {
                numbers.push(p.parse::<u32>().ok()?);
            }
            _ => {}
        }
    }
    let tier = tier?;
    if tier == "mythos" && numbers.is_empty() {
        return Some((tier, (4, 9)));
    }
    let major = *numbers.first()?;
    let minor = numbers.get(1).copied().unwrap_or(0);
    Some((tier, (major, minor)))
}

/// `5.1-codex` as `((5, 1), "-codex")`: the version a name part starts with
/// (a missing minor is 0) and what follows it.
fn leading_version(rest: &str) -> Option<(Version, &str)> {
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let mut parts = rest[..end].split('.');
    let major: u32 = parts.next()?.parse().ok()?;
    let minor: u32 = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    Some(((major, minor), &rest[end..]))
}

/// What follows `gpt-<version>` in an OpenAI name: the line of models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OpenAiLine {
    /// `gpt-5`, `gpt-5-mini`, `gpt-5-nano`, `gpt-5.6-sol`, dated snapshots.
    Main,
    Pro,
    Codex,
    CodexMini,
    CodexMax,
    /// `gpt-5.1-chat-latest`: ChatGPT's model behind the API.
    Chat,
}

/// An OpenAI `gpt-<major>[.<minor>]…` name (with any `openai/` prefix):
/// its version and line; `None` for other names (gpt-oss is not OpenAI's API).
pub(crate) fn gpt_version(name: &str) -> Option<(Version, OpenAiLine)> {
    let lower = name.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let ((major, minor), tail) = leading_version(name.strip_prefix("gpt-")?)?;
    let line = if tail.contains("codex-max") {
        OpenAiLine::CodexMax
    } else if tail.contains("codex-mini") {
        OpenAiLine::CodexMini
    } else if tail.contains("codex") {
        OpenAiLine::Codex
    } else if tail.starts_with("-pro") {
        OpenAiLine::Pro
    } else if tail.starts_with("-chat") {
        OpenAiLine::Chat
    } else {
        OpenAiLine::Main
    };
    Some(((major, minor), line))
}

/// OpenAI's o-series (`o1`, `o3-mini`, `o4-mini`).
pub(crate) fn is_o_series(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let mut chars = name.chars();
    chars.next() == Some('o') && chars.next().is_some_and(|c| c.is_ascii_digit())
}

/// Gemini's kinds of model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GeminiLine {
    Pro,
    Flash,
    FlashLite,
}

/// A `gemini-<major>.<minor>-<line>` name (with any `models/` prefix).
pub(crate) fn gemini_version(name: &str) -> Option<(Version, GeminiLine)> {
    let lower = name.to_ascii_lowercase();
    let rest = &lower[lower.find("gemini-")? + "gemini-".len()..];
    let ((major, minor), tail) = leading_version(rest)?;
    let line = if tail.contains("flash-lite") {
        GeminiLine::FlashLite
    } else if tail.contains("flash") {
        GeminiLine::Flash
    } else if tail.contains("pro") {
        GeminiLine::Pro
    } else {
        return None;
    };
    Some(((major, minor), line))
}

/// The newest row of `rows` (version, line, value) on `line` that is not
/// newer than `version`: a name newer than the table gets its newest member.
pub(crate) fn newest_not_after<L: PartialEq + Copy, T: Copy>(
    rows: &[(Version, L, T)],
    version: Version,
    line: L,
) -> Option<T> {
    rows.iter()
        .filter(|(v, l, _)| *l == line && *v <= version)
        .max_by_key(|(v, _, _)| *v)
        .map(|(_, _, value)| *value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_names_are_read_in_both_orders_with_dates_and_prefixes() {
        assert_eq!(claude_version("claude-opus-4-7"), Some(("opus", (4, 7))));
        assert_eq!(
            claude_version("claude-sonnet-4-5-20250929"),
            Some(("sonnet", (4, 5)))
        );
        assert_eq!(
            claude_version("claude-opus-4-20250514"),
            Some(("opus", (4, 0)))
        );
        assert_eq!(
            claude_version("claude-3-7-sonnet-latest"),
            Some(("sonnet", (3, 7)))
        );
        assert_eq!(
            claude_version("us.anthropic.claude-opus-4-6-v1:0"),
            Some(("opus", (4, 6)))
        );
        assert_eq!(
            claude_version("anthropic/claude-haiku-4.5"),
            Some(("haiku", (4, 5)))
        );
        assert_eq!(claude_version("claude-fable-5-1"), Some(("fable", (5, 1))));
        assert_eq!(
            claude_version("claude-mythos-preview"),
            Some(("mythos", (4, 9)))
        );
        assert_eq!(claude_version("claude-mythos-5"), Some(("mythos", (5, 0))));
        assert_eq!(claude_version("claude-opus"), None, "no version");
        assert_eq!(claude_version("mock-model"), None);
    }

    #[test]
    fn gpt_names_give_version_and_line() {
        use OpenAiLine::*;
        assert_eq!(gpt_version("gpt-5"), Some(((5, 0), Main)));
        assert_eq!(gpt_version("openai/gpt-5.1-codex"), Some(((5, 1), Codex)));
        assert_eq!(gpt_version("gpt-5.1-codex-mini"), Some(((5, 1), CodexMini)));
        assert_eq!(gpt_version("gpt-5.1-codex-max"), Some(((5, 1), CodexMax)));
        assert_eq!(gpt_version("gpt-5.2-pro"), Some(((5, 2), Pro)));
        assert_eq!(gpt_version("gpt-5.2-chat-latest"), Some(((5, 2), Chat)));
        assert_eq!(gpt_version("gpt-5-mini-2025-08-07"), Some(((5, 0), Main)));
        assert_eq!(gpt_version("gpt-6"), Some(((6, 0), Main)));
        assert_eq!(gpt_version("gpt-oss-20b"), None);
        assert!(is_o_series("o4-mini") && !is_o_series("ollama"));
    }

    #[test]
    fn gemini_names_give_version_and_line() {
        use GeminiLine::*;
        assert_eq!(
            gemini_version("models/gemini-2.5-flash-lite"),
            Some(((2, 5), FlashLite))
        );
        assert_eq!(
            gemini_version("gemini-3.1-pro-preview"),
            Some(((3, 1), Pro))
        );
        assert_eq!(gemini_version("gemini-4-pro"), Some(((4, 0), Pro)));
        assert_eq!(gemini_version("gemini-embedding-001"), None);
    }

    #[test]
    fn the_newest_row_not_after_the_version_is_taken() {
        let rows = [((1, 0), 'a', 10), ((2, 0), 'a', 20), ((3, 0), 'b', 30)];
        assert_eq!(newest_not_after(&rows, (9, 9), 'a'), Some(20));
        assert_eq!(newest_not_after(&rows, (1, 5), 'a'), Some(10));
        assert_eq!(newest_not_after(&rows, (0, 9), 'a'), None);
        assert_eq!(newest_not_after(&rows, (2, 0), 'b'), None);
    }
}
