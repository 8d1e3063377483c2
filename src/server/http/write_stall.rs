//! A connection whose writes may not stall longer than a limit.
//!
//! hyper writes a response only as fast as the client reads it, and polls the
//! body (a turn's event stream) only when it has room to write: a client that
//! stops reading parks the turn — its upstream request, its slot — for as long
//! as the connection stays open, and nothing in hyper ends that. Here a write
//! that has made no progress for the limit fails the connection instead:
//! hyper drops the response, the turn's stream is dropped with it, and that
//! closes the upstream request and frees the slot. Reads are passed through.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// `inner` with a limit on how long a write may wait for the client.
#[derive(Debug)]
pub(crate) struct WriteStallLimit<T> {
    inner: T,
    /// Zero: no limit.
    limit: Duration,
    /// Runs from the first write that had to wait; cleared by any progress.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<T> WriteStallLimit<T> {
    pub fn new(inner: T, limit: Duration) -> Self {
        Self {
            inner,
            limit,
            stalled: None,
        }
    }

    /// The connection could not take bytes: pending until the limit passes
    /// without progress, then an error. The timer wakes the connection's
    /// task, which writes again and lands here.
    fn wait<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        if self.limit.is_zero() {
            return Poll::Pending;
        }
        let limit = self.limit;
        let timer = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client stopped reading",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn progress<R>(
        &mut self,
        result: Poll<io::Result<R>>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<R>> {
        match result {
            Poll::Pending => self.wait(cx),
            ready => {
                self.stalled = None;
                ready
            }
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WriteStallLimit<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WriteStallLimit<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.progress(result, cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.progress(result, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let result = Pin::new(&mut self.inner).poll_flush(cx);
        self.progress(result, cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    const LIMIT: Duration = Duration::from_millis(300);

    /// A peer that never reads: writes fill the pipe, then fail once the
    /// limit has passed without progress.
    #[tokio::test]
    async fn a_write_the_peer_never_takes_fails_after_the_limit() {
        let (ours, _theirs) = tokio::io::duplex(1024);
        let mut conn = WriteStallLimit::new(ours, LIMIT);
        let started = std::time::Instant::now();
        let err = loop {
            if let Err(err) = conn.write_all(&[b'x'; 512]).await {
                break err;
            }
            assert!(
                started.elapsed() < 10 * LIMIT,
                "a stalled write never fails"
            );
        };
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= LIMIT);
    }

    /// A peer that reads more slowly than we write, but keeps reading, is
    /// never cut off: each bit of progress restarts the limit.
    #[tokio::test]
    async fn a_slow_but_reading_peer_is_not_cut_off() {
        let (ours, mut theirs) = tokio::io::duplex(64);
        let mut conn = WriteStallLimit::new(ours, LIMIT);
        let total = 64 * 8;
        let reader = tokio::spawn(async move {
            let mut buf = [0; 64];
            let mut read = 0;
            while read < total {
                tokio::time::sleep(LIMIT / 3).await;
                read += theirs.read(&mut buf).await.unwrap_or(0);
            }
            read
        });
        conn.write_all(&vec![b'y'; total])
            .await
            .expect("every write progresses within the limit");
        assert_eq!(reader.await.unwrap_or(0), total);
    }
}
