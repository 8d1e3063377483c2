//! The axum router: Leptos pages, server functions (with the turn service in
//! their context) and static files. Shared by `pensive serve` and the HTTP tests.

use axum::Router;
use leptos::config::LeptosOptions;
use leptos::prelude::provide_context;
use leptos_axum::{generate_route_list, LeptosRoutes};

use super::TurnService;
use crate::app::{shell, App};

/// Builds the whole app. No compression layer: it would buffer streamed turns.
pub fn build_router(turns: TurnService, options: LeptosOptions) -> Router {
    let routes = generate_route_list(App);
    let context = move || provide_context(turns.clone());
    Router::new()
        .leptos_routes_with_context(&options, routes, context.clone(), {
            let options = options.clone();
            move || shell(options.clone())
        })
        .fallback(leptos_axum::file_and_error_handler_with_context(
            context, shell,
        ))
        .with_state(options)
}
