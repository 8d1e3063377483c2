//! The renderer, loaded after the page is interactive. Markdown, math,
//! highlighting, the HTML sanitizer and the Markdown export are not needed to
//! make the page interactive, so in the browser they are a WebAssembly module
//! of their own (`crate::render_module`, built with the `render-module`
//! feature into `pkg/pensive_render.js`), imported right after hydration
//! ([`start_loading`]). Until it has arrived [`ready`] is false and the views
//! that render Markdown wait for it (milliseconds after hydration on a local
//! network; measured in docs/benchmarks-browser.md).
//!
//! Nothing in the browser build may call the renderer (`markdown::*`,
//! `turn::export`) directly: that would put it back into the main module (the
//! page-weight benchmark would show it). On the server and in native tests
//! there is no module: the same calls are made in process.

use super::markdown::stream_render::Frame;
use crate::turn::message::Conversation;

/// The streaming renderer's side of one growing text (one `StreamingMarkdown`).
pub struct Stream(imp::Stream);

impl Stream {
    /// `without_topics`: remove `<topic>` labels (reasoning text).
    pub fn new(without_topics: bool) -> Self {
        Stream(imp::Stream::new(without_topics))
    }

    /// The next frame for `text` (the last frame's text, grown; anything else
    /// starts over). `last`: the text is whole. `None` until the renderer has
    /// loaded, or if it failed.
    pub fn frame(&mut self, text: &str, last: bool) -> Option<Frame> {
        self.0.frame(text, last)
    }
}

/// A conversation as Markdown for download, or why not (not loaded yet).
pub fn export_markdown(conversation: &Conversation) -> Result<String, String> {
    imp::export_markdown(conversation)
}

/// Whether the renderer has loaded. Reactive in the browser: an effect that
/// reads it runs again when the module arrives.
pub fn ready() -> bool {
    imp::ready()
}

/// Whether the renderer could not be loaded (reactive, like [`ready`]): the
/// views then show their text as plain text, so nothing is lost.
pub fn failed() -> bool {
    imp::failed()
}

/// Starts loading the renderer (at hydration).
pub fn start_loading() {
    imp::start_loading()
}

#[cfg(not(feature = "hydrate"))]
mod imp {
    use super::super::markdown::stream_render::{frame, Frame, StreamState};
    use crate::turn::message::Conversation;

    pub struct Stream(StreamState);

    impl Stream {
        pub fn new(without_topics: bool) -> Self {
            Stream(StreamState::new(without_topics))
        }

        pub fn frame(&mut self, text: &str, last: bool) -> Option<Frame> {
            Some(frame(&mut self.0, text, last))
        }
    }

    pub fn export_markdown(conversation: &Conversation) -> Result<String, String> {
        Ok(crate::turn::export::to_markdown(conversation))
    }

    pub fn ready() -> bool {
        true
    }

    pub fn failed() -> bool {
        false
    }

    pub fn start_loading() {}
}

#[cfg(feature = "hydrate")]
mod imp {
    use std::cell::RefCell;

    use leptos::prelude::*;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;

    use super::super::markdown::stream_render::Frame;
    use crate::turn::message::Conversation;

    /// Where the build puts the module (`make`, the `render-module` target).
    const MODULE_URL: &str = "/pkg/pensive_render.js";

    #[wasm_bindgen(inline_js = "
        export async function load_renderer(url) {
            const module = await import(url);
            await module.default();
            return module;
        }
        export function new_render_stream(module, withoutTopics) {
            return new module.RenderStream(withoutTopics);
        }
    ")]
    extern "C" {
        /// Imports the module and instantiates its WebAssembly.
        #[wasm_bindgen(catch)]
        async fn load_renderer(url: &str) -> Result<JsValue, JsValue>;

        // Every call into the module is `catch`: a crash in it (a panic is
        // a trap, thrown as a JS exception) becomes an `Err` here instead of
        // unwinding through the page's own state.
        #[wasm_bindgen(catch)]
        fn new_render_stream(
            module: &JsValue,
            without_topics: bool,
        ) -> Result<RenderStreamHandle, JsValue>;

        /// A `render_module::RenderStream` in the renderer's module.
        type RenderStreamHandle;

        #[wasm_bindgen(method, catch)]
        fn push(this: &RenderStreamHandle, appended: &str) -> Result<(), JsValue>;

        #[wasm_bindgen(method, catch)]
        fn reset(this: &RenderStreamHandle) -> Result<(), JsValue>;

        #[wasm_bindgen(method, catch)]
        fn frame(this: &RenderStreamHandle, last: bool) -> Result<String, JsValue>;

        /// Frees the stream's memory in the renderer's module.
        #[wasm_bindgen(method, catch)]
        fn free(this: &RenderStreamHandle) -> Result<(), JsValue>;
    }

    /// The renderer threw: a crashed WebAssembly instance stays broken, so
    /// it is dropped and every view shows plain text from now on.
    fn crashed(error: JsValue) {
        leptos::logging::error!("the renderer failed: {error:?}");
        MODULE.with(|slot| *slot.borrow_mut() = None);
        READY.with(|ready| ready.set(false));
        FAILED.with(|failed| failed.set(true));
        if let Some(body) = document().body() {
            let _ = body.set_attribute("data-renderer", "failed");
        }
    }

    thread_local! {
        static MODULE: RefCell<Option<JsValue>> = const { RefCell::new(None) };
        /// Tracked by views that wait for the renderer.
        static READY: ArcRwSignal<bool> = ArcRwSignal::new(false);
        /// Tracked too: the module did not load, views show plain text.
        static FAILED: ArcRwSignal<bool> = ArcRwSignal::new(false);
    }

    fn module() -> Option<JsValue> {
        MODULE.with(|module| module.borrow().clone())
    }

    pub struct Stream {
        without_topics: bool,
        handle: Option<RenderStreamHandle>,
        /// How much of the text the module has (its copy only grows).
        sent: usize,
    }

    impl Stream {
        pub fn new(without_topics: bool) -> Self {
            Stream {
                without_topics,
                handle: None,
                sent: 0,
            }
        }

        pub fn frame(&mut self, text: &str, last: bool) -> Option<Frame> {
            match self.try_frame(text, last) {
                Ok(frame) => frame,
                Err(error) => {
                    self.handle = None; // its module is gone
                    crashed(error);
                    None
                }
            }
        }

        fn try_frame(&mut self, text: &str, last: bool) -> Result<Option<Frame>, JsValue> {
            if self.handle.is_none() {
                let Some(module) = module() else {
                    return Ok(None);
                };
                self.handle = Some(new_render_stream(&module, self.without_topics)?);
                self.sent = 0;
            }
            let Some(handle) = self.handle.as_ref() else {
                return Ok(None);
            };
            // Only what the text grew by crosses over: no frame copies it all.
            if self.sent > text.len() || !text.is_char_boundary(self.sent) {
                handle.reset()?;
                self.sent = 0;
            }
            if self.sent < text.len() {
                handle.push(&text[self.sent..])?;
                self.sent = text.len();
            }
            let json = handle.frame(last)?;
            Ok(serde_json::from_str::<super::wire::Frame>(&json)
                .ok()
                .map(super::wire::Frame::into_frame))
        }
    }

    impl Drop for Stream {
        fn drop(&mut self) {
            if let Some(handle) = &self.handle {
                let _ = handle.free();
            }
        }
    }

    pub fn export_markdown(conversation: &Conversation) -> Result<String, String> {
        let module = module().ok_or("The page is still loading; try again in a moment.")?;
        let export = js_sys::Reflect::get(&module, &"export_markdown".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            .ok_or("The Markdown export is missing from the renderer.")?;
        let envelope = crate::turn::message::encode(conversation, js_sys::Date::now());
        export
            .call1(&JsValue::NULL, &envelope.into())
            .ok()
            .and_then(|markdown| markdown.as_string())
            .ok_or_else(|| "The conversation could not be exported.".to_owned())
    }

    pub fn ready() -> bool {
        READY.with(|ready| ready.get())
    }

    pub fn failed() -> bool {
        FAILED.with(|failed| failed.get())
    }

    pub fn start_loading() {
        leptos::task::spawn_local(async {
            match load_renderer(MODULE_URL).await {
                Ok(module) => {
                    MODULE.with(|slot| *slot.borrow_mut() = Some(module));
                    READY.with(|ready| ready.set(true));
                    super::super::streaming_markdown::warm_up();
                    // For tests and the page-weight benchmark: when it arrived.
                    if let Some(body) = document().body() {
                        let _ = body.set_attribute("data-renderer", "ready");
                    }
                }
                Err(error) => {
                    leptos::logging::error!("the renderer did not load: {error:?}");
                    FAILED.with(|failed| failed.set(true));
                    if let Some(body) = document().body() {
                        let _ = body.set_attribute("data-renderer", "failed");
                    }
                }
            }
        });
    }
}

/// A frame as the renderer's module sends it (JSON). Only the module's
/// sanitizer makes HTML fit for the page, so `Fragment` cannot be read
/// from JSON by anyone: this copy of the shape can, and only this module
/// turns it into fragments, trusting the renderer that wrote it.
#[cfg(any(feature = "hydrate", test))]
mod wire {
    use serde::Deserialize;

    use super::super::markdown::stream_render::{self, Fragment, OpenKind};

    #[derive(Deserialize)]
    pub struct Frame {
        patches: Vec<Patch>,
        tail: String,
        tail_inside: bool,
    }

    #[derive(Deserialize)]
    enum Patch {
        Reset,
        Blocks {
            html: String,
            at: usize,
        },
        Open {
            html: String,
            kind: OpenKind,
            at: usize,
        },
        Append(String),
        Replace(String),
        Close,
        Discard,
    }

    impl Frame {
        pub fn into_frame(self) -> stream_render::Frame {
            let trusted = Fragment::from_render_module;
            stream_render::Frame {
                patches: self
                    .patches
                    .into_iter()
                    .map(|patch| match patch {
                        Patch::Reset => stream_render::Patch::Reset,
                        Patch::Blocks { html, at } => stream_render::Patch::Blocks {
                            html: trusted(html),
                            at,
                        },
                        Patch::Open { html, kind, at } => stream_render::Patch::Open {
                            html: trusted(html),
                            kind,
                            at,
                        },
                        Patch::Append(html) => stream_render::Patch::Append(trusted(html)),
                        Patch::Replace(html) => stream_render::Patch::Replace(trusted(html)),
                        Patch::Close => stream_render::Patch::Close,
                        Patch::Discard => stream_render::Patch::Discard,
                    })
                    .collect(),
                tail: trusted(self.tail),
                tail_inside: self.tail_inside,
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::app::markdown::stream_render::{frame, StreamState};

        /// The copy of the shape reads what the renderer writes, every kind
        /// of patch included, to the same frame.
        #[test]
        fn the_wire_copy_reads_the_renderers_frames_back_whole() {
            let mut state = StreamState::new(false);
            let text =
                "# Title\n\nA paragraph.\n\n- one\n- two\n\n```rust\nfn main() {}\n```\n\nmore";
            let mut kinds = std::collections::BTreeSet::new();
            for end in (1..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                let sent = frame(&mut state, &text[..end], end == text.len());
                let json = serde_json::to_string(&sent).unwrap();
                for patch in &sent.patches {
                    kinds.insert(
                        format!("{patch:?}")
                            .split([' ', '(', '{'])
                            .next()
                            .unwrap_or("")
                            .to_owned(),
                    );
                }
                let read: Frame = serde_json::from_str(&json).unwrap();
                assert_eq!(read.into_frame(), sent);
            }
            assert!(kinds.len() >= 4, "{kinds:?}");
        }
    }
}
