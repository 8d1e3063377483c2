//! Tool agreements shared by replicas through Redis (`PENSIVE_REDIS_URL`):
//! when a decider agrees to a changed tool on one replica, the others
//! release the hold for that decider too. One HASH, `pensive:tools:agreed_by`,
//! whose fields name the decider by its sha256, the server and the tool, and
//! whose values are the agreed hashes. Each replica reads it every few
//! seconds into memory, so a hold check never waits on Redis; a Redis that
//! is away leaves each replica with what it knew.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use redis::AsyncCommands;

use crate::server::shared::{sha256_hex, SharedRedis};

const KEY: &str = "pensive:tools:agreed_by";
/// How often a replica reads the others' agreements.
pub(crate) const SYNC_EVERY: Duration = Duration::from_secs(2);

/// The agreements every replica made; clones share them.
#[derive(Debug, Clone)]
pub(crate) struct SharedAgreements {
    redis: SharedRedis,
    known: Arc<Mutex<HashMap<String, String>>>,
}

fn field(decider: &str, server: &str, tool: &str) -> String {
    format!("{}\u{1f}{server}\u{1f}{tool}", sha256_hex(decider))
}

impl SharedAgreements {
    /// Shares through `redis`, reading the others' agreements on the
    /// current runtime from now on.
    pub(crate) fn start(redis: SharedRedis) -> Self {
        let shared = Self {
            redis,
            known: Arc::default(),
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let reader = shared.clone();
            runtime.spawn(async move {
                let mut tick = tokio::time::interval(SYNC_EVERY);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    tick.tick().await;
                    reader.read().await;
                }
            });
        }
        shared
    }

    /// Reads every replica's agreements now.
    pub(crate) async fn read(&self) {
        let all: redis::RedisResult<HashMap<String, String>> = match self.redis.conn().await {
            Ok(mut conn) => conn.hgetall(KEY).await,
            Err(err) => Err(err),
        };
        match all {
            Ok(all) => {
                if let Ok(mut known) = self.known.lock() {
                    known.extend(all);
                }
            }
            Err(err) => tracing::warn!(%err, "cannot read the shared tool agreements on Redis"),
        }
    }

    /// `decider` agreed to `tool` of `server` as hashed `hash`.
    pub(crate) fn agree(&self, decider: &str, server: &str, tool: &str, hash: &str) {
        let field = field(decider, server, tool);
        if let Ok(mut known) = self.known.lock() {
            known.insert(field.clone(), hash.to_owned());
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (redis, hash) = (self.redis.clone(), hash.to_owned());
        runtime.spawn(async move {
            let done: redis::RedisResult<()> = match redis.conn().await {
                Ok(mut conn) => conn.hset(KEY, field, hash).await,
                Err(err) => Err(err),
            };
            if let Err(err) = done {
                tracing::warn!(%err, "cannot share a tool agreement on Redis: it holds on this replica");
            }
        });
    }

    /// The hash `decider` agreed to for `tool` of `server`, on any replica.
    pub(crate) fn agreed(&self, decider: &str, server: &str, tool: &str) -> Option<String> {
        let known = self.known.lock().ok()?;
        known.get(&field(decider, server, tool)).cloned()
    }
}
