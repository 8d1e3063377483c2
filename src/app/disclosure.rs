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
