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
