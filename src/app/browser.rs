//! Small browser facts behind one seam, so components compile on the server too
//! (where they return neutral values and are never called after render).

/// Milliseconds on a monotonic clock (performance.now), 0 on the server.
pub fn now_ms() -> f64 {
    #[cfg(feature = "hydrate")]
    {
        web_sys::window()
            .and_then(|w| w.performance())
            .map(|p| p.now())
            .unwrap_or_else(js_sys::Date::now)
    }
    #[cfg(not(feature = "hydrate"))]
    {
        0.0
    }
}

/// Resolves after `ms` milliseconds (never on the server, where nothing
/// waits for it).
pub async fn sleep_ms(ms: u32) {
    let (done, waited) = futures::channel::oneshot::channel::<()>();
    leptos::prelude::set_timeout(
        move || {
            let _ = done.send(());
        },
        std::time::Duration::from_millis(u64::from(ms)),
    );
    let _ = waited.await;
}

/// Wall-clock milliseconds since the epoch (for stored timestamps).
pub fn wall_ms() -> f64 {
    #[cfg(feature = "hydrate")]
    {
        js_sys::Date::now()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        0.0
    }
}

/// An id for a turn: 128 bits from the browser's cryptographic source
/// (`crypto.getRandomValues`), as 32 hex digits. "Answer now" and tool
/// decisions name the turn by it, so it must not be guessable; the server
/// also checks the turn belongs to the caller. Empty when the browser has no
/// such source (then the turn has no id, and its calls that ask first are
/// declined rather than keyed by a guessable one).
pub fn random_id() -> String {
    #[cfg(feature = "hydrate")]
    {
        let mut bytes = [0u8; 16];
        let filled = web_sys::window()
            .and_then(|w| w.crypto().ok())
            .is_some_and(|crypto| crypto.get_random_values_with_u8_array(&mut bytes).is_ok());
        if !filled {
            return String::new();
        }
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        String::new()
    }
}

/// Loads another page of the site (`path`).
pub fn go_to(path: &str) {
    #[cfg(feature = "hydrate")]
    if let Some(window) = web_sys::window() {
        let _ = window.location().assign(path);
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = path;
}

/// Asks the user to confirm `question` (the browser's own dialog); false
/// when declined or where there is no window.
pub fn confirm(question: &str) -> bool {
    #[cfg(feature = "hydrate")]
    {
        web_sys::window()
            .and_then(|w| w.confirm_with_message(question).ok())
            .unwrap_or(false)
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = question;
        false
    }
}

/// Marks the document as hydrated (`<body data-hydrated>`), for tests and CSS.
pub fn mark_hydrated() {
    #[cfg(feature = "hydrate")]
    if let Some(body) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.body())
    {
        let _ = body.set_attribute("data-hydrated", "true");
    }
}

/// Copies text to the clipboard (best effort; the caller shows the result).
pub fn copy_to_clipboard(text: &str) {
    #[cfg(feature = "hydrate")]
    if let Some(window) = web_sys::window() {
        let _ = window.navigator().clipboard().write_text(text);
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = text;
}

/// Offers `text` as a file download named `file_name`.
pub fn download(file_name: &str, mime: &str, text: &str) {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
        let options = web_sys::BlobPropertyBag::new();
        options.set_type(mime);
        let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
            return;
        };
        let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
            return;
        };
        if let Ok(anchor) = document.create_element("a") {
            if let Ok(anchor) = anchor.dyn_into::<web_sys::HtmlAnchorElement>() {
                anchor.set_href(&url);
                anchor.set_download(file_name);
                anchor.click();
            }
        }
        let _ = web_sys::Url::revoke_object_url(&url);
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (file_name, mime, text);
}

/// Reads the first file chosen in a file input (`Err`: a message for the user).
pub async fn read_chosen_file(input: leptos::web_sys::EventTarget) -> Result<String, String> {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        let input = input
            .dyn_into::<web_sys::HtmlInputElement>()
            .map_err(|_| "No file input.".to_owned())?;
        let file = input
            .files()
            .and_then(|files| files.get(0))
            .ok_or_else(|| "No file chosen.".to_owned())?;
        input.set_value("");
        // Refused by its size, before a byte of it is read into memory.
        crate::turn::export::check_import_size(file.size())?;
        let text = wasm_bindgen_futures::JsFuture::from(file.text())
            .await
            .map_err(|_| "The file could not be read.".to_owned())?;
        text.as_string()
            .ok_or_else(|| "The file is not text.".to_owned())
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = input;
        Err("Import is only available in the browser.".into())
    }
}

/// Counts one applied turn event in `window.__pensivePerf.events`, only when a
/// benchmark created that object (bench/browser.sh): the rendering benchmark
/// needs to know how many chunks the page has applied at a given moment. Without
/// the object it does nothing.
pub fn count_applied_event() {
    #[cfg(feature = "hydrate")]
    with_bench_perf(|perf| {
        use wasm_bindgen::JsValue;
        let key = JsValue::from_str("events");
        let so_far = js_sys::Reflect::get(perf, &key)
            .ok()
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        let _ = js_sys::Reflect::set(perf, &key, &JsValue::from_f64(so_far + 1.0));
    });
}

/// Appends when one history save started, how long it took and how many bytes
/// it wrote to `window.__pensivePerf.saves` when a benchmark created that array.
pub fn record_save(started_ms: f64, duration_ms: f64, bytes: usize) {
    #[cfg(feature = "hydrate")]
    with_bench_perf(|perf| {
        use wasm_bindgen::{JsCast, JsValue};
        let Some(saves) = js_sys::Reflect::get(perf, &JsValue::from_str("saves"))
            .ok()
            .and_then(|v| v.dyn_into::<js_sys::Array>().ok())
        else {
            return;
        };
        let sample = js_sys::Array::of3(
            &started_ms.into(),
            &duration_ms.into(),
            &(bytes as f64).into(),
        );
        saves.push(&sample);
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = (started_ms, duration_ms, bytes);
}

/// Runs `f` on `window.__pensivePerf` if a benchmark created it before the app
/// started; looked up once per page load, not once per call.
#[cfg(feature = "hydrate")]
fn with_bench_perf(f: impl FnOnce(&wasm_bindgen::JsValue)) {
    use wasm_bindgen::JsValue;
    thread_local! {
        static PERF: Option<JsValue> = web_sys::window()
            .and_then(|w| js_sys::Reflect::get(&w, &JsValue::from_str("__pensivePerf")).ok())
            .filter(JsValue::is_object);
    }
    PERF.with(|perf| {
        if let Some(perf) = perf {
            f(perf);
        }
    });
}

/// Whether the reader asked for less motion (`prefers-reduced-motion`):
/// scrolling then jumps instead of gliding.
pub fn prefers_reduced_motion() -> bool {
    #[cfg(feature = "hydrate")]
    {
        web_sys::window()
            .and_then(|w| {
                w.match_media("(prefers-reduced-motion: reduce)")
                    .ok()
                    .flatten()
            })
            .is_some_and(|query| query.matches())
    }
    #[cfg(not(feature = "hydrate"))]
    {
        true
    }
}

/// Scrolls `element` smoothly to `top`.
pub fn smooth_scroll_to(element: &leptos::web_sys::Element, top: f64) {
    #[cfg(feature = "hydrate")]
    {
        let options = web_sys::ScrollToOptions::new();
        options.set_top(top);
        options.set_behavior(web_sys::ScrollBehavior::Smooth);
        element.scroll_to_with_scroll_to_options(&options);
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (element, top);
}

/// Whether the page is hidden (another tab, a minimised window, a phone
/// switching apps): the last moment it is sure to run.
pub fn page_hidden() -> bool {
    #[cfg(feature = "hydrate")]
    {
        web_sys::window()
            .and_then(|w| w.document())
            .is_some_and(|d| d.hidden())
    }
    #[cfg(not(feature = "hydrate"))]
    {
        false
    }
}
