//! HTML and XML: what a word is depends on whether it sits inside a tag, so
//! the scanner carries the open tag (and an open attribute value or
//! comment) from line to line.

use super::emit::Emit;
use super::lex::{char_len, quote_end, word_end};
use super::{Class, State};

/// One line of HTML or XML: tags, attributes, their values, comments and
/// entities. Script and style contents stay plain.
pub(super) fn markup_line(mut state: State, line: &str, emit: &mut Emit) -> State {
    let b = line.as_bytes();
    let mut i = 0;
    let mut after_equals = false;
    while i < b.len() {
        let c = b[i];
        match state {
            State::Comment(_) => {
                let (end, closed) = quote_end(b, i, b"-->", false);
                emit.span(Class::Comment, i, end);
                if closed {
                    state = State::Normal;
                }
                i = end;
            }
            State::TagValue(q) => {
                let (end, closed) = quote_end(b, i, &[q], false);
                emit.span(Class::Str, i, end);
                if closed {
                    state = State::InTag;
                }
                i = end;
            }
            State::InTag => match c {
                b' ' | b'\t' | b'=' => {
                    // A value follows `=`, maybe after spaces.
                    after_equals |= c == b'=';
                    i += 1;
                }
                b'>' => {
                    emit.span(Class::Tag, i, i + 1);
                    state = State::Normal;
                    i += 1;
                }
                b'/' if b.get(i + 1) == Some(&b'>') => {
                    emit.span(Class::Tag, i, i + 2);
                    state = State::Normal;
                    i += 2;
                }
                b'"' | b'\'' => {
                    let (end, closed) = quote_end(b, i + 1, &[c], false);
                    emit.span(Class::Str, i, end);
                    if !closed {
                        state = State::TagValue(c);
                    }
                    after_equals = false;
                    i = end;
                }
                _ => {
                    let mut end = i;
                    while end < b.len()
                        && !matches!(b[end], b' ' | b'\t' | b'=' | b'>' | b'"' | b'\'')
                        && !(b[end] == b'/' && b.get(end + 1) == Some(&b'>'))
                    {
                        end += 1;
                    }
                    let end = end.max(i + char_len(c)).min(b.len());
                    let class = if after_equals {
                        Class::Str
                    } else {
                        Class::Attr
                    };
                    emit.span(class, i, end);
                    after_equals = false;
                    i = end;
                }
            },
            _ => match c {
                b'<' if b[i..].starts_with(b"<!--") => {
                    let (end, closed) = quote_end(b, i + 4, b"-->", false);
                    emit.span(Class::Comment, i, end);
                    if !closed {
                        state = State::Comment(1);
                    }
                    i = end;
                }
                b'<' if matches!(b.get(i + 1), Some(b'!' | b'?')) => {
                    let end = b[i..]
                        .iter()
                        .position(|c| *c == b'>')
                        .map_or(b.len(), |at| i + at + 1);
                    emit.span(Class::Meta, i, end);
                    i = end;
                }
                b'<' => {
                    let name = if b.get(i + 1) == Some(&b'/') {
                        i + 2
                    } else {
                        i + 1
                    };
                    if b.get(name).is_some_and(u8::is_ascii_alphabetic) {
                        let end = word_end(b, name, b"-:.");
                        emit.span(Class::Tag, i, end);
                        state = State::InTag;
                        after_equals = false;
                        i = end;
                    } else {
                        i += 1;
                    }
                }
                b'&' => {
                    let end = word_end(b, i + 1, b"#");
                    if b.get(end) == Some(&b';') && end > i + 1 && end - i < 32 {
                        emit.span(Class::Literal, i, end + 1);
                        i = end + 1;
                    } else {
                        i += 1;
                    }
                }
                _ => i += 1,
            },
        }
    }
    state
}
