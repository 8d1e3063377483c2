//! CSS: the same word is a selector outside braces and a property or value
//! inside, so the scanner counts the open braces.

use super::emit::Emit;
use super::lex::{
    is_word_byte, is_word_start, next_non_space, number_end, quote_end, starts_number, word_end,
};
use super::{Class, State};

/// One line of CSS: selectors (outside braces), properties and values
/// (inside), at-rules, numbers with units, colours, strings, comments.
pub(super) fn css_line(mut state: State, depth: &mut u32, line: &str, emit: &mut Emit) -> State {
    let b = line.as_bytes();
    let mut i = 0;
    if let State::Comment(_) = state {
        let (end, closed) = quote_end(b, 0, b"*/", false);
        emit.span(Class::Comment, 0, end);
        if !closed {
            return state;
        }
        state = State::Normal;
        i = end;
    }
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        match c {
            b'/' if next == Some(b'*') => {
                let (end, closed) = quote_end(b, i + 2, b"*/", false);
                emit.span(Class::Comment, i, end);
                if !closed {
                    return State::Comment(1);
                }
                i = end;
            }
            b'"' | b'\'' => {
                let (end, _) = quote_end(b, i + 1, &[c], true);
                emit.span(Class::Str, i, end);
                i = end;
            }
            b'{' => {
                *depth = depth.saturating_add(1);
                i += 1;
            }
            b'}' => {
                *depth = depth.saturating_sub(1);
                i += 1;
            }
            b'@' | b'!' if next.is_some_and(|c| c.is_ascii_alphabetic()) => {
                let end = word_end(b, i + 1, b"-");
                emit.span(Class::Keyword, i, end);
                i = end;
            }
            b'#' if next.is_some_and(is_word_byte) => {
                let end = word_end(b, i + 1, b"-");
                let class = if *depth > 0 {
                    Class::Number
                } else {
                    Class::Type
                };
                emit.span(class, i, end);
                i = end;
            }
            b'.' if *depth == 0 && next.is_some_and(|c| is_word_start(c) || c == b'-') => {
                let end = word_end(b, i + 1, b"-");
                emit.span(Class::Type, i, end);
                i = end;
            }
            b':' if *depth == 0 => {
                let name = if next == Some(b':') { i + 2 } else { i + 1 };
                let end = word_end(b, name, b"-");
                emit.span(Class::Meta, i, end);
                i = end.max(i + 1);
            }
            _ if starts_number(b, i)
                || (matches!(c, b'-' | b'+') && next.is_some_and(|c| c.is_ascii_digit())) =>
            {
                let mut end = number_end(b, i + 1);
                if b.get(end) == Some(&b'%') {
                    end += 1;
                }
                emit.span(Class::Number, i, end);
                i = end;
            }
            _ if is_word_start(c)
                || (c == b'-' && next.is_some_and(|c| is_word_start(c) || c == b'-')) =>
            {
                let end = word_end(b, i, b"-");
                let class = if *depth == 0 {
                    Some(Class::Tag)
                } else if next_non_space(b, end) == Some(b':') {
                    Some(Class::Attr)
                } else if b.get(end) == Some(&b'(') {
                    Some(Class::Function)
                } else {
                    None
                };
                if let Some(class) = class {
                    emit.span(class, i, end);
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    state
}
