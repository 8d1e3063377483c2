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
//! Finished blocks go into page `<div>`s of about `PAGE_BYTES` of source each,
//! not straight into one container: the browser re-lays out the element that
//! grows each frame by walking all of its children, so thousands of paragraphs
//! side by side made every frame slower as the text grew (1 MB of reasoning:
//! 0.77 ms per chunk at first, 1.9 ms at the end, mostly layout). Full pages
//! are never touched again, so a frame's layout work stays bounded.

use leptos::html::Div;
use leptos::prelude::*;
use leptos::web_sys;

use super::code_copy;
use super::lazy_renderer::{self, Rendered};
use super::markdown::stream_render::{Frame, OpenKind, Patch};
use super::trusted_html;

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

/// Source bytes per page of finished blocks (see the module comment).
const PAGE_BYTES: usize = 8 * 1024;

/// The elements a stream has put on the page.
#[derive(Default)]
struct PageState {
    /// The page finished blocks are appended to, and where in the text it began.
    page: Option<(web_sys::Element, usize)>,
    /// The block that grows by parts, if one is open.
    open: Option<OpenBlock>,
    /// Whether the tail below everything is empty now.
    tail_empty: bool,
}

/// A block that grows by parts: `element` on the page, `slot` where its
/// finished parts go (the block itself, or a code block's `<code>`), and
/// `unfinished`, the last child of `slot`, holding what is not finished.
struct OpenBlock {
    element: web_sys::Element,
    slot: web_sys::Element,
    unfinished: web_sys::Element,
    kind: OpenKind,
    /// A code block's lines go into runs of `CODE_RUN_BYTES` (see there):
    /// the run being filled, and how much it holds.
    run: Option<(web_sys::Element, usize)>,
    /// The last code appended ends inside a line (a long line's pieces,
    /// `stream_render::LONG_LINE_BYTES`): the run, a block, may not end
    /// there, or the line would break in two.
    inside_line: bool,
}

/// HTML bytes of highlighted code per run: a `<span class="md-code-run">`
/// shown as a block (style/main.css), so each run is laid out on its own.
/// One growing `<code>` of a 350 KB block was laid out whole on every frame:
/// 0.29 ms of layout per chunk at first, 0.53 ms at the end, and frames of
/// up to 150 ms (docs/benchmarks.md, the code-block benchmark). Full runs are
/// never touched again.
const CODE_RUN_BYTES: usize = 16 * 1024;

impl OpenBlock {
    /// Adds finished children (a code block's lines, items, pieces) before
    /// the unfinished part.
    fn append(&mut self, html: super::markdown::stream_render::Fragment) {
        if self.kind != OpenKind::Code {
            trusted_html::fragment(html).insert_before(&self.unfinished);
            return;
        }
        let bytes = html.as_str().len();
        let inside_line = !html.as_str().ends_with('\n');
        let run = match self.run.take() {
            Some((run, held)) if held < CODE_RUN_BYTES || self.inside_line => Some((run, held)),
            _ => document().create_element("span").ok().and_then(|run| {
                run.set_class_name("md-code-run");
                self.slot.insert_before(&run, Some(&self.unfinished)).ok()?;
                Some((run, 0))
            }),
        };
        if let Some((run, held)) = run {
            trusted_html::fragment(html).append_to(&run);
            self.run = Some((run, held + bytes));
            self.inside_line = inside_line;
        }
    }
}

impl PageState {
    fn apply(&mut self, frame: Frame, done: &web_sys::Element, tail: &web_sys::Element) {
        for patch in frame.patches {
            self.patch(patch, done);
        }
        let empty = frame.tail.is_empty();
        let html = trusted_html::fragment(frame.tail);
        match (&self.open, frame.tail_inside) {
            (Some(open), true) => {
                html.set_as_inner_html(&open.unfinished);
                // An empty item would still show its bullet.
                let _ = open.unfinished.toggle_attribute_with_force("hidden", empty);
                if !self.tail_empty {
                    tail.set_text_content(None);
                    self.tail_empty = true;
                }
            }
            _ => {
                html.set_as_inner_html(tail);
                self.tail_empty = empty;
            }
        }
    }

    fn patch(&mut self, patch: Patch, done: &web_sys::Element) {
        match patch {
            Patch::Reset => {
                // Not `innerHTML = ""`: Trusted Types refuses any string.
                done.set_text_content(None);
                *self = PageState::default();
            }
            Patch::Blocks { html, at } => {
                if let Some(target) = self.page_for(done, at) {
                    trusted_html::fragment(html).append_to(&target);
                }
            }
            Patch::Open { html, kind, at } => {
                self.open = self.open_block(done, html, kind, at);
            }
            Patch::Append(html) => {
                if let Some(open) = &mut self.open {
                    open.append(html);
                }
            }
            Patch::Replace(html) => {
                if let Some(open) = &mut self.open {
                    open.slot.set_text_content(None);
                    open.run = None;
                    open.inside_line = false;
                    trusted_html::fragment(html).append_to(&open.slot);
                    let _ = open.slot.append_child(&open.unfinished);
                }
            }
            Patch::Close => {
                if let Some(open) = self.open.take() {
                    open.unfinished.remove();
                }
            }
            Patch::Discard => {
                if let Some(open) = self.open.take() {
                    open.element.remove();
                }
            }
        }
    }

    /// Appends the block that grows by parts, with its element for the unfinished part.
    fn open_block(
        &mut self,
        done: &web_sys::Element,
        html: super::markdown::stream_render::Fragment,
        kind: OpenKind,
        at: usize,
    ) -> Option<OpenBlock> {
        let target = self.page_for(done, at)?;
        trusted_html::fragment(html).append_to(&target);
        let element = target.last_element_child()?;
        let slot = match kind {
            OpenKind::Code => element.query_selector("code").ok().flatten()?,
            OpenKind::List | OpenKind::Paragraph => element.clone(),
        };
        let tag = match kind {
            OpenKind::List => "li",
            OpenKind::Code | OpenKind::Paragraph => "span",
        };
        let unfinished = document().create_element(tag).ok()?;
        slot.append_child(&unfinished).ok()?;
        Some(OpenBlock {
            element,
            slot,
            unfinished,
            kind,
            run: None,
            inside_line: false,
        })
    }

    /// The page to append finished blocks starting at `from` to: the current
    /// one, or a new page once the current one holds `PAGE_BYTES` of source.
    fn page_for(&mut self, done: &web_sys::Element, from: usize) -> Option<web_sys::Element> {
        if let Some((current, began)) = &self.page {
            if from.saturating_sub(*began) < PAGE_BYTES {
                return Some(current.clone());
            }
        }
        let fresh = document().create_element("div").ok()?;
        fresh.set_class_name("md-page");
        done.append_child(&fresh).ok()?;
        self.page = Some((fresh.clone(), from));
        Some(fresh)
    }
}

/// What the benchmarks read of this view's own work (bench/browser.sh), added
/// up in `window.__pensivePerf` when a benchmark created that object: on the
/// main thread, the time spent asking the renderer (`streamRenderMs`) and
/// applying its frames to the page (`streamPageMs`); in the renderer's worker,
/// off the main thread, the time it took to render them (`streamWorkerMs`);
/// and the bytes of HTML the frames held (`streamHtmlBytes`).
/// Without the object, nothing is recorded.
mod bench {
    #[cfg(feature = "hydrate")]
    thread_local! {
        static PERF: Option<wasm_bindgen::JsValue> = leptos::web_sys::window()
            .and_then(|w| js_sys::Reflect::get(&w, &"__pensivePerf".into()).ok())
            .filter(wasm_bindgen::JsValue::is_object);
    }

    /// Milliseconds (the page's clock), when a benchmark watches; else 0.
    pub fn now() -> f64 {
        #[cfg(feature = "hydrate")]
        if PERF.with(Option::is_some) {
            return leptos::web_sys::window()
                .and_then(|w| w.performance())
                .map_or(0.0, |p| p.now());
        }
        0.0
    }

    /// Main-thread time spent handing a text's growth to the renderer.
    pub fn record_asking(ms: f64) {
        add("streamRenderMs", ms);
    }

    /// A frame: the worker's time on it, and the page's time applying it.
    pub fn record(worker_ms: f64, page_ms: f64) {
        add("streamWorkerMs", worker_ms);
        add("streamPageMs", page_ms);
    }

    /// Bytes of HTML a frame puts on the page (`streamHtmlBytes`).
    pub fn record_html(bytes: usize) {
        add("streamHtmlBytes", bytes as f64);
    }

    fn add(key: &str, ms: f64) {
        #[cfg(feature = "hydrate")]
        PERF.with(|perf| {
            let Some(perf) = perf else { return };
            let key = wasm_bindgen::JsValue::from_str(key);
            let so_far = js_sys::Reflect::get(perf, &key)
                .ok()
                .and_then(|v| v.as_f64())
                .unwrap_or(0.0);
            let _ = js_sys::Reflect::set(perf, &key, &(so_far + ms).into());
        });
        #[cfg(not(feature = "hydrate"))]
        let _ = (key, ms);
    }
}
