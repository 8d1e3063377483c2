//! The matcher: where a query occurs in a text. The query's words in
//! order, each run of whitespace in the query matching any run of
//! whitespace (at least one) in the text; case-insensitive by folding both
//! sides so that every offset in the folded text is an offset in the
//! original (the rules are in `search`'s module doc). Pure; it knows
//! nothing of the search text's layout.

use std::cell::RefCell;
use std::ops::Range;

use memchr::memmem;

/// Splits texts and queries alike: a query's word holds neither.
pub(super) fn is_break(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

/// Where `query` first occurs in `haystack` (a byte range at char
/// boundaries), by the matching rules of the module doc. Also used to find a
/// hit again in the rendered page.
pub fn find_range(haystack: &str, query: &str) -> Option<Range<usize>> {
    find_ranges(haystack, query, 1).pop()
}

/// Where `query` occurs in `haystack`, the first `limit` places that do not
/// overlap, in order (the text is folded once for all of them).
pub fn find_ranges(haystack: &str, query: &str, limit: usize) -> Vec<Range<usize>> {
    let words: Vec<String> = query
        .split(is_break)
        .filter(|w| !w.is_empty())
        .map(fold_str)
        .collect();
    let Some(first) = words.first() else {
        return Vec::new();
    };
    let ascii = words.iter().all(|w| w.is_ascii());
    FOLDED.with(|folded| {
        let mut folded = folded.borrow_mut();
        folded.clear();
        if ascii {
            fold_ascii(haystack, &mut folded);
        } else {
            fold_unicode(haystack, &mut folded);
        }
        let finder = memmem::Finder::new(first.as_bytes());
        let mut found = Vec::new();
        let mut from = 0;
        while found.len() < limit {
            let Some(at) = finder.find(&folded[from..]) else {
                break;
            };
            let start = from + at;
            match rest_matches(&folded, start + first.len(), &words[1..]) {
                Some(end) => {
                    found.push(start..end);
                    from = end;
                }
                None => from = start + 1,
            }
        }
        found
    })
}

thread_local! {
    /// The folded copy of the text being searched, kept between calls: a
    /// search folds one text per conversation, and reusing the buffer
    /// spares a large allocation each time.
    static FOLDED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Whether `words` follow at `at` in `folded`, each after a run of
/// whitespace; the end of the match if they do.
fn rest_matches(folded: &[u8], mut at: usize, words: &[String]) -> Option<usize> {
    for word in words {
        let spaces = whitespace_len(&folded[at..]);
        if spaces == 0 {
            return None;
        }
        at += spaces;
        if !folded[at..].starts_with(word.as_bytes()) {
            return None;
        }
        at += word.len();
    }
    Some(at)
}

/// The length of the run of whitespace at the start of `bytes` (valid UTF-8
/// from a char boundary, as the folded text is at a word's end).
fn whitespace_len(bytes: &[u8]) -> usize {
    let mut len = 0;
    while let Some(&b) = bytes.get(len) {
        if b.is_ascii_whitespace() {
            len += 1;
        } else if b >= 0x80 {
            let ch = std::str::from_utf8(&bytes[len..(len + 4).min(bytes.len())])
                .or_else(|e| std::str::from_utf8(&bytes[len..len + e.valid_up_to()]))
                .ok()
                .and_then(|s| s.chars().next());
            match ch {
                Some(ch) if ch.is_whitespace() => len += ch.len_utf8(),
                _ => break,
            }
        } else {
            break;
        }
    }
    len
}

/// A letter's lowercase when it is one letter of the same UTF-8 length, so
/// folding keeps every byte offset; otherwise the letter itself.
fn fold_char(ch: char) -> char {
    let mut lower = ch.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) if l.len_utf8() == ch.len_utf8() => l,
        _ => ch,
    }
}

pub(super) fn fold_str(word: &str) -> String {
    word.chars().map(fold_char).collect()
}

/// An ASCII query can only match ASCII: lowercasing bytes is enough, and a
/// tight loop the compiler vectorizes.
fn fold_ascii(text: &str, out: &mut Vec<u8>) {
    out.extend(text.bytes().map(|b| b.to_ascii_lowercase()));
}

/// Runs of ASCII go through the byte loop; two-byte letters (Latin, Greek,
/// Cyrillic, …) through a table; only the rest is decoded and looked up.
pub(super) fn fold_unicode(mut text: &str, out: &mut Vec<u8>) {
    out.reserve(text.len());
    let two_byte = two_byte_folds();
    let mut buf = [0; 4];
    loop {
        let ascii = text
            .bytes()
            .position(|b| !b.is_ascii())
            .unwrap_or(text.len());
        fold_ascii(&text[..ascii], out);
        text = &text[ascii..];
        let mut rest = text.chars();
        let Some(ch) = rest.next() else {
            return;
        };
        let code = ch as usize;
        if (0x80..0x800).contains(&code) {
            out.extend_from_slice(&two_byte[code - 0x80]);
        } else {
            out.extend_from_slice(fold_char(ch).encode_utf8(&mut buf).as_bytes());
        }
        text = rest.as_str();
    }
}

/// The folded UTF-8 of every two-byte letter (U+0080 to U+07FF), made once:
/// looking a letter's lowercase up in the Unicode tables costs more than
/// the rest of the scan.
fn two_byte_folds() -> &'static [[u8; 2]] {
    static TABLE: std::sync::OnceLock<Vec<[u8; 2]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        (0x80..0x800_u32)
            .filter_map(char::from_u32)
            .map(|ch| {
                let mut buf = [0; 4];
                let folded = fold_char(ch).encode_utf8(&mut buf).as_bytes();
                [folded[0], folded[1]]
            })
            .collect()
    })
}
