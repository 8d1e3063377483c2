//! A reasoning block: streams open with a live timer, folds when the answer
//! starts, and stays one click away (DESIGN §4).

use std::sync::atomic::{AtomicUsize, Ordering};

use leptos::html::Div;
use leptos::prelude::*;

use super::browser;
use super::headline::{last_line, strip_topics, HeadlineTracker};
use super::preferences::{use_fold_preference, FoldPreference};
use super::streaming_markdown::StreamingMarkdown;
use super::turn_view::{BlockView, ThinkingMeta};
use crate::turn::reducer::BlockState;

static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

/// The header text for a block at client time `now_ms`.
pub fn header_label(meta: &ThinkingMeta, now_ms: f64) -> String {
    match meta.state {
        BlockState::Streaming => {
            let seconds = ((now_ms - meta.started_at_ms).max(0.0) / 1000.0).floor() as u64;
            format!("Thinking\u{2026} {seconds}s")
        }
        BlockState::Interrupted => match meta.duration_ms {
            Some(ms) => format!("Stopped after {}", seconds_phrase(ms)),
            None => "Stopped".into(),
        },
        BlockState::Done => {
            let base = match meta.duration_ms {
                Some(ms) if ms < 1000 => "Thought for less than a second".to_owned(),
                Some(ms) => format!("Thought for {}", seconds_phrase(ms)),
                None => "Thought".to_owned(),
            };
            if meta.opaque {
                format!("{base} \u{b7} reasoning hidden by the provider")
            } else {
                base
            }
        }
    }
}

/// The header with the provider's reasoning-token count, when reported.
pub fn header_with_tokens(meta: &ThinkingMeta, now_ms: f64, tokens: Option<u64>) -> String {
    let label = header_label(meta, now_ms);
    match tokens {
        Some(n) if n > 0 && meta.state != BlockState::Streaming => {
            format!("{label} \u{b7} {n} tokens")
        }
        _ => label,
    }
}

fn seconds_phrase(ms: u64) -> String {
    format!("{}s", (ms as f64 / 1000.0).round() as u64)
}

/// A reasoning block: streams open, folds when the answer starts.
#[component]
pub fn ThinkingBlock(
    /// The block's signals, as the turn view keeps them.
    block: BlockView,
    /// True once another block follows this one (the answer started).
    #[prop(into)]
    followed: Signal<bool>,
    /// The page clock (ms), ticking while a turn streams.
    #[prop(into)]
    now: Signal<f64>,
    /// Reasoning tokens to show beside the duration (the turn's last block).
    #[prop(into, optional)]
    reasoning_tokens: Signal<Option<u64>>,
) -> impl IntoView {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let body_id = format!("thinking-body-{id}");
    let preference = use_fold_preference();
    let streaming_at_start = block
        .meta
        .with_untracked(|m| m.state == BlockState::Streaming);
    // Replayed blocks start folded; live ones open unless the user prefers folded.
    let open = RwSignal::new(
        streaming_at_start && preference.get_untracked() != FoldPreference::StartFolded,
    );
    // Fold once when the answer starts; never reopen by itself; clicks win.
    let auto_folded = StoredValue::new(!streaming_at_start);
    Effect::new(move |_| {
        if followed.get() && !auto_folded.get_value() {
            auto_folded.set_value(true);
            if preference.get_untracked() != FoldPreference::KeepOpen {
                open.set(false);
            }
        }
    });

    let opaque = Memo::new(move |_| block.meta.with(|m| m.opaque));
    let has_text = Memo::new(move |_| block.text.with(|t| !t.trim().is_empty()));
    let visible = move || opaque.get() || has_text.get();
    let label = Memo::new(move |_| {
        let meta = block.meta.get();
        let clock = if meta.state == BlockState::Streaming {
            now.get()
        } else {
            0.0
        };
        header_with_tokens(&meta, clock, reasoning_tokens.get())
    });
    let streaming = Memo::new(move |_| block.meta.with(|m| m.state == BlockState::Streaming));
    // The folded live preview: the latest headline, else the last line. The
    // tracker scans each line once, so this stays cheap as the text grows.
    let tracker = StoredValue::new(HeadlineTracker::default());
    let preview = Memo::new(move |_| {
        if open.get() || !streaming.get() {
            return None;
        }
        block.text.with(|text| {
            let headline = tracker.try_update_value(|t| t.update(text)).flatten();
            let line = headline.unwrap_or_else(|| strip_topics(last_line(text)));
            (!line.is_empty()).then_some(line)
        })
    });
    let state_class = move || match block.meta.with(|m| m.state) {
        BlockState::Streaming => "thinking streaming",
        BlockState::Done => "thinking done",
        BlockState::Interrupted => "thinking interrupted",
    };

    let body_ref = NodeRef::<Div>::new();
    let stick_to_bottom = StoredValue::new(true);
    // Where the reader had scrolled to, put back when the block is reopened.
    let reader_scroll_top = StoredValue::new(0);
    let restore_scroll = StoredValue::new(false);
    let on_scroll = move |_| {
        // Folding collapses the box to zero height, which scrolls it to 0 and
        // fires a scroll event: that is not the reader moving, so it must not
        // decide where the reopened body stands.
        if !open.get_untracked() {
            return;
        }
        if let Some(el) = body_ref.get_untracked() {
            reader_scroll_top.set_value(el.scroll_top());
            let at_bottom = el.scroll_height() - el.scroll_top() - el.client_height() < 24;
            stick_to_bottom.set_value(at_bottom);
        }
    };
    // Pinned to the bottom while the reader has not scrolled up, measured
    // right after the new text is in the page.
    let pin_to_bottom = Callback::new(move |_| {
        let restore = restore_scroll.get_value();
        restore_scroll.set_value(false);
        let Some(el) = body_ref.get_untracked() else {
            return;
        };
        if stick_to_bottom.get_value() {
            el.set_scroll_top(el.scroll_height());
        } else if restore {
            el.set_scroll_top(reader_scroll_top.get_value());
        }
    });

    let copied = RwSignal::new(false);
    let copy = move |_| {
        browser::copy_to_clipboard(&block.text.get_untracked());
        copied.set(true);
        set_timeout(move || copied.set(false), std::time::Duration::from_secs(2));
    };

    let body_id_attr = body_id.clone();
    view! {
        <Show when=visible>
            <section class=state_class data-testid="thinking-block">
                <div class="thinking-header-row">
                    <button
                        class="thinking-header"
                        aria-expanded=move || if opaque.get() { None } else { Some(open.get().to_string()) }
                        aria-controls=if block.meta.with_untracked(|m| m.opaque) { None } else { Some(body_id.clone()) }
                        disabled=move || opaque.get()
                        on:click=move |_| {
                            restore_scroll.set_value(!open.get_untracked());
                            open.update(|o| *o = !*o);
                        }
                    >
                        <span class="chevron" aria-hidden="true"></span>
                        <span class="thinking-label">{move || label.get()}</span>
                        {move || preview.get().map(|line| view! {
                            <span class="thinking-preview" data-testid="thinking-preview">{line}</span>
                        })}
                    </button>
                    <Show when=move || open.get() && has_text.get()>
                        <button class="copy-button" on:click=copy>
                            {move || if copied.get() { "Copied" } else { "Copy reasoning" }}
                        </button>
                    </Show>
                </div>
                <div
                    id=body_id_attr.clone()
                    class="thinking-body markdown"
                    role="region"
                    aria-label="Reasoning"
                    node_ref=body_ref
                    hidden=move || !open.get() || opaque.get()
                    inert=move || !open.get() || opaque.get()
                    on:scroll=on_scroll
                >
                    <StreamingMarkdown text=block.text active=open without_topics=true on_rendered=pin_to_bottom/>
                </div>
            </section>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(state: BlockState, duration_ms: Option<u64>, opaque: bool) -> ThinkingMeta {
        ThinkingMeta {
            duration_ms,
            opaque,
            state,
            started_at_ms: 1000.0,
        }
    }

    #[test]
    fn streaming_label_counts_whole_seconds_from_the_block_start() {
        assert_eq!(
            header_label(&meta(BlockState::Streaming, None, false), 8_999.0),
            "Thinking\u{2026} 7s"
        );
    }

    #[test]
    fn done_labels_use_the_server_duration() {
        assert_eq!(
            header_label(&meta(BlockState::Done, Some(12_400), false), 0.0),
            "Thought for 12s"
        );
        assert_eq!(
            header_label(&meta(BlockState::Done, Some(300), false), 0.0),
            "Thought for less than a second"
        );
        assert_eq!(
            header_label(&meta(BlockState::Done, None, false), 0.0),
            "Thought"
        );
        assert_eq!(
            header_label(&meta(BlockState::Done, Some(8_000), true), 0.0),
            "Thought for 8s \u{b7} reasoning hidden by the provider"
        );
    }

    #[test]
    fn interrupted_label_says_stopped() {
        assert_eq!(
            header_label(&meta(BlockState::Interrupted, Some(9_200), false), 0.0),
            "Stopped after 9s"
        );
    }
}
