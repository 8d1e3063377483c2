//! The axum router: Leptos pages, server functions (with the turn service in
//! their context) and static files. Shared by `pensive serve` and the HTTP tests.

use axum::http::{header, HeaderValue};
use axum::Router;
use leptos::config::LeptosOptions;
use leptos::prelude::{provide_context, IntoView};
use leptos_axum::{generate_route_list, LeptosRoutes};
use tower_http::set_header::SetResponseHeaderLayer;

use super::access::{require_access, sign_in, sign_in_page, Access};
use crate::app::{shell, App};
use crate::server::TurnService;

/// Headers on every response: no MIME sniffing, no referrer leaks, and the
/// app may not be framed by another site (clickjacking).
fn security_headers(router: Router) -> Router {
    let headers = [
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
        // Pages replace this with their nonce policy (`page_shell`).
        (header::CONTENT_SECURITY_POLICY, super::csp::NON_PAGE_POLICY),
    ];
    headers.into_iter().fold(router, |router, (name, value)| {
        router.layer(SetResponseHeaderLayer::if_not_present(
            name,
            HeaderValue::from_static(value),
        ))
    })
}

/// The page document: the app's shell, with this response's nonce policy set
/// while it renders (leptos_axum makes the nonce per request, in the render's
/// context; the hydration script carries it).
fn page_shell(options: LeptosOptions) -> impl IntoView {
    super::csp::apply_page_policy(
        &format!(
            "{} {}",
            crate::app::trusted_html::POLICY_NAME,
            crate::app::restore_shell::RESTORE_POLICY_NAME
        ),
        super::csp::live_reload_source(&options).as_deref(),
    );
    shell(options)
}

/// The app's routes, found once per process. Leptos finds them by rendering
/// the app with resource loading switched off for the whole process (a global
/// flag), so a page rendered meanwhile by another router in the same process
/// would wait forever for a resource that never loads: tests build routers
/// while other tests render, and one run in twelve of tests/static_files.rs hung before this.
fn page_routes() -> Vec<leptos_axum::AxumRouteListing> {
    static ROUTES: std::sync::OnceLock<Vec<leptos_axum::AxumRouteListing>> =
        std::sync::OnceLock::new();
    ROUTES.get_or_init(|| generate_route_list(App)).clone()
}

/// Builds the whole app. No compression layer: it would buffer streamed turns.
pub fn build_router(turns: TurnService, options: LeptosOptions) -> Router {
    let routes = page_routes();
    let health = turns.clone();
    let pruned = turns.clone();
    let access_token = turns.config().access_token.clone();
    let site_access = turns.config().site_access.clone();
    let allowed_hosts =
        super::same_origin::AllowedHosts::new(options.site_addr, &site_access.allowed_hosts);
    let limits = turns.config().limits.clone();
    let client_limits = std::sync::Arc::new(limits.clone());
    let max_body = limits.max_body_bytes;
    let context = move || provide_context(turns.clone());
    // Pages name the hashed files only if the site holds them (static_files.rs).
    let assets = super::static_files::Assets::detect(&options);
    let options = assets.page_options(options);
    let router = Router::new()
        .route(
            "/healthz",
            axum::routing::get(move || {
                let active = health.active_turns();
                let (held, log_bytes) = health.held_turns();
                async move {
                    axum::Json(serde_json::json!({
                        "status": "ok",
                        "active_turns": active,
                        "held_turns": held,
                        "turn_log_bytes": log_bytes,
                    }))
                }
            }),
        )
        .leptos_routes_with_context(&options, routes, context.clone(), {
            let options = options.clone();
            move || page_shell(options.clone())
        })
        .nest_service(assets.mount(), assets.clone().router())
        .fallback(leptos_axum::file_and_error_handler_with_context(
            context, page_shell,
        ))
        .with_state(options);
    let router = router
        // A body a server function cannot read answers 400, not server_fn's 500.
        .layer(axum::middleware::from_fn(
            super::unreadable_request::answer_unreadable_requests,
        ))
        .layer(axum::middleware::from_fn_with_state(
            max_body,
            super::body_limit::limit_api_bodies,
        ))
        // axum's own default (2 MiB) would answer a body between it and the
        // configured limit with an unreadable 500: `limit_api_bodies` is the
        // one limit.
        .layer(axum::extract::DefaultBodyLimit::disable());
    let access = access_token.map(|token| {
        Access::new(
            token,
            site_access.cookie_secret.as_ref(),
            site_access.revoked_sessions.clone(),
            limits,
        )
    });
    forget_quiet_clients(&pruned, access.clone());
    let router = match access {
        Some(access) => with_access_control(router, access),
        None => router,
    };
    // Outside the access check, so sign-in attempts are counted per client too.
    let router = router.layer(axum::middleware::from_fn_with_state(
        client_limits,
        super::client::identify_client,
    ));
    // Outermost but for the headers: other sites' requests stop here.
    let router = router.layer(axum::middleware::from_fn_with_state(
        allowed_hosts,
        super::same_origin::refuse_cross_site,
    ));
    security_headers(router)
}

/// Starts the sweep of per-client counts (`pruning`) on the runtime that
/// builds the router; it runs as long as that runtime. A router built outside
/// a runtime (nothing serves it then) has nothing to sweep.
fn forget_quiet_clients(turns: &TurnService, access: Option<Access>) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let turns = turns.clone();
    runtime.spawn(super::pruning::prune_forever(move |now| {
        turns.prune_clients(now);
        if let Some(access) = &access {
            access.prune(now);
        }
    }));
}

/// Puts the app behind `PENSIVE_ACCESS_TOKEN`: a sign-in page, and a check on
/// every other request.
fn with_access_control(router: Router, access: Access) -> Router {
    let sign_in = Router::new()
        .route("/sign-in", axum::routing::get(sign_in_page).post(sign_in))
        .with_state(access.clone());
    router
        .merge(sign_in)
        .layer(axum::middleware::from_fn_with_state(access, require_access))
}
