//! Per-client limits on turns: how many may stream at once, and (optionally)
//! how many may start per minute. A refusal is an ordinary in-band `error`
//! event, so the browser shows it like any other turn error.
//!
//! The client is its address, or the header a trusted reverse proxy sets
//! (`PENSIVE_CLIENT_IP_HEADER`), since behind a proxy every connection comes
//! from the proxy. A list header (`X-Forwarded-For`) is read from the right:
//! each proxy appends the address it saw, so only the last
//! `PENSIVE_TRUSTED_PROXY_HOPS` entries were written by proxies we trust;
//! everything to their left is whatever the client sent.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::turn::ErrorKind;

/// The limits, from the environment (see README).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest request body accepted by the API, in bytes.
    pub max_body_bytes: usize,
    /// Turns one client may stream at once (0: no limit).
    pub turns_per_client: usize,
    /// Turns one client may start per minute (0: no limit).
    pub turns_per_minute: usize,
    /// Header naming the client when behind a trusted proxy (e.g. `x-real-ip`).
    /// Setting it also says a trusted proxy is in front, so its
    /// `X-Forwarded-Proto` is believed (the access cookie's `Secure`).
    pub client_ip_header: Option<String>,
    /// How many trusted proxies append to that header: the client is this
    /// many entries from the right (1: the right-most, as nginx's
    /// `$proxy_add_x_forwarded_for` writes it).
    pub trusted_proxy_hops: usize,
    /// Most bytes one turn may receive from the provider (0: no limit).
    pub max_turn_bytes: u64,
    /// Longest one turn may run, start to end (zero: no limit).
    pub max_turn_duration: Duration,
    /// Time a client has to send a request's headers (also how long an idle
    /// kept-alive connection stays open).
    pub header_timeout: Duration,
    /// Client connections open at once; further ones wait to be accepted.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_body_bytes: 8 * 1024 * 1024,
            turns_per_client: 8,
            turns_per_minute: 0,
            client_ip_header: None,
            trusted_proxy_hops: 1,
            max_turn_bytes: 64 * 1024 * 1024,
            max_turn_duration: Duration::from_secs(30 * 60),
            header_timeout: Duration::from_secs(10),
            max_connections: 1024,
        }
    }
}

const WINDOW: Duration = Duration::from_secs(60);

#[derive(Default)]
struct ClientState {
    active: usize,
    /// Start times inside the last minute (only kept when a rate is set).
    recent: VecDeque<Instant>,
}

/// Counts turns per client; shared by every request.
#[derive(Clone, Default)]
pub struct TurnLimiter {
    limits: Arc<Limits>,
    clients: Arc<Mutex<HashMap<String, ClientState>>>,
}

impl std::fmt::Debug for TurnLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnLimiter")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// Held for as long as a turn streams; dropping it frees the client's slot.
pub struct TurnPermit {
    limiter: TurnLimiter,
    client: String,
}

impl Drop for TurnPermit {
    fn drop(&mut self) {
        if let Ok(mut clients) = self.limiter.clients.lock() {
            if let Some(state) = clients.get_mut(&self.client) {
                state.active = state.active.saturating_sub(1);
                if state.active == 0 && state.recent.is_empty() {
                    clients.remove(&self.client);
                }
            }
        }
    }
}

impl TurnLimiter {
    pub fn new(limits: Limits) -> Self {
        Self {
            limits: Arc::new(limits),
            clients: Arc::default(),
        }
    }

    /// Admits a turn for `client` now, or says why not (an error to stream).
    pub fn admit(&self, client: &str, now: Instant) -> Result<TurnPermit, (ErrorKind, String)> {
        let Ok(mut clients) = self.clients.lock() else {
            return Err((
                ErrorKind::Internal,
                "The server's turn counter failed.".into(),
            ));
        };
        let limits = &self.limits;
        let state = clients.entry(client.to_owned()).or_default();
        while state
            .recent
            .front()
            .is_some_and(|started| now.duration_since(*started) >= WINDOW)
        {
            state.recent.pop_front();
        }
        if limits.turns_per_client > 0 && state.active >= limits.turns_per_client {
            return Err((
                ErrorKind::RateLimit,
                format!(
                    "You already have {} answers streaming; the limit is {}. Wait for one to finish or stop one, then try again.",
                    state.active, limits.turns_per_client
                ),
            ));
        }
        if limits.turns_per_minute > 0 && state.recent.len() >= limits.turns_per_minute {
            let oldest = state.recent.front().copied().unwrap_or(now);
            let wait = WINDOW.saturating_sub(now.duration_since(oldest)).as_secs() + 1;
            return Err((
                ErrorKind::RateLimit,
                format!(
                    "You started {} turns in the last minute; the limit is {}. Try again in {wait} s.",
                    state.recent.len(),
                    limits.turns_per_minute
                ),
            ));
        }
        state.active += 1;
        if limits.turns_per_minute > 0 {
            state.recent.push_back(now);
        }
        Ok(TurnPermit {
            limiter: self.clone(),
            client: client.to_owned(),
        })
    }

    /// How many clients are being tracked (for tests: entries do not pile up).
    pub fn tracked_clients(&self) -> usize {
        self.clients.lock().map(|c| c.len()).unwrap_or(0)
    }
}

/// Who is asking: the trusted proxy header when configured, else the peer address.
pub fn client_key(
    limits: &Limits,
    headers: &axum::http::HeaderMap,
    peer: Option<std::net::SocketAddr>,
) -> String {
    limits
        .client_ip_header
        .as_deref()
        .and_then(|name| from_the_right(headers, name, limits.trusted_proxy_hops))
        .or_else(|| peer.map(|addr| addr.ip().to_string()))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The entry `hops` from the right of a comma-separated header (all its lines
/// joined, as HTTP defines repeated headers). With fewer entries than `hops`
/// the left-most is taken: then every entry was written by a trusted proxy
/// (the request skipped an outer one). `None` when the header is absent,
/// unreadable or empty.
pub fn from_the_right(headers: &axum::http::HeaderMap, name: &str, hops: usize) -> Option<String> {
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

    fn limiter(turns_per_client: usize, turns_per_minute: usize) -> TurnLimiter {
        TurnLimiter::new(Limits {
            turns_per_client,
            turns_per_minute,
            ..Limits::default()
        })
    }

    #[test]
    fn concurrent_turns_are_capped_per_client_and_freed_on_drop() {
        let limiter = limiter(2, 0);
        let now = Instant::now();
        let first = limiter.admit("a", now).expect("first");
        let _second = limiter.admit("a", now).expect("second");
        let (kind, message) = limiter.admit("a", now).err().expect("third refused");
        assert_eq!(kind, ErrorKind::RateLimit);
        assert!(message.contains("the limit is 2"), "{message}");
        assert!(
            limiter.admit("b", now).is_ok(),
            "other clients are not affected"
        );
        drop(first);
        assert!(
            limiter.admit("a", now).is_ok(),
            "a finished turn frees its slot"
        );
    }

    #[test]
    fn turns_per_minute_slide_and_say_when_to_retry() {
        let limiter = limiter(0, 2);
        let start = Instant::now();
        drop(limiter.admit("a", start).expect("1"));
        drop(
            limiter
                .admit("a", start + Duration::from_secs(10))
                .expect("2"),
        );
        let (_, message) = limiter
            .admit("a", start + Duration::from_secs(20))
            .err()
            .expect("third in a minute refused");
        assert!(message.contains("Try again in 41 s"), "{message}");
        assert!(limiter.admit("a", start + Duration::from_secs(61)).is_ok());
    }

    #[test]
    fn idle_clients_are_forgotten() {
        let limiter = limiter(3, 0);
        drop(limiter.admit("a", Instant::now()).expect("admitted"));
        assert_eq!(limiter.tracked_clients(), 0);
    }

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
