//! Optional access control (`PENSIVE_ACCESS_TOKEN`): a sign-in page sets an
//! HttpOnly, SameSite=Strict cookie; without it pages redirect to sign-in and
//! the API refuses. Sign-in attempts are rate limited per client address.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, FromRequest, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::Form;

const COOKIE: &str = "pensive_access";
/// Sign-in attempts allowed per client address per window.
const ATTEMPTS: u32 = 10;
const WINDOW: Duration = Duration::from_secs(60);

/// The configured token and the sign-in attempt counters.
#[derive(Clone)]
pub struct Access {
    token: Arc<String>,
    /// How a client is told apart (its address, or a trusted proxy's header).
    limits: Arc<super::limits::Limits>,
    attempts: Arc<Mutex<HashMap<String, (u32, Instant)>>>,
}

impl Access {
    pub fn new(token: String, limits: super::limits::Limits) -> Self {
        Self {
            token: Arc::new(token),
            limits: Arc::new(limits),
            attempts: Arc::default(),
        }
    }

    fn matches(&self, candidate: &str) -> bool {
        constant_time_eq(candidate.as_bytes(), self.token.as_bytes())
    }

    /// Counts an attempt; false when the client is over the limit.
    fn allow_attempt(&self, client: &str) -> bool {
        let Ok(mut attempts) = self.attempts.lock() else {
            return false;
        };
        let now = Instant::now();
        attempts.retain(|_, (_, since)| now.duration_since(*since) < WINDOW);
        let entry = attempts.entry(client.to_owned()).or_insert((0, now));
        entry.0 += 1;
        entry.0 <= ATTEMPTS
    }
}

/// Compares without an early exit on content, so timing does not reveal the
/// token (only its length, which is not secret enough to matter).
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn cookie_value(request: &Request) -> Option<String> {
    request
        .headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_owned())
}

fn is_public(path: &str) -> bool {
    path == "/sign-in" || path == "/healthz" || path == "/favicon.svg" || path.starts_with("/pkg/")
}

/// The middleware: lets signed-in requests and public paths through.
pub async fn require_access(
    State(access): State<Access>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_owned();
    let signed_in = cookie_value(&request).is_some_and(|v| access.matches(&v));
    if signed_in || is_public(&path) {
        return next.run(request).await;
    }
    if path.starts_with("/api/") {
        (
            StatusCode::UNAUTHORIZED,
            "Sign in first: this Pensive needs an access token.",
        )
            .into_response()
    } else {
        Redirect::to("/sign-in").into_response()
    }
}

/// `GET /sign-in`.
pub async fn sign_in_page() -> Html<String> {
    Html(page(None))
}

/// The sign-in form's fields.
#[derive(serde::Deserialize)]
pub struct SignIn {
    token: String,
}

/// `POST /sign-in`: sets the cookie when the token is right.
pub async fn sign_in(State(access): State<Access>, request: Request) -> Response {
    let client = super::limits::client_key(
        &access.limits,
        request.headers(),
        request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0),
    );
    let Ok(Form(form)) = Form::<SignIn>::from_request(request, &()).await else {
        return (
            StatusCode::BAD_REQUEST,
            Html(page(Some("Enter the access token."))),
        )
            .into_response();
    };
    if !access.allow_attempt(&client) {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            Html(page(Some(
                "Too many attempts. Wait a minute and try again.",
            ))),
        )
            .into_response();
    }
    if !access.matches(form.token.trim()) {
        return (
            StatusCode::UNAUTHORIZED,
            Html(page(Some("That access token is not right."))),
        )
            .into_response();
    }
    let cookie = format!(
        "{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000",
        access.token
    );
    let mut response = Redirect::to("/").into_response();
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

fn page(error: Option<&str>) -> String {
    let error = error
        .map(|e| format!(r#"<p role="alert" class="turn-error">{e}</p>"#))
        .unwrap_or_default();
    format!(
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in · Pensive</title><link rel="stylesheet" href="/pkg/pensive.css"></head><body><main class="sign-in"><h1>Pensive</h1>{error}<form method="post" action="/sign-in"><label for="token">Access token</label><input id="token" name="token" type="password" autocomplete="current-password" required autofocus><button type="submit" class="send">Sign in</button></form></main></body></html>"#
    )
}
