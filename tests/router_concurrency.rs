//! Pages render to the end while another router is being built in the same
//! process. Leptos finds an app's routes by rendering it with resource loading
//! switched off process-wide; a page rendered at that moment waited forever for
//! its resources (CI once hung here for the rest of its 90 minutes).

#![cfg(feature = "ssr")]

use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use leptos::config::LeptosOptions;
use pensive::server::http::router::build_router;
use pensive::server::{AppConfig, TurnService};
use tower::ServiceExt;

fn a_new_router() -> axum::Router {
    let options = LeptosOptions::builder()
        .output_name("pensive")
        .site_root("target/site")
        .build();
    let config = AppConfig::from_lookup(|_| None).expect("the demo configuration");
    build_router(TurnService::new(config), options)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_finish_while_other_routers_are_built() {
    // Before the route list was found once per process, 17 rounds in 200
    // left a page waiting (one measured run); every run showed some.
    let mut stalled = Vec::new();
    for round in 0..200 {
        let pages: Vec<_> = (0..4)
            .map(|_| {
                tokio::spawn(async {
                    // Each page's router is built beside the others' renders.
                    let response = a_new_router()
                        .oneshot(Request::get("/").body(Body::empty()).unwrap())
                        .await
                        .unwrap();
                    let status = response.status();
                    let body = response.into_body().collect().await.unwrap().to_bytes();
                    (status, body)
                })
            })
            .collect();
        for page in pages {
            match tokio::time::timeout(Duration::from_secs(10), page).await {
                Ok(Ok((status, body))) => {
                    assert_eq!(status, StatusCode::OK);
                    assert!(String::from_utf8_lossy(&body).contains("</html>"));
                }
                Ok(Err(panic)) => panic!("a page's render failed: {panic}"),
                Err(_) => stalled.push(round),
            }
        }
    }
    assert!(stalled.is_empty(), "pages stalled in rounds {stalled:?}");
}
