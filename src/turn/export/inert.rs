//! Markdown that no viewer reads as HTML: an export is opened later in
//! viewers that render raw HTML, so every piece of text the model or an
//! imported file wrote goes through [`inert_markdown`] on its way into one.
//! Pure.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// `text` as Markdown that no viewer reads as HTML, and that reads the same
/// otherwise:
/// - every `<` that could open a tag, a comment, a declaration or an autolink
///   (followed by a letter, `/`, `!` or `?`: CommonMark's HTML and autolinks
///   all start so) becomes `&lt;`, which still shows as `<`;
/// - except inside code spans and code blocks, where CommonMark never reads
///   HTML and an entity would show as typed. Only what is code in each of
///   [`DIALECTS`] counts: a span one of them does not see would let that one
///   read its HTML;
/// - a code fence still open at the end is closed, so that the code block and
///   the export's text after it cannot change places (the next piece's code
///   would otherwise be read as Markdown, and its HTML as HTML).
///
/// Math (`$…$`) is not code: a viewer without math renders what is between
/// the dollars as ordinary Markdown (so `$a<b$` exports as `$a&lt;b$`).
pub fn inert_markdown(text: &str) -> String {
    // Escaping can change what the rest is: an HTML block that becomes a
    // paragraph takes the indented line after it as its own text instead of
    // as code. So escape until nothing outside code opens HTML any more
    // (each pass escapes more, or ends it; one or two passes in practice).
    let mut text = text.to_owned();
    loop {
        let (escaped, changed) = escape_outside_code(&text);
        text = escaped;
        if !changed {
            break;
        }
    }
    let fence = DIALECTS
        .iter()
        .find_map(|&options| code_ranges(&text, options).1);
    if let Some(fence) = fence {
        text.push('\n');
        text.push_str(&fence);
    }
    text
}

/// One pass of [`inert_markdown`]: `text` with each `<` that opens HTML
/// outside code escaped, and whether there was any.
fn escape_outside_code(text: &str) -> (String, bool) {
    let mut code = DIALECTS
        .iter()
        .map(|&options| code_ranges(text, options).0)
        .reduce(|a, b| intersection(&a, &b))
        .unwrap_or_default()
        .into_iter()
        .peekable();
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 16);
    let mut copied = 0;
    for (i, _) in text.match_indices('<') {
        while code.next_if(|r| r.end <= i).is_some() {}
        if code.peek().is_some_and(|r| r.start <= i) {
            continue;
        }
        let opens = bytes
            .get(i + 1)
            .is_some_and(|b| b.is_ascii_alphabetic() || matches!(b, b'/' | b'!' | b'?'));
        if opens {
            out.push_str(&text[copied..i]);
            out.push_str("&lt;");
            copied = i + 1;
        }
    }
    let changed = copied > 0;
    out.push_str(&text[copied..]);
    (out, changed)
}

/// GitHub's dialect (the widest one viewers commonly read).
pub(super) const GITHUB: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_FOOTNOTES);

/// The dialects a viewer may read an export in: what is code in all of them
/// is left as typed. They disagree on where code spans are: table rows split
/// at pipes first, and a math span (`$…$`) can take a backtick away.
pub(super) const DIALECTS: [Options; 3] =
    [Options::empty(), GITHUB, GITHUB.union(Options::ENABLE_MATH)];

/// The byte ranges of `text` that are code under `options` (in order, not
/// overlapping), and the fence that closes a top-level fenced block still
/// open at the end.
fn code_ranges(text: &str, options: Options) -> (Vec<Range<usize>>, Option<String>) {
    let mut ranges: Vec<Range<usize>> = Vec::new();
    let mut open_fence = None;
    let mut depth = 0usize;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Code(_) => ranges.push(range),
            Event::Start(Tag::CodeBlock(kind)) => {
                // Inside a container (a list, a quote) a block closes with its
                // container, which the unindented text after this piece ends.
                let at_end = text[range.end..].trim().is_empty();
                if depth == 0 && at_end && matches!(kind, CodeBlockKind::Fenced(_)) {
                    open_fence = unclosed_fence(&text[range.clone()]);
                }
                ranges.push(range);
            }
            Event::Start(
                Tag::BlockQuote(_) | Tag::List(_) | Tag::Item | Tag::FootnoteDefinition(_),
            ) => depth += 1,
            Event::End(
                TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Item | TagEnd::FootnoteDefinition,
            ) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    (ranges, open_fence)
}

/// The parts of `text` both lists cover (each list in order, not overlapping).
fn intersection(a: &[Range<usize>], b: &[Range<usize>]) -> Vec<Range<usize>> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        let (start, end) = (x.start.max(y.start), x.end.min(y.end));
        if start < end {
            out.push(start..end);
        }
        if x.end <= y.end {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The closing fence a fenced code block's source lacks, if it lacks one.
fn unclosed_fence(block: &str) -> Option<String> {
    let mut lines = block.lines();
    let opening = lines.next()?.trim_start_matches(' ');
    let fence_char = opening.chars().next()?;
    let length = opening.chars().take_while(|&c| c == fence_char).count();
    let closed = lines.next_back().is_some_and(|last| {
        let indent = last.len() - last.trim_start_matches(' ').len();
        let last = last.trim();
        indent <= 3 && last.len() >= length && last.chars().all(|c| c == fence_char)
    });
    (!closed).then(|| fence_char.to_string().repeat(length))
}
