//! How much of one growing text the renderer's worker holds, with no browser
//! in it: only what the text grew by crosses over, a new worker is sent the
//! whole text again, and a page that showed frames of the old worker's is
//! started over. `worker.rs` keeps one per `Stream`; the rules are tested
//! natively here.

/// One text's stream as the page knows it.
#[derive(Debug, Default)]
pub struct StreamSync {
    /// The worker generation that holds this stream's text (0: none yet).
    generation: u64,
    /// How many bytes of the text that worker holds.
    sent: usize,
    /// A frame of this stream reached the page.
    shown: bool,
    /// The worker holding the text was replaced after frames reached the
    /// page: the next frame starts the page over.
    restart_page: bool,
    /// Cut short: shown as plain text, nothing more is asked for.
    abandoned: bool,
}

/// What to send the worker for the next frame.
#[derive(Debug, PartialEq, Eq)]
pub struct Growth<'t> {
    /// The worker is to forget what it holds and start from `appended`.
    pub reset: bool,
    /// The text the worker does not hold yet.
    pub appended: &'t str,
}

impl StreamSync {
    /// The next frame of `text` is to be asked of worker `generation`: what
    /// to send, or none when the stream was abandoned.
    pub fn ask<'t>(&mut self, generation: u64, text: &'t str) -> Option<Growth<'t>> {
        if self.abandoned {
            return None;
        }
        if self.generation != generation {
            // A new worker has none of the text (and no stream of it).
            self.restart_page = self.shown;
            self.generation = generation;
            self.sent = 0;
        }
        // Only what the text grew by crosses over: no frame copies it all.
        let mut reset = false;
        if self.sent > text.len() || !text.is_char_boundary(self.sent) {
            self.sent = 0;
            reset = true;
        }
        let appended = &text[self.sent..];
        self.sent = text.len();
        Some(Growth { reset, appended })
    }

    /// A frame reached the page: whether it must start the page over (the
    /// frames shown before came from a worker that was replaced).
    pub fn framed(&mut self) -> bool {
        self.shown = true;
        std::mem::take(&mut self.restart_page)
    }

    /// The text missed its deadline or its render failed: it is shown
    /// plain, and nothing more is asked for.
    pub fn abandon(&mut self) {
        self.abandoned = true;
    }

    /// The worker generation holding the text, if any does.
    pub fn holder(&self) -> Option<u64> {
        (self.generation != 0).then_some(self.generation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn growth(reset: bool, appended: &str) -> Option<Growth<'_>> {
        Some(Growth { reset, appended })
    }

    #[test]
    fn only_what_the_text_grew_by_is_sent() {
        let mut sync = StreamSync::default();
        assert_eq!(sync.holder(), None);
        assert_eq!(sync.ask(1, "Hello"), growth(false, "Hello"));
        assert_eq!(sync.holder(), Some(1));
        assert_eq!(sync.ask(1, "Hello, world"), growth(false, ", world"));
        assert_eq!(sync.ask(1, "Hello, world"), growth(false, ""));
    }

    #[test]
    fn a_text_that_is_not_the_last_one_grown_starts_over() {
        let mut sync = StreamSync::default();
        sync.ask(1, "Hello, world");
        assert_eq!(sync.ask(1, "Hi"), growth(true, "Hi"));
        // The byte sent last falls inside a character of the new text.
        sync.ask(1, "a");
        assert_eq!(sync.ask(1, "éa"), growth(true, "éa"));
    }

    #[test]
    fn a_new_worker_is_sent_the_whole_text_and_starts_a_shown_page_over() {
        let mut sync = StreamSync::default();
        sync.ask(1, "Hello");
        assert!(!sync.framed());
        // The new worker holds nothing: the whole text, no reset needed.
        assert_eq!(sync.ask(2, "Hello, world"), growth(false, "Hello, world"));
        assert!(sync.framed(), "the page held the old worker's frames");
        assert!(!sync.framed(), "only the first frame starts over");
    }

    #[test]
    fn a_stream_replaced_before_any_frame_was_shown_does_not_start_over() {
        let mut sync = StreamSync::default();
        sync.ask(1, "Hello");
        sync.ask(2, "Hello");
        assert!(!sync.framed());
    }

    #[test]
    fn an_abandoned_stream_asks_for_nothing_more() {
        let mut sync = StreamSync::default();
        sync.ask(1, "Hello");
        sync.abandon();
        assert_eq!(sync.ask(1, "Hello, world"), None);
        assert_eq!(sync.ask(2, "Hello, world"), None);
    }
}
