//! The top-level blocks of a source as pulldown-cmark reads them, and
//! whether each has begun for good: what every cut is decided from.

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag};

use super::cuts::Cuts;
use crate::app::markdown::OPTIONS;

/// What kind of top-level block, with what the splitter needs of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Kind {
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
pub(super) struct Block {
    pub(super) kind: Kind,
    /// Where its first line starts.
    pub(super) line: usize,
    /// A fence: where its opening line ends (after the newline), if it has.
    pub(super) opener_end: Option<usize>,
}

/// The top-level blocks of `src`, as pulldown-cmark reads it.
pub(super) fn top_blocks(src: &str) -> Vec<Block> {
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
pub(super) fn settled(src: &str, block: &Block) -> bool {
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
pub(super) fn settled_item(src: &str, at: usize) -> bool {
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
