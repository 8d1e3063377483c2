//! A deadline on reading a request body: the whole body must arrive within
//! `PENSIVE_BODY_TIMEOUT_SECS` of its headers. A client that declares a
//! length and then sends a byte a second (or nothing) would otherwise hold
//! its connection slot for as long as it likes, on any route, without a token.
//!
//! The deadline is for the whole body, not for the gap between two pieces
//! (tower-http's `TimeoutBody` restarts its timer on every frame, so one byte
//! a second never trips it). Past it the body fails; whoever reads it answers
//! with an error and drops it, and hyper closes a connection whose request
//! body was dropped unread.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::{Body, Bytes, Frame, SizeHint};
use tokio::time::Sleep;

/// The error a body past its deadline reads as.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive within {0:?}")]
pub(crate) struct BodyTooSlow(Duration);

/// `inner`, failing once `limit` has passed since it was made (zero: never).
pub(crate) struct DeadlineBody<B> {
    inner: B,
    limit: Duration,
    /// `None` without a limit.
    deadline: Option<Pin<Box<Sleep>>>,
}

impl<B> DeadlineBody<B> {
    /// Starts the clock now: make it when the request's headers have arrived.
    pub fn new(inner: B, limit: Duration) -> Self {
        let deadline = (!limit.is_zero()).then(|| Box::pin(tokio::time::sleep(limit)));
        Self {
            inner,
            limit,
            deadline,
        }
    }
}

impl<B> Body for DeadlineBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<axum::BoxError>,
{
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        // Data already here is taken even at the deadline: only waiting fails.
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            if frame.is_none() {
                self.deadline = None;
            }
            return Poll::Ready(frame.map(|result| result.map_err(Into::into)));
        }
        let limit = self.limit;
        let passed = match self.deadline.as_mut() {
            Some(deadline) => deadline.as_mut().poll(cx).is_ready(),
            None => false,
        };
        if passed {
            return Poll::Ready(Some(Err(Box::new(BodyTooSlow(limit)))));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt, StreamBody};

    /// A body that sends `pieces` one per `gap`, then ends.
    fn trickle(
        pieces: usize,
        gap: Duration,
    ) -> impl Body<Data = Bytes, Error = std::convert::Infallible> + Unpin {
        let frames = futures::stream::unfold(0, move |sent| async move {
            if sent == pieces {
                return None;
            }
            tokio::time::sleep(gap).await;
            Some((Ok(Frame::data(Bytes::from_static(b"x"))), sent + 1))
        });
        StreamBody::new(Box::pin(frames))
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_trickling_past_its_deadline_fails_even_though_each_piece_is_quick() {
        // One byte a second for 1000 s: every gap is short, the whole is not.
        let body = DeadlineBody::new(
            trickle(1000, Duration::from_secs(1)),
            Duration::from_secs(5),
        );
        let started = tokio::time::Instant::now();
        let err = body.collect().await.expect_err("cut off");
        assert!(err.to_string().contains("did not arrive within"), "{err}");
        assert_eq!(started.elapsed(), Duration::from_secs(5));
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_arrives_in_time_is_read_whole() {
        let body = DeadlineBody::new(trickle(4, Duration::from_secs(1)), Duration::from_secs(5));
        let bytes = body.collect().await.expect("read").to_bytes();
        assert_eq!(&bytes[..], b"xxxx");
        let unlimited = DeadlineBody::new(trickle(20, Duration::from_secs(1)), Duration::ZERO);
        assert_eq!(
            unlimited.collect().await.expect("read").to_bytes().len(),
            20
        );
    }
}
