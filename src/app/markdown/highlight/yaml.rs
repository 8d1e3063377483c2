//! YAML: keys, scalars by what they read as, and block scalars whose extent
//! only indentation tells, so the scanner carries the key's column.

use super::emit::Emit;
use super::lex::{char_len, number_end, quote_end};
use super::{Class, State};

/// One line of YAML: keys, scalars by kind, anchors, tags, comments, and the
/// indented lines of a `|` or `>` block as a string.
pub(super) fn yaml_line(state: State, line: &str, emit: &mut Emit) -> State {
    let b = line.as_bytes();
    let indent = b.iter().take_while(|c| **c == b' ').count();
    if let State::BlockScalar(parent) = state {
        if line.trim().is_empty() {
            return state;
        }
        if indent as u32 > parent {
            emit.span(Class::Str, indent, b.len());
            return state;
        }
    }
    let rest = &line[indent..];
    if rest.starts_with('#') {
        emit.span(Class::Comment, indent, b.len());
        return State::Normal;
    }
    let mut i = indent;
    if rest == "---" || rest.starts_with("--- ") || rest == "..." {
        emit.span(Class::Meta, i, i + 3);
        i += 3;
    }
    while b[i..].starts_with(b"- ") || &b[i..] == b"-" {
        i += 1;
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
    }
    let key_column = i;
    if let Some(colon) = yaml_key_end(b, i) {
        emit.span(Class::Attr, i, colon);
        i = colon + 1;
    }
    yaml_value(line, i, key_column, emit)
}

/// The colon ending a mapping key that starts at `i`, if one does.
fn yaml_key_end(b: &[u8], i: usize) -> Option<usize> {
    let ends_key =
        |j: usize| b.get(j) == Some(&b':') && matches!(b.get(j + 1), None | Some(b' ' | b'\t'));
    match *b.get(i)? {
        q @ (b'"' | b'\'') => {
            let (end, closed) = quote_end(b, i + 1, &[q], q == b'"');
            (closed && ends_key(end)).then_some(end)
        }
        b'[' | b'{' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`' => None,
        _ => (i..b.len())
            .take_while(|&j| !(b[j] == b'#' && j > 0 && b[j - 1] == b' '))
            .find(|&j| ends_key(j)),
    }
}

const YAML_LITERALS: &[&str] = &[
    "FALSE", "False", "NULL", "No", "Null", "TRUE", "True", "Yes", "false", "no", "null", "off",
    "on", "true", "yes", "~",
];

/// The values on a YAML line from `i`.
fn yaml_value(line: &str, mut i: usize, key_column: usize, emit: &mut Emit) -> State {
    let b = line.as_bytes();
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'[' | b']' | b'{' | b'}' | b',' => i += 1,
            b'#' if i == 0 || matches!(b[i - 1], b' ' | b'\t') => {
                emit.span(Class::Comment, i, b.len());
                return State::Normal;
            }
            b'"' | b'\'' => {
                let (end, _) = quote_end(b, i + 1, &[c], c == b'"');
                emit.span(Class::Str, i, end);
                i = end;
            }
            b'&' | b'*' | b'!' if b.get(i + 1).is_some_and(|c| !c.is_ascii_whitespace()) => {
                let mut end = i + 1;
                while end < b.len() && !matches!(b[end], b' ' | b'\t' | b',' | b']' | b'}') {
                    end += 1;
                }
                let class = if c == b'!' { Class::Type } else { Class::Var };
                emit.span(class, i, end);
                i = end;
            }
            b'|' | b'>'
                if b[i + 1..]
                    .iter()
                    .all(|c| matches!(c, b'-' | b'+' | b'0'..=b'9' | b' ')) =>
            {
                emit.span(Class::Meta, i, b.len());
                return State::BlockScalar(key_column as u32);
            }
            _ => {
                let mut end = i;
                while end < b.len()
                    && !matches!(b[end], b',' | b']' | b'}')
                    && !(b[end] == b'#' && matches!(b[end - 1], b' ' | b'\t'))
                {
                    end += 1;
                }
                // Not `trim_end`: a no-break space is part of the scalar.
                let scalar = line[i..end].trim_end_matches([' ', '\t']);
                let end = i + scalar.len();
                let class = if YAML_LITERALS.contains(&scalar) {
                    Class::Literal
                } else if yaml_number(scalar) {
                    Class::Number
                } else {
                    Class::Str
                };
                emit.span(class, i, end);
                i = end.max(i + char_len(c));
            }
        }
    }
    State::Normal
}

/// Whether a plain YAML scalar reads as a number.
fn yaml_number(scalar: &str) -> bool {
    let digits = scalar.trim_start_matches(['-', '+']);
    digits.bytes().next().is_some_and(|c| c.is_ascii_digit())
        && number_end(digits.as_bytes(), 0) == digits.len()
        && !digits.bytes().any(|c| {
            c.is_ascii_alphabetic() && !matches!(c, b'e' | b'E' | b'x' | b'o' | b'a'..=b'f')
        })
}
