//! The end of an assistant turn, once it has something to say about how it
//! went: the note of an empty turn, the error, the cut at the output limit
//! (with Continue on the last turn), the time and model lines, "Stopped."
//! and the turn's actions (Retry, Regenerate, Copy answer).

use leptos::prelude::*;

use super::turn_view::{BlockKind, TurnView};
use super::use_copy::{use_copy, UseCopyReturn};
use crate::turn::reducer::{is_empty_reasoning, EmptyOutcome, TurnStatus};
use crate::turn::turn_footer::{time_line_of, TimedPart};

/// The notes and actions under a turn's blocks.
#[component]
pub fn TurnFooter(
    /// The turn's signals.
    turn: TurnView,
    /// True for the conversation's last turn (Continue and Regenerate).
    #[prop(into)]
    is_last: Signal<bool>,
    /// Retry (after an error or a stop) and Regenerate (after a whole answer).
    on_retry: Option<Callback<()>>,
    /// "Continue" for the last turn when its answer was cut at the output limit.
    on_continue: Option<Callback<()>>,
) -> impl IntoView {
    let blocks = turn.blocks;
    let reasoning_tokens = Memo::new(move |_| turn.usage.get().and_then(|u| u.reasoning_tokens));
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
        {turn_note(
            "turn-note",
            "empty-outcome",
            move || empty_outcome.get().map(|outcome| outcome.note()),
        )}
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
        {turn_note("turn-note turn-cut", "cut-off", cut_note)}
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
        {turn_note("turn-note turn-times", "turn-times", time_line)}
        {turn_note("turn-note turn-model", "turn-model", model_line)}
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
    }
}

/// A note under the turn (`<p class=…>`), shown while `text` has one.
pub fn turn_note<T, F>(class: &'static str, testid: &'static str, text: F) -> impl IntoView
where
    T: IntoView + 'static,
    F: Fn() -> Option<T> + Send + Sync + 'static,
{
    move || {
        text().map(|text| {
            view! {
                <p class=class data-testid=testid>
                    {text}
                </p>
            }
        })
    }
}

/// The footer rendered on the server for turns that ended in different ways.
#[cfg(all(test, feature = "ssr"))]
mod render_tests {
    use super::*;
    use crate::app::thinking_block::render_tests::text_of;
    use crate::turn::reducer::Turn;
    use crate::turn::TurnEvent;

    fn render(events: Vec<TurnEvent>, is_last: bool, stop: bool) -> String {
        Owner::new().with(|| {
            let mut turn = Turn::new(0.0);
            for (i, event) in events.into_iter().enumerate() {
                turn.apply(event, 1_000.0 + i as f64);
            }
            if stop {
                turn.stop(5_000.0);
            }
            let turn = TurnView::new(&turn);
            let on_retry = Some(Callback::new(|_| {}));
            view! { <TurnFooter turn is_last on_retry on_continue=None /> }.to_html()
        })
    }

    fn answered() -> Vec<TurnEvent> {
        vec![
            TurnEvent::AnswerDelta {
                text: "Blue.".into(),
            },
            TurnEvent::Done {
                finish_reason: Some("stop".into()),
                output_limit: None,
            },
        ]
    }

    #[test]
    fn a_whole_answer_offers_regenerate_on_the_last_turn_and_copy_on_every_turn() {
        let html = render(answered(), true, false);
        assert!(html.contains("data-testid=\"regenerate\""), "{html}");
        assert!(text_of(&html).contains("Copy answer"), "{html}");
        assert!(!html.contains("data-testid=\"retry\""), "{html}");
        let html = render(answered(), false, false);
        assert!(!html.contains("data-testid=\"regenerate\""), "{html}");
        assert!(text_of(&html).contains("Copy answer"), "{html}");
    }

    #[test]
    fn a_stopped_turn_says_so_and_offers_retry() {
        let html = render(
            vec![TurnEvent::AnswerDelta {
                text: "Half".into(),
            }],
            true,
            true,
        );
        assert!(html.contains("data-testid=\"turn-stopped\""), "{html}");
        assert!(html.contains("data-testid=\"retry\""), "{html}");
        assert!(!html.contains("data-testid=\"regenerate\""), "{html}");
    }
}
