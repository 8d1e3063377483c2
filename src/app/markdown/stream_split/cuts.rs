//! Where an open paragraph can be cut without changing how it renders: the
//! inline rules (emphasis, code, links, math, escapes) that a later
//! character could still complete or close.

use std::ops::Range;

use pulldown_cmark::Event;

use crate::app::markdown::remend;

/// Where a paragraph can be cut: before a word, after a space (or a soft line
/// break), at no inline depth, with nothing before it that a later character
/// could still close or complete.
#[derive(Debug, Default)]
pub(super) struct Cuts {
    /// Where the paragraph's text starts (no cut there).
    start: usize,
    /// Open emphasis, links…
    inline_depth: usize,
    /// Something open that a later character could change: no cut after it.
    blocked: bool,
    /// A `\(` or `\[` not closed yet, its closing character.
    math: Option<u8>,
    pub(super) last: Option<(usize, char)>,
}

impl Cuts {
    pub(super) fn new(start: usize) -> Self {
        Cuts {
            start,
            ..Cuts::default()
        }
    }

    pub(super) fn open_inline(&mut self) {
        self.inline_depth += 1;
    }

    pub(super) fn close_inline(&mut self) {
        self.inline_depth = self.inline_depth.saturating_sub(1);
    }

    pub(super) fn event(&mut self, src: &str, event: &Event<'_>, range: Range<usize>) {
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
            let escaped = remend::escaped(bytes, at);
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
