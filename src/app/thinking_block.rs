//! A reasoning block: streams open with a live timer, folds when the answer
//! starts, and stays one click away (design §4). Its header names it by its
//! latest headline (`<topic>` label or bold-only line) while it streams and
//! afterwards; a block whose reasoning the provider hides shows a live header
//! from its first signal, with nothing to expand.

use std::sync::atomic::{AtomicUsize, Ordering};

use leptos::html::Div;
use leptos::prelude::*;

use super::headline::{last_line, strip_topics};
use super::scroll_pin::Pin;
use super::streaming_markdown::StreamingMarkdown;
use super::thinking_header::ThinkingHeader;
use super::turn_view::{BlockView, ThinkingMeta};
use super::use_copy::{use_copy, UseCopyReturn};
use crate::turn::block_label::{ended_label, source_note};
use crate::turn::duration::{format_duration, DurationStyle::Clock};
use crate::turn::reducer::{is_shown, BlockState};
use crate::turn::{Effort, ReasoningSource};

static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

/// The header text for a block at client time `now_ms`: its live timer
/// while it streams, then how it ended (`block_label`).
pub fn header_label(meta: &ThinkingMeta, now_ms: f64) -> String {
    match meta.state {
        BlockState::Streaming => format!(
            "Thinking\u{2026} {}",
            format_duration(now_ms - meta.started_at_ms, Clock)
        ),
        _ => ended_label(meta),
    }
}

/// The header with the effort the turn was asked at, once the block has
/// ended ("Thought for 12s · low effort"). Reasoning tokens belong to the
/// turn (its footer), never to one block.
pub fn header_with_effort(meta: &ThinkingMeta, now_ms: f64, effort: Option<Effort>) -> String {
    let label = header_label(meta, now_ms);
    match effort {
        Some(effort) if meta.state != BlockState::Streaming => {
            format!("{label} \u{b7} {effort} effort")
        }
        _ => label,
    }
}

/// A reasoning block: streams open, folds when the answer starts.
#[component]
pub fn ThinkingBlock(
    /// The block's signals, as the turn view keeps them.
    block: BlockView,
    /// Open or folded, owned by the turn that lists the block: the header's
    /// clicks and the fold policy (`use_thinking_fold`) both write here.
    open: RwSignal<bool>,
    /// The page clock (ms), ticking while a turn streams.
    #[prop(into)]
    now: Signal<f64>,
    /// The effort the turn was asked at, named once the block has ended.
    #[prop(optional_no_strip)]
    effort: Option<Effort>,
    /// "Answer now": offered while the block streams in the live turn.
    #[prop(optional_no_strip)]
    on_answer_now: Option<Callback<()>>,
) -> impl IntoView {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let body_id = format!("thinking-body-{id}");
    let has_text = Memo::new(move |_| block.text.with(|t| !t.trim().is_empty()));
    // Shown while it streams, even before any text (hidden reasoning), and
    // afterwards unless it ended empty (design §3).
    let visible = Memo::new(move |_| {
        block
            .meta
            .with(|m| block.text.with(|t| is_shown(m.state, t, m.opaque)))
    });
    // Only readable text can be unfolded: an opaque block, or one whose
    // reasoning has not shown any text yet, is a header alone.
    let expandable = has_text;
    let label = Memo::new(move |_| {
        let meta = block.meta.get();
        let clock = if meta.state == BlockState::Streaming {
            now.get()
        } else {
            0.0
        };
        header_with_effort(&meta, clock, effort)
    });
    let streaming = Memo::new(move |_| block.meta.with(|m| m.state == BlockState::Streaming));
    // Where the text comes from, the header's accessible description: read
    // after its name ("Thought for 12s") without changing the words shown
    // (the label itself says "Cut short" and "hidden by the provider"). An
    // attribute, not a hidden element, so it takes no place in the layout.
    let source = Memo::new(move |_| block.meta.with(source_note));
    // llama.cpp's control failed, so "Answer now" asked again: say so.
    let control_failed = Memo::new(move |_| {
        block
            .meta
            .with(|m| m.source == Some(ReasoningSource::AskedAgain))
    });
    // Offered until pressed; gone once the thinking was cut short or ended.
    let answer_now_pressed = RwSignal::new(false);
    let offer_answer_now = Memo::new(move |_| {
        on_answer_now.is_some()
            && streaming.get()
            && block
                .meta
                .with(|m| !m.source.is_some_and(ReasoningSource::is_cut_short))
    });
    // The block's name: kept by the reducer as the text grows (a chunk costs
    // its own size), stored with the block, so it is there after a reload.
    let topic = Memo::new(move |_| block.meta.with(|m| m.headline.clone()));
    // Folded while thinking with no headline yet: the last line stands in for
    // one. Only the last line is looked at, so this stays cheap as text grows.
    let preview = Memo::new(move |_| {
        if open.get() || !streaming.get() || topic.with(Option::is_some) {
            return None;
        }
        block.text.with(|text| {
            let line = strip_topics(last_line(text));
            (!line.is_empty()).then_some(line)
        })
    });
    let state_class = move || match block.meta.with(|m| m.state) {
        BlockState::Streaming => "thinking streaming",
        BlockState::Done => "thinking done",
        BlockState::Interrupted => "thinking interrupted",
    };

    let body_ref = NodeRef::<Div>::new();
    // The body follows its end while it streams and the reader has not
    // scrolled up (the same rule as the conversation's); where the reader
    // stood is put back when the block is reopened.
    let pin = StoredValue::new(Pin::inner_box());
    let restore_scroll = StoredValue::new(false);
    // Where the pin last put the view.
    let pinned_top = StoredValue::new(None::<i32>);
    let on_scroll = move |_| {
        // Folding collapses the box to zero height, which scrolls it to 0 and
        // fires a scroll event: that is not the reader moving, so it must not
        // decide where the reopened body stands.
        if !open.get_untracked() {
            return;
        }
        if let Some(el) = body_ref.get_untracked() {
            let top = el.scroll_top();
            // The last pin's own scroll event, arriving after the block
            // finished: not the reader, who will reopen it at its top.
            if !streaming.get_untracked() && Some(top) == pinned_top.get_value() {
                return;
            }
            let (height, client) = (el.scroll_height(), el.client_height());
            // The body never glides, so the clock plays no part.
            pin.update_value(|p| {
                p.scrolled(f64::from(top), f64::from(height), f64::from(client), 0.0)
            });
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
        // Only a live block follows its end; a finished one is read from its top.
        if pin.with_value(|p| p.following) && streaming.get_untracked() {
            el.set_scroll_top(el.scroll_height());
            // What the pin's own scroll event will show: a reader scrolling up
            // in the same frame shows less, even if the box grew meanwhile.
            let top = el.scroll_top();
            pin.update_value(|p| p.pinned_at(f64::from(top)));
            pinned_top.set_value(Some(top));
        } else if restore {
            // Tops are whole pixels here: the pin only ever holds the
            // body's own `scroll_top` values, or 0.
            el.set_scroll_top(pin.with_value(Pin::last_top) as i32);
        }
    });

    // A finished block, reopened, starts at its top (where it stood while it
    // streamed was its end); a reader who scrolls it after that is kept.
    Effect::new(move |was_streaming: Option<bool>| {
        let now_streaming = streaming.get();
        if was_streaming == Some(true) && !now_streaming {
            pin.update_value(Pin::rest_at_top);
        }
        now_streaming
    });

    let UseCopyReturn { copied, copy } = use_copy();
    let copy = move |_| copy.run(block.text.get_untracked());

    let body_id_attr = body_id.clone();
    view! {
        <Show when=move || visible.get()>
            <section class=state_class data-testid="thinking-block">
                <div class="thinking-header-row">
                    <ThinkingHeader
                        label
                        expanded=Signal::derive(move || expandable.get().then(|| open.get()))
                        controls=Some(body_id.clone())
                        description=source
                        topic
                        preview
                        on_toggle=Some(
                            Callback::new(move |_| {
                                restore_scroll.set_value(!open.get_untracked());
                                open.update(|o| *o = !*o);
                            }),
                        )
                    />
                    <Show when=move || offer_answer_now.get()>
                        <button
                            class="copy-button answer-now"
                            data-testid="answer-now"
                            title="Stop thinking and answer"
                            disabled=move || answer_now_pressed.get()
                            on:click=move |_| {
                                answer_now_pressed.set(true);
                                if let Some(answer_now) = on_answer_now {
                                    answer_now.run(());
                                }
                            }
                        >
                            {move || {
                                if answer_now_pressed.get() {
                                    "Answering\u{2026}"
                                } else {
                                    "Answer now"
                                }
                            }}
                        </button>
                    </Show>
                    <Show when=move || open.get() && has_text.get()>
                        <button class="copy-button" on:click=copy>
                            {move || if copied.get() { "Copied" } else { "Copy reasoning" }}
                        </button>
                    </Show>
                </div>
                <Show when=move || control_failed.get()>
                    <p class="thinking-note" data-testid="control-failed">
                        "Could not end thinking early; asked again"
                    </p>
                </Show>
                <div
                    id=body_id_attr.clone()
                    class="thinking-body markdown"
                    role="region"
                    aria-label="Reasoning"
                    // It scrolls by itself (a long reasoning): keyboard
                    // users reach it with Tab and scroll it with the arrows
                    // (axe: scrollable-region-focusable).
                    tabindex="0"
                    node_ref=body_ref
                    hidden=move || !open.get() || !expandable.get()
                    inert=move || !open.get() || !expandable.get()
                    on:scroll=on_scroll
                >
                    <StreamingMarkdown
                        text=block.text
                        active=open
                        finished=Signal::derive(move || !streaming.get())
                        without_topics=true
                        on_rendered=pin_to_bottom
                    />
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
            source: None,
            started_at_ms: 1000.0,
            headline: None,
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
    fn an_ended_block_names_the_effort_it_was_asked_at() {
        let done = meta(BlockState::Done, Some(12_400), false);
        assert_eq!(
            header_with_effort(&done, 0.0, Some(Effort::Low)),
            "Thought for 12s \u{b7} low effort"
        );
        let live = meta(BlockState::Streaming, None, false);
        assert_eq!(
            header_with_effort(&live, 8_999.0, Some(Effort::Low)),
            "Thinking\u{2026} 7s"
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

/// ThinkingBlock rendered to HTML on the server in each state, read the way a
/// user (or a screen reader) meets it: the header's text, whether it can be
/// expanded, and whether the body is folded away. Built from real reducer
/// turns, so the states are the ones events produce.
#[cfg(all(test, feature = "ssr"))]
pub(crate) mod render_tests {
    use super::*;
    use crate::app::preferences::{FoldPreference, FoldPreferenceContext};
    use crate::app::turn_view::TurnView;
    use crate::app::use_thinking_fold::use_thinking_fold;
    use crate::turn::message::{decode, encode, Conversation, Message};
    use crate::turn::reducer::Turn;
    use crate::turn::TurnEvent;

    /// The opening tag of the first element whose tag text contains `needle`.
    pub(crate) fn open_tag<'a>(html: &'a str, needle: &str) -> Option<&'a str> {
        let at = html.find(needle)?;
        let start = html[..at].rfind('<')?;
        let end = at + html[at..].find('>')?;
        Some(&html[start..=end])
    }

    /// The visible text of an HTML fragment, whitespace collapsed (tags and
    /// the renderer's `<!--…-->` / `<!>` markers dropped).
    pub(crate) fn text_of(html: &str) -> String {
        let mut rest = html;
        let mut out = String::new();
        while let Some(lt) = rest.find('<') {
            out.push_str(&rest[..lt]);
            let close = if rest[lt..].starts_with("<!--") {
                "-->"
            } else {
                ">"
            };
            rest = match rest[lt..].find(close) {
                Some(end) => &rest[lt + end + close.len()..],
                None => "",
            };
        }
        out.push_str(rest);
        let out = out
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&");
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The header button: its opening tag and its text.
    fn header(html: &str) -> (String, String) {
        let at = html.find("class=\"thinking-header\"").expect("a header");
        let start = html[..at].rfind('<').expect("a tag");
        let end = start + html[start..].find("</button>").expect("closed");
        let tag = open_tag(&html[start..], "thinking-header").unwrap_or("");
        (tag.to_owned(), text_of(&html[start..end]))
    }

    fn body_tag(html: &str) -> String {
        open_tag(html, "class=\"thinking-body")
            .unwrap_or("")
            .to_owned()
    }

    fn has_attr(tag: &str, name: &str) -> bool {
        tag.split_whitespace()
            .any(|part| part.trim_end_matches('>') == name || part.starts_with(&format!("{name}=")))
    }

    fn turn(events: Vec<(TurnEvent, f64)>) -> Turn {
        let mut turn = Turn::new(0.0);
        for (event, at) in events {
            turn.apply(event, at);
        }
        turn
    }
    fn delta(text: &str) -> TurnEvent {
        TurnEvent::ThinkingDelta { text: text.into() }
    }
    fn end(ms: u64, opaque: bool) -> TurnEvent {
        TurnEvent::ThinkingEnd {
            duration_ms: ms,
            opaque,
        }
    }
    fn answer(text: &str) -> TurnEvent {
        TurnEvent::AnswerDelta { text: text.into() }
    }

    /// Renders the turn's first block at page clock `now`; `then` runs on the
    /// turn and view after the component was created (a live change).
    fn render_with(
        turn: Turn,
        now: f64,
        preference: Option<FoldPreference>,
        then: impl FnOnce(&mut Turn, &TurnView),
    ) -> String {
        let owner = Owner::new();
        owner.with(|| {
            if let Some(p) = preference {
                provide_context(FoldPreferenceContext(RwSignal::new(p)));
            }
            let mut turn = turn;
            let view = TurnView::new(&turn);
            let block = view.blocks.get_untracked()[0];
            let answer_started = Signal::derive(move || view.blocks.with(|b| b.len() > 1));
            let open = use_thinking_fold(block, answer_started);
            let rendered = view! { <ThinkingBlock block open now=now /> };
            then(&mut turn, &view);
            rendered.to_html()
        })
    }

    fn render(turn: Turn, now: f64) -> String {
        render_with(turn, now, None, |_, _| {})
    }

    #[test]
    fn the_parent_owns_open_and_the_block_follows_it() {
        // A streaming block the fold policy would open, held folded by its
        // parent, then opened by it: the block shows what the parent says.
        let t = turn(vec![
            (TurnEvent::ThinkingStart, 0.0),
            (delta("Light scatters."), 100.0),
        ]);
        Owner::new().with(|| {
            let view = TurnView::new(&t);
            let block = view.blocks.get_untracked()[0];
            let open = RwSignal::new(false);
            let rendered = view! { <ThinkingBlock block open now=1_000.0 /> };
            let html = rendered.to_html();
            let (tag, _) = header(&html);
            assert!(tag.contains("aria-expanded=\"false\""), "{tag}");
            assert!(has_attr(&body_tag(&html), "hidden"));
            open.set(true);
            let html = view! { <ThinkingBlock block open now=1_000.0 /> }.to_html();
            let (tag, _) = header(&html);
            assert!(tag.contains("aria-expanded=\"true\""), "{tag}");
            assert!(!has_attr(&body_tag(&html), "hidden"));
        });
    }

    #[test]
    fn a_block_asked_again_after_a_failed_control_says_so() {
        let mut t = turn(vec![
            (TurnEvent::ThinkingStart, 1_000.0),
            (delta("Light scatters."), 1_200.0),
        ]);
        let mut plain = t.clone();
        plain.cut_short_to_ask_again(5_000.0, false);
        t.cut_short_to_ask_again(5_000.0, true);
        let html = render(t, 6_000.0);
        assert!(
            text_of(&html).contains("Could not end thinking early; asked again"),
            "{html}"
        );
        let (_, label) = header(&html);
        assert!(label.starts_with("Cut short after 4s"), "{label}");
        let plain = render(plain, 6_000.0);
        assert!(
            !plain.contains("control-failed"),
            "only when the control failed"
        );
    }

    #[test]
    fn streaming_with_text_is_open_with_a_live_timer() {
        let t = turn(vec![
            (TurnEvent::ThinkingStart, 1_000.0),
            (delta("Light scatters."), 1_200.0),
        ]);
        let html = render(t, 8_500.0);
        let (tag, text) = header(&html);
        assert_eq!(text, "Thinking\u{2026} 7s");
        assert!(tag.contains("aria-expanded=\"true\""), "{tag}");
        assert!(tag.contains("aria-controls=\"thinking-body-"), "{tag}");
        assert!(!has_attr(&tag, "disabled"), "{tag}");
        let body = body_tag(&html);
        assert!(
            !has_attr(&body, "hidden") && !has_attr(&body, "inert"),
            "{body}"
        );
        assert!(body.contains("role=\"region\""), "{body}");
        assert!(html.contains("class=\"thinking streaming\""), "{html}");
    }

    #[test]
    fn hidden_reasoning_streams_as_a_live_header_with_nothing_to_expand() {
        // `thinking_start` and then silence: the provider reasons out of sight.
        let t = turn(vec![(TurnEvent::ThinkingStart, 2_000.0)]);
        let html = render(t, 5_100.0);
        assert!(html.contains("data-testid=\"thinking-block\""), "{html}");
        let (tag, text) = header(&html);
        assert_eq!(text, "Thinking\u{2026} 3s");
        assert!(has_attr(&tag, "disabled"), "{tag}");
        assert!(!tag.contains("aria-expanded"), "{tag}");
        assert!(!tag.contains("aria-controls"), "{tag}");
        let body = body_tag(&html);
        assert!(
            has_attr(&body, "hidden") && has_attr(&body, "inert"),
            "{body}"
        );
        // It ends opaque: an honest header, still nothing to expand.
        let html = render_with(
            turn(vec![(TurnEvent::ThinkingStart, 2_000.0)]),
            0.0,
            None,
            |turn, view| {
                let changes = turn.apply(end(6_000, true), 8_000.0);
                view.sync(changes);
            },
        );
        let (tag, text) = header(&html);
        assert_eq!(
            text,
            "Thought for 6s \u{b7} reasoning hidden by the provider"
        );
        assert!(
            has_attr(&tag, "disabled") && !tag.contains("aria-expanded"),
            "{tag}"
        );
    }

    #[test]
    fn a_finished_block_without_text_or_opaque_signal_shows_nothing() {
        let t = turn(vec![
            (TurnEvent::ThinkingStart, 0.0),
            (delta("\n\n"), 1.0),
            (end(5, false), 2.0),
            (answer("42"), 3.0),
        ]);
        let html = render(t, 10.0);
        assert!(!html.contains("thinking-block"), "{html}");
    }

    #[test]
    fn folded_after_the_answer_shows_the_server_duration() {
        let t = turn(vec![
            (TurnEvent::ThinkingStart, 0.0),
            (delta("Light scatters."), 1.0),
            (end(12_400, false), 2.0),
            (answer("Blue."), 3.0),
            (
                TurnEvent::Done {
                    finish_reason: None,
                    output_limit: None,
                },
                4.0,
            ),
        ]);
        let html = render(t, 60_000.0);
        let (tag, text) = header(&html);
        assert_eq!(text, "Thought for 12s");
        assert!(tag.contains("aria-expanded=\"false\""), "{tag}");
        let body = body_tag(&html);
        assert!(
            has_attr(&body, "hidden") && has_attr(&body, "inert"),
            "{body}"
        );
        assert!(html.contains("class=\"thinking done\""), "{html}");
    }

    #[test]
    fn opaque_reasoning_is_a_header_alone() {
        let t = turn(vec![
            (TurnEvent::ThinkingStart, 0.0),
            (end(8_000, true), 8_000.0),
            (answer("42"), 8_100.0),
        ]);
        let html = render(t, 9_000.0);
        let (tag, text) = header(&html);
        assert_eq!(
            text,
            "Thought for 8s \u{b7} reasoning hidden by the provider"
        );
        assert!(has_attr(&tag, "disabled"), "{tag}");
        assert!(!tag.contains("aria-expanded"), "{tag}");
        assert!(has_attr(&body_tag(&html), "hidden"));
    }

    #[test]
    fn interrupted_mid_thought_freezes_and_keeps_the_text_readable() {
        // Live and open, then Stop: the timer freezes, the body stays open.
        let html = render_with(
            turn(vec![
                (TurnEvent::ThinkingStart, 1_000.0),
                (delta("half a thought"), 2_000.0),
            ]),
            99_000.0,
            None,
            |turn, view| {
                let changes = turn.stop(10_200.0);
                view.sync(changes);
            },
        );
        let (tag, text) = header(&html);
        assert_eq!(text, "Stopped after 9s");
        assert!(tag.contains("aria-expanded=\"true\""), "{tag}");
        assert!(!has_attr(&body_tag(&html), "hidden"));
        assert!(html.contains("class=\"thinking interrupted\""), "{html}");
    }

    #[test]
    fn replayed_from_history_is_folded_with_its_stored_duration_and_label() {
        let live = turn(vec![
            (TurnEvent::ThinkingStart, 0.0),
            (
                delta("**Reading the question**\n<topic>Checking the units</topic>\nm to ft\n"),
                1.0,
            ),
            (end(12_000, false), 2.0),
            (answer("16.4 ft"), 3.0),
            (
                TurnEvent::Done {
                    finish_reason: None,
                    output_limit: None,
                },
                4.0,
            ),
        ]);
        let mut c = Conversation::new("c".into(), 0.0);
        c.messages.push(Message::Assistant(live));
        let Ok(loaded) = decode(&encode(&c, 5.0)) else {
            panic!("the record decodes")
        };
        let Some(Message::Assistant(replayed)) = loaded.messages.into_iter().next() else {
            panic!("assistant expected")
        };
        let html = render(replayed, 1e12);
        let (tag, text) = header(&html);
        assert_eq!(text, "Thought for 12s \u{b7} Checking the units");
        assert!(tag.contains("aria-expanded=\"false\""), "{tag}");
        let body = body_tag(&html);
        assert!(
            has_attr(&body, "hidden") && has_attr(&body, "inert"),
            "{body}"
        );
    }

    #[test]
    fn the_latest_topic_names_the_block_open_or_folded_live_or_done() {
        let labelled = || {
            turn(vec![
                (TurnEvent::ThinkingStart, 0.0),
                (delta("<topic>Checking the units</topic>\nmetres"), 100.0),
            ])
        };
        // Open and streaming.
        let (_, text) = header(&render(labelled(), 7_200.0));
        assert_eq!(text, "Thinking\u{2026} 7s \u{b7} Checking the units");
        // Folded by preference while streaming: the label, not the last line.
        let html = render_with(
            labelled(),
            7_200.0,
            Some(FoldPreference::StartFolded),
            |_, _| {},
        );
        let (tag, text) = header(&html);
        assert_eq!(text, "Thinking\u{2026} 7s \u{b7} Checking the units");
        assert!(tag.contains("aria-expanded=\"false\""), "{tag}");
        assert!(!html.contains("thinking-preview"), "{html}");
        // A later label replaces it, live.
        let html = render_with(labelled(), 9_000.0, None, |turn, view| {
            let changes = turn.apply(delta("\n<topic>Writing the answer</topic>"), 8_000.0);
            view.sync(changes);
        });
        assert_eq!(
            header(&html).1,
            "Thinking\u{2026} 9s \u{b7} Writing the answer"
        );
        // Done and folded by the answer, it keeps its name.
        let html = render_with(labelled(), 0.0, None, |turn, view| {
            for event in [end(12_000, false), answer("16.4 ft")] {
                let changes = turn.apply(event, 9_000.0);
                view.sync(changes);
            }
        });
        assert_eq!(header(&html).1, "Thought for 12s \u{b7} Checking the units");
        assert!(html.contains("data-testid=\"thinking-topic\""), "{html}");
    }

    #[test]
    fn folded_while_thinking_without_a_label_previews_the_last_line() {
        let t = turn(vec![
            (TurnEvent::ThinkingStart, 0.0),
            (delta("First idea.\nSecond idea"), 100.0),
        ]);
        let html = render_with(t, 2_000.0, Some(FoldPreference::StartFolded), |_, _| {});
        let (tag, text) = header(&html);
        // The preview's dash comes from CSS (`::before`), so the texts abut here.
        assert_eq!(text, "Thinking\u{2026} 2sSecond idea");
        assert!(tag.contains("aria-expanded=\"false\""), "{tag}");
        assert!(
            html.contains("class=\"thinking-preview\">Second idea</span>"),
            "{html}"
        );
    }
}
