//! The bound on one message from a stdio server. rmcp reads each JSON-RPC
//! message as one line and drops a line longer than its cap as it arrives
//! (never holding more than the cap), logging it, and goes on: a call whose
//! answer was dropped would then wait for its deadline. This watches the
//! same pipe (passing every byte through untouched) and says when a line
//! passed `MAX_MESSAGE_BYTES`, so the calls waiting on that server end at
//! once with the reason (`client`). What Pensive ever holds of a message is
//! rmcp's line, at most `MAX_MESSAGE_BYTES`, and the values parsed from it.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::watch;

/// The longest message a stdio server may send (rmcp's own default, set
/// here explicitly so the watch and rmcp's cap cannot drift apart): a tool
/// list of 12 MiB of descriptions still fits, and is then cut (`bounds`).
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// A reader that counts the bytes of the current line and bumps `seen` each
/// time a line grows past `max`.
pub(crate) struct Watched<R> {
    inner: R,
    max: usize,
    line: usize,
    reported: bool,
    seen: watch::Sender<u64>,
}

impl<R> Watched<R> {
    /// `inner`, watched for lines over `max` bytes (newline not counted).
    pub fn new(inner: R, max: usize) -> Self {
        Self {
            inner,
            max,
            line: 0,
            reported: false,
            seen: watch::Sender::new(0),
        }
    }

    /// Changes once per line over the bound (the count of such lines).
    pub fn oversized(&self) -> watch::Receiver<u64> {
        self.seen.subscribe()
    }

    fn observe(&mut self, bytes: &[u8]) {
        for piece in bytes.split_inclusive(|b| *b == b'\n') {
            let ends = piece.last() == Some(&b'\n');
            self.line += piece.len() - usize::from(ends);
            if self.line > self.max && !self.reported {
                self.reported = true;
                self.seen.send_modify(|count| *count += 1);
            }
            if ends {
                self.line = 0;
                self.reported = false;
            }
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Watched<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            self.observe(&buf.filled()[before..]);
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn each_line_over_the_bound_is_counted_once_and_every_byte_passes() {
        let mut input = b"short\n".to_vec();
        input.extend(vec![b'x'; 50]);
        input.extend(b"\n");
        input.extend(vec![b'y'; 11]);
        input.extend(b"\nfine\n");
        let mut watched = Watched::new(&input[..], 10);
        let seen = watched.oversized();
        let mut out = Vec::new();
        watched.read_to_end(&mut out).await.expect("reads");
        assert_eq!(out, input, "untouched");
        assert_eq!(*seen.borrow(), 2);
    }
}
