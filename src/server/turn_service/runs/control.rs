//! Controls that travel between replicas (with `PENSIVE_REDIS_URL`): Stop,
//! a tool decision or Answer now that reached a replica which does not run
//! the turn is PUBLISHed on the channel of the replica that does (its
//! record names it); that replica acts on it as if asked itself and pushes
//! its answer onto a reply list the asker waits on, so the HTTP answer says
//! whether a running turn got it. Nothing here decides who may: the asker
//! checks the turn's owner, and the running replica checks the decider or
//! client as for its own requests.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::StreamExt;
use redis::AsyncCommands;
use serde::{Deserialize, Serialize};

use crate::server::shared::SharedRedis;
use crate::turn::tool::ShownCall;
use crate::turn::{AnswerNow, Decision};

/// How long an asker waits for the running replica's answer.
pub(crate) const REPLY_WAIT: Duration = Duration::from_secs(4);
/// How long an answer nobody took stays.
const REPLY_KEEP_SECS: i64 = 30;

/// What one replica asks of the one that runs a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(crate) enum Control {
    /// Stop the turn (its owner was checked by the asker).
    Stop { turn_id: String },
    /// `decider`'s decision on the call `call` of the turn.
    Decide {
        decider: String,
        turn_id: String,
        call: ShownCall,
        decision: Decision,
    },
    /// Answer now, for `client`'s turn.
    AnswerNow { turn_id: String, client: String },
}

/// The running replica's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub(crate) enum Reply {
    /// Whether the running turn took the control.
    Taken {
        taken: bool,
    },
    AnswerNow {
        answer: AnswerNow,
    },
}

/// How a replica acts on a control sent to it.
pub(crate) type Handler = Arc<dyn Fn(Control) -> BoxFuture<'static, Reply> + Send + Sync>;

/// A control on the wire, with where its answer goes.
#[derive(Serialize, Deserialize)]
struct Envelope {
    reply_to: String,
    control: Control,
}

/// The channel replica `replica` listens on.
pub(crate) fn channel(replica: &str) -> String {
    format!("pensive:replica:{replica}:control")
}

/// Sends `control` to `replica` and waits (a while) for its answer; `None`
/// when no replica listens there or none answered in time.
pub(crate) async fn ask(redis: &SharedRedis, replica: &str, control: Control) -> Option<Reply> {
    let reply_to = format!("pensive:reply:{}", super::random_hex(16));
    let message = serde_json::to_string(&Envelope {
        reply_to: reply_to.clone(),
        control,
    })
    .ok()?;
    // The reply list is read on a connection of its own: BLPOP blocks.
    let mut waiting = match redis.dedicated(REPLY_WAIT).await {
        Ok(conn) => conn,
        Err(err) => {
            tracing::warn!(%err, "cannot reach Redis to pass a control on");
            return None;
        }
    };
    let mut conn = redis.conn().await.ok()?;
    let listeners: i64 = match conn.publish(channel(replica), message).await {
        Ok(n) => n,
        Err(err) => {
            tracing::warn!(%err, "cannot publish a control on Redis");
            return None;
        }
    };
    if listeners == 0 {
        return None;
    }
    let answer: Option<(String, String)> = redis::cmd("BLPOP")
        .arg(&reply_to)
        .arg(REPLY_WAIT.as_secs_f64())
        .query_async(&mut waiting)
        .await
        .ok()?;
    serde_json::from_str(&answer?.1).ok()
}

/// Acts on the controls sent to `replica` for as long as the runtime runs,
/// resubscribing after Redis comes back.
pub(crate) async fn listen(redis: SharedRedis, replica: String, handler: Handler) {
    let mut backoff = Duration::from_millis(200);
    loop {
        match redis.pubsub().await {
            Ok(mut pubsub) => match pubsub.subscribe(channel(&replica)).await {
                Ok(()) => {
                    backoff = Duration::from_millis(200);
                    let mut messages = pubsub.into_on_message();
                    while let Some(message) = messages.next().await {
                        let Ok(payload) = message.get_payload::<String>() else {
                            continue;
                        };
                        let Ok(envelope) = serde_json::from_str::<Envelope>(&payload) else {
                            tracing::warn!("an unreadable control arrived on Redis; ignored");
                            continue;
                        };
                        tokio::spawn(answer(redis.clone(), handler.clone(), envelope));
                    }
                    tracing::warn!("the Redis control subscription ended; subscribing again");
                }
                Err(err) => tracing::warn!(%err, "cannot subscribe to controls on Redis"),
            },
            Err(err) => tracing::warn!(%err, "cannot reach Redis for controls; retrying"),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(5));
    }
}

async fn answer(redis: SharedRedis, handler: Handler, envelope: Envelope) {
    let reply = handler(envelope.control).await;
    let Ok(reply) = serde_json::to_string(&reply) else {
        return;
    };
    let Ok(mut conn) = redis.conn().await else {
        return;
    };
    let pushed: redis::RedisResult<()> = redis::pipe()
        .rpush(&envelope.reply_to, reply)
        .ignore()
        .expire(&envelope.reply_to, REPLY_KEEP_SECS)
        .ignore()
        .query_async(&mut conn)
        .await;
    if let Err(err) = pushed {
        tracing::warn!(%err, "cannot answer a control on Redis");
    }
}
