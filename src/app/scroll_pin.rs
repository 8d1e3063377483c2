//! The rule every scroll box that follows its bottom shares: the
//! conversation (`use_stick_to_bottom`) and a streaming Thinking block's
//! body. While the reader has not moved up, the box follows its end as it
//! grows; once they move up it stays where they are, and coming back near
//! the bottom follows again. Only the reader moving up lets go: the pin's
//! own scroll event arrives after the pin, when more text may already have
//! grown the box, and "not at the bottom" then is not the reader leaving.
//!
//! Pure (no DOM, no clock of its own): the boxes feed it positions and
//! times, and it is tested natively.

/// How close to the bottom still counts as at the bottom (px): a reader who
/// scrolls back down within this follows again.
pub const NEAR_BOTTOM_PX: f64 = 24.0;
/// How long a glide may take (Chromium's smooth scrolls end well within it).
const GLIDE_MS: f64 = 1500.0;

/// What the pin knows between scroll events.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pin {
    /// The view follows the bottom.
    pub following: bool,
    /// Where the view stood after the last scroll or pin, to tell the reader
    /// moving up from the box growing under a pinned view.
    last_top: f64,
    /// How far (px) the view may move up without counting as the reader
    /// moving: the conversation forgives a pixel of rounding, a Thinking
    /// block's body none.
    up_slack: f64,
    /// Until when (page clock, ms) a glide we started may still be moving
    /// the view: a smooth scroll keeps its target, and when the box grows
    /// meanwhile it can move *up* to it, which is not the reader leaving.
    glide_until_ms: f64,
}

/// The conversation's pin.
impl Default for Pin {
    fn default() -> Self {
        Pin {
            following: true,
            last_top: 0.0,
            up_slack: 1.0,
            glide_until_ms: 0.0,
        }
    }
}

impl Pin {
    /// The pin of a box inside the conversation (a Thinking block's body):
    /// it never glides, and any move up is the reader's.
    pub fn inner_box() -> Self {
        Pin {
            up_slack: 0.0,
            ..Pin::default()
        }
    }

    /// Where the view stood after the last scroll or pin: where a box that
    /// was folded and reopened is put back.
    pub fn last_top(&self) -> f64 {
        self.last_top
    }

    /// A scroll event: the view stands at `top` in a box of `height` with
    /// `client` visible. Back near the bottom follows again; moving up (by
    /// the reader: our own pin only ever moves down) lets go.
    pub fn scrolled(&mut self, top: f64, height: f64, client: f64, now_ms: f64) {
        let moved_up = top < self.last_top - self.up_slack;
        self.last_top = top;
        let gap = height - top - client;
        if gap < 1.0 {
            // Arrived: a glide has nothing left to do.
            self.glide_until_ms = 0.0;
        }
        if gap < NEAR_BOTTOM_PX {
            self.following = true;
        } else if moved_up && now_ms >= self.glide_until_ms {
            self.following = false;
        }
    }

    /// We took the view to the bottom at `now_ms` (Jump to latest's glide,
    /// a send, a reload): for a while an upward move is the page settling
    /// (a glide keeping its old target, scroll anchoring as the last turn's
    /// actions hide), not the reader; their wheel, touch or keys still let go.
    pub fn glided(&mut self, now_ms: f64) {
        self.following = true;
        self.glide_until_ms = now_ms + GLIDE_MS;
    }

    /// The pin (or a jump) put the view at `top`.
    pub fn pinned_at(&mut self, top: f64) {
        self.last_top = top;
    }

    /// The page took the view somewhere above the bottom for the reader (a
    /// search result opened at its match): stop following, at once.
    pub fn let_go(&mut self) {
        self.following = false;
        self.glide_until_ms = 0.0;
    }

    /// The box is to be read from its top from now on (a Thinking block
    /// that finished: where it stood while it streamed was its end).
    pub fn rest_at_top(&mut self) {
        self.let_go();
        self.last_top = 0.0;
    }

    /// The reader asked to go up (wheel, touch, a key) while there is
    /// something above to go to: let go before the scroll even happens, so
    /// a pin in the same frame cannot pull them back.
    pub fn reader_went_up(&mut self, top: f64) {
        self.glide_until_ms = 0.0;
        if top > 0.0 {
            self.following = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_settling_after_a_send_does_not_let_go_but_the_reader_does() {
        let mut pin = Pin::default();
        pin.scrolled(742.0, 1313.0, 571.0, 0.0);
        // Long after any glide: the reader sends; the last turn's actions
        // hide and anchoring moves the view up 48 px as the question lands.
        pin.glided(10_000.0);
        pin.scrolled(694.0, 1385.0, 571.0, 10_030.0);
        assert!(pin.following, "the page moved, not the reader");
        pin.reader_went_up(694.0);
        assert!(!pin.following, "a wheel up lets go at once");
    }

    #[test]
    fn the_pins_own_late_scroll_event_does_not_let_go() {
        let mut pin = Pin::default();
        // The pin put the view at the bottom (top 400 of 1000, 600 shown)…
        pin.pinned_at(400.0);
        // …and its scroll event arrives after the box grew by 300: short of
        // the bottom, but nobody moved up.
        pin.scrolled(400.0, 1300.0, 600.0, 0.0);
        assert!(pin.following);
    }

    #[test]
    fn moving_up_lets_go_and_coming_back_down_follows_again() {
        let mut pin = Pin::default();
        pin.pinned_at(400.0);
        pin.scrolled(250.0, 1000.0, 600.0, 0.0);
        assert!(!pin.following, "the reader scrolled up");
        // More text below does not pull them down (no scroll event), and
        // their own small moves down keep them where they are.
        pin.scrolled(300.0, 1400.0, 600.0, 0.0);
        assert!(!pin.following);
        pin.scrolled(790.0, 1400.0, 600.0, 0.0);
        assert!(pin.following, "back within the bottom band");
    }

    #[test]
    fn a_box_that_shrank_under_a_pinned_view_stays_pinned() {
        // A Thinking block folds above: the browser clamps the view to the
        // new bottom, which reads as moving up, but it is at the bottom.
        let mut pin = Pin::default();
        pin.pinned_at(900.0);
        pin.scrolled(500.0, 1100.0, 600.0, 0.0);
        assert!(pin.following);
    }

    #[test]
    fn going_up_lets_go_only_when_there_is_somewhere_to_go() {
        let mut pin = Pin::default();
        pin.reader_went_up(0.0);
        assert!(pin.following, "nothing above: a wheel up changes nothing");
        pin.reader_went_up(120.0);
        assert!(!pin.following);
    }

    #[test]
    fn a_glide_moving_up_to_its_old_target_does_not_let_go_but_the_reader_does() {
        let mut pin = Pin::default();
        pin.pinned_at(400.0);
        pin.glided(1_000.0);
        // The box grew during the glide; it moves up to where the bottom was.
        pin.scrolled(350.0, 1400.0, 600.0, 1_200.0);
        assert!(pin.following, "our own glide");
        // Once it is over, moving up is the reader again.
        pin.scrolled(300.0, 1400.0, 600.0, 2_600.0);
        assert!(!pin.following);
        // A glide that arrived is over too, however soon the reader leaves.
        let mut pin = Pin::default();
        pin.glided(0.0);
        pin.scrolled(800.0, 1400.0, 600.0, 100.0);
        pin.scrolled(0.0, 1400.0, 600.0, 200.0);
        assert!(!pin.following);
        // A wheel during a glide ends it: the reader's move counts at once.
        let mut pin = Pin::default();
        pin.glided(0.0);
        pin.reader_went_up(500.0);
        assert!(!pin.following);
    }

    #[test]
    fn letting_go_for_a_search_match_holds_until_the_view_is_back_at_the_bottom() {
        let mut pin = Pin::default();
        // A conversation was just shown at its latest turn (a glide window)…
        pin.glided(1_000.0);
        // …and a search result takes the view to its match.
        pin.let_go();
        assert!(!pin.following);
        // The box grows below (an answer formatted): no scroll event, no pull.
        pin.scrolled(300.0, 5_000.0, 600.0, 1_100.0);
        assert!(!pin.following, "growth below does not follow again");
        pin.scrolled(4_390.0, 5_000.0, 600.0, 1_200.0);
        assert!(pin.following, "back at the bottom follows again");
    }

    #[test]
    fn an_inner_box_counts_any_move_up_as_the_reader_and_puts_a_reopened_box_back() {
        // A Thinking block's body: the pin put it at 400; a single pixel up
        // is the reader (the conversation would forgive it).
        let mut pin = Pin::inner_box();
        pin.pinned_at(400.0);
        pin.scrolled(399.0, 1000.0, 500.0, 0.0);
        assert!(!pin.following, "one pixel up lets go");
        assert_eq!(pin.last_top(), 399.0, "where a reopened body goes back to");
        let mut conversation = Pin::default();
        conversation.pinned_at(400.0);
        conversation.scrolled(399.0, 1000.0, 500.0, 0.0);
        assert!(conversation.following);
        // The pin's own late event, short of the bottom after growth, and
        // the reader coming back within the band: as the conversation.
        let mut pin = Pin::inner_box();
        pin.pinned_at(400.0);
        pin.scrolled(400.0, 1300.0, 600.0, 0.0);
        assert!(pin.following);
        pin.scrolled(100.0, 1300.0, 600.0, 0.0);
        assert!(!pin.following);
        pin.scrolled(680.0, 1300.0, 600.0, 0.0);
        assert!(pin.following, "back within the bottom band");
        // It finished: read from the top, not followed.
        pin.rest_at_top();
        assert!(!pin.following);
        assert_eq!(pin.last_top(), 0.0);
    }
}
