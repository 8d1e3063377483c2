//! The top bar's model line: the model (a badge, or a picker when the
//! server offers several), the reasoning effort, and the Tools control when
//! the server has tool servers. The lists load as resources the page makes;
//! until they arrive the line is empty.

use leptos::prelude::*;

use super::api::{Fetched, PublicModel, PublicToolServer};
use super::effort_picker::EffortPicker;
use super::tools_control::ToolsControl;
use super::use_chat_session::UseChatSessionReturn;

/// The model, effort and tools pickers of the shown conversation.
#[component]
pub fn ModelLine(
    /// The chat session: the conversation's model, effort and tools off.
    session: UseChatSessionReturn,
    /// The server's models.
    models: Fetched<Vec<PublicModel>>,
    /// The server's tool servers.
    tool_servers: Fetched<Vec<PublicToolServer>>,
) -> impl IntoView {
    // The shown conversation's model (the first, until one is picked) may
    // get no tools when it reasons: the Tools panel says why.
    let chosen = Signal::derive(move || {
        let list = models.get().and_then(Result::ok)?;
        let picked = session.model.get();
        list.iter()
            .find(|m| picked.as_ref() == Some(&m.id))
            .or(list.first())
            .cloned()
    });
    let model_note = Signal::derive(move || chosen.get().and_then(|m| m.tools_note));
    // Outlives each drawing of the Tools control (the list is read again
    // after an agreement): the panel stays open.
    let tools_open = RwSignal::new(false);
    view! {
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
                                    model_note
                                    model=chosen
                                    effort=session.effort
                                    open=tools_open
                                    off=session.tools_off
                                    on_switch=Callback::new(move |(name, on)| {
                                        session.switch_tool_server(name, on)
                                    })
                                    on_agree=Callback::new(move |agreed| {
                                        agree_then_refresh(agreed, tool_servers)
                                    })
                                />
                            }
                        })
                }}
            </Suspense>
        </div>
    }
}

/// Agrees to a held tool's new description, then reads the list again (the
/// tool is offered again, and says whether it asks).
fn agree_then_refresh(
    (server, tool, digest): (String, String, String),
    tool_servers: Fetched<Vec<PublicToolServer>>,
) {
    leptos::task::spawn_local(async move {
        // Refused (it changed again): the fresh list shows it still held.
        let _ = super::api::tool_agree(server, tool, digest).await;
        tool_servers.refetch();
    });
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
