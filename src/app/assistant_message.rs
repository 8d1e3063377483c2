//! An assistant turn: its blocks in order (thinking, answer, thinking, …), the
//! waiting indicator, and the turn's outcome (error, stopped, no answer).

use leptos::prelude::*;

use super::browser;
use super::streaming_markdown::StreamingMarkdown;
use super::thinking_block::ThinkingBlock;
use super::turn_view::{BlockKind, BlockView, TurnView};
use crate::turn::reducer::TurnStatus;

/// An assistant turn as it streams or as replayed from history.
#[component]
pub fn AssistantMessage(
    /// The turn's signals.
    turn: TurnView,
    /// The page clock (ms).
    #[prop(into)]
    now: Signal<f64>,
    /// Offered on a failed or stopped turn (Retry) and on the last finished
    /// turn (Regenerate): send the same message again.
    #[prop(optional)]
    on_retry: Option<Callback<()>>,
    /// True for the conversation's last turn.
    #[prop(into, optional)]
    is_last: Signal<bool>,
) -> impl IntoView {
    let blocks = turn.blocks;
    let reasoning_tokens = Memo::new(move |_| turn.usage.get().and_then(|u| u.reasoning_tokens));
    let last_thinking_key = Memo::new(move |_| {
        blocks.with(|bs| {
            bs.iter()
                .rev()
                .find(|b| b.kind == BlockKind::Thinking)
                .map(|b| b.key)
        })
    });
    let followed = move |key: usize| {
        Signal::derive(move || {
            blocks.with(|bs| {
                bs.iter()
                    .position(|b| b.key == key)
                    .is_some_and(|i| i + 1 < bs.len())
            })
        })
    };
    let render_block = move |block: BlockView| match block.kind {
        BlockKind::Thinking => {
            let key = block.key;
            let tokens = Signal::derive(move || {
                (last_thinking_key.get() == Some(key))
                    .then(|| reasoning_tokens.get())
                    .flatten()
            });
            view! { <ThinkingBlock block followed=followed(key) now reasoning_tokens=tokens/> }
                .into_any()
        }
        BlockKind::Answer => view! {
            <div class="answer markdown" data-testid="answer">
                <StreamingMarkdown text=block.text/>
            </div>
        }
        .into_any(),
    };

    let any_visible_thinking = move || {
        blocks.with(|bs| {
            bs.iter().any(|b| {
                b.kind == BlockKind::Thinking
                    && (b.meta.with(|m| m.opaque) || b.text.with(|t| !t.trim().is_empty()))
            })
        })
    };
    let waiting = move || match turn.status.get() {
        TurnStatus::Waiting => true,
        TurnStatus::Thinking => !any_visible_thinking(),
        _ => false,
    };
    let waiting_label = move || {
        let seconds = ((now.get() - turn.started_at_ms.get()).max(0.0) / 1000.0).floor() as u64;
        format!("Thinking\u{2026} {seconds}s")
    };
    let answer_text = move || {
        blocks.with(|bs| {
            bs.iter()
                .filter(|b| b.kind == BlockKind::Answer)
                .map(|b| b.text.get())
                .collect::<String>()
        })
    };
    let no_answer =
        move || turn.status.get() == TurnStatus::Done && answer_text().trim().is_empty();
    // No block, but the provider counted reasoning: one header-only block.
    let hidden_reasoning = move || {
        let tokens = reasoning_tokens.get().filter(|n| *n > 0)?;
        if turn.status.get().is_live() || last_thinking_key.get().is_some() {
            return None;
        }
        let seconds = (turn.ttft_ms.get().unwrap_or(0) as f64 / 1000.0).round() as u64;
        Some(format!("Reasoned for {seconds}s \u{b7} {tokens} tokens"))
    };
    let retryable = move || {
        on_retry.is_some() && matches!(turn.status.get(), TurnStatus::Error | TurnStatus::Stopped)
    };
    let copied = RwSignal::new(false);
    let copy_answer = move |_| {
        browser::copy_to_clipboard(&answer_text());
        copied.set(true);
        set_timeout(move || copied.set(false), std::time::Duration::from_secs(2));
    };

    view! {
        <div class="message assistant" data-testid="assistant-message" data-status=move || status_name(turn.status.get())>
            {move || hidden_reasoning().map(|label| view! {
                <section class="thinking done" data-testid="thinking-block">
                    <div class="thinking-header-row">
                        <button class="thinking-header" disabled=true>
                            <span class="chevron" aria-hidden="true"></span>
                            <span class="thinking-label">{label}</span>
                        </button>
                    </div>
                </section>
            })}
            <For each=move || blocks.get() key=|b| b.key children=render_block/>
            <Show when=waiting>
                <div class="waiting-indicator" data-testid="waiting">
                    <span class="pulse" aria-hidden="true"></span>
                    {waiting_label}
                </div>
            </Show>
            <Show when=no_answer>
                <p class="turn-note">"The model finished thinking without an answer."</p>
            </Show>
            {move || turn.error.get().map(|e| view! {
                <p class="turn-error" role="alert" data-testid="turn-error">{e.message}</p>
            })}
            <Show when=move || turn.status.get() == TurnStatus::Stopped>
                <p class="turn-note" data-testid="turn-stopped">"Stopped."</p>
            </Show>
            <Show when=retryable>
                <div class="turn-actions">
                    <button class="copy-button" data-testid="retry" on:click=move |_| {
                        if let Some(retry) = on_retry {
                            retry.run(());
                        }
                    }>"Retry"</button>
                </div>
            </Show>
            <Show when=move || !turn.status.get().is_live() && !answer_text().trim().is_empty()>
                <div class="turn-actions">
                    <Show when=move || is_last.get() && on_retry.is_some() && turn.status.get() == TurnStatus::Done>
                        <button class="copy-button" data-testid="regenerate" on:click=move |_| {
                            if let Some(retry) = on_retry {
                                retry.run(());
                            }
                        }>"Regenerate"</button>
                    </Show>
                    <button class="copy-button" on:click=copy_answer>
                        {move || if copied.get() { "Copied" } else { "Copy answer" }}
                    </button>
                </div>
            </Show>
        </div>
    }
}

fn status_name(status: TurnStatus) -> &'static str {
    match status {
        TurnStatus::Waiting => "waiting",
        TurnStatus::Thinking => "thinking",
        TurnStatus::Answering => "answering",
        TurnStatus::Done => "done",
        TurnStatus::Error => "error",
        TurnStatus::Stopped => "stopped",
    }
}
