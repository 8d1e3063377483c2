//! The serve loop of `pensive serve`, in place of `axum::serve`, which has no
//! limits to set. It accepts at most `PENSIVE_MAX_CONNECTIONS` connections at
//! once (more wait in the kernel's queue until one closes), of which one
//! address may hold `PENSIVE_MAX_CONNECTIONS_PER_ADDRESS` (`address_slots`;
//! beyond that it is answered 503 and closed), gives each client
//! `PENSIVE_HEADER_TIMEOUT_SECS` to send a request's headers (one byte a
//! second is cut off; an idle kept-alive connection closes after as long) and
//! `PENSIVE_BODY_TIMEOUT_SECS` to send its body (`body_deadline`), and fails
//! a connection whose writes stall for `PENSIVE_IDLE_TIMEOUT_SECS`
//! (`write_stall`). On shutdown it stops accepting, lets each connection
//! finish its response, and returns once every connection has closed.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};

use super::address_slots::AddressSlots;
use super::body_deadline::DeadlineBody;
use super::write_stall::WriteStallLimit;
use super::AppConfig;

/// The serve loop's limits (see README for each variable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeLimits {
    /// Connections served at once (0: no limit).
    pub max_connections: usize,
    /// Connections one client address may hold at once (0: no limit).
    pub max_connections_per_address: usize,
    /// Time to send a request's headers (zero: no limit).
    pub header_timeout: Duration,
    /// Time to send a request's body once its headers are in (zero: no limit).
    pub body_timeout: Duration,
    /// Longest a write may wait for the client (zero: no limit).
    pub write_stall: Duration,
}

impl ServeLimits {
    pub fn from_config(config: &AppConfig) -> Self {
        Self {
            max_connections: config.limits.max_connections,
            max_connections_per_address: config.limits.max_connections_per_address,
            header_timeout: config.limits.header_timeout,
            body_timeout: config.limits.body_timeout,
            write_stall: config.idle_timeout,
        }
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then drains.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ServeLimits,
    shutdown: impl Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(match limits.max_connections {
        0 => Semaphore::MAX_PERMITS,
        n => n,
    }));
    let addresses = AddressSlots::new(limits.max_connections_per_address);
    // Each connection holds a clone of `stop_tx` and watches it close (the
    // loop drops the only receiver), and a clone of `done_rx`, dropped when it
    // ends: the loop waits for every one of them.
    let (stop_tx, stop_rx) = watch::channel(());
    let (done_tx, done_rx) = watch::channel(());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => permit,
            _ = &mut shutdown => break,
        };
        let Ok(permit) = permit else { break }; // never closed
        let (stream, peer) = tokio::select! {
            accepted = accept(&listener) => accepted,
            _ = &mut shutdown => break,
        };
        let Some(slot) = addresses.enter(peer.ip()) else {
            refuse(stream, peer);
            continue; // the permit goes back with it
        };
        let app = app.clone();
        let stop = stop_tx.clone();
        let done = done_rx.clone();
        tokio::spawn(async move {
            connection(stream, peer, app, limits, stop).await;
            drop(slot);
            drop(permit);
            drop(done);
        });
    }
    drop(listener);
    drop(stop_rx);
    drop(done_rx);
    tracing::debug!("waiting for open connections to finish");
    done_tx.closed().await;
}

/// The next connection; failures to accept one are logged, and the ones that
/// are about the process (out of file descriptors) pause the loop a moment.
async fn accept(listener: &TcpListener) -> (TcpStream, SocketAddr) {
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                // Nagle's algorithm would hold a small write (a streamed
                // event, the tail of a page) until the client's delayed ACK.
                if let Err(err) = stream.set_nodelay(true) {
                    tracing::debug!("cannot set TCP_NODELAY: {err}");
                }
                return (stream, peer);
            }
            Err(err) if is_connection_error(&err) => {}
            Err(err) => {
                tracing::error!("cannot accept a connection: {err}");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// Turns away a connection from an address that holds its share: a 503 if
/// the socket takes it at once (never waiting on a client that does not
/// read), then closed.
fn refuse(stream: TcpStream, peer: SocketAddr) {
    const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n";
    tracing::debug!("refused a connection from {peer}: its address holds its share");
    let _ = stream.try_write(BUSY);
}

fn is_connection_error(err: &std::io::Error) -> bool {
    matches!(
        err.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}

/// Serves one connection until it closes; on shutdown, after its response.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    app: Router,
    limits: ServeLimits,
    stop: watch::Sender<()>,
) {
    let io = TokioIo::new(WriteStallLimit::new(stream, limits.write_stall));
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        // The body's clock starts now that its headers are in.
        let mut request =
            request.map(|body| axum::body::Body::new(DeadlineBody::new(body, limits.body_timeout)));
        // The peer address feeds the per-client limits.
        request.extensions_mut().insert(ConnectInfo(peer));
        tower::Service::call(&mut app.clone(), request)
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new());
    builder
        .header_read_timeout((!limits.header_timeout.is_zero()).then_some(limits.header_timeout));
    let mut conn = std::pin::pin!(builder.serve_connection(io, service));
    let mut stopping = std::pin::pin!(stop.closed());
    let mut stopped = false;
    loop {
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(err) = result {
                    tracing::debug!("connection from {peer} ended: {err}");
                }
                return;
            }
            _ = &mut stopping, if !stopped => {
                stopped = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}
