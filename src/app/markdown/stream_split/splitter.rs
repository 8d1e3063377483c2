//! The splitter's state between calls and its rounds: with no block open, it
//! finishes the settled blocks and opens the one that can grow by parts; the
//! open block's own growth is in `open_block.rs`.

use std::ops::Range;

use super::blocks::{settled, top_blocks, Kind};
use super::{is_bare_marker, Split, Step, Tail, PIECE_BYTES};

/// The block the text is in the middle of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Open {
    None,
    /// `opener`: the opening fence's line, with its newline; `body`: where
    /// the next unread line starts; `indent`: the opener's indentation;
    /// `scanned`: how far the line from `body` on is known to hold no
    /// newline (so a long line is searched once, not again every frame).
    Fence {
        opener: Range<usize>,
        body: usize,
        indent: usize,
        scanned: usize,
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
    pub(super) committed: usize,
    pub(super) open: Open,
    /// A paragraph discarded here is not opened again.
    pub(super) no_paragraph_at: Option<usize>,
    /// The text's length at the last call.
    seen: usize,
    /// The text is whole: nothing more will come, every block is final.
    pub(super) last: bool,
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
                    scanned,
                } => self.fence(text, opener, body..scanned, indent, &mut steps),
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
    pub(super) fn readable<'t>(&self, src: &'t str) -> &'t str {
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
                    scanned: opener_end,
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
}
