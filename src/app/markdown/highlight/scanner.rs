//! The one scanner for every language a `Spec` describes: comments, strings,
//! numbers and words classed by the tables, plus the few syntaxes (Rust's
//! raw strings and lifetimes, C's directives) no table can express.

use super::emit::Emit;
use super::lex::{
    at, char_len, comment_end, is_word_byte, is_word_start, next_non_space, number_end, quote_end,
    starts_number, word_end,
};
use super::spec::{
    in_filter, listed, Filter, Spec, CALLS, CAPITALIZED_TYPES, CASE_INSENSITIVE, DECORATORS,
    DOLLAR_WORDS, NESTED_COMMENTS, PREPROCESSOR, RUST_SYNTAX, STRING_KEYS, STRING_PREFIXES,
    TOML_SYNTAX,
};
use super::{Class, State};

/// Keywords after which the next word is a name being defined.
const DEFINES_FUNCTION: &[&str] = &["def", "fn", "func", "function"];
const DEFINES_TYPE: &[&str] = &[
    "class",
    "enum",
    "interface",
    "record",
    "struct",
    "trait",
    "type",
    "union",
];

/// One line of a C-like or scripting language, from `i`.
pub(super) fn code_line(
    spec: &Spec,
    filter: &Filter,
    state: State,
    line: &str,
    emit: &mut Emit,
) -> State {
    let b = line.as_bytes();
    let mut i = 0;
    // First whatever the previous line left open.
    match state {
        State::Comment(depth) => {
            let Some(delimiters) = spec.block_comment else {
                return State::Normal;
            };
            let (end, open) =
                comment_end(b, i, depth, delimiters, spec.flags & NESTED_COMMENTS != 0);
            emit.span(Class::Comment, i, end);
            if let Some(depth) = open {
                return State::Comment(depth);
            }
            i = end;
        }
        State::Quoted(q) => {
            let Some(quote) = spec.quotes.get(q as usize) else {
                return State::Normal;
            };
            let (end, closed) = quote_end(b, i, quote.close.as_bytes(), quote.escapes);
            emit.span(Class::Str, i, end);
            if !closed {
                return state;
            }
            i = end;
        }
        State::RawString(hashes) => {
            let (end, closed) = raw_string_end(b, i, hashes);
            emit.span(Class::Str, i, end);
            if !closed {
                return state;
            }
            i = end;
        }
        _ => {}
    }
    let mut defines = None;
    while i < b.len() {
        let (end, open) = code_token(spec, filter, line, i, &mut defines, emit);
        if let Some(open) = open {
            return open;
        }
        i = end.max(i + 1);
    }
    State::Normal
}

/// One token at `i`: where it ends and, if it opens a construct that runs
/// past the line's end, the state for the next line.
fn code_token(
    spec: &Spec,
    filter: &Filter,
    line: &str,
    i: usize,
    defines: &mut Option<Class>,
    emit: &mut Emit,
) -> (usize, Option<State>) {
    let b = line.as_bytes();
    let c = b[i];
    let flags = spec.flags;
    if c == b' ' || c == b'\t' {
        return (i + 1, None);
    }
    if spec.line_comments.iter().any(|p| at(b, i, p.as_bytes()))
        && !(flags & TOML_SYNTAX != 0 && c == b';' && i > 0)
    {
        emit.span(Class::Comment, i, b.len());
        return (b.len(), None);
    }
    if let Some(delimiters) = spec.block_comment {
        if at(b, i, delimiters.0.as_bytes()) {
            let (end, open) = comment_end(
                b,
                i + delimiters.0.len(),
                1,
                delimiters,
                flags & NESTED_COMMENTS != 0,
            );
            emit.span(Class::Comment, i, end);
            return (end, open.map(State::Comment));
        }
    }
    if flags & PREPROCESSOR != 0 && c == b'#' && line[..i].trim().is_empty() {
        return (directive(b, i, emit), None);
    }
    if flags & TOML_SYNTAX != 0 && c == b'[' && line[..i].trim().is_empty() {
        let end = b
            .iter()
            .rposition(|c| *c == b']')
            .map_or(b.len(), |at| at + 1);
        emit.span(Class::Meta, i, end);
        return (end, None);
    }
    if flags & RUST_SYNTAX != 0 {
        if let Some(token) = rust_token(b, i, emit) {
            return token;
        }
    }
    if flags & DECORATORS != 0 && c == b'@' && b.get(i + 1).copied().is_some_and(is_word_start) {
        let end = word_end(b, i + 1, b".");
        emit.span(Class::Meta, i, end);
        return (end, None);
    }
    if let Some(q) = spec.quotes.iter().position(|q| at(b, i, q.open.as_bytes())) {
        return string(spec, q, b, i, i, emit);
    }
    if starts_number(b, i) {
        let end = number_end(b, i);
        emit.span(Class::Number, i, end);
        return (end, None);
    }
    let dollar = flags & DOLLAR_WORDS != 0 && c == b'$';
    if !(is_word_start(c) || dollar) {
        return (i + 1, None);
    }
    let extra: &[u8] = match flags {
        f if f & DOLLAR_WORDS != 0 => b"$",
        f if f & TOML_SYNTAX != 0 => b"-",
        _ => b"",
    };
    let end = word_end(b, i, extra);
    let word = &line[i..end];
    if flags & STRING_PREFIXES != 0
        && word.len() <= 2
        && word.bytes().all(|c| b"rbfuRBFU".contains(&c))
    {
        if let Some(q) = spec
            .quotes
            .iter()
            .position(|q| at(b, end, q.open.as_bytes()))
        {
            return string(spec, q, b, i, end, emit);
        }
    }
    let any_case = flags & CASE_INSENSITIVE != 0;
    let definition = defines.take();
    let maybe_listed = in_filter(filter, word);
    let (class, end) = if maybe_listed && listed(spec.keywords, word, any_case) {
        if DEFINES_FUNCTION.contains(&word) {
            *defines = Some(Class::Function);
        } else if DEFINES_TYPE.contains(&word) {
            *defines = Some(Class::Type);
        }
        (Some(Class::Keyword), end)
    } else if maybe_listed && listed(&[spec.literals], word, any_case) {
        (Some(Class::Literal), end)
    } else if definition.is_some() {
        (definition, end)
    } else if (maybe_listed && listed(&[spec.types], word, any_case))
        || (flags & CAPITALIZED_TYPES != 0
            && word.as_bytes()[0].is_ascii_uppercase()
            && word.bytes().any(|c| c.is_ascii_lowercase()))
    {
        (Some(Class::Type), end)
    } else if flags & RUST_SYNTAX != 0 && b.get(end) == Some(&b'!') && b.get(end + 1) != Some(&b'=')
    {
        (Some(Class::Function), end + 1)
    } else if flags & CALLS != 0 && next_non_space(b, end) == Some(b'(') {
        (Some(Class::Function), end)
    } else if flags & TOML_SYNTAX != 0
        && next_non_space(b, end) == Some(b'=')
        && line[..i].trim().is_empty()
    {
        (Some(Class::Attr), end)
    } else {
        (None, end)
    };
    if let Some(class) = class {
        emit.span(class, i, end);
    }
    (end, None)
}

/// A string opened by `spec.quotes[q]` at `body` (its prefix from `start`).
fn string(
    spec: &Spec,
    q: usize,
    b: &[u8],
    start: usize,
    body: usize,
    emit: &mut Emit,
) -> (usize, Option<State>) {
    let quote = &spec.quotes[q];
    let (end, closed) = quote_end(
        b,
        body + quote.open.len(),
        quote.close.as_bytes(),
        quote.escapes,
    );
    let key = spec.flags & STRING_KEYS != 0 && closed && next_non_space(b, end) == Some(b':');
    emit.span(if key { Class::Attr } else { Class::Str }, start, end);
    let open = (!closed && quote.multiline).then_some(State::Quoted(q as u8));
    (end, open)
}

/// C: a directive (`#include`), and an included `<header>` as a string.
fn directive(b: &[u8], i: usize, emit: &mut Emit) -> usize {
    let mut j = i + 1;
    while j < b.len() && matches!(b[j], b' ' | b'\t') {
        j += 1;
    }
    let name_start = j;
    let end = word_end(b, j, b"");
    emit.span(Class::Meta, i, end);
    let name = &b[name_start..end];
    if name == b"include" || name == b"import" {
        let mut j = end;
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        if b.get(j) == Some(&b'<') {
            if let Some(close) = b[j..].iter().position(|c| *c == b'>') {
                emit.span(Class::Str, j, j + close + 1);
                return j + close + 1;
            }
        }
    }
    end
}

/// Rust's own tokens at `i`: attributes, chars and lifetimes, raw and byte
/// strings. None when the token is an ordinary one.
fn rust_token(b: &[u8], i: usize, emit: &mut Emit) -> Option<(usize, Option<State>)> {
    let rest = &b[i..];
    if rest.starts_with(b"#[") || rest.starts_with(b"#![") {
        let end = rest
            .iter()
            .position(|c| *c == b']')
            .map_or(b.len(), |at| i + at + 1);
        emit.span(Class::Meta, i, end);
        return Some((end, None));
    }
    if rest[0] == b'\'' || rest.starts_with(b"b'") {
        let quote = if rest[0] == b'b' { i + 1 } else { i };
        return Some(char_or_lifetime(b, i, quote, emit));
    }
    let prefix = if rest.starts_with(b"br") {
        2
    } else if rest.starts_with(b"r") {
        1
    } else {
        0
    };
    if prefix > 0 && (i == 0 || !is_word_byte(b[i - 1])) {
        let hashes = rest[prefix..].iter().take_while(|c| **c == b'#').count();
        if rest.get(prefix + hashes) == Some(&b'"') && hashes < 256 {
            let (end, closed) = raw_string_end(b, i + prefix + hashes + 1, hashes as u8);
            emit.span(Class::Str, i, end);
            let open = (!closed).then_some(State::RawString(hashes as u8));
            return Some((end, open));
        }
    }
    if rest.starts_with(b"b\"") {
        let (end, closed) = quote_end(b, i + 2, b"\"", true);
        emit.span(Class::Str, i, end);
        return Some((end, (!closed).then_some(State::Quoted(0))));
    }
    None
}

/// `'x'`, `'\n'`, `b'x'` (from `start`, quote at `quote`) or a lifetime `'a`.
fn char_or_lifetime(
    b: &[u8],
    start: usize,
    quote: usize,
    emit: &mut Emit,
) -> (usize, Option<State>) {
    let body = quote + 1;
    let end = match b.get(body) {
        Some(b'\\') => b[body..]
            .iter()
            .take(12)
            .skip(2)
            .position(|c| *c == b'\'')
            .map(|at| body + 2 + at + 1),
        Some(&c) if b.get(body + char_len(c)) == Some(&b'\'') => Some(body + char_len(c) + 1),
        _ => None,
    };
    if let Some(end) = end {
        emit.span(Class::Str, start, end);
        return (end, None);
    }
    if b.get(body).copied().is_some_and(is_word_start) && start == quote {
        let end = word_end(b, body, b"");
        emit.span(Class::Meta, start, end);
        return (end, None);
    }
    (quote + 1, None)
}

/// Where a raw string whose body continues at `j` ends (`"` and `hashes` #).
fn raw_string_end(b: &[u8], mut j: usize, hashes: u8) -> (usize, bool) {
    let hashes = hashes as usize;
    while j < b.len() {
        if b[j] == b'"'
            && b[j + 1..]
                .iter()
                .take(hashes)
                .filter(|c| **c == b'#')
                .count()
                == hashes
        {
            return (j + 1 + hashes, true);
        }
        j += 1;
    }
    (b.len(), false)
}
