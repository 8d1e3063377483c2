//! Where a stream's rendered frames go on the page. Finished blocks go into
//! page `<div>`s of about `PAGE_BYTES` of source each, not straight into one
//! container: the browser re-lays out the element that grows each frame by
//! walking all of its children, so thousands of paragraphs side by side made
//! every frame slower as the text grew (1 MB of reasoning: 0.77 ms per chunk
//! at first, 1.9 ms at the end, mostly layout). Full pages are never touched
//! again, so a frame's layout work stays bounded. A block that grows by parts
//! keeps an element for its unfinished part, the only thing re-rendered in it.
//!
//! Every fragment is sanitized and reaches the page through `trusted_html`.

use leptos::prelude::*;
use leptos::web_sys;

use crate::app::markdown::stream_render::{Fragment, Frame, OpenKind, Patch};
use crate::app::trusted_html;

/// Source bytes per page of finished blocks (see the module comment).
const PAGE_BYTES: usize = 8 * 1024;

/// The elements a stream has put on the page.
#[derive(Default)]
pub(super) struct PageState {
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
    fn append(&mut self, html: Fragment) {
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
    pub(super) fn apply(&mut self, frame: Frame, done: &web_sys::Element, tail: &web_sys::Element) {
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
        html: Fragment,
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
