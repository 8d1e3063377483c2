//! The one place a scanner's spans become HTML, so that whatever a scanner
//! gets wrong, every byte of the code still reaches the page escaped and
//! nothing but flat `<span class="hl-…">` is written.

use pulldown_cmark_escape::escape_html_body_text;

use super::Class;

/// Escaped text in and out of spans. Spans are written in order; text between
/// them (and after the last) is escaped as plain.
pub(super) struct Emit<'a> {
    line: &'a str,
    out: &'a mut String,
    done: usize,
}

impl<'a> Emit<'a> {
    /// Writes `line`'s HTML to the end of `out`.
    pub(super) fn new(line: &'a str, out: &'a mut String) -> Self {
        Emit { line, out, done: 0 }
    }

    pub(super) fn span(&mut self, class: Class, start: usize, end: usize) {
        let line = self.line;
        // A scanner bug must never cut a character or repeat text: such a
        // span is dropped and its text stays plain.
        if start < self.done
            || end <= start
            || !line.is_char_boundary(start)
            || !line.is_char_boundary(end)
        {
            return;
        }
        escape(self.out, &line[self.done..start]);
        self.out.push_str("<span class=\"");
        self.out.push_str(class.name());
        self.out.push_str("\">");
        escape(self.out, &line[start..end]);
        self.out.push_str("</span>");
        self.done = end;
    }

    pub(super) fn finish(self) {
        escape(self.out, &self.line[self.done..]);
    }
}

fn escape(out: &mut String, text: &str) {
    // Writing into a String cannot fail.
    let _ = escape_html_body_text(&mut *out, text);
}
