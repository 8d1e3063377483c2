//! The Claude families: how each model is asked to think, the efforts it
//! takes and its output limit, from Anthropic's documentation (sources and
//! dates in docs/decisions.md, "Model families"). A name newer than the table
//! gets the rules of the newest known model of its tier. Pure.

use super::names::{claude_version, newest_not_after, Version};
use super::{Efforts, ThinkingStyle};
use crate::turn::Effort::{self, High, Low, Max, Medium, Off, Xhigh};

/// An Anthropic model as its name (or the `thinking` key) says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AnthropicFamily {
    /// How thinking is asked for (`thinking = "…"` in the configuration wins).
    pub style: ThinkingStyle,
    /// `thinking: {type: "enabled"}` is refused (Opus 4.7+, every Claude 5).
    pub adaptive_only: bool,
    /// The model thinks when the request has no `thinking` field (Claude 5).
    pub thinks_by_default: bool,
    /// `thinking: {type: "disabled"}` is taken: Pensive offers `off`.
    pub can_disable: bool,
    /// The efforts Pensive offers, weakest first, and the model's default.
    pub efforts: &'static [Effort],
    pub default: Effort,
    /// The most output tokens (`max_tokens`) the model takes.
    pub max_output: u32,
    /// Its thinking blocks are bound to the conversation before them
    /// (preserved thinking, from Fable 5.1: platform.claude.com/docs/en/
    /// build-with-claude/preserved-thinking).
    pub binds_prefix: bool,
    /// Takes an effort change mid-conversation as a `system` message with
    /// `output_config.effort` (platform.claude.com/docs/en/build-with-claude/
    /// effort-per-message), which keeps the prompt cache.
    pub effort_markers: bool,
}

const BUDGET: &[Effort] = &[Off, Low, Medium, High];
const ADAPTIVE_4_6: &[Effort] = &[Off, Low, Medium, High, Max];
const ADAPTIVE: &[Effort] = &[Off, Low, Medium, High, Xhigh, Max];
const ALWAYS_ON: &[Effort] = &[Low, Medium, High, Xhigh, Max];
const MYTHOS_PREVIEW: &[Effort] = &[Low, Medium, High, Max];

/// Extended thinking with a budget (Claude 3.7 to 4.5).
const fn budget(max_output: u32) -> AnthropicFamily {
    AnthropicFamily {
        style: ThinkingStyle::Budget,
        adaptive_only: false,
        thinks_by_default: false,
        can_disable: true,
        efforts: BUDGET,
        default: Medium,
        max_output,
        binds_prefix: false,
        effort_markers: false,
    }
}

/// Adaptive thinking, switched on by the request (Claude 4.6, Opus 4.7).
const fn adaptive(efforts: &'static [Effort], adaptive_only: bool) -> AnthropicFamily {
    AnthropicFamily {
        style: ThinkingStyle::Adaptive,
        adaptive_only,
        thinks_by_default: false,
        can_disable: true,
        efforts,
        default: High,
        max_output: 128_000,
        binds_prefix: false,
        effort_markers: false,
    }
}

/// Claude 5: adaptive thinking on by default; `off` where `disabled` is taken.
const fn claude_5(can_disable: bool, default: Effort) -> AnthropicFamily {
    AnthropicFamily {
        style: ThinkingStyle::Adaptive,
        adaptive_only: true,
        thinks_by_default: true,
        can_disable,
        efforts: if can_disable { ADAPTIVE } else { ALWAYS_ON },
        default,
        max_output: 128_000,
        binds_prefix: false,
        effort_markers: false,
    }
}

/// Each known model, by tier and version (docs/decisions.md names the page
/// each row was read from).
const ROWS: &[(Version, &str, AnthropicFamily)] = &[
    ((3, 7), "sonnet", budget(64_000)),
    ((4, 0), "opus", budget(32_000)),
    ((4, 0), "sonnet", budget(64_000)),
    ((4, 5), "opus", budget(64_000)),
    ((4, 5), "sonnet", budget(64_000)),
    ((4, 5), "haiku", budget(64_000)),
    ((4, 6), "opus", adaptive(ADAPTIVE_4_6, false)),
    ((4, 6), "sonnet", adaptive(ADAPTIVE_4_6, false)),
    // Opus 4.7 and 4.8: adaptive only, still off without a `thinking` field.
    ((4, 7), "opus", adaptive(ADAPTIVE, true)),
    // Mythos Preview: always thinks; no xhigh.
    (
        (4, 9),
        "mythos",
        AnthropicFamily {
            efforts: MYTHOS_PREVIEW,
            ..claude_5(false, High)
        },
    ),
    ((5, 0), "sonnet", claude_5(true, High)),
    // Opus 5 takes `disabled` only at effort high or below: `off` sends none.
    ((5, 0), "opus", markers(claude_5(true, High))),
    ((5, 5), "opus", markers(binding(claude_5(false, Medium)))),
    // Sonnet 5.5 refuses `disabled` (its lowest setting is `between_tools`).
    ((5, 5), "sonnet", markers(binding(claude_5(false, High)))),
    ((5, 5), "haiku", markers(binding(claude_5(true, Medium)))),
    ((5, 0), "fable", claude_5(false, High)),
    ((5, 1), "fable", markers(binding(claude_5(false, High)))),
    ((5, 0), "mythos", claude_5(false, High)),
    ((5, 1), "mythos", markers(binding(claude_5(false, High)))),
];

/// A family that takes per-message effort: the models its page lists
/// (Fable and Mythos 5.1 and 5.2, Opus 5, Opus, Sonnet and Haiku 5.5).
const fn markers(family: AnthropicFamily) -> AnthropicFamily {
    AnthropicFamily {
        effort_markers: true,
        ..family
    }
}

/// A family whose thinking blocks are bound to their prefix: the models
/// the preserved-thinking pages list (Fable and Mythos 5.1 and 5.2, Opus,
/// Sonnet and Haiku 5.5); later names inherit it from their tier's row.
const fn binding(family: AnthropicFamily) -> AnthropicFamily {
    AnthropicFamily {
        binds_prefix: true,
        ..family
    }
}

/// Claude 3.5 and older: no extended thinking.
const NO_THINKING: AnthropicFamily = AnthropicFamily {
    style: ThinkingStyle::None,
    adaptive_only: false,
    thinks_by_default: false,
    can_disable: false,
    efforts: &[],
    default: Off,
    max_output: 8_192,
    binds_prefix: false,
    effort_markers: false,
};

/// The first generation that is adaptive only: every Claude 5 refuses
/// budgets ("\"thinking.type.enabled\" is not supported for this model",
/// observed on claude-sonnet-5; Bedrock's adaptive-thinking page lists
/// Opus 5, Mythos 5 and Fable 5 as adaptive only).
const ADAPTIVE_ONLY_FROM: u32 = 5;

/// The family of a Claude model name; `None` for a name that is not one (a
/// proxy's alias, the mock) or whose version cannot be read.
pub(crate) fn family_by_name(name: &str) -> Option<AnthropicFamily> {
    let (tier, version) = claude_version(name)?;
    let older = newest_not_after(ROWS, version, tier).unwrap_or(NO_THINKING);
    if version.0 < ADAPTIVE_ONLY_FROM || older.adaptive_only {
        return Some(older);
    }
    // A new generation of a known tier (`claude-haiku-5`, whose newest
    // older row is Haiku 4.5's budgets): never an older generation's way of
    // asking, but the tier's first row of that generation, else Claude 5's.
    // A generation after Fable 5.1 binds its blocks as every newer one does.
    Some(first_of_generation(tier, version.0).unwrap_or(markers(binding(claude_5(false, High)))))
}

/// The tier's earliest row of generation `major` (Haiku 5.5 for Haiku 5).
fn first_of_generation(tier: &str, major: u32) -> Option<AnthropicFamily> {
    ROWS.iter()
        .filter(|(version, t, _)| *t == tier && version.0 == major)
        .min_by_key(|(version, _, _)| *version)
        .map(|(_, _, family)| *family)
}

/// A name Pensive cannot read, asked for as the configuration says.
pub fn configured(style: ThinkingStyle) -> AnthropicFamily {
    match style {
        ThinkingStyle::Budget => budget(64_000),
        ThinkingStyle::None => NO_THINKING,
        _ => adaptive(ADAPTIVE, false),
    }
}

impl AnthropicFamily {
    /// The family's efforts.
    pub fn efforts(&self) -> Efforts {
        Efforts::new(self.efforts, self.default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn family(name: &str) -> AnthropicFamily {
        family_by_name(name).unwrap_or_else(|| panic!("{name} is a Claude model"))
    }

    #[test]
    fn names_newer_than_the_table_take_their_tiers_newest_member() {
        assert_eq!(family("claude-opus-6"), family("claude-opus-5-5"));
        assert_eq!(family("claude-fable-7"), family("claude-fable-5-1"));
        assert_eq!(family("claude-sonnet-5-1"), family("claude-sonnet-5"));
        assert_eq!(family("claude-opus-4-8"), family("claude-opus-4-7"));
        assert_eq!(family("claude-opus-4-1"), family("claude-opus-4-0"));
        assert_eq!(family("claude-haiku-6"), family("claude-haiku-5-5"));
        assert_eq!(family("claude-3-5-haiku-latest"), NO_THINKING);
        assert_eq!(family_by_name("mock-claude"), None);
    }

    #[test]
    fn a_new_generation_of_a_known_tier_is_never_asked_with_budgets() {
        // Haiku 4.5 is the newest Haiku before 5, but Claude 5 is adaptive only.
        assert_eq!(family("claude-haiku-5"), family("claude-haiku-5-5"));
        assert_eq!(family("claude-haiku-5-1"), family("claude-haiku-5-5"));
        for name in [
            "claude-haiku-5",
            "claude-haiku-6",
            "claude-sonnet-7",
            "claude-opus-6-2",
        ] {
            let family = family(name);
            assert_eq!(family.style, ThinkingStyle::Adaptive, "{name}");
            assert!(family.adaptive_only, "{name}");
        }
        assert_eq!(family("claude-haiku-4-5").style, ThinkingStyle::Budget);
    }

    #[test]
    fn thinking_is_bound_to_its_prefix_from_fable_5_1_on() {
        for name in [
            "claude-fable-5-1",
            "claude-fable-5-2",
            "claude-mythos-5-2",
            "claude-opus-5-5",
            "claude-sonnet-5-5",
            "claude-haiku-5-5",
            "claude-opus-6",
        ] {
            assert!(family(name).binds_prefix, "{name}");
        }
        for name in ["claude-fable-5", "claude-opus-5", "claude-opus-4-8"] {
            assert!(!family(name).binds_prefix, "{name}");
        }
        for name in [
            "claude-opus-5",
            "claude-fable-5-2",
            "claude-haiku-5-5",
            "claude-opus-6",
        ] {
            assert!(family(name).effort_markers, "{name}");
        }
        for name in ["claude-sonnet-5", "claude-fable-5", "claude-opus-4-8"] {
            assert!(!family(name).effort_markers, "{name}");
        }
    }
}
