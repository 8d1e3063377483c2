//! Markdown that grows while it streams, at a cost per frame that does not
//! grow with the text. What to add is decided by `markdown::stream_render`
//! (pure, run in the renderer's worker: `lazy_renderer`); this applies it to
//! the page, at most once per animation frame however many chunks came in it,
//! and never asks again before the worker has answered:
//! - finished blocks are rendered once and appended;
//! - a block that grows by parts (an open code fence, a list, a long
//!   paragraph) is appended once, and its finished parts (lines, items,
//!   pieces) are added to it as they complete, before an element that holds
//!   its unfinished part, the only thing re-rendered inside it;
//! - the rest (the tail) is re-rendered below everything.
//!
//! Every fragment is sanitized and reaches the page through `trusted_html`.
//!
//! Finished blocks go into pages of bounded size (`page`), so a frame's
//! layout work stays bounded too; `bench` adds up this view's own time when
//! a benchmark watches.

use leptos::html::Div;
use leptos::prelude::*;
use leptos::web_sys;

mod bench;
mod page;

use self::page::PageState;
use super::code_copy;
use super::lazy_renderer::{self, Rendered};

/// Sanitized markdown for a text that only grows.
#[component]
pub fn StreamingMarkdown(
    /// The text so far.
    #[prop(into)]
    text: Signal<String>,
    /// While false (a folded block) nothing is rendered; it catches up when true.
    #[prop(into, optional, default = Signal::stored(true))]
    active: Signal<bool>,
    /// True once the text is whole (its stream has ended, or it comes from
    /// history): unfinished-looking markup then shows as written, not completed.
    #[prop(into, optional)]
    finished: Signal<bool>,
    /// Remove `<topic>` labels (reasoning text: they are the header's headline).
    #[prop(optional)]
    without_topics: bool,
    /// Called after each render (e.g. to keep a scroll box pinned to the bottom).
    #[prop(optional)]
    on_rendered: Option<Callback<()>>,
) -> impl IntoView {
    let view = StreamView {
        done_ref: NodeRef::new(),
        tail_ref: NodeRef::new(),
        stream: StoredValue::new_local(lazy_renderer::Stream::new(without_topics)),
        page: StoredValue::new_local(PageState::default()),
        frame_pending: StoredValue::new(false),
        in_flight: StoredValue::new(false),
        plain: StoredValue::new(None),
        plain_shown: StoredValue::new(0),
        text,
        finished,
        on_rendered,
    };
    let (done_ref, tail_ref) = (view.done_ref, view.tail_ref);
    Effect::new(move |_| {
        text.track();
        finished.track();
        done_ref.track();
        tail_ref.track();
        // Nothing renders until the renderer's worker is ready (right after
        // hydration); the effect runs again when it is.
        let renderer = lazy_renderer::ready() || lazy_renderer::failed();
        if active.get() && renderer {
            view.schedule();
        }
    });
    // Code blocks' copy buttons come as HTML: one listener each serves them.
    view! {
        <div class="md-done" node_ref=done_ref on:click=code_copy::on_click></div>
        <div class="md-tail" node_ref=tail_ref on:click=code_copy::on_click></div>
    }
}

/// Why a text is shown as plain text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Plain {
    /// There is no renderer (it did not load, or was given up on).
    NoRenderer,
    /// The renderer missed its deadline on this text (or crashed on it).
    TooSlow,
}

/// What the notice above a text shown plain says, when it was too slow.
pub const TOO_SLOW_NOTICE: &str =
    "This text took too long to format, so it is shown as plain text.";

/// One streaming view's parts, all handles (`Copy`): what a frame, and the
/// renderer's answer to it, work on.
#[derive(Clone, Copy)]
struct StreamView {
    done_ref: NodeRef<Div>,
    tail_ref: NodeRef<Div>,
    stream: StoredValue<lazy_renderer::Stream, LocalStorage>,
    page: StoredValue<PageState, LocalStorage>,
    /// A frame is scheduled: it renders what arrived since the last one,
    /// once per frame however many chunks came in it.
    frame_pending: StoredValue<bool>,
    /// A request is with the renderer: the next one waits for its answer.
    in_flight: StoredValue<bool>,
    /// Shown as plain text from now on, and why.
    plain: StoredValue<Option<Plain>>,
    /// How much of the text is on the page as plain text.
    plain_shown: StoredValue<usize>,
    text: Signal<String>,
    finished: Signal<bool>,
    on_rendered: Option<Callback<()>>,
}

impl StreamView {
    /// The two containers, unless the view is gone.
    fn elements(self) -> Option<(web_sys::HtmlDivElement, web_sys::HtmlDivElement)> {
        Some((
            self.done_ref.try_get_untracked()??,
            self.tail_ref.try_get_untracked()??,
        ))
    }

    fn schedule(self) {
        if self.frame_pending.try_get_value() == Some(false) {
            self.frame_pending.set_value(true);
            request_animation_frame(move || self.render());
        }
    }

    /// One frame: asks the renderer for what the text grew by (or shows it
    /// plain). While a request is with the renderer nothing is asked: its
    /// answer asks again if the text moved on.
    fn render(self) {
        self.frame_pending.set_value(false);
        if self.in_flight.try_get_value() != Some(false) {
            return;
        }
        if lazy_renderer::failed() && self.plain.try_get_value() == Some(None) {
            self.plain.set_value(Some(Plain::NoRenderer));
        }
        if self.plain.try_get_value().flatten().is_some() {
            self.show_plain();
            return;
        }
        let last = self.finished.get_untracked();
        let Some(asked) = self.text.try_with_untracked(String::len) else {
            return;
        };
        self.in_flight.set_value(true);
        let started = bench::now();
        self.text.with_untracked(|text| {
            self.stream.update_value(|stream| {
                stream.request(text, last, move |rendered| {
                    self.answered(rendered, asked, last)
                })
            })
        });
        bench::record_asking(bench::now() - started);
    }

    /// The renderer's answer to the request for `asked` bytes of the text.
    fn answered(self, rendered: Rendered, asked: usize, last: bool) {
        self.in_flight.set_value(false);
        let again = matches!(rendered, Rendered::Again);
        let Some((done, tail)) = self.elements() else {
            return;
        };
        match rendered {
            Rendered::Frame(frame, worker_ms) => {
                bench::record_html(frame.fragments().map(str::len).sum());
                let started = bench::now();
                self.page
                    .update_value(|page| page.apply(frame, &done, &tail));
                bench::record(worker_ms, bench::now() - started);
                self.notify();
            }
            Rendered::Again => {}
            Rendered::TooSlow => {
                self.plain.set_value(Some(Plain::TooSlow));
                self.show_plain();
            }
            Rendered::Unavailable => {
                self.plain.set_value(Some(Plain::NoRenderer));
                self.show_plain();
            }
        }
        // The text grew (or ended) while the renderer worked: the next frame
        // asks for the rest.
        let moved_on = self.text.try_with_untracked(String::len) != Some(asked)
            || self.finished.try_get_untracked() != Some(last);
        if moved_on || again {
            self.schedule();
        }
    }

    fn show_plain(self) {
        let (Some((done, tail)), Some(Some(why))) = (self.elements(), self.plain.try_get_value())
        else {
            return;
        };
        self.text.with_untracked(|text| {
            self.plain_shown
                .update_value(|shown| show_plain(&done, &tail, text, shown, why));
        });
        self.notify();
    }

    fn notify(self) {
        if let Some(callback) = self.on_rendered {
            let _ = callback.try_run(());
        }
    }
}

/// Shows `text` as plain text (no renderer, or it gave up on this text),
/// `shown` bytes of it being on the page already: only what it grew by is
/// added (a text node per frame), so a frame costs its own growth, as with
/// the renderer. A text that shrank or changed where it was cut is written
/// whole again, the same rule the renderer's stream follows. A text the
/// renderer was too slow for says so above it.
fn show_plain(
    done: &web_sys::Element,
    tail: &web_sys::Element,
    text: &str,
    shown: &mut usize,
    why: Plain,
) {
    if *shown == 0 || *shown > text.len() || !text.is_char_boundary(*shown) {
        done.set_text_content(None);
        if why == Plain::TooSlow {
            if let Ok(notice) = document().create_element("p") {
                notice.set_class_name("md-notice");
                let _ = notice.set_attribute("role", "note");
                notice.set_text_content(Some(TOO_SLOW_NOTICE));
                let _ = done.append_child(&notice);
            }
        }
        let _ = tail.class_list().add_1("md-plain");
        tail.set_text_content(Some(text));
    } else if *shown < text.len() {
        let _ = tail.append_with_str_1(&text[*shown..]);
    }
    *shown = text.len();
}
