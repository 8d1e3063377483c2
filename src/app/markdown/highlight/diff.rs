//! Unified diffs: a line is what its first characters say, nothing carries
//! over.

use super::emit::Emit;
use super::{Class, State};

/// One line of a unified diff: added, deleted, headers and hunk markers.
pub(super) fn diff_line(line: &str, emit: &mut Emit) -> State {
    let headers = ["+++", "---", "@@", "diff ", "index "];
    let class = if headers.iter().any(|h| line.starts_with(h)) {
        Some(Class::Meta)
    } else if line.starts_with('+') {
        Some(Class::Added)
    } else if line.starts_with('-') {
        Some(Class::Deleted)
    } else if line.starts_with('\\') {
        Some(Class::Comment)
    } else {
        None
    };
    if let Some(class) = class {
        emit.span(class, 0, line.len());
    }
    State::Normal
}
