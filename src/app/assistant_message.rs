//! An assistant turn: its blocks in order (thinking, answer, thinking, …), the
//! waiting indicator, and the turn's outcome (error, stopped, no answer).

use leptos::prelude::*;

use super::streaming_markdown::StreamingMarkdown;
use super::thinking_block::ThinkingBlock;
use super::tool_step::ToolStepView;
use super::trusted_html::decoration;
use super::turn_view::{BlockKind, BlockView, TurnView};
use super::use_copy::{use_copy, UseCopyReturn};
use super::use_thinking_fold::use_thinking_fold;
use crate::turn::duration::{
    format_duration,
    DurationStyle::{Clock, Seconds},
};
use crate::turn::reducer::{is_empty_reasoning, is_shown, EmptyOutcome, TurnStatus};
use crate::turn::turn_footer::{time_line_of, TimedPart};
use crate::turn::{Decision, ReasoningSource};

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
    /// "Answer now" for the live turn's thinking block.
    #[prop(optional)]
    on_answer_now: Option<Callback<()>>,
    /// "Continue" for the last turn when its answer was cut at the output limit.
    #[prop(optional)]
    on_continue: Option<Callback<()>>,
    /// The user's decision on a call that asks first (its id, the decision).
    #[prop(optional)]
    on_decide: Option<Callback<(String, Decision)>>,
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
    // True once another block follows block `key`: for a thinking block the
    // answer has started; for an answer block its text is whole.
    let followed_by_another = move |key: usize| {
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
            let answer_started = followed_by_another(key);
            let open = use_thinking_fold(block, answer_started);
            let effort = turn.effort;
            // Only the last turn can be the one streaming.
            let on_answer_now = on_answer_now.filter(|_| is_last.get_untracked());
            view! { <ThinkingBlock block open now effort on_answer_now /> }.into_any()
        }
        BlockKind::Answer => {
            // Its text is whole once the turn has ended or a block follows it.
            let followed = followed_by_another(block.key);
            let finished = Signal::derive(move || !turn.status.get().is_live() || followed.get());
            view! {
                <div class="answer markdown" data-testid="answer">
                    <StreamingMarkdown text=block.text finished />
                </div>
            }
            .into_any()
        }
        BlockKind::Tool => {
            let call_id = block
                .tool
                .with_untracked(|s| s.as_ref().map(|s| s.id.clone()));
            let on_decide = on_decide.zip(call_id).map(|(decide, call_id)| {
                Callback::new(move |decision| decide.run((call_id.clone(), decision)))
            });
            view! { <ToolStepView block on_decide /> }.into_any()
        }
    };

    // The same rule the block itself follows: a streaming block shows its own
    // live header (hidden reasoning included), so the turn's indicator steps aside.
    let any_visible_thinking = move || {
        blocks.with(|bs| {
            bs.iter().any(|b| {
                b.kind == BlockKind::Thinking
                    && b.meta
                        .with(|m| b.text.with(|t| is_shown(m.state, t, m.opaque)))
            })
        })
    };
    // The last block is a tool step: `Some(true)` while it runs or waits
    // (the step shows that itself), `Some(false)` once it ended (the model
    // is at work again: the turn's indicator shows).
    let last_tool_open = move || {
        blocks.with(|bs| {
            bs.last()
                .filter(|b| b.kind == BlockKind::Tool)
                .map(|b| b.tool.with(|s| s.as_ref().is_none_or(|s| s.is_open())))
        })
    };
    let waiting = move || match (turn.status.get(), last_tool_open()) {
        (status, _) if !status.is_live() => false,
        (_, Some(open)) => !open,
        (TurnStatus::Waiting, None) => true,
        (TurnStatus::Thinking, None) => !any_visible_thinking(),
        _ => false,
    };
    // After "Answer now" the turn waits for its answer, not for more thinking.
    let cut_short = move || {
        blocks.with(|bs| {
            bs.last().is_some_and(|b| {
                b.kind == BlockKind::Thinking
                    && b.meta
                        .with(|m| m.source.is_some_and(ReasoningSource::is_cut_short))
            })
        })
    };
    let waiting_label = move || {
        let elapsed = now.get() - turn.started_at_ms.get();
        let doing = if cut_short() { "Answering" } else { "Thinking" };
        format!("{doing}\u{2026} {}", format_duration(elapsed, Clock))
    };
    let answer_text = move || {
        blocks.with(|bs| {
            bs.iter()
                .filter(|b| b.kind == BlockKind::Answer)
                .map(|b| b.text.get())
                .collect::<String>()
        })
    };
    // Which note an ended turn without answer text gets: only a model that
    // reasoned "finished thinking" (design §4); under the kill switch no
    // reasoning reaches the browser, so that note never mentions thinking.
    let empty_outcome = Memo::new(move |_| {
        // No note while events may arrive: reading the texts only once the
        // turn has ended keeps a streaming chunk from re-reading the answer.
        if turn.status.get().is_live() {
            return None;
        }
        let reasoned = blocks.with(|bs| {
            bs.iter().any(|b| {
                b.kind == BlockKind::Thinking
                    && b.meta
                        .with(|m| b.text.with(|t| !is_empty_reasoning(t, m.opaque)))
            })
        });
        EmptyOutcome::of(
            turn.status.get(),
            &answer_text(),
            reasoned,
            reasoning_tokens.get(),
        )
    });
    // No block, but the provider counted reasoning: one header-only block.
    let hidden_reasoning = move || {
        let tokens = reasoning_tokens.get().filter(|n| *n > 0)?;
        if turn.status.get().is_live() || last_thinking_key.get().is_some() {
            return None;
        }
        // The provider never said when reasoning ended: the wait for the
        // first event stands in, as the stopped waiting timer read.
        let ttft = turn.ttft_ms.get().unwrap_or(0) as f64;
        Some(format!(
            "Reasoned for {} \u{b7} {tokens} tokens",
            format_duration(ttft, Seconds)
        ))
    };
    // The turn's reasoning tokens, once, under its blocks (a turn without a
    // block says them in its "Reasoned for" line instead).
    let tokens_note = move || {
        if turn.status.get().is_live() || last_thinking_key.get().is_none() {
            return None;
        }
        let tokens = reasoning_tokens.get().filter(|n| *n > 0)?;
        Some(format!("{tokens} reasoning tokens"))
    };
    let retryable = move || {
        on_retry.is_some() && matches!(turn.status.get(), TurnStatus::Error | TurnStatus::Stopped)
    };
    // Cut at the output limit: the note, and Continue on the last turn.
    let cut_note = move || {
        if turn.status.get() != TurnStatus::Done {
            return None;
        }
        turn.cut_note.get()
    };
    let continuable = move || cut_note().is_some() && is_last.get() && on_continue.is_some();
    let continue_answer = move |_| {
        if let Some(go_on) = on_continue {
            go_on.run(());
        }
    };
    // Thinking and tool time apart, once the turn has ended ("Thought 14s
    // · 3 tools 4.1s"); only for a turn that used tools.
    let time_line = move || {
        if turn.status.get().is_live() {
            return None;
        }
        blocks.with(|bs| {
            time_line_of(bs.iter().filter_map(|b| match b.kind {
                BlockKind::Thinking => b.meta.with(|m| {
                    b.text
                        .with(|t| !is_empty_reasoning(t, m.opaque))
                        .then_some(TimedPart::Thought(m.duration_ms))
                }),
                BlockKind::Tool => Some(TimedPart::Tool(
                    b.tool.with(|s| s.as_ref().and_then(|s| s.duration_ms)),
                )),
                BlockKind::Answer => None,
            }))
        })
    };
    // Who wrote the turn, once it has ended.
    let model_line = move || {
        if turn.status.get().is_live() {
            return None;
        }
        turn.model_line.get_value()
    };
    let UseCopyReturn { copied, copy } = use_copy();
    let copy_answer = move |_| copy.run(answer_text());
    // Retry (after an error or a stop) and Regenerate (after a whole answer)
    // ask the same thing: this turn again.
    let retry = move |_| {
        if let Some(retry) = on_retry {
            retry.run(());
        }
    };

    view! {
        <div
            class="message assistant"
            data-testid="assistant-message"
            data-status=move || status_name(turn.status.get())
        >
            {move || {
                hidden_reasoning()
                    .map(|label| {
                        view! {
                            <section class="thinking done" data-testid="thinking-block">
                                <div class="thinking-header-row">
                                    <button class="thinking-header" disabled=true>
                                        {decoration("chevron")}
                                        <span class="thinking-label">{label}</span>
                                    </button>
                                </div>
                            </section>
                        }
                    })
            }}
            <For each=move || blocks.get() key=|b| b.key children=render_block />
            {move || {
                tokens_note()
                    .map(|note| {
                        view! {
                            <p class="turn-note turn-tokens" data-testid="reasoning-tokens">
                                {note}
                            </p>
                        }
                    })
            }}
            <Show when=waiting>
                <div class="waiting-indicator" data-testid="waiting">
                    {decoration("pulse")}
                    {waiting_label}
                </div>
            </Show>
            {move || {
                empty_outcome
                    .get()
                    .map(|outcome| {
                        view! {
                            <p class="turn-note" data-testid="empty-outcome">
                                {outcome.note()}
                            </p>
                        }
                    })
            }}
            {move || {
                turn.error
                    .get()
                    .map(|e| {
                        view! {
                            <p class="turn-error" role="alert" data-testid="turn-error">
                                {e.message}
                            </p>
                        }
                    })
            }}
            {move || {
                cut_note()
                    .map(|note| {
                        view! {
                            <p class="turn-note turn-cut" data-testid="cut-off">
                                {note}
                            </p>
                        }
                    })
            }}
            <Show when=continuable>
                <div class="turn-actions">
                    <button
                        class="copy-button"
                        data-testid="continue"
                        title="Ask the model to go on from where it stopped"
                        on:click=continue_answer
                    >
                        "Continue"
                    </button>
                </div>
            </Show>
            {move || {
                time_line()
                    .map(|line| {
                        view! {
                            <p class="turn-note turn-times" data-testid="turn-times">
                                {line}
                            </p>
                        }
                    })
            }}
            {move || {
                model_line()
                    .map(|line| {
                        view! {
                            <p class="turn-note turn-model" data-testid="turn-model">
                                {line}
                            </p>
                        }
                    })
            }}
            <Show when=move || turn.status.get() == TurnStatus::Stopped>
                <p class="turn-note" data-testid="turn-stopped">
                    "Stopped."
                </p>
            </Show>
            <Show when=retryable>
                <div class="turn-actions">
                    <button class="copy-button" data-testid="retry" on:click=retry>
                        "Retry"
                    </button>
                </div>
            </Show>
            <Show when=move || !turn.status.get().is_live() && !answer_text().trim().is_empty()>
                <div class="turn-actions">
                    <Show when=move || {
                        is_last.get() && on_retry.is_some() && turn.status.get() == TurnStatus::Done
                    }>
                        <button class="copy-button" data-testid="regenerate" on:click=retry>
                            "Regenerate"
                        </button>
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

/// The turn rendered on the server: which note an empty turn gets, and who
/// shows the live timer while reasoning is hidden.
#[cfg(all(test, feature = "ssr"))]
mod render_tests {
    use super::*;
    use crate::app::thinking_block::render_tests::text_of;
    use crate::turn::reducer::Turn;
    use crate::turn::{TurnEvent, Usage};

    fn render(events: Vec<TurnEvent>, now: f64) -> String {
        Owner::new().with(|| {
            let mut turn = Turn::new(0.0);
            for (i, event) in events.into_iter().enumerate() {
                turn.apply(event, 1_000.0 + i as f64);
            }
            let view = TurnView::new(&turn);
            view! { <AssistantMessage turn=view now=now /> }.to_html()
        })
    }
    fn done() -> TurnEvent {
        TurnEvent::Done {
            finish_reason: Some("stop".into()),
            output_limit: None,
        }
    }

    #[test]
    fn an_empty_answer_without_reasoning_never_mentions_thinking() {
        // Also what the kill switch delivers: usage without a reasoning count.
        for events in [
            vec![done()],
            vec![TurnEvent::Usage(Usage::default()), done()],
            vec![
                TurnEvent::ThinkingStart,
                TurnEvent::ThinkingDelta {
                    text: "\n\n".into(),
                },
                TurnEvent::ThinkingEnd {
                    duration_ms: 3,
                    opaque: false,
                },
                done(),
            ],
        ] {
            let text = text_of(&render(events.clone(), 5_000.0));
            assert_eq!(text, "The model returned an empty answer.", "{events:?}");
            assert!(!text.to_lowercase().contains("think"), "{text}");
        }
    }

    #[test]
    fn reasoning_without_an_answer_gets_the_fallback_and_keeps_the_block() {
        let html = render(
            vec![
                TurnEvent::ThinkingStart,
                TurnEvent::ThinkingDelta {
                    text: "Let me think.".into(),
                },
                TurnEvent::ThinkingEnd {
                    duration_ms: 2_000,
                    opaque: false,
                },
                done(),
            ],
            5_000.0,
        );
        let text = text_of(&html);
        assert!(
            text.contains("The model finished thinking without an answer."),
            "{text}"
        );
        assert!(!text.contains("empty answer"), "{text}");
        assert!(html.contains("data-testid=\"thinking-block\""), "{html}");
    }

    #[test]
    fn hidden_reasoning_has_its_own_live_header_instead_of_the_waiting_line() {
        let html = render(vec![TurnEvent::ThinkingStart], 5_500.0);
        assert!(!html.contains("data-testid=\"waiting\""), "{html}");
        assert_eq!(text_of(&html), "Thinking\u{2026} 4s");
        // Before any event the turn's own indicator shows.
        let html = render(vec![], 5_500.0);
        assert!(html.contains("data-testid=\"waiting\""), "{html}");
        assert!(!html.contains("empty answer"), "{html}");
    }
}
