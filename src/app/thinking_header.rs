//! The header of a reasoning block: its label ("Thinking… 7s", "Thought
//! for 12s"), the block's latest headline, and while it streams folded
//! without one, its last line. A Thinking block uses it as its disclosure;
//! a turn whose provider counted reasoning but sent no block shows it alone,
//! disabled ("Reasoned for 3s · 120 tokens").

use leptos::prelude::*;

use super::disclosure::DisclosureButton;

/// A reasoning block's header button.
#[component]
pub fn ThinkingHeader(
    /// The header's words: the live timer or how the block ended.
    #[prop(into)]
    label: Signal<String>,
    /// Open or folded; `None` while there is no text to unfold.
    #[prop(optional, into)]
    expanded: Signal<Option<bool>>,
    /// The id of the block's body.
    #[prop(optional_no_strip)]
    controls: Option<String>,
    /// Where the text comes from, read after the label.
    #[prop(optional, into)]
    description: Signal<Option<&'static str>>,
    /// The block's latest headline.
    #[prop(optional, into)]
    topic: Signal<Option<String>>,
    /// The last line, standing in for a headline while folded.
    #[prop(optional, into)]
    preview: Signal<Option<String>>,
    /// The reader pressed it.
    #[prop(optional_no_strip)]
    on_toggle: Option<Callback<()>>,
) -> impl IntoView {
    view! {
        <DisclosureButton class="thinking-header" expanded controls description on_toggle>
            <span class="thinking-label">{move || label.get()}</span>
            {move || {
                topic
                    .get()
                    .map(|name| {
                        let full = name.clone();
                        // The whole label on hover when the header cuts it.
                        view! {
                            <span class="thinking-topic-sep">" \u{b7} "</span>
                            <span class="thinking-topic" data-testid="thinking-topic" title=full>
                                {name}
                            </span>
                        }
                    })
            }}
            {move || {
                preview
                    .get()
                    .map(|line| {
                        view! {
                            <span class="thinking-preview" data-testid="thinking-preview">
                                {line}
                            </span>
                        }
                    })
            }}
        </DisclosureButton>
    }
}
