//! The user's display preference for thinking blocks, persisted in
//! localStorage and shared through context (design §4).

use leptos::prelude::*;

use super::storage::{self, StorageError};

/// What a thinking block does when the answer starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FoldPreference {
    /// Open while thinking, folded when the answer starts (default).
    #[default]
    FoldOnAnswer,
    /// Stay open.
    KeepOpen,
    /// Folded from the start (the header still shows the live preview).
    StartFolded,
}

impl FoldPreference {
    pub const ALL: [FoldPreference; 3] = [Self::FoldOnAnswer, Self::KeepOpen, Self::StartFolded];

    /// Stable value for storage and the `<select>`.
    pub fn key(self) -> &'static str {
        match self {
            Self::FoldOnAnswer => "fold",
            Self::KeepOpen => "open",
            Self::StartFolded => "folded",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::FoldOnAnswer => "Fold when the answer starts",
            Self::KeepOpen => "Keep open",
            Self::StartFolded => "Start folded",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.key() == key)
    }
}

const STORAGE_KEY: &str = "pensive.fold";

/// The stored preference: a JSON string (`"open"`), or the bare key that
/// versions before gloo-storage wrote (`open`). Unknown or unreadable: none.
fn load_stored() -> Option<FoldPreference> {
    match storage::get::<String>(STORAGE_KEY) {
        Ok(key) => key.as_deref().and_then(FoldPreference::from_key),
        Err(StorageError::Unreadable(_)) => storage::get_text(STORAGE_KEY)
            .ok()
            .flatten()
            .as_deref()
            .and_then(FoldPreference::from_key),
        Err(_) => None,
    }
}

/// The preference in context.
#[derive(Debug, Clone, Copy)]
pub struct FoldPreferenceContext(pub RwSignal<FoldPreference>);

/// Provides the preference (default on the server and first render; the stored
/// value loads after hydration).
pub fn provide_fold_preference() -> RwSignal<FoldPreference> {
    let preference = RwSignal::new(FoldPreference::default());
    provide_context(FoldPreferenceContext(preference));
    Effect::new(move |_| {
        if let Some(stored) = load_stored() {
            preference.set(stored);
        }
    });
    preference
}

/// The preference, or the default outside a provider (component tests).
pub fn use_fold_preference() -> Signal<FoldPreference> {
    use_context::<FoldPreferenceContext>()
        .map(|c| Signal::from(c.0))
        .unwrap_or_else(|| Signal::stored(FoldPreference::default()))
}

/// Sets and stores the preference.
pub fn store_fold_preference(preference: RwSignal<FoldPreference>, value: FoldPreference) {
    preference.set(value);
    // Unsaved, the choice still holds for this page; history reports storage trouble.
    let _ = storage::set(STORAGE_KEY, &value.key());
}

/// The preference picker.
#[component]
pub fn FoldPreferencePicker(
    /// The preference signal from `provide_fold_preference`.
    preference: RwSignal<FoldPreference>,
) -> impl IntoView {
    view! {
        <label class="preference">
            <span>"Thinking: "</span>
            <select
                data-testid="fold-preference"
                on:change=move |ev| {
                    if let Some(value) = FoldPreference::from_key(&event_target_value(&ev)) {
                        store_fold_preference(preference, value);
                    }
                }
                prop:value=move || preference.get().key()
            >
                {FoldPreference::ALL
                    .into_iter()
                    .map(|p| view! { <option value=p.key()>{p.label()}</option> })
                    .collect_view()}
            </select>
        </label>
    }
}
