//! The header button that folds and unfolds a box in the turn's timeline
//! (a Thinking block, a tool step): a chevron, then what names the box.
//! It says whether the box is open (`aria-expanded`) and which element it
//! shows (`aria-controls`); a box with nothing to show yet is a disabled
//! header with neither.

use leptos::prelude::*;

use super::trusted_html::decoration;

/// A disclosure header: `<button class=…>` with a chevron and `children`.
#[component]
pub fn DisclosureButton(
    /// The button's class (its look, and what tests and styles select).
    class: &'static str,
    /// Open or folded; `None` when there is nothing to unfold (disabled).
    #[prop(into)]
    expanded: Signal<Option<bool>>,
    /// The id of the element it shows, said while it can be unfolded.
    #[prop(optional_no_strip)]
    controls: Option<String>,
    /// The accessible description, read after the button's name.
    #[prop(optional, into)]
    description: Signal<Option<&'static str>>,
    /// The reader pressed it.
    #[prop(optional_no_strip)]
    on_toggle: Option<Callback<()>>,
    /// What names the box, after the chevron.
    children: Children,
) -> impl IntoView {
    view! {
        <button
            class=class
            aria-expanded=move || expanded.get().map(|open| open.to_string())
            aria-controls=move || expanded.get().and(controls.clone())
            disabled=move || expanded.get().is_none()
            aria-description=move || description.get()
            on:click=move |_| {
                if let Some(toggle) = on_toggle {
                    toggle.run(());
                }
            }
        >
            {decoration("chevron")}
            {children()}
        </button>
    }
}

/// The button rendered on the server, as a screen reader meets it.
#[cfg(all(test, feature = "ssr"))]
mod render_tests {
    use super::*;
    use crate::app::thinking_block::render_tests::open_tag;

    fn render(expanded: Option<bool>) -> String {
        Owner::new().with(|| {
            view! {
                <DisclosureButton
                    class="tool-step-header"
                    expanded=Signal::stored(expanded)
                    controls=Some("tool-body-7".to_owned())
                >
                    <span>"calculate"</span>
                </DisclosureButton>
            }
            .to_html()
        })
    }

    #[test]
    fn it_says_whether_the_box_is_open_and_which_element_it_shows() {
        let html = render(Some(false));
        let tag = open_tag(&html, "tool-step-header").unwrap_or_default();
        assert!(tag.contains("aria-expanded=\"false\""), "{tag}");
        assert!(tag.contains("aria-controls=\"tool-body-7\""), "{tag}");
        assert!(!tag.contains("disabled"), "{tag}");
        assert!(html.contains("calculate"), "{html}");
        let html = render(Some(true));
        assert!(html.contains("aria-expanded=\"true\""), "{html}");
    }

    #[test]
    fn with_nothing_to_unfold_it_is_a_disabled_header_without_either() {
        let html = render(None);
        let tag = open_tag(&html, "tool-step-header").unwrap_or_default();
        assert!(tag.contains("disabled"), "{tag}");
        assert!(!tag.contains("aria-expanded"), "{tag}");
        assert!(!tag.contains("aria-controls"), "{tag}");
    }
}
