//! The HTML around a code block: a header row with the language's label and a
//! copy button, then `<pre><code>` holding the highlighted lines. Written by
//! `render_markdown` for a whole block and by the streaming view for a fence
//! that is still open, so both look the same.
//!
//! The button does nothing by itself (the page's CSP allows no inline
//! handlers): one delegated listener on the markdown container
//! (`app::code_copy`) finds the block it sits in and copies its code.
//! Never write a model-chosen value here unescaped.

use pulldown_cmark_escape::{escape_html, escape_html_body_text};

use super::highlight::LineHighlighter;

/// Classes of the block's chrome (besides `language-…` on `<code>` and the
/// highlighter's `hl-…` on spans): for the sanitizer's allow-list and CSS.
pub const CHROME_CLASSES: &[&str] = &["code-block", "code-head", "code-lang", "code-copy"];
/// The copy button's accessible name.
pub const COPY_LABEL: &str = "Copy code";
/// The copy button's text, and what it says for a while after a copy.
pub const COPY_TEXT: &str = "Copy";
pub const COPIED_TEXT: &str = "Copied";

/// Opens a block: its header and `<pre><code …>`.
pub fn open_html(highlighter: &LineHighlighter, out: &mut String) {
    out.push_str("<div class=\"code-block\"><div class=\"code-head\">");
    if let Some(label) = highlighter.label() {
        out.push_str("<span class=\"code-lang\">");
        // Writing into a String cannot fail.
        let _ = escape_html_body_text(&mut *out, label);
        out.push_str("</span>");
    }
    out.push_str("<button type=\"button\" class=\"code-copy\" aria-label=\"");
    out.push_str(COPY_LABEL);
    out.push_str("\">");
    out.push_str(COPY_TEXT);
    // Focusable: a long line scrolls sideways, and a keyboard must reach it.
    out.push_str("</button></div><pre tabindex=\"0\"><code");
    let language = highlighter.language();
    if !language.is_empty() {
        out.push_str(" class=\"language-");
        let _ = escape_html(&mut *out, language);
        out.push('"');
    }
    out.push('>');
}

/// Closes what `open_html` opened.
pub fn close_html(out: &mut String) {
    out.push_str("</code></pre></div>\n");
}

/// A whole block: `code` as the parser gives it (each line ending in `\n`),
/// highlighted line by line.
pub fn block_html(mut highlighter: LineHighlighter, code: &str, out: &mut String) {
    open_html(&highlighter, out);
    let mut lines = code.split('\n');
    // The text after the last newline (empty for a finished block) is a line
    // only if something is in it.
    let last = lines.next_back().filter(|line| !line.is_empty());
    for line in lines {
        highlighter.push_line(line, out);
        out.push('\n');
    }
    if let Some(line) = last {
        highlighter.push_line(line, out);
    }
    close_html(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_has_a_label_a_copy_button_and_its_language_class() {
        let mut out = String::new();
        block_html(LineHighlighter::for_info("py"), "x = 1\n", &mut out);
        assert_eq!(
            out,
            "<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\">Python</span>\
<button type=\"button\" class=\"code-copy\" aria-label=\"Copy code\">Copy</button></div>\
<pre tabindex=\"0\"><code class=\"language-py\">x = <span class=\"hl-num\">1</span>\n</code></pre></div>\n"
        );
    }

    #[test]
    fn a_block_without_language_has_no_label_and_still_a_button() {
        let mut out = String::new();
        block_html(LineHighlighter::for_info(""), "a <b>\nlast", &mut out);
        assert!(!out.contains("code-lang"), "{out}");
        assert!(out.contains("class=\"code-copy\""), "{out}");
        assert!(
            out.contains("<pre tabindex=\"0\"><code>a &lt;b&gt;\nlast</code></pre>"),
            "{out}"
        );
    }
}
