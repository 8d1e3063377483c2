//! The "Include reasoning" choice of an export (on by default): off, the
//! file leaves every thinking block out.

use leptos::prelude::*;

/// A checkbox named "Include reasoning".
#[component]
pub fn IncludeReasoningToggle(
    /// Whether exports keep the reasoning; the checkbox writes here.
    include: RwSignal<bool>,
) -> impl IntoView {
    view! {
        <label class="preference export-choice">
            <input
                type="checkbox"
                data-testid="export-include-reasoning"
                // For the server's HTML; the property follows the signal.
                checked=include.get_untracked()
                prop:checked=move || include.get()
                on:change=move |ev| include.set(event_target_checked(&ev))
            />
            <span>{"Include reasoning"}</span>
        </label>
    }
}

#[cfg(all(test, feature = "ssr"))]
mod render_tests {
    use super::*;

    #[test]
    fn a_labelled_checkbox_on_by_default_off_when_told() {
        let render = |on: bool| {
            Owner::new().with(|| {
                let include = RwSignal::new(on);
                view! { <IncludeReasoningToggle include /> }.to_html()
            })
        };
        let on = render(true);
        assert!(on.contains("type=\"checkbox\""), "{on}");
        assert!(on.contains(" checked"), "{on}");
        assert!(on.contains(">Include reasoning</span></label>"), "{on}");
        assert!(!render(false).contains(" checked"));
    }
}
