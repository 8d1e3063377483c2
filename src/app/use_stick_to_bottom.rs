//! The conversation follows what the model is doing (design §4): while the
//! reader has not scrolled up, the view stays at the bottom as the turn grows
//! (live Thinking header, the reasoning's last line, then the answer's); once
//! they scroll up by wheel, touch, keyboard or scrollbar it stays where they
//! are, and "Jump to latest" ([`UseStickToBottomReturn::follow`]) takes them
//! back and follows again.
//!
//! Growth is seen by a `ResizeObserver` on the content, which runs after
//! layout and before paint: the pinned view never shows a frame off the
//! bottom. Only the reader moving up unpins. The pin's own scroll event
//! arrives after the pin, when more text may already have grown the box:
//! "not at the bottom" then is not the reader leaving ([`Pin`]).

use leptos::html::{Div, Main};
use leptos::prelude::*;

use super::scroll_pin::Pin;

/// Keys that move a scrolled view up.
pub fn is_upward_key(key: &str) -> bool {
    matches!(key, "ArrowUp" | "PageUp" | "Home")
}

/// The scroller and its content, and whether the view follows the bottom (a
/// `Copy` handle).
#[derive(Clone, Copy)]
pub struct UseStickToBottomReturn {
    /// The scrolling element (the conversation).
    pub scroller: NodeRef<Main>,
    /// Its content, observed for growth.
    pub content: NodeRef<Div>,
    pin: StoredValue<Pin>,
    following: RwSignal<bool>,
    new_below: RwSignal<bool>,
    /// Content height at the last resize, to tell growth from shrinking.
    last_height: StoredValue<f64>,
    touch_y: StoredValue<Option<f64>>,
}

/// Follows the bottom of `scroller` as `content` grows.
pub fn use_stick_to_bottom() -> UseStickToBottomReturn {
    let this = UseStickToBottomReturn {
        scroller: NodeRef::new(),
        content: NodeRef::new(),
        pin: StoredValue::new(Pin::default()),
        following: RwSignal::new(true),
        new_below: RwSignal::new(false),
        last_height: StoredValue::new(0.0),
        touch_y: StoredValue::new(None),
    };
    #[cfg(feature = "hydrate")]
    observe::content_resizes(this);
    this
}

impl UseStickToBottomReturn {
    /// Whether the view follows the bottom (the "Jump to latest" button shows when not).
    pub fn following(&self) -> Signal<bool> {
        self.following.into()
    }

    /// Whether new text arrived below while the reader was away.
    pub fn new_below(&self) -> Signal<bool> {
        self.new_below.into()
    }

    /// Go to the bottom and follow it again: smoothly unless `instant` (a
    /// send, a reload) or the reader prefers reduced motion.
    pub fn follow(&self, instant: bool) {
        // What the page does next (a send hides the last turn's actions and
        // adds the question; scroll anchoring may move the view up for it) is
        // not the reader leaving: the same window as a glide's.
        let now = super::browser::now_ms();
        self.pin.update_value(|p| p.glided(now));
        self.following.set(true);
        self.new_below.set(false);
        self.scroll_to_bottom(instant);
    }

    /// Stop following: the page is about to show something above the
    /// bottom (a search match), which the content growing below (answers
    /// being formatted, a block opening) must not pull down. Scrolling back
    /// to the bottom, or "Jump to latest", follows again.
    pub fn stay(&self) {
        self.pin.update_value(Pin::let_go);
        self.sync();
    }

    fn scroll_to_bottom(&self, instant: bool) {
        let Some(el) = self.scroller.get_untracked() else {
            return;
        };
        let bottom = f64::from(el.scroll_height());
        if instant || super::browser::prefers_reduced_motion() {
            el.set_scroll_top(el.scroll_height());
            let top = f64::from(el.scroll_top());
            self.pin.update_value(|p| p.pinned_at(top));
        } else {
            let now = super::browser::now_ms();
            self.pin.update_value(|p| p.glided(now));
            super::browser::smooth_scroll_to(&el, bottom);
        }
    }

    /// The content changed size to `height` (in the browser: from the observer).
    pub fn resized(&self, height: f64) {
        let grew = height > self.last_height.get_value();
        self.last_height.set_value(height);
        if self.pin.with_value(|p| p.following) {
            self.scroll_to_bottom(true);
        } else if grew && !self.new_below.get_untracked() {
            self.new_below.set(true);
        }
    }

    fn sync(&self) {
        let following = self.pin.with_value(|p| p.following);
        if following != self.following.get_untracked() {
            self.following.set(following);
        }
        if following && self.new_below.get_untracked() {
            self.new_below.set(false);
        }
    }

    fn top(&self) -> f64 {
        self.scroller
            .get_untracked()
            .map(|el| f64::from(el.scroll_top()))
            .unwrap_or(0.0)
    }

    /// `on:scroll` of the scroller.
    pub fn on_scroll(&self) {
        let Some(el) = self.scroller.get_untracked() else {
            return;
        };
        let (top, height, client) = (
            f64::from(el.scroll_top()),
            f64::from(el.scroll_height()),
            f64::from(el.client_height()),
        );
        let now = super::browser::now_ms();
        self.pin
            .update_value(|p| p.scrolled(top, height, client, now));
        self.sync();
    }

    /// `on:wheel` of the scroller: upward, unless an inner box (a Thinking
    /// block's body, a code block) takes the wheel itself.
    pub fn on_wheel(&self, ev: leptos::ev::WheelEvent) {
        if ev.delta_y() < 0.0 && !inner_box_scrolls_up(&ev) {
            self.went_up();
        }
    }

    /// `on:keydown` of the scroller.
    pub fn on_keydown(&self, ev: leptos::ev::KeyboardEvent) {
        if is_upward_key(&ev.key()) && !typing_in_field(&ev) {
            self.went_up();
        }
    }

    /// `on:touchstart` of the scroller.
    pub fn on_touchstart(&self, ev: leptos::ev::TouchEvent) {
        self.touch_y.set_value(first_touch_y(&ev));
    }

    /// `on:touchmove` of the scroller: a finger moving down scrolls up.
    pub fn on_touchmove(&self, ev: leptos::ev::TouchEvent) {
        let (Some(start), Some(y)) = (self.touch_y.get_value(), first_touch_y(&ev)) else {
            return;
        };
        if y > start + 4.0 && !inner_box_scrolls_up(&ev) {
            self.went_up();
        }
    }

    fn went_up(&self) {
        let top = self.top();
        self.pin.update_value(|p| p.reader_went_up(top));
        self.sync();
    }
}

fn first_touch_y(ev: &leptos::ev::TouchEvent) -> Option<f64> {
    #[cfg(feature = "hydrate")]
    {
        ev.touches().get(0).map(|t| f64::from(t.client_y()))
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = ev;
        None
    }
}

/// Keys typed into a text field move its caret, not the view.
fn typing_in_field(ev: &leptos::ev::KeyboardEvent) -> bool {
    use leptos::wasm_bindgen::JsCast;
    ev.target()
        .and_then(|t| t.dyn_into::<leptos::web_sys::Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "TEXTAREA" | "INPUT" | "SELECT"))
}

/// Whether the event's target sits in a box of its own (below the scroller)
/// that can still scroll up: that box takes the gesture, not the view.
fn inner_box_scrolls_up(ev: &leptos::web_sys::Event) -> bool {
    use leptos::wasm_bindgen::JsCast;
    let mut node = ev
        .target()
        .and_then(|t| t.dyn_into::<leptos::web_sys::Element>().ok());
    while let Some(el) = node {
        if el.tag_name() == "MAIN" {
            return false;
        }
        if el.scroll_top() > 0 && el.scroll_height() > el.client_height() {
            return true;
        }
        node = el.parent_element();
    }
    false
}

#[cfg(feature = "hydrate")]
mod observe {
    use leptos::prelude::*;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{ResizeObserver, ResizeObserverEntry};

    use super::UseStickToBottomReturn;

    /// Watches the content once it is in the page. The chat page is the
    /// app's one page and lives as long as the document, so the observer
    /// and its callback do too (the callback is handed to the browser).
    pub fn content_resizes(this: UseStickToBottomReturn) {
        Effect::new(move |installed: Option<bool>| {
            if installed == Some(true) {
                return true;
            }
            let Some(content) = this.content.get() else {
                return false;
            };
            let on_resize = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
                if let Ok(entry) = entries.get(0).dyn_into::<ResizeObserverEntry>() {
                    this.resized(entry.content_rect().height());
                }
            })
            .into_js_value();
            let Ok(observer) = ResizeObserver::new(on_resize.unchecked_ref()) else {
                return false;
            };
            observer.observe(&content);
            true
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upward_keys() {
        assert!(is_upward_key("PageUp") && is_upward_key("ArrowUp") && is_upward_key("Home"));
        assert!(!is_upward_key("End") && !is_upward_key("a"));
    }
}
