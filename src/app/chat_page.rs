//! The chat page: sidebar, conversation, composer. History loads after
//! hydration, so the server and the first client render are the same empty page
//! (for a returning user `restore_shell` keeps its welcome hidden until then).

use leptos::prelude::*;

use super::api::{list_models, PublicModel};
use super::assistant_message::AssistantMessage;
use super::composer::Composer;
use super::history::Notice;
use super::message_view::MessageView;
use super::preferences::{provide_fold_preference, FoldPreferencePicker};
use super::restore_shell;
use super::sidebar::Sidebar;
use super::use_chat_session::{use_chat_session, UseChatSessionReturn};
use super::use_conversations::use_conversations;
use super::use_import_export::use_import_export;
use super::use_notices::{use_notices, UseNoticesReturn};
use super::user_message::UserMessage;

/// The chat page.
#[component]
pub fn ChatPage() -> impl IntoView {
    // The list is made here and handed to the hooks that change it: the
    // session moves the shown conversation to the top when it saves, the
    // list decides which conversation the session shows.
    let index = RwSignal::new(Vec::new());
    let notices = use_notices();
    let session = use_chat_session(index, notices);
    let conversations = use_conversations(session, index, notices);
    let files = use_import_export(session, index, notices);
    let fold_preference = provide_fold_preference();
    Effect::new(move |_| {
        conversations.load_history();
        restore_shell::restored();
    });
    let models = Resource::new(|| (), |_| list_models());
    let running = session.running();
    let now = Signal::from(session.clock);

    let notice_list = move || {
        let list: Vec<(usize, Notice)> = notices.notices.get().into_iter().enumerate().collect();
        list
    };
    view! {
        <div class="layout">
        <Sidebar
            index=conversations.index
            current=session.current_id
            on_new=Callback::new(move |_| conversations.new_conversation())
            on_switch=Callback::new(move |id| conversations.switch(id))
            on_rename=Callback::new(move |(id, title)| conversations.rename(id, title))
            on_delete=Callback::new(move |id| conversations.delete(id))
        />
        <div class="page">
            <header class="topbar">
                <h1 class="brand">"Pensive"</h1>
                <FoldPreferencePicker preference=fold_preference/>
                <Suspense fallback=|| ()>
                    {move || models.get().and_then(Result::ok).map(|list| model_chooser(session, list))}
                </Suspense>
            </header>
            <For
                each=notice_list
                key=|(i, n)| (*i, n.message.clone())
                children=move |(_, notice)| notice_view(notices, notice)
            />
            {move || conversations.deleted.get().map(|c| view! {
                <div class="notice undo" role="status" data-testid="undo-delete">
                    <span>{format!("Deleted \u{201c}{}\u{201d}.", c.summary().title)}</span>
                    <button on:click=move |_| conversations.undo_delete()>"Undo"</button>
                    <button on:click=move |_| conversations.deleted.set(None)>"Dismiss"</button>
                </div>
            })}
            <div class="conversation-actions">
                <button class="copy-button" data-testid="export-markdown"
                    disabled=move || session.messages.with(Vec::is_empty)
                    on:click=move |_| files.export(false)>"Export Markdown"</button>
                <button class="copy-button" data-testid="export-json"
                    disabled=move || session.messages.with(Vec::is_empty)
                    on:click=move |_| files.export(true)>"Export JSON"</button>
                <label class="copy-button import-label">
                    "Import JSON"
                    <input type="file" accept="application/json,.json" class="visually-hidden" data-testid="import-json"
                        on:change=move |ev| {
                            if let Some(target) = ev.target() {
                                leptos::task::spawn_local(async move {
                                    files.import(super::browser::read_chosen_file(target).await);
                                });
                            }
                        }/>
                </label>
            </div>
            <main class="conversation" data-testid="conversation">
                <Show when=move || session.messages.with(Vec::is_empty)>
                    <div class="empty-state">
                        // Texts as blocks: shown again after hydration, these
                        // are built node by node (super::trusted_html).
                        <h2>{"Ask a reasoning model something hard."}</h2>
                        <p>{"You will see it think, live, then answer."}</p>
                    </div>
                </Show>
                <For
                    each=move || session.messages.get()
                    key=MessageView::key
                    children=move |message| {
                        let key = message.key();
                        let is_last = Signal::derive(move || {
                            session.messages.with(|m| m.last().map(MessageView::key) == Some(key))
                        });
                        match message {
                            MessageView::User { content, .. } => {
                                // The last user message sits right before the last turn.
                                let editable = Signal::derive(move || {
                                    !running.get()
                                        && session.messages.with(|m| {
                                            m.len() >= 2 && m[m.len() - 2].key() == key
                                        })
                                });
                                let on_edit = Callback::new(move |text| session.edit_and_resend(key, text));
                                view! { <UserMessage content editable on_edit/> }.into_any()
                            }
                            MessageView::Assistant { turn, .. } => {
                                let on_retry = Callback::new(move |_| session.retry(key));
                                view! { <AssistantMessage turn now on_retry is_last/> }.into_any()
                            }
                        }
                    }
                />
            </main>
            <div class="visually-hidden" role="status" aria-live="polite" data-testid="status">
                {move || session.announcement.get()}
            </div>
            <Composer
                running
                on_send=Callback::new(move |text| session.send(text))
                on_stop=Callback::new(move |_| session.stop())
            />
        </div>
        </div>
    }
}

/// A notice about saved data, with a download of anything quarantined.
fn notice_view(notices: UseNoticesReturn, notice: Notice) -> impl IntoView {
    let message = notice.message.clone();
    let download = notice.backup.map(|raw| {
        let href = format!("data:application/json;charset=utf-8,{}", percent_encode(&raw));
        view! { <a href=href download="pensive-backup.json" data-testid="download-backup">"Download it"</a> }
    });
    view! {
        <div class="notice" role="alert" data-testid="notice">
            <span>{notice.message}</span>
            {download}
            <button on:click=move |_| notices.dismiss(&message)>"Dismiss"</button>
        </div>
    }
}

/// Percent-encodes text for a `data:` URL.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 3 / 2);
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// One model: a badge. Several: a picker bound to the conversation's model.
fn model_chooser(session: UseChatSessionReturn, models: Vec<PublicModel>) -> AnyView {
    if models.len() < 2 {
        return models.into_iter().next().map(model_badge).into_any();
    }
    let default = models.first().map(|m| m.id.clone()).unwrap_or_default();
    view! {
        <label class="preference">
            <span>"Model: "</span>
            <select
                data-testid="model-picker"
                on:change=move |ev| session.pick_model(event_target_value(&ev))
                prop:value=move || session.model.get().unwrap_or_else(|| default.clone())
            >
                {models
                    .into_iter()
                    .map(|m| view! { <option value=m.id.clone()>{m.label}</option> })
                    .collect_view()}
            </select>
        </label>
    }
    .into_any()
}

fn model_badge(model: PublicModel) -> impl IntoView {
    view! {
        <span class="model-badge" data-testid="model-badge" class:demo=model.demo>
            {model.label}
            {model.demo.then(|| view! { <span class="demo-note">" \u{b7} built-in demo, no API key needed"</span> })}
        </span>
    }
}
