//! The chat page: sidebar, conversation, composer. History loads after
//! hydration, so the server and the first client render are the same empty page
//! (for a returning user `restore_shell` keeps its welcome hidden until then).

use leptos::prelude::*;

use super::api::{list_models, list_tool_servers, PublicModel};
use super::composer::Composer;
use super::effort_picker::EffortPicker;
use super::history::Notice;
use super::jump_to_latest::JumpToLatest;
use super::message_list::MessageList;
use super::page_menu::PageMenu;
use super::preferences::provide_fold_preference;
use super::restore_shell;
use super::reveal_match::reveal_match;
use super::sidebar::Sidebar;
use super::tools_control::ToolsControl;
use super::undo_delete::UndoDelete;
use super::use_chat_session::{use_chat_session, UseChatSessionReturn};
use super::use_conversations::use_conversations;
use super::use_import_export::use_import_export;
use super::use_notices::{use_notices, UseNoticesReturn};
use super::use_page_lifecycle::use_page_lifecycle;
use super::use_stick_to_bottom::use_stick_to_bottom;

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
    let stick = use_stick_to_bottom();
    let running = session.running();
    use_page_lifecycle(session, conversations, stick);
    let models = Resource::new(|| (), |_| list_models());
    // Each turn names the model that wrote it: the session learns the list.
    Effect::new(move |_| {
        if let Some(Ok(list)) = models.get() {
            session.know_models(list);
        }
    });
    let tool_servers = Resource::new(|| (), |_| list_tool_servers());
    // A request names the servers left on: the session learns the list.
    Effect::new(move |_| {
        if let Some(Ok(list)) = tool_servers.get() {
            session.know_tool_servers(list);
        }
    });

    let open_match = Callback::new(move |found: super::history::SearchHit| {
        // Not shown when it could not be loaded (the notice says why).
        conversations.open(found.id.clone(), move |shown| {
            if shown && session.current_id.get_untracked() == found.id {
                reveal_match(stick, session, found);
            }
        });
    });
    let send = Callback::new(move |text| {
        // The new question comes into view, and the turn is followed.
        stick.follow(true);
        session.send(text);
    });

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
                on_open_match=open_match
            />
            <div class="page">
                <header class="topbar">
                    <h1 class="brand">"Pensive"</h1>
                    // Its own box: a Suspense must be the last child of its
                    // parent to hydrate (siblings after it went unmatched).
                    <div class="model-line">
                        <Suspense fallback=|| ()>
                            {move || {
                                models
                                    .get()
                                    .and_then(Result::ok)
                                    .map(|list| {
                                        view! {
                                            {model_chooser(session, list.clone())}
                                            <EffortPicker
                                                models=list
                                                model=session.model
                                                effort=session.effort
                                                on_change=Callback::new(move |e| session.pick_effort(e))
                                            />
                                        }
                                    })
                            }}
                            {move || {
                                tool_servers
                                    .get()
                                    .and_then(Result::ok)
                                    .filter(|servers| !servers.is_empty())
                                    .map(|servers| {
                                        view! {
                                            <ToolsControl
                                                servers
                                                off=session.tools_off
                                                on_switch=Callback::new(move |(name, on)| {
                                                    session.switch_tool_server(name, on)
                                                })
                                            />
                                        }
                                    })
                            }}
                        </Suspense>
                    </div>
                    <PageMenu
                        preference=fold_preference
                        files
                        empty=Signal::derive(move || session.messages.with(Vec::is_empty))
                    />
                </header>
                <For
                    each=notice_list
                    key=|(i, n)| (*i, n.message.clone())
                    children=move |(_, notice)| notice_view(notices, notice)
                />
                <UndoDelete conversations />
                <div class="conversation-wrap">
                    <main
                        class="conversation"
                        data-testid="conversation"
                        aria-label="Conversation"
                        tabindex="0"
                        node_ref=stick.scroller
                        on:scroll=move |_| stick.on_scroll()
                        on:wheel=move |ev| stick.on_wheel(ev)
                        on:keydown=move |ev| stick.on_keydown(ev)
                        on:touchstart=move |ev| stick.on_touchstart(ev)
                        on:touchmove=move |ev| stick.on_touchmove(ev)
                    >
                        // Filled before hydration with how the conversation looked
                        // (restore_shell): never rendered into by the app.
                        <div
                            id=restore_shell::SNAPSHOT_ID
                            class="restore-snapshot"
                            inert=true
                            aria-hidden="true"
                        ></div>
                        <div class="conversation-content" node_ref=stick.content>
                            <MessageList session />
                        </div>
                    </main>
                    <JumpToLatest stick />
                </div>
                <div class="visually-hidden" role="status" aria-live="polite" data-testid="status">
                    {move || session.announcement.get()}
                </div>
                <Composer running on_send=send on_stop=Callback::new(move |_| session.stop()) />
            </div>
        </div>
    }
}

/// A notice about saved data, with a download of anything quarantined.
fn notice_view(notices: UseNoticesReturn, notice: Notice) -> impl IntoView {
    let message = notice.message.clone();
    let download = notice.backup.map(|raw| {
        let href = format!(
            "data:application/json;charset=utf-8,{}",
            percent_encode(&raw)
        );
        view! {
            <a href=href download="pensive-backup.json" data-testid="download-backup">
                "Download it"
            </a>
        }
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
                aria-label="Model"
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
            {model
                .demo
                .then(|| {
                    view! {
                        <span class="demo-note">" \u{b7} built-in demo, no API key needed"</span>
                    }
                })}
        </span>
    }
}
