//! "Tools": the tool servers and their tools (`POST /api/tool_servers`),
//! with a switch per server for the shown conversation. A server switched
//! off is not offered to the model in that conversation's turns. What a
//! server says about its tools (MCP annotations) is shown as its claim,
//! beside Pensive's own decision on whether a call asks first. A held tool
//! (its server changed what it says it does) is not offered to the model;
//! "Allow its new description" agrees to what it says now, for this
//! session alone.
//!
//! Descriptions and claims are the servers' text: rendered as text, never
//! as HTML.

use leptos::prelude::*;

use super::api::{PublicModel, PublicToolServer};
use super::later::{later, view_now_or_later};
use crate::turn::tool_listing::{offered_count, PublicTool, ServerState};
use crate::turn::Effort;

/// The Tools button and its panel, beside the model and effort pickers.
#[component]
pub fn ToolsControl(
    /// The servers, built-in first.
    servers: Vec<PublicToolServer>,
    /// The servers switched off for the shown conversation.
    #[prop(into)]
    off: Signal<Vec<String>>,
    /// Switches a server (name, on) for the shown conversation.
    on_switch: Callback<(String, bool)>,
    /// Why the conversation's model is offered no tools, if it is not.
    #[prop(into, optional)]
    model_note: Signal<Option<String>>,
    /// The conversation's model (the server's default until one is
    /// picked): the count leaves out what it will not get.
    #[prop(into, optional)]
    model: Signal<Option<PublicModel>>,
    /// The effort the next turn is asked at (`None`: the model's default).
    #[prop(into, optional)]
    effort: Signal<Option<Effort>>,
    /// Agrees to a held tool's new description (server, tool, digest).
    on_agree: Callback<(String, String, String)>,
    /// Whether the panel is open; kept by the caller so that the panel
    /// stays open when the list is read again (after "Allow its new
    /// description") and the control is drawn anew.
    #[prop(optional)]
    open: Option<RwSignal<bool>>,
) -> impl IntoView {
    let open = open.unwrap_or_else(|| RwSignal::new(false));
    let button = NodeRef::<leptos::html::Button>::new();
    let servers = StoredValue::new(servers);
    // What the model will get: not what it cannot take, nor a held tool.
    let tools_on = move || {
        let model = model.get();
        let effort = effort.get();
        off.with(|off| {
            servers.with_value(|servers| offered_count(servers, off, model.as_ref(), effort))
        })
    };
    let close = move || {
        open.set(false);
        if let Some(button) = button.get_untracked() {
            let _ = button.focus();
        }
    };
    view! {
        <div
            class="tools-control"
            on:keydown=move |ev| {
                if ev.key() == "Escape" && open.get_untracked() {
                    ev.prevent_default();
                    close();
                }
            }
        >
            <button
                type="button"
                class="tools-toggle"
                data-testid="tools-button"
                node_ref=button
                aria-expanded=move || open.get().to_string()
                aria-controls="tools-panel"
                on:click=move |_| open.update(|o| *o = !*o)
            >
                <span class="tools-word">"Tools"</span>
                <span class="tools-count" data-testid="tools-count">
                    {move || tools_on().to_string()}
                </span>
            </button>
            // Made when opened (the server renders it closed): the library
            // chunk's (super::later).
            <Show when=move || {
                open.get()
            }>
                {move || {
                    view_now_or_later(
                        tools_panel(
                            servers,
                            off,
                            on_switch,
                            on_agree,
                            model_note,
                            Callback::new(move |_| close()),
                        ),
                    )
                }}
            </Show>
        </div>
    }
}

later! {
    library,
    fn tools_panel(
        servers: StoredValue<Vec<PublicToolServer>>,
        off: Signal<Vec<String>>,
        on_switch: Callback<(String, bool)>,
        on_agree: Callback<(String, String, String)>,
        model_note: Signal<Option<String>>,
        close: Callback<()>,
    ) -> AnyView {
        view! {
            <div
                id="tools-panel"
                class="tools-panel"
                role="group"
                aria-label="Tools for this conversation"
                data-testid="tools-panel"
            >
                <p class="tools-note">
                    {"Switches apply to this conversation. \u{201c}Server says\u{201d} marks what a server claims about its own tools: Pensive does not take it on trust."}
                </p>
                {move || {
                    model_note
                        .get()
                        .map(|note| {
                            view! {
                                <p class="tools-model-note" data-testid="tools-model-note">
                                    {note}
                                </p>
                            }
                        })
                }}
                {servers
                    .get_value()
                    .into_iter()
                    .map(|server| view! { <ServerEntry server off on_switch on_agree /> })
                    .collect_view()}
                <button type="button" class="tools-close" on:click=move |_| close.run(())>
                    {"Close"}
                </button>
            </div>
        }
        .into_any()
    }
}

/// One server: its switch, what kind it is, and its tools.
#[component]
fn ServerEntry(
    server: PublicToolServer,
    #[prop(into)] off: Signal<Vec<String>>,
    on_switch: Callback<(String, bool)>,
    on_agree: Callback<(String, String, String)>,
) -> impl IntoView {
    let name = server.name.clone();
    let is_on = {
        let name = name.clone();
        move || off.with(|off| !off.contains(&name))
    };
    let kind = if server.builtin {
        "built in"
    } else if server.trusted {
        "trusted by your configuration"
    } else {
        "not trusted"
    };
    let status = status_line(&server);
    let switch_name = name.clone();
    let marker = name.clone();
    let tools = server
        .tools
        .into_iter()
        .map(|tool| {
            let server = name.clone();
            let on_agree = Callback::new(move |(tool, digest): (String, String)| {
                on_agree.run((server.clone(), tool, digest))
            });
            view! { <ToolEntry tool on_agree /> }
        })
        .collect_view();
    view! {
        <section class="tools-server" data-testid="tools-server" data-server=marker>
            <div class="tools-server-head">
                <label class="tools-switch">
                    <input
                        type="checkbox"
                        role="switch"
                        data-testid="tool-server-switch"
                        prop:checked=is_on
                        on:change=move |ev| {
                            on_switch.run((switch_name.clone(), event_target_checked(&ev)))
                        }
                    />
                    <span class="tools-server-name">{name}</span>
                </label>
                <span class="tools-server-kind">{kind}</span>
            </div>
            {status
                .map(|line| {
                    view! {
                        <p class="tools-server-notice" data-testid="tools-server-notice">
                            {line}
                        </p>
                    }
                })}
            <ul class="tools-list">{tools}</ul>
        </section>
    }
}

/// The short line under a server: starting, why it is unavailable, or what
/// of its list was left out.
fn status_line(server: &PublicToolServer) -> Option<String> {
    match server.state {
        ServerState::Starting => Some("starting: its tools join when it is up".into()),
        ServerState::Unavailable => Some(format!(
            "unavailable: {}",
            server.notice.as_deref().unwrap_or("it did not start")
        )),
        ServerState::Ready => server.notice.clone(),
    }
}

/// One tool: name, description, the server's claims, and whether it asks;
/// a held one offers to agree to what it says now.
#[component]
fn ToolEntry(tool: PublicTool, on_agree: Callback<(String, String)>) -> impl IntoView {
    let asks = if tool.held {
        "held: the server changed what it says it does; not offered to the model"
    } else if tool.asks_first {
        "asks you first"
    } else {
        "runs without asking"
    };
    let claims = tool
        .claims
        .words()
        .into_iter()
        .map(|word| {
            view! {
                <li class="tools-claim" data-testid="tool-claim">
                    {format!("server says: {word}")}
                </li>
            }
        })
        .collect_view();
    let title = tool.claims.title.clone();
    let marker = tool.name.clone();
    let agree = tool
        .digest
        .clone()
        .filter(|_| tool.held)
        .map(|digest| agree_button(tool.name.clone(), digest, on_agree));
    view! {
        <li class="tools-tool" data-testid="tools-tool" data-tool=marker>
            <div class="tools-tool-head">
                <code class="tools-tool-name">{tool.name}</code>
                {title
                    .map(|t| {
                        view! {
                            <span class="tools-tool-title">
                                {format!("server says: \u{201c}{t}\u{201d}")}
                            </span>
                        }
                    })}
                <span class="tools-asks" class:asks=tool.asks_first data-testid="tool-asks">
                    {asks}
                </span>
            </div>
            <p class="tools-description">{tool.description}</p>
            <ul class="tools-claims">{claims}</ul>
            {agree}
        </li>
    }
}

/// The button that agrees to a held tool's new description (the one shown
/// above it, named by `digest`).
fn agree_button(
    tool: String,
    digest: String,
    on_agree: Callback<(String, String)>,
) -> impl IntoView {
    view! {
        <button
            type="button"
            class="tools-agree"
            data-testid="tool-agree"
            on:click=move |_| on_agree.run((tool.clone(), digest.clone()))
        >
            {"Allow its new description"}
        </button>
    }
}

#[cfg(all(test, feature = "ssr"))]
mod render_tests {
    use super::*;
    use crate::turn::tool_listing::ToolClaims;

    fn tool(held: bool) -> PublicTool {
        PublicTool {
            name: "weather".into(),
            description: "Tells the weather.".into(),
            claims: ToolClaims::default(),
            asks_first: held,
            held,
            digest: held.then(|| "sha256:abc".into()),
        }
    }

    fn render(tool: PublicTool) -> String {
        Owner::new().with(|| {
            let on_agree = Callback::new(|_: (String, String)| ());
            view! { <ToolEntry tool on_agree /> }.to_html()
        })
    }

    fn server(name: &str, tools: Vec<PublicTool>) -> PublicToolServer {
        PublicToolServer {
            name: name.into(),
            builtin: name == "builtin",
            trusted: false,
            tools,
            state: ServerState::Ready,
            left_out: 0,
            notice: None,
        }
    }

    fn named(name: &str, held: bool) -> PublicTool {
        PublicTool {
            name: name.into(),
            ..tool(held)
        }
    }

    fn model(json: serde_json::Value) -> PublicModel {
        let mut model = serde_json::json!({"id": "m", "label": "m", "demo": false, "efforts": ["off", "high"], "default_effort": "high"});
        if let (Some(base), Some(extra)) = (model.as_object_mut(), json.as_object()) {
            base.extend(extra.clone());
        }
        serde_json::from_value(model).expect("a public model")
    }

    /// The Tools button's count, as rendered for `model` at `effort`.
    fn count(model: Option<PublicModel>, effort: Option<Effort>) -> String {
        let servers = vec![
            server(
                "builtin",
                vec![named("calculate", false), named("current_time", false)],
            ),
            server(
                "files",
                vec![named("read_file", true), named("read.v2", false)],
            ),
        ];
        let html = Owner::new().with(|| {
            view! {
                <ToolsControl
                    servers
                    off=Signal::derive(Vec::new)
                    on_switch=Callback::new(|_: (String, bool)| ())
                    model=Signal::derive(move || model.clone())
                    effort=Signal::derive(move || effort)
                    on_agree=Callback::new(|_: (String, String, String)| ())
                />
            }
            .to_html()
        });
        // `<span class="tools-count" data-testid="tools-count">3</span>`
        let at = html.find("\"tools-count\">").expect(&html) + "\"tools-count\">".len();
        html[at..]
            .chars()
            .filter(|c| !matches!(c, '<' | '!' | '-' | '>'))
            .take_while(char::is_ascii_digit)
            .collect()
    }

    #[test]
    fn the_count_leaves_out_what_the_chosen_model_will_not_get() {
        // A held tool is never counted; a dotted name only where taken.
        assert_eq!(count(None, None), "3");
        let ollama = model(serde_json::json!({}));
        assert_eq!(count(Some(ollama), None), "3");
        let openai = model(serde_json::json!({"tool_names": {"max": 64}}));
        assert_eq!(
            count(Some(openai), None),
            "2",
            "OpenAI refuses `files__read.v2`"
        );
        let none = model(serde_json::json!({"no_tools": true}));
        assert_eq!(count(Some(none), None), "0");
        let refused_when_thinking =
            model(serde_json::json!({"no_tools_at": ["high"], "tool_names": {"max": 64}}));
        assert_eq!(
            count(Some(refused_when_thinking.clone()), None),
            "0",
            "its default is high"
        );
        assert_eq!(count(Some(refused_when_thinking), Some(Effort::Off)), "2");
    }

    #[test]
    fn only_a_held_tool_offers_to_allow_its_new_description() {
        let held = render(tool(true));
        assert!(held.contains("not offered to the model"), "{held}");
        assert!(held.contains("Allow its new description"), "{held}");
        let plain = render(tool(false));
        assert!(!plain.contains("Allow its new description"), "{plain}");
    }
}
