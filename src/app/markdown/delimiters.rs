//! `\(…\)` and `\[…\]`, the math delimiters DeepSeek, Qwen and OpenAI models
//! write, made into the `$…$` and `$$…$$` pulldown-cmark parses as math. Pure.
//!
//! CommonMark reads `\(` as an escaped parenthesis: the backslash is gone by
//! the time events arrive, and the formula between has already been read as
//! markdown (`*` as emphasis, `\\` as `\`). So this works on the source, before
//! the real parse, guided by a first parse of the same source: a delimiter
//! counts only where that parse saw an escaped bracket in text (never in code,
//! raw HTML, or an existing `$` formula), and a pair only within one block.
//! Then:
//! - each pair becomes `$…$` / `$$…$$` around the trimmed formula, unless the
//!   formula holds a `$` or a backtick (it stays as written);
//! - every `$` the first parse left as text is escaped, so the new delimiters
//!   cannot pair with a price;
//! - an opener never closed in its block (a formula still streaming, or one
//!   the model never closed) shows as its source: the rest of that block has
//!   its punctuation escaped, so nothing in it is read as markdown.
//!
//! Sources without `\(` or `\[` pass through untouched, without the first parse.

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// Which delimiters a converted formula was written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Written {
    /// `\(…\)`, now `$…$`.
    Parens,
    /// `\[…\]`, now `$$…$$`.
    Brackets,
}

impl Written {
    /// The delimiters as the model wrote them.
    pub(super) fn delimiters(self) -> (&'static str, &'static str) {
        match self {
            Written::Parens => ("\\(", "\\)"),
            Written::Brackets => ("\\[", "\\]"),
        }
    }
}

/// The source to parse, and where in it the converted formulas are.
pub(super) struct Prepared<'a> {
    pub(super) source: Cow<'a, str>,
    /// Start offsets in `source` of each converted formula, ascending.
    converted: Vec<(usize, Written)>,
}

impl Prepared<'_> {
    /// How the formula starting at `start` in `source` was written, if it was
    /// converted from `\(…\)` or `\[…\]`.
    pub(super) fn converted_at(&self, start: usize) -> Option<Written> {
        self.converted
            .binary_search_by_key(&start, |(at, _)| *at)
            .ok()
            .map(|i| self.converted[i].1)
    }
}

/// One change to the source.
enum Edit {
    /// Replace `range` (a whole `\(…\)` pair) with the formula in `$`s.
    Formula(Range<usize>, Written),
    /// Put a backslash before the `$` at this offset.
    EscapeDollar(usize),
    /// Show `range` as written: a backslash before each ASCII punctuation.
    Literal(Range<usize>),
}

/// `source` with `\(…\)` and `\[…\]` made into `$` math (see the module docs).
pub(super) fn prepare(source: &str, options: Options) -> Prepared<'_> {
    if !source.contains("\\(") && !source.contains("\\[") {
        return Prepared {
            source: Cow::Borrowed(source),
            converted: Vec::new(),
        };
    }
    let edits = find_edits(source, options);
    apply(source, &edits)
}

/// Reads the first parse for delimiters and text dollars. Returns the edits in
/// source order, not overlapping.
fn find_edits(source: &str, options: Options) -> Vec<Edit> {
    let mut edits = Vec::new();
    let mut dollars = Vec::new();
    // An unmatched opener in the current block: where its backslash is, and its kind.
    let mut pending: Option<(usize, Written)> = None;
    let mut in_code = false;
    for (event, range) in Parser::new_ext(source, options).into_offset_iter() {
        match event {
            // The text the opener is in stops where a block inside it starts…
            Event::Start(tag) if !inline(&tag.to_end()) => {
                unclosed(&mut pending, range.start, &mut edits);
                in_code = matches!(tag, Tag::CodeBlock(_));
            }
            // …or where its own block ends.
            Event::End(tag) if !inline(&tag) => {
                unclosed(&mut pending, range.end, &mut edits);
                in_code = false;
            }
            Event::Text(_) if !in_code => {
                let raw = &source[range.clone()];
                dollars.extend(
                    raw.match_indices('$')
                        .map(|(i, _)| range.start + i)
                        .filter(|at| *at == 0 || source.as_bytes()[at - 1] != b'\\'),
                );
                let Some(bracket) = raw.bytes().next().filter(|b| b"()[]".contains(b)) else {
                    continue;
                };
                // An escape starts a text event at the escaped character; its
                // backslash ends an odd run (`\\(` is a backslash, then "(").
                // Each run is read once: it ends at this bracket.
                let backslashes = source.as_bytes()[..range.start]
                    .iter()
                    .rev()
                    .take_while(|b| **b == b'\\')
                    .count();
                if backslashes % 2 == 0 {
                    continue;
                }
                let backslash = range.start - 1;
                match (bracket, pending) {
                    (b'(', None) => pending = Some((backslash, Written::Parens)),
                    (b'[', None) => pending = Some((backslash, Written::Brackets)),
                    (b')', Some((open, kind @ Written::Parens)))
                    | (b']', Some((open, kind @ Written::Brackets))) => {
                        pending = None;
                        let formula = &source[open + 2..backslash];
                        let trimmed = formula.trim();
                        if !trimmed.is_empty() && !formula.contains(['$', '`']) {
                            edits.push(Edit::Formula(open..backslash + 2, kind));
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    unclosed(&mut pending, source.len(), &mut edits);
    // Dollars inside a converted or literal range are handled by that edit.
    // Both lists are in source order (and the ranges do not overlap): one pass.
    let mut ranges = edits
        .iter()
        .filter_map(|edit| match edit {
            Edit::Formula(range, _) | Edit::Literal(range) => Some(range.clone()),
            Edit::EscapeDollar(_) => None,
        })
        .peekable();
    let mut outside = Vec::with_capacity(dollars.len());
    for at in dollars {
        while ranges.next_if(|range| range.end <= at).is_some() {}
        if !ranges.peek().is_some_and(|range| range.contains(&at)) {
            outside.push(at);
        }
    }
    edits.extend(outside.into_iter().map(Edit::EscapeDollar));
    edits.sort_by_key(|edit| match edit {
        Edit::Formula(range, _) | Edit::Literal(range) => range.start,
        Edit::EscapeDollar(at) => *at,
    });
    edits
}

/// At a block boundary: an opener still waiting is never closed (a formula
/// still being written, or one the model never closed): from the opener to
/// where its text stops (`until`), show the source. The same in every block,
/// so the streaming view (which renders finished blocks apart from the tail)
/// shows what a render of the whole text shows.
fn unclosed(pending: &mut Option<(usize, Written)>, until: usize, edits: &mut Vec<Edit>) {
    if let Some((open, _)) = pending.take() {
        if open < until {
            edits.push(Edit::Literal(open..until));
        }
    }
}

/// Tags that live inside a block's text (a delimiter pair may span them).
fn inline(tag: &TagEnd) -> bool {
    matches!(
        tag,
        TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Link
            | TagEnd::Image
    )
}

/// Writes the source with `edits` (sorted, not overlapping) applied.
fn apply<'a>(source: &'a str, edits: &[Edit]) -> Prepared<'a> {
    if edits.is_empty() {
        return Prepared {
            source: Cow::Borrowed(source),
            converted: Vec::new(),
        };
    }
    let mut out = String::with_capacity(source.len() + edits.len() * 2);
    let mut converted = Vec::new();
    let mut copied = 0;
    for edit in edits {
        match edit {
            Edit::Formula(range, kind) => {
                out.push_str(&source[copied..range.start]);
                let delimiter = match kind {
                    Written::Parens => "$",
                    Written::Brackets => "$$",
                };
                converted.push((out.len(), *kind));
                out.push_str(delimiter);
                out.push_str(source[range.start + 2..range.end - 2].trim());
                out.push_str(delimiter);
                copied = range.end;
            }
            Edit::EscapeDollar(at) => {
                out.push_str(&source[copied..*at]);
                out.push('\\');
                copied = *at;
            }
            Edit::Literal(range) => {
                out.push_str(&source[copied..range.start]);
                for c in source[range.clone()].chars() {
                    if c.is_ascii_punctuation() {
                        out.push('\\');
                    }
                    out.push(c);
                }
                copied = range.end;
            }
        }
    }
    out.push_str(&source[copied..]);
    Prepared {
        source: Cow::Owned(out),
        converted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepared(source: &str) -> String {
        prepare(source, Options::ENABLE_MATH | Options::ENABLE_TABLES)
            .source
            .into_owned()
    }

    #[test]
    fn both_forms_become_dollar_math_and_their_origin_is_kept() {
        let source =
            "Inline \\( a*b*c \\) and display:\n\\[\n\\begin{matrix} a \\\\ b \\end{matrix}\n\\]\n";
        let result = prepare(source, Options::ENABLE_MATH);
        assert_eq!(
            result.source,
            "Inline $a*b*c$ and display:\n$$\\begin{matrix} a \\\\ b \\end{matrix}$$\n"
        );
        assert_eq!(result.converted_at(7), Some(Written::Parens));
        let display = result.source.find("$$").unwrap_or(0);
        assert_eq!(result.converted_at(display), Some(Written::Brackets));
        assert_eq!(result.converted_at(0), None);
    }

    #[test]
    fn code_raw_html_and_existing_formulas_are_left_alone() {
        for source in [
            "`\\(x\\)` and\n\n```\n\\[y\\]\n```\n",
            "    \\(indented code\\)\n",
            "<div>\\(x\\)</div>\n",
            "$\\(x\\)$ already math",
            "\\\\(x\\\\) escaped backslashes",
            "\\(a `b` c\\) holds a code span",
            "\\(   \\) is empty",
        ] {
            assert_eq!(prepared(source), source, "{source:?}");
        }
    }

    #[test]
    fn a_formula_holding_a_dollar_stays_as_written() {
        // Its dollar is escaped like any text dollar: it still shows as `$`.
        assert_eq!(prepared("\\($5\\) holds"), "\\(\\$5\\) holds");
    }

    #[test]
    fn pairs_never_span_blocks_and_must_match() {
        for source in [
            "\\(x\n\ny\\)\n\nEnd.",
            "- \\(x\n- y\\)\n\nEnd.",
            "\\(x\\] more.\n\nEnd.",
        ] {
            assert!(!prepared(source).contains('$'), "{source:?}");
        }
    }

    #[test]
    fn text_dollars_are_escaped_so_they_cannot_pair_with_a_converted_formula() {
        assert_eq!(
            prepared("Costs $5.\\(x\\) and $y$ and `$z`"),
            "Costs \\$5.$x$ and $y$ and `$z`"
        );
    }

    #[test]
    fn an_unclosed_opener_at_the_end_shows_as_source() {
        assert_eq!(
            prepared("Start.\n\nSo \\[ \\frac{a*b*}{2} \\\\ x"),
            "Start.\n\nSo \\\\\\[ \\\\frac\\{a\\*b\\*\\}\\{2\\} \\\\\\\\ x"
        );
        // Its dollars are escaped once, like the text dollars before it.
        assert_eq!(prepared("A $5.\n\nSo \\( $y"), "A \\$5.\n\nSo \\\\\\( \\$y");
        // In any block, up to the block's end only.
        assert_eq!(
            prepared("So \\( *it*.\n\n*More*."),
            "So \\\\\\( \\*it\\*\\.\n\n*More*."
        );
    }

    #[test]
    fn an_unclosed_opener_after_a_nested_block_stops_at_its_own_text() {
        // A property-test finding: after a block inside a list item ended, the
        // item's own text took that block's end as its own (a reversed range).
        assert_eq!(
            prepared("1. \\[```x\ty\n\t>\\("),
            "1. \\\\\\[\\`\\`\\`x\ty\n\t>\\\\\\("
        );
        assert_eq!(
            prepared("> a\n>\n> \\( b\n> - c\n"),
            "> a\n>\n> \\\\\\( b\n> - c\n"
        );
    }

    #[test]
    fn sources_without_the_delimiters_are_borrowed() {
        assert!(matches!(
            prepare("$x$ and (y) [z]", Options::ENABLE_MATH).source,
            Cow::Borrowed(_)
        ));
    }
}
