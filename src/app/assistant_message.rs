//! An assistant turn: its blocks in order (thinking, answer, thinking, …), the
//! waiting indicator, and the turn's outcome (error, stopped, no answer).

use leptos::prelude::*;

use super::streaming_markdown::StreamingMarkdown;
use super::thinking_block::ThinkingBlock;
use super::thinking_header::ThinkingHeader;
use super::tool_step::ToolStepView;
use super::trusted_html::decoration;
use super::turn_footer::{turn_note, TurnFooter};
use super::turn_view::{BlockKind, BlockView, TurnView};
use super::use_thinking_fold::use_thinking_fold;
use crate::turn::duration::{
    format_duration,
    DurationStyle::{Clock, Seconds},
};
use crate::turn::reducer::{is_shown, TurnStatus};
use crate::turn::tool::ShownCall;
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
    /// The user's decision on a call that asks first (the call as its step
    /// showed it, the decision). Offered on the live turn only.
    #[prop(optional)]
    on_decide: Option<Callback<(ShownCall, Decision)>>,
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
            // Only the live turn's steps can be decided on: a stored or
            // imported step left "waiting" shows no buttons.
            let live = Signal::derive(move || is_last.get() && turn.status.get().is_live());
            let step = block.tool;
            let on_decide = on_decide.map(|decide| {
                Callback::new(move |decision| {
                    // The step as the user sees it when they click.
                    if let Some(call) = step.with_untracked(|s| s.as_ref().map(|s| s.shown_call()))
                    {
                        decide.run((call, decision));
                    }
                })
            });
            view! { <ToolStepView block on_decide live /> }.into_any()
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
                                    <ThinkingHeader label />
                                </div>
                            </section>
                        }
                    })
            }}
            <For each=move || blocks.get() key=|b| b.key children=render_block />
            {turn_note("turn-note turn-tokens", "reasoning-tokens", tokens_note)}
            <Show when=waiting>
                <div class="waiting-indicator" data-testid="waiting">
                    {decoration("pulse")}
                    {waiting_label}
                </div>
            </Show>
            <TurnFooter turn is_last on_retry on_continue />
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

    /// The turn of `events` with a decision callback, `is_last` as given.
    fn render_decidable(events: Vec<TurnEvent>, is_last: bool, done_after: bool) -> String {
        Owner::new().with(|| {
            let mut turn = Turn::new(0.0);
            for event in events {
                turn.apply(event, 1_000.0);
            }
            if done_after {
                // As stored, or imported: a step left waiting in an ended turn.
                turn.status = crate::turn::reducer::TurnStatus::Done;
            }
            let view = TurnView::new(&turn);
            let on_decide = Callback::new(|_: (ShownCall, Decision)| {});
            view! { <AssistantMessage turn=view now=2_000.0 is_last on_decide /> }.to_html()
        })
    }

    fn waiting_write() -> Vec<TurnEvent> {
        vec![
            TurnEvent::ToolCallStart {
                id: "c1".into(),
                name: "files__write_file".into(),
                server: "files".into(),
            },
            TurnEvent::ToolCallReady {
                id: "c1".into(),
                arguments: serde_json::json!({"path": "notes.txt"}),
                approval: crate::turn::Approval::Needed,
                digest: "sha256:d".into(),
            },
        ]
    }

    #[test]
    fn only_the_live_turns_waiting_step_offers_allow_and_deny() {
        let live = render_decidable(waiting_write(), true, false);
        assert!(live.contains("data-testid=\"allow-once\""), "{live}");
        assert!(live.contains("data-testid=\"deny\""), "{live}");
        let earlier = render_decidable(waiting_write(), false, false);
        assert!(!earlier.contains("data-testid=\"allow-once\""), "{earlier}");
        let stored = render_decidable(waiting_write(), true, true);
        assert!(stored.contains("data-state=\"waiting\""), "{stored}");
        assert!(!stored.contains("data-testid=\"allow-once\""), "{stored}");
        assert!(!stored.contains("data-testid=\"deny\""), "{stored}");
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

    #[test]
    fn reasoning_counted_without_a_block_is_one_disabled_header() {
        let html = render(
            vec![
                TurnEvent::AnswerDelta { text: "42".into() },
                TurnEvent::Usage(Usage {
                    reasoning_tokens: Some(640),
                    ..Usage::default()
                }),
                done(),
            ],
            5_000.0,
        );
        let header =
            crate::app::thinking_block::render_tests::open_tag(&html, "class=\"thinking-header\"")
                .unwrap_or_default();
        assert!(header.contains("disabled"), "{header}");
        assert!(!header.contains("aria-expanded"), "{header}");
        assert!(
            text_of(&html).starts_with("Reasoned for 1s \u{b7} 640 tokens"),
            "{html}"
        );
        assert!(
            !html.contains("reasoning-tokens"),
            "said in the header, not again"
        );
    }
}
