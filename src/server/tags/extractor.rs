//! The streaming tag extractor (design §3): splits answer text into answer,
//! reasoning and the tags between them. Text is passed through byte for byte,
//! a possible tag split across chunks is held back until decided (never shown
//! half), and per-chunk work is proportional to the chunk plus the held-back
//! tail (bounded by the longest tag), never to the text before it.
//!
//! Pure: no I/O, no clock. The normalizer turns the parts into `TurnEvent`s
//! and tells the extractor, with every call, what it knows that the answer
//! text does not show (`TurnSoFar`).

use super::context::{byte_set, run_length, AnswerContext};
use super::matcher::{find, Found, Side};
use super::sets::TagSet;

/// What the extractor found, in order. Tag parts carry their literal text, so
/// concatenating every part's text gives the input back exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TagPart {
    Answer(String),
    Reasoning(String),
    /// A recognised opening tag (empty text for an implicit `start_in_thinking` open).
    Open(String),
    /// A recognised closing tag of the open block.
    Close(String),
    /// A closing tag with no open block: the answer so far was reasoning.
    LoneClose(String),
    /// A model-written opening tag absorbed by `start_in_thinking`.
    Absorbed(String),
}

impl TagPart {
    /// The input text this part stands for.
    pub fn text(&self) -> &str {
        match self {
            TagPart::Answer(t)
            | TagPart::Reasoning(t)
            | TagPart::Open(t)
            | TagPart::Close(t)
            | TagPart::LoneClose(t)
            | TagPart::Absorbed(t) => t,
        }
    }
}

/// What the caller knows about the turn that the answer text does not show.
/// Passed with every call, so the extractor never has to be kept in step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnSoFar {
    /// The provider sent reasoning (a field or a signal): the turn has had a
    /// thinking block, so a lone closing tag is literal text.
    pub had_reasoning: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Answer,
    /// Inside a block opened by pair `Some(i)`, or by `start_in_thinking` (any close).
    Thinking(Option<usize>),
}

/// The streaming extractor.
#[derive(Debug, Clone)]
pub struct TagExtractor {
    tags: TagSet,
    mode: Mode,
    /// Undecided tail (starts with a possible tag).
    pending: String,
    /// Line, fence and code-span state of the answer text.
    context: AnswerContext,
    /// Immediately after a recognised tag.
    after_tag: bool,
    /// The text itself has opened a block (a tag, a lone closing tag, or
    /// `start_in_thinking`).
    had_tag_block: bool,
    /// Per pair: an opening tag that did not count appeared in the answer.
    uncounted_open: Vec<bool>,
    /// `start_in_thinking`: the block's text so far is whitespace only.
    absorbing: bool,
    start_in_thinking: bool,
    started: bool,
}

impl TagExtractor {
    pub fn new(tags: TagSet, start_in_thinking: bool) -> Self {
        let count = tags.len();
        Self {
            tags,
            mode: Mode::Answer,
            pending: String::new(),
            context: AnswerContext::default(),
            after_tag: false,
            had_tag_block: false,
            uncounted_open: vec![false; count],
            absorbing: false,
            start_in_thinking,
            started: false,
        }
    }

    /// True while a lone closing tag could still come (`LoneClose`): tags are
    /// on, the output does not start inside a block (`start_in_thinking` opens
    /// one at the first text), and the turn has had no thinking block, no
    /// recognised opening tag and no lone closing tag yet. Once false it stays
    /// false for the rest of the turn.
    pub(crate) fn lone_close_possible(&self, so_far: TurnSoFar) -> bool {
        !self.tags.is_empty() && !self.start_in_thinking && !self.had_block(so_far)
    }

    /// Feeds answer text; returns the decided parts.
    pub fn push(&mut self, text: &str, so_far: TurnSoFar) -> Vec<TagPart> {
        let mut out = Vec::new();
        self.push_into(text, so_far, &mut out);
        out
    }

    /// Feeds answer text; appends the decided parts to `out`. A caller that
    /// reuses `out` saves an allocation per chunk.
    pub fn push_into(&mut self, text: &str, so_far: TurnSoFar, out: &mut Vec<TagPart>) {
        if text.is_empty() {
            return;
        }
        if !self.started {
            self.started = true;
            if self.start_in_thinking && !self.tags.is_empty() {
                self.mode = Mode::Thinking(None);
                self.had_tag_block = true;
                self.absorbing = true;
                out.push(TagPart::Open(String::new()));
            }
        }
        if self.tags.is_empty() {
            out.push(TagPart::Answer(text.to_owned()));
            return;
        }
        if self.pending.is_empty() {
            // The common case: nothing held back, scan the chunk in place.
            self.scan(text, false, so_far, out);
        } else {
            let mut buffer = std::mem::take(&mut self.pending);
            buffer.push_str(text);
            self.scan(&buffer, false, so_far, out);
        }
    }

    /// End of stream: a held-back partial tag is released as literal text.
    pub fn finish(&mut self, so_far: TurnSoFar) -> Vec<TagPart> {
        let mut out = Vec::new();
        let buffer = std::mem::take(&mut self.pending);
        if !buffer.is_empty() {
            self.scan(&buffer, true, so_far, &mut out);
        }
        out
    }

    /// The turn has had a thinking block, from the text or from the provider.
    fn had_block(&self, so_far: TurnSoFar) -> bool {
        self.had_tag_block || so_far.had_reasoning
    }

    fn scan(&mut self, buffer: &str, at_end: bool, so_far: TurnSoFar, out: &mut Vec<TagPart>) {
        let mut run_start = 0;
        let mut i = 0;
        while i < buffer.len() {
            let plain = self.skip_plain(&buffer.as_bytes()[i..]);
            if plain > 0 {
                i += plain;
                continue;
            }
            let rest = &buffer[i..];
            let c = rest.chars().next().unwrap_or('\0');
            let found = if c == '<' || c == '\u{25c1}' {
                self.try_tag(rest, at_end, so_far)
            } else {
                None
            };
            match found {
                Some(Decision::Hold) => {
                    self.flush(&buffer[run_start..i], out);
                    self.pending = rest.to_owned();
                    return;
                }
                Some(Decision::Tag { part, len, pair }) => {
                    self.flush(&buffer[run_start..i], out);
                    self.enter(&part, pair);
                    out.push(part);
                    i += len;
                    run_start = i;
                }
                None => {
                    self.consume(c);
                    i += c.len_utf8();
                }
            }
        }
        self.flush(&buffer[run_start..], out);
    }

    /// Length of the leading run of `bytes` that can neither start a tag nor
    /// change line, fence, code-span or absorbing state, with the run's effect
    /// on the state applied. Skipping such runs a byte search at a time is
    /// what makes plain text cheap; every other character goes through
    /// `consume`. The run stops only at ASCII bytes or at 0xE2 (the lead byte
    /// of `◁`), so it always ends on a character boundary.
    fn skip_plain(&mut self, bytes: &[u8]) -> usize {
        let len = match self.mode {
            Mode::Thinking(_) if !self.absorbing => run_length(bytes, &THINKING_STOPS),
            Mode::Answer => self.context.skip_plain(bytes),
            Mode::Thinking(_) => 0,
        };
        if len > 0 {
            self.after_tag = false;
        }
        len
    }

    /// Decides what a `<`/`◁` at the start of `rest` is.
    fn try_tag(&mut self, rest: &str, at_end: bool, so_far: TurnSoFar) -> Option<Decision> {
        match self.mode {
            Mode::Thinking(pair) => {
                match find(&self.tags, rest, pair, Side::Close) {
                    Found::Full { len, .. } => {
                        return Some(Decision::tag(
                            TagPart::Close(rest[..len].to_owned()),
                            len,
                            None,
                        ))
                    }
                    Found::Partial if !at_end => return Some(Decision::Hold),
                    _ => {}
                }
                if self.absorbing {
                    match find(&self.tags, rest, None, Side::Open) {
                        Found::Full { len, .. } => {
                            return Some(Decision::tag(
                                TagPart::Absorbed(rest[..len].to_owned()),
                                len,
                                None,
                            ))
                        }
                        Found::Partial if !at_end => return Some(Decision::Hold),
                        _ => {}
                    }
                }
                None
            }
            Mode::Answer => {
                if self.context.in_code() {
                    return None;
                }
                let had_block = self.had_block(so_far);
                let open_counts = self.context.at_line_start() || self.after_tag;
                // Opening tags matter when they count, and before any block
                // (an uncounted one disarms its pair's lone closing tag).
                if open_counts || !had_block {
                    match find(&self.tags, rest, None, Side::Open) {
                        Found::Full { pair, len } if open_counts => {
                            return Some(Decision::tag(
                                TagPart::Open(rest[..len].to_owned()),
                                len,
                                Some(pair),
                            ));
                        }
                        Found::Full { pair, .. } => {
                            self.uncounted_open[pair] = true;
                            return None;
                        }
                        Found::Partial if !at_end => return Some(Decision::Hold),
                        _ => {}
                    }
                }
                if !had_block {
                    match find(&self.tags, rest, None, Side::Close) {
                        Found::Full { pair, len } if !self.uncounted_open[pair] => {
                            return Some(Decision::tag(
                                TagPart::LoneClose(rest[..len].to_owned()),
                                len,
                                None,
                            ));
                        }
                        Found::Partial if !at_end => return Some(Decision::Hold),
                        _ => {}
                    }
                }
                None
            }
        }
    }

    /// Updates the mode after a recognised tag (`pair`: the pair an opening tag belongs to).
    fn enter(&mut self, part: &TagPart, pair: Option<usize>) {
        self.after_tag = true;
        self.context.after_tag();
        match part {
            TagPart::Open(_) => {
                self.mode = Mode::Thinking(pair);
                self.had_tag_block = true;
            }
            TagPart::Close(_) => {
                self.mode = Mode::Answer;
                self.context.after_block();
                self.absorbing = false;
            }
            TagPart::LoneClose(_) => self.had_tag_block = true,
            TagPart::Absorbed(_) => self.absorbing = false,
            TagPart::Answer(_) | TagPart::Reasoning(_) => {}
        }
    }

    /// Tracks line, fence, code-span and absorbing state for one literal character.
    fn consume(&mut self, c: char) {
        self.after_tag = false;
        if let Mode::Thinking(_) = self.mode {
            if self.absorbing && !c.is_whitespace() {
                self.absorbing = false;
            }
            return;
        }
        self.context.consume(c);
    }

    fn flush(&self, text: &str, out: &mut Vec<TagPart>) {
        if text.is_empty() {
            return;
        }
        let part = match self.mode {
            Mode::Answer => TagPart::Answer(text.to_owned()),
            Mode::Thinking(_) => TagPart::Reasoning(text.to_owned()),
        };
        out.push(part);
    }
}

/// Bytes that end a plain run inside a thinking block: `<` and 0xE2 (the
/// lead byte of `◁`) may start a tag.
const THINKING_STOPS: [bool; 256] = byte_set(&[b'<', 0xE2]);

enum Decision {
    /// Undecided until more text arrives.
    Hold,
    /// A recognised tag of `len` bytes.
    Tag {
        part: TagPart,
        len: usize,
        pair: Option<usize>,
    },
}

impl Decision {
    fn tag(part: TagPart, len: usize, pair: Option<usize>) -> Self {
        Decision::Tag { part, len, pair }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Runs chunks through a fresh extractor and merges adjacent text parts.
    fn extract_with(tags: TagSet, start_in_thinking: bool, chunks: &[&str]) -> Vec<TagPart> {
        let mut x = TagExtractor::new(tags, start_in_thinking);
        let mut parts = Vec::new();
        for chunk in chunks {
            parts.extend(x.push(chunk, TurnSoFar::default()));
        }
        parts.extend(x.finish(TurnSoFar::default()));
        merge(parts)
    }

    fn extract(chunks: &[&str]) -> Vec<TagPart> {
        extract_with(TagSet::default(), false, chunks)
    }

    fn merge(parts: Vec<TagPart>) -> Vec<TagPart> {
        let mut out: Vec<TagPart> = Vec::new();
        for part in parts {
            match (out.last_mut(), part) {
                (Some(TagPart::Answer(a)), TagPart::Answer(b)) => a.push_str(&b),
                (Some(TagPart::Reasoning(a)), TagPart::Reasoning(b)) => a.push_str(&b),
                (_, part) => out.push(part),
            }
        }
        out
    }

    use TagPart::{Absorbed, Answer as A, Close, LoneClose, Open, Reasoning as R};
    fn s(t: &str) -> String {
        t.to_owned()
    }

    #[test]
    fn a_think_block_then_answer() {
        assert_eq!(
            extract(&["<think>hmm</think>\n\nHi"]),
            vec![
                Open(s("<think>")),
                R(s("hmm")),
                Close(s("</think>")),
                A(s("\n\nHi"))
            ]
        );
    }

    #[test]
    fn every_default_pair_is_recognised() {
        for (open, close) in [
            ("<think>", "</think>"),
            ("<thinking>", "</thinking>"),
            ("<thought>", "</thought>"),
            ("<reasoning>", "</reasoning>"),
            ("<reason>", "</reason>"),
            ("<|begin_of_thought|>", "<|end_of_thought|>"),
            ("\u{25c1}think\u{25b7}", "\u{25c1}/think\u{25b7}"),
        ] {
            let input = format!("{open}x{close}y");
            assert_eq!(
                extract(&[&input]),
                vec![Open(s(open)), R(s("x")), Close(s(close)), A(s("y"))],
                "{open}"
            );
        }
    }

    #[test]
    fn names_are_case_insensitive_attributes_and_spaces_before_close_are_allowed() {
        assert_eq!(
            extract(&["<THINK effort=\"high\">x</Think \t>y"]),
            vec![
                Open(s("<THINK effort=\"high\">")),
                R(s("x")),
                Close(s("</Think \t>")),
                A(s("y"))
            ]
        );
    }

    #[test]
    fn the_closing_tag_must_pair_with_the_opening_one_and_nesting_is_text() {
        assert_eq!(
            extract(&["<thinking>a</think><think>b</thinking>c"]),
            vec![
                Open(s("<thinking>")),
                R(s("a</think><think>b")),
                Close(s("</thinking>")),
                A(s("c"))
            ]
        );
    }

    #[test]
    fn an_opening_tag_mid_line_is_text() {
        assert_eq!(
            extract(&["Use <think> tags"]),
            vec![A(s("Use <think> tags"))]
        );
        assert_eq!(
            extract(&["Intro\n  <think>x</think>"]),
            vec![
                A(s("Intro\n  ")),
                Open(s("<think>")),
                R(s("x")),
                Close(s("</think>"))
            ]
        );
    }

    #[test]
    fn an_opening_tag_right_after_a_tag_counts() {
        assert_eq!(
            extract(&["<think>a</think><think>b</think>"]),
            vec![
                Open(s("<think>")),
                R(s("a")),
                Close(s("</think>")),
                Open(s("<think>")),
                R(s("b")),
                Close(s("</think>"))
            ]
        );
    }

    #[test]
    fn tags_inside_fenced_code_are_text() {
        let input = "```xml\n<think>not reasoning</think>\n```\n<think>real</think>";
        assert_eq!(
            extract(&[input]),
            vec![
                A(s("```xml\n<think>not reasoning</think>\n```\n")),
                Open(s("<think>")),
                R(s("real")),
                Close(s("</think>"))
            ]
        );
        // A shorter or info-carrying fence line does not close it; tildes work too.
        let input = "~~~~\n```\n<think>x\n~~~~ info\n~~~~\n<think>y</think>";
        let parts = extract(&[input]);
        assert_eq!(parts[0], A(s("~~~~\n```\n<think>x\n~~~~ info\n~~~~\n")));
        assert_eq!(parts[1], Open(s("<think>")));
    }

    #[test]
    fn inline_code_spans_protect_closing_tags() {
        assert_eq!(
            extract(&["Write `</think>` to close"]),
            vec![A(s("Write `</think>` to close"))]
        );
        // A span lasts at most to the end of the line.
        assert_eq!(
            extract(&["a `b\nreasoning</think>answer"]),
            vec![LoneClose(s("</think>")), A(s("answer"))]
                .into_iter()
                .fold(vec![A(s("a `b\nreasoning"))], |mut v, p| {
                    v.push(p);
                    v
                })
        );
    }

    #[test]
    fn a_lone_closing_tag_means_the_answer_so_far_was_reasoning() {
        assert_eq!(
            extract(&["Let me think.\n</think>\n\nAnswer"]),
            vec![
                A(s("Let me think.\n")),
                LoneClose(s("</think>")),
                A(s("\n\nAnswer"))
            ]
        );
    }

    #[test]
    fn a_stray_closing_tag_after_a_block_or_after_an_uncounted_open_is_text() {
        assert_eq!(
            extract(&["<think>a</think>b</think>c"]),
            vec![
                Open(s("<think>")),
                R(s("a")),
                Close(s("</think>")),
                A(s("b</think>c"))
            ]
        );
        assert_eq!(
            extract(&["say <think> then </think> ok"]),
            vec![A(s("say <think> then </think> ok"))]
        );
    }

    #[test]
    fn a_reasoning_field_block_disarms_lone_closing_tags() {
        let mut x = TagExtractor::new(TagSet::default(), false);
        let so_far = TurnSoFar {
            had_reasoning: true,
        };
        assert!(!x.lone_close_possible(so_far));
        let mut parts = x.push("a</think>b", so_far);
        parts.extend(x.finish(so_far));
        assert_eq!(merge(parts), vec![A(s("a</think>b"))]);
    }

    #[test]
    fn an_unclosed_block_stays_thinking() {
        assert_eq!(
            extract(&["<think>still going"]),
            vec![Open(s("<think>")), R(s("still going"))]
        );
    }

    #[test]
    fn a_partial_tag_is_held_back_and_never_shown() {
        let mut x = TagExtractor::new(TagSet::default(), false);
        let mut push = |text| x.push(text, TurnSoFar::default());
        assert_eq!(push("<thi"), vec![]);
        assert_eq!(push("nk>a"), vec![Open(s("<think>")), R(s("a"))]);
        assert_eq!(push("</th"), vec![]);
        assert_eq!(push("ink>b"), vec![Close(s("</think>")), A(s("b"))]);
    }

    #[test]
    fn a_partial_tag_at_the_end_is_flushed_as_text_of_the_current_kind() {
        assert_eq!(extract(&["Hello\n<thi"]), vec![A(s("Hello\n<thi"))]);
        assert_eq!(
            extract(&["<think>x</thi"]),
            vec![Open(s("<think>")), R(s("x</thi"))]
        );
    }

    #[test]
    fn start_in_thinking_opens_at_once_and_absorbs_a_leading_tag() {
        assert_eq!(
            extract_with(TagSet::default(), true, &["\n<think>plan</thought>ans"]),
            vec![
                Open(s("")),
                R(s("\n")),
                Absorbed(s("<think>")),
                R(s("plan")),
                Close(s("</thought>")),
                A(s("ans"))
            ]
        );
        assert_eq!(
            extract_with(TagSet::default(), true, &["a <think> b</think>c"]),
            vec![
                Open(s("")),
                R(s("a <think> b")),
                Close(s("</think>")),
                A(s("c"))
            ]
        );
    }

    #[test]
    fn configured_tags_replace_the_defaults() {
        let tags = TagSet::parse_list("analysis, <|begin_of_thought|>").unwrap();
        assert_eq!(
            extract_with(tags.clone(), false, &["<think>x</think>"]),
            vec![A(s("<think>x</think>"))]
        );
        assert_eq!(
            extract_with(tags, false, &["<analysis>x</analysis>y"]),
            vec![
                Open(s("<analysis>")),
                R(s("x")),
                Close(s("</analysis>")),
                A(s("y"))
            ]
        );
        assert!(TagSet::parse_list("<bad").is_err());
    }

    #[test]
    fn no_tags_means_plain_pass_through() {
        assert_eq!(
            extract_with(TagSet::none(), false, &["<think>x"]),
            vec![A(s("<think>x"))]
        );
    }

    #[test]
    fn multibyte_text_and_tags_split_mid_character_survive() {
        let input = "\u{25c1}think\u{25b7}\u{3053}\u{3093}\u{25c1}/think\u{25b7}\u{1f600}";
        let whole = extract(&[input]);
        // Split at every char boundary.
        for (i, _) in input.char_indices().skip(1) {
            assert_eq!(extract(&[&input[..i], &input[i..]]), whole, "split at {i}");
        }
    }

    fn join(parts: &[TagPart]) -> String {
        parts.iter().map(TagPart::text).collect()
    }

    /// Random inputs built from tag-relevant pieces, so the interesting cases occur.
    fn piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "<think>",
            "</think>",
            "<thinking>",
            "</thinking>",
            "<THOUGHT a=1>",
            "</thought >",
            "<|begin_of_thought|>",
            "<|end_of_thought|>",
            "\u{25c1}think\u{25b7}",
            "\u{25c1}/think\u{25b7}",
            "<",
            "</",
            "<thi",
            ">",
            "\n",
            "  ",
            "\t",
            "`",
            "``",
            "```",
            "~~~",
            "```rust\n",
            "\n```\n",
            "text",
            "more words",
            "\u{e9}\u{1f600}",
            "<b>",
            "a<think>",
            " x ",
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn any_chunking_gives_the_single_chunk_result_and_loses_nothing(
            pieces in prop::collection::vec(piece(), 0..24),
            cuts in prop::collection::vec(0usize..1000, 0..12),
            start_in_thinking in any::<bool>(),
        ) {
            let input: String = pieces.concat();
            let whole = extract_with(TagSet::default(), start_in_thinking, &[&input]);
            prop_assert_eq!(join(&whole), input.clone());
            let mut points: Vec<usize> = cuts
                .into_iter()
                .map(|c| c % (input.len() + 1))
                .filter(|&c| input.is_char_boundary(c))
                .collect();
            points.sort_unstable();
            points.dedup();
            let mut chunks = Vec::new();
            let mut last = 0;
            for p in points {
                chunks.push(&input[last..p]);
                last = p;
            }
            chunks.push(&input[last..]);
            let split = extract_with(TagSet::default(), start_in_thinking, &chunks);
            prop_assert_eq!(split, whole);
        }
    }
}
