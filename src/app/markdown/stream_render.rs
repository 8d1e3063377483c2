//! What the streaming view adds to the page as a text grows: the cuts of
//! `stream_split/` rendered to sanitized HTML, as patches for
//! `app::streaming_markdown` to apply. Pure (no DOM), so its output can be
//! checked natively against rendering the whole text at once.
//!
//! Every [`Fragment`] is sanitized: the renderer's output (`render_markdown`
//! ends in the sanitizer), a part of it cut at element boundaries (a list's
//! items without the list, a paragraph's content without the `<p>`), or HTML
//! written here (code lines, a list or paragraph's empty element) passed
//! through the sanitizer. Nothing else makes one, except reading back a frame
//! this module wrote: in the browser, frames come as JSON from the renderer's
//! own WebAssembly module (`crate::render_module`, `app::lazy_renderer`).
//!
//! A fence that is still open is built once and grows: its block (label,
//! copy button, `<pre><code>`) first, then each line as it completes,
//! highlighted with the state the lines before left; only the line being
//! written is highlighted again each time. When the fence closes the block is
//! already whole: nothing is rendered again.
//!
//! A line being written that grows past `LONG_LINE_BYTES` (minified code, a
//! data dump) is no longer highlighted while it grows: its text so far goes
//! on the page as escaped text, and each frame adds only what it grew by, so
//! a frame's work stays flat however long the line gets (one 200 KB line in
//! 256-byte chunks cost 31.6 s of CPU when it was highlighted and sanitized
//! whole every frame). When its newline comes the highlighter reads it once,
//! for the state the next lines need; that line stays plain until the text
//! is rendered whole (after a reload).

use pulldown_cmark_escape::escape_html_body_text;
use serde::{Deserialize, Serialize};

use super::code_block;
use super::highlight::LineHighlighter;
use super::remend::remend;
use super::stream_split::{list_is_loose, Splitter, Step, Tail};
use super::{render_markdown, sanitize};
use crate::turn::headline::strip_topics;

/// Sanitized HTML, ready for the page (see the module docs for what makes one).
/// Made only by the sanitizer: not `Deserialize`, so no JSON (a stored
/// record, an import, a server reply) can become trusted HTML. The browser's
/// copy of the renderer module's output comes through `from_render_module`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(transparent)]
pub struct Fragment(String);

impl Fragment {
    /// What the renderer module (this same code, sanitizer included, in its
    /// own WebAssembly instance) sent: `lazy_renderer` alone may say so.
    #[cfg(any(feature = "hydrate", test))]
    pub(in crate::app) fn from_render_module(html: String) -> Self {
        Fragment(html)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// What an open block is, so the page knows where its children go and what
/// holds its unfinished part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum OpenKind {
    /// A code block: lines go into its `<code>`, the line being written into a `<span>`.
    Code,
    /// A list: items go into the `<ul>`/`<ol>`, the unfinished one into an `<li>`.
    List,
    /// A paragraph: pieces go into the `<p>`, the unfinished one into a `<span>`.
    Paragraph,
}

/// One change to the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Patch {
    /// The text is not the last one grown: empty the page and start over.
    Reset,
    /// Finished blocks, appended to the page; `at`: where their source starts.
    Blocks { html: Fragment, at: usize },
    /// A block that grows (see [`OpenKind`]), appended to the page.
    Open {
        html: Fragment,
        kind: OpenKind,
        at: usize,
    },
    /// Finished children of the open block, after the ones before.
    Append(Fragment),
    /// The open block's finished children, all of them again (a list that
    /// turned loose).
    Replace(Fragment),
    /// The open block is finished: its unfinished part goes.
    Close,
    /// The open block was not what it seemed: it goes (its text is in the tail).
    Discard,
}

/// The patches since the last frame, and the unfinished end of the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Frame {
    pub patches: Vec<Patch>,
    /// The unfinished end: inside the open block if there is one, else below
    /// everything.
    pub tail: Fragment,
    pub tail_inside: bool,
}

impl Frame {
    /// Every piece of HTML this frame puts on the page (patches, then the
    /// tail): what the safety checks (tests, `make fuzz`) read.
    pub fn fragments(&self) -> impl Iterator<Item = &str> {
        let patches = self.patches.iter().filter_map(|patch| match patch {
            Patch::Blocks { html, .. }
            | Patch::Open { html, .. }
            | Patch::Append(html)
            | Patch::Replace(html) => Some(html.as_str()),
            Patch::Reset | Patch::Close | Patch::Discard => None,
        });
        patches.chain([self.tail.as_str()])
    }
}

/// What one growing text needs kept between frames.
#[derive(Debug, Clone, Default)]
pub struct StreamState {
    splitter: Splitter,
    /// The open fence's highlighter, holding what its last line left open.
    highlighter: Option<LineHighlighter>,
    /// Remove `<topic>` labels (reasoning text).
    without_topics: bool,
    /// The open fence's line being written, when it grew past
    /// `LONG_LINE_BYTES`: what of it is on the page already, as plain text.
    long_line: String,
}

/// Bytes of a fence's line being written past which it is shown plain and
/// grows by appending (see the module docs).
pub const LONG_LINE_BYTES: usize = 2048;

impl StreamState {
    pub fn new(without_topics: bool) -> Self {
        StreamState {
            without_topics,
            ..StreamState::default()
        }
    }
}

/// The next frame for `text` (the text of the last frame, grown). `last`:
/// the text is whole (the stream has ended): nothing is held back or
/// completed, and the page ends up as `render_markdown(text)` would render it.
pub fn frame(state: &mut StreamState, text: &str, last: bool) -> Frame {
    let mut patches = Vec::new();
    if state.splitter.is_restart(text) {
        *state = StreamState::new(state.without_topics);
        patches.push(Patch::Reset);
    }
    let split = state.splitter.advance(text, last);
    for step in split.steps {
        if let Some(patch) = state.patch(text, step) {
            patches.push(patch);
        }
    }
    if let Tail::FenceLine(line) = &split.tail {
        patches.extend(state.long_line_grown(&text[line.clone()]));
    }
    let (tail, tail_inside) = state.tail(text, split.tail, split.loose, last);
    Frame {
        patches,
        tail,
        tail_inside,
    }
}

impl StreamState {
    /// Markdown rendered (its `<topic>` labels removed first, if asked).
    fn render(&self, source: &str) -> String {
        if self.without_topics {
            render_markdown(&strip_topics(source))
        } else {
            render_markdown(source)
        }
    }

    fn patch(&mut self, text: &str, step: Step) -> Option<Patch> {
        Some(match step {
            Step::Blocks(range) => {
                let html = self.render(&text[range.clone()]);
                if html.is_empty() {
                    return None;
                }
                Patch::Blocks {
                    html: Fragment(html),
                    at: range.start,
                }
            }
            Step::FenceOpen(info, at) => {
                let highlighter = LineHighlighter::for_info(&info);
                let mut html = String::new();
                code_block::open_html(&highlighter, &mut html);
                code_block::close_html(&mut html);
                self.highlighter = Some(highlighter);
                Patch::Open {
                    html: Fragment(sanitize(&html)),
                    kind: OpenKind::Code,
                    at,
                }
            }
            Step::FenceLines(code) => {
                let shown = std::mem::take(&mut self.long_line);
                let highlighter = self.highlighter.as_mut()?;
                let mut html = String::with_capacity(code.len() * 2);
                for (i, line) in code.split_terminator('\n').enumerate() {
                    match line.strip_prefix(shown.as_str()) {
                        // The long line whose text is on the page already:
                        // read for the state it leaves, its rest added plain.
                        Some(rest) if i == 0 && !shown.is_empty() => {
                            highlighter.push_line(line, &mut String::new());
                            html.push_str(&escaped(rest));
                        }
                        _ => highlighter.push_line(line, &mut html),
                    }
                    html.push('\n');
                }
                Patch::Append(Fragment(sanitize(&html)))
            }
            Step::ListOpen(start, at) => {
                let html = match start {
                    None => "<ul>\n</ul>\n".to_owned(),
                    Some(1) => "<ol>\n</ol>\n".to_owned(),
                    Some(n) => format!("<ol start=\"{n}\">\n</ol>\n"),
                };
                Patch::Open {
                    html: Fragment(sanitize(&html)),
                    kind: OpenKind::List,
                    at,
                }
            }
            Step::ListItem(range, loose) => {
                Patch::Append(self.list_items(&text[range], loose, false))
            }
            Step::ListLoose(range) => Patch::Replace(self.list_items(&text[range], true, false)),
            Step::ParagraphOpen(at) => Patch::Open {
                html: Fragment(sanitize("<p></p>\n")),
                kind: OpenKind::Paragraph,
                at,
            },
            Step::ParagraphPiece(range, sep) => {
                let mut html = self.paragraph_content(&text[range]);
                html.0.push(sep);
                Patch::Append(html)
            }
            Step::Close => {
                self.highlighter = None;
                self.long_line.clear();
                Patch::Close
            }
            Step::Discard => {
                self.long_line.clear();
                Patch::Discard
            }
        })
    }

    fn tail(&self, text: &str, tail: Tail, loose: bool, last: bool) -> (Fragment, bool) {
        // Unfinished inline markup renders sensibly until the rest arrives;
        // once the text is whole, it renders as it is.
        let finish = |source: &str| {
            if last {
                source.to_owned()
            } else {
                remend(source).into_owned()
            }
        };
        match tail {
            Tail::Blocks(range) => (Fragment(self.render(&finish(&text[range]))), false),
            Tail::FenceLine(line) => {
                let line = &text[line];
                let mut html = String::new();
                let long = !self.long_line.is_empty();
                if let (Some(highlighter), false, false) =
                    (&self.highlighter, line.is_empty(), long)
                {
                    // A copy: the line is not finished, its state must not carry on.
                    highlighter.clone().push_line(line, &mut html);
                }
                (Fragment(sanitize(&html)), true)
            }
            Tail::Paragraph(range) => (self.paragraph_content(&finish(&text[range])), true),
            Tail::ListItem(range) => {
                let items = self.list_items(&finish(&text[range]), loose, true);
                (items, true)
            }
        }
    }

    /// The open fence's line being written, `line`, when it is long: what it
    /// grew by since the last frame, as escaped text appended to the block
    /// (see the module docs). `None` for a line that is not long.
    fn long_line_grown(&mut self, line: &str) -> Option<Patch> {
        let shown = self.long_line.len();
        if shown == 0 && line.len() <= LONG_LINE_BYTES {
            return None;
        }
        // The text only grows: the line is what was shown, and more.
        let grown = line.get(shown..).filter(|grown| !grown.is_empty())?;
        self.long_line.push_str(grown);
        Some(Patch::Append(Fragment(sanitize(&escaped(grown)))))
    }

    /// A piece of a paragraph as inline HTML (what goes inside its `<p>`).
    fn paragraph_content(&self, source: &str) -> Fragment {
        let html = self.render(source);
        match paragraph_inner(&html) {
            Some(inner) => Fragment(inner.to_owned()),
            // Never expected (the cuts keep each piece one paragraph): its text.
            None if html.is_empty() => Fragment::default(),
            None => Fragment(escaped(source.trim())),
        }
    }

    /// List items as `<li>` elements (the list's own element cut away);
    /// `loose`: as items of a loose list (see [`with_sentinel`]); `inner`:
    /// the content of the one item, without its `<li>`.
    fn list_items(&self, source: &str, loose: bool, inner: bool) -> Fragment {
        let sentinel = if loose && !list_is_loose(source) {
            with_sentinel(source)
        } else {
            None
        };
        let html = self.render(sentinel.as_deref().unwrap_or(source));
        let items = list_content(&html).and_then(|items| {
            if sentinel.is_some() {
                items.strip_prefix("<li></li>\n")
            } else {
                Some(items)
            }
        });
        let items = items.and_then(|items| {
            if inner {
                single_item_inner(items)
            } else {
                Some(items)
            }
        });
        match items {
            Some(items) => Fragment(items.to_owned()),
            None if html.is_empty() => Fragment::default(),
            // Never expected: the item's blocks as they render, in one item.
            None if inner => Fragment(html),
            None => Fragment(format!("<li>{html}</li>\n")),
        }
    }
}

/// `items` (list items' source) after an empty item of the same list and a
/// blank line, so that the list renders loose, as the whole list does (the
/// empty item is cut away after); `None` if the marker is not found. Before
/// the items, not after them: a blank line after them could fall inside a
/// fence the last item leaves open.
fn with_sentinel(items: &str) -> Option<String> {
    let line = items.lines().next()?;
    let rest = line.trim_start_matches(' ');
    let indent = &line[..line.len() - rest.len()];
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let marker = match rest[digits..].chars().next()? {
        c @ ('.' | ')') if digits > 0 => format!("1{c}"),
        c @ ('-' | '*' | '+') if digits == 0 => c.to_string(),
        _ => return None,
    };
    Some(format!("{indent}{marker}\n\n{items}"))
}

/// The items of rendered HTML that is exactly one list.
fn list_content(html: &str) -> Option<&str> {
    let (open, close) = if html.starts_with("<ul>\n") {
        ("<ul>\n".len(), "</ul>\n")
    } else if html.starts_with("<ol") {
        (html.find(">\n")? + 2, "</ol>\n")
    } else {
        return None;
    };
    let items = html.get(open..)?.strip_suffix(close)?;
    // One list: its element closes at the end, not before.
    (!closes_early(items, &["<ul", "<ol"], &["</ul>", "</ol>"])).then_some(items)
}

/// The content of the one `<li>` in `items`.
fn single_item_inner(items: &str) -> Option<&str> {
    let inner = items.strip_prefix("<li>")?.strip_suffix("</li>\n")?;
    (!closes_early(inner, &["<li>", "<li "], &["</li>"])).then_some(inner)
}

/// Whether `inner`, the content of an element already open, closes that
/// element before its end: a close tag (`closes`) with no open tag (`opens`)
/// of its own before it.
fn closes_early(inner: &str, opens: &[&str], closes: &[&str]) -> bool {
    let mut depth = 1i32;
    for (at, _) in inner.match_indices('<') {
        let tag = &inner[at..];
        if opens.iter().any(|open| tag.starts_with(open)) {
            depth += 1;
        } else if closes.iter().any(|close| tag.starts_with(close)) {
            depth -= 1;
            if depth == 0 {
                return true;
            }
        }
    }
    false
}

/// The content of rendered HTML that is exactly one paragraph.
fn paragraph_inner(html: &str) -> Option<&str> {
    let inner = html.strip_prefix("<p>")?.strip_suffix("</p>\n")?;
    (!inner.contains("</p>")).then_some(inner)
}

/// `text` as HTML text.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Writing into a String cannot fail.
    let _ = escape_html_body_text(&mut out, text);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page as the streaming view builds it: finished blocks, the open
    /// block with its children and unfinished part, the tail below.
    #[derive(Default, Debug)]
    struct Page {
        done: Vec<String>,
        /// The open block: its HTML before and after where children go,
        /// its finished children, its unfinished part.
        open: Option<(String, String, String, String)>,
        below: String,
    }

    impl Page {
        fn apply(&mut self, frame: Frame) {
            for patch in frame.patches {
                match patch {
                    Patch::Reset => *self = Page::default(),
                    Patch::Blocks { html, .. } => {
                        self.close();
                        self.done.push(html.into_string());
                    }
                    Patch::Open { html, kind, .. } => {
                        self.close();
                        let html = html.into_string();
                        let slot = match kind {
                            OpenKind::Code => html.rfind("</code>"),
                            OpenKind::List => html.rfind("</"),
                            OpenKind::Paragraph => html.rfind("</p>"),
                        }
                        .expect("a slot");
                        let (tail_open, tail_close) = match kind {
                            OpenKind::List => ("<li>", "</li>"),
                            _ => ("<span>", "</span>"),
                        };
                        self.open = Some((
                            html[..slot].to_owned(),
                            html[slot..].to_owned(),
                            String::new(),
                            format!("{tail_open}{tail_close}"),
                        ));
                    }
                    Patch::Append(html) => self
                        .open
                        .as_mut()
                        .expect("an open block")
                        .2
                        .push_str(html.as_str()),
                    Patch::Replace(html) => {
                        self.open.as_mut().expect("an open block").2 = html.into_string()
                    }
                    Patch::Close => {
                        let (head, foot, children, _) = self.open.take().expect("an open block");
                        self.done.push(format!("{head}{children}{foot}"));
                    }
                    Patch::Discard => self.open = None,
                }
            }
            if frame.tail_inside {
                let open = self.open.as_mut().expect("an open block");
                let (a, b) = if open.3.starts_with("<li>") {
                    ("<li>", "</li>")
                } else {
                    ("<span>", "</span>")
                };
                open.3 = format!("{a}{}{b}", frame.tail.as_str());
                self.below.clear();
            } else {
                self.below = frame.tail.into_string();
            }
        }

        /// An open block that got finished blocks after it (never expected).
        fn close(&mut self) {
            assert!(self.open.is_none(), "blocks appended while a block is open");
        }

        fn html(&self) -> String {
            let mut html = self.done.concat();
            if let Some((head, foot, children, tail)) = &self.open {
                html.push_str(head);
                html.push_str(children);
                // An empty unfinished part adds nothing.
                if !matches!(tail.as_str(), "<li></li>" | "<span></span>") {
                    html.push_str(tail);
                }
                html.push_str(foot);
            }
            html.push_str(&self.below);
            html
        }
    }

    /// `text` streamed in pieces ending at `cuts`, then whole.
    fn streamed(text: &str, cuts: &[usize], without_topics: bool) -> Page {
        let mut state = StreamState::new(without_topics);
        let mut page = Page::default();
        for &cut in cuts {
            page.apply(frame(&mut state, &text[..cut], false));
        }
        page.apply(frame(&mut state, text, false));
        page.apply(frame(&mut state, text, true));
        page
    }

    /// The text a reader sees: tags dropped, entities read, whitespace runs
    /// as one space; and the text of each code element exactly.
    fn seen(html: &str) -> (String, Vec<String>) {
        let mut text = String::new();
        let mut codes = Vec::new();
        let mut code: Option<String> = None;
        let mut rest = html;
        while let Some(lt) = rest.find('<') {
            let chunk = unescape(&rest[..lt]);
            text.push_str(&chunk);
            if let Some(c) = &mut code {
                c.push_str(&chunk);
            }
            let gt = rest[lt..].find('>').map_or(rest.len(), |g| lt + g + 1);
            let tag = &rest[lt..gt];
            if tag.starts_with("<code") {
                code = Some(String::new());
            } else if tag == "</code>" {
                codes.extend(code.take());
            } else if tag.starts_with("<li") || tag.starts_with("<p") || tag.starts_with("<br") {
                text.push(' ');
            }
            rest = &rest[gt..];
        }
        text.push_str(&unescape(rest));
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        (text, codes)
    }

    fn unescape(s: &str) -> String {
        s.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&nbsp;", "\u{a0}")
            .replace("&amp;", "&")
    }

    fn assert_same(text: &str, cuts: &[usize]) {
        let page = streamed(text, cuts, false).html();
        let whole = render_markdown(text);
        assert_eq!(
            seen(&page),
            seen(&whole),
            "{text:?} cut at {cuts:?}\n{page}\n{whole}"
        );
    }

    /// Every prefix, one byte more each time.
    fn every_prefix(text: &str) -> Vec<usize> {
        (1..text.len())
            .filter(|c| text.is_char_boundary(*c))
            .collect()
    }

    #[test]
    fn streaming_in_every_piece_shows_what_rendering_whole_shows() {
        for text in [
            "# Title\n\nSome **bold** text.\n\n```rust\nfn x() {}\n\n// gap\n```\n\n- a\n- b\n\nEnd.",
            "Area $\\pi r^2$ costs $5-$10.\n\n\\[\n\\frac{a}{b}\n\\]\n\nNever closed \\( x *y*\n\nThen \\(x^2\\) and $$\\sum_k k$$ and `\\(code\\)`.\n\nBad $x^^2$.",
            "Intro:\n```py\nx = 1\n  ```\n~~~\n````\nafter\n\n1. one\n2. two\n\n   more\n3. three\n\n> quote\nlazy\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
            "  ```\n  indented\n   fence\n  ```\n- x\n\n  ```\n  in a list\n  ```\n- y",
            "Para\n===\n\nPara two\n- list\n- list\n\nText\n---\n",
            "```\nnever closed\n``",
        ] {
            assert_same(text, &every_prefix(text));
            assert_same(text, &[]);
        }
    }

    #[test]
    fn a_long_paragraph_streams_in_pieces_that_show_the_same() {
        let text = "Words **bold** and `code` and [a link](https://e.com) go on. ".repeat(40)
            + "\n\nNext *para*.";
        let cuts: Vec<usize> = every_prefix(&text).into_iter().step_by(7).collect();
        assert_same(&text, &cuts);
        let page = streamed(&text, &cuts, false);
        assert!(
            page.done[0].starts_with("<p>Words <strong>"),
            "{}",
            page.done[0]
        );
        assert_eq!(page.done[0].matches("<p>").count(), 1);
    }

    #[test]
    fn a_fence_builds_its_block_once_and_never_renders_it_again() {
        let code: String = (0..50)
            .map(|i| format!("let x{i} = \"s\"; // {i}\n"))
            .collect();
        let text = format!("```rust\n{code}```\nAfter.");
        let mut state = StreamState::new(false);
        let mut opened = 0;
        let mut appended = String::new();
        for cut in every_prefix(&text) {
            let frame = frame(&mut state, &text[..cut], false);
            for patch in frame.patches {
                match patch {
                    Patch::Open {
                        kind: OpenKind::Code,
                        ..
                    } => opened += 1,
                    Patch::Append(html) => appended.push_str(html.as_str()),
                    Patch::Blocks { html, .. } => {
                        assert!(!html.as_str().contains("<pre"), "{html:?}")
                    }
                    _ => {}
                }
            }
        }
        assert_eq!(opened, 1);
        // Each line was highlighted once, as the whole block highlights it.
        let whole = render_markdown(&text);
        assert!(whole.contains(&appended), "{appended}\n{whole}");
    }

    /// One 200 KB line of an open fence, in 256-byte chunks: each frame puts
    /// on the page what the line grew by, not the line again, and the page
    /// ends up showing what rendering it whole shows.
    #[test]
    fn a_long_line_in_an_open_fence_costs_each_frame_only_its_growth() {
        let line = "let data = [1, 2, 3]; ".repeat(200 * 1024 / 22);
        let text = format!("Data:\n\n```rust\n{line}\nlet next = 7;\n```\n\nDone.");
        let mut state = StreamState::new(false);
        let mut page = Page::default();
        let mut largest_frame = 0;
        let cuts: Vec<usize> = (1..text.len() / 256).map(|i| i * 256).collect();
        for &cut in &cuts {
            let next = frame(&mut state, &text[..cut], false);
            largest_frame = largest_frame.max(next.fragments().map(str::len).sum::<usize>());
            page.apply(next);
        }
        // At most the line highlighted while it was short (under
        // LONG_LINE_BYTES, about 6 bytes of HTML each): never the whole line.
        assert!(
            largest_frame < 8 * LONG_LINE_BYTES,
            "a frame of {largest_frame} bytes"
        );
        page.apply(frame(&mut state, &text, false));
        page.apply(frame(&mut state, &text, true));
        let html = page.html();
        assert_eq!(seen(&html), seen(&render_markdown(&text)));
        // The line after it is highlighted as usual.
        assert!(
            html.contains("<span class=\"hl-num\">7</span>"),
            "{}",
            &html[html.len() - 400..]
        );
    }

    #[test]
    fn loose_and_ordered_lists_stream_as_they_render_whole() {
        for text in [
            "1. one\n1. two\n1. three\n\n1. four\n\nAfter",
            "- a\n\n- b\n- c\n",
            "3. x\n4. y\n   - nested\n   - more\n5. z",
            "- [ ] task\n- [x] done\n",
        ] {
            assert_same(text, &every_prefix(text));
            let page = streamed(text, &every_prefix(text), false).html();
            assert_eq!(
                page.replace('\n', ""),
                render_markdown(text).replace('\n', ""),
                "{text:?}"
            );
        }
    }

    #[test]
    fn unfinished_markup_in_the_tail_is_closed_until_it_closes() {
        let mut state = StreamState::new(false);
        let frame = frame(&mut state, "Done.\n\nThis is **bold", false);
        assert_eq!(
            frame.tail.as_str(),
            "<p>This is <strong>bold</strong></p>\n"
        );
        // Once the text is whole, it shows as it is.
        let frame = super::frame(&mut state, "Done.\n\nThis is **bold", true);
        assert_eq!(frame.tail.as_str(), "<p>This is **bold</p>\n");
    }

    #[test]
    fn topics_are_stripped_from_every_piece() {
        let text = "<topic>Plan</topic>\nFirst.\n\n```\ncode\n```\n\nSecond <topic>x</topic>part.";
        let page = streamed(text, &every_prefix(text), true).html();
        assert!(!page.contains("topic"), "{page}");
    }

    #[test]
    fn list_and_paragraph_parts_are_cut_from_whole_elements_only() {
        assert_eq!(
            list_content("<ol start=\"3\">\n<li>a</li>\n</ol>\n"),
            Some("<li>a</li>\n")
        );
        assert_eq!(
            list_content("<ul>\n<li>a</li>\n</ul>\n<ul>\n<li>b</li>\n</ul>\n"),
            None
        );
        assert_eq!(
            single_item_inner("<li>a<ul>\n<li>b</li>\n</ul>\n</li>\n"),
            Some("a<ul>\n<li>b</li>\n</ul>\n")
        );
        assert_eq!(single_item_inner("<li>a</li>\n<li>b</li>\n"), None);
        assert_eq!(paragraph_inner("<p>a</p>\n<p>b</p>\n"), None);
        assert_eq!(
            paragraph_inner("<p>a <em>b</em></p>\n"),
            Some("a <em>b</em>")
        );
    }

    /// Pieces that combine into every block the cuts care about: fences of
    /// both kinds and lengths (indented, in lists, closing or not), lists
    /// tight and loose, paragraphs long and interrupted, setext underlines,
    /// tables, quotes, math, and inline markup open and closed.
    const PIECES: &[&str] = &[
        "word ",
        "Some words here. ",
        "More text follows, ",
        "\n",
        "\n\n",
        "  ",
        "```",
        "```rust\n",
        "~~~\n",
        "````\n",
        "   ```\n",
        "let x = 1;\n",
        "- ",
        "* ",
        "1. ",
        "2) ",
        "   ",
        "> ",
        "# ",
        "===\n",
        "---\n",
        "| a | b |\n",
        "|---|---|\n",
        "**",
        "*",
        "_",
        "~~",
        "`",
        "[",
        "](https://e.com)",
        "$",
        "$x^2$",
        "\\(",
        "\\)",
        "<b>",
        "&amp;",
        "\\",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, ..Default::default() })]
        #[test]
        fn streaming_shows_what_rendering_whole_shows(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..40),
            cuts in proptest::collection::vec(0usize..2000, 0..24),
        ) {
            let text = pieces.concat();
            // delimiters.rs escapes the rest of a block after an unclosed
            // `\(`, a setext underline included, which unmakes the heading:
            // a change of structure that no cut can foresee (and that no
            // model writes).
            let text = if text.contains("===") || text.contains("---") {
                text.replace('\\', "")
            } else {
                text
            };
            let mut cuts: Vec<usize> = cuts
                .into_iter()
                .map(|c| c % (text.len() + 1))
                .filter(|c| text.is_char_boundary(*c))
                .collect();
            cuts.sort_unstable();
            let page = streamed(&text, &cuts, false).html();
            let whole = render_markdown(&text);
            proptest::prop_assert_eq!(seen(&page), seen(&whole), "{:?} cut at {:?}\n{}\n{}", text, cuts, page, whole);
        }

        #[test]
        fn a_long_paragraph_streams_in_pieces_that_show_the_same_in_any_split(
            pieces in proptest::collection::vec(proptest::sample::select(&PIECES[..3]), 20..200),
            marks in proptest::collection::vec(proptest::sample::select(&PIECES[23..]), 0..6),
            cuts in proptest::collection::vec(0usize..20_000, 0..40),
        ) {
            let mut pieces: Vec<&str> = pieces;
            for (i, mark) in marks.into_iter().enumerate() {
                let at = (i * 37) % pieces.len();
                pieces.insert(at, mark);
            }
            let text = pieces.concat();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (text.len() + 1)).collect();
            cuts.sort_unstable();
            let page = streamed(&text, &cuts, false).html();
            let whole = render_markdown(&text);
            proptest::prop_assert_eq!(seen(&page), seen(&whole), "{:?} cut at {:?}\n{}\n{}", text, cuts, page, whole);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 1024, ..Default::default() })]
        #[test]
        fn every_fragment_of_a_hostile_stream_is_inert(
            pieces in proptest::collection::vec(
                proptest::sample::select(super::super::tests::HOSTILE_PIECES), 0..32),
            cuts in proptest::collection::vec(0usize..2000, 0..16),
        ) {
            let text = pieces.concat();
            let mut cuts: Vec<usize> = cuts
                .into_iter()
                .map(|c| c % (text.len() + 1))
                .filter(|c| text.is_char_boundary(*c))
                .collect();
            cuts.sort_unstable();
            let mut state = StreamState::new(true);
            let check = |html: &str| {
                if let Some(violation) = crate::app::markdown::check::inert_violation(html) {
                    panic!("{violation} in {html} ({text:?} cut at {cuts:?})");
                }
            };
            for (cut, last) in cuts.iter().map(|c| (*c, false)).chain([(text.len(), true)]) {
                let next = frame(&mut state, &text[..cut], last);
                next.fragments().for_each(&check);
            }
        }
    }
}
