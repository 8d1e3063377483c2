//! What the benchmarks read of this view's own work (bench/browser.sh), added
//! up in `window.__pensivePerf` when a benchmark created that object: on the
//! main thread, the time spent asking the renderer (`streamRenderMs`) and
//! applying its frames to the page (`streamPageMs`); in the renderer's worker,
//! off the main thread, the time it took to render them (`streamWorkerMs`);
//! and the bytes of HTML the frames held (`streamHtmlBytes`).
//! Without the object, nothing is recorded.

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
