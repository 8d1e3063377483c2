//! Headlines of reasoning text (DESIGN §3, a view concern): `<topic>…</topic>`
//! labels and lines that are only bold text (`**Checking the units**`), the way
//! OpenAI and Gemini title their summaries. The latest one wins. Pure.

/// Tracks the latest headline of a growing text, scanning each complete line
/// once, so per-chunk work does not grow with the text before it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeadlineTracker {
    /// Bytes of the text already scanned (always at a line start).
    scanned: usize,
    latest: Option<String>,
}

impl HeadlineTracker {
    /// Scans the complete lines added since the last call; returns the latest headline.
    pub fn update(&mut self, text: &str) -> Option<String> {
        if text.len() < self.scanned {
            *self = Self::default(); // the text was replaced, not appended
        }
        let fresh = &text[self.scanned..];
        if let Some(end) = fresh.rfind('\n') {
            for line in fresh[..end].split('\n') {
                if let Some(h) = headline_of_line(line) {
                    self.latest = Some(h);
                }
            }
            self.scanned += end + 1;
        }
        // The unfinished last line may already hold a complete topic label.
        let tail = &text[self.scanned..];
        topic_in(tail)
            .or(self.latest.as_deref())
            .map(|h| h.trim().to_owned())
            .filter(|h| !h.is_empty())
    }
}

/// The headline a single line carries, if any.
pub fn headline_of_line(line: &str) -> Option<String> {
    if let Some(topic) = topic_in(line) {
        return Some(topic.trim().to_owned());
    }
    let trimmed = line.trim();
    let inner = trimmed.strip_prefix("**")?.strip_suffix("**")?;
    (!inner.is_empty() && !inner.contains("**")).then(|| inner.trim().to_owned())
}

/// The text of the last complete `<topic>…</topic>` in `s`.
fn topic_in(s: &str) -> Option<&str> {
    let start = s.rfind("<topic>")? + "<topic>".len();
    let end = s[start..].find("</topic>")? + start;
    Some(&s[start..end])
}

/// Reasoning text as shown: `<topic>` labels removed (they live in the header).
pub fn strip_topics(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<topic>") {
        match rest[start..].find("</topic>") {
            Some(len) => {
                out.push_str(&rest[..start]);
                rest = &rest[start + len + "</topic>".len()..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

/// The last non-empty line of the text (the folded preview without a headline).
pub fn last_line(text: &str) -> &str {
    text.trim_end()
        .rsplit('\n')
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bold_only_lines_and_topics_are_headlines_latest_wins() {
        let mut t = HeadlineTracker::default();
        assert_eq!(
            t.update("**Reading the question**\nfirst"),
            Some("Reading the question".into())
        );
        assert_eq!(
            t.update("**Reading the question**\nfirst\n<topic>Units</topic> check\nmore"),
            Some("Units".into())
        );
        assert_eq!(headline_of_line("**bold** and more"), None);
        assert_eq!(headline_of_line("  **Spaced**  "), Some("Spaced".into()));
    }

    #[test]
    fn a_topic_in_the_unfinished_line_counts_once_complete() {
        let mut t = HeadlineTracker::default();
        assert_eq!(t.update("<topic>Half"), None);
        assert_eq!(
            t.update("<topic>Half done</topic>"),
            Some("Half done".into())
        );
    }

    #[test]
    fn topics_are_stripped_from_the_shown_text() {
        assert_eq!(
            strip_topics("a <topic>T</topic>b <topic>open"),
            "a b <topic>open"
        );
    }

    #[test]
    fn last_line_skips_trailing_blank_lines() {
        assert_eq!(last_line("one\ntwo\n\n"), "two");
        assert_eq!(last_line(""), "");
    }
}
