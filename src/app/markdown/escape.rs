//! HTML escaping for the text the renderer writes itself (a footnote's
//! label, a formula shown as its source). A leaf: the Markdown filter and
//! the math pipeline both use it without using each other.

use pulldown_cmark_escape::escape_html;

/// `text` escaped for HTML text or a quoted attribute value.
pub(super) fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Writing into a String cannot fail.
    let _ = escape_html(&mut out, text);
    out
}
