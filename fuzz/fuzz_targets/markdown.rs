//! Fuzzes the markdown renderer the page inserts model output with: for any
//! text, rendered whole or as the streaming view renders it while it grows
//! (`stream_render::frame`: finished blocks, a fence's lines, list items,
//! paragraph pieces, the repaired tail), the HTML must be inert
//! (`markdown::check`): only
//! the writer's own tags, attributes and classes, hrefs on the allow-list, no
//! anchor in an anchor, and inside `<math>` only allow-listed MathML with plain
//! presentation attributes. Must not panic: that covers the LaTeX converter too
//! (in the browser build a panic aborts the page), so the seeds and the
//! dictionary hold formulas in all four delimiters.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pensive::app::markdown::render_markdown;
use pensive::app::markdown::stream_render::{frame, StreamState};
use pensive::app::markdown::check::inert_violation;

fn check(html: &str) {
    if let Some(violation) = inert_violation(html) {
        panic!("{violation} in {html}");
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    check(&render_markdown(&text));
    // As the streaming view renders it: every fragment of every frame. (A
    // fragment is a part of an element, a list's items or a line of code:
    // each is checked as the HTML it is.)
    let mut state = StreamState::new(false);
    let cuts = (1..=text.len()).filter(|c| text.is_char_boundary(*c)).step_by(7);
    for (cut, last) in cuts.map(|c| (c, false)).chain([(text.len(), true)]) {
        frame(&mut state, &text[..cut], last).fragments().for_each(check);
    }
});
