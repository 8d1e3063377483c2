//! A conversation's word list: its distinct folded words, which a search
//! reads before the whole text, so that a conversation that cannot match
//! is passed over (`search`'s module doc says why that is exact). Pure.

use memchr::memmem;

use super::matcher::{fold_str, fold_unicode, is_break};
use super::HEADER_END;
use crate::turn::message::{Conversation, Message};

/// The layout tag that starts every word list.
pub const WORDS_LAYOUT: &str = "w1";

/// The word list of `c`, whose search text is `search_text`: its distinct
/// runs of non-blank characters, folded as a non-ASCII query folds text (for
/// an ASCII query that finds the same occurrences as its ASCII folding), one
/// per line after the `w1` line. Empty while a turn of `c` is live: the next
/// save would make a list of the whole conversation again, at every save of
/// the stream; searches read the text of such a conversation instead.
pub fn word_list(c: &Conversation, search_text: &str) -> String {
    let live = c.messages.iter().any(|m| match m {
        Message::Assistant(turn) => turn.status.is_live(),
        Message::User { .. } => false,
    });
    if live {
        return String::new();
    }
    let body = memchr::memchr(HEADER_END, search_text.as_bytes())
        .map_or("", |end| &search_text[end + 1..]);
    let mut folded = Vec::new();
    fold_unicode(body, &mut folded);
    // Folding maps a character to one of the same length: still UTF-8.
    let folded = String::from_utf8_lossy(&folded);
    // Distinct first (a long text repeats most of its words), then sorted
    // so the same conversation always gives the same list.
    let distinct: std::collections::HashSet<&str> =
        folded.split(is_break).filter(|w| !w.is_empty()).collect();
    let mut words: Vec<&str> = distinct.into_iter().collect();
    words.sort_unstable();
    let mut out = String::with_capacity(
        WORDS_LAYOUT.len() + words.iter().map(|w| w.len() + 1).sum::<usize>() + 1,
    );
    out.push_str(WORDS_LAYOUT);
    out.push('\n');
    for word in words {
        out.push_str(word);
        out.push('\n');
    }
    out
}

/// Whether a conversation with this word list may match `query`: false only
/// when some word of the query is in none of its words. A list of another
/// layout, or none (empty), cannot tell: true.
pub fn may_match(word_list: &str, query: &str) -> bool {
    let Some(list) = word_list
        .strip_prefix(WORDS_LAYOUT)
        .and_then(|rest| rest.strip_prefix('\n'))
    else {
        return true;
    };
    query
        .split(is_break)
        .filter(|w| !w.is_empty())
        .all(|word| memmem::find(list.as_bytes(), fold_str(word).as_bytes()).is_some())
}
