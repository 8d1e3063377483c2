//! The copy buttons of code blocks. They arrive inside rendered markdown (set
//! as HTML, where the CSP allows no handlers), so one delegated click listener
//! on each markdown container serves them all: a click on a button copies the
//! code of its own block (not its label or the button's text), as it is at
//! that moment, finished or still streaming, and the button says "Copied" for
//! a while. Never reads or writes anything outside the clicked block.

use leptos::ev::MouseEvent;

#[cfg(feature = "hydrate")]
use super::markdown::code_block::{COPIED_TEXT, COPY_LABEL, COPY_TEXT};

/// The click listener of a markdown container (`on:click=code_copy::on_click`).
pub fn on_click(event: MouseEvent) {
    #[cfg(feature = "hydrate")]
    copy_block(&event);
    #[cfg(not(feature = "hydrate"))]
    let _ = event;
}

/// Copies the code of the block whose copy button `event` hit, if it hit one.
#[cfg(feature = "hydrate")]
fn copy_block(event: &MouseEvent) -> Option<()> {
    use leptos::prelude::set_timeout;
    use wasm_bindgen::JsCast;

    use super::use_copy::COPIED_FOR;

    let target = event
        .target()?
        .dyn_into::<leptos::web_sys::Element>()
        .ok()?;
    let button = target.closest("button.code-copy").ok()??;
    let code = button
        .closest(".code-block")
        .ok()??
        .query_selector("pre > code")
        .ok()??;
    let text = code.text_content().unwrap_or_default();
    super::browser::copy_to_clipboard(copied_text(&text));
    button.set_text_content(Some(COPIED_TEXT));
    let _ = button.set_attribute("aria-label", COPIED_TEXT);
    set_timeout(
        move || {
            button.set_text_content(Some(COPY_TEXT));
            let _ = button.set_attribute("aria-label", COPY_LABEL);
        },
        COPIED_FOR,
    );
    Some(())
}

/// The code as written: without the newline the block's last line ends with.
pub fn copied_text(code: &str) -> &str {
    code.strip_suffix('\n').unwrap_or(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_is_the_code_without_its_final_newline() {
        assert_eq!(copied_text("fn x() {}\n"), "fn x() {}");
        assert_eq!(copied_text("a\n\nb\n\n"), "a\n\nb\n");
        assert_eq!(
            copied_text("open fence, no newline yet"),
            "open fence, no newline yet"
        );
    }
}
