//! How a C-like or scripting language is described, as tables, so that one
//! scanner serves them all; and the keyword lookup done per word, which took
//! half the time until the filter and the in-line binary search.

/// A C-like or scripting language, as tables.
#[derive(Debug)]
pub(super) struct Spec {
    pub(super) line_comments: &'static [&'static str],
    pub(super) block_comment: Option<(&'static str, &'static str)>,
    /// Longer openers first (`"""` before `"`).
    pub(super) quotes: &'static [Quote],
    /// Sorted lists (lower case where `CASE_INSENSITIVE`).
    pub(super) keywords: &'static [&'static [&'static str]],
    pub(super) types: &'static [&'static str],
    pub(super) literals: &'static [&'static str],
    pub(super) flags: u16,
}

#[derive(Debug)]
pub(super) struct Quote {
    pub(super) open: &'static str,
    pub(super) close: &'static str,
    pub(super) escapes: bool,
    pub(super) multiline: bool,
}

pub(super) const fn quote(open: &'static str, escapes: bool, multiline: bool) -> Quote {
    Quote {
        open,
        close: open,
        escapes,
        multiline,
    }
}

/// `/* */` comments nest (Rust).
pub(super) const NESTED_COMMENTS: u16 = 1;
/// `Capitalized` words are types.
pub(super) const CAPITALIZED_TYPES: u16 = 1 << 1;
/// A word before `(` is a function.
pub(super) const CALLS: u16 = 1 << 2;
/// Rust: `name!` macros, `'a` lifetimes and chars, raw and byte strings, `#[…]`.
pub(super) const RUST_SYNTAX: u16 = 1 << 3;
/// C: `#include`-style directives.
pub(super) const PREPROCESSOR: u16 = 1 << 4;
/// `@decorator` / `@Annotation`.
pub(super) const DECORATORS: u16 = 1 << 5;
/// Python: `r"…"`, `f'…'`, `rb"…"` prefixes belong to the string.
pub(super) const STRING_PREFIXES: u16 = 1 << 6;
/// JSON: a string before `:` is a key.
pub(super) const STRING_KEYS: u16 = 1 << 7;
/// TOML: a word before `=` is a key, `[table]` lines are headers.
pub(super) const TOML_SYNTAX: u16 = 1 << 8;
/// `$` is a word character (JavaScript).
pub(super) const DOLLAR_WORDS: u16 = 1 << 9;
/// Keywords in any case (SQL).
pub(super) const CASE_INSENSITIVE: u16 = 1 << 10;

/// 256 bits, one per hash of a word's length and first and last letters
/// (case aside), set for the words a language lists: a word whose bit is
/// clear is in none of its lists, so most names skip the searches (which
/// took half the time).
pub(super) type Filter = [u64; 4];

pub(super) fn word_filter(spec: &Spec) -> Filter {
    let mut filter = [0; 4];
    for word in spec
        .keywords
        .iter()
        .chain([&spec.types, &spec.literals])
        .flat_map(|list| list.iter())
    {
        let bit = filter_bit(word);
        filter[bit / 64] |= 1 << (bit % 64);
    }
    filter
}

pub(super) fn in_filter(filter: &Filter, word: &str) -> bool {
    let bit = filter_bit(word);
    filter[bit / 64] & (1 << (bit % 64)) != 0
}

fn filter_bit(word: &str) -> usize {
    let b = word.as_bytes();
    let first = b.first().map_or(0, |c| c | 0x20);
    let last = b.last().map_or(0, |c| c | 0x20);
    (b.len()
        .wrapping_mul(31)
        .wrapping_add(usize::from(first) * 7)
        .wrapping_add(usize::from(last)))
        & 255
}

/// Whether `word` is in one of the sorted `lists`.
pub(super) fn listed(lists: &[&[&str]], word: &str, any_case: bool) -> bool {
    if any_case {
        let mut lower = [0u8; 16];
        let Some(buffer) = lower.get_mut(..word.len()) else {
            return false;
        };
        buffer.copy_from_slice(word.as_bytes());
        buffer.make_ascii_lowercase();
        let Ok(word) = std::str::from_utf8(buffer) else {
            return false;
        };
        return lists.iter().any(|list| in_sorted(list, word));
    }
    lists.iter().any(|list| in_sorted(list, word))
}

/// Binary search comparing bytes in line: keywords are a few bytes long, and
/// a call to `memcmp` per comparison cost more than the comparison.
pub(super) fn in_sorted(list: &[&str], word: &str) -> bool {
    let word = word.as_bytes();
    list.binary_search_by(|entry| {
        let entry = entry.as_bytes();
        for (a, b) in entry.iter().zip(word) {
            if a != b {
                return a.cmp(b);
            }
        }
        entry.len().cmp(&word.len())
    })
    .is_ok()
}
