//! The renderer, in a Web Worker. Markdown, math, highlighting, the HTML
//! sanitizer and the Markdown export are a WebAssembly module of their own
//! (`crate::render_module`, built with the `render-module` feature into
//! `pkg/pensive_render.js`), which runs in a worker (`src/render_worker.js`)
//! started right after hydration ([`start_loading`]). The page sends each
//! text's growth and gets back sanitized fragments, which it applies through
//! its one Trusted Types policy (`trusted_html`). No text can cost the main
//! thread more than applying what comes back: the sanitizer's parse, the
//! highlighter and the math layout all run in the worker.
//!
//! Every request has a deadline ([`RENDER_DEADLINE_MS`]). The worker answers
//! in order, so when the oldest request is late the worker is stuck on it:
//! it is terminated and a new one started. That text is shown as plain text
//! with a notice ([`Rendered::TooSlow`]); every other stream asks again of
//! the new worker ([`Rendered::Again`]) and the rest of the page keeps
//! rendering. A render that crashes the module is treated the same way.
//! These rules are `queue.rs`'s (pure, tested natively); `worker.rs` carries
//! them out with the browser's worker and timers, and `requests.rs` says
//! what a stream or an export asks.
//!
//! Until the worker is ready [`ready`] is false and the views that render
//! Markdown wait for it (milliseconds after hydration on a local network;
//! measured in docs/benchmarks-browser.md). Nothing in the browser build may
//! call the renderer (`markdown::*`, `turn::export`) directly: that would put
//! it back into the main module (the page-weight benchmark would show it). On
//! the server and in native tests there is no worker: the same calls are made
//! in process and answer at once.

use super::markdown::stream_render::Frame;
use crate::turn::message::Conversation;

/// How long one render may take in the worker before the worker is replaced
/// and its text shown plain. Renders of 100 KB of the worst nesting take
/// about 0.2 s in a debug build (docs/security.md); the deadline is ten times
/// that, and far below the point where a user would think the page hung.
pub const RENDER_DEADLINE_MS: f64 = 2_000.0;
/// An export renders a whole conversation at once: it gets longer.
pub const EXPORT_DEADLINE_MS: f64 = 30_000.0;
/// How long a worker may take to load the module and say it is ready. One
/// that never does (a script that hangs, a proxy that stalls the module)
/// would hold every render request: past this the renderer is given up on
/// and views show plain text, as when the module cannot load. The module is
/// about 430 KB; this is minutes of a slow mobile connection.
pub const LOAD_DEADLINE_MS: f64 = 60_000.0;
/// Workers replaced in one page's life before the renderer is given up on
/// (views then show plain text, as when the module cannot load).
pub const MAX_RESTARTS: u32 = 8;

/// What became of a request for a frame.
#[derive(Debug)]
pub enum Rendered {
    /// The next frame (and, in the browser, the worker's time on it in ms).
    Frame(Frame, f64),
    /// The worker was replaced while this was in flight: ask again (the
    /// next frame starts the page over).
    Again,
    /// This text missed its deadline or crashed the renderer: show it as
    /// plain text, with a notice. The stream asks for nothing more.
    TooSlow,
    /// There is no renderer (it did not load, or was given up on): plain text.
    Unavailable,
}

/// The streaming renderer's side of one growing text (one `StreamingMarkdown`).
pub struct Stream(imp::Stream);

impl Stream {
    /// `without_topics`: remove `<topic>` labels (reasoning text).
    pub fn new(without_topics: bool) -> Self {
        Stream(imp::Stream::new(without_topics))
    }

    /// Asks for the next frame for `text` (the last frame's text, grown;
    /// anything else starts over); `last`: the text is whole. `deliver` gets
    /// the answer: at once on the server, when the worker answers in the
    /// browser. Ask again only after it has been called.
    pub fn request(&mut self, text: &str, last: bool, deliver: impl FnOnce(Rendered) + 'static) {
        self.0.request(text, last, deliver)
    }
}

/// Conversations (the shown one, or all of them) as one Markdown file for
/// download, with or without reasoning (`turn::export::to_markdown_all`), or
/// why not, given to `deliver` (at once on the server, when the worker
/// answers in the browser).
pub fn export_markdown(
    conversations: &[Conversation],
    with_reasoning: bool,
    deliver: impl FnOnce(Result<String, String>) + 'static,
) {
    imp::export_markdown(conversations, with_reasoning, deliver)
}

/// Whether the renderer is ready. Reactive in the browser: an effect that
/// reads it runs again when the worker has loaded.
pub fn ready() -> bool {
    imp::ready()
}

/// Whether the renderer could not be loaded (reactive, like [`ready`]): the
/// views then show their text as plain text, so nothing is lost.
pub fn failed() -> bool {
    imp::failed()
}

/// Whether the renderer has answered every request made of it (reactive
/// only through [`ready`]: poll it, e.g. once per frame).
pub fn idle() -> bool {
    imp::idle()
}

/// Starts the renderer's worker (at hydration).
pub fn start_loading() {
    imp::start_loading()
}

/// On the server and in native tests: the same renderer, in process.
#[cfg(not(feature = "hydrate"))]
mod in_process {
    use super::super::markdown::stream_render::{frame, StreamState};
    use super::Rendered;
    use crate::turn::message::Conversation;

    pub struct Stream(StreamState);

    impl Stream {
        pub fn new(without_topics: bool) -> Self {
            Stream(StreamState::new(without_topics))
        }

        pub fn request(&mut self, text: &str, last: bool, deliver: impl FnOnce(Rendered)) {
            deliver(Rendered::Frame(frame(&mut self.0, text, last), 0.0));
        }
    }

    pub fn export_markdown(
        conversations: &[Conversation],
        with_reasoning: bool,
        deliver: impl FnOnce(Result<String, String>),
    ) {
        deliver(Ok(crate::turn::export::to_markdown_all(
            conversations,
            with_reasoning,
        )));
    }

    pub fn ready() -> bool {
        true
    }

    pub fn failed() -> bool {
        false
    }

    pub fn idle() -> bool {
        true
    }

    pub fn start_loading() {}
}

#[cfg(not(feature = "hydrate"))]
use in_process as imp;

#[cfg(all(test, not(feature = "hydrate")))]
mod export_tests {
    use crate::turn::message::{decode, Conversation};

    /// A stored record with one thinking block and an answer.
    fn conversation(id: &str, title: &str) -> Conversation {
        let raw = format!(
            r#"{{"version":3,"conversation":{{"id":"{id}","title":"{title}","created_at":1,"updated_at":2,
              "messages":[{{"role":"user","content":"Q"}},{{"role":"assistant","blocks":[
              {{"kind":"thinking","text":"Pondering.","duration_ms":2000,"state":"done"}},
              {{"kind":"answer","text":"A."}}],"status":"done"}}]}}}}"#
        );
        decode(&raw).unwrap()
    }

    fn export(conversations: &[Conversation], with_reasoning: bool) -> String {
        let got = std::rc::Rc::new(std::cell::RefCell::new(None));
        let put = got.clone();
        super::export_markdown(conversations, with_reasoning, move |md| {
            *put.borrow_mut() = Some(md)
        });
        let md = got.borrow_mut().take();
        md.expect("answers at once in process").unwrap()
    }

    /// The same choices as the worker's: every conversation, with or
    /// without reasoning.
    #[test]
    fn the_in_process_export_takes_every_conversation_and_the_reasoning_choice() {
        let all = [conversation("a", "First"), conversation("b", "Second")];
        let with = export(&all, true);
        assert!(with.starts_with("# First\n"), "{with}");
        assert!(with.contains("\n---\n\n# Second\n"), "{with}");
        assert_eq!(with.matches("Pondering.").count(), 2, "{with}");
        let without = export(&all, false);
        assert!(
            !without.contains("Pondering") && !without.contains("<details>"),
            "{without}"
        );
        assert_eq!(without.matches("A.").count(), 2, "{without}");
    }
}

// The worker client's rules, pure so that they are tested natively; the
// browser body (`worker`) carries out what they decide.
#[cfg(any(feature = "hydrate", test))]
mod queue;
#[cfg(feature = "hydrate")]
mod requests;
#[cfg(any(feature = "hydrate", test))]
mod stream_sync;
#[cfg(feature = "hydrate")]
mod worker;
/// In the browser: the worker client.
#[cfg(feature = "hydrate")]
mod imp {
    pub use super::requests::{export_markdown, Stream};
    pub use super::worker::{failed, idle, ready, start_loading};
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
