//! The conversation's options: the Thinking fold preference and export /
//! import (Markdown or JSON, with or without reasoning, this conversation or
//! all of them). Wide screens show them in the top bar; on a phone they sit
//! behind one "Options" button, so the conversation keeps the screen
//! (design §4).

use leptos::prelude::*;

use super::export_scope_picker::ExportScopePicker;
use super::include_reasoning_toggle::IncludeReasoningToggle;
use super::preferences::{FoldPreference, FoldPreferencePicker};
use super::use_import_export::{ExportFormat, ExportScope, UseImportExportReturn};

/// What "Sign out and clear this browser's history" asks first: it cannot
/// be undone, and an export is the way to keep a copy.
const FORGET_QUESTION: &str = "Remove every conversation stored in this browser, then sign out? \
     This cannot be undone: export first to keep a copy.";

/// The options menu.
#[component]
pub fn PageMenu(
    /// The fold preference (`provide_fold_preference`).
    preference: RwSignal<FoldPreference>,
    /// Export and import of conversations.
    files: UseImportExportReturn,
    /// True while the shown conversation has no messages (nothing of its own
    /// to export; all conversations can be, if any is stored).
    #[prop(into)]
    empty: Signal<bool>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let with_reasoning = RwSignal::new(true);
    let scope = RwSignal::new(ExportScope::Shown);
    // All conversations: offered while any is stored or one is shown.
    let nothing = move || match scope.get() {
        ExportScope::Shown => empty.get(),
        ExportScope::All => empty.get() && !files.any_stored(),
    };
    let export = move |format| {
        files.export(
            format,
            with_reasoning.get_untracked(),
            scope.get_untracked(),
        )
    };
    let guarded: super::api::Fetched<bool> =
        Resource::new_with_options(|| (), |_| super::api::access_token_required(), false);
    view! {
        <div class="page-menu">
            <button
                class="page-menu-toggle"
                aria-expanded=move || open.get().to_string()
                aria-controls="page-menu-panel"
                on:click=move |_| open.update(|o| *o = !*o)
            >
                "Options"
            </button>
            <div id="page-menu-panel" class="page-menu-panel" class:open=move || open.get()>
                <FoldPreferencePicker preference />
                <ExportScopePicker scope />
                <IncludeReasoningToggle include=with_reasoning />
                <div class="conversation-actions">
                    <button
                        class="copy-button"
                        data-testid="export-markdown"
                        disabled=nothing
                        on:click=move |_| export(ExportFormat::Markdown)
                    >
                        "Export Markdown"
                    </button>
                    <button
                        class="copy-button"
                        data-testid="export-json"
                        disabled=nothing
                        on:click=move |_| export(ExportFormat::Json)
                    >
                        "Export JSON"
                    </button>
                    <label class="copy-button import-label">
                        "Import JSON"
                        <input
                            type="file"
                            accept="application/json,.json"
                            class="visually-hidden"
                            data-testid="import-json"
                            on:change=move |ev| {
                                if let Some(target) = ev.target() {
                                    leptos::task::spawn_local(async move {
                                        files
                                            .import(super::browser::read_chosen_file(target).await);
                                    });
                                }
                            }
                        />
                    </label>
                </div>
                // Behind an access token: the cookie is cleared, then the
                // sign-in page asks for the token again.
                <Suspense fallback=|| ()>
                    {move || {
                        guarded
                            .get()
                            .and_then(Result::ok)
                            .filter(|on| *on)
                            .map(|_| {
                                view! {
                                    <button
                                        class="copy-button"
                                        data-testid="sign-out"
                                        on:click=move |_| {
                                            leptos::task::spawn_local(async {
                                                if super::api::sign_out().await.is_ok() {
                                                    super::browser::go_to("/sign-in");
                                                }
                                            });
                                        }
                                    >
                                        {"Sign out"}
                                    </button>
                                    // A shared machine: nothing of this person's
                                    // conversations stays behind.
                                    <button
                                        class="copy-button"
                                        data-testid="sign-out-and-forget"
                                        on:click=move |_| {
                                            if !super::browser::confirm(FORGET_QUESTION) {
                                                return;
                                            }
                                            leptos::task::spawn_local(async {
                                                if super::api::sign_out().await.is_err() {
                                                    return;
                                                }
                                                if let Err(problem) = super::history::forget_everything()
                                                    .await
                                                {
                                                    leptos::logging::warn!(
                                                        "this browser's history could not all be removed: {problem}"
                                                    );
                                                }
                                                super::browser::go_to("/sign-in");
                                            });
                                        }
                                    >
                                        {"Sign out and clear this browser's history"}
                                    </button>
                                }
                            })
                    }}
                </Suspense>
            </div>
        </div>
    }
}
