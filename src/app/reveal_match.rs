//! Opening a search result at its match. Once the conversation
//! is shown, the message holding the match comes into view; a match in
//! reasoning opens that Thinking block, and one in a tool's arguments or
//! result opens that tool step (each through its own header button, as
//! the reader's click would, so the fold state stays its own); and
//! once the renderer's worker has drawn the text, the matched words are
//! scrolled to the middle of the view and marked with the CSS highlight
//! [`HIGHLIGHT`]. The view stops following the bottom first, so the answers
//! being formatted below do not pull it down again.
//!
//! It changes nothing on the page but scroll positions, that one block's
//! fold and the highlight; the page's text is read, never written.

use super::history::SearchHit;
use super::use_chat_session::UseChatSessionReturn;
use super::use_stick_to_bottom::UseStickToBottomReturn;
use crate::turn::message::{Conversation, Message};
use crate::turn::reducer::{is_shown, Block};
use crate::turn::search::{block_of, Part};

/// The name of the CSS highlight on the match (style/main.css styles it).
pub const HIGHLIGHT: &str = "pensive-search";

/// Where on the page a match is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The conversation it is in (the reveal stops if another is shown).
    pub id: String,
    /// Index of the message in the conversation.
    pub message: usize,
    pub within: Within,
    /// The text to find again in the rendered message.
    pub matched: String,
}

/// Which element of the message holds the match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Within {
    /// The question's text.
    Question,
    /// The n-th Thinking block the turn renders.
    Thinking(usize),
    /// The n-th answer block of the turn.
    Answer(usize),
    /// The n-th tool step of the turn.
    Tool(usize),
}

/// Where `found`'s match is rendered in `c`; `None` for a title match (the
/// conversation opens as usual) or a place the conversation no longer has.
pub fn target(c: &Conversation, found: &SearchHit) -> Option<Target> {
    let place = &found.hit.place;
    let message = place.message?;
    let within = match (place.part, c.messages.get(message)?) {
        (Part::Question, Message::User { .. }) => Within::Question,
        (Part::Reasoning | Part::Answer | Part::Tool, Message::Assistant(turn)) => {
            let block = block_of(c, place, &found.hit.matched)?;
            let before = &turn.blocks[..block];
            match place.part {
                Part::Reasoning => {
                    // Only the blocks the turn shows are on the page.
                    let shown = |b: &&Block| matches!(b, Block::Thinking(t) if is_shown(t.state, &t.text, t.opaque));
                    Within::Thinking(before.iter().filter(shown).count())
                }
                Part::Tool => {
                    let steps = |b: &&Block| matches!(b, Block::Tool(_));
                    Within::Tool(before.iter().filter(steps).count())
                }
                _ => {
                    let answers = |b: &&Block| matches!(b, Block::Answer { .. });
                    Within::Answer(before.iter().filter(answers).count())
                }
            }
        }
        _ => return None,
    };
    Some(Target {
        id: found.id.clone(),
        message,
        within,
        matched: found.hit.matched.clone(),
    })
}

/// Brings `found`'s match into view in the shown conversation (call it once
/// the conversation is shown). Works over the next frames, as the page
/// renders; gives up quietly if another conversation is shown meanwhile.
pub fn reveal_match(
    stick: UseStickToBottomReturn,
    session: UseChatSessionReturn,
    found: SearchHit,
) {
    // A match in a version not shown: that version first, as its switcher would.
    session.show_versions(&found.hit.place.versions);
    let Some(target) = session.with_conversation(|c| target(c, &found)) else {
        return;
    };
    session.render_from(target.message);
    #[cfg(feature = "hydrate")]
    dom::start(stick, session, target);
    #[cfg(not(feature = "hydrate"))]
    let _ = (stick, target);
}

#[cfg(feature = "hydrate")]
mod dom {
    use leptos::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{Element, HtmlElement, Node, Range};

    use super::{Target, Within, HIGHLIGHT};
    use crate::app::browser::now_ms;
    use crate::app::lazy_renderer;
    use crate::app::use_chat_session::UseChatSessionReturn;
    use crate::app::use_stick_to_bottom::UseStickToBottomReturn;
    use crate::turn::search::find_range;

    /// Stop waiting for the renderer after this long, and show the block.
    const TIMEOUT_MS: f64 = 15_000.0;
    /// Frames after the scroll in which the view is checked again (about a
    /// second): pages of a long text are laid out at their real height as
    /// they come into view, and those above the match move it. Eight frames
    /// were too few for 300 KB of reasoning (seen in a screenshot: the
    /// highlight had drifted out of the block's view).
    const SETTLE_FRAMES: u32 = 60;

    /// What the frames of one reveal share.
    #[derive(Clone, Copy)]
    struct Reveal {
        stick: UseStickToBottomReturn,
        session: UseChatSessionReturn,
        started_ms: f64,
    }

    pub fn start(stick: UseStickToBottomReturn, session: UseChatSessionReturn, target: Target) {
        clear_highlight();
        let reveal = Reveal {
            stick,
            session,
            started_ms: now_ms(),
        };
        // From the next frame: the conversation's views are in the page, and
        // the effect that opens a switched-to conversation at its latest
        // turn has run (this must come after it).
        request_animation_frame(move || reveal.step(target, 0));
    }

    impl Reveal {
        /// One frame of the reveal; `frame` counts those in which the
        /// message was on the page.
        fn step(self, target: Target, frame: u32) {
            if self.session.current_id.try_get_untracked().as_ref() != Some(&target.id) {
                return;
            }
            let Some(element) = self.element(&target) else {
                return self.again(target, frame);
            };
            if frame == 0 {
                self.stick.stay();
                match target.within {
                    Within::Thinking(_) => open_folded(&element, ".thinking-header"),
                    Within::Tool(_) => open_folded(&element, ".tool-step-header"),
                    _ => {}
                }
            }
            // The reasoning's own scroll box, inside the block.
            let body = match target.within {
                Within::Thinking(_) => element.query_selector(".thinking-body").ok().flatten(),
                _ => None,
            };
            // A step's match is in its arguments or result, not its header.
            let steps_body = match target.within {
                Within::Tool(_) => element.query_selector(".tool-step-body").ok().flatten(),
                _ => None,
            };
            let root = body
                .clone()
                .or(steps_body)
                .unwrap_or_else(|| element.clone());
            // A block just opened renders from the next frame on, and puts
            // its scroll back where the reader left it when it has: look
            // only after that.
            let drawn = frame >= 2 && (lazy_renderer::idle() || lazy_renderer::failed());
            if drawn {
                if let Some(range) = find(&root, &target.matched) {
                    highlight(&range);
                    return self.settle(range, body, SETTLE_FRAMES);
                }
            }
            if now_ms() - self.started_ms > TIMEOUT_MS {
                // The text never showed (or reads differently once formatted):
                // the block itself is the next best place.
                element.scroll_into_view();
                return;
            }
            self.again(target, frame + 1);
        }

        fn again(self, target: Target, frame: u32) {
            if now_ms() - self.started_ms <= TIMEOUT_MS {
                request_animation_frame(move || self.step(target, frame));
            }
        }

        /// The element of the message that holds the match.
        fn element(&self, target: &Target) -> Option<Element> {
            let content = self.stick.content.get_untracked()?;
            let children = content.children();
            let message = (0..children.length())
                .filter_map(|i| children.item(i))
                .filter(|el| el.class_list().contains("message"))
                .nth(
                    target
                        .message
                        .checked_sub(self.session.first_rendered.get_untracked())?,
                )?;
            let (selector, n) = match target.within {
                Within::Question => ("[data-testid=\"user-text\"]", 0),
                Within::Thinking(n) => ("[data-testid=\"thinking-block\"]", n),
                Within::Answer(n) => ("[data-testid=\"answer\"]", n),
                Within::Tool(n) => ("[data-testid=\"tool-step\"]", n),
            };
            message
                .query_selector_all(selector)
                .ok()?
                .item(n as u32)?
                .dyn_into::<Element>()
                .ok()
        }

        /// Puts the match in the middle of its box and of the conversation,
        /// then checks again over the next frames.
        fn settle(self, range: Range, body: Option<Element>, frames: u32) {
            if let Some(scroller) = self.stick.scroller.get_untracked() {
                let inside_body = body.as_ref().is_none_or(|b| well_inside(b, &range));
                if !inside_body || !well_inside(&scroller, &range) {
                    // The browser scrolls every box on the way (the block's
                    // own and the conversation), and lays out the pages of a
                    // long text it skips (`content-visibility`) to do it,
                    // which measuring the range beforehand cannot.
                    let options = web_sys::ScrollIntoViewOptions::new();
                    options.set_block(web_sys::ScrollLogicalPosition::Center);
                    if let Some(element) = range
                        .start_container()
                        .ok()
                        .and_then(|n| n.parent_element())
                    {
                        element.scroll_into_view_with_scroll_into_view_options(&options);
                    }
                }
            }
            if frames > 0 {
                request_animation_frame(move || {
                    if range.collapsed() {
                        return; // its text was replaced meanwhile
                    }
                    self.settle(range, body, frames - 1)
                });
            }
        }
    }

    /// Opens a folded Thinking block or tool step by its `header`, as a
    /// click would.
    fn open_folded(block: &Element, header: &str) {
        let header = block
            .query_selector(&format!("{header}[aria-expanded=\"false\"]"))
            .ok()
            .flatten()
            .and_then(|h| h.dyn_into::<HtmlElement>().ok());
        if let Some(header) = header {
            header.click();
        }
    }

    /// True when `range` is on screen within `scroller`, away from its edges.
    fn well_inside(scroller: &Element, range: &Range) -> bool {
        let (at, view) = (
            range.get_bounding_client_rect(),
            scroller.get_bounding_client_rect(),
        );
        let margin = view.height() / 4.0;
        at.height() > 0.0
            && at.top() >= view.top() + margin
            && at.bottom() <= view.bottom() - margin
    }

    /// The first match of `matched` in the text under `root`, found as the
    /// search found it (case and runs of whitespace aside), across the text
    /// nodes formatting splits it into.
    fn find(root: &Element, matched: &str) -> Option<Range> {
        let document = root.owner_document()?;
        // NodeFilter.SHOW_TEXT
        let walker = document
            .create_tree_walker_with_what_to_show(root, 0x4)
            .ok()?;
        let mut text = String::new();
        let mut nodes: Vec<(Node, usize)> = Vec::new();
        while let Ok(Some(node)) = walker.next_node() {
            if let Some(data) = node.node_value() {
                nodes.push((node, text.len()));
                text.push_str(&data);
            }
        }
        let found = find_range(&text, matched)?;
        let (start, start_at) = locate(&nodes, &text, found.start, false)?;
        let (end, end_at) = locate(&nodes, &text, found.end, true)?;
        let range = document.create_range().ok()?;
        range.set_start(start, start_at).ok()?;
        range.set_end(end, end_at).ok()?;
        Some(range)
    }

    /// The text node and UTF-16 offset of byte `at` of the joined `text`; an
    /// end at a node's edge stays in the node it ends.
    fn locate<'a>(
        nodes: &'a [(Node, usize)],
        text: &str,
        at: usize,
        end: bool,
    ) -> Option<(&'a Node, u32)> {
        let i = nodes
            .partition_point(|(_, start)| if end { *start < at } else { *start <= at })
            .checked_sub(1)?;
        let (node, start) = &nodes[i];
        let offset = text.get(*start..at)?.encode_utf16().count();
        Some((node, u32::try_from(offset).ok()?))
    }

    /// Marks `range` with the CSS Custom Highlight API where the browser has
    /// it (reached through `Reflect`: web-sys has it only as unstable API).
    fn highlight(range: &Range) {
        let _ = (|| -> Result<(), wasm_bindgen::JsValue> {
            let global = js_sys::global();
            let registry = registry()?;
            let class = js_sys::Reflect::get(&global, &"Highlight".into())?
                .dyn_into::<js_sys::Function>()?;
            let marked = js_sys::Reflect::construct(&class, &js_sys::Array::of1(range))?;
            let set =
                js_sys::Reflect::get(&registry, &"set".into())?.dyn_into::<js_sys::Function>()?;
            set.call2(&registry, &HIGHLIGHT.into(), &marked)?;
            Ok(())
        })();
    }

    fn clear_highlight() {
        let _ = (|| -> Result<(), wasm_bindgen::JsValue> {
            let registry = registry()?;
            let delete = js_sys::Reflect::get(&registry, &"delete".into())?
                .dyn_into::<js_sys::Function>()?;
            delete.call1(&registry, &HIGHLIGHT.into())?;
            Ok(())
        })();
    }

    /// `CSS.highlights`, when the browser has it.
    fn registry() -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue> {
        let css = js_sys::Reflect::get(&js_sys::global(), &"CSS".into())?;
        let registry = js_sys::Reflect::get(&css, &"highlights".into())?;
        if registry.is_undefined() {
            return Err(registry);
        }
        Ok(registry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::reducer::Turn;
    use crate::turn::search::{find, search_text};
    use crate::turn::TurnEvent;

    fn found(c: &Conversation, query: &str) -> SearchHit {
        SearchHit {
            id: c.id.clone(),
            title: c.title.clone(),
            hit: find(&search_text(c), query).expect("a match"),
        }
    }

    /// A question, then a turn of thinking, answer, thinking, answer, and a
    /// tool step.
    fn conversation() -> Conversation {
        let mut turn = Turn::new(0.0);
        let think = |text: &str| {
            [
                TurnEvent::ThinkingStart,
                TurnEvent::ThinkingDelta { text: text.into() },
                TurnEvent::ThinkingEnd {
                    duration_ms: 1,
                    opaque: false,
                },
            ]
        };
        let events = think("first thoughts")
            .into_iter()
            .chain([TurnEvent::AnswerDelta {
                text: "first answer".into(),
            }])
            .chain(think("second thoughts about basalt"))
            .chain([TurnEvent::AnswerDelta {
                text: "second answer about granite".into(),
            }])
            .chain([
                TurnEvent::ToolCallStart {
                    id: "t1".into(),
                    name: "files__read".into(),
                    server: "files".into(),
                },
                TurnEvent::ToolCallReady {
                    id: "t1".into(),
                    arguments: serde_json::json!({"path": "notes.txt"}),
                    approval: crate::turn::Approval::NotNeeded,
                    digest: String::new(),
                },
                TurnEvent::ToolResult {
                    id: "t1".into(),
                    status: crate::turn::ToolStatus::Ok,
                    output: "a note on obsidian".into(),
                    truncated_bytes: 0,
                    duration_ms: 3,
                },
            ]);
        for event in events {
            turn.apply(event, 0.0);
        }
        let mut c = Conversation::new("c1".into(), 0.0);
        c.title = "Rocks".into();
        c.messages.push(Message::user("Tell me about rocks"));
        c.messages.push(Message::Assistant(turn));
        c
    }

    #[test]
    fn the_stylesheet_paints_the_highlight_in_the_mark_colours_of_both_themes() {
        let css = include_str!("../../style/main.css");
        let token = |name: &str, from: usize| {
            let at = from + css[from..].find(&format!("{name}: ")).expect(name) + name.len() + 2;
            &css[at..at + 7]
        };
        let dark = css
            .find("@media (prefers-color-scheme: dark)")
            .expect("dark tokens");
        for from in [0, dark] {
            let rule = format!(
                "::highlight({HIGHLIGHT}) {{ background-color: {}; color: {}; }}",
                token("--mark-bg", from),
                token("--mark-text", from)
            );
            assert!(css.contains(&rule), "{rule}");
        }
    }

    #[test]
    fn a_match_is_found_again_in_the_block_the_page_renders_it_in() {
        let c = conversation();
        let at = |query: &str| target(&c, &found(&c, query)).map(|t| (t.message, t.within));
        assert_eq!(at("BASALT"), Some((1, Within::Thinking(1))));
        assert_eq!(at("granite"), Some((1, Within::Answer(1))));
        assert_eq!(at("first thoughts"), Some((1, Within::Thinking(0))));
        assert_eq!(at("about rocks"), Some((0, Within::Question)));
        // A title match opens the conversation as usual.
        assert_eq!(at("rocks"), None);
        assert_eq!(at("obsidian"), Some((1, Within::Tool(0))));
        let basalt = target(&c, &found(&c, "basalt")).expect("a target");
        assert_eq!(
            (basalt.id.as_str(), basalt.matched.as_str()),
            ("c1", "basalt")
        );
    }
}
