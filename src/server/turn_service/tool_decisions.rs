//! Calls that wait for the user: each waits under its client, turn and
//! call id until `POST /api/tool_decision` answers it (as Answer now names
//! a running turn). A decision for a call another client started, or one
//! not waiting, changes nothing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::oneshot;

use crate::turn::Decision;

/// How long a call waits for the user before it counts as denied.
pub(crate) const DECISION_TIME: Duration = Duration::from_secs(10 * 60);

type Key = (String, String, String);

/// The calls waiting for a decision.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolDecisions {
    waiting: Arc<Mutex<HashMap<Key, oneshot::Sender<Decision>>>>,
}

/// One waiting call; dropping it (the turn ended) forgets it.
pub(crate) struct Waiting {
    key: Key,
    decisions: ToolDecisions,
    answer: oneshot::Receiver<Decision>,
}

impl ToolDecisions {
    /// Call `call_id` of `client`'s turn `turn_id` starts waiting.
    pub fn wait(&self, client: &str, turn_id: &str, call_id: &str) -> Waiting {
        let key = (client.to_owned(), turn_id.to_owned(), call_id.to_owned());
        let (tell, answer) = oneshot::channel();
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.insert(key.clone(), tell);
        }
        Waiting {
            key,
            decisions: self.clone(),
            answer,
        }
    }

    /// The user decided; false when no such call of this client waits.
    pub fn decide(&self, client: &str, turn_id: &str, call_id: &str, decision: Decision) -> bool {
        let key = (client.to_owned(), turn_id.to_owned(), call_id.to_owned());
        let tell = self.waiting.lock().ok().and_then(|mut w| w.remove(&key));
        tell.is_some_and(|tell| tell.send(decision).is_ok())
    }

    /// How many calls wait.
    #[cfg(test)]
    pub(crate) fn count(&self) -> usize {
        self.waiting.lock().map_or(0, |w| w.len())
    }
}

impl Waiting {
    /// The decision, or `Deny` after `limit` without one.
    pub async fn decision(&mut self, limit: Duration) -> Decision {
        match tokio::time::timeout(limit, &mut self.answer).await {
            Ok(Ok(decision)) => decision,
            _ => Decision::Deny,
        }
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Ok(mut waiting) = self.decisions.waiting.lock() {
            waiting.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_the_client_that_started_the_turn_decides() {
        let decisions = ToolDecisions::default();
        let mut waiting = decisions.wait("alice", "t1", "c1");
        assert!(!decisions.decide("mallory", "t1", "c1", Decision::AllowOnce));
        assert!(!decisions.decide("alice", "t1", "c2", Decision::AllowOnce));
        assert!(decisions.decide("alice", "t1", "c1", Decision::AllowConversation));
        assert_eq!(
            waiting.decision(Duration::from_secs(1)).await,
            Decision::AllowConversation
        );
    }

    #[tokio::test(start_paused = true)]
    async fn no_decision_in_time_is_a_denial_and_the_call_is_forgotten() {
        let decisions = ToolDecisions::default();
        let mut waiting = decisions.wait("alice", "t1", "c1");
        assert_eq!(waiting.decision(DECISION_TIME).await, Decision::Deny);
        drop(waiting);
        assert_eq!(decisions.count(), 0);
        assert!(!decisions.decide("alice", "t1", "c1", Decision::AllowOnce));
    }
}
