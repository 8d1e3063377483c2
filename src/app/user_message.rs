//! The user's message as sent (plain text, whitespace kept).

use leptos::prelude::*;

/// A message the user wrote.
#[component]
pub fn UserMessage(
    /// The text as typed.
    content: String,
) -> impl IntoView {
    view! {
        <div class="message user" data-testid="user-message">
            <div class="bubble">{content}</div>
        </div>
    }
}
