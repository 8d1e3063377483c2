//! Who is asking. The client is its address, or the header a trusted reverse
//! proxy sets (`PENSIVE_CLIENT_IP_HEADER`), since behind a proxy every
//! connection comes from the proxy. A list header (`X-Forwarded-For`) is read
//! from the right: each proxy appends the address it saw, so only the last
//! `PENSIVE_TRUSTED_PROXY_HOPS` entries were written by proxies we trust;
//! everything to their left is whatever the client sent.
//!
//! An IPv6 client is its /64: one subscriber is given a whole /64, and an
//! address rotated within it must not start a limit or a throttle afresh.
//!
//! The router's `identify_client` middleware works this out once per request
//! and leaves a `ClientKey` in the request's extensions, where the turn
//! limiter (through the chat server function) and the sign-in throttle read it.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::Extensions;
use axum::middleware::Next;
use axum::response::Response;

use crate::server::limits::Limits;

/// The client of one request, as `client_key` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClientKey(String);

impl ClientKey {
    /// The key `identify_client` left in a request's extensions; `unknown`
    /// without one (a request that did not pass through the router).
    pub fn of(extensions: &Extensions) -> Self {
        extensions
            .get::<ClientKey>()
            .cloned()
            .unwrap_or_else(|| ClientKey("unknown".to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The signed-in browser of a request (`access::require_access` leaves it
/// in the extensions when the site has an access token): the session's id,
/// the part of its cookie before the first `.` (random, 128 bits).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SessionKey(String);

impl SessionKey {
    /// The key of the valid session cookie `value`.
    pub fn of_session(value: &str) -> Self {
        let id = value.split('.').next().unwrap_or(value);
        SessionKey(format!("session:{id}"))
    }
}

/// Who decides on a turn's tool calls and whose agreement releases a held
/// tool: the signed-in session where there is an access token, else the
/// client (without a token, every browser of one address is one user).
pub(crate) fn decider_of(extensions: &Extensions) -> String {
    match extensions.get::<SessionKey>() {
        Some(session) => session.0.clone(),
        None => format!("client:{}", ClientKey::of(extensions).as_str()),
    }
}

/// The signed-in session's key, behind an access token.
pub(crate) fn session_of(extensions: &Extensions) -> Option<String> {
    extensions
        .get::<SessionKey>()
        .map(|session| session.0.clone())
}

/// Who a request comes from, owned (a server function takes it from the
/// request's parts before its body is polled).
#[derive(Debug, Clone)]
pub struct Asker {
    client: String,
    decider: String,
    session: Option<String>,
}

impl Asker {
    /// The asker of the request whose `parts` these are (`unknown` without).
    pub fn of(parts: Option<&axum::http::request::Parts>) -> Self {
        match parts {
            Some(parts) => Self {
                client: ClientKey::of(&parts.extensions).as_str().to_owned(),
                decider: decider_of(&parts.extensions),
                session: session_of(&parts.extensions),
            },
            None => Self {
                client: "unknown".into(),
                decider: "unknown".into(),
                session: None,
            },
        }
    }

    /// As the turn service takes it.
    pub fn caller(&self) -> crate::server::turn_service::detached::Caller<'_> {
        crate::server::turn_service::detached::Caller {
            client: &self.client,
            decider: &self.decider,
            session: self.session.as_deref(),
        }
    }
}

/// Middleware: names the client of every request in its extensions.
pub(crate) async fn identify_client(
    State(limits): State<Arc<Limits>>,
    mut request: Request,
    next: Next,
) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0);
    let key = client_key(&limits, request.headers(), peer);
    request.extensions_mut().insert(ClientKey(key));
    next.run(request).await
}

/// Who is asking: the trusted proxy header when configured, else the peer address.
fn client_key(
    limits: &Limits,
    headers: &axum::http::HeaderMap,
    peer: Option<std::net::SocketAddr>,
) -> String {
    limits
        .client_ip_header
        .as_deref()
        .and_then(|name| from_the_right(headers, name, limits.trusted_proxy_hops))
        .map(|entry| match entry.parse::<IpAddr>() {
            Ok(address) => key_of(address),
            // Not an address (a proxy's own label): the entry as it is.
            Err(_) => entry,
        })
        .or_else(|| peer.map(|addr| key_of(addr.ip())))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The key of a client at `address`: the address for IPv4, the /64 for IPv6.
fn key_of(address: IpAddr) -> String {
    match share_of(address) {
        IpAddr::V6(network) => format!("{network}/64"),
        v4 => v4.to_string(),
    }
}

/// The address a client counts as: itself for IPv4 (and IPv4 mapped into
/// IPv6), its /64 for IPv6.
pub(crate) fn share_of(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V4(_) => peer,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(segments.into())
            }
        },
    }
}

/// The entry `hops` from the right of a comma-separated header (all its lines
/// joined, as HTTP defines repeated headers). With fewer entries than `hops`
/// the left-most is taken: then every entry was written by a trusted proxy
/// (the request skipped an outer one). `None` when the header is absent,
/// unreadable or empty.
pub(crate) fn from_the_right(
    headers: &axum::http::HeaderMap,
    name: &str,
    hops: usize,
) -> Option<String> {
    let mut entries = Vec::new();
    for value in headers.get_all(name) {
        entries.extend(value.to_str().ok()?.split(',').map(str::trim));
    }
    if entries.iter().all(|entry| entry.is_empty()) {
        return None;
    }
    let index = entries.len().saturating_sub(hops.max(1));
    entries
        .get(index)
        .filter(|entry| !entry.is_empty())
        .map(|entry| (*entry).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_is_the_proxy_header_only_when_configured() {
        let mut headers = axum::http::HeaderMap::new();
        headers.insert("x-real-ip", "203.0.113.7, 10.0.0.1".parse().unwrap());
        let peer = Some("127.0.0.1:9999".parse().unwrap());
        assert_eq!(client_key(&Limits::default(), &headers, peer), "127.0.0.1");
        let behind_proxy = Limits {
            client_ip_header: Some("x-real-ip".into()),
            ..Limits::default()
        };
        assert_eq!(client_key(&behind_proxy, &headers, peer), "10.0.0.1");
        assert_eq!(client_key(&Limits::default(), &headers, None), "unknown");
    }

    #[test]
    fn an_ipv6_client_is_its_64_whichever_address_it_rotates_to() {
        let none = axum::http::HeaderMap::new();
        let key = |peer: &str| client_key(&Limits::default(), &none, Some(peer.parse().unwrap()));
        let first = key("[2001:db8:1:2:aaaa::1]:5000");
        assert_eq!(first, "2001:db8:1:2::/64");
        assert_eq!(key("[2001:db8:1:2:ffff:1:2:3]:6000"), first);
        assert_ne!(key("[2001:db8:1:3::1]:5000"), first, "another /64");
        assert_eq!(key("[::ffff:203.0.113.7]:80"), "203.0.113.7");
        let behind_proxy = Limits {
            client_ip_header: Some("x-real-ip".into()),
            ..Limits::default()
        };
        let mut headers = axum::http::HeaderMap::new();
        headers.insert("x-real-ip", "2001:db8:1:2:9::9".parse().unwrap());
        assert_eq!(client_key(&behind_proxy, &headers, None), first);
    }

    fn forwarded(lines: &[&str]) -> axum::http::HeaderMap {
        let mut headers = axum::http::HeaderMap::new();
        for line in lines {
            headers.append("x-forwarded-for", line.parse().unwrap());
        }
        headers
    }

    fn behind(hops: usize) -> Limits {
        Limits {
            client_ip_header: Some("x-forwarded-for".into()),
            trusted_proxy_hops: hops,
            ..Limits::default()
        }
    }

    #[test]
    fn x_forwarded_for_takes_the_entry_the_trusted_proxy_added_never_the_clients() {
        let peer = Some("127.0.0.1:9999".parse().unwrap());
        // The client wrote "6.6.6.6, 7.7.7.7"; nginx appended what it saw.
        let spoofed = forwarded(&["6.6.6.6, 7.7.7.7, 198.51.100.4"]);
        assert_eq!(client_key(&behind(1), &spoofed, peer), "198.51.100.4");
        // The same with the client's entries on a header line of their own.
        let split = forwarded(&["6.6.6.6", "7.7.7.7, 198.51.100.4"]);
        assert_eq!(client_key(&behind(1), &split, peer), "198.51.100.4");
        // Two trusted proxies (CDN, then nginx): the CDN's entry is second from the right.
        let two = forwarded(&["6.6.6.6, 198.51.100.4, 203.0.113.50"]);
        assert_eq!(client_key(&behind(2), &two, peer), "198.51.100.4");
        // A request that skipped the outer proxy: what the inner one saw.
        let direct = forwarded(&["198.51.100.9"]);
        assert_eq!(client_key(&behind(2), &direct, peer), "198.51.100.9");
        // Changing the spoofed part never changes who the client is.
        for spoof in ["1.1.1.1", "1.1.1.1, 2.2.2.2", "", "unknown, ,"] {
            let headers = forwarded(&[&format!("{spoof}, 198.51.100.4")]);
            assert_eq!(client_key(&behind(1), &headers, peer), "198.51.100.4");
        }
        // No header, or an empty one: the connection's address.
        assert_eq!(client_key(&behind(1), &forwarded(&[]), peer), "127.0.0.1");
        assert_eq!(
            client_key(&behind(1), &forwarded(&[" "]), peer),
            "127.0.0.1"
        );
    }
}
