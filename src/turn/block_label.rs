//! How an ended thinking block is named: "Thought for 12s", "Stopped after
//! 9s", "Cut short after 4s", with "reasoning hidden by the provider" when
//! nothing readable came. The page's header and the Markdown export say the
//! same words, so both take them from here.

use super::duration::{
    format_duration,
    DurationStyle::{Seconds, Short},
};
use super::reducer::{BlockState, ThinkingMeta};
use super::ReasoningSource;

/// The label of a block that is no longer streaming (a streaming block's
/// header is its live timer, which the page draws).
pub fn ended_label(meta: &ThinkingMeta) -> String {
    let cut_short = meta.source.is_some_and(ReasoningSource::is_cut_short);
    let base = match (meta.state, meta.duration_ms) {
        (BlockState::Interrupted, Some(ms)) => {
            format!("Stopped after {}", format_duration(ms as f64, Seconds))
        }
        (BlockState::Interrupted, None) => "Stopped".into(),
        (_, Some(ms)) if cut_short => {
            format!("Cut short after {}", format_duration(ms as f64, Seconds))
        }
        (_, None) if cut_short => "Cut short".into(),
        (_, Some(ms)) => format!("Thought for {}", format_duration(ms as f64, Short)),
        (_, None) => "Thought".into(),
    };
    if meta.opaque {
        format!("{base} \u{b7} {}", ReasoningSource::Hidden.words())
    } else {
        base
    }
}

/// Where the block's text comes from, in the words the label does not
/// already say ("Cut short…" and "…hidden by the provider" say theirs).
pub fn source_note(meta: &ThinkingMeta) -> Option<&'static str> {
    match meta.source? {
        ReasoningSource::Hidden if !meta.opaque => Some(ReasoningSource::Hidden.words()),
        ReasoningSource::Hidden | ReasoningSource::CutShort | ReasoningSource::AskedAgain => None,
        source => Some(source.words()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(
        state: BlockState,
        ms: Option<u64>,
        opaque: bool,
        source: Option<ReasoningSource>,
    ) -> ThinkingMeta {
        ThinkingMeta {
            duration_ms: ms,
            opaque,
            state,
            source,
            started_at_ms: 0.0,
            headline: None,
        }
    }

    #[test]
    fn each_ending_has_its_words() {
        use BlockState::{Done, Interrupted};
        use ReasoningSource::{CutShort, Full, Hidden, Summary};
        assert_eq!(
            ended_label(&meta(Done, Some(12_400), false, Some(Full))),
            "Thought for 12s"
        );
        assert_eq!(
            ended_label(&meta(Done, Some(300), false, None)),
            "Thought for less than a second"
        );
        assert_eq!(ended_label(&meta(Done, None, false, None)), "Thought");
        assert_eq!(
            ended_label(&meta(Interrupted, Some(9_200), false, None)),
            "Stopped after 9s"
        );
        assert_eq!(
            ended_label(&meta(Done, Some(4_300), false, Some(CutShort))),
            "Cut short after 4s"
        );
        assert_eq!(
            ended_label(&meta(Done, Some(8_000), true, Some(Hidden))),
            "Thought for 8s \u{b7} reasoning hidden by the provider"
        );
        // Stop after "Answer now" was asked: what the user did last counts.
        assert_eq!(
            ended_label(&meta(Interrupted, Some(5_000), false, Some(CutShort))),
            "Stopped after 5s"
        );
        assert_eq!(
            source_note(&meta(Done, None, false, Some(Summary))),
            Some("a summary by the provider")
        );
        assert_eq!(
            source_note(&meta(Done, None, false, Some(Full))),
            Some("full reasoning")
        );
        assert_eq!(source_note(&meta(Done, None, true, Some(Hidden))), None);
        assert_eq!(source_note(&meta(Done, None, false, Some(CutShort))), None);
        assert_eq!(source_note(&meta(Done, None, false, None)), None);
    }
}
