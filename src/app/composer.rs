//! The message composer: Enter sends, Shift+Enter adds a newline; while a turn
//! runs it is disabled and Stop takes the place of Send.

use leptos::prelude::*;

/// Where the user writes.
#[component]
pub fn Composer(
    /// True while a turn streams.
    #[prop(into)]
    running: Signal<bool>,
    /// Called with the text to send (never empty).
    on_send: Callback<String>,
    /// Called when the user presses Stop.
    on_stop: Callback<()>,
) -> impl IntoView {
    let draft = RwSignal::new(String::new());
    let submit = move || {
        let text = draft.get_untracked();
        if running.get_untracked() || text.trim().is_empty() {
            return;
        }
        draft.set(String::new());
        on_send.run(text);
    };
    let on_keydown = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
            ev.prevent_default();
            submit();
        }
    };
    view! {
        <form
            class="composer"
            on:submit=move |ev| {
                ev.prevent_default();
                submit();
            }
        >
            <label class="visually-hidden" for="composer-input">
                "Message"
            </label>
            <textarea
                id="composer-input"
                data-testid="composer"
                rows="2"
                placeholder="Ask something that needs thinking\u{2026} (Enter to send, Shift+Enter for a new line)"
                prop:value=move || draft.get()
                on:input=move |ev| draft.set(event_target_value(&ev))
                on:keydown=on_keydown
                disabled=move || running.get()
            ></textarea>
            <Show
                when=move || running.get()
                fallback=move || {
                    view! {
                        <button
                            type="submit"
                            class="send"
                            data-testid="send"
                            disabled=move || draft.with(|d| d.trim().is_empty())
                        >
                            "Send"
                        </button>
                    }
                }
            >
                <button
                    type="button"
                    class="stop"
                    data-testid="stop"
                    on:click=move |_| on_stop.run(())
                >
                    "Stop"
                </button>
            </Show>
        </form>
    }
}
