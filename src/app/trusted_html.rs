//! The page's one Trusted Types policy. Pages are served with
//! `require-trusted-types-for 'script'; trusted-types pensive-markdown`
//! (`server::http::csp`), so the browser refuses a plain string in `innerHTML`,
//! `insertAdjacentHTML` and every other HTML sink: only a `TrustedHTML` made by
//! this policy gets in, and [`fragment`] is the only caller of the policy,
//! with the sanitizing renderer's output (the streaming view's fragments,
//! `markdown::stream_render::Fragment`, made by the renderer's own module,
//! `lazy_renderer`). An injected script that reaches a sink with its own
//! string is refused and reported.
//!
//! Never call the policy with anything else, and never hand out its
//! `TrustedHTML` except as [`SanitizedHtml`], which only [`fragment`] makes.
//!
//! The same policy makes the one script URL the page loads by itself, the
//! renderer's worker ([`RENDER_WORKER_URL`], `lazy_renderer`): its
//! `createScriptURL` passes that URL and no other.
//!
//! Leptos builds a static part of a view (an element with only literal
//! attributes and text, inside another element of the same `view!`) from a
//! string through `innerHTML` when it renders after hydration, which this
//! policy does not allow: the browser would refuse it and Leptos would throw.
//! Such an element is written so that it is built node by node: its text as a
//! block (`<h2>{"…"}</h2>`), an empty decoration through [`decoration`]. The
//! Playwright suite fails on any refusal (end2end/tests/fixtures/test.ts).

use leptos::prelude::*;
use leptos::web_sys::Element;

/// An empty decorative `<span class=…>` (a chevron, a pulse), hidden from
/// assistive technology. A view of its own, so that Leptos builds it node by
/// node wherever it is used (see the module doc).
pub fn decoration(class: &'static str) -> impl IntoView {
    view! { <span class=class aria-hidden="true"></span> }
}

/// The policy's name, as the page's CSP lists it.
pub const POLICY_NAME: &str = "pensive-markdown";

/// Markdown rendered by the sanitizing renderer, as the value an HTML sink
/// accepts: a `TrustedHTML` where the browser has Trusted Types, else the
/// string.
pub struct SanitizedHtml(
    #[cfg(feature = "hydrate")] wasm_bindgen::JsValue,
    #[cfg(not(feature = "hydrate"))] String,
);

/// A fragment of the streaming view (`markdown::stream_render`): a block, a
/// code block's highlighted lines, a list's items, a piece of a paragraph.
/// The type is the proof: only that module makes a `Fragment`, and only from
/// the sanitizer's output (see its docs). The other caller of the policy.
pub fn fragment(fragment: super::markdown::stream_render::Fragment) -> SanitizedHtml {
    let html = fragment.into_string();
    #[cfg(feature = "hydrate")]
    {
        SanitizedHtml(js::trusted(html))
    }
    #[cfg(not(feature = "hydrate"))]
    {
        SanitizedHtml(html)
    }
}

/// The renderer's Web Worker script (`src/render_worker.js`, copied into the
/// site's `pkg/` by scripts/build-renderer.sh).
pub const RENDER_WORKER_URL: &str = "/pkg/render_worker.js";

/// [`RENDER_WORKER_URL`] as the value `new Worker()` accepts under Trusted
/// Types: a `TrustedScriptURL` where the browser has them, else the string.
#[cfg(feature = "hydrate")]
pub fn render_worker_url() -> wasm_bindgen::JsValue {
    js::trusted_script_url(RENDER_WORKER_URL)
}

/// Creates the policy now, before anything else on the page could take its
/// name (policies cannot be made twice under one name). Called at hydration.
pub fn install() {
    #[cfg(feature = "hydrate")]
    js::install();
}

impl SanitizedHtml {
    /// Replaces `element`'s children with this HTML.
    pub fn set_as_inner_html(&self, element: &Element) {
        #[cfg(feature = "hydrate")]
        {
            // A refusal is already reported by the browser (a CSP violation);
            // caught, it cannot unwind through the app's own frames.
            let _ = js::set_inner_html_of(element, &self.0);
        }
        #[cfg(not(feature = "hydrate"))]
        element.set_inner_html(&self.0);
    }

    /// Appends this HTML after `element`'s last child.
    pub fn append_to(&self, element: &Element) {
        #[cfg(feature = "hydrate")]
        {
            let _ = js::insert_html(element, "beforeend", &self.0);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = element.insert_adjacent_html("beforeend", &self.0);
    }

    /// Inserts this HTML right before `element` (among its siblings).
    pub fn insert_before(&self, element: &Element) {
        #[cfg(feature = "hydrate")]
        {
            let _ = js::insert_html(element, "beforebegin", &self.0);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = element.insert_adjacent_html("beforebegin", &self.0);
    }
}

#[cfg(feature = "hydrate")]
mod js {
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;

    #[wasm_bindgen]
    extern "C" {
        /// A `TrustedTypePolicy` (web-sys has no binding for Trusted Types).
        type TrustedTypePolicy;

        #[wasm_bindgen(method, js_name = createHTML)]
        fn create_html(this: &TrustedTypePolicy, input: &str) -> JsValue;

        #[wasm_bindgen(method, js_name = createScriptURL)]
        fn create_script_url(this: &TrustedTypePolicy, input: &str) -> JsValue;

        /// An element seen through the HTML sinks that take a `TrustedHTML`
        /// (web-sys's bindings take only strings).
        type HtmlSink;

        #[wasm_bindgen(method, catch, setter = innerHTML)]
        fn set_inner_html(this: &HtmlSink, html: &JsValue) -> Result<(), JsValue>;

        #[wasm_bindgen(method, catch, js_name = insertAdjacentHTML)]
        fn insert_adjacent_html(
            this: &HtmlSink,
            position: &str,
            html: &JsValue,
        ) -> Result<(), JsValue>;
    }

    pub fn set_inner_html_of(element: &web_sys::Element, html: &JsValue) -> Result<(), JsValue> {
        element.unchecked_ref::<HtmlSink>().set_inner_html(html)
    }

    pub fn insert_html(
        element: &web_sys::Element,
        position: &str,
        html: &JsValue,
    ) -> Result<(), JsValue> {
        element
            .unchecked_ref::<HtmlSink>()
            .insert_adjacent_html(position, html)
    }

    thread_local! {
        /// `None` where the browser has no Trusted Types (it then takes strings).
        static POLICY: Option<TrustedTypePolicy> = create_policy();
    }

    pub fn install() {
        POLICY.with(|_| ());
    }

    /// `trustedTypes.createPolicy(POLICY_NAME, {createHTML: identity})`: the
    /// identity, because what it is given is already sanitized (`fragment`).
    fn create_policy() -> Option<TrustedTypePolicy> {
        let window: JsValue = web_sys::window()?.into();
        let factory = js_sys::Reflect::get(&window, &"trustedTypes".into())
            .ok()
            .filter(JsValue::is_object)?;
        let create = js_sys::Reflect::get(&factory, &"createPolicy".into())
            .ok()?
            .dyn_into::<js_sys::Function>()
            .ok()?;
        let options = js_sys::Object::new();
        let identity = Closure::<dyn Fn(String) -> String>::new(|html| html).into_js_value();
        js_sys::Reflect::set(&options, &"createHTML".into(), &identity).ok()?;
        // Only the worker's own URL: anything else becomes a URL that loads nothing.
        let worker_only = Closure::<dyn Fn(String) -> String>::new(|url: String| {
            if url == super::RENDER_WORKER_URL {
                url
            } else {
                "about:invalid".to_owned()
            }
        })
        .into_js_value();
        js_sys::Reflect::set(&options, &"createScriptURL".into(), &worker_only).ok()?;
        // Refused (a name the CSP does not list, or taken): the browser reports
        // it, and every later sink write is refused and reported too.
        create
            .call2(&factory, &super::POLICY_NAME.into(), &options)
            .ok()
            .map(JsCast::unchecked_into)
    }

    /// `url` as a `TrustedScriptURL` (or as the string, without Trusted Types).
    pub fn trusted_script_url(url: &str) -> JsValue {
        POLICY.with(|policy| match policy {
            Some(policy) => policy.create_script_url(url),
            None => JsValue::from(url),
        })
    }

    /// `html` as a `TrustedHTML` (or as the string, without Trusted Types).
    pub fn trusted(html: String) -> JsValue {
        POLICY.with(|policy| match policy {
            Some(policy) => policy.create_html(&html),
            None => JsValue::from(html),
        })
    }
}
