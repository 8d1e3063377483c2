//! Keeping one MCP server connected: a task per server watches its
//! connection (and a stdio server's child process); when it ends without
//! Pensive asking, the server is started again after a pause that doubles
//! from 1 s to 60 s (reset once a connection has stayed up a minute), so a
//! server that dies at once never turns into a tight loop. Calls never wait
//! for a restart: while the server is down they fail at once, saying when
//! the next attempt is (`Link::Down`). The first connection is made here
//! too, in the background, so that servers start side by side and the site
//! serves meanwhile (`Link::Starting`); a server that fails to start, or
//! floods Pensive with notifications (`guard`), is left out for good with
//! the reason (`Link::Refused`).

use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::Tool;
use rmcp::service::{Peer, RunningService};
use rmcp::RoleClient;
use tokio::process::Child;
use tokio::sync::watch;
use tokio::time::Instant;

use super::config::{McpServerConfig, Transport};
use super::guard::{flood_reason, Guard};
use super::relist::{listen_for_changes, relist_on_change};
use super::session::{open, Session};
use crate::server::tools::bounds::LeftOut;

/// The first pause before a restart.
pub(crate) const FIRST_RESTART_DELAY: Duration = Duration::from_secs(1);
/// The longest pause before a restart.
pub(crate) const MAX_RESTART_DELAY: Duration = Duration::from_secs(60);
/// A connection that stayed up this long was healthy: the next failure
/// starts the pauses from the first again.
pub(crate) const HEALTHY_AFTER: Duration = Duration::from_secs(60);
/// How long a stopping child gets to exit by itself (its stdin closed)
/// before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(1);

/// Pauses between restarts: `first`, doubling, capped at `max`.
#[derive(Debug, Clone)]
pub(crate) struct Backoff {
    first: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    pub fn new(first: Duration, max: Duration) -> Self {
        Self {
            first,
            max,
            next: first,
        }
    }

    /// The pause before the next attempt (each call doubles the one after).
    pub(crate) fn next_delay(&mut self) -> Duration {
        let delay = self.next;
        self.next = (self.next * 2).min(self.max);
        delay
    }

    /// After a healthy stretch: the next pause is the first again.
    pub fn reset(&mut self) {
        self.next = self.first;
    }
}

/// Where a server's connection stands.
#[derive(Debug, Clone)]
pub(crate) enum Link {
    /// Its first connection is under way (since Pensive started).
    Starting,
    /// Left out for good: it failed to start, or flooded Pensive; `reason`
    /// completes "the MCP server `NAME` …".
    Refused { reason: String },
    /// Connected: calls go through `Live`.
    Up(Arc<Live>),
    /// It stopped; the next attempt starts at `retry_at`.
    Down { retry_at: Instant },
    /// An attempt to start it again is under way.
    Restarting,
    /// Pensive closed it (shutting down): it is not started again.
    Closed,
}

/// One live connection.
#[derive(Debug)]
pub(crate) struct Live {
    pub peer: Peer<RoleClient>,
    /// The stdio child's process id.
    pub pid: Option<u32>,
    /// Tells connections apart: a call that failed on connection 3 waits
    /// for the supervisor to notice that connection 3 is gone.
    pub generation: u64,
    /// Bumped each time the server sent a message over the bound
    /// (`oversized`): the calls waiting on it end at once.
    pub oversized: watch::Receiver<u64>,
}

/// Told of a restarted server's tool list (its name, the tools) before
/// the list replaces the one before.
pub(crate) type RelistHook = Arc<dyn Fn(&str, &[Tool]) + Send + Sync>;

/// What a server's `McpServer` and its supervising task share.
pub(crate) struct Shared {
    pub link: watch::Sender<Link>,
    /// The tools as last listed (kept while the server is down).
    pub tools: watch::Sender<Arc<Vec<Tool>>>,
    /// What the bounds left out of that list.
    pub left_out: watch::Sender<LeftOut>,
    /// Set when Pensive closes the server.
    pub closing: watch::Sender<bool>,
    pub on_relisted: std::sync::Mutex<Vec<RelistHook>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("link", &*self.link.borrow())
            .field("tools", &self.tools.borrow().len())
            .finish()
    }
}

impl Shared {
    /// The shared state of a server not connected yet (`link`), with
    /// `tools` listed.
    pub fn new(link: Link, tools: Vec<Tool>) -> Arc<Self> {
        Arc::new(Self {
            link: watch::Sender::new(link),
            tools: watch::Sender::new(Arc::new(tools)),
            left_out: watch::Sender::new(LeftOut::default()),
            closing: watch::Sender::new(false),
            on_relisted: std::sync::Mutex::new(Vec::new()),
        })
    }
}

/// What the supervisor holds of a live connection.
pub struct Running {
    service: RunningService<RoleClient, Guard>,
    child: Option<Child>,
    generation: u64,
    flooded: watch::Receiver<bool>,
    list_changed: watch::Receiver<u64>,
}

fn split_session(session: Session, generation: u64) -> (Running, Live, Vec<Tool>, LeftOut) {
    let Session {
        service,
        child,
        tools,
        left_out,
        flooded,
        oversized,
        list_changed,
    } = session;
    let live = Live {
        peer: service.peer().clone(),
        pid: child.as_ref().and_then(Child::id),
        generation,
        oversized,
    };
    let running = Running {
        service,
        child,
        generation,
        flooded,
        list_changed,
    };
    (running, live, tools, left_out)
}

/// How a connection ended.
enum Ended {
    /// It stopped by itself (a stdio child's exit status when known).
    Stopped(Option<ExitStatus>),
    /// Pensive ended it: the server sent notifications faster than allowed.
    Flooded,
    /// Pensive is closing the server.
    Closing,
}

/// Connects the server, then watches it until Pensive closes it, starting
/// it again whenever it stops. A server that does not start is left out
/// (`Link::Refused`), as one that floods Pensive is.
pub(crate) async fn supervise(shared: Arc<Shared>, config: McpServerConfig) {
    let name = config.name.as_str();
    let first = tokio::select! {
        attempt = open(&config) => attempt,
        _ = closing(&shared) => {
            shared.link.send_replace(Link::Closed);
            return;
        }
    };
    let mut running = match first {
        Ok(session) => {
            let (running, live, tools, left_out) = split_session(session, 1);
            tracing::info!(mcp_server = %name, tools = tools.len(), "MCP server connected");
            publish(&shared, name, tools);
            shared.left_out.send_replace(left_out);
            shared.link.send_replace(Link::Up(Arc::new(live)));
            running
        }
        Err(problem) => {
            tracing::warn!(mcp_server = %name, "{problem}");
            shared.link.send_replace(Link::Refused {
                reason: format!("failed to start: {problem}"),
            });
            return;
        }
    };
    let mut backoff = Backoff::new(FIRST_RESTART_DELAY, MAX_RESTART_DELAY);
    loop {
        let since = Instant::now();
        let generation = running.generation;
        let status = match watch_until_end(running, &shared, name).await {
            Ended::Closing => break,
            Ended::Flooded => {
                let reason = flood_reason();
                tracing::warn!(mcp_server = %name, "the MCP server was {reason}; it is not started again until Pensive restarts");
                shared.link.send_replace(Link::Refused { reason });
                return;
            }
            Ended::Stopped(status) => status,
        };
        if since.elapsed() >= HEALTHY_AFTER {
            backoff.reset();
        }
        let exit = status.map_or_else(|| "unknown".to_owned(), |s| s.to_string());
        // Attempts until one connects (or Pensive closes the server).
        let session = loop {
            let delay = backoff.next_delay();
            shared.link.send_replace(Link::Down {
                retry_at: Instant::now() + delay,
            });
            tracing::warn!(
                mcp_server = %name,
                exit = %exit,
                "the MCP server stopped; restarting in {}s",
                delay.as_secs_f64()
            );
            if !pause_unless_closing(&shared, delay).await {
                shared.link.send_replace(Link::Closed);
                return;
            }
            shared.link.send_replace(Link::Restarting);
            let attempt = tokio::select! {
                attempt = open(&config) => attempt,
                _ = closing(&shared) => {
                    shared.link.send_replace(Link::Closed);
                    return;
                }
            };
            match attempt {
                Ok(session) => break session,
                Err(problem) => tracing::warn!(mcp_server = %name, "restart failed: {problem}"),
            }
        };
        let (next, live, tools, left_out) = split_session(session, generation + 1);
        tracing::warn!(mcp_server = %name, tools = tools.len(), "the MCP server was restarted");
        relisted(&shared, name, tools);
        shared.left_out.send_replace(left_out);
        shared.link.send_replace(Link::Up(Arc::new(live)));
        running = next;
    }
    shared.link.send_replace(Link::Closed);
}

/// The one place a server's tool list replaces the one before (what the
/// model is offered from now on); the hook hears of it first, so every
/// list is hashed (and a changed tool held) before it is offered.
fn publish(shared: &Shared, name: &str, tools: Vec<Tool>) {
    let hooks = shared.on_relisted.lock().map_or_else(
        |poisoned| poisoned.into_inner().clone(),
        |hooks| hooks.clone(),
    );
    for hook in hooks {
        hook(name, &tools);
    }
    shared.tools.send_replace(Arc::new(tools));
}

/// A list read again (a restart, or the server saying it changed) replaces
/// the one before; the log says when it names other tools.
pub(super) fn relisted(shared: &Shared, name: &str, tools: Vec<Tool>) {
    let before: Vec<String> = shared
        .tools
        .borrow()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    let after: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    if before != after {
        tracing::warn!(mcp_server = %name, ?before, ?after, "the MCP server now lists other tools");
    }
    publish(shared, name, tools);
}

/// Waits until the connection ends by itself or Pensive closes it; either
/// way the connection is over and a stdio child has exited (or was killed)
/// when this returns.
async fn watch_until_end(running: Running, shared: &Shared, name: &str) -> Ended {
    let Running {
        service,
        mut child,
        mut flooded,
        list_changed,
        ..
    } = running;
    let relist = relist_on_change(
        name,
        service.peer().clone(),
        list_changed,
        |tools, left_out| {
            relisted(shared, name, tools);
            shared.left_out.send_replace(left_out);
        },
    );
    let listen = listen_for_changes(name, service.peer().clone(), service.service().clone());
    let stop = service.cancellation_token();
    let mut waiting = Box::pin(service.waiting());
    let child_exit = async {
        match child.as_mut() {
            Some(child) => child.wait().await.ok(),
            None => std::future::pending().await,
        }
    };
    enum First {
        ChildExited(Option<ExitStatus>),
        ConnectionEnded,
        Closing,
        Flooded,
    }
    let first = tokio::select! {
        status = child_exit => First::ChildExited(status),
        _ = &mut waiting => First::ConnectionEnded,
        _ = closing(shared) => First::Closing,
        // The guard's sender lives as long as the service: an error means
        // the connection is going anyway, which the other branches see.
        Ok(_) = flooded.wait_for(|flooded| *flooded) => First::Flooded,
        // Runs beside the watch, and ends with it.
        () = relist => First::ConnectionEnded,
        () = listen => First::ConnectionEnded,
    };
    match first {
        First::ChildExited(status) => {
            // A child that left a grandchild holding its stdout open would
            // keep the connection alive: end it here.
            stop.cancel();
            let _ = tokio::time::timeout(EXIT_GRACE, waiting).await;
            Ended::Stopped(status)
        }
        First::ConnectionEnded => Ended::Stopped(match child {
            Some(child) => reap(child).await,
            None => None,
        }),
        First::Closing | First::Flooded => {
            // Ending the connection closes the child's stdin, which is how
            // the MCP spec asks a stdio server to stop; it is killed if it
            // has not within the grace period.
            stop.cancel();
            let _ = tokio::time::timeout(EXIT_GRACE, waiting).await;
            if let Some(child) = child {
                reap(child).await;
            }
            match first {
                First::Flooded => Ended::Flooded,
                _ => Ended::Closing,
            }
        }
    }
}

/// The child's exit status, killing it if it has not exited within the
/// grace period.
async fn reap(mut child: Child) -> Option<ExitStatus> {
    match tokio::time::timeout(EXIT_GRACE, child.wait()).await {
        Ok(status) => status.ok(),
        Err(_) => {
            let _ = child.kill().await;
            child.wait().await.ok()
        }
    }
}

/// Resolves once Pensive closes the server.
async fn closing(shared: &Shared) {
    let mut closing = shared.closing.subscribe();
    // The sender lives in `shared`: an error cannot happen while we hold it.
    let _ = closing.wait_for(|closing| *closing).await;
}

/// Sleeps `delay`; false when Pensive closed the server meanwhile.
async fn pause_unless_closing(shared: &Shared, delay: Duration) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(delay) => true,
        _ = closing(shared) => false,
    }
}

/// What a call made while the server is not `Up` is told.
pub(crate) fn unavailable(name: &str, transport: &Transport, link: &Link) -> String {
    let (stopped, restarting) = match transport {
        Transport::Stdio { .. } => ("stopped", "restarting"),
        Transport::Http { .. } => ("disconnected", "reconnecting"),
    };
    match link {
        Link::Down { retry_at } => {
            let wait = retry_at.saturating_duration_since(Instant::now());
            format!(
                "the MCP server `{name}` {stopped}; {restarting} in {} s",
                wait.as_secs_f64().ceil() as u64
            )
        }
        Link::Restarting | Link::Up(_) => {
            format!("the MCP server `{name}` {stopped}; {restarting} now")
        }
        Link::Closed => format!("the MCP server `{name}` was closed"),
        Link::Starting => format!("the MCP server `{name}` is still starting"),
        Link::Refused { reason } => format!("the MCP server `{name}` {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restarts_wait_longer_each_time_up_to_a_minute_and_start_over_when_healthy() {
        let mut backoff = Backoff::new(FIRST_RESTART_DELAY, MAX_RESTART_DELAY);
        let delays: Vec<u64> = (0..9).map(|_| backoff.next_delay().as_secs()).collect();
        assert_eq!(delays, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        backoff.reset();
        assert_eq!(backoff.next_delay(), FIRST_RESTART_DELAY);
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_while_down_is_told_when_the_next_attempt_is() {
        let stdio = Transport::Stdio {
            command: "x".into(),
            args: vec![],
            env: Default::default(),
            cwd: None,
        };
        let down = Link::Down {
            retry_at: Instant::now() + Duration::from_millis(3_500),
        };
        assert_eq!(
            unavailable("files", &stdio, &down),
            "the MCP server `files` stopped; restarting in 4 s"
        );
        assert_eq!(
            unavailable("files", &stdio, &Link::Restarting),
            "the MCP server `files` stopped; restarting now"
        );
        let http = Transport::Http {
            url: "http://127.0.0.1:1/mcp".into(),
            headers: Default::default(),
        };
        assert_eq!(
            unavailable("search", &http, &Link::Closed),
            "the MCP server `search` was closed"
        );
    }
}
