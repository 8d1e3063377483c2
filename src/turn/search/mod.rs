//! Search in stored conversations: the one text of a
//! conversation that a search scans, and the matcher that finds a query in
//! it. Pure: no I/O here; history stores the text beside each record and
//! the page scans it.
//!
//! The search text ([`search_text`]) is a small header, then every part of
//! the conversation a reader could remember words from (the title, each
//! question, each thinking block's reasoning, each answer: the versions
//! shown), in order:
//!
//! ```text
//! s2 t q0 r1.0 a1.1 q2 a3.0 0.0>q0 0.0>a1.0␞Title␟Question␟Reasoning…␟Answer…␟…
//! ```
//!
//! `s2` names this layout; then one tag per part: `t` the title, `q<m>` the
//! question at `messages[m]`, `r<m>.<b>` / `a<m>.<b>` thinking / answer block
//! `b` of the turn at `messages[m]`, `x<m>.<b>` a tool step (its tool's name,
//! arguments and result). U+001E ends the header and U+001F
//! separates the parts. The versions of a turn that are not shown follow the
//! shown conversation, each tag after the path that shows it: `<m>.<v>>` for
//! version `v` (counted from 0 among all) of the turn asked at `messages[m]`,
//! outer versions first; so a search finds words in an answer that Regenerate
//! replaced, and the page knows which version to show. (`s1`, the layout
//! before versions were searched, reads the same.) Neither separator is
//! whitespace, so no match spans two parts (both are replaced by a space
//! inside the texts). Empty parts are left out.
//! A match's part is the number of U+001F before it (one `memchr` pass), so
//! nothing but the text itself is stored and a scan reads it once.
//!
//! Beside it, a conversation keeps a word list ([`word_list`]): its distinct
//! words, folded, one per line after the header line `w1`. A query's word
//! can only occur inside one run of non-blank characters, so a conversation
//! whose list holds none of the runs containing it cannot match
//! ([`may_match`]): a search reads the small lists first and the whole text
//! only of the conversations that pass. An empty list (written while a turn
//! streams, when it would be out of date at the next save) passes all.
//!
//! Matching ([`find_range`]): the query's words in order, each run of
//! whitespace in the query matching any run of whitespace (at least one) in
//! the text. Case-insensitive: ASCII always; for a query with non-ASCII
//! letters, letters whose lowercase is one letter of the same UTF-8 length
//! (Latin, Greek, Cyrillic…: É/é, Σ/σ, Д/д), so offsets in the folded text are
//! offsets in the original; others (ẞ/ß, İ) match only as written.

mod matcher;
mod words;

use std::borrow::Cow;

pub use matcher::{find_range, find_ranges};
pub use words::{may_match, word_list, WORDS_LAYOUT};

use super::message::{Conversation, Message};
use super::reducer::Block;

/// The layout tag that starts every search text.
pub const LAYOUT: &str = "s2";
/// Ends the header.
const HEADER_END: u8 = 0x1e;
/// Separates two parts.
const PART_SEP: u8 = 0x1f;
/// About how many characters of context a snippet keeps on each side.
pub const SNIPPET_CHARS: usize = 60;

/// Which part of a conversation a match is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    Title,
    Question,
    Reasoning,
    Answer,
    /// A tool step's arguments or result.
    Tool,
}

impl Part {
    /// Its name for the page's data attributes ("reasoning").
    pub fn name(self) -> &'static str {
        match self {
            Part::Title => "title",
            Part::Question => "question",
            Part::Reasoning => "reasoning",
            Part::Answer => "answer",
            Part::Tool => "tool",
        }
    }

    /// How the results list names it ("in reasoning").
    pub fn label(self) -> &'static str {
        match self {
            Part::Title => "in the title",
            Part::Question => "in a question",
            Part::Reasoning => "in reasoning",
            Part::Answer => "in an answer",
            Part::Tool => "in a tool step",
        }
    }
}

/// Where a match is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Place {
    /// The versions to show first, outermost first, each as (index of the
    /// turn's question, version counted from 0): empty for what is shown.
    pub versions: Vec<(usize, usize)>,
    /// Index into `Conversation::messages` (once `versions` are shown);
    /// `None` for the title.
    pub message: Option<usize>,
    pub part: Part,
}

/// The first match of a query in a conversation, with its context.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Hit {
    pub place: Place,
    /// About [`SNIPPET_CHARS`] characters before the match, within its part,
    /// whitespace collapsed, starting at a word where one starts near the cut;
    /// "…" first when cut.
    pub before: String,
    /// The matched text as written (whitespace collapsed).
    pub matched: String,
    /// The context after, likewise; "…" last when cut.
    pub after: String,
    /// Where the match starts in the conversation's search text (two matches
    /// of one conversation never share it).
    pub at: usize,
}

/// What search reads of a tool step: its name, arguments and result.
fn tool_text(step: &crate::turn::reducer::ToolStep) -> String {
    let output = step.output.as_deref().unwrap_or_default();
    format!("{}\n{}\n{}", step.tool_name(), step.arguments, output)
}

/// Everything searchable in `c`, laid out as the module doc says.
pub fn search_text(c: &Conversation) -> String {
    let mut parts: Vec<(String, Cow<str>)> = vec![("t".into(), Cow::Borrowed(&c.title))];
    push_messages(&mut parts, "", &c.messages, 0);
    parts.retain(|(_, text)| !text.is_empty());
    parts.retain(|(_, text)| !text.is_empty());
    let mut tags = String::from(LAYOUT);
    for (tag, _) in &parts {
        tags.push(' ');
        tags.push_str(tag);
    }
    let parts: Vec<Cow<str>> = parts.into_iter().map(|(_, text)| text).collect();
    let size = tags.len() + 1 + parts.iter().map(|p| p.len() + 1).sum::<usize>();
    let mut out = String::with_capacity(size);
    out.push_str(&tags);
    out.push(HEADER_END as char);
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push(PART_SEP as char);
        }
        if memchr::memchr2(HEADER_END, PART_SEP, part.as_bytes()).is_some() {
            out.extend(part.chars().map(|ch| match ch {
                '\u{1e}' | '\u{1f}' => ' ',
                _ => ch,
            }));
        } else {
            out.push_str(part);
        }
    }
    out
}

/// The parts of `messages`, which start at index `offset` of the
/// conversation as the versions in `path` show it, each tagged after `path`;
/// then, for each question with other versions, each of those: its question
/// and what followed it, after the path that shows it.
fn push_messages<'c>(
    parts: &mut Vec<(String, Cow<'c, str>)>,
    path: &str,
    messages: &'c [Message],
    offset: usize,
) {
    for (i, message) in messages.iter().enumerate() {
        let m = offset + i;
        match message {
            Message::User { content, .. } => {
                parts.push((format!("{path}q{m}"), Cow::Borrowed(content)))
            }
            Message::Assistant(turn) => {
                for (b, block) in turn.blocks.iter().enumerate() {
                    parts.push(match block {
                        Block::Thinking(t) => (format!("{path}r{m}.{b}"), Cow::Borrowed(&t.text)),
                        Block::Answer { text } => (format!("{path}a{m}.{b}"), Cow::Borrowed(text)),
                        Block::Tool(step) => {
                            (format!("{path}x{m}.{b}"), Cow::Owned(tool_text(step)))
                        }
                    });
                }
            }
        }
    }
    for (i, message) in messages.iter().enumerate() {
        let Message::User {
            versions: Some(versions),
            ..
        } = message
        else {
            continue;
        };
        let m = offset + i;
        let shown = versions.shown.min(versions.others.len());
        for (k, other) in versions.others.iter().enumerate() {
            // Counted among all versions: the shown one sits at `shown`.
            let number = if k < shown { k } else { k + 1 };
            let inner = format!("{path}{m}.{number}>");
            parts.push((format!("{inner}q{m}"), Cow::Borrowed(&other.content)));
            push_messages(parts, &inner, &other.after, m + 1);
        }
    }
}

/// The first match of `query` in a search text, with its place and snippet;
/// `None` when the query has no words, or nothing matches.
pub fn find(text: &str, query: &str) -> Option<Hit> {
    find_all(text, query, 1).pop()
}

/// The first `limit` matches of `query` in a search text, in order, each
/// with its place and snippet (a part may hold several).
pub fn find_all(text: &str, query: &str, limit: usize) -> Vec<Hit> {
    let Some(header_end) = memchr::memchr(HEADER_END, text.as_bytes()) else {
        return Vec::new();
    };
    let header = &text[..header_end];
    let body = &text[header_end + 1..];
    let mut tags = header.split_ascii_whitespace();
    // Texts stored in the layout before versions were searched read the same.
    if !matches!(tags.next(), Some(LAYOUT | "s1")) {
        return Vec::new();
    }
    let tags: Vec<&str> = tags.collect();
    let bytes = body.as_bytes();
    find_ranges(body, query, limit)
        .into_iter()
        .filter_map(|found| {
            let before = &bytes[..found.start];
            let index = memchr::memchr_iter(PART_SEP, before).count();
            let part_start = memchr::memrchr(PART_SEP, before).map_or(0, |i| i + 1);
            let part_end =
                memchr::memchr(PART_SEP, &bytes[found.end..]).map_or(body.len(), |i| found.end + i);
            let place = parse_tag(tags.get(index)?)?;
            let part = &body[part_start..part_end];
            let (start, end) = (found.start - part_start, found.end - part_start);
            Some(Hit {
                place,
                before: context_before(&part[..start]),
                matched: collapse(&part[start..end]),
                after: context_after(&part[end..]),
                at: found.start,
            })
        })
        .collect()
}

/// A tag: its version path (`<question>.<version>>` for each version to show,
/// outermost first), then its part.
fn parse_tag(tag: &str) -> Option<Place> {
    let mut path = tag.split('>');
    let part_tag = path.next_back()?;
    let versions = path
        .map(|step| {
            let (m, v) = step.split_once('.')?;
            Some((m.parse().ok()?, v.parse().ok()?))
        })
        .collect::<Option<Vec<(usize, usize)>>>()?;
    let (kind, rest) = part_tag.split_at_checked(1)?;
    let message = |s: &str| s.parse::<usize>().ok();
    let block_message = |s: &str| s.split_once('.').and_then(|(m, _)| message(m));
    let (message, part) = match kind {
        "t" => (None, Part::Title),
        "q" => (Some(message(rest)?), Part::Question),
        "r" => (Some(block_message(rest)?), Part::Reasoning),
        "a" => (Some(block_message(rest)?), Part::Answer),
        "x" => (Some(block_message(rest)?), Part::Tool),
        _ => return None,
    };
    Some(Place {
        versions,
        message,
        part,
    })
}

/// Runs of whitespace as one space.
fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for ch in text.chars() {
        if ch.is_whitespace() {
            space = true;
        } else {
            if space {
                out.push(' ');
            }
            space = false;
            out.push(ch);
        }
    }
    if space {
        out.push(' ');
    }
    out
}

/// The last [`SNIPPET_CHARS`] characters of `text`, starting at a word when
/// cut (unless the window holds a single long word).
fn context_before(text: &str) -> String {
    let cut = text
        .char_indices()
        .rev()
        .nth(SNIPPET_CHARS - 1)
        .map(|(i, _)| i)
        .filter(|&i| i > 0);
    let Some(mut from) = cut else {
        return collapse(text).trim_start().to_owned();
    };
    if let Some(space) = text[from..].find(char::is_whitespace) {
        from += space;
    }
    format!("\u{2026}{}", collapse(&text[from..]).trim_start())
}

/// The first [`SNIPPET_CHARS`] characters of `text`, ending at a word when cut.
fn context_after(text: &str) -> String {
    let cut = text
        .char_indices()
        .nth(SNIPPET_CHARS)
        .map(|(i, _)| i)
        .filter(|&i| i < text.len());
    let Some(mut to) = cut else {
        return collapse(text).trim_end().to_owned();
    };
    if let Some(space) = text[..to].rfind(char::is_whitespace).filter(|&s| s > 0) {
        to = space;
    }
    format!("{}\u{2026}", collapse(&text[..to]).trim_end())
}

/// Which block of the turn at `place.message` holds a hit's `matched` text
/// (the first that does, as the search found the first match), for the
/// page to open that block. `None` outside turns.
pub fn block_of(c: &Conversation, place: &Place, matched: &str) -> Option<usize> {
    let Some(Message::Assistant(turn)) = place.message.and_then(|m| c.messages.get(m)) else {
        return None;
    };
    turn.blocks
        .iter()
        .position(|block| match (block, place.part) {
            (Block::Thinking(t), Part::Reasoning) => find_range(&t.text, matched).is_some(),
            (Block::Answer { text }, Part::Answer) => find_range(text, matched).is_some(),
            (Block::Tool(step), Part::Tool) => find_range(&tool_text(step), matched).is_some(),
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::reducer::Turn;
    use crate::turn::TurnEvent;

    fn turn(events: Vec<TurnEvent>) -> Turn {
        let mut turn = Turn::new(0.0);
        for e in events {
            turn.apply(e, 0.0);
        }
        turn
    }

    fn think(text: &str) -> Vec<TurnEvent> {
        vec![
            TurnEvent::ThinkingStart,
            TurnEvent::ThinkingDelta { text: text.into() },
            TurnEvent::ThinkingEnd {
                duration_ms: 1_000,
                opaque: false,
            },
        ]
    }

    fn answer(text: &str) -> TurnEvent {
        TurnEvent::AnswerDelta { text: text.into() }
    }

    fn conversation(title: &str, question: &str, reasoning: &str, reply: &str) -> Conversation {
        let mut c = Conversation::new("c".into(), 0.0);
        c.title = title.into();
        c.messages.push(Message::user(question));
        let mut events = think(reasoning);
        events.push(answer(reply));
        c.messages.push(Message::Assistant(turn(events)));
        c
    }

    /// `c` with its last turn ended, as a save after the stream sees it.
    fn finished(mut c: Conversation) -> Conversation {
        if let Some(Message::Assistant(turn)) = c.messages.last_mut() {
            turn.apply(
                TurnEvent::Done {
                    finish_reason: None,
                    output_limit: None,
                },
                0.0,
            );
        }
        c
    }

    fn words_of(c: &Conversation) -> String {
        word_list(c, &search_text(c))
    }

    #[test]
    fn words_in_a_tool_steps_arguments_and_result_are_found_there() {
        let mut c = conversation("Files", "Read it", "I will read the file.", "Done.");
        if let Some(Message::Assistant(turn)) = c.messages.last_mut() {
            turn.apply(
                TurnEvent::ToolCallStart {
                    id: "c1".into(),
                    name: "files__read_text_file".into(),
                    server: "files".into(),
                },
                0.0,
            );
            turn.apply(
                TurnEvent::ToolCallReady {
                    id: "c1".into(),
                    arguments: serde_json::json!({"path": "notes/aquamarine.txt"}),
                    approval: crate::turn::Approval::NotNeeded,
                    digest: String::new(),
                },
                0.0,
            );
            turn.apply(
                TurnEvent::ToolResult {
                    id: "c1".into(),
                    status: crate::turn::ToolStatus::Ok,
                    output: "The vault code is OBSIDIAN-42.".into(),
                    truncated_bytes: 0,
                    duration_ms: 3,
                },
                0.0,
            );
        }
        let c = finished(c);
        let text = search_text(&c);
        for (query, context) in [("obsidian-42", "vault code is"), ("aquamarine", "notes/")] {
            let hit = find(&text, query).expect("found in the tool step");
            assert_eq!(hit.place.part, Part::Tool, "{query}");
            assert_eq!(hit.place.message, Some(1));
            assert!(hit.before.contains(context), "{hit:?}");
            assert_eq!(block_of(&c, &hit.place, &hit.matched), Some(2));
        }
        assert!(may_match(&words_of(&c), "OBSIDIAN"));
    }

    #[test]
    fn a_word_list_holds_each_folded_word_once_and_passes_only_what_may_match() {
        let c = finished(conversation(
            "Minerals",
            "Which STONE is it?",
            "Zanzibarite, maybe. Or zanzibarite?\tÉcole stone",
            "Quartz.",
        ));
        let list = words_of(&c);
        assert_eq!(
            list,
            "w1\nis\nit?\nmaybe.\nminerals\nor\nquartz.\nstone\nwhich\nzanzibarite,\nzanzibarite?\nécole\n"
        );
        assert!(may_match(&list, "Zanzibarite"));
        assert!(may_match(&list, "bar"));
        assert!(may_match(&list, "which stone"));
        assert!(may_match(&list, "ÉCOLE"));
        assert!(may_match(&list, "  "), "a blank query has no word to miss");
        assert!(!may_match(&list, "granite"));
        assert!(
            !may_match(&list, "stone granite"),
            "every word must be there"
        );
        assert!(
            !may_match(&list, "stonewhich"),
            "no word runs into the next"
        );
    }

    #[test]
    fn a_live_turn_or_an_unknown_list_makes_every_conversation_a_candidate() {
        let live = conversation("Live", "Which stone?", "thinking about granite", "");
        assert_eq!(words_of(&live), "");
        assert!(may_match("", "anything"));
        assert!(may_match("w9\nother\n", "anything"));
        assert!(words_of(&finished(live)).contains("\ngranite\n"));
    }

    proptest::proptest! {
        /// The list never hides a match: whatever `find` finds passes.
        #[test]
        fn whatever_find_finds_passes_the_word_list(
            text in "[a-zA-Zé ÉΣσ\t\n.\u{1f}]{0,60}",
            query in "[a-zA-Zé ÉΣσ.]{1,8}",
        ) {
            let c = finished(conversation("t", "q", &text, "a"));
            let search = search_text(&c);
            if find(&search, &query).is_some() {
                proptest::prop_assert!(may_match(&word_list(&c, &search), &query));
            }
        }
    }

    fn place(message: Option<usize>, part: Part) -> Place {
        Place {
            versions: Vec::new(),
            message,
            part,
        }
    }

    #[test]
    fn words_in_an_answer_regenerate_replaced_are_found_with_the_versions_that_show_them() {
        let mut c = conversation(
            "Stones",
            "Which stone?",
            "Red ones first.",
            "Garnet is red.",
        );
        assert!(c.start_version(0, "Which stone?".into()));
        c.messages
            .push(Message::Assistant(turn(vec![answer("Quartz is clear.")])));
        let text = search_text(&c);
        let hits = find_all(&text, "garnet", 10);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].place.versions, [(0, 0)]);
        assert_eq!(hits[0].place.message, Some(1));
        assert_eq!(hits[0].place.part, Part::Answer);
        // Showing those versions puts the match where the place says.
        let mut shown = c.clone();
        assert_eq!(block_of(&shown, &hits[0].place, &hits[0].matched), None);
        for &(at, version) in &hits[0].place.versions {
            assert!(shown.show_version(at, version));
        }
        assert_eq!(block_of(&shown, &hits[0].place, &hits[0].matched), Some(1));
        // The shown version's words need no switch; the reasoning of the
        // hidden one is found too.
        assert!(find_all(&text, "quartz", 10)[0].place.versions.is_empty());
        let reasoning = find_all(&text, "red ones", 10);
        assert_eq!(reasoning[0].place.versions, [(0, 0)]);
        assert_eq!(reasoning[0].place.part, Part::Reasoning);
    }

    #[test]
    fn a_version_inside_a_version_not_shown_is_found_with_both_steps() {
        let mut c = conversation("Stones", "First?", "", "One.");
        c.messages.push(Message::user("Second?"));
        c.messages
            .push(Message::Assistant(turn(vec![answer("Obsidian answer.")])));
        // The second turn asked again (its first answer kept as version 0),
        // then the first turn edited: all of that is version 0 of turn one.
        assert!(c.start_version(2, "Second, again?".into()));
        c.messages
            .push(Message::Assistant(turn(vec![answer("Basalt answer.")])));
        assert!(c.start_version(0, "First, edited?".into()));
        let text = search_text(&c);
        let hit = find(&text, "obsidian").expect("found");
        assert_eq!(hit.place.versions, [(0, 0), (2, 0)]);
        let mut shown = c.clone();
        for &(at, version) in &hit.place.versions {
            assert!(shown.show_version(at, version));
        }
        assert_eq!(block_of(&shown, &hit.place, &hit.matched), Some(0));
        let basalt = find(&text, "basalt").expect("found");
        assert_eq!(basalt.place.versions, [(0, 0)]);
        assert_eq!(basalt.place.message, Some(3));
    }

    #[test]
    fn every_match_is_returned_in_order_up_to_the_limit() {
        let c = conversation(
            "Amber",
            "Is amber a stone?",
            "",
            "Amber is resin. Baltic amber is old; amber floats.",
        );
        let text = search_text(&c);
        let hits = find_all(&text, "amber", 10);
        let parts: Vec<Part> = hits.iter().map(|h| h.place.part).collect();
        assert_eq!(
            parts,
            [
                Part::Title,
                Part::Question,
                Part::Answer,
                Part::Answer,
                Part::Answer
            ]
        );
        assert!(hits.windows(2).all(|w| w[0].at < w[1].at));
        assert_eq!(hits[3].before, "Amber is resin. Baltic ");
        assert_eq!(find_all(&text, "amber", 2).len(), 2);
        // Text stored in the layout before versions reads as before.
        let old = text.replacen(LAYOUT, "s1", 1);
        assert_eq!(find_all(&old, "amber", 10).len(), 5);
        assert!(find_all(&text.replacen(LAYOUT, "s9", 1), "amber", 10).is_empty());
    }

    #[test]
    fn a_word_near_the_end_of_1_mb_of_reasoning_is_found_in_its_place() {
        let filler = "the model weighs another option and sets it aside. ".repeat(20_000);
        let reasoning = format!("{filler}Then the zanzibarite idea settles it.");
        assert!(reasoning.len() > 1_000_000);
        let mut c = conversation("Minerals", "Which stone?", "short", "Quartz.");
        c.messages.push(Message::user("And the rare one?"));
        c.messages.push(Message::Assistant(turn({
            let mut e = think(&reasoning);
            e.push(answer("That one."));
            e
        })));
        let text = search_text(&c);
        let hit = find(&text, "Zanzibarite").expect("found");
        assert_eq!(hit.place, place(Some(3), Part::Reasoning));
        assert_eq!(hit.matched, "zanzibarite");
        assert_eq!(hit.after, " idea settles it.");
        assert!(hit.before.starts_with('\u{2026}') && hit.before.ends_with("Then the "));
        assert!(hit.before.chars().count() <= SNIPPET_CHARS + 1);
        assert_eq!(block_of(&c, &hit.place, &hit.matched), Some(0));
    }

    #[test]
    fn each_part_is_named() {
        let c = conversation(
            "Sky colour",
            "Why is the sky blue?",
            "Rayleigh scattering, probably.",
            "Short wavelengths scatter more.",
        );
        let text = search_text(&c);
        assert_eq!(
            find(&text, "colour").map(|h| h.place),
            Some(place(None, Part::Title))
        );
        assert_eq!(
            find(&text, "why is").map(|h| h.place),
            Some(place(Some(0), Part::Question))
        );
        assert_eq!(
            find(&text, "rayleigh").map(|h| h.place),
            Some(place(Some(1), Part::Reasoning))
        );
        assert_eq!(
            find(&text, "wavelengths").map(|h| h.place),
            Some(place(Some(1), Part::Answer))
        );
        assert_eq!(find(&text, "nowhere"), None);
    }

    #[test]
    fn the_first_match_wins_and_later_blocks_are_placed_by_their_turn() {
        let mut c = conversation("", "q", "r", "a");
        c.messages.push(Message::user("second question"));
        c.messages
            .push(Message::Assistant(turn(vec![answer("plain answer")])));
        c.messages.push(Message::user("third question"));
        let text = search_text(&c);
        assert!(
            text.starts_with("s2 q0 r1.0 a1.1 q2 a3.0 q4\u{1e}"),
            "{text}"
        );
        assert_eq!(
            find(&text, "question").map(|h| h.place),
            Some(place(Some(2), Part::Question))
        );
        assert_eq!(
            find(&text, "third").map(|h| h.place),
            Some(place(Some(4), Part::Question))
        );
        assert_eq!(
            find(&text, "plain").map(|h| h.place),
            Some(place(Some(3), Part::Answer))
        );
    }

    #[test]
    fn case_does_not_matter_and_the_snippet_keeps_it() {
        let c = conversation("", "Tell me about PostgreSQL", "", "");
        let hit = find(&search_text(&c), "postgresql").expect("found");
        assert_eq!(hit.matched, "PostgreSQL");
        assert_eq!(hit.before, "Tell me about ");
        assert_eq!(hit.after, "");
        let c = conversation("", "Ελληνικά και ÉCOLE", "", "");
        let hit = find(&search_text(&c), "école").expect("non-ASCII letters fold");
        assert_eq!(hit.matched, "ÉCOLE");
        assert!(find(&search_text(&c), "ελληνικά").is_some());
        let c = conversation("", "", "Минерал ЗАНЗИБАРИТ найден", "");
        let hit = find(&search_text(&c), "занзибарит").expect("Cyrillic folds");
        assert_eq!(
            (hit.before.as_str(), hit.matched.as_str()),
            ("Минерал ", "ЗАНЗИБАРИТ")
        );
    }

    #[test]
    fn whitespace_in_the_query_matches_any_run_of_whitespace() {
        let c = conversation("", "", "first   line\n\n  second line", "");
        let hit = find(&search_text(&c), "  line second ").expect("found");
        assert_eq!(hit.matched, "line second");
        assert_eq!(find(&search_text(&c), "linesecond"), None);
        assert!(find(&search_text(&c), "first line second").is_some());
    }

    #[test]
    fn a_query_does_not_match_across_two_parts() {
        let c = conversation("alpha", "beta", "gamma", "delta");
        let text = search_text(&c);
        assert_eq!(find(&text, "alpha beta"), None);
        assert_eq!(find(&text, "beta gamma"), None);
        assert_eq!(find(&text, "gammadelta"), None);
        // Separators typed into a text do not split it.
        let c = conversation("", "one\u{1f}two", "", "");
        let text = search_text(&c);
        assert_eq!(
            find(&text, "two").map(|h| h.place),
            Some(place(Some(0), Part::Question))
        );
    }

    #[test]
    fn snippets_are_cut_at_characters_and_words() {
        let before = "ünïcödé wörds ".repeat(10);
        let after = " çà et là ".repeat(10);
        let c = conversation("", &format!("{before}MATCH{after}"), "", "");
        let hit = find(&search_text(&c), "match").expect("found");
        assert!(hit.before.starts_with("\u{2026}ünïcödé "), "{}", hit.before);
        assert!(hit.before.ends_with("wörds "));
        assert!(
            hit.after.ends_with("là\u{2026}")
                || hit.after.ends_with("et\u{2026}")
                || hit.after.ends_with("çà\u{2026}"),
            "{}",
            hit.after
        );
        assert!(hit.after.chars().count() <= SNIPPET_CHARS + 1);
        // One long word with no space: cut inside it, at a character.
        let c = conversation("", &format!("{}x", "é".repeat(100)), "", "");
        let hit = find(&search_text(&c), "x").expect("found");
        assert_eq!(hit.before, format!("\u{2026}{}", "é".repeat(SNIPPET_CHARS)));
    }

    #[test]
    fn an_empty_query_finds_nothing() {
        let c = conversation("t", "q", "r", "a");
        let text = search_text(&c);
        assert_eq!(find(&text, ""), None);
        assert_eq!(find(&text, "  \n "), None);
        assert_eq!(find_range("anything", ""), None);
    }

    #[test]
    fn an_empty_conversation_has_a_header_alone() {
        let c = Conversation::new("c".into(), 0.0);
        assert_eq!(search_text(&c), "s2\u{1e}");
        assert_eq!(find(&search_text(&c), "s2"), None);
    }
}
