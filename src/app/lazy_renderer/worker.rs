//! The page's side of the renderer's Web Worker (`src/render_worker.js`):
//! starting it, sending requests and handing back replies. The rules (the
//! in-order queue, the deadlines, when a worker is replaced or given up on)
//! are `queue.rs`'s; this file carries out what they decide with the
//! browser's worker, timers and signals, and `requests.rs` says what is
//! asked (see `lazy_renderer`'s docs).

use std::cell::RefCell;
use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;

use super::queue::{Effect, Outcome, Queue};
use super::LOAD_DEADLINE_MS;
use crate::app::trusted_html;

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
pub(super) enum Answer {
    /// The worker's reply.
    Reply(JsValue),
    /// Anything else (`queue::Outcome`).
    Not(Outcome),
}

/// How a request is answered.
pub(super) type Reply = Box<dyn FnOnce(Answer)>;

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
    queue: Queue<Reply>,
    worker: Option<RenderWorker>,
    /// The oldest request's deadline timer.
    watchdog: Option<TimeoutHandle>,
    hooks: TestHooks,
}

thread_local! {
    static RENDERER: RefCell<Renderer> = RefCell::new(Renderer::default());
    /// Tracked by views that wait for the renderer.
    static READY: ArcRwSignal<bool> = ArcRwSignal::new(false);
    /// Tracked too: there is no renderer, views show plain text.
    static FAILED: ArcRwSignal<bool> = ArcRwSignal::new(false);
}

/// Hands `event` the queue; the effects it returns are carried out after,
/// with the renderer no longer borrowed (an answer may make a request).
fn with_queue<T>(event: impl FnOnce(&mut Queue<Reply>) -> T) -> T {
    RENDERER.with(|r| event(&mut r.borrow_mut().queue))
}

/// Carries out the queue's decisions, in order.
fn run(effects: Vec<Effect<Reply>>) {
    for effect in effects {
        match effect {
            Effect::StartWorker { generation } => start_worker_now(generation),
            Effect::Terminate => {
                if let Some(worker) = RENDERER.with(|r| r.borrow_mut().worker.take()) {
                    worker.terminate();
                }
            }
            Effect::ArmDeadline {
                generation,
                id,
                after_ms,
            } => {
                let timer = set_timeout_with_handle(
                    move || missed_deadline(generation, id),
                    Duration::from_millis(after_ms as u64),
                );
                RENDERER.with(|r| r.borrow_mut().watchdog = timer.ok());
            }
            Effect::DisarmDeadline => {
                if let Some(timer) = RENDERER.with(|r| r.borrow_mut().watchdog.take()) {
                    timer.clear();
                }
            }
            Effect::Restarted(restarts) => {
                mark_body("data-renderer-restarts", &restarts.to_string())
            }
            Effect::Loaded => {
                if !READY.with(|ready| ready.get_untracked()) {
                    READY.with(|ready| ready.set(true));
                    mark_body("data-renderer", "ready");
                }
            }
            Effect::GaveUp => {
                READY.with(|ready| ready.set(false));
                FAILED.with(|failed| failed.set(true));
                mark_body("data-renderer", "failed");
            }
            Effect::Answer(answer, outcome) => answer(Answer::Not(outcome)),
        }
    }
}

/// Whether the worker has loaded, read without tracking.
pub(super) fn ready_untracked() -> bool {
    READY.with(|ready| ready.get_untracked())
}

pub fn ready() -> bool {
    READY.with(|ready| ready.get())
}

pub fn failed() -> bool {
    FAILED.with(|failed| failed.get())
}

pub fn idle() -> bool {
    with_queue(|queue| queue.idle())
}

pub fn start_loading() {
    RENDERER.with(|r| r.borrow_mut().hooks = TestHooks::read());
    run(with_queue(Queue::start));
}

/// For tests and the benchmarks: the renderer's state on `<body>`.
fn mark_body(name: &str, value: &str) {
    if let Some(body) = document().body() {
        let _ = body.set_attribute(name, value);
    }
}

fn start_worker_now(generation: u64) {
    // Leaked to JS's collector with the worker: a worker is started once,
    // and again only after a failure (at most `MAX_RESTARTS` times).
    let on_message =
        Closure::<dyn Fn(JsValue)>::new(move |data| on_message(generation, data)).into_js_value();
    let on_error =
        Closure::<dyn Fn(String)>::new(move |message: String| on_error(generation, &message))
            .into_js_value();
    match start_worker(&trusted_html::render_worker_url(), &on_message, &on_error) {
        Ok(worker) => {
            let hooks = RENDERER.with(|r| r.borrow().hooks.clone());
            set_timeout(
                move || never_loaded(generation),
                Duration::from_millis(hooks.load_deadline_ms.unwrap_or(LOAD_DEADLINE_MS) as u64),
            );
            if let Some(text) = hooks.stall_on {
                worker.post_message(&message(&[("op", "test".into()), ("stallOn", text.into())]));
            }
            RENDERER.with(|r| {
                let mut r = r.borrow_mut();
                r.worker = Some(worker);
                r.queue.started(generation);
            });
        }
        Err(error) => {
            leptos::logging::error!("the renderer's worker could not start: {error:?}");
            run(with_queue(Queue::start_failed));
        }
    }
}

/// The load deadline of worker `generation` passed.
fn never_loaded(generation: u64) {
    let effects = with_queue(|queue| queue.load_deadline_passed(generation));
    if !effects.is_empty() {
        leptos::logging::warn!("the renderer did not load in time: text is shown plain");
    }
    run(effects);
}

fn on_message(generation: u64, data: JsValue) {
    // Whatever an older worker says is too late to matter.
    if !with_queue(|queue| queue.is_current(generation)) {
        return;
    }
    let op = js_sys::Reflect::get(&data, &"op".into())
        .ok()
        .and_then(|op| op.as_string());
    match op.as_deref() {
        Some("ready") => run(with_queue(|queue| queue.loaded(generation))),
        Some("failed") => {
            let effects = with_queue(|queue| queue.load_failed(generation));
            if !effects.is_empty() {
                let error = js_sys::Reflect::get(&data, &"error".into()).unwrap_or_default();
                leptos::logging::error!("the renderer did not load: {error:?}");
            }
            run(effects);
        }
        _ => on_reply(generation, data),
    }
}

/// The oldest request's answer: the next one's deadline starts now.
fn on_reply(generation: u64, data: JsValue) {
    let broken = js_sys::Reflect::get(&data, &"broken".into())
        .ok()
        .is_some_and(|b| b.is_truthy());
    let (answered, effects) = with_queue(|queue| queue.reply(generation));
    run(effects);
    if let Some(answer) = answered {
        answer(Answer::Reply(data));
    }
    if broken {
        // A trap leaves the module's instance unusable: the request that
        // caused it has its answer (an error); the others go to a new worker.
        run(with_queue(Queue::broke));
    }
}

fn on_error(generation: u64, message: &str) {
    let effects = with_queue(|queue| queue.worker_error(generation));
    if !effects.is_empty() {
        leptos::logging::error!("the renderer's worker failed: {message}");
    }
    run(effects);
}

fn missed_deadline(generation: u64, id: u64) {
    let effects = with_queue(|queue| queue.deadline_passed(generation, id));
    if !effects.is_empty() {
        leptos::logging::warn!("a render missed its deadline: the renderer's worker is replaced");
    }
    run(effects);
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
pub(super) fn post(fields: &[(&str, JsValue)], deadline_ms: f64, answer: Reply) {
    let effects = RENDERER.with(|r| {
        let mut r = r.borrow_mut();
        let deadline_ms = r.hooks.deadline_ms.unwrap_or(deadline_ms);
        let (id, effects) = r.queue.submit(deadline_ms, answer);
        if let (Some(id), Some(worker)) = (id, r.worker.as_ref()) {
            let mut fields = fields.to_vec();
            fields.push(("id", (id as f64).into()));
            worker.post_message(&message(&fields));
        }
        effects
    });
    run(effects);
}

pub(super) fn current_generation() -> Option<u64> {
    with_queue(|queue| queue.current_generation())
}

/// Sends the current worker a message that needs no answer.
pub(super) fn tell(fields: &[(&str, JsValue)]) {
    RENDERER.with(|r| {
        if let Some(worker) = &r.borrow().worker {
            worker.post_message(&message(fields));
        }
    });
}
