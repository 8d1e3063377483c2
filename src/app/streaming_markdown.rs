//! Markdown that grows while it streams, at a cost per frame that does not
//! grow with the text. What to add is decided by `markdown::stream_render`
//! (pure, in the lazily loaded renderer); this applies it to the page, at
//! most once per animation frame however many chunks came in it:
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
use super::lazy_renderer;
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
    let done_ref = NodeRef::<Div>::new();
    let tail_ref = NodeRef::<Div>::new();
    let state = StoredValue::new_local(lazy_renderer::Stream::new(without_topics));
    let page = StoredValue::new_local(PageState::default());
    // Renders what arrived since the last frame, once per frame however many
    // chunks came in it.
    let frame_pending = StoredValue::new(false);
    // Without the renderer: how much of the text is shown as plain text.
    let plain_shown = StoredValue::new(0usize);
    let render_now = move || {
        frame_pending.set_value(false);
        let (Some(done), Some(tail)) = (done_ref.get_untracked(), tail_ref.get_untracked()) else {
            return;
        };
        let last = finished.get_untracked();
        let mut frame = None;
        let started = bench::now();
        text.with_untracked(|t| {
            state.update_value(|s| frame = s.frame(t, last));
            if frame.is_none() && lazy_renderer::failed() {
                // No renderer: the text as it is, rather than nothing.
                plain_shown.update_value(|shown| show_plain(&done, &tail, t, shown));
            }
        });
        let framed = bench::now();
        if let Some(frame) = frame {
            page.update_value(|p| p.apply(frame, &done, &tail));
        }
        bench::record(framed - started, bench::now() - framed);
        if let Some(callback) = on_rendered {
            callback.run(());
        }
    };
    Effect::new(move |_| {
        text.track();
        finished.track();
        done_ref.track();
        tail_ref.track();
        // Nothing renders until the renderer's chunk has loaded (right after
        // hydration); the effect runs again when it has. A live stream also
        // waits for the warm-up (below), so that its first frames do not
        // compile the renderer in one long task; a whole text (history)
        // renders at once.
        let renderer =
            (lazy_renderer::ready() && (warmed() || finished.get())) || lazy_renderer::failed();
        if active.get() && renderer && !frame_pending.get_value() {
            frame_pending.set_value(true);
            request_animation_frame(render_now);
        }
    });
    // Code blocks' copy buttons come as HTML: one listener each serves them.
    view! {
        <div class="md-done" node_ref=done_ref on:click=code_copy::on_click></div>
        <div class="md-tail" node_ref=tail_ref on:click=code_copy::on_click></div>
    }
}

/// Shows `text` as plain text when the renderer could not load, `shown` bytes
/// of it being on the page already: only what it grew by is added (a text
/// node per frame), so a frame costs its own growth, as with the renderer. A
/// text that shrank or changed where it was cut is written whole again, the
/// same rule the renderer's stream follows (`lazy_renderer::Stream`).
fn show_plain(done: &web_sys::Element, tail: &web_sys::Element, text: &str, shown: &mut usize) {
    if *shown == 0 || *shown > text.len() || !text.is_char_boundary(*shown) {
        done.set_text_content(None);
        tail.set_text_content(Some(text));
    } else if *shown < text.len() {
        let _ = tail.append_with_str_1(&text[*shown..]);
    }
    *shown = text.len();
}

/// Texts that take the streaming renderer down each of its paths: finished
/// and unfinished inline markup, an open code fence (highlighted), lists,
/// math, a table, a quote, a heading.
const WARM_UP: &[&str] = &[
    "Plain words.",
    "Some **bold**, *em*, `code`, ~~gone~~ and [a link](https://example.com), then **open",
    "```rust\nfn main() {\n    let s = \"x\"; // note\n}\n",
    "- one\n- two\n\n1. three\n",
    "$x^2$ and \\(\\frac{1}{2}\\) and $$y$$",
    "| a | b |\n|---|---|\n| 1 | 2 |\n\n> quote\n\n# Title\n",
];

/// Runs the streaming renderer over each of `WARM_UP`, one per idle period,
/// right after it has loaded (`lazy_renderer`). The browser compiles a
/// WebAssembly function the first time it runs: without this, the first
/// frames of the first answer compiled about 1,100 of them (74 ms in one
/// frame, a long task, in the code-block benchmark); this way the work comes
/// in small pieces, before anyone is reading.
pub fn warm_up() {
    warm_up_from(0);
}

thread_local! {
    /// Whether the warm-up is over (reactive: streaming views wait for it).
    static WARMED: ArcRwSignal<bool> = ArcRwSignal::new(false);
}

fn warmed() -> bool {
    WARMED.with(|warmed| warmed.get())
}

fn warm_up_from(next: usize) {
    let Some(text) = WARM_UP.get(next).copied() else {
        WARMED.with(|warmed| warmed.set(true));
        return;
    };
    request_idle_callback(move || {
        let mut stream = lazy_renderer::Stream::new(false);
        let _ = stream.frame(text, false);
        let _ = stream.frame(text, true);
        warm_up_from(next + 1);
    });
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
        let run = match self.run.take() {
            Some((run, held)) if held < CODE_RUN_BYTES => Some((run, held)),
            _ => document().create_element("span").ok().and_then(|run| {
                run.set_class_name("md-code-run");
                self.slot.insert_before(&run, Some(&self.unfinished)).ok()?;
                Some((run, 0))
            }),
        };
        if let Some((run, held)) = run {
            trusted_html::fragment(html).append_to(&run);
            self.run = Some((run, held + bytes));
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

/// What the benchmarks read of this view's own work (bench/browser.sh):
/// the time frames took in the renderer and on the page, added up in
/// `window.__pensivePerf.streamRenderMs` and `.streamPageMs` when a benchmark
/// created that object. Without it, nothing is recorded.
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

    pub fn record(render_ms: f64, page_ms: f64) {
        #[cfg(feature = "hydrate")]
        PERF.with(|perf| {
            let Some(perf) = perf else { return };
            for (key, ms) in [("streamRenderMs", render_ms), ("streamPageMs", page_ms)] {
                let key = wasm_bindgen::JsValue::from_str(key);
                let so_far = js_sys::Reflect::get(perf, &key)
                    .ok()
                    .and_then(|v| v.as_f64())
                    .unwrap_or(0.0);
                let _ = js_sys::Reflect::set(perf, &key, &(so_far + ms).into());
            }
        });
        #[cfg(not(feature = "hydrate"))]
        let _ = (render_ms, page_ms);
    }
}
