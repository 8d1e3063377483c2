//! The user's display preference for thinking blocks, persisted in
//! localStorage and shared through context (DESIGN §4).

use leptos::prelude::*;

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

#[cfg(feature = "hydrate")]
const STORAGE_KEY: &str = "pensive.fold";

/// The preference in context.
#[derive(Debug, Clone, Copy)]
pub struct FoldPreferenceContext(pub RwSignal<FoldPreference>);

/// Provides the preference (default on the server and first render; the stored
/// value loads after hydration).
pub fn provide_fold_preference() -> RwSignal<FoldPreference> {
    let preference = RwSignal::new(FoldPreference::default());
    provide_context(FoldPreferenceContext(preference));
    Effect::new(move |_| {
        #[cfg(feature = "hydrate")]
        if let Some(stored) = web_sys::window()
            .and_then(|w| w.local_storage().ok().flatten())
            .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
            .and_then(|v| FoldPreference::from_key(&v))
        {
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
    #[cfg(feature = "hydrate")]
    if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = storage.set_item(STORAGE_KEY, value.key());
    }
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
