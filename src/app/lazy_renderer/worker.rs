//! The page's side of the renderer's Web Worker (`src/render_worker.js`):
//! starting it, sending requests, matching replies, and the deadline that
//! replaces a worker stuck on one text (see `lazy_renderer`'s docs).
//!
//! The worker answers requests one at a time and in order, so the requests
//! in flight are a queue and the oldest one is the one being worked on. Its
//! deadline starts when it becomes the oldest (and the worker has loaded):
//! time spent waiting behind another request is not held against it.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;

use super::{Rendered, EXPORT_DEADLINE_MS, LOAD_DEADLINE_MS, MAX_RESTARTS, RENDER_DEADLINE_MS};
use crate::app::markdown::stream_render::{Frame, Patch};
use crate::app::trusted_html;
use crate::turn::message::Conversation;

#[wasm_bindgen(inline_js = "
    export function start_worker(url, onMessage, onError) {
        const worker = new Worker(url, { type: 'module' });
        worker.onmessage = (event) => onMessage(event.data);
        worker.onerror = (event) => {
            event.preventDefault();
            onError(String(event.message || 'the renderer worker failed'));
        };
        return worker;
    }
    export function test_hooks() {
        const hooks = globalThis.__pensiveRenderTest;
        return hooks && typeof hooks === 'object' ? hooks : null;
    }
")]
extern "C" {
    /// A `Worker` running src/render_worker.js.
    type RenderWorker;

    /// `new Worker(url, {type: "module"})` with its two handlers; throws if
    /// the browser refuses the URL (CSP, Trusted Types).
    #[wasm_bindgen(catch)]
    fn start_worker(
        url: &JsValue,
        on_message: &JsValue,
        on_error: &JsValue,
    ) -> Result<RenderWorker, JsValue>;

    #[wasm_bindgen(method, js_name = postMessage)]
    fn post_message(this: &RenderWorker, message: &JsValue);

    #[wasm_bindgen(method)]
    fn terminate(this: &RenderWorker);

    /// `window.__pensiveRenderTest`, set only by the test suite (below).
    fn test_hooks() -> JsValue;
}

/// What became of one request.
enum Answer {
    /// The worker's reply.
    Reply(JsValue),
    /// The worker was replaced because this request missed its deadline or
    /// crashed it.
    CutShort,
    /// The worker was replaced because of another request.
    Restarted,
    /// There is no renderer any more.
    GivenUp,
}

/// A request the worker has not answered yet.
struct Pending {
    id: u64,
    deadline_ms: f64,
    answer: Box<dyn FnOnce(Answer)>,
}

/// What the test suite may set through `window.__pensiveRenderTest`
/// (end2end/tests/nested-markdown.spec.ts, renderer-unavailable.spec.ts): a
/// shorter or longer deadline, a shorter load deadline,
/// and a text on which the worker spins, to reach the deadline on purpose.
/// Nothing else reads them; a script that can set them could do far worse.
#[derive(Default, Clone)]
struct TestHooks {
    deadline_ms: Option<f64>,
    load_deadline_ms: Option<f64>,
    stall_on: Option<String>,
}

impl TestHooks {
    fn read() -> Self {
        let hooks = test_hooks();
        if hooks.is_null() {
            return TestHooks::default();
        }
        let get = |key: &str| js_sys::Reflect::get(&hooks, &key.into()).ok();
        TestHooks {
            deadline_ms: get("deadlineMs").and_then(|v| v.as_f64()),
            load_deadline_ms: get("loadDeadlineMs").and_then(|v| v.as_f64()),
            stall_on: get("stallOn").and_then(|v| v.as_string()),
        }
    }
}

#[derive(Default)]
struct Renderer {
    worker: Option<RenderWorker>,
    /// Counts the workers started: replies and timers of an older one are
    /// ignored, and streams know their state lives in an older one.
    generation: u64,
    /// The current worker has loaded the module (deadlines run only then).
    loaded: bool,
    /// Given up on: views show plain text.
    failed: bool,
    restarts: u32,
    next_id: u64,
    pending: VecDeque<Pending>,
    /// The oldest request's deadline: its id and the timer.
    watchdog: Option<(u64, TimeoutHandle)>,
    hooks: TestHooks,
}

thread_local! {
    static RENDERER: RefCell<Renderer> = RefCell::new(Renderer::default());
    /// Tracked by views that wait for the renderer.
    static READY: ArcRwSignal<bool> = ArcRwSignal::new(false);
    /// Tracked too: there is no renderer, views show plain text.
    static FAILED: ArcRwSignal<bool> = ArcRwSignal::new(false);
}

pub fn ready() -> bool {
    READY.with(|ready| ready.get())
}

pub fn failed() -> bool {
    FAILED.with(|failed| failed.get())
}

pub fn idle() -> bool {
    RENDERER.with(|r| r.borrow().pending.is_empty())
}

pub fn start_loading() {
    RENDERER.with(|r| r.borrow_mut().hooks = TestHooks::read());
    start_worker_now();
}

/// For tests and the benchmarks: the renderer's state on `<body>`.
fn mark_body(name: &str, value: &str) {
    if let Some(body) = document().body() {
        let _ = body.set_attribute(name, value);
    }
}

fn start_worker_now() {
    let generation = RENDERER.with(|r| {
        let mut r = r.borrow_mut();
        r.generation += 1;
        r.loaded = false;
        r.generation
    });
    // Leaked to JS's collector with the worker: a worker is started once,
    // and again only after a failure (at most `MAX_RESTARTS` times).
    let on_message =
        Closure::<dyn Fn(JsValue)>::new(move |data| on_message(generation, data)).into_js_value();
    let on_error =
        Closure::<dyn Fn(String)>::new(move |message: String| on_error(generation, &message))
            .into_js_value();
    match start_worker(&trusted_html::render_worker_url(), &on_message, &on_error) {
        Ok(worker) => {
            let load_deadline = RENDERER
                .with(|r| r.borrow().hooks.load_deadline_ms)
                .unwrap_or(LOAD_DEADLINE_MS);
            set_timeout(
                move || never_loaded(generation),
                Duration::from_millis(load_deadline as u64),
            );
            let stall_on = RENDERER.with(|r| r.borrow().hooks.stall_on.clone());
            if let Some(text) = stall_on {
                worker.post_message(&message(&[("op", "test".into()), ("stallOn", text.into())]));
            }
            RENDERER.with(|r| r.borrow_mut().worker = Some(worker));
        }
        Err(error) => {
            leptos::logging::error!("the renderer's worker could not start: {error:?}");
            give_up();
        }
    }
}

/// The load deadline of worker `generation` passed: if it is still the
/// current one and has not said it is ready, nothing will render.
fn never_loaded(generation: u64) {
    let stuck = RENDERER.with(|r| {
        let r = r.borrow();
        r.generation == generation && !r.loaded && !r.failed
    });
    if stuck {
        leptos::logging::warn!("the renderer did not load in time: text is shown plain");
        give_up();
    }
}

fn on_message(generation: u64, data: JsValue) {
    if RENDERER.with(|r| r.borrow().generation) != generation {
        return;
    }
    let op = js_sys::Reflect::get(&data, &"op".into())
        .ok()
        .and_then(|op| op.as_string());
    match op.as_deref() {
        Some("ready") => {
            RENDERER.with(|r| {
                let mut r = r.borrow_mut();
                r.loaded = true;
                arm_watchdog(&mut r);
            });
            if !READY.with(|ready| ready.get_untracked()) {
                READY.with(|ready| ready.set(true));
                mark_body("data-renderer", "ready");
            }
        }
        Some("failed") => {
            let error = js_sys::Reflect::get(&data, &"error".into()).unwrap_or_default();
            leptos::logging::error!("the renderer did not load: {error:?}");
            give_up();
        }
        _ => on_reply(data),
    }
}

/// The oldest request's answer: the next one's deadline starts now.
fn on_reply(data: JsValue) {
    let broken = js_sys::Reflect::get(&data, &"broken".into())
        .ok()
        .is_some_and(|b| b.is_truthy());
    let answered = RENDERER.with(|r| {
        let mut r = r.borrow_mut();
        disarm_watchdog(&mut r);
        let answered = r.pending.pop_front();
        arm_watchdog(&mut r);
        answered
    });
    if let Some(pending) = answered {
        (pending.answer)(Answer::Reply(data));
    }
    if broken {
        // A trap leaves the module's instance unusable: the request that
        // caused it has its answer (an error); the others go to a new worker.
        replace_worker(None);
    }
}

fn on_error(generation: u64, message: &str) {
    let (current, loaded) = RENDERER.with(|r| {
        let r = r.borrow();
        (r.generation == generation, r.loaded)
    });
    if !current {
        return;
    }
    leptos::logging::error!("the renderer's worker failed: {message}");
    if loaded {
        let culprit = RENDERER.with(|r| r.borrow().pending.front().map(|p| p.id));
        replace_worker(culprit);
    } else {
        // The worker's script or the module did not load.
        give_up();
    }
}

fn arm_watchdog(r: &mut Renderer) {
    if r.watchdog.is_some() || !r.loaded {
        return;
    }
    let Some(front) = r.pending.front() else {
        return;
    };
    let (id, generation) = (front.id, r.generation);
    let deadline = front.deadline_ms;
    let timer = set_timeout_with_handle(
        move || missed_deadline(generation, id),
        Duration::from_millis(deadline as u64),
    );
    if let Ok(timer) = timer {
        r.watchdog = Some((id, timer));
    }
}

fn disarm_watchdog(r: &mut Renderer) {
    if let Some((_, timer)) = r.watchdog.take() {
        timer.clear();
    }
}

fn missed_deadline(generation: u64, id: u64) {
    let stuck = RENDERER.with(|r| {
        let r = r.borrow();
        r.generation == generation && r.pending.front().is_some_and(|p| p.id == id)
    });
    if stuck {
        leptos::logging::warn!("a render missed its deadline: the renderer's worker is replaced");
        replace_worker(Some(id));
    }
}

/// Terminates the worker and starts another; `culprit` is told it was cut
/// short, every other request that it should ask again.
fn replace_worker(culprit: Option<u64>) {
    let (pending, restarts) = RENDERER.with(|r| {
        let mut r = r.borrow_mut();
        disarm_watchdog(&mut r);
        if let Some(worker) = r.worker.take() {
            worker.terminate();
        }
        r.restarts += 1;
        (std::mem::take(&mut r.pending), r.restarts)
    });
    mark_body("data-renderer-restarts", &restarts.to_string());
    if restarts > MAX_RESTARTS {
        // `give_up` answers the requests (the pending ones are back in place).
        RENDERER.with(|r| r.borrow_mut().pending = pending);
        give_up();
        return;
    }
    start_worker_now();
    for request in pending {
        let answer = if Some(request.id) == culprit {
            Answer::CutShort
        } else {
            Answer::Restarted
        };
        (request.answer)(answer);
    }
}

/// No renderer from now on: every view shows plain text.
fn give_up() {
    let pending = RENDERER.with(|r| {
        let mut r = r.borrow_mut();
        disarm_watchdog(&mut r);
        if let Some(worker) = r.worker.take() {
            worker.terminate();
        }
        r.failed = true;
        r.generation += 1;
        std::mem::take(&mut r.pending)
    });
    READY.with(|ready| ready.set(false));
    FAILED.with(|failed| failed.set(true));
    mark_body("data-renderer", "failed");
    for request in pending {
        (request.answer)(Answer::GivenUp);
    }
}

/// A plain object of `fields`.
fn message(fields: &[(&str, JsValue)]) -> JsValue {
    let object = js_sys::Object::new();
    for (key, value) in fields {
        let _ = js_sys::Reflect::set(&object, &(*key).into(), value);
    }
    object.into()
}

/// Sends a request (`fields` and its id); `answer` is called once with what
/// became of it (at once if there is no renderer).
fn post(fields: &[(&str, JsValue)], deadline_ms: f64, answer: Box<dyn FnOnce(Answer)>) {
    let refused = RENDERER.with(|r| {
        let mut r = r.borrow_mut();
        let Some(worker) = r.worker.as_ref().filter(|_| !r.failed) else {
            return Some(answer);
        };
        let id = r.next_id;
        let mut fields = fields.to_vec();
        fields.push(("id", (id as f64).into()));
        worker.post_message(&message(&fields));
        r.next_id += 1;
        let deadline_ms = r.hooks.deadline_ms.unwrap_or(deadline_ms);
        r.pending.push_back(Pending {
            id,
            deadline_ms,
            answer,
        });
        arm_watchdog(&mut r);
        None
    });
    if let Some(answer) = refused {
        answer(Answer::GivenUp);
    }
}

fn current_generation() -> Option<u64> {
    RENDERER.with(|r| {
        let r = r.borrow();
        (!r.failed && r.worker.is_some()).then_some(r.generation)
    })
}

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
    let frame = serde_json::from_str::<super::wire::Frame>(&json).ok()?;
    Some((frame.into_frame(), ms))
}

static NEXT_STREAM: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// One text's stream: its id in the worker, and how much of the text the
/// worker holds.
struct StreamState {
    id: u64,
    without_topics: bool,
    /// The worker generation that holds this stream's text (0: none yet).
    generation: u64,
    sent: usize,
    /// A frame of this stream reached the page.
    shown: bool,
    /// The worker holding the text was replaced after frames reached the
    /// page: the next frame starts the page over.
    restart_page: bool,
    /// Cut short: shown as plain text, nothing more is asked for.
    abandoned: bool,
}

pub struct Stream(Rc<RefCell<StreamState>>);

impl Stream {
    pub fn new(without_topics: bool) -> Self {
        Stream(Rc::new(RefCell::new(StreamState {
            id: NEXT_STREAM.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            without_topics,
            generation: 0,
            sent: 0,
            shown: false,
            restart_page: false,
            abandoned: false,
        })))
    }

    pub fn request(&mut self, text: &str, last: bool, deliver: impl FnOnce(Rendered) + 'static) {
        let Some(generation) = current_generation() else {
            deliver(Rendered::Unavailable);
            return;
        };
        let fields = {
            let mut s = self.0.borrow_mut();
            if s.abandoned {
                drop(s);
                deliver(Rendered::TooSlow);
                return;
            }
            let mut reset = false;
            if s.generation != generation {
                // A new worker has none of the text (and no stream of it).
                s.restart_page = s.shown;
                s.generation = generation;
                s.sent = 0;
            }
            // Only what the text grew by crosses over: no frame copies it all.
            if s.sent > text.len() || !text.is_char_boundary(s.sent) {
                s.sent = 0;
                reset = true;
            }
            let appended = &text[s.sent..];
            s.sent = text.len();
            [
                ("op", JsValue::from("frame")),
                ("stream", (s.id as f64).into()),
                ("withoutTopics", s.without_topics.into()),
                ("reset", reset.into()),
                ("appended", appended.into()),
                ("last", last.into()),
            ]
        };
        let state = self.0.clone();
        let answer = move |answer: Answer| {
            let rendered = match answer {
                Answer::Reply(data) => match frame_of(&data) {
                    Some((mut frame, ms)) => {
                        let mut s = state.borrow_mut();
                        if std::mem::take(&mut s.restart_page) {
                            frame.patches.insert(0, Patch::Reset);
                        }
                        s.shown = true;
                        Rendered::Frame(frame, ms)
                    }
                    // The render threw: this text is not tried again.
                    None => {
                        state.borrow_mut().abandoned = true;
                        Rendered::TooSlow
                    }
                },
                Answer::CutShort => {
                    state.borrow_mut().abandoned = true;
                    Rendered::TooSlow
                }
                Answer::Restarted => Rendered::Again,
                Answer::GivenUp => Rendered::Unavailable,
            };
            deliver(rendered);
        };
        post(&fields, RENDER_DEADLINE_MS, Box::new(answer));
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        let s = self.0.borrow();
        if s.generation != 0 && current_generation() == Some(s.generation) {
            RENDERER.with(|r| {
                if let Some(worker) = &r.borrow().worker {
                    worker.post_message(&message(&[
                        ("op", "free".into()),
                        ("stream", (s.id as f64).into()),
                    ]));
                }
            });
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
    if !READY.with(|ready| ready.get_untracked()) {
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
            Answer::CutShort => Err("The export took too long and was stopped.".to_owned()),
            Answer::Restarted => {
                Err("The renderer was restarted; try the export again.".to_owned())
            }
            Answer::GivenUp => Err("The Markdown export is unavailable.".to_owned()),
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
