//! Matching one tag of a `TagSet` at the start of a piece of text: a full
//! match, a prefix that could still become one when more text arrives, or
//! none. Stateless: what the text around it means is the extractor's business.

use super::sets::{Pair, TagSet};

/// Longest attribute text accepted inside an opening tag (bounds the hold-back).
const MAX_ATTRIBUTES: usize = 256;

/// Which tag of a pair to look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Open,
    Close,
}

/// Result of matching a tag at a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Found {
    /// Pair number `pair`'s tag, `len` bytes long.
    Full {
        pair: usize,
        len: usize,
    },
    /// The text so far could still become a tag.
    Partial,
    None,
}

/// Finds a tag of `side` at the start of `s`, among all pairs or just `only`.
pub(super) fn find(tags: &TagSet, s: &str, only: Option<usize>, side: Side) -> Found {
    let mut partial = false;
    for (index, pair) in tags.pairs.iter().enumerate() {
        if only.is_some_and(|o| o != index) {
            continue;
        }
        let result = match (pair, side) {
            (Pair::Named(name), Side::Open) => match_named_open(s, name),
            (Pair::Named(name), Side::Close) => match_named_close(s, name),
            (Pair::Literal { open, .. }, Side::Open) => match_literal(s, open),
            (Pair::Literal { close, .. }, Side::Close) => match_literal(s, close),
        };
        match result {
            Some(Some(len)) => return Found::Full { pair: index, len },
            Some(None) => partial = true,
            None => {}
        }
    }
    if partial {
        Found::Partial
    } else {
        Found::None
    }
}

/// `Some(Some(len))` full match, `Some(None)` could still match, `None` no match.
type Match = Option<Option<usize>>;

fn match_literal(s: &str, token: &str) -> Match {
    if s.starts_with(token) {
        Some(Some(token.len()))
    } else if token.starts_with(s) {
        Some(None)
    } else {
        None
    }
}

/// Matches `prefix` case-insensitively at the start of `s`.
fn match_ci_prefix(s: &str, prefix: &str) -> Match {
    let n = s.len().min(prefix.len());
    if !s.is_char_boundary(n) || !s[..n].eq_ignore_ascii_case(&prefix[..n]) {
        return None;
    }
    if s.len() < prefix.len() {
        Some(None)
    } else {
        Some(Some(prefix.len()))
    }
}

/// Matches `opener` (`<` or `</`) and then `name`, case-insensitively, at
/// the start of `s`: `Ok` is the byte after the name; `Err` the `Match` the
/// tag ends with already (it could still match, or it does not).
fn after_tag_name(s: &str, opener: &str, name: &str) -> Result<usize, Match> {
    let head = match match_ci_prefix(s, opener) {
        Some(Some(head)) => head,
        partial_or_none => return Err(partial_or_none.map(|_| None)),
    };
    match match_ci_prefix(&s[head..], name) {
        Some(Some(len)) => Ok(head + len),
        partial_or_none => Err(partial_or_none.map(|_| None)),
    }
}

fn match_named_open(s: &str, name: &str) -> Match {
    let after_name = match after_tag_name(s, "<", name) {
        Ok(after_name) => after_name,
        Err(found) => return found,
    };
    let rest = &s[after_name..];
    match rest.chars().next() {
        None => Some(None),
        Some('>') => Some(Some(after_name + 1)),
        Some(' ' | '\t') => {
            // Attributes: anything but a newline or another tag, up to '>'.
            for (offset, c) in rest.char_indices() {
                if offset > MAX_ATTRIBUTES || c == '\n' || c == '<' {
                    return None;
                }
                if c == '>' {
                    return Some(Some(after_name + offset + 1));
                }
            }
            Some(None)
        }
        Some(_) => None,
    }
}

fn match_named_close(s: &str, name: &str) -> Match {
    let after_name = match after_tag_name(s, "</", name) {
        Ok(after_name) => after_name,
        Err(found) => return found,
    };
    for (offset, c) in s[after_name..].char_indices() {
        match c {
            '>' => return Some(Some(after_name + offset + 1)),
            ' ' | '\t' if offset <= MAX_ATTRIBUTES => {}
            _ => return None,
        }
    }
    Some(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(s: &str) -> Found {
        find(&TagSet::default(), s, None, Side::Open)
    }

    #[test]
    fn a_prefix_is_partial_a_whole_tag_full_and_anything_else_none() {
        assert_eq!(open("<thi"), Found::Partial);
        assert_eq!(open("<think>x"), Found::Full { pair: 0, len: 7 });
        assert_eq!(open("<THINK a=1>"), Found::Full { pair: 0, len: 11 });
        assert_eq!(open("<b>"), Found::None);
        assert_eq!(
            open("<think\n>"),
            Found::None,
            "attributes stop at a newline"
        );
        let long = format!("<think {}>", "a".repeat(MAX_ATTRIBUTES + 1));
        assert_eq!(open(&long), Found::None, "attributes are bounded");
    }

    #[test]
    fn only_limits_the_search_to_one_pair() {
        let tags = TagSet::default();
        assert_eq!(
            find(&tags, "</thinking>", Some(1), Side::Close),
            Found::Full { pair: 1, len: 11 }
        );
        assert_eq!(find(&tags, "</think>", Some(1), Side::Close), Found::None);
    }
}
