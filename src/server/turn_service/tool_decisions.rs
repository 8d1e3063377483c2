//! Calls that wait for the user: each waits under its decider (the
//! browser's session where there is an access token, else its client), its
//! turn and its call id until `POST /api/tool_decision` answers it. A
//! decision must also name the call's digest (`call_identity`): one for a
//! call another decider started, one not waiting, or one whose digest is not
//! the waiting call's (the user was shown another call) changes nothing, and
//! the call goes on waiting.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::oneshot;

use crate::turn::tool::ShownCall;
use crate::turn::Decision;

/// How long a call waits for the user before it counts as denied.
pub(crate) const DECISION_TIME: Duration = Duration::from_secs(10 * 60);

type Key = (String, String, String);

/// A waiting call: the digest of what it runs, and where its decision goes.
#[derive(Debug)]
struct Pending {
    digest: String,
    tell: oneshot::Sender<Decision>,
}

/// The calls waiting for a decision.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolDecisions {
    waiting: Arc<Mutex<HashMap<Key, Pending>>>,
}

/// One waiting call; dropping it (the turn ended) forgets it.
pub(crate) struct Waiting {
    key: Key,
    decisions: ToolDecisions,
    answer: oneshot::Receiver<Decision>,
}

impl ToolDecisions {
    /// Call `call_id` (of digest `digest`) of `decider`'s turn `turn_id`
    /// starts waiting.
    pub fn wait(&self, decider: &str, turn_id: &str, call_id: &str, digest: &str) -> Waiting {
        let key = (decider.to_owned(), turn_id.to_owned(), call_id.to_owned());
        let (tell, answer) = oneshot::channel();
        if let Ok(mut waiting) = self.waiting.lock() {
            let digest = digest.to_owned();
            waiting.insert(key.clone(), Pending { digest, tell });
        }
        Waiting {
            key,
            decisions: self.clone(),
            answer,
        }
    }

    /// The user decided on the call `shown`; false when no such call of
    /// this decider waits, or the one that waits is not the call shown.
    pub fn decide(
        &self,
        decider: &str,
        turn_id: &str,
        shown: &ShownCall,
        decision: Decision,
    ) -> bool {
        let key = (decider.to_owned(), turn_id.to_owned(), shown.id.clone());
        let pending = self.waiting.lock().ok().and_then(|mut waiting| {
            let same_call = waiting.get(&key)?.digest == shown.digest;
            if !same_call {
                tracing::warn!(
                    call = %shown.id,
                    "a decision named a call the user was not shown (its digest differs); it waits on"
                );
                return None;
            }
            waiting.remove(&key)
        });
        pending.is_some_and(|pending| pending.tell.send(decision).is_ok())
    }

    /// How many calls wait.
    #[cfg(test)]
    pub(crate) fn count(&self) -> usize {
        self.waiting.lock().map_or(0, |w| w.len())
    }
}

impl Waiting {
    /// The decision, or `Deny` at `deadline` without one.
    pub async fn decision_by(&mut self, deadline: tokio::time::Instant) -> Decision {
        match tokio::time::timeout_at(deadline, &mut self.answer).await {
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

    fn shown(id: &str, digest: &str) -> ShownCall {
        ShownCall {
            id: id.into(),
            name: "files__write_file".into(),
            digest: digest.into(),
        }
    }

    #[tokio::test]
    async fn only_the_decider_that_started_the_turn_decides_on_the_call_it_saw() {
        let decisions = ToolDecisions::default();
        let mut waiting = decisions.wait("alice", "t1", "c1", "d1");
        let allow = Decision::AllowOnce;
        assert!(!decisions.decide("mallory", "t1", &shown("c1", "d1"), allow));
        assert!(!decisions.decide("alice", "t1", &shown("c2", "d1"), allow));
        assert!(!decisions.decide("alice", "t2", &shown("c1", "d1"), allow));
        // The page showed another call under this id: nothing runs, it waits on.
        assert!(!decisions.decide("alice", "t1", &shown("c1", "d2"), allow));
        assert_eq!(decisions.count(), 1);
        let allow_all = Decision::AllowConversation;
        assert!(decisions.decide("alice", "t1", &shown("c1", "d1"), allow_all));
        let soon = tokio::time::Instant::now() + Duration::from_secs(1);
        assert_eq!(waiting.decision_by(soon).await, Decision::AllowConversation);
    }

    #[tokio::test(start_paused = true)]
    async fn no_decision_in_time_is_a_denial_and_the_call_is_forgotten() {
        let decisions = ToolDecisions::default();
        let mut waiting = decisions.wait("alice", "t1", "c1", "d1");
        let deadline = tokio::time::Instant::now() + DECISION_TIME;
        assert_eq!(waiting.decision_by(deadline).await, Decision::Deny);
        drop(waiting);
        assert_eq!(decisions.count(), 0);
        let late = shown("c1", "d1");
        assert!(!decisions.decide("alice", "t1", &late, Decision::AllowOnce));
    }
}
