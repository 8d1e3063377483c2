//! The Redis that replicas share when `PENSIVE_REDIS_URL` is set: one handle
//! per process, cloned by whatever shares through it (the turns' logs and
//! controls in `turn_service::runs::store::redis`, the revoked sessions, the
//! running turns per client, the tool agreements). It only connects; what is
//! stored and under which key is each user's own business. Never required:
//! every user keeps working from its own memory when Redis is away.

use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection, PubSub};
use redis::{AsyncConnectionConfig, Client, RedisResult};
use tokio::sync::OnceCell;

/// How long one ordinary command may take before it counts as failed.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a request waits on a shared check (a sign-out, a client's
/// count) before going on with what its replica knows.
pub(crate) const QUICK: Duration = Duration::from_millis(500);
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// A connection to the shared Redis; clones share it.
#[derive(Clone)]
pub(crate) struct SharedRedis {
    client: Client,
    /// Names the deployment: the same on every replica given this URL.
    deployment: Arc<str>,
    /// Made on first use (it needs the runtime), then reconnects by itself.
    manager: Arc<OnceCell<ConnectionManager>>,
}

impl std::fmt::Debug for SharedRedis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may hold a password: never printed.
        f.debug_struct("SharedRedis").finish_non_exhaustive()
    }
}

impl SharedRedis {
    /// A handle for `url` (`redis://host:port/db`); nothing connects yet.
    pub(crate) fn open(url: &str) -> RedisResult<Self> {
        Ok(Self {
            client: Client::open(url)?,
            deployment: sha256_hex(url).get(..16).unwrap_or_default().into(),
            manager: Arc::default(),
        })
    }

    /// The same on every replica sharing this Redis (the URL's hash; never
    /// the URL, which may hold a password).
    pub(crate) fn deployment(&self) -> &str {
        &self.deployment
    }

    /// The shared connection for ordinary (non-blocking) commands.
    pub(crate) async fn conn(&self) -> RedisResult<ConnectionManager> {
        let manager = self
            .manager
            .get_or_try_init(|| async {
                let config = ConnectionManagerConfig::new()
                    .set_response_timeout(Some(RESPONSE_TIMEOUT))
                    .set_connection_timeout(Some(CONNECT_TIMEOUT))
                    .set_number_of_retries(2)
                    .set_max_delay(Duration::from_secs(1));
                ConnectionManager::new_lazy_with_config(self.client.clone(), config)
            })
            .await?;
        Ok(manager.clone())
    }

    /// A connection of its own, for a command that blocks for up to
    /// `blocks` (XREAD BLOCK, BLPOP): on the shared one it would hold up
    /// every other command.
    pub(crate) async fn dedicated(&self, blocks: Duration) -> RedisResult<MultiplexedConnection> {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(blocks + RESPONSE_TIMEOUT));
        self.client
            .get_multiplexed_async_connection_with_config(&config)
            .await
    }

    /// A subscriber connection.
    pub(crate) async fn pubsub(&self) -> RedisResult<PubSub> {
        self.client.get_async_pubsub().await
    }
}

/// The sha256 of `value` in hex: how anything secret is named in Redis.
pub(crate) fn sha256_hex(value: &str) -> String {
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, value.as_bytes());
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}
