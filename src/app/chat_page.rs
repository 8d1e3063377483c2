//! The chat page: sidebar, conversation, composer. History loads after
//! hydration, so the server and the first client render are the same empty page
//! (for a returning user `restore_shell` keeps its welcome hidden until then).

use leptos::prelude::*;

use super::api::{list_models, list_tool_servers, PublicModel};
use super::assistant_message::AssistantMessage;
use super::composer::Composer;
use super::effort_picker::EffortPicker;
use super::history::Notice;
use super::jump_to_latest::JumpToLatest;
use super::message_view::MessageView;
use super::page_menu::PageMenu;
use super::preferences::provide_fold_preference;
use super::restore_shell;
use super::reveal_match::reveal_match;
use super::sidebar::Sidebar;
use super::tools_control::ToolsControl;
use super::use_chat_session::{use_chat_session, UseChatSessionReturn};
use super::use_conversations::use_conversations;
use super::use_import_export::use_import_export;
use super::use_notices::{use_notices, UseNoticesReturn};
use super::use_stick_to_bottom::use_stick_to_bottom;
use super::user_message::UserMessage;
use crate::turn::Decision;

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
    // Once, after hydration (untracked: what loading reads must not run it again).
    Effect::new(move |_| {
        // A reload opens at the latest turn, as it looked (restore_shell),
        // once the conversation to show is known.
        untrack(|| {
            conversations.load_history(move |has_messages| {
                restore_shell::reveal_when_rendered(has_messages, move || stick.follow(true));
            })
        });
        // IndexedDB can stall (another tab blocking an upgrade): the page
        // shows what it has by then rather than the snapshot for ever.
        #[cfg(feature = "hydrate")]
        set_timeout(
            restore_shell::restored,
            std::time::Duration::from_millis(2 * restore_shell::REVEAL_TIMEOUT_MS),
        );
    });
    // What was on screen is kept when the page goes away (a reload, a closed
    // tab, a phone switching apps): the turn as it stands, and its picture.
    let snapshot = move || {
        let id = session.current_id.get_untracked();
        restore_shell::capture_snapshot(stick.content.get_untracked(), &id);
    };
    let _ = window_event_listener(leptos::ev::pagehide, move |_| {
        // Browsers hide the page before unloading it, and the hidden handler
        // below has kept everything then; save here only if it did not run.
        let kept = super::browser::page_hidden();
        session.page_leaving(!kept);
        if !kept {
            snapshot();
        }
    });
    let _ = window_event_listener(leptos::ev::pageshow, move |_| session.page_shown_again());
    let _ = window_event_listener_untyped("visibilitychange", move |_| {
        if super::browser::page_hidden() {
            session.save();
            snapshot();
        }
    });
    // A turn ended: its picture, once its last frame is drawn.
    Effect::new(move |was_running: Option<bool>| {
        let now_running = running.get();
        if was_running == Some(true) && !now_running {
            request_animation_frame(move || request_animation_frame(snapshot));
        }
        now_running
    });
    // Another conversation shown: open it at its latest turn too.
    Effect::new(move |previous: Option<String>| {
        let id = session.current_id.get();
        if previous.is_some_and(|p| p != id) {
            stick.follow(true);
        }
        id
    });
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
    let now = session.clock;

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
                {move || {
                    conversations
                        .deleted
                        .get()
                        .map(|c| {
                            view! {
                                <div class="notice undo" role="status" data-testid="undo-delete">
                                    <span>
                                        {format!("Deleted \u{201c}{}\u{201d}.", c.summary().title)}
                                    </span>
                                    <button on:click=move |_| {
                                        conversations.undo_delete()
                                    }>"Undo"</button>
                                    <button on:click=move |_| {
                                        conversations.dismiss_undo()
                                    }>"Dismiss"</button>
                                </div>
                            }
                        })
                }}
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
                            <Show when=move || session.messages.with(Vec::is_empty)>
                                <div class="empty-state">
                                    // Texts as blocks: shown again after hydration, these
                                    // are built node by node (super::trusted_html).
                                    <h2>{"Ask a reasoning model something hard."}</h2>
                                    <p>{"You will see it think, live, then answer."}</p>
                                </div>
                            </Show>
                            <Show when=move || { session.first_rendered.get() > 0 }>
                                <button
                                    class="show-earlier"
                                    data-testid="show-earlier"
                                    on:click=move |_| session.show_earlier()
                                >
                                    {move || earlier_label(session.first_rendered.get())}
                                </button>
                            </Show>
                            <For
                                each=move || {
                                    let first = session.first_rendered.get();
                                    session.messages.with(|m| m[first.min(m.len())..].to_vec())
                                }
                                key=MessageView::key
                                children=move |message| {
                                    let key = message.key();
                                    let is_last = Signal::derive(move || {
                                        session
                                            .messages
                                            .with(|m| m.last().map(MessageView::key) == Some(key))
                                    });
                                    match message {
                                        MessageView::User { content, versions, .. } => {
                                            let editable = Signal::derive(move || {
                                                !running.get()
                                                    && session
                                                        .messages
                                                        .with(|m| { m.len() >= 2 && m[m.len() - 2].key() == key })
                                            });
                                            let on_edit = Callback::new(move |text| {
                                                session.edit_and_resend(key, text)
                                            });
                                            let on_version = Callback::new(move |target| {
                                                session.show_version(key, target)
                                            });
                                            // The last user message sits right before the last turn.
                                            view! {
                                                <UserMessage
                                                    content
                                                    editable
                                                    on_edit
                                                    versions
                                                    on_version
                                                    running
                                                />
                                            }
                                                .into_any()
                                        }
                                        MessageView::Assistant { turn, .. } => {
                                            let on_retry = Callback::new(move |_| session.retry(key));
                                            let on_answer_now = Callback::new(move |_| {
                                                session.answer_now()
                                            });
                                            let on_continue = Callback::new(move |_| {
                                                session.continue_answer()
                                            });
                                            let on_decide = Callback::new(move |
                                                (call, decision): (String, Decision)|
                                            { session.decide(call, decision) });
                                            view! {
                                                <AssistantMessage
                                                    turn
                                                    now
                                                    on_retry
                                                    is_last
                                                    on_answer_now
                                                    on_continue
                                                    on_decide
                                                />
                                            }
                                                .into_any()
                                        }
                                    }
                                }
                            />
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

/// The "Show earlier" button's words, with `hidden` messages not rendered.
fn earlier_label(hidden: usize) -> String {
    let next = hidden.min(super::use_chat_session::RENDER_WINDOW);
    match hidden {
        1 => "Show the earlier message".to_owned(),
        _ if next == hidden => format!("Show the {hidden} earlier messages"),
        _ => format!(
            "Show {next} earlier messages ({} not shown)",
            crate::turn::turn_footer::thousands(hidden as u64)
        ),
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
