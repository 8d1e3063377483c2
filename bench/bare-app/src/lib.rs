//! A bare Leptos counter page: the baseline Pensive's page weight and time to
//! interactive are compared with.

pub mod app;

/// Browser entry point: hydrates the server-rendered page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
}
