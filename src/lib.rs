//! Pensive: chat with a reasoning model and watch it think.
//!
//! `turn` is the pure core shared by both builds, `app` the Leptos UI (server
//! rendered and hydrated), `server` the ssr-only providers and turn runner.

// The chat page's view type is deep; optimised builds need a higher limit.
#![recursion_limit = "256"]
// The split release build (src/app/later.rs) names an export after each split
// function; it is built on the pinned nightly.
#![cfg_attr(pensive_split, feature(macro_metavar_expr_concat))]

pub mod app;
#[cfg(feature = "render-module")]
pub mod render_module;
#[cfg(feature = "ssr")]
pub mod server;
pub mod turn;

/// Browser entry point: hydrates the server-rendered page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // The Trusted Types policy exists before any other script could claim it.
    app::trusted_html::install();
    // The renderer's worker starts once the page is marked hydrated (app::App).
    leptos::mount::hydrate_body(app::App);
}
