//! Content-Security-Policy. Pages get a per-response nonce (leptos_axum makes
//! one per request; the hydration script carries it), so the only scripts a
//! page can run are the app's own files and that one inline bootstrap. Markdown
//! from a model is sanitized already; this is the second wall if that fails.
//! Trusted Types are the third: an HTML sink (`innerHTML`) takes only what the
//! page's one policy made from the sanitizer's output (`app::trusted_html`).

use axum::http::{header, HeaderValue};
use leptos::config::LeptosOptions;
use leptos::prelude::use_context;

/// What every response may do when it is not a page (static files, API
/// answers, the sign-in form): nothing runs, nothing frames it.
pub(crate) const NON_PAGE_POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
     form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The renderer's Web Worker script (`src/render_worker.js`): a worker runs
/// under the policy of its own script's response, not the page's. It may
/// import the renderer module's JS and fetch and compile its WebAssembly,
/// from this origin; nothing else (it touches no DOM, so it has no HTML sink).
pub(crate) const RENDER_WORKER_POLICY: &str =
    "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; \
     connect-src 'self'; base-uri 'none'";

/// The policy for a rendered page with this nonce: own scripts and WASM only,
/// own styles only (no inline `style` attributes), fetches to this origin only,
/// images from this origin only (nothing uses `data:` or `blob:` images: the
/// renderer turns images into links, the CSS has no inline images, and the
/// `data:`/`blob:` downloads are links, which `img-src` does not govern), and
/// HTML sinks take only the output of `trusted_types`, the one Trusted Types
/// policy the page may create (named by the app: the router passes its name).
///
/// `live_reload`: the dev server's reload socket ([`live_reload_source`]), which
/// `connect-src` then also allows.
pub(crate) fn page_policy(nonce: &str, trusted_types: &str, live_reload: Option<&str>) -> String {
    let reload = live_reload
        .map(|source| format!(" {source}"))
        .unwrap_or_default();
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self'; img-src 'self'; connect-src 'self'{reload}; \
         object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; \
         require-trusted-types-for 'script'; trusted-types {trusted_types}"
    )
}

/// Under `cargo leptos watch` (which sets `LEPTOS_WATCH` for the server it
/// runs, the test Leptos' `AutoReload` makes too) the page holds a script that
/// waits on a WebSocket at the reload port, on the page's own host, for "rebuilt:
/// reload". The source that lets it connect; `None` in any other run.
pub(crate) fn live_reload_source(options: &LeptosOptions) -> Option<String> {
    std::env::var_os("LEPTOS_WATCH").map(|_| {
        let port = options.reload_external_port.unwrap_or(options.reload_port);
        format!("ws://*:{port} wss://*:{port}")
    })
}

/// Called while a page renders (the router's page shell): sets the page's
/// policy with this request's nonce. Without a nonce (never, with leptos_axum) the router's strict
/// non-page policy stays, which blocks scripts: failing closed.
pub(crate) fn apply_page_policy(trusted_types: &str, live_reload: Option<&str>) {
    let nonce = leptos::nonce::use_nonce();
    let response = use_context::<leptos_axum::ResponseOptions>();
    if let (Some(nonce), Some(response)) = (nonce, response) {
        let policy = page_policy(&nonce.to_string(), trusted_types, live_reload);
        if let Ok(value) = HeaderValue::from_str(&policy) {
            response.insert_header(header::CONTENT_SECURITY_POLICY, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_policy_allows_only_own_scripts_the_nonce_and_wasm() {
        let policy = page_policy("abc123", "pensive-markdown", None);
        assert!(policy.contains("script-src 'self' 'nonce-abc123' 'wasm-unsafe-eval';"));
        assert!(!policy.contains("unsafe-inline"));
        assert!(policy.contains("frame-ancestors 'none'"));
        assert!(policy.contains("object-src 'none'"));
    }

    #[test]
    fn page_policy_loads_images_from_the_site_only_and_requires_trusted_types() {
        let policy = page_policy("abc123", "pensive-markdown", None);
        assert!(policy.contains("img-src 'self';"), "{policy}");
        assert!(
            !policy.contains("data:") && !policy.contains("blob:"),
            "{policy}"
        );
        assert!(
            policy.ends_with("require-trusted-types-for 'script'; trusted-types pensive-markdown")
        );
        // One policy name, no `default` policy and no duplicates.
        assert!(!policy.contains("'allow-duplicates'") && !policy.contains(" default"));
    }

    #[test]
    fn the_dev_server_page_may_connect_to_its_reload_socket_only() {
        assert!(page_policy("abc123", "pensive-markdown", None).contains("connect-src 'self';"));
        let options = LeptosOptions::builder()
            .output_name("pensive")
            .reload_port(3001)
            .build();
        let source = format!("ws://*:{0} wss://*:{0}", options.reload_port);
        let policy = page_policy("abc123", "pensive-markdown", Some(&source));
        assert!(
            policy.contains("connect-src 'self' ws://*:3001 wss://*:3001;"),
            "{policy}"
        );
        // Only under `cargo leptos watch`; `cargo test` does not set LEPTOS_WATCH.
        assert_eq!(live_reload_source(&options), None);
    }

    #[test]
    fn non_page_policy_runs_no_script() {
        assert!(NON_PAGE_POLICY.starts_with("default-src 'none'"));
        assert!(!NON_PAGE_POLICY.contains("script-src"));
    }
}
