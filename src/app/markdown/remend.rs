//! Unfinished inline markup at the end of a streaming text, made to render
//! sensibly until the rest arrives (after Vercel's Streamdown, whose `remend`
//! closes `**bold` and hides a link's half-written target). Pure; applied to
//! the streaming view's tail only, just before it is rendered: never to the
//! stored text, never to a finished block.
//!
//! pulldown-cmark says what is still open: the markers it left as literal
//! text in the block the text ends in. Then:
//! - an emphasis or strikethrough opener (`**`, `*`, `_`, `~~`) is closed at
//!   the end, or hidden if nothing follows it yet; a marker between two
//!   letters (`2*3`) is left alone;
//! - an unmatched backtick run is closed (its content is code);
//! - `[text](partial-url` shows as `text`; an unclosed `[`, and a `[text]`
//!   that a `(` may still follow, lose their brackets;
//! - a formula not closed yet (`$x…`, `\(…`, `\[…`) shows as its source:
//!   nothing after its opener is read as markdown, or closed by this module
//!   (`\(` and `\[` are already shown so by `delimiters.rs`); a `$` before a
//!   digit is taken for a price;
//! - a last line that is only a block marker so far (`-`, `1.`, `#`) is
//!   hidden: `Title\n-` would otherwise flash as a heading;
//! - a trailing backslash (an escape not finished) is hidden.
//!
//! Nothing changes inside code blocks or code spans.

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use super::stream_split::is_bare_marker;
use super::OPTIONS;

/// `src` (the streaming tail) with its unfinished inline markup closed or
/// hidden, as described in the module docs.
pub fn remend(src: &str) -> Cow<'_, str> {
    let last = src.rfind('\n').map_or(0, |at| at + 1);
    let src = if is_bare_marker(&src[last..]) {
        &src[..last]
    } else {
        src
    };
    // Most tails are plain words: nothing to parse.
    let marked = |b: &u8| {
        matches!(
            b,
            b'*' | b'_' | b'~' | b'`' | b'[' | b']' | b'$' | b'\\' | b'!'
        )
    };
    if !src.as_bytes().iter().any(marked) {
        return Cow::Borrowed(src);
    }
    let linked = fix_link(src);
    match close_inline(&linked) {
        Some(fixed) => Cow::Owned(fixed),
        None => match linked {
            Cow::Borrowed(_) => Cow::Borrowed(src),
            Cow::Owned(s) => Cow::Owned(s),
        },
    }
}

/// What one parse of the text says about the block it ends in.
struct Reading {
    /// The block (paragraph, heading, cell, tight list item) the text ends
    /// in, from its start; none if the text ends in code or after a block.
    region: Option<Range<usize>>,
    /// Bytes pulldown-cmark left as literal text, outside closed inline
    /// elements (whose literal markers can never match anything later).
    literal: Vec<bool>,
}

fn read(src: &str) -> Reading {
    let mut literal = vec![false; src.len()];
    // Open elements: whether each is a block, and where it starts.
    let mut stack: Vec<(bool, usize)> = Vec::new();
    let mut last_leaf: Option<usize> = None;
    let mut in_code = false;
    let mut ends: Vec<(usize, usize)> = Vec::new();
    let mut inline_closed: Vec<Range<usize>> = Vec::new();
    for (event, range) in Parser::new_ext(src, OPTIONS).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                in_code |= matches!(tag, Tag::CodeBlock(_));
                stack.push((is_block(&tag), range.start));
            }
            Event::End(tag) => {
                if let Some((block, start)) = stack.pop() {
                    if block {
                        ends.push((start, range.end));
                    } else {
                        inline_closed.push(range.clone());
                    }
                }
                if tag == TagEnd::CodeBlock {
                    in_code = false;
                    last_leaf = None;
                }
            }
            Event::Text(_) if in_code => last_leaf = None,
            other => {
                if in_code {
                    continue;
                }
                if let Event::Text(_) = other {
                    for flag in &mut literal[range.clone()] {
                        *flag = true;
                    }
                }
                last_leaf = stack
                    .iter()
                    .rev()
                    .find(|(block, _)| *block)
                    .map(|(_, at)| *at);
            }
        }
    }
    for range in inline_closed {
        for flag in &mut literal[range] {
            *flag = false;
        }
    }
    let trimmed = src.trim_end().len();
    let region = last_leaf.and_then(|start| {
        ends.iter()
            .find(|(s, end)| *s == start && *end >= trimmed)
            .map(|_| start..src.len())
    });
    Reading { region, literal }
}

fn is_block(tag: &Tag<'_>) -> bool {
    !matches!(
        tag,
        Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Link { .. }
            | Tag::Image { .. }
            | Tag::Superscript
            | Tag::Subscript
    )
}

/// The last unfinished link or image of the region: `[text](url…` becomes
/// `text`; an unclosed `[` or a `[text]` at the very end loses its brackets.
fn fix_link(src: &str) -> Cow<'_, str> {
    let reading = read(src);
    let Some(region) = reading.region else {
        return Cow::Borrowed(src);
    };
    let bytes = src.as_bytes();
    let lit = |at: usize| reading.literal[at] && !escaped(bytes, at);
    // The last literal `[` that is not closed, or closed by a `]` that a
    // `(` with no `)` follows, or by the text's last `]`.
    let mut at = region.end;
    while let Some(open) = src[region.start..at].rfind('[').map(|i| region.start + i) {
        at = open;
        if !lit(open) {
            continue;
        }
        let bang = open > 0 && bytes[open - 1] == b'!' && lit(open - 1);
        let start = if bang { open - 1 } else { open };
        let Some(close) = matching_bracket(src, open, &lit) else {
            let mut fixed = String::with_capacity(src.len());
            fixed.push_str(&src[..start]);
            fixed.push_str(&src[open + 1..]);
            return Cow::Owned(fixed);
        };
        let after = &src[close + 1..];
        let url_open = after.starts_with('(') && !after.contains(')');
        if url_open || after.trim_end().is_empty() {
            let mut fixed = String::with_capacity(src.len());
            fixed.push_str(&src[..start]);
            fixed.push_str(&src[open + 1..close]);
            if !url_open {
                fixed.push_str(after);
            }
            return Cow::Owned(fixed);
        }
        // A finished bracket pair that is not a link: nothing to fix.
        return Cow::Borrowed(src);
    }
    Cow::Borrowed(src)
}

/// The literal `]` that closes the literal `[` at `open`, brackets nesting.
fn matching_bracket(src: &str, open: usize, lit: &impl Fn(usize) -> bool) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in src.bytes().enumerate().skip(open) {
        if !lit(i) {
            continue;
        }
        match b {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// An opener found in the region.
#[derive(Debug, Clone, Copy)]
struct Opener {
    at: usize,
    len: usize,
    c: u8,
    /// Closed at the end (else only hidden when nothing follows it).
    close: bool,
}

/// Closes the region's open emphasis and code span, or shows its open
/// formula as source. `None` if there is nothing to change.
fn close_inline(src: &str) -> Option<String> {
    let reading = read(src);
    let region = reading.region?;
    let bytes = src.as_bytes();
    let lit = |at: usize| reading.literal[at] && !escaped(bytes, at);
    let mut openers: Vec<Opener> = Vec::new();
    // Where the region stops being markdown: an open code span or formula.
    let mut stop: Option<(usize, Stop)> = None;
    let mut i = region.start;
    while i < region.end {
        let b = bytes[i];
        let run = bytes[i..].iter().take_while(|x| **x == b).count();
        if b == b'\\'
            && !escaped(bytes, i)
            && matches!(bytes.get(i + 1), Some(b'(' | b'['))
            && reading.literal[i + 1]
        {
            let close = if bytes[i + 1] == b'(' { "\\)" } else { "\\]" };
            if !src[i + 2..].contains(close) {
                stop = Some((i, Stop::Delimited));
                break;
            }
        }
        if !lit(i) {
            i += 1;
            continue;
        }
        match b {
            b'`' => {
                stop = Some((i, Stop::Code(run)));
                break;
            }
            b'$' if run <= 2 => {
                let next = bytes.get(i + run);
                if next.is_none_or(|n| !n.is_ascii_digit() && !n.is_ascii_whitespace()) {
                    stop = Some((i, Stop::Formula));
                    break;
                }
            }
            b'*' | b'_' | b'~' if run <= 3 && opens(src, i, run) => {
                // Only the part of the run left literal needs closing; a
                // single `~` (which may become `~~`) is only ever hidden.
                let len = (i..i + run).filter(|&k| lit(k)).count();
                let close = b != b'~' || run == 2;
                openers.push(Opener {
                    at: i,
                    len,
                    c: b,
                    close,
                });
            }
            _ => {}
        }
        i += run;
    }
    let end = stop.map_or(region.end, |(at, _)| at);
    // Whitespace and a half-typed escape at the end wait for what follows.
    let mut body_end = src[..end].trim_end().len();
    if stop.is_none() && escaped(bytes, body_end) && body_end > region.start {
        body_end -= 1;
        body_end = src[..body_end].trim_end().len();
    }
    // An opener with nothing after it yet is hidden (with what follows it).
    let mut cut = None;
    while let Some(last) = openers.last() {
        if stop.is_none() && src[last.at + last.len..body_end].trim().is_empty() {
            body_end = src[..last.at].trim_end().len().max(region.start);
            cut = Some(body_end);
            openers.pop();
        } else {
            break;
        }
    }
    if openers.is_empty() && stop.is_none() && cut.is_none() && body_end == src.trim_end().len() {
        return None;
    }
    openers.retain(|o| o.close);
    let mut out = String::with_capacity(src.len() + 16);
    match stop {
        None => {
            out.push_str(&src[..body_end]);
        }
        Some((at, Stop::Code(run))) => {
            let content = &src[at + run..];
            if content.trim().is_empty() {
                out.push_str(src[..at].trim_end());
            } else {
                out.push_str(src.trim_end());
                if out.ends_with('`') {
                    out.push(' ');
                }
                out.push_str(&"`".repeat(run));
            }
        }
        Some((at, Stop::Formula)) if src[at..].trim_start_matches('$').trim().is_empty() => {
            out.push_str(src[..at].trim_end());
        }
        Some((at, Stop::Formula)) => {
            out.push_str(&src[..at]);
            for c in src[at..].trim_end().chars() {
                if c.is_ascii_punctuation() {
                    out.push('\\');
                }
                out.push(c);
            }
        }
        Some((_, Stop::Delimited)) => out.push_str(src.trim_end()),
    }
    for opener in openers.iter().rev() {
        for _ in 0..opener.len {
            out.push(char::from(opener.c));
        }
    }
    Some(out)
}

/// What stops the region being read as markdown.
#[derive(Debug, Clone, Copy)]
enum Stop {
    /// An open code span, its backtick run.
    Code(usize),
    /// An open `$` formula: shown as source.
    Formula,
    /// An open `\(` or `\[`: `delimiters.rs` shows it as source.
    Delimited,
}

/// Whether the delimiter run at `at` can open emphasis: left-flanking, and
/// not between two alphanumerics (`2*3`, `snake_case`).
fn opens(src: &str, at: usize, run: usize) -> bool {
    let before = src[..at].chars().next_back();
    let Some(after) = src[at + run..].chars().next() else {
        return true;
    };
    if after.is_whitespace() {
        return false;
    }
    let punct = |c: char| !c.is_alphanumeric() && !c.is_whitespace();
    let intraword = before.is_some_and(char::is_alphanumeric) && after.is_alphanumeric();
    let left = !punct(after) || before.is_none_or(|c| c.is_whitespace() || punct(c));
    left && !intraword
}

/// Whether the byte at `at` is escaped by an odd run of backslashes before it.
pub(super) fn escaped(bytes: &[u8], at: usize) -> bool {
    bytes[..at.min(bytes.len())]
        .iter()
        .rev()
        .take_while(|b| **b == b'\\')
        .count()
        % 2
        == 1
}

#[cfg(test)]
mod tests {
    use super::super::render_markdown;
    use super::*;

    #[test]
    fn unclosed_emphasis_is_closed_and_an_empty_opener_hidden() {
        for (partial, fixed) in [
            ("This is **bold", "This is **bold**"),
            ("This is **bold ", "This is **bold**"),
            ("This is **bold*", "This is **bold**"),
            ("*a **b", "*a **b***"),
            ("***both", "***both***"),
            ("_em", "_em_"),
            ("~~gone", "~~gone~~"),
            ("Then **", "Then"),
            ("**done** and *", "**done** and"),
            ("done **x**", "done **x**"),
            ("2*3 and a*b", "2*3 and a*b"),
            ("snake_case", "snake_case"),
            ("5 * 3", "5 * 3"),
            ("~100", "~100"),
            ("about ~", "about"),
            ("costs $", "costs"),
        ] {
            assert_eq!(remend(partial), fixed, "{partial:?}");
        }
    }

    #[test]
    fn only_the_block_the_text_ends_in_is_repaired() {
        assert_eq!(remend("**a\n\nb"), "**a\n\nb");
        assert_eq!(remend("**a\n\n**b"), "**a\n\n**b**");
        assert_eq!(remend("- one\n- **two"), "- one\n- **two**");
        assert_eq!(remend("> quote *it"), "> quote *it*");
    }

    #[test]
    fn code_spans_close_and_code_blocks_are_untouched() {
        assert_eq!(remend("Run `cargo **x"), "Run `cargo **x`");
        assert_eq!(remend("**Run** `"), "**Run**");
        assert_eq!(remend("**a `b"), "**a `b`**");
        assert_eq!(remend("`a ``b``"), "`a ``b`` `");
        assert_eq!(remend("```\n**x"), "```\n**x");
        assert_eq!(remend("```rust\nlet x = *p"), "```rust\nlet x = *p");
    }

    #[test]
    fn links_hide_their_unfinished_parts() {
        assert_eq!(remend("See [the docs](https://exa"), "See the docs");
        assert_eq!(remend("See [the **docs"), "See the **docs**");
        assert_eq!(remend("See [the docs]"), "See the docs");
        assert_eq!(remend("See ![logo](http"), "See logo");
        assert_eq!(remend("See [a](b) and [c"), "See [a](b) and c");
        assert_eq!(remend("See [a] b"), "See [a] b");
        assert_eq!(remend("`[x`"), "`[x`");
    }

    #[test]
    fn an_open_formula_stays_source() {
        assert_eq!(remend("So $a*b* **c"), "So \\$a\\*b\\* \\*\\*c");
        assert_eq!(remend("**a** \\(x **y"), "**a** \\(x **y");
        assert_eq!(remend("costs $5 and **more"), "costs $5 and **more**");
        assert_eq!(remend("done $x$ and **y"), "done $x$ and **y**");
    }

    #[test]
    fn bare_markers_and_half_escapes_are_hidden() {
        assert_eq!(remend("Title\n-"), "Title\n");
        assert_eq!(remend("Items:\n1."), "Items:\n");
        assert_eq!(remend("a \\"), "a");
    }

    /// The rendered text of `source`, tags dropped.
    fn text_of(source: &str) -> String {
        let html = render_markdown(source);
        let mut text = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => text.push(c),
                _ => {}
            }
        }
        text
    }

    #[test]
    fn no_prefix_of_well_formed_markup_shows_a_raw_marker() {
        let texts = [
            "Plain **bold words** then *italic* and ~~struck~~ and `code here` end.",
            "A [link text](https://example.com/page) and ![alt](https://e.com/i.png) done.",
            "- **Item one** is *good*\n- `two` and [three](https://x.org)\n",
            "Mix ***both*** and **bold with `code` inside** end.",
        ];
        for text in texts {
            let final_text = text_of(text);
            for marker in ["**", "~~", "`", "](", "[", "]"] {
                assert!(!final_text.contains(marker), "{text:?}");
            }
            for cut in (1..text.len()).filter(|c| text.is_char_boundary(*c)) {
                let shown = text_of(&remend(&text[..cut]));
                for marker in ["**", "~~", "`", "](", "[", "]", "_"] {
                    assert!(
                        !shown.contains(marker),
                        "{:?} shows {marker:?}: {shown:?}",
                        &text[..cut]
                    );
                }
            }
        }
    }

    /// Pieces of inline markup, open and closed, and the text around them.
    const INLINE: &[&str] = &[
        "word ", "**", "*", "_", "__", "~~", "~", "`", "``", "[", "]", "(", ")", "](", "![", "$",
        "$$", "\\(", "\\)", "\\[", "\\", "<", ">", "\n", "\n\n", "- ", "1. ", "# ", "```\n", "é",
        "2*3", "|",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2048, ..Default::default() })]
        #[test]
        fn any_tail_is_repaired_without_panic_and_renders_inert(
            pieces in proptest::collection::vec(proptest::sample::select(INLINE), 0..24)
        ) {
            let text = pieces.concat();
            let fixed = remend(&text);
            let html = render_markdown(&fixed);
            proptest::prop_assert!(
                crate::app::markdown::check::inert_violation(&html).is_none(),
                "{text:?} -> {fixed:?}: {html}"
            );
        }
    }
}
