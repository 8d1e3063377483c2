//! Headlines of reasoning text (design §3): `<topic>…</topic>` labels and lines
//! that are only bold text (`**Checking the units**`), the way OpenAI and
//! Gemini title their summaries. The latest one names the block. Pure, and
//! shared: the reducer keeps a block's headline as its text grows, the history
//! migration derives it from stored text, and the view strips the labels from
//! the text it shows. Events keep carrying the raw text.

const OPEN: &str = "<topic>";
const CLOSE: &str = "</topic>";
/// Longest headline kept, in chars: a header line, not a paragraph (the view
/// cuts it further to the width it has).
pub const MAX_HEADLINE_CHARS: usize = 200;

/// Tracks the latest headline of a growing text. Every byte is looked at a
/// bounded number of times, so the work per chunk is proportional to the chunk,
/// not to the text before it.
#[derive(Debug, Clone, Default)]
pub struct HeadlineTracker {
    /// Start of the line not yet complete (bold-only lines are judged whole).
    line_start: usize,
    /// Where the search for the next newline resumes.
    newline_from: usize,
    /// Where the search for the next topic tag resumes.
    topic_from: usize,
    /// Start of the content of a `<topic>` whose closing tag has not arrived.
    open_topic: Option<usize>,
    /// The latest headline and the byte offset where it ended (latest wins).
    latest: Option<(usize, String)>,
    /// Length of the text last seen (to notice a text that was replaced).
    seen: usize,
}

/// Tracker state is a cache of what the text already says: two blocks with the
/// same text are equal however much of it each tracker has scanned.
impl PartialEq for HeadlineTracker {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl HeadlineTracker {
    /// Scans what was appended to `text` since the last call; returns true when
    /// the headline changed.
    pub fn update(&mut self, text: &str) -> bool {
        if text.len() < self.seen {
            *self = Self::default(); // replaced, not appended: start over
        }
        self.seen = text.len();
        let before = self.headline().map(str::to_owned);
        self.scan_topics(text);
        self.scan_lines(text);
        self.headline() != before.as_deref()
    }

    /// The text is complete: its last line counts even without a newline.
    /// Returns true when the headline changed.
    pub fn finish(&mut self, text: &str) -> bool {
        let before = self.headline().map(str::to_owned);
        self.update(text);
        let tail = &text[self.line_start.min(text.len())..];
        if let Some(h) = bold_line(tail) {
            self.offer(text.len(), h);
            self.line_start = text.len();
            self.newline_from = text.len();
        }
        self.headline() != before.as_deref()
    }

    /// The latest headline, if the text has one.
    pub fn headline(&self) -> Option<&str> {
        self.latest.as_ref().map(|(_, h)| h.as_str())
    }

    fn offer(&mut self, end: usize, headline: String) {
        if self.latest.as_ref().is_none_or(|(at, _)| end >= *at) {
            self.latest = Some((end, headline));
        }
    }

    fn scan_topics(&mut self, text: &str) {
        loop {
            let from = floor_char_boundary(text, self.topic_from);
            match self.open_topic {
                None => match text[from..].find(OPEN) {
                    Some(i) => {
                        let content = from + i + OPEN.len();
                        self.open_topic = Some(content);
                        self.topic_from = content;
                    }
                    None => {
                        // A tag cut by the chunk boundary is found next time.
                        self.topic_from = from.max(text.len().saturating_sub(OPEN.len() - 1));
                        return;
                    }
                },
                Some(start) => match text[from..].find(CLOSE) {
                    Some(i) => {
                        let close = from + i;
                        let content = &text[start..close];
                        // An opening tag inside a label starts it again.
                        let content = content
                            .rfind(OPEN)
                            .map_or(content, |j| &content[j + OPEN.len()..]);
                        if let Some(h) = clean(content) {
                            self.offer(close + CLOSE.len(), h);
                        }
                        self.open_topic = None;
                        self.topic_from = close + CLOSE.len();
                    }
                    None => {
                        self.topic_from = from.max(text.len().saturating_sub(CLOSE.len() - 1));
                        return;
                    }
                },
            }
        }
    }

    fn scan_lines(&mut self, text: &str) {
        let from = self.newline_from.min(text.len());
        let Some(last) = text[from..].rfind('\n').map(|i| from + i) else {
            self.newline_from = text.len();
            return;
        };
        let mut start = self.line_start;
        for line in text[start..last].split('\n') {
            start += line.len() + 1;
            if let Some(h) = bold_line(line) {
                self.offer(start - 1, h);
            }
        }
        self.line_start = last + 1;
        self.newline_from = last + 1;
    }
}

/// The headline of a complete text (a stored block): the same answer the
/// tracker gives once the whole text has streamed and the block has ended.
pub fn headline_of(text: &str) -> Option<String> {
    let mut tracker = HeadlineTracker::default();
    tracker.finish(text);
    tracker.headline().map(str::to_owned)
}

/// The headline a line that is only bold text carries.
fn bold_line(line: &str) -> Option<String> {
    let inner = line.trim().strip_prefix("**")?.strip_suffix("**")?;
    if inner.contains("**") {
        return None;
    }
    clean(inner)
}

/// A label as shown: one line, trimmed, at most `MAX_HEADLINE_CHARS`.
fn clean(raw: &str) -> Option<String> {
    let joined = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.is_empty() {
        return None;
    }
    Some(match joined.char_indices().nth(MAX_HEADLINE_CHARS) {
        Some((cut, _)) => format!("{}\u{2026}", &joined[..cut]),
        None => joined,
    })
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Reasoning text as shown: `<topic>` labels removed (they live in the
/// header). While a label is still arriving, its unclosed tag on the last line
/// of `text` (or the start of one, `<top`) is hidden too, so the markup never
/// flashes; an opening tag with a newline after it and no closing tag is
/// literal text.
pub fn strip_topics(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        match rest[start..].find(CLOSE) {
            Some(len) => {
                out.push_str(&rest[..start]);
                rest = &rest[start + len + CLOSE.len()..];
            }
            None if !rest[start..].contains('\n') => {
                out.push_str(&rest[..start]);
                return out;
            }
            None => break,
        }
    }
    // A tag cut at the end of what arrived so far: `<`, `<to`, … `<topic`.
    let partial = (1..OPEN.len())
        .rev()
        .find(|&n| rest.ends_with(&OPEN[..n]))
        .unwrap_or(0);
    out.push_str(&rest[..rest.len() - partial]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `text` in pieces of `size` bytes (on char boundaries).
    fn streamed(text: &str, size: usize) -> (Vec<Option<String>>, HeadlineTracker) {
        let mut tracker = HeadlineTracker::default();
        let mut seen = Vec::new();
        let mut end = 0;
        while end < text.len() {
            end = (end + size).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            tracker.update(&text[..end]);
            seen.push(tracker.headline().map(str::to_owned));
        }
        (seen, tracker)
    }

    #[test]
    fn bold_only_lines_and_topics_are_headlines_latest_wins() {
        let mut t = HeadlineTracker::default();
        assert!(t.update("**Reading the question**\nfirst"));
        assert_eq!(t.headline(), Some("Reading the question"));
        assert!(t.update("**Reading the question**\nfirst\n<topic>Units</topic> check\nmore"));
        assert_eq!(t.headline(), Some("Units"));
        assert!(!t.update("**Reading the question**\nfirst\n<topic>Units</topic> check\nmore text"));
        assert_eq!(headline_of("**bold** and more\n"), None);
        assert_eq!(headline_of("  **Spaced**  \n"), Some("Spaced".into()));
        assert_eq!(headline_of("**a** b **c**\n"), None);
    }

    #[test]
    fn a_topic_counts_as_soon_as_it_closes_even_mid_line() {
        let mut t = HeadlineTracker::default();
        assert!(!t.update("<topic>Half"));
        assert_eq!(t.headline(), None);
        assert!(t.update("<topic>Half done</topic>"));
        assert_eq!(t.headline(), Some("Half done"));
        // A complete label before an unclosed one still counts.
        assert_eq!(
            headline_of("<topic>A</topic> then <topic>B"),
            Some("A".into())
        );
        assert_eq!(headline_of("<topic>a<topic>b</topic>"), Some("b".into()));
        assert_eq!(headline_of("<topic>  </topic>"), None);
    }

    #[test]
    fn the_last_line_counts_only_once_the_text_is_complete() {
        let mut t = HeadlineTracker::default();
        assert!(!t.update("text\n**Final check**"));
        assert_eq!(t.headline(), None, "the line may still grow");
        assert!(t.finish("text\n**Final check**"));
        assert_eq!(t.headline(), Some("Final check"));
        assert_eq!(headline_of("**Only**"), Some("Only".into()));
    }

    #[test]
    fn every_way_of_streaming_a_text_ends_at_the_same_headline() {
        let text = "**Reading the question**\nThe user wants ü units.\n\
                    <topic>Checking the units</topic>\nConverting.\n**Final check**\nDone.\n\
                    <topic>Writing\nthe answer</topic> tail";
        for size in 1..=text.len() {
            let (seen, mut tracker) = streamed(text, size);
            tracker.finish(text);
            assert_eq!(
                tracker.headline(),
                Some("Writing the answer"),
                "pieces of {size}"
            );
            let known = [
                "Reading the question",
                "Checking the units",
                "Final check",
                "Writing the answer",
            ];
            assert!(
                seen.iter().flatten().all(|h| known.contains(&h.as_str())),
                "pieces of {size}: {seen:?}"
            );
        }
        let (seen, _) = streamed(text, 1);
        let distinct: Vec<&str> =
            seen.iter()
                .flatten()
                .map(String::as_str)
                .fold(Vec::new(), |mut acc, h| {
                    if acc.last() != Some(&h) {
                        acc.push(h);
                    }
                    acc
                });
        assert_eq!(
            distinct,
            [
                "Reading the question",
                "Checking the units",
                "Final check",
                "Writing the answer"
            ]
        );
    }

    #[test]
    fn work_per_chunk_does_not_grow_with_the_text() {
        // One endless line with no tags: each update may look only at the new
        // bytes (plus a tag's length), so positions always move forward.
        let mut t = HeadlineTracker::default();
        let mut text = String::new();
        for _ in 0..1000 {
            text.push_str("abcdefgh");
            t.update(&text);
            assert!(t.topic_from + OPEN.len() >= text.len());
            assert_eq!(t.newline_from, text.len());
        }
    }

    #[test]
    fn long_labels_are_cut_and_kept_on_one_line() {
        let long = "word ".repeat(100);
        let h = headline_of(&format!("<topic>{long}</topic>")).unwrap_or_default();
        assert_eq!(h.chars().count(), MAX_HEADLINE_CHARS + 1);
        assert!(h.ends_with('\u{2026}'));
        assert_eq!(
            headline_of("<topic>two\n  lines</topic>"),
            Some("two lines".into())
        );
    }

    #[test]
    fn a_replaced_text_is_scanned_again() {
        let mut t = HeadlineTracker::default();
        t.update("**Long first headline**\nmore text here");
        assert!(t.update("<topic>New</topic>"));
        assert_eq!(t.headline(), Some("New"));
    }

    #[test]
    fn topics_are_stripped_from_the_shown_text_even_while_arriving() {
        assert_eq!(strip_topics("a <topic>T</topic>b"), "a b");
        // Still arriving on the last line: hidden, never flashed.
        assert_eq!(strip_topics("a <topic>Check"), "a ");
        assert_eq!(strip_topics("a <top"), "a ");
        assert_eq!(strip_topics("a <"), "a ");
        // Not a label after all (a newline and no closing tag): literal.
        assert_eq!(strip_topics("a <topic>open\nnext"), "a <topic>open\nnext");
        assert_eq!(strip_topics("x < y"), "x < y");
    }
}
