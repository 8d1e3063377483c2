//! Gemini's thinking controls: 2.5 takes `thinkingBudget`, 3 and later
//! `thinkingLevel`, each model its own levels (Google's thinking guide and
//! model pages; docs/decisions.md). A name newer than the table gets the
//! newest row of its line (`gemini-4-pro` is read as 3.1 Pro). Pure.

use super::names::{gemini_version, newest_not_after, GeminiLine, Version};
use super::Efforts;
use crate::turn::Effort::{self, High, Low, Medium, Minimal, Off};

/// How a Gemini model is asked to think.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GeminiFamily {
    /// Gemini 3+: `thinkingLevel`, one of `levels`; thinking cannot be off.
    Level {
        levels: &'static [Effort],
        default: Effort,
    },
    /// Gemini 2.5: `thinkingBudget` from `min` to `max` tokens, 0 = off where
    /// `can_disable`, -1 = dynamic.
    Budget {
        min: u32,
        max: u32,
        can_disable: bool,
    },
}

const ROWS: &[(Version, GeminiLine, GeminiFamily)] = &[
    (
        (2, 5),
        GeminiLine::Pro,
        GeminiFamily::Budget {
            min: 128,
            max: 32_768,
            can_disable: false,
        },
    ),
    (
        (2, 5),
        GeminiLine::Flash,
        GeminiFamily::Budget {
            min: 1,
            max: 24_576,
            can_disable: true,
        },
    ),
    (
        (2, 5),
        GeminiLine::FlashLite,
        GeminiFamily::Budget {
            min: 512,
            max: 24_576,
            can_disable: true,
        },
    ),
    (
        (3, 0),
        GeminiLine::Pro,
        GeminiFamily::Level {
            levels: &[Low, High],
            default: High,
        },
    ),
    (
        (3, 0),
        GeminiLine::Flash,
        GeminiFamily::Level {
            levels: &[Minimal, Low, Medium, High],
            default: High,
        },
    ),
    (
        (3, 1),
        GeminiLine::Pro,
        GeminiFamily::Level {
            levels: &[Low, Medium, High],
            default: High,
        },
    ),
    (
        (3, 1),
        GeminiLine::FlashLite,
        GeminiFamily::Level {
            levels: &[Minimal, Low, Medium, High],
            default: Minimal,
        },
    ),
    (
        (3, 5),
        GeminiLine::Flash,
        GeminiFamily::Level {
            levels: &[Minimal, Low, Medium, High],
            default: Medium,
        },
    ),
    // From 3.7 the Flash models start at low (minimal is refused).
    (
        (3, 7),
        GeminiLine::Flash,
        GeminiFamily::Level {
            levels: &[Low, Medium, High],
            default: Medium,
        },
    ),
];

/// The family of a Gemini model name; `None` for names Pensive cannot read
/// or models before 2.5 (no thinking).
pub(crate) fn gemini_family(name: &str) -> Option<GeminiFamily> {
    let (version, line) = gemini_version(name)?;
    newest_not_after(ROWS, version, line)
}

impl GeminiFamily {
    /// The efforts Pensive offers for the family.
    pub fn efforts(self) -> Efforts {
        match self {
            GeminiFamily::Level { levels, default } => Efforts::new(levels, default),
            GeminiFamily::Budget { can_disable, .. } => {
                let words: &[Effort] = if can_disable {
                    &[Off, Low, Medium, High]
                } else {
                    &[Low, Medium, High]
                };
                Efforts::new(words, Medium)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_newer_than_the_table_take_their_lines_newest_row() {
        assert_eq!(
            gemini_family("gemini-4-pro"),
            gemini_family("gemini-3.1-pro")
        );
        assert_eq!(
            gemini_family("gemini-3.8-flash"),
            gemini_family("gemini-3.7-flash")
        );
        assert_eq!(
            gemini_family("gemini-3.6-flash"),
            gemini_family("gemini-3.5-flash")
        );
        assert_eq!(gemini_family("gemini-2.0-flash"), None);
    }
}
