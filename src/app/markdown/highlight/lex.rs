//! Byte-level reading every scanner shares (words, numbers, strings and
//! block comments that end on this line or carry over), so the scanners agree
//! on where a token ends and never cut a character.

pub(super) fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

pub(super) fn is_word_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

/// Where the word starting at `i` ends. Bytes of non-ASCII characters are
/// word bytes, so a word never ends inside a character.
pub(super) fn word_end(b: &[u8], mut i: usize, extra: &[u8]) -> usize {
    while i < b.len() && (is_word_byte(b[i]) || extra.contains(&b[i])) {
        i += 1;
    }
    i
}

/// Whether `pattern` (never empty) is at `i` of `b`. The first byte decides
/// most cases without a call to `memcmp` (which took half the time).
pub(super) fn at(b: &[u8], i: usize, pattern: &[u8]) -> bool {
    b.get(i) == pattern.first() && b.get(i..i + pattern.len()) == Some(pattern)
}

/// The first byte at or after `i` that is not a space or tab.
pub(super) fn next_non_space(b: &[u8], mut i: usize) -> Option<u8> {
    while i < b.len() && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    b.get(i).copied()
}

/// How many bytes the character starting with byte `c` takes.
pub(super) fn char_len(c: u8) -> usize {
    match c {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

/// Where a string's body starting at `j` ends (after its closing quote), and
/// whether it closed on this line.
pub(super) fn quote_end(b: &[u8], mut j: usize, close: &[u8], escapes: bool) -> (usize, bool) {
    while j < b.len() {
        if escapes && b[j] == b'\\' {
            j += 1;
            if j < b.len() {
                j += char_len(b[j]);
            }
        } else if at(b, j, close) {
            return (j + close.len(), true);
        } else {
            j += 1;
        }
    }
    (b.len(), false)
}

/// Where a block comment whose body continues at `j` ends, `depth` deep, and
/// the depth still open at the end of the line, if any.
pub(super) fn comment_end(
    b: &[u8],
    mut j: usize,
    mut depth: u32,
    (open, close): (&str, &str),
    nested: bool,
) -> (usize, Option<u32>) {
    while j < b.len() {
        if at(b, j, close.as_bytes()) {
            j += close.len();
            depth -= 1;
            if depth == 0 {
                return (j, None);
            }
        } else if nested && at(b, j, open.as_bytes()) {
            j += open.len();
            depth = depth.saturating_add(1);
        } else {
            j += 1;
        }
    }
    (b.len(), Some(depth))
}

/// Where a number starting at `i` ends: digits, letters (hex, suffixes,
/// units), `_`, a decimal point before a digit, a sign after an exponent.
pub(super) fn number_end(b: &[u8], i: usize) -> usize {
    let hex = b.get(i) == Some(&b'0') && matches!(b.get(i + 1), Some(b'x' | b'X'));
    let mut j = i;
    while j < b.len() {
        let c = b[j];
        let more = c.is_ascii_alphanumeric()
            || c == b'_'
            || (c == b'.' && b.get(j + 1).is_some_and(u8::is_ascii_digit))
            || (matches!(c, b'+' | b'-') && !hex && j > i && matches!(b[j - 1], b'e' | b'E'));
        if !more {
            break;
        }
        j += 1;
    }
    j
}

pub(super) fn starts_number(b: &[u8], i: usize) -> bool {
    b[i].is_ascii_digit()
        || (b[i] == b'.'
            && b.get(i + 1).is_some_and(u8::is_ascii_digit)
            && (i == 0 || !is_word_byte(b[i - 1])))
}
