//! The cross-site guard: other web sites the user visits must not drive the
//! API with the operator's key, and a DNS-rebinding page (a hostile name that
//! resolves to this server) must not read the answers.
//!
//! For `/api/*` and `POST /sign-in` a request is refused when
//! - its `Host` is not an allowed name (the listen address, `localhost` and
//!   `127.0.0.1` with the port, plus `PENSIVE_ALLOWED_HOSTS`): a rebinding
//!   page reaches us under its own name;
//! - its `Origin` is present and not one of those names (`null` included);
//! - `Sec-Fetch-Site` is `cross-site`;
//! - for the API, its content type is not `application/json`: a page may send
//!   `text/plain` or a form without asking, but JSON needs a CORS preflight,
//!   which this server never grants.
//!
//! Requests with no `Origin` (curl, scripts) pass, as do requests with no
//! `Host` at all: every browser sends `Host`, and a client that can leave it
//! out could as well write an allowed one, so refusing it would protect
//! nothing. Pages and static files are not guarded: they carry no secret
//! (conversations live in the browser, under the page's own origin).
//!
//! Refusals happen before any handler runs, so no provider is ever called.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Host names the server answers to, each `name` or `name:port`.
#[derive(Debug, Clone)]
pub(crate) struct AllowedHosts {
    entries: Arc<Vec<(String, Option<u16>)>>,
}

impl AllowedHosts {
    /// The defaults for `listen`, plus `extra` (`PENSIVE_ALLOWED_HOSTS`).
    pub fn new(listen: SocketAddr, extra: &[String]) -> Self {
        let port = listen.port();
        let defaults = [
            listen.to_string(),
            format!("localhost:{port}"),
            format!("127.0.0.1:{port}"),
        ];
        let entries = defaults
            .iter()
            .chain(extra)
            .filter_map(|entry| split_authority(&entry.to_ascii_lowercase()))
            .collect();
        Self {
            entries: Arc::new(entries),
        }
    }

    /// Whether `authority` (`name` or `name:port`, as in `Host` or an
    /// origin) is one of ours. An entry without a port allows every port; an
    /// authority without a port is the scheme's default, 80 or 443.
    pub fn allows(&self, authority: &str) -> bool {
        let Some((name, port)) = split_authority(&authority.to_ascii_lowercase()) else {
            return false;
        };
        self.entries
            .iter()
            .any(|(allowed, allowed_port)| match (allowed_port, port) {
                _ if *allowed != name => false,
                (None, _) => true,
                (Some(a), Some(p)) => *a == p,
                (Some(a), None) => *a == 80 || *a == 443,
            })
    }
}

/// `name[:port]` or `[v6][:port]` into its parts; `None` when malformed.
fn split_authority(authority: &str) -> Option<(String, Option<u16>)> {
    let (name, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            after => Some(after.strip_prefix(':')?),
        };
        (format!("[{inside}]"), port)
    } else {
        match authority.rsplit_once(':') {
            Some((name, port)) => (name.to_owned(), Some(port)),
            None => (authority.to_owned(), None),
        }
    };
    if name.is_empty() || name.contains(['/', '@', ' ']) {
        return None;
    }
    let port = match port {
        Some(port) => Some(port.parse::<u16>().ok()?),
        None => None,
    };
    Some((name, port))
}

/// Why a request was refused (said in the response, for whoever debugs it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    Host,
    Origin,
    CrossSite,
    ContentType,
}

impl Refusal {
    fn status(self) -> StatusCode {
        match self {
            Refusal::ContentType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            _ => StatusCode::FORBIDDEN,
        }
    }

    fn message(self) -> &'static str {
        match self {
            Refusal::Host => "This Pensive does not answer to that host name. An operator can allow it with PENSIVE_ALLOWED_HOSTS.",
            Refusal::Origin => "Requests from other web sites are refused.",
            Refusal::CrossSite => "Requests from other web sites are refused.",
            Refusal::ContentType => "The API takes only application/json.",
        }
    }
}

/// The checks, on a request's method, path and headers; `None` lets it through.
pub fn check(
    allowed: &AllowedHosts,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
) -> Option<Refusal> {
    let path = uri.path();
    let api = path.starts_with("/api/");
    let sign_in = path == "/sign-in" && method == Method::POST;
    if !(api || sign_in) {
        return None;
    }
    // A value that is not text matches nothing we allow.
    let text = |name: header::HeaderName| headers.get(name).map(|v| v.to_str().unwrap_or("\u{0}"));
    if !host_allowed(allowed, uri, headers) {
        return Some(Refusal::Host);
    }
    if let Some(origin) = text(header::ORIGIN) {
        let authority = origin
            .strip_prefix("https://")
            .or_else(|| origin.strip_prefix("http://"));
        if !authority.is_some_and(|a| allowed.allows(a)) {
            return Some(Refusal::Origin);
        }
    }
    if text(header::HeaderName::from_static("sec-fetch-site"))
        .is_some_and(|site| site.trim().eq_ignore_ascii_case("cross-site"))
    {
        return Some(Refusal::CrossSite);
    }
    if api {
        let media_type = text(header::CONTENT_TYPE)
            .and_then(|v| v.split(';').next())
            .map(|v| v.trim().to_ascii_lowercase());
        if media_type.as_deref() != Some("application/json") {
            return Some(Refusal::ContentType);
        }
    }
    None
}

/// Whether the request's host (`Host`, or the URI's authority over HTTP/2)
/// is one the API answers to; a request without one passes (see the
/// module's note).
pub fn host_allowed(allowed: &AllowedHosts, uri: &Uri, headers: &HeaderMap) -> bool {
    let host = match headers.get(header::HOST) {
        // A value that is not text matches nothing we allow.
        Some(value) => Some(value.to_str().unwrap_or("\u{0}")),
        None => uri.authority().map(|a| a.as_str()),
    };
    host.is_none_or(|host| allowed.allows(host))
}

/// Whether the page request's host is one the API answers to, for what a
/// page embeds from the API while it renders (the tool listing): pages are
/// served to any host, but a DNS-rebinding page must not read through them
/// what the host-checked API would refuse it. Set on every request by
/// `refuse_cross_site`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostAllowed(pub bool);

/// The middleware (outside access control: a refused sign-in is not counted
/// as an attempt).
pub(crate) async fn refuse_cross_site(
    State(allowed): State<AllowedHosts>,
    mut request: Request,
    next: Next,
) -> Response {
    let host = HostAllowed(host_allowed(&allowed, request.uri(), request.headers()));
    request.extensions_mut().insert(host);
    match check(&allowed, request.method(), request.uri(), request.headers()) {
        None => next.run(request).await,
        Some(refusal) => {
            tracing::info!(
                reason = ?refusal,
                path = request.uri().path(),
                "refused a request another site could have made"
            );
            (refusal.status(), refusal.message()).into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(extra: &[&str]) -> AllowedHosts {
        let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        AllowedHosts::new("127.0.0.1:3000".parse().unwrap(), &extra)
    }

    #[test]
    fn the_defaults_are_the_listen_address_localhost_and_127_0_0_1_with_the_port() {
        let hosts = allowed(&[]);
        for ok in ["127.0.0.1:3000", "localhost:3000", "LOCALHOST:3000"] {
            assert!(hosts.allows(ok), "{ok}");
        }
        for refused in [
            "localhost:3001",
            "attacker.example:3000",
            "localhost",
            "127.0.0.1",
            "localhost.attacker.example:3000",
            "",
            ":3000",
            "localhost:3000:3000",
            "user@localhost:3000",
        ] {
            assert!(!hosts.allows(refused), "{refused}");
        }
        let v6 = AllowedHosts::new("[::1]:4000".parse().unwrap(), &[]);
        assert!(v6.allows("[::1]:4000"));
        assert!(!v6.allows("[::2]:4000"));
    }

    #[test]
    fn configured_names_allow_any_port_unless_they_name_one() {
        let hosts = allowed(&["chat.example.com", "lan.example.com:8443"]);
        assert!(hosts.allows("chat.example.com"));
        assert!(hosts.allows("chat.example.com:8443"));
        assert!(hosts.allows("lan.example.com:8443"));
        assert!(!hosts.allows("lan.example.com:9000"));
        assert!(!hosts.allows("evil.chat.example.com"));
        // No port in the request: the scheme's default, which a `:443` entry names.
        let https = allowed(&["secure.example.com:443"]);
        assert!(https.allows("secure.example.com"));
    }

    fn uri(text: &str) -> Uri {
        text.parse().unwrap()
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(
                header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        map
    }

    #[test]
    fn only_the_api_and_the_sign_in_post_are_guarded() {
        let hosts = allowed(&[]);
        let hostile = headers(&[
            ("host", "attacker.example"),
            ("origin", "https://attacker.example"),
        ]);
        assert_eq!(check(&hosts, &Method::GET, &uri("/"), &hostile), None);
        assert_eq!(
            check(&hosts, &Method::GET, &uri("/sign-in"), &hostile),
            None
        );
        assert_eq!(
            check(&hosts, &Method::POST, &uri("/sign-in"), &hostile),
            Some(Refusal::Host)
        );
        assert_eq!(
            check(&hosts, &Method::POST, &uri("/api/chat"), &hostile),
            Some(Refusal::Host)
        );
    }

    #[test]
    fn each_rule_refuses_on_its_own() {
        let hosts = allowed(&[]);
        let post = |pairs: &[(&str, &str)]| {
            check(&hosts, &Method::POST, &uri("/api/chat"), &headers(pairs))
        };
        let json = ("content-type", "application/json");
        let host = ("host", "127.0.0.1:3000");
        assert_eq!(post(&[host, json]), None);
        assert_eq!(post(&[json]), None, "no Host: not a browser");
        assert_eq!(
            post(&[host, ("content-type", "Application/JSON; charset=utf-8")]),
            None
        );
        assert_eq!(
            post(&[host, json, ("origin", "http://127.0.0.1:3000")]),
            None
        );
        assert_eq!(
            post(&[host, json, ("origin", "http://localhost:3000")]),
            None
        );
        assert_eq!(post(&[host, json, ("sec-fetch-site", "same-origin")]), None);
        assert_eq!(post(&[host, json, ("sec-fetch-site", "none")]), None);

        assert_eq!(
            post(&[("host", "rebound.example:3000"), json]),
            Some(Refusal::Host)
        );
        // HTTP/2: the authority in the URI is the host.
        let h2 = |authority: &str| {
            check(
                &hosts,
                &Method::POST,
                &uri(&format!("http://{authority}/api/chat")),
                &headers(&[json]),
            )
        };
        assert_eq!(h2("127.0.0.1:3000"), None);
        assert_eq!(h2("rebound.example:3000"), Some(Refusal::Host));
        for origin in [
            "http://127.0.0.1:3150",
            "https://attacker.example",
            "null",
            "127.0.0.1:3000",
            "file://",
        ] {
            assert_eq!(
                post(&[host, json, ("origin", origin)]),
                Some(Refusal::Origin),
                "{origin}"
            );
        }
        assert_eq!(
            post(&[host, json, ("sec-fetch-site", "cross-site")]),
            Some(Refusal::CrossSite)
        );
        for content_type in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/jsonx",
        ] {
            assert_eq!(
                post(&[host, ("content-type", content_type)]),
                Some(Refusal::ContentType),
                "{content_type}"
            );
        }
        assert_eq!(post(&[host]), Some(Refusal::ContentType));
        // The sign-in form is a form: only the site rules apply to it.
        let form = ("content-type", "application/x-www-form-urlencoded");
        assert_eq!(
            check(
                &hosts,
                &Method::POST,
                &uri("/sign-in"),
                &headers(&[host, form])
            ),
            None
        );
        assert_eq!(
            check(
                &hosts,
                &Method::POST,
                &uri("/sign-in"),
                &headers(&[host, form, ("origin", "http://evil.example")])
            ),
            Some(Refusal::Origin)
        );
    }
}
