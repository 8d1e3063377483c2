//! How an open block grows: a fence by its completed lines, a list by its
//! items, a paragraph by pieces; and when each ends, or turns out to be
//! something else. Kept apart from the rounds that open them so each rule
//! of growth reads on its own.

use std::ops::Range;

use pulldown_cmark::{Event, Parser, TagEnd};

use super::blocks::{settled, settled_item, top_blocks, Block, Kind};
use super::splitter::{Open, Splitter};
use super::{Step, Tail, PIECE_BYTES};
use crate::app::markdown::OPTIONS;

impl Splitter {
    /// An open fence: its finished lines, and whether it closed. `unread`:
    /// from where the next line starts to how far it is known to hold no
    /// newline; only the rest is searched.
    pub(super) fn fence(
        &mut self,
        text: &str,
        opener: Range<usize>,
        unread: Range<usize>,
        indent: usize,
        steps: &mut Vec<Step>,
    ) -> Option<Tail> {
        let opener_start = opener.start;
        let body = unread.start;
        let from = unread.end.clamp(body, text.len());
        let complete = text[from..].rfind('\n').map_or(body, |at| from + at + 1);
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
        }
        self.open = Open::Fence {
            opener,
            body: complete,
            indent,
            scanned: text.len(),
        };
        let line = &text[complete..];
        let (fence_char, fence_len) = fence_of(&text[opener_start..]);
        // A whole text's last line of fewer than four spaces is no line (the
        // parser drops it: it reads as indentation, not content).
        let blank_end = self.last && line.len() < 4 && line.bytes().all(|b| b == b' ');
        let shown = if blank_end || could_close(line, fence_char, fence_len, self.last) {
            text.len()..text.len()
        } else {
            let spaces = line.len() - line.trim_start_matches(' ').len();
            complete + spaces.min(indent)..text.len()
        };
        Some(Tail::FenceLine(shown))
    }

    /// An open list: its finished items, and whether it ended.
    pub(super) fn list(
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
    pub(super) fn paragraph(
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
