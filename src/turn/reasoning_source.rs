//! Where a thinking block's text comes from: the model's
//! full reasoning, the provider's summary of it, nothing readable (the
//! provider hid it), or reasoning the user cut short with "Answer now".
//! Named in the block's header (its accessible text) and in exports.

use serde::{Deserialize, Serialize};

/// Where a thinking block's text comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningSource {
    /// The model's own reasoning, as it wrote it (DeepSeek, vLLM, Ollama,
    /// llama.cpp, inline tags, Claude 3.7).
    Full,
    /// The provider's summary of reasoning it keeps to itself (OpenAI
    /// Responses, Claude 4+ `summarized`, Gemini thought summaries).
    Summary,
    /// The provider reasoned but sent nothing readable (omitted, redacted,
    /// encrypted).
    Hidden,
    /// The user asked for the answer before the model finished thinking.
    CutShort,
    /// As `CutShort`, but the provider's control to end the thinking failed,
    /// so the turn was asked again (llama.cpp without the control).
    AskedAgain,
}

impl ReasoningSource {
    /// The user cut this block short ("Answer now"), either way.
    pub fn is_cut_short(self) -> bool {
        matches!(
            self,
            ReasoningSource::CutShort | ReasoningSource::AskedAgain
        )
    }
}

impl ReasoningSource {
    /// The words for it, as the header's accessible text and exports say them.
    pub fn words(self) -> &'static str {
        match self {
            ReasoningSource::Full => "full reasoning",
            ReasoningSource::Summary => "a summary by the provider",
            ReasoningSource::Hidden => "reasoning hidden by the provider",
            ReasoningSource::CutShort => "cut short",
            ReasoningSource::AskedAgain => "cut short; could not end thinking early, asked again",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_travel_as_snake_case_words() {
        for (source, wire) in [
            (ReasoningSource::Full, "\"full\""),
            (ReasoningSource::Summary, "\"summary\""),
            (ReasoningSource::Hidden, "\"hidden\""),
            (ReasoningSource::CutShort, "\"cut_short\""),
        ] {
            assert_eq!(serde_json::to_string(&source).unwrap(), wire);
            assert_eq!(
                serde_json::from_str::<ReasoningSource>(wire).unwrap(),
                source
            );
        }
    }
}
