//! Whether a reasoning block is open or folded (design §4), owned by the turn
//! that lists the block and passed down to it, as thaw's Accordion owns its
//! items' state: the block's header clicks and this policy write the same
//! signal. Never reads the block's text.

use leptos::prelude::*;

use super::preferences::{use_fold_preference, FoldPreference};
use super::turn_view::BlockView;
use crate::turn::reducer::BlockState;

/// The open state of `block`: replayed blocks start folded, live ones open
/// unless the user prefers them folded; once `answer_started` turns true the
/// block folds, once, unless the user keeps blocks open. It never reopens by
/// itself, so a click after the fold wins.
pub fn use_thinking_fold(block: BlockView, answer_started: Signal<bool>) -> RwSignal<bool> {
    let preference = use_fold_preference();
    let streaming_at_start = block
        .meta
        .with_untracked(|m| m.state == BlockState::Streaming);
    let open = RwSignal::new(
        streaming_at_start && preference.get_untracked() != FoldPreference::StartFolded,
    );
    let auto_folded = StoredValue::new(!streaming_at_start);
    Effect::new(move |_| {
        if answer_started.get() && !auto_folded.get_value() {
            auto_folded.set_value(true);
            if preference.get_untracked() != FoldPreference::KeepOpen {
                open.set(false);
            }
        }
    });
    open
}
