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
//! finish its response (hyper-util's `GracefulShutdown`), and returns once
//! every connection has closed. The drain has no deadline of its own: the
//! grace period ends running turns (`main.rs`), which ends their responses.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use super::address_slots::AddressSlots;
use super::body_deadline::DeadlineBody;
use super::write_stall::WriteStallLimit;
use crate::server::AppConfig;

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
    // Each connection is watched from before it is spawned, so none can miss
    // the signal; `shutdown` then waits for every watched one to end.
    let graceful = GracefulShutdown::new();
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
        let watcher = graceful.watcher();
        tokio::spawn(async move {
            connection(stream, peer, app, limits, watcher).await;
            drop(slot);
            drop(permit);
        });
    }
    drop(listener);
    tracing::debug!(
        connections = graceful.count(),
        "waiting for open connections to finish"
    );
    graceful.shutdown().await;
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
    watcher: Watcher,
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
    // On shutdown hyper closes the connection once its response is out (an
    // idle kept-alive one at once).
    if let Err(err) = watcher.watch(builder.serve_connection(io, service)).await {
        tracing::debug!("connection from {peer} ended: {err}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::routing::get;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::sync::{mpsc, oneshot};
    use tokio::time::timeout;

    const WAIT: Duration = Duration::from_secs(5);

    fn no_limits() -> ServeLimits {
        ServeLimits {
            max_connections: 0,
            max_connections_per_address: 0,
            header_timeout: Duration::ZERO,
            body_timeout: Duration::ZERO,
            write_stall: Duration::ZERO,
        }
    }

    /// Reads until `needle` has arrived (or the connection closes).
    async fn read_until(stream: &mut TcpStream, seen: &mut String, needle: &str) {
        let mut buf = [0u8; 1024];
        while !seen.contains(needle) {
            let n = timeout(WAIT, stream.read(&mut buf))
                .await
                .expect("bytes within the wait")
                .expect("read");
            assert!(n > 0, "closed before {needle:?}: {seen:?}");
            seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    }

    async fn request(addr: SocketAddr, path: &str) -> TcpStream {
        let mut stream = TcpStream::connect(addr).await.expect("connect");
        let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n");
        stream.write_all(request.as_bytes()).await.expect("write");
        stream
    }

    #[tokio::test]
    async fn shutdown_refuses_new_connections_closes_idle_ones_and_drains_a_streaming_response() {
        let (chunks, receiver) = mpsc::channel::<&'static str>(4);
        let receiver = Arc::new(std::sync::Mutex::new(Some(receiver)));
        let app = Router::new()
            .route("/ping", get(|| async { "pong" }))
            .route(
                "/stream",
                get(move || {
                    let mut receiver = receiver.lock().unwrap().take().expect("one stream");
                    async move {
                        Body::from_stream(async_stream::stream! {
                            while let Some(chunk) = receiver.recv().await {
                                yield Ok::<_, std::io::Error>(chunk);
                            }
                        })
                    }
                }),
            );
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let (stop, stopped) = oneshot::channel::<()>();
        let mut server = tokio::spawn(serve(listener, app, no_limits(), async {
            let _ = stopped.await;
        }));

        // A kept-alive connection that has had its answer, and one streaming.
        let mut idle = request(addr, "/ping").await;
        read_until(&mut idle, &mut String::new(), "pong").await;
        let mut streaming = request(addr, "/stream").await;
        let mut streamed = String::new();
        chunks.send("first-chunk").await.expect("stream open");
        read_until(&mut streaming, &mut streamed, "first-chunk").await;

        stop.send(()).expect("serve is running");
        let mut rest = Vec::new();
        let read = timeout(WAIT, idle.read_to_end(&mut rest)).await;
        assert!(
            matches!(read, Ok(Ok(0)) | Ok(Err(_))),
            "the idle connection closes at once: {read:?} {rest:?}"
        );
        let deadline = tokio::time::Instant::now() + WAIT;
        while TcpStream::connect(addr).await.is_ok() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the listener closes"
            );
            tokio::task::yield_now().await;
        }
        assert!(
            timeout(Duration::from_millis(200), &mut server)
                .await
                .is_err(),
            "serve waits for the streaming response"
        );

        chunks.send("last-chunk").await.expect("stream still open");
        drop(chunks);
        read_until(&mut streaming, &mut streamed, "last-chunk").await;
        let mut tail = Vec::new();
        timeout(WAIT, streaming.read_to_end(&mut tail))
            .await
            .expect("the connection closes after its response")
            .expect("read");
        streamed.push_str(&String::from_utf8_lossy(&tail));
        assert!(
            streamed.ends_with("0\r\n\r\n"),
            "a complete chunked body: {streamed:?}"
        );
        timeout(WAIT, server)
            .await
            .expect("serve returns once the last connection closes")
            .expect("serve does not panic");
    }
}
