//! Markdown that grows while it streams. Finished blocks (up to the last
//! blank line outside a code fence) are rendered once and appended; only the
//! unfinished tail is re-rendered, at most once per animation frame, so
//! per-chunk work does not grow with the text before it. Every piece is
//! sanitized by `render_markdown`.
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

use super::headline::strip_topics;
use super::markdown::stable_end;
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
    /// Remove `<topic>` labels (reasoning text: they are the header's headline).
    #[prop(optional)]
    without_topics: bool,
    /// Called after each render (e.g. to keep a scroll box pinned to the bottom).
    #[prop(optional)]
    on_rendered: Option<Callback<()>>,
) -> impl IntoView {
    let done_ref = NodeRef::<Div>::new();
    let tail_ref = NodeRef::<Div>::new();
    let rendered_to = StoredValue::new(0usize);
    // The page finished blocks are appended to, and where in the text it began.
    let page = StoredValue::new_local(None::<(web_sys::Element, usize)>);
    // Sanitized, and typed so that the page's Trusted Types policy lets it in.
    let render = move |piece: &str| {
        if without_topics {
            trusted_html::render(&strip_topics(piece))
        } else {
            trusted_html::render(piece)
        }
    };
    // Renders what arrived since the last frame, once per frame however many
    // chunks came in it.
    let frame_pending = StoredValue::new(false);
    let render_now = move || {
        frame_pending.set_value(false);
        let (Some(done), Some(tail)) = (done_ref.get_untracked(), tail_ref.get_untracked()) else {
            return;
        };
        text.with_untracked(|t| {
            let mut from = rendered_to.get_value();
            if from > t.len() || !t.is_char_boundary(from) {
                // Not an append (never expected): start over.
                // Not `innerHTML = ""`: Trusted Types refuses any string.
                done.set_text_content(None);
                page.set_value(None);
                from = 0;
            }
            let end = stable_end(t, from);
            if end > from {
                if let Some(target) = page_for(&done, page, from) {
                    render(&t[from..end]).append_to(&target);
                }
                rendered_to.set_value(end);
            }
            render(&t[end..]).set_as_inner_html(&tail);
        });
        if let Some(callback) = on_rendered {
            callback.run(());
        }
    };
    Effect::new(move |_| {
        text.track();
        done_ref.track();
        tail_ref.track();
        if active.get() && !frame_pending.get_value() {
            frame_pending.set_value(true);
            request_animation_frame(render_now);
        }
    });
    view! {
        <div class="md-done" node_ref=done_ref></div>
        <div class="md-tail" node_ref=tail_ref></div>
    }
}

/// Source bytes per page of finished blocks (see the module comment).
const PAGE_BYTES: usize = 8 * 1024;

/// The page to append finished blocks starting at `from` to: the current one,
/// or a new page once the current one holds `PAGE_BYTES` of source.
fn page_for(
    done: &web_sys::HtmlDivElement,
    page: StoredValue<Option<(web_sys::Element, usize)>, LocalStorage>,
    from: usize,
) -> Option<web_sys::Element> {
    if let Some((current, began)) = page.get_value() {
        if from - began < PAGE_BYTES {
            return Some(current);
        }
    }
    let fresh = document().create_element("div").ok()?;
    fresh.set_class_name("md-page");
    done.append_child(&fresh).ok()?;
    page.set_value(Some((fresh.clone(), from)));
    Some(fresh)
}
