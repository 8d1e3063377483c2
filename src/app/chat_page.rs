//! The chat page: sidebar, conversation, composer. History loads after
//! hydration, so the server and the first client render are the same empty page
//! (for a returning user `restore_shell` keeps its welcome hidden until then).

use leptos::prelude::*;

use super::api::{list_models, list_tool_servers, Fetched, PublicModel, PublicToolServer};
use super::composer::Composer;
use super::history::SearchHit;
use super::jump_to_latest::JumpToLatest;
use super::later::{later, now_or_later};
use super::message_list::MessageList;
use super::model_line::ModelLine;
use super::notice_list::NoticeList;
use super::page_menu::PageMenu;
use super::preferences::provide_fold_preference;
use super::restore_shell;
use super::reveal_match::reveal_match;
use super::sidebar::Sidebar;
use super::undo_delete::UndoDelete;
use super::use_chat_session::{use_chat_session, UseChatSessionReturn};
use super::use_conversations::{use_conversations, UseConversationsReturn};
use super::use_import_export::use_import_export;
use super::use_notices::use_notices;
use super::use_page_lifecycle::use_page_lifecycle;
use super::use_stick_to_bottom::{use_stick_to_bottom, UseStickToBottomReturn};

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
    let models: Fetched<Vec<PublicModel>> =
        Resource::new_with_options(|| (), |_| list_models(), false);
    // Each turn names the model that wrote it: the session learns the list.
    Effect::new(move |_| {
        if let Some(Ok(list)) = models.get() {
            session.know_models(list);
        }
    });
    let tool_servers: Fetched<Vec<PublicToolServer>> =
        Resource::new_with_options(|| (), |_| list_tool_servers(), false);
    // A request names the servers left on: the session learns the list.
    Effect::new(move |_| {
        if let Some(Ok(list)) = tool_servers.get() {
            session.know_tool_servers(list);
        }
    });

    let open_match = Callback::new(move |found: SearchHit| {
        now_or_later(open_search_result(conversations, session, stick, found))
    });
    let send = Callback::new(move |text| {
        // The new question comes into view, and the turn is followed.
        stick.follow(true);
        session.send(text);
    });

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
                    <ModelLine session models tool_servers />
                    <PageMenu
                        preference=fold_preference
                        files
                        empty=Signal::derive(move || session.messages.with(Vec::is_empty))
                    />
                </header>
                <NoticeList notices />
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
                // Seen, not only announced: the status line above says it too.
                <Show when=move || session.reconnecting.get()>
                    <p class="connection-note" data-testid="connection-note" aria-hidden="true">
                        "Reconnecting to the server… the turn goes on there."
                    </p>
                </Show>
                <Composer running on_send=send on_stop=Callback::new(move |_| session.stop()) />
            </div>
        </div>
    }
}

// Opening a search result is the library chunk's (super::later).
later! {
    library,
    fn open_search_result(
        conversations: UseConversationsReturn,
        session: UseChatSessionReturn,
        stick: UseStickToBottomReturn,
        found: SearchHit,
    ) {
        // Not shown when it could not be loaded (the notice says why).
        conversations.open(found.id.clone(), move |shown| {
            if shown && session.current_id.get_untracked() == found.id {
                reveal_match(stick, session, found);
            }
        });
    }
}
