//! The banner a deleted conversation leaves behind: its title, "Undo" to
//! bring it back and "Dismiss" to let it go. Shown only while the list
//! still holds the deleted conversation.

use leptos::prelude::*;

use super::use_conversations::UseConversationsReturn;

/// The undo banner for the last deleted conversation.
#[component]
pub fn UndoDelete(
    /// The conversation list, which keeps the deleted conversation until
    /// it is undone or dismissed.
    conversations: UseConversationsReturn,
) -> impl IntoView {
    move || {
        conversations.deleted.get().map(|c| {
            view! {
                <div class="notice undo" role="status" data-testid="undo-delete">
                    <span>{format!("Deleted \u{201c}{}\u{201d}.", c.summary().title)}</span>
                    <button on:click=move |_| conversations.undo_delete()>"Undo"</button>
                    <button on:click=move |_| conversations.dismiss_undo()>"Dismiss"</button>
                </div>
            }
        })
    }
}
