//! Fuzzes the markdown renderer the page inserts model output with: for any
//! text, rendered whole or in the pieces the streaming view renders (split
//! where `stable_end` says), the HTML must be inert (`markdown_check`): only
//! the writer's own tags, attributes and classes, hrefs on the allow-list, no
//! anchor in an anchor, and inside `<math>` only allow-listed MathML with plain
//! presentation attributes. Must not panic: that covers the LaTeX converter too
//! (in the browser build a panic aborts the page), so the seeds and the
//! dictionary hold formulas in all four delimiters.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pensive::app::markdown::{render_markdown, stable_end};
use pensive::app::markdown_check::inert_violation;

fn check(html: &str) {
    if let Some(violation) = inert_violation(html) {
        panic!("{violation} in {html}");
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    check(&render_markdown(&text));
    // As the streaming view renders it: finished pieces, then the tail.
    let mut from = 0;
    for cut in (1..=text.len()).filter(|c| text.is_char_boundary(*c)).step_by(7) {
        let end = stable_end(&text[..cut], from);
        if end > from {
            check(&render_markdown(&text[from..end]));
            from = end;
        }
    }
    check(&render_markdown(&text[from..]));
});
