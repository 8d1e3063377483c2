//! Optional access control (`PENSIVE_ACCESS_TOKEN`): a sign-in page sets an
//! HttpOnly, SameSite=Strict cookie; without it pages redirect to sign-in and
//! the API refuses. Sign-in attempts are rate limited per client address.
//!
//! The cookie never holds the token: each sign-in gets its own session value,
//! signed with the token under a server key (`PENSIVE_COOKIE_SECRET`, else
//! random per process; see `sessions`). A stolen cookie does not reveal the
//! token, signing out ends that session on the server, and a new token (or
//! a new key) makes every issued cookie worthless. Over HTTPS, as a trusted proxy reports
//! it, the cookie is `Secure` with the `__Host-` prefix (no `Domain`, path
//! `/`, set only over HTTPS), so a sibling subdomain cannot plant one.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

// tokio's clock, so that tests can pause and advance it.
use tokio::time::Instant;

use axum::extract::{FromRequest, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::Form;

use super::client::{from_the_right, ClientKey};
use super::sessions::{Sessions, SharedRevocations};
use crate::server::limits::Limits;
use crate::server::providers::secret::Secret;

/// The cookie's name over plain HTTP.
pub const COOKIE: &str = "pensive_access";
/// The cookie's name over HTTPS: browsers accept a `__Host-` cookie only
/// when it is `Secure`, has `Path=/` and no `Domain`.
pub(crate) const SECURE_COOKIE: &str = "__Host-pensive_access";
/// Sign-in attempts allowed per client address per window.
const ATTEMPTS: u32 = 10;
const WINDOW: Duration = Duration::from_secs(60);

/// The configured token and the sign-in attempt counters.
#[derive(Clone)]
pub(crate) struct Access {
    token: Arc<Secret>,
    /// The session values signed-in browsers hold.
    sessions: Arc<Sessions>,
    /// Whether a trusted proxy is in front (its `X-Forwarded-Proto` is believed).
    limits: Arc<Limits>,
    attempts: Arc<Mutex<HashMap<String, (u32, Instant)>>>,
    /// Sign-outs shared with the other replicas (`PENSIVE_REDIS_URL`).
    shared: Option<SharedRevocations>,
}

impl Access {
    /// `cookie_secret`: the HMAC key; `None` draws a random one (so cookies
    /// last as long as this process). `revoked_sessions`: where signed-out
    /// sessions are listed when they outlive the process (with a secret).
    pub fn new(
        token: Secret,
        cookie_secret: Option<&Secret>,
        revoked_sessions: Option<PathBuf>,
        limits: Limits,
    ) -> Self {
        let (key, revoked_sessions) = match cookie_secret {
            Some(secret) => (secret.expose().as_bytes().to_vec(), revoked_sessions),
            None => {
                let mut key = vec![0u8; 32];
                // Startup, not a request path: without a working system random
                // source no cookie could be trusted, so the server must not start.
                aws_lc_rs::rand::fill(&mut key).expect("the system random source works");
                (key, None)
            }
        };
        let sessions = Sessions::new(token.clone(), &key, revoked_sessions);
        let shared = limits.redis_url.as_ref().and_then(|url| {
            crate::server::shared::SharedRedis::open(url.expose())
                .ok()
                .map(SharedRevocations::new)
        });
        Self {
            shared,
            token: Arc::new(token),
            sessions: Arc::new(sessions),
            limits: Arc::new(limits),
            attempts: Arc::default(),
        }
    }

    fn matches(&self, candidate: &str) -> bool {
        constant_time_eq(candidate.as_bytes(), self.token.expose().as_bytes())
    }

    fn is_signed_in(&self, cookie: &str) -> bool {
        self.sessions.is_valid(cookie)
    }

    /// `is_signed_in`, and not signed out on another replica either.
    pub(crate) async fn admits_session(&self, cookie: &str) -> bool {
        if !self.is_signed_in(cookie) {
            return false;
        }
        match (&self.shared, self.sessions.id_of(cookie)) {
            (Some(shared), Some((id, _))) => !shared.is_revoked(&id).await,
            _ => true,
        }
    }

    /// Ends the session `cookie` here and, with Redis, on every replica.
    pub(crate) async fn sign_out(&self, cookie: &str) {
        self.sessions.revoke(cookie);
        if let (Some(shared), Some((id, expires))) = (&self.shared, self.sessions.id_of(cookie)) {
            shared.revoke(&id, expires).await;
        }
    }

    /// A new session's value (what the sign-in cookie holds).
    #[cfg(test)]
    pub(crate) fn issue_session(&self) -> String {
        self.sessions.issue()
    }

    /// Counts an attempt; false when the client is over the limit.
    fn allow_attempt(&self, client: &str) -> bool {
        let Ok(mut attempts) = self.attempts.lock() else {
            return false;
        };
        let now = Instant::now();
        let entry = attempts.entry(client.to_owned()).or_insert((0, now));
        if now.duration_since(entry.1) >= WINDOW {
            *entry = (0, now);
        }
        entry.0 += 1;
        entry.0 <= ATTEMPTS
    }

    /// Forgets clients whose window has passed (see `pruning`): an attempt
    /// no longer sweeps the whole map, so clients that never try again are
    /// forgotten by the sweep alone.
    pub(crate) fn prune(&self, now: Instant) {
        if let Ok(mut attempts) = self.attempts.lock() {
            attempts.retain(|_, (_, since)| now.duration_since(*since) < WINDOW);
        }
        self.sessions.prune();
    }

    /// How many clients have attempts counted (for tests).
    #[cfg(test)]
    pub(crate) fn tracked_clients(&self) -> usize {
        self.attempts.lock().map(|a| a.len()).unwrap_or(0)
    }
}

/// Whether the browser reached us over HTTPS. Pensive itself speaks plain
/// HTTP, so only a proxy can say so, and only a proxy the operator declared
/// trusted (`PENSIVE_CLIENT_IP_HEADER`) is believed: its `X-Forwarded-Proto`.
pub(crate) fn is_https(limits: &Limits, headers: &axum::http::HeaderMap) -> bool {
    limits.client_ip_header.is_some()
        && from_the_right(headers, "x-forwarded-proto", 1)
            .is_some_and(|proto| proto.eq_ignore_ascii_case("https"))
}

fn cookie_name(https: bool) -> &'static str {
    if https {
        SECURE_COOKIE
    } else {
        COOKIE
    }
}

/// Compares in constant time with respect to content (aws-lc's
/// `CRYPTO_memcmp`), so timing does not reveal the token; only its length,
/// which is not secret enough to matter.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    aws_lc_rs::constant_time::verify_slices_are_equal(a, b).is_ok()
}

fn cookie_value(request: &Request, name: &str) -> Option<String> {
    request
        .headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(found, _)| *found == name)
        .map(|(_, value)| value.to_owned())
}

/// The sign-out server function's path (`app::api::sign_out`).
const SIGN_OUT_PATH: &str = "/api/sign_out";

fn is_public(path: &str) -> bool {
    path == "/sign-in" || path == "/healthz" || path == "/favicon.svg" || path.starts_with("/pkg/")
}

/// The middleware: lets signed-in requests and public paths through.
pub(crate) async fn require_access(
    State(access): State<Access>,
    mut request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_owned();
    let name = cookie_name(is_https(&access.limits, request.headers()));
    let session = match cookie_value(&request, name) {
        Some(value) if access.admits_session(&value).await => Some(value),
        _ => None,
    };
    let signed_in = session.is_some();
    if let Some(value) = &session {
        // Decisions and holds belong to the signed-in browser (`SessionKey`).
        request
            .extensions_mut()
            .insert(super::client::SessionKey::of_session(value));
    }
    if signed_in && path == SIGN_OUT_PATH {
        // The server function clears the cookie; the session ends here, so
        // a copy of the cookie taken earlier is refused from now on.
        if let Some(value) = cookie_value(&request, name) {
            access.sign_out(&value).await;
        }
    }
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
pub(crate) async fn sign_in_page() -> Response {
    page_response(StatusCode::OK, None)
}

/// The sign-in page. Its referrer policy is `same-origin` instead of the
/// site's `no-referrer`: under `no-referrer` a browser sends `Origin: null`
/// with a form post, and the cross-site guard refuses a null origin.
fn page_response(status: StatusCode, error: Option<&str>) -> Response {
    let mut response = (status, Html(page(error))).into_response();
    response.headers_mut().insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
    response
}

/// The sign-in form's fields.
#[derive(serde::Deserialize)]
pub(crate) struct SignIn {
    token: String,
}

/// `POST /sign-in`: sets the cookie when the token is right.
pub(crate) async fn sign_in(State(access): State<Access>, request: Request) -> Response {
    let https = is_https(&access.limits, request.headers());
    let client = ClientKey::of(request.extensions());
    let Ok(Form(form)) = Form::<SignIn>::from_request(request, &()).await else {
        return page_response(StatusCode::BAD_REQUEST, Some("Enter the access token."));
    };
    if !access.allow_attempt(client.as_str()) {
        return page_response(
            StatusCode::TOO_MANY_REQUESTS,
            Some("Too many attempts. Wait a minute and try again."),
        );
    }
    if !access.matches(form.token.trim()) {
        return page_response(
            StatusCode::UNAUTHORIZED,
            Some("That access token is not right."),
        );
    }
    let cookie = format!(
        "{}={}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}{}",
        cookie_name(https),
        access.sessions.issue(),
        super::sessions::SESSION_LIFETIME.as_secs(),
        if https { "; Secure" } else { "" }
    );
    let mut response = Redirect::to("/").into_response();
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// The `Set-Cookie` values that sign a browser out: the cookie cleared
/// under both its names (a `__Host-` cookie is only accepted, so only
/// cleared, with `Secure`). Sent by `POST /api/sign_out`.
pub(crate) fn signed_out_cookies() -> [String; 2] {
    [
        format!("{COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0"),
        format!("{SECURE_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0; Secure"),
    ]
}

fn page(error: Option<&str>) -> String {
    let error = error
        .map(|e| format!(r#"<p role="alert" class="turn-error">{e}</p>"#))
        .unwrap_or_default();
    format!(
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in · Pensive</title><link rel="stylesheet" href="/pkg/pensive.css"></head><body><main class="sign-in"><h1>Pensive</h1>{error}<form method="post" action="/sign-in"><label for="token">Access token</label><input id="token" name="token" type="password" autocomplete="current-password" required autofocus><button type="submit" class="send">Sign in</button></form></main></body></html>"#
    )
}

/// Startup: whether serving on `addr` is safe. Beyond loopback without a token,
/// anyone who can reach the address can spend the operator's API key, so the
/// server refuses to start unless the operator opts in (`PENSIVE_ALLOW_OPEN=1`,
/// e.g. inside a container whose port is published only to the host's
/// loopback). `Ok(Some(warning))`: start, and log it.
pub fn check_exposure(
    addr: SocketAddr,
    token_set: bool,
    allow_open: bool,
) -> Result<Option<String>, String> {
    if token_set || addr.ip().is_loopback() {
        return Ok(None);
    }
    if allow_open {
        return Ok(Some(format!(
            "serving on {addr} without PENSIVE_ACCESS_TOKEN (PENSIVE_ALLOW_OPEN is set): anyone who can reach this address can use the configured API key"
        )));
    }
    Err(format!(
        "refusing to serve on {addr} without an access token: anyone who could reach it could use the configured API key. \
         Set PENSIVE_ACCESS_TOKEN (at least 16 characters), listen on loopback (LEPTOS_SITE_ADDR=127.0.0.1:3000), \
         or set PENSIVE_ALLOW_OPEN=1 if something else guards the address. See docs/security.md."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn sign_in_attempts_are_limited_per_minute_and_quiet_clients_forgotten() {
        let access = Access::new(
            Secret::from("a-token-of-twenty-chars"),
            Some(&Secret::from("k".repeat(32))),
            None,
            Limits::default(),
        );
        for _ in 0..ATTEMPTS {
            assert!(access.allow_attempt("a"));
        }
        assert!(!access.allow_attempt("a"), "the 11th in a minute");
        assert!(access.allow_attempt("b"));
        assert_eq!(access.tracked_clients(), 2);
        let pruned = access.clone();
        tokio::spawn(crate::server::http::pruning::prune_forever(move |now| {
            pruned.prune(now)
        }));
        // Paused time: the sleep only lets the clock and the sweep run ahead.
        tokio::time::sleep(2 * crate::server::http::pruning::PRUNE_EVERY + WINDOW).await;
        assert_eq!(access.tracked_clients(), 0, "both went quiet");
        assert!(access.allow_attempt("a"), "a new minute, new attempts");
    }

    #[test]
    fn beyond_loopback_without_a_token_is_refused_unless_opted_in() {
        let lan: SocketAddr = "0.0.0.0:3000".parse().unwrap();
        for loopback in ["127.0.0.1:3000", "127.8.9.1:3000", "[::1]:3000"] {
            let addr = loopback.parse().unwrap();
            assert_eq!(check_exposure(addr, false, false), Ok(None), "{loopback}");
        }
        assert_eq!(check_exposure(lan, true, false), Ok(None));
        let refused = check_exposure(lan, false, false).unwrap_err();
        assert!(
            refused.contains("PENSIVE_ACCESS_TOKEN") && refused.contains("PENSIVE_ALLOW_OPEN"),
            "{refused}"
        );
        let v6: SocketAddr = "[::]:3000".parse().unwrap();
        assert!(check_exposure(v6, false, false).is_err());
        let warned = check_exposure(lan, false, true).unwrap();
        assert!(warned.is_some_and(|w| w.contains("without PENSIVE_ACCESS_TOKEN")));
    }

    #[test]
    fn the_token_check_accepts_only_the_token() {
        let access = Access::new(
            Secret::from("a-token-of-twenty-chars"),
            Some(&Secret::from("k".repeat(32))),
            None,
            Limits::default(),
        );
        assert!(access.matches("a-token-of-twenty-chars"));
        // Same length, one byte off (first, middle, last).
        for wrong in [
            "b-token-of-twenty-chars",
            "a-token-of-Twenty-chars",
            "a-token-of-twenty-charz",
        ] {
            assert!(!access.matches(wrong), "{wrong}");
        }
        // Other lengths: a prefix, a longer string, empty.
        for wrong in ["a-token-of-twenty-char", "a-token-of-twenty-chars!", ""] {
            assert!(!access.matches(wrong), "{wrong:?}");
        }
        let cookie = access.sessions.issue();
        assert!(access.is_signed_in(&cookie));
        assert!(!access.is_signed_in(&cookie[..cookie.len() - 1]));
        assert!(!access.is_signed_in(&format!("{cookie}0")));
    }

    #[test]
    fn without_a_configured_key_a_new_process_honours_no_earlier_session() {
        let token = Secret::from("a-token-of-twenty-chars");
        let random_a = Access::new(token.clone(), None, None, Limits::default());
        let random_b = Access::new(token, None, None, Limits::default());
        let cookie = random_a.sessions.issue();
        assert!(random_a.is_signed_in(&cookie));
        assert!(!random_b.is_signed_in(&cookie), "a fresh key per process");
    }
}
