//! What ends a running turn from outside its stream: Stop (from any page of
//! its starter), the server's shutdown (once its grace period is over) or
//! the turn's own time limit (`PENSIVE_MAX_TURN_SECS`). Every wait of a turn (opening the upstream,
//! the next chunk, a user's decision, running tools) races `TurnEnd::reached`.

use std::time::Duration;

use crate::turn::turn_error::TurnError;

/// The ways a turn is ended from outside, armed when the turn starts.
pub(super) struct TurnEnd {
    /// Flips to true when running turns must end (shutdown).
    ending: tokio::sync::watch::Receiver<bool>,
    /// Flips to true when the turn's starter presses Stop.
    stop: tokio::sync::watch::Receiver<bool>,
    /// When the turn's time is up (`None`: no limit).
    deadline: Option<tokio::time::Instant>,
    /// The turn's time limit, named in its `over_time` error.
    max_duration: Duration,
}

impl TurnEnd {
    /// Starts the turn's clock now; a zero `max_duration` is no limit.
    pub(super) fn new(
        ending: tokio::sync::watch::Receiver<bool>,
        stop: tokio::sync::watch::Receiver<bool>,
        max_duration: Duration,
    ) -> Self {
        let deadline =
            (!max_duration.is_zero()).then(|| tokio::time::Instant::now() + max_duration);
        Self {
            ending,
            stop,
            deadline,
            max_duration,
        }
    }

    /// Resolves when the turn must end, with the error it ends with.
    pub(super) async fn reached(&mut self) -> TurnError {
        cut_short(&mut self.ending, &mut self.stop, self.deadline)
            .await
            .error(self.max_duration)
    }
}

/// Resolves once `signal` flips to true (never, if its sender is dropped
/// first: a closed channel is not a signal).
async fn ended(ending: &mut tokio::sync::watch::Receiver<bool>) {
    if ending.wait_for(|ending| *ending).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Why a turn was ended from outside its stream.
enum Cut {
    /// Its starter pressed Stop.
    Stopped,
    /// The server is shutting down and the grace period is over.
    Shutdown,
    /// The turn ran for `PENSIVE_MAX_TURN_SECS`.
    OverTime,
}

impl Cut {
    /// The error the turn ends with.
    fn error(self, max_duration: Duration) -> TurnError {
        match self {
            Cut::Stopped => TurnError::Stopped,
            Cut::Shutdown => TurnError::Shutdown,
            Cut::OverTime => TurnError::OverTime {
                limit: max_duration,
            },
        }
    }
}

/// Resolves when a running turn must end: a shutdown, or its deadline (none:
/// no limit).
async fn cut_short(
    ending: &mut tokio::sync::watch::Receiver<bool>,
    stop: &mut tokio::sync::watch::Receiver<bool>,
    deadline: Option<tokio::time::Instant>,
) -> Cut {
    let over_time = async {
        match deadline {
            Some(deadline) => tokio::time::sleep_until(deadline).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = ended(stop) => Cut::Stopped,
        _ = ended(ending) => Cut::Shutdown,
        _ = over_time => Cut::OverTime,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never_stopped() -> tokio::sync::watch::Receiver<bool> {
        tokio::sync::watch::channel(false).1
    }

    #[tokio::test(start_paused = true)]
    async fn stop_ends_a_turn_as_stopped_before_its_limit() {
        let (_shutdown, ending) = tokio::sync::watch::channel(false);
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let mut end = TurnEnd::new(ending, stopped, Duration::from_secs(60));
        stop.send_replace(true);
        assert!(matches!(end.reached().await, TurnError::Stopped));
        assert_eq!(TurnError::Stopped.event(), crate::turn::TurnEvent::Stopped);
    }

    #[tokio::test(start_paused = true)]
    async fn a_turn_ends_at_its_time_limit_with_over_time() {
        let (_shutdown, ending) = tokio::sync::watch::channel(false);
        let started = tokio::time::Instant::now();
        let mut end = TurnEnd::new(ending, never_stopped(), Duration::from_secs(5));
        let error = end.reached().await;
        assert_eq!(started.elapsed(), Duration::from_secs(5));
        assert!(matches!(error, TurnError::OverTime { limit } if limit == Duration::from_secs(5)));
    }

    #[tokio::test(start_paused = true)]
    async fn a_shutdown_ends_a_turn_before_its_limit() {
        let (shutdown, ending) = tokio::sync::watch::channel(false);
        let mut end = TurnEnd::new(ending, never_stopped(), Duration::from_secs(60));
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            shutdown.send_replace(true);
            // Kept open: a dropped sender is not a shutdown.
            std::future::pending::<()>().await;
        });
        assert!(matches!(end.reached().await, TurnError::Shutdown));
    }

    #[tokio::test(start_paused = true)]
    async fn no_limit_and_no_shutdown_never_end_a_turn() {
        let (shutdown, ending) = tokio::sync::watch::channel(false);
        let mut end = TurnEnd::new(ending, never_stopped(), Duration::ZERO);
        // A service dropped without a shutdown: its closed channel is no signal.
        drop(shutdown);
        let waited = tokio::time::timeout(Duration::from_secs(3600), end.reached()).await;
        assert!(waited.is_err(), "still running after an hour");
    }
}
