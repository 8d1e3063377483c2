//! "‹ 2 / 3 ›": steps through the versions of a turn (Regenerate, Edit and
//! Retry keep the earlier ones, `turn::versions`).

use leptos::prelude::*;

use crate::turn::versions::VersionPosition;

/// The versions of one turn: previous, the count, next.
#[component]
pub fn VersionSwitcher(
    /// Which version is shown, of how many.
    position: VersionPosition,
    /// True while a turn streams: the shown versions must stay as they are.
    #[prop(into)]
    disabled: Signal<bool>,
    /// Called with the version to show (counted from 0).
    on_show: Callback<usize>,
) -> impl IntoView {
    let step =
        |name: &'static str, testid: &'static str, glyph: &'static str, to: Option<usize>| {
            view! { <VersionStep name testid glyph to disabled on_show /> }
        };
    view! {
        <div
            class="version-switcher"
            data-testid="versions"
            role="group"
            aria-label="Versions of this turn"
        >
            {step("Previous version", "previous-version", "\u{2039}", position.previous())}
            <span class="version-count" data-testid="version-count">
                {position.label()}
            </span>
            {step("Next version", "next-version", "\u{203a}", position.next())}
        </div>
    }
}

/// One step button: shows version `to`, disabled where there is none or
/// while a turn streams.
#[component]
fn VersionStep(
    name: &'static str,
    testid: &'static str,
    glyph: &'static str,
    to: Option<usize>,
    #[prop(into)] disabled: Signal<bool>,
    on_show: Callback<usize>,
) -> impl IntoView {
    view! {
        <button
            class="icon-button"
            aria-label=name
            title=name
            data-testid=testid
            disabled=move || disabled.get() || to.is_none()
            on:click=move |_| {
                if let Some(to) = to {
                    on_show.run(to);
                }
            }
        >
            {glyph}
        </button>
    }
}

#[cfg(all(test, feature = "ssr"))]
mod render_tests {
    use super::*;

    fn render(shown: usize, count: usize, disabled: bool) -> String {
        Owner::new().with(|| {
            let position = VersionPosition { shown, count };
            view! { <VersionSwitcher position disabled=disabled on_show=Callback::new(|_| ()) /> }
                .to_html()
        })
    }

    fn button<'a>(html: &'a str, name: &str) -> &'a str {
        let start = html
            .find(&format!("aria-label=\"{name}\""))
            .and_then(|i| html[..i].rfind("<button"))
            .unwrap_or_else(|| panic!("no {name} button: {html}"));
        let end = html[start..].find('>').map_or(html.len(), |e| start + e);
        &html[start..end]
    }

    #[test]
    fn the_count_sits_between_previous_and_next_which_stop_at_the_ends() {
        let html = render(1, 3, false);
        assert!(html.contains(">2 / 3<"), "{html}");
        assert!(
            !button(&html, "Previous version").contains("disabled"),
            "{html}"
        );
        assert!(
            !button(&html, "Next version").contains("disabled"),
            "{html}"
        );
        let first = render(0, 2, false);
        assert!(
            button(&first, "Previous version").contains("disabled"),
            "{first}"
        );
        assert!(
            !button(&first, "Next version").contains("disabled"),
            "{first}"
        );
        let last = render(1, 2, false);
        assert!(
            !button(&last, "Previous version").contains("disabled"),
            "{last}"
        );
        assert!(button(&last, "Next version").contains("disabled"), "{last}");
    }

    #[test]
    fn both_buttons_wait_while_a_turn_streams() {
        let html = render(1, 3, true);
        assert!(
            button(&html, "Previous version").contains("disabled"),
            "{html}"
        );
        assert!(button(&html, "Next version").contains("disabled"), "{html}");
    }
}
