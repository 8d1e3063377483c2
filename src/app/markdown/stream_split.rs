//! Where a growing markdown text can be cut, so that the streaming view
//! (`stream_render.rs`, `app::streaming_markdown`) renders each finished part
//! once and re-renders only a bounded tail. Pure: source offsets in, steps
//! out; no HTML here.
//!
//! The text is read by pulldown-cmark itself, so the cuts follow its rules
//! exactly (fences, lists, lazy lines, what interrupts a paragraph). Only the
//! part after the last cut is parsed each time, and what can be cut is:
//! - finished top-level blocks: a block is finished once the next top-level
//!   block has begun for good ([`settled`]), and is then rendered whole, once;
//! - an open top-level fenced code block: its lines, as each one completes
//!   (the code block is built once and grows; nothing of it is re-rendered);
//! - an open top-level list: its items, as the next one begins;
//! - an open top-level paragraph: at a space before a word, once nothing in
//!   it is still open (no unmatched `*`, `` ` ``, `[`, `$`, `<`, `\(`…), in
//!   pieces of at least [`PIECE_BYTES`].
//!
//! So the tail is one line of code, one list item, or less than a piece of a
//! paragraph (plus the line being written). Anything else that grows without
//! a blank line (a long table, quote, or a fence inside a list item) stays in
//! the tail until it ends, as before.
//!
//! Never cut where rendering the two sides apart could differ from rendering
//! them together (the tests hold every cut to that, for many texts and every
//! split): when in doubt, do not cut.
//!
//! Longer than the ~450 lines a file keeps here: the block kinds (fences,
//! lists, paragraphs, block quotes, tables) decide together where a cut is
//! safe, and splitting them apart would spread one rule over several files.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

use super::OPTIONS;

/// A paragraph is cut only once this much of it is waiting (a smaller tail
/// costs less to re-render than another piece costs to append).
pub const PIECE_BYTES: usize = 512;

/// What the streaming view does with the text since the last call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Finished top-level blocks: render them once.
    Blocks(Range<usize>),
    /// A top-level fenced code block opens (its info string), at this offset.
    FenceOpen(String, usize),
    /// Finished lines of the open fence, as the parser reads them (the
    /// fence's indentation removed), each ending in `\n`.
    FenceLines(String),
    /// A top-level list opens: ordered from this number, or bulleted; at this offset.
    ListOpen(Option<u64>, usize),
    /// A finished item of the open list (its source, with any blank lines
    /// after it), and whether the list is loose.
    ListItem(Range<usize>, bool),
    /// The open list turned out loose: its items so far, to render again.
    ListLoose(Range<usize>),
    /// A top-level paragraph (at this offset) is cut for the first time: it opens.
    ParagraphOpen(usize),
    /// A finished piece of the open paragraph, and the whitespace it ended with
    /// (the renderer drops trailing whitespace: it goes back between pieces).
    ParagraphPiece(Range<usize>, char),
    /// The open block (fence, list, paragraph) is finished.
    Close,
    /// The open paragraph turned out to be something else (a setext heading,
    /// a table's header): remove it; its text is in the tail again.
    Discard,
}

/// The unfinished end of the text, re-rendered each time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tail {
    /// Markdown below everything else.
    Blocks(Range<usize>),
    /// The open fence's line being written, as its code shows it (empty while
    /// it may still be the closing fence).
    FenceLine(String),
    /// The rest of the open paragraph.
    Paragraph(Range<usize>),
    /// The open list's last item.
    ListItem(Range<usize>),
}

/// The steps since the last call and the tail now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub steps: Vec<Step>,
    pub tail: Tail,
    /// Whether the open list (if any) is loose: its items render with paragraphs.
    pub loose: bool,
}

/// The block the text is in the middle of.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Open {
    None,
    /// `opener`: the opening fence's line, with its newline; `body`: where
    /// the next unread line starts; `indent`: the opener's indentation.
    Fence {
        opener: Range<usize>,
        body: usize,
        indent: usize,
    },
    /// `start`: the list's first line; `item`: where the unfinished item starts.
    List {
        start: usize,
        item: usize,
        loose: bool,
    },
    /// `start`: the paragraph's first line; `piece`: where the unfinished piece starts.
    Paragraph {
        start: usize,
        piece: usize,
    },
}

/// Cuts a growing text; call [`Splitter::advance`] with the whole text each time.
#[derive(Debug, Clone)]
pub struct Splitter {
    /// Everything before is finished (rendered, or inside the open block).
    committed: usize,
    open: Open,
    /// A paragraph discarded here is not opened again.
    no_paragraph_at: Option<usize>,
    /// The text's length at the last call.
    seen: usize,
    /// The text is whole: nothing more will come, every block is final.
    last: bool,
}

impl Default for Splitter {
    fn default() -> Self {
        Splitter {
            committed: 0,
            open: Open::None,
            no_paragraph_at: None,
            seen: 0,
            last: false,
        }
    }
}

/// Steps per call at most: every step makes progress, so this is a guard
/// against a bug looping, not a limit a text can reach.
const MAX_ROUNDS: usize = 10_000;

impl Splitter {
    /// Whether `text` cannot be the text last seen, grown (it is shorter):
    /// the caller starts over with a fresh splitter.
    pub fn is_restart(&self, text: &str) -> bool {
        text.len() < self.seen || !text.is_char_boundary(self.committed.min(text.len()))
    }

    /// What is new in `text`, which must be the text of the last call grown.
    /// `last`: nothing more will come (the text is read as a whole document:
    /// nothing is held back as possibly unfinished).
    pub fn advance(&mut self, text: &str, last: bool) -> Split {
        self.seen = text.len();
        self.last = last;
        let mut steps = Vec::new();
        for _ in 0..MAX_ROUNDS {
            let round = match self.open.clone() {
                Open::None => self.blocks(text, &mut steps),
                Open::Fence {
                    opener,
                    body,
                    indent,
                } => self.fence(text, opener, body, indent, &mut steps),
                Open::List { start, item, loose } => {
                    self.list(text, start, item, loose, &mut steps)
                }
                Open::Paragraph { start, piece } => self.paragraph(text, start, piece, &mut steps),
            };
            if let Some(tail) = round {
                let loose = matches!(self.open, Open::List { loose: true, .. });
                return Split { steps, tail, loose };
            }
        }
        // Unreachable: keep what was cut and show the rest whole.
        self.close_open(&mut steps);
        Split {
            steps,
            tail: Tail::Blocks(self.committed..text.len()),
            loose: false,
        }
    }

    /// `src` as far as it decides anything: without a last line that is
    /// only a bare block marker so far (it is hidden too), unless the text is whole.
    fn readable<'t>(&self, src: &'t str) -> &'t str {
        if self.last {
            return src;
        }
        let last = src.rfind('\n').map_or(0, |at| at + 1);
        if is_bare_marker(&src[last..]) {
            &src[..last]
        } else {
            src
        }
    }

    fn close_open(&mut self, steps: &mut Vec<Step>) {
        match self.open {
            Open::None => {}
            Open::Paragraph { start, .. } => {
                steps.push(Step::Discard);
                self.committed = start;
            }
            _ => steps.push(Step::Close),
        }
        self.open = Open::None;
    }

    /// No block open: finish the blocks that are settled, then open the
    /// current one if it can grow by parts. `Some(tail)` when done.
    fn blocks(&mut self, text: &str, steps: &mut Vec<Step>) -> Option<Tail> {
        let from = self.committed;
        let src = self.readable(&text[from..]);
        let blocks = top_blocks(src);
        // The last block that has begun for good; everything before it is finished.
        let current = blocks
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, b)| self.last || settled(src, b))
            .map(|(i, _)| i)
            .next_back()
            .unwrap_or(0);
        let Some(block) = blocks.get(current) else {
            return Some(Tail::Blocks(from..from + src.len()));
        };
        if block.line > 0 {
            steps.push(Step::Blocks(from..from + block.line));
            self.committed = from + block.line;
        }
        let start = self.committed;
        // Where the tail stops: before a block whose first line is still
        // being written and has not begun for good (hidden until it has).
        let shown_end = blocks
            .get(current + 1)
            .filter(|next| !self.last && !src[next.line..].contains('\n'))
            .map_or(from + src.len(), |next| from + next.line);
        match &block.kind {
            Kind::Fence { info } if block.opener_end.is_some() => {
                let opener_end = from + block.opener_end.unwrap_or(block.line);
                let line = &text[start..opener_end];
                let indent = line.len() - line.trim_start_matches(' ').len();
                steps.push(Step::FenceOpen(info.clone(), start));
                self.open = Open::Fence {
                    opener: start..opener_end,
                    body: opener_end,
                    indent,
                };
                None
            }
            Kind::List { start: number, .. } if self.last || settled(src, block) => {
                steps.push(Step::ListOpen(*number, start));
                self.open = Open::List {
                    start,
                    item: start,
                    loose: false,
                };
                None
            }
            Kind::Paragraph {
                cut: Some((at, sep)),
            } if self.no_paragraph_at != Some(start) && from + at - start >= PIECE_BYTES => {
                steps.push(Step::ParagraphOpen(start));
                steps.push(Step::ParagraphPiece(start..from + at, *sep));
                self.open = Open::Paragraph {
                    start,
                    piece: from + at,
                };
                None
            }
            _ => Some(Tail::Blocks(start..shown_end)),
        }
    }

    /// An open fence: its finished lines, and whether it closed.
    fn fence(
        &mut self,
        text: &str,
        opener: Range<usize>,
        body: usize,
        indent: usize,
        steps: &mut Vec<Step>,
    ) -> Option<Tail> {
        let opener_start = opener.start;
        let complete = body + text[body..].rfind('\n').map_or(0, |at| at + 1);
        if complete > body {
            // The opening line and the new lines, read by the parser: it
            // decides what closes the fence and what indentation goes.
            let mut src = String::with_capacity(opener.len() + complete - body);
            src.push_str(&text[opener.clone()]);
            src.push_str(&text[body..complete]);
            let mut code = String::new();
            let mut end = src.len();
            for (event, range) in Parser::new_ext(&src, OPTIONS).into_offset_iter() {
                match event {
                    Event::Text(t) => code.push_str(&t),
                    Event::End(TagEnd::CodeBlock) => {
                        end = range.end;
                        break;
                    }
                    _ => {}
                }
            }
            if !code.is_empty() {
                steps.push(Step::FenceLines(code));
            }
            if end < src.len() {
                // Closed: the closing line ends at the newline after `end`.
                let closer_end = src[end..].find('\n').map_or(src.len(), |at| end + at + 1);
                steps.push(Step::Close);
                self.committed = body + closer_end - opener.len();
                self.open = Open::None;
                return None;
            }
            self.open = Open::Fence {
                opener,
                body: complete,
                indent,
            };
        }
        let line = &text[complete..];
        let (fence_char, fence_len) = fence_of(&text[opener_start..]);
        // A whole text's last line of fewer than four spaces is no line (the
        // parser drops it: it reads as indentation, not content).
        let blank_end = self.last && line.len() < 4 && line.bytes().all(|b| b == b' ');
        let shown = if blank_end || could_close(line, fence_char, fence_len, self.last) {
            String::new()
        } else {
            let spaces = line.len() - line.trim_start_matches(' ').len();
            line[spaces.min(indent)..].to_owned()
        };
        Some(Tail::FenceLine(shown))
    }

    /// An open list: its finished items, and whether it ended.
    fn list(
        &mut self,
        text: &str,
        start: usize,
        item: usize,
        mut loose: bool,
        steps: &mut Vec<Step>,
    ) -> Option<Tail> {
        let src = &text[item..];
        let blocks = top_blocks(src);
        let Some(first) = blocks.first().filter(|b| b.line == 0) else {
            // Never expected: what follows the finished items is no list item.
            steps.push(Step::Close);
            self.committed = item;
            self.open = Open::None;
            return None;
        };
        let Kind::List {
            items, loose: now, ..
        } = &first.kind
        else {
            steps.push(Step::Close);
            self.committed = item;
            self.open = Open::None;
            return None;
        };
        if *now && !loose {
            loose = true;
            if item > start {
                steps.push(Step::ListLoose(start..item));
            }
        }
        let mut current = 0;
        for &next in items.iter().skip(1) {
            if !self.last && !settled_item(src, next) {
                break;
            }
            steps.push(Step::ListItem(item + current..item + next, loose));
            current = next;
        }
        if let Some(after) = blocks.get(1).filter(|b| self.last || settled(src, b)) {
            if items.last().is_none_or(|last| current == *last) {
                steps.push(Step::ListItem(item + current..item + after.line, loose));
                steps.push(Step::Close);
                self.committed = item + after.line;
                self.open = Open::None;
                return None;
            }
        }
        self.open = Open::List {
            start,
            item: item + current,
            loose,
        };
        // The item's end: before the next item or block that has not begun for good.
        let end = items
            .iter()
            .copied()
            .find(|&at| at > current)
            .or_else(|| blocks.get(1).map(|b| b.line))
            .map_or(text.len(), |at| item + at);
        Some(Tail::ListItem(item + current..end))
    }

    /// An open paragraph: a new piece, its end, or its discovery as something else.
    fn paragraph(
        &mut self,
        text: &str,
        start: usize,
        piece: usize,
        steps: &mut Vec<Step>,
    ) -> Option<Tail> {
        let read = self.readable(&text[piece..]);
        let blocks = top_blocks(read);
        let Some(Block {
            kind: Kind::Paragraph { cut },
            ..
        }) = blocks.first().filter(|b| b.line == 0)
        else {
            // The lines so far are not a paragraph after all: its first
            // pieces were something else too (a setext heading, a table).
            steps.push(Step::Discard);
            self.committed = start;
            self.no_paragraph_at = Some(start);
            self.open = Open::None;
            return None;
        };
        if let Some(next) = blocks.get(1) {
            if self.last || settled(read, next) {
                steps.push(Step::ParagraphPiece(piece..piece + next.line, '\n'));
                steps.push(Step::Close);
                self.committed = piece + next.line;
                self.open = Open::None;
                return None;
            }
            return Some(Tail::Paragraph(piece..piece + next.line));
        }
        if let Some((at, sep)) = *cut {
            if at >= PIECE_BYTES {
                steps.push(Step::ParagraphPiece(piece..piece + at, sep));
                self.open = Open::Paragraph {
                    start,
                    piece: piece + at,
                };
                return Some(Tail::Paragraph(piece + at..piece + read.len()));
            }
        }
        Some(Tail::Paragraph(piece..piece + read.len()))
    }
}

/// What kind of top-level block, with what the splitter needs of it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// `cut`: the last place it can be cut, and the whitespace before it.
    Paragraph {
        cut: Option<(usize, char)>,
    },
    Fence {
        info: String,
    },
    /// `items`: where each item's line starts; `loose`: items hold paragraphs.
    List {
        start: Option<u64>,
        items: Vec<usize>,
        loose: bool,
    },
    Other,
}

/// A top-level block of a parsed source.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Block {
    kind: Kind,
    /// Where its first line starts.
    line: usize,
    /// A fence: where its opening line ends (after the newline), if it has.
    opener_end: Option<usize>,
}

/// The top-level blocks of `src`, as pulldown-cmark reads it.
fn top_blocks(src: &str) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut depth = 0usize;
    let mut cuts = Cuts::default();
    for (event, range) in Parser::new_ext(src, OPTIONS).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    let line = line_start(src, range.start);
                    let (kind, opener_end) = match &tag {
                        Tag::Paragraph => {
                            cuts = Cuts::new(range.start);
                            (Kind::Paragraph { cut: None }, None)
                        }
                        Tag::CodeBlock(CodeBlockKind::Fenced(info)) => (
                            Kind::Fence {
                                info: info.to_string(),
                            },
                            src[range.start..].find('\n').map(|at| range.start + at + 1),
                        ),
                        Tag::List(number) => (
                            Kind::List {
                                start: *number,
                                items: Vec::new(),
                                loose: false,
                            },
                            None,
                        ),
                        _ => (Kind::Other, None),
                    };
                    blocks.push(Block {
                        kind,
                        line,
                        opener_end,
                    });
                } else if let Some(Block {
                    kind: Kind::List { items, loose, .. },
                    ..
                }) = blocks.last_mut()
                {
                    match tag {
                        Tag::Item if depth == 1 => items.push(line_start(src, range.start)),
                        Tag::Paragraph if depth == 2 => *loose = true,
                        _ => {}
                    }
                } else if matches!(
                    blocks.last(),
                    Some(Block {
                        kind: Kind::Paragraph { .. },
                        ..
                    })
                ) {
                    cuts.open_inline();
                }
                depth += 1;
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if let Some(Block {
                    kind: Kind::Paragraph { cut },
                    ..
                }) = blocks.last_mut()
                {
                    if depth == 0 {
                        *cut = cuts.last;
                    } else {
                        cuts.close_inline();
                    }
                }
            }
            other => {
                if depth > 0 {
                    if let Some(Block {
                        kind: Kind::Paragraph { .. },
                        ..
                    }) = blocks.last()
                    {
                        cuts.event(src, &other, range);
                    }
                }
            }
        }
    }
    blocks
}

/// Where a paragraph can be cut: before a word, after a space (or a soft line
/// break), at no inline depth, with nothing before it that a later character
/// could still close or complete.
#[derive(Debug, Default)]
struct Cuts {
    /// Where the paragraph's text starts (no cut there).
    start: usize,
    /// Open emphasis, links…
    inline_depth: usize,
    /// Something open that a later character could change: no cut after it.
    blocked: bool,
    /// A `\(` or `\[` not closed yet, its closing character.
    math: Option<u8>,
    last: Option<(usize, char)>,
}

impl Cuts {
    fn new(start: usize) -> Self {
        Cuts {
            start,
            ..Cuts::default()
        }
    }

    fn open_inline(&mut self) {
        self.inline_depth += 1;
    }

    fn close_inline(&mut self) {
        self.inline_depth = self.inline_depth.saturating_sub(1);
    }

    fn event(&mut self, src: &str, event: &Event<'_>, range: Range<usize>) {
        if self.blocked {
            return;
        }
        match event {
            Event::Text(_) => self.text(src, range),
            // Code spans and formulas are closed; breaks are whitespace.
            Event::Code(_)
            | Event::InlineMath(_)
            | Event::DisplayMath(_)
            | Event::SoftBreak
            | Event::HardBreak
            | Event::FootnoteReference(_) => {}
            // Raw HTML (a `<topic>` label among others, which the view strips
            // per piece), and anything unexpected: no cut after it.
            _ => self.blocked = true,
        }
    }

    /// A run of text: its unsafe characters, and the cut places in it.
    fn text(&mut self, src: &str, range: Range<usize>) {
        let bytes = src.as_bytes();
        for (offset, c) in src[range.clone()].char_indices() {
            let at = range.start + offset;
            let escaped = is_escaped(bytes, at);
            if self.inline_depth == 0 && self.math.is_none() && at > self.start && c.is_alphabetic()
            {
                if let Some(sep) = cut_before(bytes, at) {
                    self.last = Some((at, sep));
                }
            }
            match c {
                '(' | '[' if escaped && self.math.is_none() => {
                    self.math = Some(if c == '(' { b')' } else { b']' });
                }
                ')' | ']' if escaped && self.math == Some(c as u8) => self.math = None,
                _ if escaped => {}
                '`' | '$' | '[' | '|' => self.blocked = true,
                '<' if bytes.get(at + 1).is_none_or(|b| !b.is_ascii_whitespace()) => {
                    self.blocked = true
                }
                '*' | '~' | '_' if self.inline_depth == 0 && can_open(src, at, c) => {
                    self.blocked = true
                }
                _ => {}
            }
            if self.blocked {
                return;
            }
        }
    }
}

/// Whether the character at `at` is escaped: an odd run of backslashes before it.
fn is_escaped(bytes: &[u8], at: usize) -> bool {
    bytes[..at]
        .iter()
        .rev()
        .take_while(|b| **b == b'\\')
        .count()
        % 2
        == 1
}

/// The whitespace a paragraph may be cut after, right before `at`: one or
/// more spaces, or a soft line break (not a hard one: it would be lost at
/// the end of a piece).
fn cut_before(bytes: &[u8], at: usize) -> Option<char> {
    let before = &bytes[..at];
    let spaces = before.iter().rev().take_while(|b| **b == b' ').count();
    match before[..at - spaces].last() {
        Some(b'\n') => {
            let line = &before[..at - spaces - 1];
            let hard = line.ends_with(b"  ") || line.ends_with(b"\\") || line.ends_with(b"\t");
            (!hard).then_some('\n')
        }
        _ if spaces > 0 => Some(' '),
        _ => None,
    }
}

/// Whether the delimiter run around `at` could open emphasis (CommonMark's
/// left-flanking rule, and for `_` not inside a word); a run at the end of
/// the text could, once more arrives.
fn can_open(src: &str, at: usize, c: char) -> bool {
    let start = src[..at].trim_end_matches(c).len();
    let end = at + src[at..].len() - src[at..].trim_start_matches(c).len();
    let before = src[..start].chars().next_back();
    let Some(after) = src[end..].chars().next() else {
        return true;
    };
    let space = |c: Option<char>| c.is_none_or(char::is_whitespace);
    let punct = |c: Option<char>| c.is_some_and(|c| !c.is_alphanumeric() && !c.is_whitespace());
    let left = !after.is_whitespace() && (!punct(Some(after)) || space(before) || punct(before));
    if c == '_' {
        let right = !space(before) && (!punct(before) || space(Some(after)) || punct(Some(after)));
        return left && (!right || punct(before));
    }
    left
}

/// Whether `src` starts with a list that is loose by itself.
pub fn list_is_loose(src: &str) -> bool {
    matches!(
        top_blocks(src).first(),
        Some(Block {
            kind: Kind::List { loose: true, .. },
            line: 0,
            ..
        })
    )
}

/// Where the line holding `at` starts.
fn line_start(src: &str, at: usize) -> usize {
    src[..at].rfind('\n').map_or(0, |nl| nl + 1)
}

/// Whether a block has begun for good: what came before it is finished,
/// whatever follows. Its first line is complete (a table also needs its
/// delimiter row), or that line is more than a bare block marker (`-`, `1.`,
/// `##`, a run that may be a thematic break), which only a longer line could
/// make into a block of another kind or join to the block before; a fence's
/// opening line must be complete (a backtick later in it unmakes the fence).
fn settled(src: &str, block: &Block) -> bool {
    let rest = &src[block.line..];
    match block.kind {
        Kind::Other if is_table_start(rest) => rest.matches('\n').count() >= 2,
        _ if rest.contains('\n') => true,
        Kind::Fence { .. } => false,
        _ => !is_bare_marker(rest) && !may_be_delimiter_row(rest),
    }
}

/// Whether an unfinished line may still become a table's delimiter row
/// (`|---|:--`), which would make the line before it a table's header.
fn may_be_delimiter_row(line: &str) -> bool {
    line.bytes()
        .all(|b| matches!(b, b'|' | b'-' | b':' | b' ' | b'\t'))
}

/// Whether a block starting with this line may be a table (its header row).
fn is_table_start(rest: &str) -> bool {
    rest.split('\n')
        .next()
        .is_some_and(|line| line.contains('|'))
}

/// Whether the list item whose line starts at `at` has begun for good.
fn settled_item(src: &str, at: usize) -> bool {
    let line = &src[at..];
    line.contains('\n') || !(is_bare_marker(line) || may_be_delimiter_row(line))
}

/// An unfinished line that is only a block marker so far: a list marker,
/// a heading's `#`s, a quote's `>`, or a run that may be a setext underline
/// or a thematic break. It decides nothing yet.
pub fn is_bare_marker(line: &str) -> bool {
    let rest = line.trim_start_matches(' ');
    if line.len() - rest.len() > 3 || line.contains('\n') {
        return false;
    }
    let rest = rest.trim_end_matches([' ', '\t']);
    if rest.is_empty() {
        return false;
    }
    let digits = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    if digits.len() < rest.len() {
        return rest.len() - digits.len() <= 9 && ["", ".", ")"].contains(&digits);
    }
    let first = rest.chars().next().unwrap_or(' ');
    matches!(first, '-' | '=' | '*' | '_' | '+' | '#' | '>' | '`' | '~')
        && rest.chars().all(|c| c == first || c == ' ')
}

/// The fence character and length of the fence opening `src`.
fn fence_of(src: &str) -> (u8, usize) {
    let line = src.trim_start_matches(' ');
    let c = line.as_bytes().first().copied().unwrap_or(b'`');
    (c, line.bytes().take_while(|b| *b == c).count())
}

/// Whether an unfinished line of a fence may still become its closing fence
/// (up to three spaces, the fence's character, then only spaces or tabs once
/// the run is long enough), so it is not shown as code yet; in a whole text,
/// whether it is one.
fn could_close(line: &str, c: u8, len: usize, last: bool) -> bool {
    let rest = line.trim_start_matches(' ');
    if line.len() - rest.len() > 3 {
        return false;
    }
    let run = rest.bytes().take_while(|b| *b == c).count();
    let after = &rest[run..];
    if after.is_empty() && !last {
        return true;
    }
    run >= len && after.bytes().all(|b| b == b' ' || b == b'\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `text` to a splitter in pieces ending at `cuts`, and returns the
    /// steps of every call and the last tail.
    fn run(text: &str, cuts: &[usize]) -> (Vec<Step>, Tail) {
        let mut splitter = Splitter::default();
        let mut steps = Vec::new();
        let mut tail = Tail::Blocks(0..0);
        for &cut in cuts.iter().chain([&text.len()]) {
            let split = splitter.advance(&text[..cut], false);
            steps.extend(split.steps);
            tail = split.tail;
        }
        (steps, tail)
    }

    #[test]
    fn finished_paragraphs_are_cut_once_the_next_has_begun() {
        let text = "First para.\n\nSecond para.\n\nThird, still stre";
        let (steps, tail) = run(text, &[]);
        assert_eq!(steps, vec![Step::Blocks(0..27)]);
        assert_eq!(tail, Tail::Blocks(27..text.len()));
    }

    #[test]
    fn a_fence_emits_its_lines_as_they_complete_and_closes_by_the_parsers_rules() {
        let text = "Intro:\n```rust\nfn a() {}\n  ``` not a close\n~~~\n````\nafter\n";
        let cut = text.find("fn a").unwrap() + 4;
        let (steps, tail) = run(text, &[cut]);
        assert_eq!(
            steps,
            vec![
                Step::Blocks(0..7),
                Step::FenceOpen("rust".into(), 7),
                Step::FenceLines("fn a() {}\n  ``` not a close\n~~~\n".into()),
                Step::Close,
            ]
        );
        assert_eq!(tail, Tail::Blocks(text.len() - 6..text.len()));
    }

    #[test]
    fn the_line_being_written_shows_unless_it_may_close_the_fence() {
        let mut splitter = Splitter::default();
        let shown = |s: &mut Splitter, t: &str| match s.advance(t, false).tail {
            Tail::FenceLine(line) => line,
            other => panic!("{other:?}"),
        };
        assert_eq!(shown(&mut splitter, "  ````\n   let x"), " let x");
        assert_eq!(shown(&mut splitter, "  ````\n   let x = 1;\n``"), "");
        assert_eq!(shown(&mut splitter, "  ````\n   let x = 1;\n````  "), "");
        let mut splitter = Splitter::default();
        assert_eq!(shown(&mut splitter, "```\n```rust"), "```rust");
        assert_eq!(shown(&mut splitter, "```\n```rust\n    ``"), "    ``");
    }

    #[test]
    fn a_fence_inside_a_list_item_is_not_opened_on_its_own() {
        let text = "- item\n\n  ```\n  code\n";
        let (steps, tail) = run(text, &[]);
        assert_eq!(steps, vec![Step::ListOpen(None, 0)]);
        assert_eq!(tail, Tail::ListItem(0..text.len()));
    }

    #[test]
    fn a_list_emits_its_items_and_closes_when_a_block_after_it_begins() {
        let text = "3. one\n4. two\n5. th";
        let (steps, tail) = run(text, &[]);
        assert_eq!(
            steps,
            vec![
                Step::ListOpen(Some(3), 0),
                Step::ListItem(0..7, false),
                Step::ListItem(7..14, false)
            ]
        );
        assert_eq!(tail, Tail::ListItem(14..text.len()));
        let text = "- a\n- b\n\nAfter";
        let (steps, tail) = run(text, &[1, 5, 9]);
        assert_eq!(
            steps,
            vec![
                Step::ListOpen(None, 0),
                Step::ListItem(0..4, false),
                Step::ListItem(4..9, false),
                Step::Close
            ]
        );
        assert_eq!(tail, Tail::Blocks(9..text.len()));
    }

    #[test]
    fn a_list_that_turns_loose_renders_its_items_again_once() {
        let text = "- a\n- b\n\n- c\n- d";
        let (steps, _) = run(text, &[8]);
        assert_eq!(
            steps,
            vec![
                Step::ListOpen(None, 0),
                Step::ListItem(0..4, false),
                Step::ListLoose(0..4),
                Step::ListItem(4..9, true),
                Step::ListItem(9..13, true),
            ]
        );
    }

    #[test]
    fn a_long_paragraph_is_cut_before_words_when_nothing_is_open() {
        let sentence = "This sentence has **bold** and `code` in it. ";
        let text = sentence.repeat(30);
        let (steps, tail) = run(&text, &[]);
        let Tail::Paragraph(rest) = tail else {
            panic!("{tail:?}")
        };
        assert_eq!(steps[0], Step::ParagraphOpen(0));
        let Step::ParagraphPiece(piece, ' ') = &steps[1] else {
            panic!("{steps:?}")
        };
        assert_eq!(piece.end, rest.start);
        assert_eq!(&text[rest.clone()], "it. ");
        // An unmatched opener stops the cutting: a later `**` may close it.
        let open = format!("**{}", sentence.repeat(30));
        let (steps, _) = run(&open, &[]);
        assert!(steps.is_empty(), "{steps:?}");
    }

    #[test]
    fn a_cut_paragraph_that_turns_into_a_heading_is_discarded() {
        let words = "word ".repeat(200);
        let text = format!("{words}\n===\n\nNext");
        let (steps, tail) = run(&text, &[words.len() - 1]);
        assert_eq!(steps[0], Step::ParagraphOpen(0));
        assert!(steps.contains(&Step::Discard), "{steps:?}");
        assert_eq!(steps.last(), Some(&Step::Blocks(0..text.len() - 4)));
        assert_eq!(tail, Tail::Blocks(text.len() - 4..text.len()));
    }

    #[test]
    fn a_paragraph_ends_when_a_list_interrupts_it() {
        let words = "word ".repeat(200);
        let text = format!("{words}\n- item\n");
        let (steps, _) = run(&text, &[words.len() - 1]);
        let close = steps.iter().position(|s| *s == Step::Close).unwrap();
        assert!(
            matches!(steps[close + 1], Step::ListOpen(None, _)),
            "{steps:?}"
        );
    }

    #[test]
    fn bare_markers_decide_nothing() {
        for bare in [
            "-", "  *", "1.", "12)", "2024", "##", ">", "===", "- -", "``",
        ] {
            assert!(is_bare_marker(bare), "{bare:?}");
        }
        for content in [
            "- a", "1. x", "1.5", "# T", "#tag", "**Bold", "word", "", "    -",
        ] {
            assert!(!is_bare_marker(content), "{content:?}");
        }
    }
}
