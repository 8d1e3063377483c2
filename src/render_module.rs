//! The renderer as a WebAssembly module of its own (`pensive_render.js` and
//! `pensive_render_bg.wasm` in the site's `pkg/`), built from this crate with
//! only the `render-module` feature. The page loads it right after hydration
//! (`app::lazy_renderer`), so Markdown, math, highlighting, the HTML
//! sanitizer (ammonia, html5ever) and the Markdown export are not part of what
//! the browser downloads before the page is interactive.
//!
//! Why a module of its own and not cargo-leptos' `--split`: measured with
//! cargo-leptos 0.3.6 and wasm-bindgen 0.2.130, a split build does not start
//! (the main module's JS imports `__wbindgen_externref_xform__`, which no file
//! provides, so the page never hydrates; leptos-rs/leptos#4347), and wasm-split
//! left the renderer's static data (597 KB, the HTML entity and MathML tables)
//! in the main module anyway. docs/benchmarks-browser.md has the numbers.
//!
//! The module runs in a Web Worker (`src/render_worker.js`), never on the
//! page's main thread: whatever a text costs to render, the page only applies
//! the fragments that come back, and a render that misses its deadline is cut
//! short by terminating the worker (`app::lazy_renderer`).
//!
//! The interface is strings in, strings out: the page hands over only what a
//! text grew by ([`RenderStream::push`]), so no frame copies the whole text
//! across, and gets back one frame of patches as JSON.

use wasm_bindgen::prelude::*;

use crate::app::markdown::stream_render::{frame, StreamState};

/// One growing text being rendered: its copy of the text and the streaming
/// renderer's state (`app::markdown::stream_render`).
#[wasm_bindgen]
pub struct RenderStream {
    text: String,
    state: StreamState,
}

#[wasm_bindgen]
impl RenderStream {
    /// A stream for reasoning (`without_topics`: `<topic>` labels removed) or
    /// answer text.
    #[wasm_bindgen(constructor)]
    pub fn new(without_topics: bool) -> RenderStream {
        RenderStream {
            text: String::new(),
            state: StreamState::new(without_topics),
        }
    }

    /// What the text grew by since the last call.
    pub fn push(&mut self, appended: &str) {
        self.text.push_str(appended);
    }

    /// The text was replaced, not grown: start over (the next frame resets
    /// the page).
    pub fn reset(&mut self) {
        self.text.clear();
    }

    /// The next frame, as JSON (`stream_render::Frame`). `last`: the text is
    /// whole (unfinished-looking markup shows as written).
    pub fn frame(&mut self, last: bool) -> String {
        let next = frame(&mut self.state, &self.text, last);
        // Plain strings, numbers and enums: serializing cannot fail.
        serde_json::to_string(&next).unwrap_or_default()
    }
}

/// An export file's conversations (the JSON of `turn::message::encode` for
/// one, `encode_all` for several) as one Markdown file for download, with or
/// without reasoning (`turn::export::to_markdown_all`); `Err` with the reason
/// if it does not decode.
#[wasm_bindgen]
pub fn export_markdown(export_json: &str, with_reasoning: bool) -> Result<String, String> {
    crate::turn::message::decode_file(export_json)
        .map(|conversations| crate::turn::export::to_markdown_all(&conversations, with_reasoning))
        .map_err(|error| error.to_string())
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

/// Runs the streaming renderer over each of `WARM_UP` once, right after the
/// module has loaded in its worker. The browser compiles a WebAssembly
/// function the first time it runs: without this, the first frames of the
/// first answer compiled about 1,100 of them (74 ms in the code-block
/// benchmark). Done before the worker says it is ready, so no stream waits
/// on it.
#[wasm_bindgen]
pub fn warm_up() {
    for text in WARM_UP {
        let mut state = StreamState::new(false);
        let _ = frame(&mut state, text, false);
        let _ = frame(&mut state, text, true);
    }
}
