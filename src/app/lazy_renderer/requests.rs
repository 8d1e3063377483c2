//! The two things the page asks of the renderer's worker: the next frame of
//! a growing text (a [`Stream`]) and a Markdown export, and what each
//! answer means for the view that asked. Sending them is `worker.rs`'s;
//! their deadlines and when the worker is replaced are `queue.rs`'s rules.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsValue;

use super::queue::Outcome;
use super::stream_sync::StreamSync;
use super::worker::{current_generation, failed, post, ready_untracked, tell, Answer};
use super::{Rendered, EXPORT_DEADLINE_MS, RENDER_DEADLINE_MS};
use crate::app::markdown::stream_render::{Frame, Patch};
use crate::turn::message::Conversation;

/// A string field of a reply.
fn field(data: &JsValue, key: &str) -> Option<String> {
    js_sys::Reflect::get(data, &key.into())
        .ok()
        .and_then(|v| v.as_string())
}

/// The frame in a reply, and the worker's time on it.
fn frame_of(data: &JsValue) -> Option<(Frame, f64)> {
    let json = field(data, "frame")?;
    let ms = js_sys::Reflect::get(data, &"ms".into())
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0);
    let frame = crate::turn::json::read::<super::wire::Frame>(&json).ok()?;
    Some((frame.into_frame(), ms))
}

static NEXT_STREAM: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// One text's stream: its id in the worker, and how much of the text the
/// worker holds.
struct StreamState {
    id: u64,
    without_topics: bool,
    sync: StreamSync,
}

pub struct Stream(Rc<RefCell<StreamState>>);

impl Stream {
    pub fn new(without_topics: bool) -> Self {
        Stream(Rc::new(RefCell::new(StreamState {
            id: NEXT_STREAM.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            without_topics,
            sync: StreamSync::default(),
        })))
    }

    pub fn request(&mut self, text: &str, last: bool, deliver: impl FnOnce(Rendered) + 'static) {
        let Some(generation) = current_generation() else {
            deliver(Rendered::Unavailable);
            return;
        };
        let fields = {
            let mut s = self.0.borrow_mut();
            let Some(growth) = s.sync.ask(generation, text) else {
                drop(s);
                deliver(Rendered::TooSlow);
                return;
            };
            [
                ("op", JsValue::from("frame")),
                ("stream", (s.id as f64).into()),
                ("withoutTopics", s.without_topics.into()),
                ("reset", growth.reset.into()),
                ("appended", growth.appended.into()),
                ("last", last.into()),
            ]
        };
        let state = self.0.clone();
        let answer = move |answer: Answer| {
            let rendered = match answer {
                Answer::Reply(data) => match frame_of(&data) {
                    Some((mut frame, ms)) => {
                        if state.borrow_mut().sync.framed() {
                            frame.patches.insert(0, Patch::Reset);
                        }
                        Rendered::Frame(frame, ms)
                    }
                    // The render threw: this text is not tried again.
                    None => {
                        state.borrow_mut().sync.abandon();
                        Rendered::TooSlow
                    }
                },
                Answer::Not(Outcome::CutShort) => {
                    state.borrow_mut().sync.abandon();
                    Rendered::TooSlow
                }
                Answer::Not(Outcome::Restarted) => Rendered::Again,
                Answer::Not(Outcome::GivenUp) => Rendered::Unavailable,
            };
            deliver(rendered);
        };
        post(&fields, RENDER_DEADLINE_MS, Box::new(answer));
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        let s = self.0.borrow();
        if s.sync.holder().is_some() && current_generation() == s.sync.holder() {
            tell(&[("op", "free".into()), ("stream", (s.id as f64).into())]);
        }
    }
}

pub fn export_markdown(
    conversations: &[Conversation],
    with_reasoning: bool,
    deliver: impl FnOnce(Result<String, String>) + 'static,
) {
    if failed() {
        deliver(Err(
            "The Markdown export is unavailable: the renderer did not load.".to_owned(),
        ));
        return;
    }
    if !ready_untracked() {
        deliver(Err(
            "The page is still loading; try again in a moment.".to_owned()
        ));
        return;
    }
    // Every conversation crosses as one file, as Export JSON writes it; the
    // worker leaves the reasoning out itself (`export_markdown`).
    let envelope = crate::turn::message::encode_all(conversations, js_sys::Date::now());
    let answer = move |answer: Answer| {
        deliver(match answer {
            Answer::Reply(data) => field(&data, "markdown").ok_or_else(|| {
                let why = field(&data, "error").unwrap_or_default();
                format!("The conversation could not be exported: {why}")
            }),
            Answer::Not(Outcome::CutShort) => {
                Err("The export took too long and was stopped.".to_owned())
            }
            Answer::Not(Outcome::Restarted) => {
                Err("The renderer was restarted; try the export again.".to_owned())
            }
            Answer::Not(Outcome::GivenUp) => Err("The Markdown export is unavailable.".to_owned()),
        })
    };
    post(
        &[
            ("op", "export".into()),
            ("json", envelope.into()),
            ("withReasoning", with_reasoning.into()),
        ],
        EXPORT_DEADLINE_MS,
        Box::new(answer),
    );
}
