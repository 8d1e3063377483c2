//! Per-client limits on turns: how many may stream at once, and (optionally)
//! how many may start per minute. A refusal is an ordinary in-band `error`
//! event, so the browser shows it like any other turn error. Who the client
//! is, the `client` module works out.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

// tokio's clock, so that tests can pause and advance it.
use tokio::time::Instant;

use crate::turn::turn_error::TurnError;

/// Most messages a request may carry (a longer conversation is refused
/// before any upstream call).
pub(crate) const MAX_MESSAGES: usize = 500;
/// Most characters in one message.
pub(crate) const MAX_MESSAGE_CHARS: usize = 200_000;

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
    /// Client connections one address may hold at once (0: no limit). Its
    /// default depends on `client_ip_header`: see `default_per_address`.
    pub max_connections_per_address: usize,
    /// Time a client has to send a request's body, once its headers are in
    /// (zero: no limit).
    pub body_timeout: Duration,
    /// Tool calls one turn may make; the calls past it are not run and the
    /// turn ends with `tool_limit`, offering Continue (0: no limit).
    pub max_tool_calls: usize,
    /// How long a call that asks first waits for the user's decision before
    /// it counts as denied.
    pub tool_decision_time: Duration,
    /// Time the tools of one turn may run in all (the wait for the user's
    /// decisions not counted); at it the running calls are cancelled, later
    /// calls are not run, and the turn ends with `tool_time_limit`, offering
    /// Continue (zero: no limit).
    pub max_tool_time: Duration,
    /// How long a finished turn's log stays for a page that comes back.
    pub turn_retention: Duration,
    /// Most bytes all turns' logs may hold together; past it the finished
    /// logs that ended first go.
    pub max_turn_logs_bytes: usize,
    /// The Redis replicas share turns, controls and counts through
    /// (`PENSIVE_REDIS_URL`); `None`: one process, all in its memory.
    pub redis_url: Option<crate::server::providers::secret::Secret>,
}

impl Limits {
    /// How long and how much the turns' logs are kept.
    pub(crate) fn retention(&self) -> super::turn_service::runs::Retention {
        super::turn_service::runs::Retention {
            keep_for: self.turn_retention,
            max_bytes: self.max_turn_logs_bytes,
        }
    }
}

/// Connections one address may hold unless `PENSIVE_MAX_CONNECTIONS_PER_ADDRESS`
/// says otherwise. A browser opens at most 6 connections to one host over
/// HTTP/1.1, so 16 leaves room for a few browsers behind one NAT, while one
/// client needs 64 addresses to fill the default 1024. Behind a trusted proxy
/// every connection comes from the proxy, so there is no cap by default (the
/// proxy limits its clients: nginx's `limit_conn`).
pub(crate) fn default_per_address(client_ip_header: Option<&str>) -> usize {
    match client_ip_header {
        Some(_) => 0,
        None => 16,
    }
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
            max_connections_per_address: default_per_address(None),
            body_timeout: Duration::from_secs(60),
            max_tool_calls: crate::turn::tool::TOOL_CALL_LIMIT,
            tool_decision_time: super::turn_service::tool_decisions::DECISION_TIME,
            max_tool_time: crate::turn::tool::TOOL_TIME_LIMIT,
            turn_retention: Duration::from_secs(30 * 60),
            max_turn_logs_bytes: 256 * 1024 * 1024,
            redis_url: None,
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
pub(crate) struct TurnLimiter {
    limits: Arc<Limits>,
    clients: Arc<Mutex<HashMap<String, ClientState>>>,
    /// Where the replicas count each client's running turns together
    /// (`PENSIVE_REDIS_URL`).
    shared: Option<crate::server::shared::SharedRedis>,
}

impl std::fmt::Debug for TurnLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnLimiter")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// Held for as long as a turn streams; dropping it frees the client's slot.
pub(crate) struct TurnPermit {
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

/// A running turn counted in Redis; dropping it counts it out there.
pub(crate) struct SharedPermit {
    redis: crate::server::shared::SharedRedis,
    key: String,
}

impl Drop for SharedPermit {
    fn drop(&mut self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (redis, key) = (self.redis.clone(), std::mem::take(&mut self.key));
        runtime.spawn(async move {
            use redis::AsyncCommands;
            let done: redis::RedisResult<()> = match redis.conn().await {
                Ok(mut conn) => conn.decr(&key, 1).await,
                Err(err) => Err(err),
            };
            if let Err(err) = done {
                tracing::warn!(%err, "cannot count a finished turn out on Redis");
            }
        });
    }
}

impl TurnLimiter {
    pub fn new(limits: Limits) -> Self {
        Self {
            limits: Arc::new(limits),
            clients: Arc::default(),
            shared: None,
        }
    }

    /// The limiter, with the running turns per client counted in `redis`
    /// too (so the bound holds across replicas) when there is one.
    pub(crate) fn shared_through(
        mut self,
        redis: Option<crate::server::shared::SharedRedis>,
    ) -> Self {
        self.shared = redis;
        self
    }

    /// Counts a running turn of `client` in Redis too, so the bound on
    /// running turns holds across replicas; refused past it. Without Redis,
    /// or with one that does not answer, only this replica's count holds.
    pub(crate) async fn admit_shared(
        &self,
        client: &str,
    ) -> Result<Option<SharedPermit>, TurnError> {
        let limit = self.limits.turns_per_client;
        let Some(redis) = self.shared.as_ref().filter(|_| limit > 0) else {
            return Ok(None);
        };
        let key = format!(
            "pensive:client:{}:running",
            crate::server::shared::sha256_hex(client)
        );
        // A replica that dies never counts its turns out: the count
        // fades once the client has started nothing for this long.
        let fade = match self.limits.max_turn_duration.as_secs() {
            0 => 3600,
            secs => secs + 60,
        };
        let counted = tokio::time::timeout(crate::server::shared::QUICK, async {
            let mut conn = redis.conn().await?;
            redis::pipe()
                .incr(&key, 1)
                .expire(&key, fade as i64)
                .ignore()
                .query_async::<(usize,)>(&mut conn)
                .await
        })
        .await
        .unwrap_or_else(|_| {
            Err(redis::RedisError::from((
                redis::ErrorKind::Io,
                "no answer in time",
            )))
        });
        let permit = SharedPermit {
            redis: redis.clone(),
            key,
        };
        match counted {
            Ok((running,)) if running > limit => {
                drop(permit);
                Err(TurnError::TooManyStreaming {
                    active: running - 1,
                    limit,
                })
            }
            Ok(_) => Ok(Some(permit)),
            Err(err) => {
                tracing::warn!(%err, "cannot count the client's turns on Redis; counting on this replica only");
                Ok(None)
            }
        }
    }

    /// Admits a turn for `client` now, or says why not (an error to stream).
    pub(crate) fn admit(&self, client: &str, now: Instant) -> Result<TurnPermit, TurnError> {
        let Ok(mut clients) = self.clients.lock() else {
            return Err(TurnError::CounterFailed);
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
            return Err(TurnError::TooManyStreaming {
                active: state.active,
                limit: limits.turns_per_client,
            });
        }
        if limits.turns_per_minute > 0 && state.recent.len() >= limits.turns_per_minute {
            let oldest = state.recent.front().copied().unwrap_or(now);
            let wait = WINDOW.saturating_sub(now.duration_since(oldest)).as_secs() + 1;
            return Err(TurnError::TooManyPerMinute {
                started: state.recent.len(),
                limit: limits.turns_per_minute,
                retry_secs: wait,
            });
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

    /// Forgets clients with no turn streaming and none started in the last
    /// minute. Without it, with a rate set, every client ever seen would keep
    /// an entry (its start times are only trimmed when it starts again).
    pub(crate) fn prune(&self, now: Instant) {
        let Ok(mut clients) = self.clients.lock() else {
            return;
        };
        clients.retain(|_, state| {
            state
                .recent
                .retain(|started| now.duration_since(*started) < WINDOW);
            state.active > 0 || !state.recent.is_empty()
        });
    }

    /// How many clients are being tracked (for tests: entries do not pile up).
    #[cfg(test)]
    pub(crate) fn tracked_clients(&self) -> usize {
        self.clients.lock().map(|c| c.len()).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::ErrorKind;

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
        let refused = limiter.admit("a", now).err().expect("third refused");
        assert_eq!(refused.kind(), ErrorKind::RateLimit);
        let message = refused.user_message();
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
        let message = limiter
            .admit("a", start + Duration::from_secs(20))
            .err()
            .expect("third in a minute refused")
            .user_message();
        assert!(message.contains("Try again in 41 s"), "{message}");
        assert!(limiter.admit("a", start + Duration::from_secs(61)).is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn clients_that_go_quiet_are_forgotten_by_the_pruning_task() {
        let limiter = limiter(3, 5);
        let now = Instant::now();
        for client in ["a", "b", "c"] {
            drop(limiter.admit(client, now).expect("admitted"));
        }
        let _streaming = limiter.admit("d", now).expect("admitted");
        assert_eq!(limiter.tracked_clients(), 4, "a rate keeps start times");
        let pruned = limiter.clone();
        tokio::spawn(crate::server::http::pruning::prune_forever(move |now| {
            pruned.prune(now)
        }));
        // Paused time: this sleep only lets the clock (and the task's
        // interval) run ahead.
        tokio::time::sleep(2 * crate::server::http::pruning::PRUNE_EVERY + WINDOW).await;
        assert_eq!(
            limiter.tracked_clients(),
            1,
            "only the client with a turn streaming is kept"
        );
    }

    #[test]
    fn idle_clients_are_forgotten() {
        let limiter = limiter(3, 0);
        drop(limiter.admit("a", Instant::now()).expect("admitted"));
        assert_eq!(limiter.tracked_clients(), 0);
    }
}
