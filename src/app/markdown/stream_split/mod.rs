//! Where a growing markdown text can be cut, so that the streaming view
//! (`stream_render.rs`, `app::streaming_markdown`) renders each finished part
//! once and re-renders only a bounded tail. Pure: source offsets in, steps
//! out; no HTML here.
//!
//! The text is read by pulldown-cmark itself, so the cuts follow its rules
//! exactly (fences, lists, lazy lines, what interrupts a paragraph). Only the
//! part after the last cut is parsed each time, and what can be cut is:
//! - finished top-level blocks: a block is finished once the next top-level
//!   block has begun for good (`blocks::settled`), and is then rendered whole, once;
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

mod blocks;
mod cuts;
mod open_block;
mod splitter;

use std::ops::Range;

pub use blocks::{is_bare_marker, list_is_loose};
pub use splitter::Splitter;

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
    /// The open fence's line being written, as its code shows it (the
    /// fence's indentation removed; empty while it may still be the closing
    /// fence). A range, not a copy: a line can be long.
    FenceLine(Range<usize>),
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
            Tail::FenceLine(line) => t[line].to_owned(),
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
