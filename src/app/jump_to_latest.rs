//! "Jump to latest": shown while the reader has scrolled away from the bottom
//! of the conversation; takes them back and follows the turn again. It says
//! when new text arrived below, and it is a plain button, so the keyboard
//! reaches it.

use leptos::prelude::*;

use super::trusted_html::decoration;
use super::use_stick_to_bottom::UseStickToBottomReturn;

/// The button over the bottom of the conversation.
#[component]
pub fn JumpToLatest(
    /// The conversation's pin.
    stick: UseStickToBottomReturn,
) -> impl IntoView {
    let following = stick.following();
    let new_below = stick.new_below();
    let jump = move |_| {
        // The button goes away: keep the keyboard in the
        // conversation (first: focusing would stop the glide).
        if let Some(conversation) = stick.scroller.get_untracked() {
            let _ = conversation.focus();
        }
        stick.follow(false);
    };
    view! {
        <Show when=move || !following.get()>
            <button
                class="jump-to-latest"
                class:has-new=move || new_below.get()
                data-testid="jump-to-latest"
                on:click=jump
            >
                {decoration("jump-arrow")}
                // Text as a block: built node by node (trusted_html).
                <span>{"Jump to latest"}</span>
                {move || {
                    new_below
                        .get()
                        .then(|| view! { <span class="jump-new">{" \u{b7} new text below"}</span> })
                }}
            </button>
        </Show>
    }
}
