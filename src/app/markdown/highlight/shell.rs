//! Shell scripts and sessions: a word means what its position makes it (a
//! command, an option, an assignment), which no keyword table can tell.

use super::emit::Emit;
use super::lex::{is_word_byte, is_word_start, quote_end, word_end};
use super::spec::in_sorted;
use super::{Class, State};

pub(super) const SHELL_KEYWORDS: &[&str] = &[
    "alias", "break", "case", "continue", "declare", "do", "done", "elif", "else", "esac", "eval",
    "exec", "exit", "export", "fi", "for", "function", "if", "in", "local", "readonly", "return",
    "select", "set", "shift", "source", "then", "time", "trap", "unset", "until", "while",
];
/// Keywords after which a command may follow.
const SHELL_BEFORE_COMMAND: &[&str] =
    &["do", "elif", "else", "if", "then", "time", "until", "while"];
/// Bytes of a shell word besides letters and digits.
const SHELL_WORD: &[u8] = b"-./~+%:,@=[]*?!^";

/// One line of a shell script, from `i`: keywords, commands (the word in
/// command position), options, variables, strings and comments.
pub(super) fn shell_line(state: State, line: &str, mut i: usize, emit: &mut Emit) -> State {
    let b = line.as_bytes();
    if let State::Quoted(q) = state {
        let (end, closed) = quote_end(b, i, &[q], q == b'"');
        emit.span(Class::Str, i, end);
        if !closed {
            return state;
        }
        i = end;
    }
    let mut command = true;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' => i += 1,
            b'#' if i == 0 || matches!(b[i - 1], b' ' | b'\t' | b';' | b'(') => {
                emit.span(Class::Comment, i, b.len());
                return State::Normal;
            }
            b'"' | b'\'' => {
                let (end, closed) = quote_end(b, i + 1, &[c], c == b'"');
                emit.span(Class::Str, i, end);
                if !closed {
                    return State::Quoted(c);
                }
                command = false;
                i = end;
            }
            b'$' => {
                let end = match b.get(i + 1) {
                    Some(b'{') => b[i..]
                        .iter()
                        .position(|c| *c == b'}')
                        .map_or(b.len(), |at| i + at + 1),
                    Some(b'(') => {
                        command = true;
                        i += 2;
                        continue;
                    }
                    Some(&c) if is_word_start(c) => word_end(b, i + 1, b""),
                    Some(c) if c.is_ascii_digit() || b"@*#?$!-".contains(c) => i + 2,
                    _ => i + 1,
                };
                if end > i + 1 {
                    emit.span(Class::Var, i, end);
                }
                command = false;
                i = end;
            }
            b'|' | b'&' | b';' | b'(' | b'`' => {
                command = true;
                i += 1;
            }
            c if is_word_byte(c) || SHELL_WORD.contains(&c) => {
                let end = word_end(b, i, SHELL_WORD);
                let word = &line[i..end];
                let name_end = word_end(b, i, b"");
                let assignment =
                    command && is_word_start(c) && b.get(name_end) == Some(&b'=') && name_end > i;
                if assignment {
                    emit.span(Class::Var, i, name_end);
                } else if in_sorted(SHELL_KEYWORDS, word) {
                    emit.span(Class::Keyword, i, end);
                    command = SHELL_BEFORE_COMMAND.contains(&word);
                } else if word.bytes().all(|c| c.is_ascii_digit()) {
                    emit.span(Class::Number, i, end);
                    command = false;
                } else if command {
                    emit.span(Class::Function, i, end);
                    command = false;
                } else if c == b'-' {
                    emit.span(Class::Attr, i, end);
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    State::Normal
}

/// A shell session: a `$ ` prompt line is a command (as are the lines a
/// command's open string continues on), the rest is output, left plain.
pub(super) fn console_line(state: State, line: &str, emit: &mut Emit) -> State {
    if state != State::Normal {
        return shell_line(state, line, 0, emit);
    }
    if line.starts_with("$ ") || line == "$" {
        emit.span(Class::Meta, 0, 1);
        return shell_line(State::Normal, line, 1, emit);
    }
    State::Normal
}
