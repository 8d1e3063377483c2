//! The Redis store (`PENSIVE_REDIS_URL`). A turn's lines go to the Stream
//! `pensive:turn:{id}:log` (entry id `0-{seq}`, so a retried write cannot
//! add a line twice; MAXLEN the number of lines the per-turn byte bound can
//! hold; an EXPIRE of the retention time, refreshed), its owner to the hash
//! `pensive:turn:{id}` (the session's and secret's sha256 in hex, the
//! running replica, its lease key), and while it runs its id is in
//! `pensive:turns:running` and its lease key `pensive:turn:{id}:lease` is
//! kept alive (`lease`). A Redis that goes away never holds a turn up: the
//! lines wait in memory and are written when it is back.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_stream::stream;
use futures::stream::BoxStream;
use redis::aio::MultiplexedConnection;
use redis::streams::{StreamRangeReply, StreamReadReply};
use redis::{AsyncCommands, RedisResult};
use tokio::sync::mpsc;

use super::super::control::{self, Control, Handler, Reply};
use super::super::lease::{LEASE_CHECK, LEASE_REFRESH, LEASE_TTL};
use super::super::owner::Owner;
use super::super::reader::HEARTBEAT;
use super::super::run::Run;
use crate::server::shared::{SharedRedis, QUICK};
use crate::turn::log_line::{decode, event_line, heartbeat_line, LogLine, Stamp};
use crate::turn::turn_error::TurnError;

/// The set of turns running on some replica.
const RUNNING: &str = "pensive:turns:running";
/// Lines read at once.
const PAGE: usize = 512;
/// The shortest line a log holds (`{"seq":1,"at_ms":0,"type":"done"}`):
/// a log's byte bound holds at most its bytes over this many lines.
const MIN_LINE_BYTES: u64 = 32;

fn log_key(turn_id: &str) -> String {
    format!("pensive:turn:{turn_id}:log")
}
fn record_key(turn_id: &str) -> String {
    format!("pensive:turn:{turn_id}")
}
/// A lease's key lives `LEASE_TTL` unless refreshed.
fn lease_options() -> redis::SetOptions {
    redis::SetOptions::default().with_expiration(redis::SetExpiry::PX(LEASE_TTL.as_millis() as u64))
}

fn lease_key(turn_id: &str) -> String {
    format!("pensive:turn:{turn_id}:lease")
}

/// The turns' logs, owners, leases and controls in Redis; clones share it.
#[derive(Debug, Clone)]
pub(crate) struct RedisStore {
    redis: SharedRedis,
    /// This replica (its run's `boot`).
    replica: Arc<str>,
    /// The retention time: what every key's EXPIRE is set to.
    keep_for: Duration,
    /// The most lines a log may hold (XADD's MAXLEN).
    max_lines: u64,
    /// Running turns whose lease the last check found lapsed.
    suspects: Arc<std::sync::Mutex<HashSet<String>>>,
}

/// How often `owned` looks again for a record not written yet.
const RECORD_POLL: Duration = Duration::from_millis(25);

/// A running turn's lines on their way to Redis.
pub(crate) struct Mirror {
    lines: mpsc::UnboundedSender<(u64, Arc<str>)>,
}

impl Mirror {
    pub(crate) fn line(&self, seq: u64, line: Arc<str>) {
        // The writer ends only after this sender is dropped.
        let _ = self.lines.send((seq, line));
    }
}

/// A turn's owner record.
struct Record {
    owner: Owner,
    replica: String,
    started_ms: u64,
}

impl RedisStore {
    /// The store of replica `replica`, keeping logs `keep_for`, each within
    /// `max_log_bytes`.
    pub(crate) fn new(
        redis: SharedRedis,
        replica: Arc<str>,
        keep_for: Duration,
        max_log_bytes: u64,
    ) -> Self {
        Self {
            redis,
            replica,
            keep_for,
            // One more for the terminal line a full log still gets.
            max_lines: max_log_bytes / MIN_LINE_BYTES + 2,
            suspects: Arc::default(),
        }
    }

    fn keep_secs(&self) -> i64 {
        self.keep_for.as_secs().max(1) as i64
    }

    /// Listens for controls sent to this replica and watches leases.
    pub(crate) fn start_background(&self, handler: Handler) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("no runtime: controls from other replicas will not be heard");
            return;
        };
        runtime.spawn(control::listen(
            self.redis.clone(),
            self.replica.to_string(),
            handler,
        ));
        runtime.spawn(watch_leases(self.clone()));
    }

    /// Starts writing `run` to Redis: its record and lease first, then each
    /// line sent to the returned mirror, then, once the mirror is dropped
    /// (the turn's task let go), the end of its lease.
    pub(crate) fn opened(&self, run: &Arc<Run>) -> Mirror {
        let (lines, queued) = mpsc::unbounded_channel();
        let store = self.clone();
        let turn_id = run.id.clone();
        let (session, secret) = run.owner.to_hex();
        let started_ms = unix_ms().saturating_sub(run.at_ms());
        tokio::spawn(async move {
            store
                .write(&turn_id, queued, session, secret, started_ms)
                .await;
        });
        Mirror { lines }
    }

    async fn write(
        &self,
        turn_id: &str,
        mut queued: mpsc::UnboundedReceiver<(u64, Arc<str>)>,
        session: String,
        secret: String,
        started_ms: u64,
    ) {
        if !self.claim(turn_id).await {
            // Another replica's turn has this id: writing our owner over its
            // record would hand its log to our caller. Ours stays in memory.
            tracing::warn!(
                turn_id,
                "a turn with this id is already in Redis; this one is kept in this replica only"
            );
            while queued.recv().await.is_some() {}
            return;
        }
        let record = redis::pipe()
            .hset_multiple(
                record_key(turn_id),
                &[
                    ("session_sha256", session.as_str()),
                    ("secret_sha256", secret.as_str()),
                    ("replica", &self.replica),
                    ("lease", &lease_key(turn_id)),
                    ("started_ms", &started_ms.to_string()),
                ],
            )
            .ignore()
            .expire(record_key(turn_id), self.keep_secs())
            .ignore()
            .set_options(lease_key(turn_id), &*self.replica, lease_options())
            .ignore()
            .sadd(RUNNING, turn_id)
            .ignore()
            .clone();
        self.until_written(turn_id, &record).await;
        let mut refresh = tokio::time::interval(LEASE_REFRESH);
        refresh.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                next = queued.recv() => match next {
                    Some((seq, line)) => {
                        let add = self.add_line(turn_id, seq, &line);
                        self.until_written(turn_id, &add).await;
                    }
                    None => break,
                },
                _ = refresh.tick() => {
                    if let Err(err) = self.query(&self.refresh(turn_id)).await {
                        tracing::warn!(turn_id, %err, "cannot refresh a turn's lease on Redis");
                    }
                }
            }
        }
        let end = redis::pipe()
            .del(lease_key(turn_id))
            .ignore()
            .srem(RUNNING, turn_id)
            .ignore()
            .clone();
        self.until_written(turn_id, &end).await;
    }

    /// Makes `turn_id` this replica's in Redis (HSETNX of its record's
    /// `replica`): false when another replica's turn, running or finished,
    /// has the id. Waits for a Redis that is away (the turn goes on).
    async fn claim(&self, turn_id: &str) -> bool {
        let give_up = tokio::time::Instant::now() + self.keep_for;
        let mut backoff = Duration::from_millis(100);
        loop {
            let claimed: RedisResult<(bool, Option<String>)> = async {
                let mut conn = self.redis.conn().await?;
                redis::pipe()
                    .hset_nx(record_key(turn_id), "replica", &*self.replica)
                    .hget(record_key(turn_id), "replica")
                    .query_async(&mut conn)
                    .await
            }
            .await;
            match claimed {
                // Set now, or set by an earlier try whose answer was lost.
                Ok((_, holder)) => return holder.as_deref() == Some(&*self.replica),
                Err(err) => {
                    if tokio::time::Instant::now() >= give_up {
                        return false;
                    }
                    tracing::debug!(turn_id, %err, "cannot claim a turn on Redis yet");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(1));
                }
            }
        }
    }

    /// XADD of line `seq` (bounded, expiring, the lease refreshed with it).
    fn add_line(&self, turn_id: &str, seq: u64, line: &str) -> redis::Pipeline {
        let mut pipe = self.refresh(turn_id);
        pipe.cmd("XADD")
            .arg(log_key(turn_id))
            .arg("MAXLEN")
            .arg(self.max_lines)
            .arg(format!("0-{seq}"))
            .arg("line")
            .arg(line)
            .ignore()
            .expire(log_key(turn_id), self.keep_secs())
            .ignore();
        pipe
    }

    /// The lease and the keys' retention, renewed.
    fn refresh(&self, turn_id: &str) -> redis::Pipeline {
        redis::pipe()
            .set_options(lease_key(turn_id), &*self.replica, lease_options())
            .ignore()
            .expire(record_key(turn_id), self.keep_secs())
            .ignore()
            .expire(log_key(turn_id), self.keep_secs())
            .ignore()
            .clone()
    }

    async fn query(&self, pipe: &redis::Pipeline) -> RedisResult<()> {
        let mut conn = self.redis.conn().await?;
        pipe.query_async(&mut conn).await
    }

    /// Runs `pipe` until Redis takes it (or the retention time is over: the
    /// log would be gone by then anyway). The turn goes on meanwhile.
    async fn until_written(&self, turn_id: &str, pipe: &redis::Pipeline) {
        let give_up = tokio::time::Instant::now() + self.keep_for;
        let mut backoff = Duration::from_millis(100);
        let mut failed = false;
        loop {
            match self.query(pipe).await {
                Ok(()) => break,
                // The line is there already (an answer lost on the way, or
                // another replica ended the turn): nothing to add.
                Err(err) if already_written(&err) => break,
                Err(err) => {
                    if !failed {
                        tracing::warn!(turn_id, %err, "cannot write a turn to Redis; it goes on from memory, retrying");
                        failed = true;
                    }
                    if tokio::time::Instant::now() >= give_up {
                        tracing::warn!(turn_id, "gave up writing a turn to Redis");
                        return;
                    }
                    tokio::time::sleep(backoff).await;
                    // Short: once Redis is back, the lease must be renewed
                    // before the other replicas' second look (`lease`).
                    backoff = (backoff * 2).min(Duration::from_secs(1));
                }
            }
        }
        if failed {
            tracing::info!(turn_id, "writing the turn to Redis again");
        }
    }

    async fn record(&self, turn_id: &str) -> Option<Record> {
        let mut conn = self.redis.conn().await.ok()?;
        let fields: HashMap<String, String> = match conn.hgetall(record_key(turn_id)).await {
            Ok(fields) => fields,
            Err(err) => {
                tracing::warn!(%err, "cannot read a turn's record on Redis");
                return None;
            }
        };
        let field = |name: &str| fields.get(name).map(String::as_str).unwrap_or_default();
        if fields.is_empty() {
            return None;
        }
        Some(Record {
            owner: Owner::from_hex(field("session_sha256"), field("secret_sha256")),
            replica: field("replica").to_owned(),
            started_ms: field("started_ms").parse().unwrap_or_default(),
        })
    }

    /// The record of `turn_id` if `session` and `secret` are its starter's.
    /// The replica running a turn writes its record a moment after the turn
    /// starts, while a page that reloads at once may already ask another
    /// replica: looked for again until `QUICK` has passed. Every refusal
    /// takes that long, so a wrong secret is not told from an unknown id.
    async fn owned(&self, turn_id: &str, session: Option<&str>, secret: &str) -> Option<Record> {
        let give_up = tokio::time::Instant::now() + QUICK;
        loop {
            let record = self.record(turn_id).await;
            if let Some(record) = record.filter(|r| r.owner.admits(session, secret)) {
                return Some(record);
            }
            if tokio::time::Instant::now() >= give_up {
                return None;
            }
            tokio::time::sleep(RECORD_POLL).await;
        }
    }

    /// The log of a turn held in Redis after line `after`, for its starter
    /// alone: XRANGE for what was written, then XREAD BLOCK for the live
    /// lines, with heartbeats, to the terminal line. `None` as for a turn
    /// not held at all.
    pub(crate) async fn attach(
        &self,
        turn_id: &str,
        session: Option<&str>,
        secret: &str,
        after: u64,
        boot: &str,
    ) -> Option<BoxStream<'static, String>> {
        let record = self.owned(turn_id, session, secret).await?;
        let store = self.clone();
        let turn_id = turn_id.to_owned();
        let boot = boot.to_owned();
        let at_ms = move || unix_ms().saturating_sub(record.started_ms);
        Some(Box::pin(stream! {
            yield heartbeat_line(at_ms(), Some(&boot));
            let mut sent = after;
            let mut conn: Option<MultiplexedConnection> = None;
            let mut block = None;
            loop {
                let read = match conn.as_mut() {
                    Some(conn) => read_after(conn, &turn_id, sent, block).await,
                    None => match store.redis.dedicated(HEARTBEAT).await {
                        Ok(made) => {
                            conn = Some(made);
                            continue;
                        }
                        Err(err) => Err(err),
                    },
                };
                let lines = match read {
                    Ok(lines) => lines,
                    Err(err) => {
                        tracing::warn!(turn_id, %err, "cannot read a turn's log on Redis; retrying");
                        conn = None;
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        yield heartbeat_line(at_ms(), None);
                        continue;
                    }
                };
                if lines.is_empty() {
                    if block.is_some() {
                        if !store.exists(&turn_id).await {
                            // Past its retention: the page asks again and is told.
                            break;
                        }
                        yield heartbeat_line(at_ms(), None);
                    }
                    block = Some(HEARTBEAT);
                    continue;
                }
                let full_page = lines.len() >= PAGE;
                let mut out = String::new();
                let mut ended = false;
                for (seq, line) in lines {
                    sent = seq;
                    ended = is_terminal(&line);
                    out.push_str(&line);
                    if ended {
                        break;
                    }
                }
                yield out;
                if ended {
                    break;
                }
                block = if full_page { None } else { Some(HEARTBEAT) };
            }
        }))
    }

    async fn exists(&self, turn_id: &str) -> bool {
        match self.redis.conn().await {
            Ok(mut conn) => conn.exists(record_key(turn_id)).await.unwrap_or(true),
            Err(_) => true,
        }
    }

    /// Stop for a turn held in Redis, passed to its replica (see `Store::stop`).
    pub(crate) async fn stop(
        &self,
        turn_id: &str,
        session: Option<&str>,
        secret: &str,
    ) -> Option<bool> {
        let record = self.owned(turn_id, session, secret).await?;
        if self
            .last_line(turn_id)
            .await
            .is_ok_and(|last| last.is_some_and(|(_, line)| is_terminal(&line)))
        {
            return Some(true);
        }
        let control = Control::Stop {
            turn_id: turn_id.to_owned(),
        };
        let reply = control::ask(&self.redis, &record.replica, control).await;
        Some(matches!(reply, Some(Reply::Taken { taken: true })))
    }

    /// `control`, passed to the replica whose record names it as running
    /// the turn; `None` when that is this one, or nobody answered.
    pub(crate) async fn send(&self, turn_id: &str, control: Control) -> Option<Reply> {
        let record = self.record(turn_id).await?;
        if record.replica == *self.replica {
            // This replica would have found it in its own memory.
            return None;
        }
        control::ask(&self.redis, &record.replica, control).await
    }

    async fn last_line(&self, turn_id: &str) -> RedisResult<Option<(u64, String)>> {
        let mut conn = self.redis.conn().await?;
        let last: StreamRangeReply = redis::cmd("XREVRANGE")
            .arg(log_key(turn_id))
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(1)
            .query_async(&mut conn)
            .await?;
        Ok(entries(last.ids).pop())
    }

    /// Ends, with an `interrupted` error, each running turn whose lease lapsed.
    pub(crate) async fn interrupt_lapsed(&self) -> RedisResult<()> {
        let mut conn = self.redis.conn().await?;
        let running: Vec<String> = conn.smembers(RUNNING).await?;
        let mut lapsed = HashSet::new();
        for turn_id in running {
            let alive: bool = conn.exists(lease_key(&turn_id)).await?;
            if alive {
                continue;
            }
            let replica = self.record(&turn_id).await.map(|record| record.replica);
            if replica.as_deref() == Some(&*self.replica) {
                // This replica runs it: alive, and renewing it.
                continue;
            }
            let second_look = self
                .suspects
                .lock()
                .is_ok_and(|suspects| suspects.contains(&turn_id));
            if !second_look {
                lapsed.insert(turn_id);
                continue;
            }
            let last = self.last_line(&turn_id).await?;
            if !last.as_ref().is_some_and(|(_, line)| is_terminal(line)) {
                let seq = last.map_or(0, |(seq, _)| seq) + 1;
                let started_ms = self.record(&turn_id).await.map_or(0, |r| r.started_ms);
                let stamp = Stamp {
                    seq,
                    at_ms: unix_ms().saturating_sub(started_ms),
                };
                let line = event_line(stamp, &TurnError::ReplicaStopped.event());
                let add = redis::pipe()
                    .cmd("XADD")
                    .arg(log_key(&turn_id))
                    .arg("MAXLEN")
                    .arg(self.max_lines)
                    .arg(format!("0-{seq}"))
                    .arg("line")
                    .arg(line)
                    .ignore()
                    .expire(log_key(&turn_id), self.keep_secs())
                    .ignore()
                    .clone();
                match add.query_async::<()>(&mut conn).await {
                    Ok(()) => tracing::warn!(
                        turn_id,
                        "a turn's replica stopped refreshing its lease: marked interrupted"
                    ),
                    Err(err) if already_written(&err) => {}
                    Err(err) => return Err(err),
                }
            }
            let _: () = conn.srem(RUNNING, &turn_id).await?;
        }
        if let Ok(mut suspects) = self.suspects.lock() {
            *suspects = lapsed;
        }
        Ok(())
    }
}

/// The lines after `sent`: XRANGE without `block`, else XREAD BLOCK.
async fn read_after(
    conn: &mut MultiplexedConnection,
    turn_id: &str,
    sent: u64,
    block: Option<Duration>,
) -> RedisResult<Vec<(u64, String)>> {
    let ids = match block {
        None => {
            let range: StreamRangeReply = redis::cmd("XRANGE")
                .arg(log_key(turn_id))
                .arg(format!("(0-{sent}"))
                .arg("+")
                .arg("COUNT")
                .arg(PAGE)
                .query_async(conn)
                .await?;
            range.ids
        }
        Some(block) => {
            let read: Option<StreamReadReply> = redis::cmd("XREAD")
                .arg("COUNT")
                .arg(PAGE)
                .arg("BLOCK")
                .arg(block.as_millis() as u64)
                .arg("STREAMS")
                .arg(log_key(turn_id))
                .arg(format!("0-{sent}"))
                .query_async(conn)
                .await?;
            read.into_iter()
                .flat_map(|reply| reply.keys)
                .flat_map(|key| key.ids)
                .collect()
        }
    };
    Ok(entries(ids))
}

/// Entries as (seq, line); an entry this server did not write is skipped.
fn entries(ids: Vec<redis::streams::StreamId>) -> Vec<(u64, String)> {
    ids.into_iter()
        .filter_map(|entry| {
            let seq = entry.id.strip_prefix("0-")?.parse().ok()?;
            Some((seq, entry.get::<String>("line")?))
        })
        .collect()
}

fn is_terminal(line: &str) -> bool {
    matches!(
        decode(line.trim_end().as_bytes()),
        Ok(LogLine::Event { event, .. }) if event.is_terminal()
    )
}

fn already_written(err: &redis::RedisError) -> bool {
    err.to_string().contains("equal or smaller")
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Checks the running turns' leases (`lease`) for as long as the runtime runs.
async fn watch_leases(store: RedisStore) {
    let mut tick = tokio::time::interval(LEASE_CHECK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if let Err(err) = store.interrupt_lapsed().await {
            tracing::warn!(%err, "cannot check the running turns' leases on Redis");
        }
    }
}
