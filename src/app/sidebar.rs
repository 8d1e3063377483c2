//! The conversation list: newest first, new / switch / rename / delete, and
//! the search box above it, whose results take the list's place while a
//! query is typed. At narrow widths it collapses behind a "Conversations"
//! menu button.

use leptos::prelude::*;

use super::conversation_search::ConversationSearch;
use super::history::SearchHit;
use super::storage_panel::StoragePanel;
use crate::turn::message::Summary;

/// The sidebar.
#[component]
pub fn Sidebar(
    /// Conversations, newest first.
    #[prop(into)]
    index: Signal<Vec<Summary>>,
    /// The id of the conversation shown ("" for a new, unsaved one).
    #[prop(into)]
    current: Signal<String>,
    on_new: Callback<()>,
    on_switch: Callback<String>,
    on_rename: Callback<(String, String)>,
    on_delete: Callback<String>,
    /// A search result was opened: show its conversation at the match.
    on_open_match: Callback<SearchHit>,
) -> impl IntoView {
    let menu_open = RwSignal::new(false);
    let query = RwSignal::new(String::new());
    let editing = RwSignal::new(None::<String>);
    let item = move |summary: Summary| {
        let id = summary.id.clone();
        let is_current = {
            let id = id.clone();
            Signal::derive(move || current.with(|c| *c == id))
        };
        let is_editing = {
            let id = id.clone();
            Signal::derive(move || editing.with(|e| e.as_deref() == Some(id.as_str())))
        };
        let title = summary.title.clone();
        let (switch_id, rename_id, delete_id, save_id) =
            (id.clone(), id.clone(), id.clone(), id.clone());
        let commit = move |value: String| {
            let value = value.trim().to_owned();
            if !value.is_empty() {
                on_rename.run((save_id.clone(), value));
            }
            editing.set(None);
        };
        let commit_on_key = commit.clone();
        view! {
            <li class="conversation-item" class:current=is_current data-testid="conversation-item">
                <Show
                    when=move || is_editing.get()
                    fallback={
                        let title = title.clone();
                        let switch_id = switch_id.clone();
                        move || {
                            let switch_id = switch_id.clone();
                            view! {
                                <button
                                    class="conversation-title"
                                    aria-current=move || is_current.get().then_some("page")
                                    on:click=move |_| {
                                        menu_open.set(false);
                                        on_switch.run(switch_id.clone());
                                    }
                                >
                                    {title.clone()}
                                </button>
                            }
                        }
                    }
                >
                    <input
                        class="rename-input"
                        data-testid="rename-input"
                        aria-label="New title"
                        value=title.clone()
                        autofocus=true
                        on:keydown={
                            let commit = commit_on_key.clone();
                            move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
                                "Enter" => commit(event_target_value(&ev)),
                                "Escape" => editing.set(None),
                                _ => {}
                            }
                        }
                        on:blur={
                            let commit = commit.clone();
                            move |ev| commit(event_target_value(&ev))
                        }
                    />
                </Show>
                <button
                    class="icon-button"
                    data-testid="rename"
                    aria-label=format!("Rename \u{201c}{}\u{201d}", summary.title)
                    on:click=move |_| editing.set(Some(rename_id.clone()))
                >
                    "Rename"
                </button>
                <button
                    class="icon-button"
                    data-testid="delete"
                    aria-label=format!("Delete \u{201c}{}\u{201d}", summary.title)
                    on:click=move |_| on_delete.run(delete_id.clone())
                >
                    "Delete"
                </button>
            </li>
        }
    };
    view! {
        <nav class="sidebar" aria-label="Conversations" data-testid="sidebar">
            <button
                class="menu-toggle"
                data-testid="menu-toggle"
                aria-expanded=move || menu_open.get().to_string()
                aria-controls="conversation-list"
                on:click=move |_| menu_open.update(|o| *o = !*o)
            >
                "Conversations"
            </button>
            <div id="conversation-list" class="sidebar-body" class:open=move || menu_open.get()>
                <button
                    class="new-conversation"
                    data-testid="new-conversation"
                    on:click=move |_| {
                        menu_open.set(false);
                        on_new.run(());
                    }
                >
                    "New conversation"
                </button>
                <ConversationSearch query menu_open on_open=on_open_match />
                <Show when=move || query.with(|q| q.trim().is_empty())>
                    <ul class="conversation-list">
                        <For
                            each=move || index.get()
                            key=|s| (s.id.clone(), s.title.clone())
                            children=item
                        />
                    </ul>
                </Show>
                <StoragePanel index on_delete />
            </div>
        </nav>
    }
}
