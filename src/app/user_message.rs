//! The user's message as sent (plain text, whitespace kept); the last one can
//! be edited and sent again, and a turn asked more than once shows which
//! version it is.

use leptos::prelude::*;

use super::version_switcher::VersionSwitcher;
use crate::turn::versions::VersionPosition;

/// A message the user wrote.
#[component]
pub fn UserMessage(
    /// The text as typed.
    content: String,
    /// True when this message may be edited (the last one, no turn running).
    #[prop(into, optional)]
    editable: Signal<bool>,
    /// Called with the edited text.
    #[prop(optional)]
    on_edit: Option<Callback<String>>,
    /// Which version of the turn is shown, when it has several.
    #[prop(default = None)]
    versions: Option<VersionPosition>,
    /// Called with the version to show; the switcher is shown with it.
    #[prop(optional)]
    on_version: Option<Callback<usize>>,
    /// True while a turn streams (no switching meanwhile).
    #[prop(into, optional)]
    running: Signal<bool>,
) -> impl IntoView {
    let editing = RwSignal::new(false);
    let draft = RwSignal::new(content.clone());
    let send = move || {
        let text = draft.get_untracked();
        if text.trim().is_empty() {
            return;
        }
        editing.set(false);
        if let Some(on_edit) = on_edit {
            on_edit.run(text);
        }
    };
    view! {
        <div class="message user" data-testid="user-message">
            <Show
                when=move || editing.get()
                fallback=move || {
                    view! {
                        <div class="bubble" data-testid="user-text">
                            {content.clone()}
                        </div>
                    }
                }
            >
                <div class="edit-box">
                    // Text as a block: built node by node (super::trusted_html).
                    <label class="visually-hidden" for="edit-message">
                        {"Edit your message"}
                    </label>
                    <textarea
                        id="edit-message"
                        data-testid="edit-input"
                        prop:value=move || draft.get()
                        on:input=move |ev| draft.set(event_target_value(&ev))
                    ></textarea>
                    <div class="turn-actions">
                        <button
                            class="copy-button"
                            data-testid="edit-send"
                            on:click=move |_| send()
                        >
                            "Send"
                        </button>
                        <button class="copy-button" on:click=move |_| editing.set(false)>
                            "Cancel"
                        </button>
                    </div>
                </div>
            </Show>
            <div class="user-actions">
                {versions
                    .zip(on_version)
                    .map(|(position, on_show)| {
                        view! { <VersionSwitcher position disabled=running on_show /> }
                    })} <Show when=move || editable.get() && !editing.get() && on_edit.is_some()>
                    <button
                        class="icon-button"
                        data-testid="edit"
                        on:click=move |_| editing.set(true)
                    >
                        "Edit"
                    </button>
                </Show>
            </div>
        </div>
    }
}
