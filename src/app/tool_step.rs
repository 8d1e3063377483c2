//! A tool step in the turn's timeline (design §4): the tool and its server,
//! its state and server-measured duration in a header that folds; its
//! arguments (as they stream in, or whole) and its result one click away,
//! folded by default. Everything a tool or a model wrote here is untrusted
//! text: Leptos escapes it, no markup is ever interpreted.

use std::sync::atomic::{AtomicUsize, Ordering};

use leptos::prelude::*;

use super::disclosure::DisclosureButton;
use super::trusted_html::decoration;
use super::turn_view::BlockView;
use crate::turn::duration::{format_duration, DurationStyle};
use crate::turn::reducer::{ToolState, ToolStep};
use crate::turn::tool::HELD_REASON;
use crate::turn::Decision;

static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

/// The answers to a call that asks first: the decision, its test id, its words.
const CHOICES: [(Decision, &str, &str); 3] = [
    (Decision::AllowOnce, "allow-once", "Allow once"),
    (
        Decision::AllowConversation,
        "allow-conversation",
        "Allow in this conversation",
    ),
    (Decision::Deny, "deny", "Deny"),
];

/// How much of a result the step shows before "Show all" (4 KB).
pub const SHOWN_OUTPUT_BYTES: usize = 4 * 1024;

/// The header's words for a step: "calculate · builtin · done · 0.1s".
pub fn header_parts(step: &ToolStep) -> (String, String, String) {
    let tool = step.tool_name();
    let mut state = step.state.label().to_owned();
    if let Some(ms) = step.duration_ms {
        state.push_str(" \u{b7} ");
        state.push_str(&format_duration(ms as f64, DurationStyle::Tenths));
    }
    (tool.to_owned(), step.server.clone(), state)
}

/// The first `max` bytes of `text`, cut at a char boundary, and whether it was cut.
pub fn head_of(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

fn state_name(state: ToolState) -> &'static str {
    use crate::turn::ToolStatus::*;
    match state {
        ToolState::Running => "running",
        ToolState::Waiting => "waiting",
        ToolState::Ended(Ok) => "done",
        ToolState::Ended(Error) => "failed",
        ToolState::Ended(Denied) => "denied",
        ToolState::Ended(Timeout) => "timeout",
        ToolState::Ended(Cancelled) => "cancelled",
    }
}

/// One tool step.
#[component]
pub fn ToolStepView(
    /// The block's signals: `tool` holds the step, `text` its arguments.
    block: BlockView,
    /// Answers a call that asks first (the live turn's).
    #[prop(optional_no_strip)]
    on_decide: Option<Callback<Decision>>,
    /// True while the step belongs to the live turn: only then do its
    /// buttons show.
    #[prop(into, optional)]
    live: Signal<bool>,
) -> impl IntoView {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let body_id = format!("tool-body-{id}");
    let open = RwSignal::new(false);
    let show_all = RwSignal::new(false);
    let step = block.tool;
    let parts = Memo::new(move |_| step.with(|s| s.as_ref().map(header_parts)));
    let state = Memo::new(move |_| step.with(|s| s.as_ref().map(|s| s.state)));
    let streamed = Memo::new(move |_| step.with(|s| s.as_ref().is_some_and(|s| s.streamed)));
    let held = Memo::new(move |_| step.with(|s| s.as_ref().is_some_and(|s| s.held)));
    let output = move || step.with(|s| s.as_ref().and_then(|s| s.output.clone()));
    let truncated = move || step.with(|s| s.as_ref().map_or(0, |s| s.truncated_bytes));
    // A dialect that sends a call whole (Gemini, Ollama) never streams it: say so.
    let arguments_label = move || {
        if streamed.get() {
            "Arguments"
        } else {
            "Arguments (arrived complete)"
        }
    };
    let shown_output = move || {
        let text = output()?;
        let (head, cut) = head_of(&text, SHOWN_OUTPUT_BYTES);
        Some(if show_all.get() || !cut {
            (text.clone(), None)
        } else {
            (head.to_owned(), Some(text.len()))
        })
    };
    // A call that asks first shows its complete arguments and the choice;
    // once answered, the buttons go (the result says how it ended).
    let waiting = Memo::new(move |_| state.get() == Some(ToolState::Waiting));
    let decided = RwSignal::new(false);
    let decide = move |decision: Decision| {
        if let Some(decide) = on_decide {
            decided.set(true);
            decide.run(decision);
        }
    };
    let shown = move || open.get() || waiting.get();
    let body_id_attr = body_id.clone();
    view! {
        <section
            class="tool-step"
            data-testid="tool-step"
            data-state=move || state.get().map(state_name).unwrap_or("running")
        >
            <DisclosureButton
                class="tool-step-header"
                expanded=Signal::derive(move || Some(shown()))
                controls=Some(body_id)
                on_toggle=Some(Callback::new(move |_| open.update(|o| *o = !*o)))
            >
                {decoration("tool-icon")}
                <span class="tool-name" data-testid="tool-name">
                    {move || parts.get().map(|p| p.0).unwrap_or_default()}
                </span>
                <span class="tool-server" data-testid="tool-server">
                    {move || parts.get().map(|p| p.1).unwrap_or_default()}
                </span>
                <span class="tool-state" data-testid="tool-state">
                    {move || parts.get().map(|p| p.2).unwrap_or_default()}
                </span>
            </DisclosureButton>
            <div
                class="tool-step-body"
                id=body_id_attr
                hidden=move || !shown()
                inert=move || !shown()
            >
                <Show when=move || {
                    waiting.get() && live.get() && on_decide.is_some() && !decided.get()
                }>
                    <div class="tool-approval" role="group" aria-label="Run this tool?">
                        <Show when=move || held.get()>
                            <p class="tool-held" data-testid="tool-held">
                                {HELD_REASON}
                            </p>
                        </Show>
                        <p class="tool-approval-text" data-testid="tool-approval">
                            {move || {
                                parts
                                    .get()
                                    .map(|(tool, server, _)| {
                                        format!(
                                            "The model wants to run {tool} from the {server} server with these arguments.",
                                        )
                                    })
                            }}
                        </p>
                        <div class="turn-actions">
                            {CHOICES
                                .iter()
                                .map(|&(decision, testid, label)| {
                                    view! {
                                        <button
                                            class="copy-button"
                                            data-testid=testid
                                            on:click=move |_| decide(decision)
                                        >
                                            {label}
                                        </button>
                                    }
                                })
                                .collect_view()}
                        </div>
                    </div>
                </Show>
                <p class="tool-label">{arguments_label}</p>
                <pre class="tool-arguments" data-testid="tool-arguments" tabindex="0">
                    {move || block.text.get()}
                </pre>
                {move || {
                    shown_output()
                        .map(|(text, whole)| {
                            view! {
                                <p class="tool-label">"Result"</p>
                                <pre class="tool-output" data-testid="tool-output" tabindex="0">
                                    {text}
                                </pre>
                                {whole
                                    .map(|bytes| {
                                        view! {
                                            <button
                                                class="copy-button"
                                                data-testid="tool-show-all"
                                                on:click=move |_| show_all.set(true)
                                            >
                                                {format!("Show all ({} KB)", bytes.div_ceil(1024))}
                                            </button>
                                        }
                                    })}
                            }
                        })
                }}
                {move || {
                    let cut = truncated();
                    (cut > 0)
                        .then(|| {
                            view! {
                                <p class="tool-label" data-testid="tool-truncated">
                                    {format!(
                                        "{cut} more bytes were cut before the model saw them.",
                                    )}
                                </p>
                            }
                        })
                }}
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::ToolStatus;

    fn step(state: ToolState, duration_ms: Option<u64>) -> ToolStep {
        ToolStep {
            id: "c1".into(),
            name: "builtin__calculate".into(),
            server: "builtin".into(),
            arguments: "{}".into(),
            streamed: false,
            state,
            held: false,
            digest: String::new(),
            output: None,
            truncated_bytes: 0,
            duration_ms,
        }
    }

    #[test]
    fn the_header_names_the_tool_its_server_state_and_time() {
        let (tool, server, state) =
            header_parts(&step(ToolState::Ended(ToolStatus::Ok), Some(140)));
        assert_eq!(tool, "calculate");
        assert_eq!(server, "builtin");
        assert_eq!(state, "done \u{b7} 0.1s");
        let (_, _, state) = header_parts(&step(ToolState::Waiting, None));
        assert_eq!(state, "waiting for your approval");
    }

    #[test]
    fn a_long_result_shows_its_head_cut_at_a_char_boundary() {
        assert_eq!(head_of("short", 10), ("short", false));
        let text = "é".repeat(10); // 20 bytes
        let (head, cut) = head_of(&text, 5);
        assert!(cut);
        assert_eq!(head, "éé");
    }
}
