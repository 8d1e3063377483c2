//! Which conversations an export holds: the one shown, or all of them.

use leptos::prelude::*;

use super::use_import_export::ExportScope;

/// A `<select>` named "Conversations to export" (shown as "Export:"),
/// listing "This conversation" and "All conversations".
#[component]
pub fn ExportScopePicker(
    /// The choice; the picker writes here.
    scope: RwSignal<ExportScope>,
) -> impl IntoView {
    view! {
        <label class="preference export-choice">
            <span>{"Export: "}</span>
            <select
                aria-label="Conversations to export"
                data-testid="export-scope"
                on:change=move |ev| {
                    if let Some(value) = ExportScope::from_key(&event_target_value(&ev)) {
                        scope.set(value);
                    }
                }
                prop:value=move || scope.get().key()
            >
                {ExportScope::ALL
                    .into_iter()
                    .map(|s| view! { <option value=s.key()>{s.label()}</option> })
                    .collect_view()}
            </select>
        </label>
    }
}

#[cfg(all(test, feature = "ssr"))]
mod render_tests {
    use super::*;

    #[test]
    fn a_named_select_listing_this_conversation_first() {
        let html = Owner::new().with(|| {
            let scope = RwSignal::new(ExportScope::Shown);
            view! { <ExportScopePicker scope /> }.to_html()
        });
        assert!(
            html.contains("aria-label=\"Conversations to export\""),
            "{html}"
        );
        let shown = html.find(">This conversation</option>").expect(&html);
        let all = html.find(">All conversations</option>").expect(&html);
        assert!(shown < all, "{html}");
    }
}
