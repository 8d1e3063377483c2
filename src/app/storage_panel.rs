//! The storage panel, at the foot of the conversation list: how much this
//! browser holds for Pensive and how much it allows, whether it keeps it for
//! good, each conversation's size (largest first), and how to free room.

use leptos::prelude::*;

use super::history::{self, Usage};
use super::later::{later, view_now_or_later};
use crate::turn::message::Summary;

/// `bytes` in the units people read (1 KB = 1000 bytes, as the browsers'
/// own storage settings count).
pub fn format_bytes(bytes: f64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1000.0 {
        return format!("{} B", bytes.max(0.0).round());
    }
    let mut value = bytes / 1000.0;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if value < 10.0 {
        format!("{value:.1} {}", UNITS[unit])
    } else {
        format!("{value:.0} {}", UNITS[unit])
    }
}

/// The conversations, largest first (the ones worth deleting or exporting).
fn by_size(index: &[Summary]) -> Vec<Summary> {
    let mut lines = index.to_vec();
    lines.sort_by_key(|s| std::cmp::Reverse(s.bytes));
    lines
}

/// The panel (closed until the user opens it; it asks the browser then).
#[component]
pub fn StoragePanel(
    /// Conversations, newest first, with their stored sizes.
    #[prop(into)]
    index: Signal<Vec<Summary>>,
    on_delete: Callback<String>,
) -> impl IntoView {
    let details = NodeRef::<leptos::html::Details>::new();
    let open = RwSignal::new(false);
    view! {
        <details
            class="storage-panel"
            data-testid="storage-panel"
            node_ref=details
            on:toggle=move |_| open.set(details.get_untracked().is_some_and(|d| d.open()))
        >
            <summary>{"Storage"}</summary>
            // Made when opened (the server renders it closed): the library
            // chunk's (super::later).
            <Show when=move || {
                open.get()
            }>{move || view_now_or_later(storage_contents(index, on_delete))}</Show>
        </details>
    }
}

later! {
    library,
    fn storage_contents(index: Signal<Vec<Summary>>, on_delete: Callback<String>) -> AnyView {
        let usage = RwSignal::new(None::<Usage>);
        // Asked when opened, and again with every save or delete (what the
        // browser reports changes with them).
        Effect::new(move |_| {
            index.track();
            leptos::task::spawn_local(async move {
                usage.set(Some(history::usage().await));
            });
        });
        let keep = move |_| {
            leptos::task::spawn_local(async move {
                history::persist().await;
                usage.set(Some(history::usage().await));
            });
        };
        let stored_total = move || index.with(|i| i.iter().map(|s| s.bytes).sum::<u64>());
        let used_line = move || match usage.get() {
            Some(Usage {
                used: Some(used),
                quota: Some(quota),
                ..
            }) => format!(
                "Conversations: {} as saved. The browser reports {} in use for Pensive (it may \
                 compress), of about {} it allows.",
                format_bytes(stored_total() as f64),
                format_bytes(used),
                format_bytes(quota)
            ),
            Some(_) => format!("Conversations: {}.", format_bytes(stored_total() as f64)),
            None => "Asking the browser\u{2026}".to_owned(),
        };
        let persisted = move || usage.get().map(|u| u.persisted);
        view! {
            <p data-testid="storage-usage">{used_line}</p>
            <p data-testid="storage-persisted">
                {move || match persisted() {
                    Some(true) => {
                        view! {
                            {"Kept for good: the browser will not clear it to free disk space."}
                        }
                            .into_any()
                    }
                    Some(false) => {
                        view! {
                            {"Not kept for good: the browser may clear it when the disk runs low. "}
                            <button class="copy-button" data-testid="persist-storage" on:click=keep>
                                {"Ask to keep it"}
                            </button>
                        }
                            .into_any()
                    }
                    None => ().into_any(),
                }}
            </p>
            <p class="storage-hint">
                {"To free room, delete conversations you no longer need; export them first (Options \u{2192} Export: all conversations) to keep a copy."}
            </p>
            <ul class="storage-list" aria-label="Conversations by size">
                <For
                    each=move || by_size(&index.get())
                    key=|s| (s.id.clone(), s.bytes, s.title.clone())
                    children=move |line| storage_row(line, on_delete)
                />
            </ul>
        }
        .into_any()
    }
}

/// One conversation's line: its title, its size and a Delete button.
fn storage_row(line: Summary, on_delete: Callback<String>) -> impl IntoView {
    let id = line.id.clone();
    let title = line.title.clone();
    view! {
        <li class="storage-row" data-testid="storage-row">
            <span class="storage-title">{line.title}</span>
            <span class="storage-size" data-testid="storage-size">
                {if line.bytes == 0 {
                    "\u{2014}".to_owned()
                } else {
                    format_bytes(line.bytes as f64)
                }}
            </span>
            <button
                class="icon-button"
                aria-label=format!("Delete \u{201c}{title}\u{201d} to free room")
                on:click=move |_| on_delete.run(id.clone())
            >
                {"Delete"}
            </button>
        </li>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_the_browsers_settings_write_them() {
        assert_eq!(format_bytes(0.0), "0 B");
        assert_eq!(format_bytes(999.0), "999 B");
        assert_eq!(format_bytes(1_000.0), "1.0 KB");
        assert_eq!(format_bytes(1_300_000.0), "1.3 MB");
        assert_eq!(format_bytes(52_300_000.0), "52 MB");
        assert_eq!(format_bytes(120e9), "120 GB");
        assert_eq!(format_bytes(5e15), "5000 TB");
    }

    #[test]
    fn the_largest_conversations_come_first() {
        let line = |id: &str, bytes| Summary {
            id: id.into(),
            title: id.into(),
            updated_at: 0.0,
            bytes,
        };
        let sorted = by_size(&[
            line("small", 10),
            line("big", 2_000_000),
            line("mid", 5_000),
        ]);
        let ids: Vec<&str> = sorted.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["big", "mid", "small"]);
    }
}
