//! "Reasoning effort": how hard the model thinks for the next message.
//! It offers only the chosen model's words (`POST /api/models`
//! lists them, weakest first) and remembers the choice per model across
//! reloads; each turn keeps the effort it was asked at.

use leptos::prelude::*;

use super::api::PublicModel;
use super::storage;
use crate::turn::Effort;

/// Where the choice for model `id` is kept.
fn storage_key(id: &str) -> String {
    format!("pensive.effort.{id}")
}

/// The stored choice for `model`, if it is still one of its words; else its default.
pub fn effort_for(model: &PublicModel) -> Option<Effort> {
    let stored = storage::get_text(&storage_key(&model.id))
        .ok()
        .flatten()
        .and_then(|word| Effort::parse(&word).ok())
        .filter(|e| model.efforts.contains(e));
    stored.or(model.default_effort)
}

/// The picker beside the model chooser; nothing for a model without efforts.
#[component]
pub fn EffortPicker(
    /// The configured models.
    models: Vec<PublicModel>,
    /// The conversation's model (`None`: the first).
    #[prop(into)]
    model: Signal<Option<String>>,
    /// The effort the next message asks for.
    #[prop(into)]
    effort: Signal<Option<Effort>>,
    /// Sets that effort: the user's pick, or the chosen model's remembered one.
    on_change: Callback<Option<Effort>>,
) -> impl IntoView {
    let chosen = Memo::new(move |_| {
        let id = model.get();
        id.and_then(|id| models.iter().find(|m| m.id == id))
            .or(models.first())
            .cloned()
    });
    // The chosen model's remembered effort, whenever the model changes.
    Effect::new(move |_| {
        on_change.run(chosen.with(|m| m.as_ref().and_then(effort_for)));
    });
    let words = Memo::new(move |_| {
        chosen.with(|m| m.as_ref().map(|m| m.efforts.clone()).unwrap_or_default())
    });
    let pick = move |word: String| {
        let Ok(picked) = Effort::parse(&word) else {
            return;
        };
        on_change.run(Some(picked));
        if let Some(id) = chosen.with_untracked(|m| m.as_ref().map(|m| m.id.clone())) {
            // Unsaved, the choice still holds for this page.
            let _ = storage::set_text(&storage_key(&id), picked.as_str());
        }
    };
    view! {
        <Show when=move || !words.with(Vec::is_empty)>
            <label class="preference effort">
                // Text as a block: shown after hydration too (trusted_html).
                <span>{"Effort: "}</span>
                <select
                    aria-label="Reasoning effort"
                    data-testid="effort-picker"
                    on:change=move |ev| pick(event_target_value(&ev))
                    prop:value=move || {
                        effort
                            .get()
                            .or_else(|| chosen.with(|m| m.as_ref().and_then(|m| m.default_effort)))
                            .map(Effort::as_str)
                            .unwrap_or_default()
                    }
                >
                    {move || {
                        words
                            .get()
                            .into_iter()
                            .map(|e| view! { <option value=e.as_str()>{e.as_str()}</option> })
                            .collect_view()
                    }}
                </select>
            </label>
        </Show>
    }
}
