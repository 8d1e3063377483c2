//! The search box above the conversation list: finds stored
//! conversations by words in titles, questions, answers and reasoning, and
//! lists them with the matching snippet in place of the list while a query
//! is typed. Ctrl+K / Cmd+K focuses it from anywhere. The scan itself is
//! `history::search`; this never reads storage, and shows every text as text.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use leptos::html::Input;
use leptos::prelude::*;

use super::history::{self, SearchHit};
use super::later::{later, view_now_or_later};

/// Typing pauses this long before a search runs: one search per burst of keys.
const DEBOUNCE: Duration = Duration::from_millis(120);

/// The search box, and the results in place of the list while it holds a query.
#[component]
pub fn ConversationSearch(
    /// What is typed; the sidebar hides its list while it is not blank.
    query: RwSignal<String>,
    /// The sidebar's menu on a phone: Ctrl/Cmd+K opens it to reach the box.
    menu_open: RwSignal<bool>,
    /// A result was opened: show that conversation at its match.
    on_open: Callback<SearchHit>,
) -> impl IntoView {
    let input = NodeRef::<Input>::new();
    let results = RwSignal::new(Vec::<SearchHit>::new());
    let searching = RwSignal::new(false);
    // The query the results answer (the "no match" line names it).
    let answered = RwSignal::new(String::new());
    // Each new query takes a number; a search whose number is no longer the
    // latest stops, and its late results are dropped.
    let generation = StoredValue::new(0_u64);
    let pending = StoredValue::new(None::<TimeoutHandle>);

    let run = move |text: String, number: u64| {
        let is_current = move || generation.try_get_value() == Some(number);
        leptos::task::spawn_local(async move {
            // The previous results stay until this search finds its first,
            // so the list does not blink at every pause in typing.
            let any = Rc::new(Cell::new(false));
            let found = {
                let any = Rc::clone(&any);
                move |hit: SearchHit| {
                    if !is_current() {
                        return;
                    }
                    if any.replace(true) {
                        results.update(|r| r.push(hit));
                    } else {
                        results.set(vec![hit]);
                    }
                }
            };
            history::search(text.clone(), found, move || !is_current()).await;
            if is_current() {
                if !any.get() {
                    results.set(Vec::new());
                }
                answered.set(text);
                searching.set(false);
            }
        });
    };
    let schedule = move |text: String| {
        if let Some(handle) = pending.get_value() {
            handle.clear();
        }
        generation.update_value(|n| *n += 1);
        let number = generation.get_value();
        if text.trim().is_empty() {
            results.set(Vec::new());
            searching.set(false);
            return;
        }
        searching.set(true);
        let handle = set_timeout_with_handle(move || run(text, number), DEBOUNCE).ok();
        pending.set_value(handle);
    };
    let clear = move || {
        query.set(String::new());
        schedule(String::new());
    };

    // From anywhere on the page, as in most apps with a search: Ctrl+K, or
    // Cmd+K on a Mac (the browser's own use of the key is overridden). Only
    // in the browser: there is no window to listen to anywhere else.
    #[cfg(feature = "hydrate")]
    {
        let shortcut = window_event_listener(leptos::ev::keydown, move |ev| {
            let k = ev.key().eq_ignore_ascii_case("k");
            if k && (ev.ctrl_key() || ev.meta_key()) && !ev.alt_key() {
                ev.prevent_default();
                menu_open.set(true);
                let focus = move || {
                    if let Some(el) = input.get_untracked() {
                        let _ = el.focus();
                        el.select();
                    }
                };
                focus();
                // On a phone the box shows once the menu has opened. Where it
                // was shown already, it has the focus and may hold what was
                // typed since: selecting again would let the next key replace it.
                request_animation_frame(move || {
                    let focused = input.get_untracked().is_some_and(|el| {
                        let el: &web_sys::Element = &el;
                        document().active_element().as_ref() == Some(el)
                    });
                    if !focused {
                        focus();
                    }
                });
            }
        });
        on_cleanup(move || shortcut.remove());
    }
    // The hint names the key the reader's keyboard has; known only in the
    // browser, so the server and the first render say "Ctrl K".
    let mac = RwSignal::new(false);
    Effect::new(move |_| mac.set(is_mac()));

    let active = move || query.with(|q| !q.trim().is_empty());
    let status = Signal::derive(move || {
        if searching.get() {
            Some("Searching\u{2026}".to_owned())
        } else if results.with(Vec::is_empty) {
            Some(format!(
                "No conversations match \u{201c}{}\u{201d}.",
                answered.get().trim()
            ))
        } else {
            None
        }
    });
    view! {
        <div class="conversation-search" role="search">
            <input
                type="search"
                class="search-input"
                node_ref=input
                aria-label="Search conversations"
                aria-keyshortcuts="Control+K Meta+K"
                placeholder="Search"
                autocomplete="off"
                spellcheck="false"
                data-testid="search-conversations"
                prop:value=move || query.get()
                on:input=move |ev| {
                    let text = event_target_value(&ev);
                    query.set(text.clone());
                    schedule(text);
                }
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    if ev.key() == "Escape" {
                        ev.prevent_default();
                        clear();
                    }
                }
            />
            <kbd class="search-shortcut" aria-hidden="true">
                {move || if mac.get() { "\u{2318}K" } else { "Ctrl K" }}
            </kbd>
        </div>
        // Shown while a query is typed (the server renders none): the
        // library chunk's (super::later).
        <Show when=active>
            {move || view_now_or_later(search_results(results, status, menu_open, on_open))}
        </Show>
    }
}

later! {
    library,
    fn search_results(
        results: RwSignal<Vec<SearchHit>>,
        status: Signal<Option<String>>,
        menu_open: RwSignal<bool>,
        on_open: Callback<SearchHit>,
    ) -> AnyView {
        view! {
            <p class="search-status" role="status" data-testid="search-status">
                {status}
            </p>
            <ul class="search-results" aria-label="Search results">
                <For
                    each=move || results.get()
                    key=|r| (r.id.clone(), r.hit.clone())
                    children=move |result| view! { <SearchResult result menu_open on_open /> }
                />
            </ul>
        }
        .into_any()
    }
}

/// One result: the title, the snippet with the match marked, and where it is.
#[component]
fn SearchResult(
    result: SearchHit,
    menu_open: RwSignal<bool>,
    on_open: Callback<SearchHit>,
) -> impl IntoView {
    let SearchHit { title, hit, .. } = result.clone();
    let open = move |_| {
        menu_open.set(false);
        on_open.run(result.clone());
    };
    view! {
        <li class="search-result" data-testid="search-result" data-part=hit.place.part.name()>
            <button class="search-result-open" on:click=open>
                <span class="search-result-title">{title}</span>
                <span class="search-result-snippet" data-testid="search-snippet">
                    {hit.before}
                    <mark>{hit.matched}</mark>
                    {hit.after}
                </span>
                <span class="search-result-part">{part_label(&hit.place)}</span>
            </button>
        </li>
    }
}

/// Where a result is: the part, and whether it is in a version not shown.
fn part_label(place: &crate::turn::search::Place) -> String {
    let part = place.part.label();
    if place.versions.is_empty() {
        part.to_owned()
    } else {
        format!("{part}, in another version")
    }
}

fn is_mac() -> bool {
    #[cfg(feature = "hydrate")]
    {
        web_sys::window()
            .and_then(|w| w.navigator().user_agent().ok())
            .is_some_and(|agent| agent.contains("Mac"))
    }
    #[cfg(not(feature = "hydrate"))]
    {
        false
    }
}

#[cfg(all(test, feature = "ssr"))]
mod render_tests {
    use super::*;
    use crate::turn::search::{Hit, Part, Place};

    #[test]
    fn the_box_is_named_and_hints_its_shortcut_and_the_list_shows_until_a_query() {
        let html = Owner::new().with(|| {
            let (query, menu_open) = (RwSignal::new(String::new()), RwSignal::new(false));
            view! { <ConversationSearch query menu_open on_open=Callback::new(|_| ()) /> }.to_html()
        });
        assert!(html.contains("type=\"search\""), "{html}");
        assert!(
            html.contains("aria-label=\"Search conversations\""),
            "{html}"
        );
        assert!(
            html.contains("data-testid=\"search-conversations\""),
            "{html}"
        );
        assert!(
            html.contains("aria-keyshortcuts=\"Control+K Meta+K\""),
            "{html}"
        );
        assert!(html.contains(">Ctrl K</kbd>"), "{html}");
        assert!(
            !html.contains("search-result"),
            "no results without a query: {html}"
        );
    }

    #[test]
    fn a_result_shows_its_texts_as_text_with_the_match_marked() {
        let result = SearchHit {
            id: "c1".into(),
            title: "<img src=x onerror=alert(1)>".into(),
            hit: Hit {
                place: Place {
                    versions: vec![(0, 0)],
                    message: Some(1),
                    part: Part::Reasoning,
                },
                before: "so <b>bold</b> ".into(),
                matched: "Zanzibarite".into(),
                after: " fits.".into(),
                at: 3,
            },
        };
        let html = Owner::new().with(|| {
            let menu_open = RwSignal::new(false);
            view! { <SearchResult result menu_open on_open=Callback::new(|_| ()) /> }.to_html()
        });
        assert!(html.contains("data-part=\"reasoning\""), "{html}");
        assert!(html.contains("<mark>Zanzibarite</mark>"), "{html}");
        assert!(
            html.contains(">in reasoning, in another version<"),
            "{html}"
        );
        assert!(!html.contains("<img") && !html.contains("<b>"), "{html}");
        assert!(
            html.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{html}"
        );
    }
}
