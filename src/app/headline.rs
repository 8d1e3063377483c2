//! The view's side of headlines (design §3). Extraction and `<topic>` stripping
//! are pure and live in `crate::turn::headline`, shared with the reducer and
//! the history migration, so the header, the stored record and the shown text
//! agree; this module adds what only the folded preview needs.

pub use crate::turn::headline::strip_topics;

/// The last non-empty line of the text (the folded preview without a headline).
pub fn last_line(text: &str) -> &str {
    text.trim_end()
        .rsplit('\n')
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_line_skips_trailing_blank_lines() {
        assert_eq!(last_line("one\ntwo\n\n"), "two");
        assert_eq!(last_line(""), "");
    }
}
