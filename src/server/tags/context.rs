//! Where answer text stands for tag purposes: at the start of a line, inside
//! a fenced code block (CommonMark fences), inside an inline code span. A tag
//! in code is text, and an opening tag counts only at a line start; this
//! module tracks just enough of Markdown to tell, one character at a time.
//! It never looks at tags themselves.

/// Progress of the current answer line's fence check (CommonMark fences).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FenceProbe {
    /// Leading spaces so far.
    Indent(usize),
    /// A run of the fence character.
    Run(char, usize),
    /// After a run of 3+: is the rest whitespace only, does it hold a backtick?
    Rest {
        ch: char,
        len: usize,
        blank: bool,
        backtick: bool,
    },
    /// This line is no fence line.
    No,
}

/// Line, fence and code-span state of the answer text seen so far.
#[derive(Debug, Clone)]
pub(super) struct AnswerContext {
    /// Only spaces/tabs since the start of the output or of the line.
    at_line_start: bool,
    probe: FenceProbe,
    /// The open fence (its character and run length).
    fence: Option<(char, usize)>,
    /// Open inline code span (its backtick run length).
    code_span: Option<usize>,
    /// Backticks counted but not yet closed by another character.
    backtick_run: usize,
}

impl Default for AnswerContext {
    fn default() -> Self {
        Self {
            at_line_start: true,
            probe: FenceProbe::Indent(0),
            fence: None,
            code_span: None,
            backtick_run: 0,
        }
    }
}

/// Bytes that end a plain run of answer text: those that may start a tag
/// (`<`, 0xE2, the lead byte of `◁`) and those that change line, fence or
/// code-span state.
const ANSWER_STOPS: [bool; 256] = byte_set(&[b'<', 0xE2, b'`', b'\n']);

/// A 256-entry membership table for `bytes`.
pub(super) const fn byte_set(bytes: &[u8]) -> [bool; 256] {
    let mut set = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        set[bytes[i] as usize] = true;
        i += 1;
    }
    set
}

/// Length of the leading run of `bytes` holding none of `stops` (one table
/// look-up per byte).
pub(super) fn run_length(bytes: &[u8], stops: &[bool; 256]) -> usize {
    bytes
        .iter()
        .position(|&b| stops[usize::from(b)])
        .unwrap_or(bytes.len())
}

impl AnswerContext {
    /// Only spaces/tabs since the start of the output or of the line.
    pub(super) fn at_line_start(&self) -> bool {
        self.at_line_start
    }

    /// Length of the leading run of `bytes` that can neither start a tag nor
    /// change this context, with the run's effect applied; 0 while a fence
    /// line is being checked or a backtick run is open (every character
    /// matters then). The run stops only at ASCII bytes or at 0xE2, so it
    /// always ends on a character boundary.
    pub(super) fn skip_plain(&mut self, bytes: &[u8]) -> usize {
        if self.probe != FenceProbe::No || self.backtick_run != 0 {
            return 0;
        }
        let len = run_length(bytes, &ANSWER_STOPS);
        // Mid-line: only a non-blank character changes anything (it ends the line start).
        if self.at_line_start && bytes[..len].iter().any(|&b| b != b' ' && b != b'\t') {
            self.at_line_start = false;
        }
        len
    }

    /// True inside code: a fenced block, an inline span, or a line that has
    /// already become a fence line.
    pub(super) fn in_code(&mut self) -> bool {
        self.end_backtick_run();
        self.fence.is_some()
            || self.code_span.is_some()
            || matches!(
                self.probe,
                FenceProbe::Run(_, 3..) | FenceProbe::Rest { .. }
            )
    }

    /// A recognised tag was written: the line no longer starts here and no
    /// fence line or code span continues through it.
    pub(super) fn after_tag(&mut self) {
        self.at_line_start = false;
        self.probe = FenceProbe::No;
        self.code_span = None;
        self.backtick_run = 0;
    }

    /// A thinking block closed: whatever fence was open before it is forgotten.
    pub(super) fn after_block(&mut self) {
        self.fence = None;
    }

    /// Tracks line, fence and code-span state for one literal character.
    pub(super) fn consume(&mut self, c: char) {
        if c == '`' {
            self.backtick_run += 1;
        } else {
            self.end_backtick_run();
        }
        if c == '\n' {
            self.end_line();
            return;
        }
        if c != ' ' && c != '\t' {
            self.at_line_start = false;
        }
        self.probe = match self.probe {
            FenceProbe::Indent(n) if c == ' ' && n < 3 => FenceProbe::Indent(n + 1),
            FenceProbe::Indent(_) if c == '`' || c == '~' => FenceProbe::Run(c, 1),
            FenceProbe::Run(ch, n) if c == ch => FenceProbe::Run(ch, n + 1),
            FenceProbe::Run(ch, n) if n >= 3 => FenceProbe::Rest {
                ch,
                len: n,
                blank: c.is_whitespace(),
                backtick: c == '`',
            },
            FenceProbe::Rest {
                ch,
                len,
                blank,
                backtick,
            } => FenceProbe::Rest {
                ch,
                len,
                blank: blank && c.is_whitespace(),
                backtick: backtick || c == '`',
            },
            _ => FenceProbe::No,
        };
    }

    /// A complete backtick run opens or closes an inline code span.
    fn end_backtick_run(&mut self) {
        let run = std::mem::take(&mut self.backtick_run);
        if run == 0 || self.fence.is_some() || !matches!(self.probe, FenceProbe::No) {
            return;
        }
        self.code_span = match self.code_span {
            None => Some(run),
            Some(open) if open == run => None,
            other => other,
        };
    }

    fn end_line(&mut self) {
        let (ch, len, blank, backtick) = match self.probe {
            FenceProbe::Run(ch, len) if len >= 3 => (ch, len, true, false),
            FenceProbe::Rest {
                ch,
                len,
                blank,
                backtick,
            } => (ch, len, blank, backtick),
            _ => ('\0', 0, false, false),
        };
        if len >= 3 {
            match self.fence {
                Some((open_ch, open_len)) if open_ch == ch && len >= open_len && blank => {
                    self.fence = None
                }
                Some(_) => {}
                None if ch == '~' || !backtick => self.fence = Some((ch, len)),
                None => {}
            }
        }
        self.at_line_start = true;
        self.code_span = None;
        self.probe = FenceProbe::Indent(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The context after `text`, fed one character at a time.
    fn after(text: &str) -> AnswerContext {
        let mut context = AnswerContext::default();
        text.chars().for_each(|c| context.consume(c));
        context
    }

    #[test]
    fn fences_open_and_close_by_commonmark_rules() {
        assert!(after("```rust\n").in_code());
        assert!(!after("```rust\nx\n```\n").in_code());
        assert!(
            after("~~~~\n~~~\n").in_code(),
            "a shorter fence does not close"
        );
        assert!(
            after("```\n``` info\n").in_code(),
            "a closing fence has no info"
        );
        assert!(
            !after("``` a`b\n").in_code(),
            "a backtick fence's info has no backtick"
        );
        assert!(after("   ```\n").in_code(), "up to three spaces of indent");
        assert!(
            !after("    ```\n").in_code(),
            "four is an indented code line"
        );
    }

    #[test]
    fn code_spans_pair_equal_runs_and_end_with_the_line() {
        assert!(after("a `b").in_code());
        assert!(!after("a `b` c").in_code());
        assert!(after("a ``b` c").in_code(), "a shorter run does not close");
        assert!(
            !after("a `b\n").in_code(),
            "a span lasts at most to the line's end"
        );
    }

    #[test]
    fn a_line_starts_after_a_newline_and_blanks() {
        assert!(after("").at_line_start());
        assert!(after("x\n \t").at_line_start());
        assert!(!after("x").at_line_start());
        // Four spaces are no fence indent: the line's check is over, plain runs skip.
        let mut context = after("x\n    ");
        assert!(context.at_line_start());
        assert_eq!(context.skip_plain(b"  y<"), 3);
        assert!(
            !context.at_line_start(),
            "a plain run's non-blank ends the line start"
        );
    }
}
