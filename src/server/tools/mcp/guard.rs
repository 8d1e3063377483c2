//! The client side of one MCP connection: who Pensive says it is, and a
//! bound on the notifications a server may send. Pensive acts on one of
//! them, `notifications/tools/list_changed` (the supervisor lists the tools
//! again: `supervisor::relist_on_change`), and on none of the rest
//! (progress, logs), yet each one is read, parsed and dispatched: a server sending them without pause burned 7.7 CPU-seconds
//! every 10 s with no turn running. Each server gets a token bucket; one
//! that empties it is flagged, and its supervisor disconnects it for good
//! (`supervisor`), saying why.

use std::sync::{Arc, Mutex};
use std::time::Instant;

// Logging is deprecated by SEP-2577, yet servers of 2025 still send it, and
// a flood of log messages is the likeliest flood: it is counted like the rest.
#[allow(deprecated)]
use rmcp::model::LoggingMessageNotificationParam;
use rmcp::model::{
    CancelledNotificationParam, ClientConfig, CustomNotification, ProgressNotificationParam,
    ResourceUpdatedNotificationParam, SubscriptionsAcknowledgedNotificationParams,
    TaskStatusNotificationParams,
};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};
use tokio::sync::watch;

/// Notifications a second a server may keep sending. Progress during a
/// long call or a chatty log is a few a second; a hundred leaves room for
/// bursts of many calls at once.
pub(crate) const NOTIFICATIONS_PER_SECOND: f64 = 100.0;
/// How many may arrive at once before the rate counts.
pub(crate) const NOTIFICATION_BURST: f64 = 500.0;

/// Why a flooding server was disconnected (the log and the Tools control).
pub(crate) fn flood_reason() -> String {
    format!(
        "disconnected: it sent more than {} notifications a second",
        NOTIFICATIONS_PER_SECOND as u64
    )
}

/// A token bucket: `burst` tokens, refilled at `rate` a second.
#[derive(Debug)]
pub(crate) struct Bucket {
    tokens: f64,
    rate: f64,
    burst: f64,
    last: Instant,
}

impl Bucket {
    pub fn new(rate: f64, burst: f64, now: Instant) -> Self {
        Self {
            tokens: burst,
            rate,
            burst,
            last: now,
        }
    }

    /// Takes one token at `now`; false when there is none left.
    pub fn take(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last);
        self.last = now;
        self.tokens = (self.tokens + elapsed.as_secs_f64() * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// The handler rmcp calls for what a server sends unasked.
#[derive(Clone)]
pub(crate) struct Guard {
    info: ClientConfig,
    bucket: Arc<Mutex<Bucket>>,
    flooded: watch::Sender<bool>,
    list_changed: watch::Sender<u64>,
}

impl Guard {
    /// The handler for a connection introducing Pensive as `info`.
    pub fn new(info: ClientConfig) -> Self {
        Self {
            info,
            bucket: Arc::new(Mutex::new(Bucket::new(
                NOTIFICATIONS_PER_SECOND,
                NOTIFICATION_BURST,
                Instant::now(),
            ))),
            flooded: watch::Sender::new(false),
            list_changed: watch::Sender::new(0),
        }
    }

    /// Changes each time the server says its tool list changed (the count
    /// of such notifications: many between two reads make one relist).
    pub fn list_changed(&self) -> watch::Receiver<u64> {
        self.list_changed.subscribe()
    }

    /// Turns true once the server sent notifications faster than allowed.
    pub fn flooded(&self) -> watch::Receiver<bool> {
        self.flooded.subscribe()
    }

    /// The server said its tool list changed (unasked, or on the listen
    /// stream of a 2026-07-28 connection: `supervisor`): counted like any
    /// notification, and flagged for the supervisor to list again.
    pub fn tools_changed(&self) {
        self.count();
        self.list_changed.send_modify(|count| *count += 1);
    }

    /// One notification arrived.
    fn count(&self) {
        let emptied = match self.bucket.lock() {
            Ok(mut bucket) => !bucket.take(Instant::now()),
            // A panic elsewhere poisoned the lock: counting stops, which
            // only loosens a bound.
            Err(_) => false,
        };
        if emptied && !*self.flooded.borrow() {
            self.flooded.send_replace(true);
        }
    }
}

impl ClientHandler for Guard {
    async fn on_cancelled(
        &self,
        _: CancelledNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.count();
    }
    async fn on_progress(&self, _: ProgressNotificationParam, _: NotificationContext<RoleClient>) {
        self.count();
    }
    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        _: LoggingMessageNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.count();
    }
    async fn on_resource_updated(
        &self,
        _: ResourceUpdatedNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.count();
    }
    async fn on_resource_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.count();
    }
    // Only flagged here: the supervisor lists again, at most once per
    // `RELIST_INTERVAL`, however many of these arrive.
    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.tools_changed();
    }
    async fn on_prompt_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.count();
    }
    async fn on_subscriptions_acknowledged(
        &self,
        _: SubscriptionsAcknowledgedNotificationParams,
        _: NotificationContext<RoleClient>,
    ) {
        self.count();
    }
    async fn on_task_status(
        &self,
        _: TaskStatusNotificationParams,
        _: NotificationContext<RoleClient>,
    ) {
        self.count();
    }
    async fn on_custom_notification(
        &self,
        _: CustomNotification,
        _: NotificationContext<RoleClient>,
    ) {
        self.count();
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: std::time::Duration = std::time::Duration::from_secs(1);

    #[test]
    fn a_bucket_allows_its_burst_then_its_rate() {
        let start = Instant::now();
        let mut bucket = Bucket::new(100.0, 500.0, start);
        assert_eq!((0..500).filter(|_| bucket.take(start)).count(), 500);
        assert!(!bucket.take(start), "the burst is spent");
        let later = start + SECOND;
        assert_eq!((0..1_000).filter(|_| bucket.take(later)).count(), 100);
        let much_later = later + 60 * SECOND;
        assert_eq!(
            (0..1_000).filter(|_| bucket.take(much_later)).count(),
            500,
            "a quiet minute refills the burst, no more"
        );
    }

    #[test]
    fn a_tool_list_change_is_counted_and_flagged_for_a_relist() {
        let guard = Guard::new(ClientConfig::default());
        let changed = guard.list_changed();
        let flooded = guard.flooded();
        for _ in 0..=NOTIFICATION_BURST as usize {
            guard.tools_changed();
        }
        assert!(changed.has_changed().unwrap_or(false));
        assert!(
            *flooded.borrow(),
            "list changes count against the flood bound"
        );
    }

    #[test]
    fn a_guard_flags_a_flood_once_the_burst_is_spent() {
        let guard = Guard::new(ClientConfig::default());
        let flooded = guard.flooded();
        for _ in 0..NOTIFICATION_BURST as usize {
            guard.count();
        }
        assert!(!*flooded.borrow(), "a burst is allowed");
        for _ in 0..10 {
            guard.count();
        }
        assert!(*flooded.borrow());
    }
}
