//! Pensive's one reasoning-effort vocabulary (`off` … `max`), shared by the
//! chat request, the model list and the browser's control. Each provider
//! dialect maps these words to its own parameters on the server; here there
//! is only the vocabulary: its order, its words, parsing. Pure, no I/O.

use serde::{Deserialize, Serialize};

/// How hard the model should think, weakest first: the derived order is the
/// order of the words (`Off < Minimal < … < Max`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    /// No reasoning (where the model can turn it off).
    Off,
    Minimal,
    Low,
    Medium,
    High,
    /// Between `high` and `max` (OpenAI's and Anthropic's `xhigh`).
    Xhigh,
    /// The most the model offers.
    Max,
}

/// A word that is not one of the effort words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown reasoning effort {0:?}; expected one of off, minimal, low, medium, high, xhigh, max"
)]
pub struct UnknownEffort(pub String);

impl Effort {
    /// Every word, weakest first.
    pub const ALL: [Effort; 7] = [
        Effort::Off,
        Effort::Minimal,
        Effort::Low,
        Effort::Medium,
        Effort::High,
        Effort::Xhigh,
        Effort::Max,
    ];

    /// The word on the wire and in configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            Effort::Off => "off",
            Effort::Minimal => "minimal",
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
            Effort::Xhigh => "xhigh",
            Effort::Max => "max",
        }
    }

    /// Reads a word in any case, spaces around allowed; `none` is read as `off`
    /// (OpenAI's word for it), so configuration written in a provider's words works.
    pub fn parse(word: &str) -> Result<Self, UnknownEffort> {
        let lower = word.trim().to_ascii_lowercase();
        if lower == "none" {
            return Ok(Effort::Off);
        }
        Effort::ALL
            .into_iter()
            .find(|e| e.as_str() == lower)
            .ok_or_else(|| UnknownEffort(word.to_owned()))
    }
}

impl std::fmt::Display for Effort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Effort {
    type Err = UnknownEffort;

    fn from_str(word: &str) -> Result<Self, Self::Err> {
        Effort::parse(word)
    }
}

/// The words of `efforts` for a sentence: "low, medium or high".
pub fn list_words(efforts: &[Effort]) -> String {
    match efforts {
        [] => String::new(),
        [one] => one.as_str().to_owned(),
        [rest @ .., last] => {
            let head: Vec<&str> = rest.iter().map(|e| e.as_str()).collect();
            format!("{} or {}", head.join(", "), last.as_str())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_ordered_weakest_first() {
        let mut sorted = Effort::ALL;
        sorted.sort();
        assert_eq!(sorted, Effort::ALL);
        assert!(Effort::Off < Effort::Minimal);
        assert!(Effort::High < Effort::Xhigh && Effort::Xhigh < Effort::Max);
    }

    #[test]
    fn each_word_round_trips_through_parse_display_and_serde() {
        for effort in Effort::ALL {
            assert_eq!(Effort::parse(effort.as_str()), Ok(effort));
            assert_eq!(effort.to_string().parse::<Effort>(), Ok(effort));
            let json = serde_json::to_string(&effort).unwrap();
            assert_eq!(json, format!("\"{}\"", effort.as_str()));
            assert_eq!(serde_json::from_str::<Effort>(&json).unwrap(), effort);
        }
    }

    #[test]
    fn parsing_forgives_case_and_spaces_and_reads_none_as_off() {
        assert_eq!(Effort::parse(" High "), Ok(Effort::High));
        assert_eq!(Effort::parse("XHIGH"), Ok(Effort::Xhigh));
        assert_eq!(Effort::parse("none"), Ok(Effort::Off));
        assert_eq!(
            Effort::parse("extreme"),
            Err(UnknownEffort("extreme".into()))
        );
    }

    #[test]
    fn serde_is_strict_about_the_words() {
        assert!(serde_json::from_str::<Effort>("\"High\"").is_err());
        assert!(serde_json::from_str::<Effort>("\"none\"").is_err());
    }

    #[test]
    fn lists_read_as_a_sentence() {
        assert_eq!(list_words(&[]), "");
        assert_eq!(list_words(&[Effort::Low]), "low");
        assert_eq!(list_words(&[Effort::Low, Effort::High]), "low or high");
        assert_eq!(
            list_words(&[Effort::Off, Effort::Low, Effort::Max]),
            "off, low or max"
        );
    }
}
