//! The Leptos UI: one component per file, hooks as `use_*` functions, and the
//! server function declarations in `api`. Compiled into both builds.

pub mod api;
pub mod assistant_message;
pub mod autosave;
pub mod browser;
pub mod chat_page;
pub mod code_copy;
pub mod composer;
pub mod conversation_search;
pub mod disclosure;
pub mod effort_picker;
pub mod export_scope_picker;
pub mod headline;
pub mod history;
pub mod include_reasoning_toggle;
pub mod jump_to_latest;
pub mod later;
pub mod lazy_renderer;
pub mod markdown;
pub mod message_list;
pub mod message_view;
pub mod model_line;
pub mod notice_list;
pub mod page_menu;
pub mod preferences;
pub mod restore_shell;
pub mod reveal_match;
pub mod scroll_pin;
pub mod sidebar;
pub mod storage;
pub mod storage_panel;
pub mod streaming_markdown;
pub mod thinking_block;
pub mod thinking_header;
pub mod tool_step;
pub mod tools_control;
pub mod trusted_html;
pub mod turn_client;
pub mod turn_footer;
pub mod turn_view;
pub mod undo_delete;
pub mod use_chat_session;
pub mod use_conversations;
pub mod use_copy;
pub mod use_import_export;
pub mod use_notices;
pub mod use_page_lifecycle;
pub mod use_stick_to_bottom;
pub mod use_thinking_fold;
pub mod user_message;
pub mod version_switcher;

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, HashedStylesheet, MetaTags, Title};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

use chat_page::ChatPage;

/// The HTML document around the app (server side; the router mounts it and
/// sets the page's security policy).
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="color-scheme" content="light dark" />
                // Before anything paints: a returning user never sees the welcome.
                <restore_shell::RestoringScript />
                <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
                // Names the content-hashed file when the build made one (cached a year).
                <HashedStylesheet options=options.clone() id="leptos" />
                <AutoReload options=options.clone() />
                <HydrationScripts options />
                <MetaTags />
            </head>
            <body>
                <App />
                // After the app's HTML, before hydration: the conversation as it looked.
                <restore_shell::SnapshotScript />
            </body>
        </html>
    }
}

/// The root component.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    // Effects run only in the browser, after hydration: tests wait for this
    // marker. The renderer's worker starts after it, so none of its fetches
    // can land before the page says it is interactive (the page-weight
    // benchmark counts every fetch, the worker's too, by when it finished).
    Effect::new(move |_| {
        browser::mark_hydrated();
        untrack(lazy_renderer::start_loading);
        later::fetch_all();
    });
    view! {
        <Title text="Pensive" />
        <Router>
            <Routes fallback=|| view! { <p class="not-found">"Page not found."</p> }>
                <Route path=path!("") view=ChatPage />
            </Routes>
        </Router>
    }
}
