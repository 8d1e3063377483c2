//! Which reasoning efforts a model takes, and how its provider wants them
//! asked for: model families recognised from the dialect, the model name and
//! the base URL (one file per provider's families, each row with its source
//! in docs/decisions.md), then what the provider's model list says
//! (`discovery`), then the configuration (`efforts`, `default_effort`,
//! `thinking`), which wins. Each dialect's request builder turns the chosen
//! `Effort` into the provider's own words; this module only decides what is
//! offered. Pure: no I/O.

mod anthropic;
#[cfg(test)]
mod checks;
mod gemini;
pub(crate) mod names;
mod open_weight;
mod openai;

pub(crate) use anthropic::AnthropicFamily;
pub(crate) use gemini::{gemini_family, GeminiFamily};
pub(crate) use open_weight::{chat_efforts, chat_server, switch_only_family, ChatServer};
pub(crate) use openai::openai_efforts;

use crate::turn::effort::list_words;
use crate::turn::{Effort, ReasoningSource};

use super::wire::{Dialect, UpstreamModel};
// How a model thinks and where its efforts came from are fields of the
// request's `UpstreamModel` (the wire's vocabulary); named here too, beside
// the families that decide them.
pub use super::wire::{EffortsSource, ThinkingStyle};

use Effort::{Medium, Off};

/// What a model family takes: its words (weakest first) and its default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Efforts {
    pub words: Vec<Effort>,
    pub default: Effort,
}

impl Efforts {
    fn new(words: &[Effort], default: Effort) -> Self {
        Self {
            words: words.to_vec(),
            default,
        }
    }
}

/// The Anthropic family of `model`: by its name, with the configuration's
/// `thinking` style forced over it; `None` for a name Pensive cannot read
/// and no style configured (the provider's default: no `thinking` field).
pub fn anthropic_family(model: &UpstreamModel) -> Option<AnthropicFamily> {
    match (anthropic::family_by_name(&model.name), model.thinking) {
        (Some(family), Some(style)) => Some(AnthropicFamily {
            style,
            // Forced off: no effort can be asked for.
            efforts: if style == ThinkingStyle::None {
                &[]
            } else {
                family.efforts
            },
            ..family
        }),
        (Some(family), None) => Some(family),
        (None, Some(style)) => Some(anthropic::configured(style)),
        (None, None) => None,
    }
}

/// Where a model's reasoning text comes from, as its provider sends it (the
/// README's "what you see"): OpenAI's, Gemini's and Claude 4+'s thinking
/// reach us summarized; open-weight models' own words come whole.
pub fn reasoning_source(dialect: Dialect, model: &UpstreamModel) -> ReasoningSource {
    let summarized = match dialect {
        Dialect::Responses | Dialect::Gemini => true,
        // Claude 3.7 returns its full thinking; every later Claude a summary.
        Dialect::Anthropic => !matches!(names::claude_version(&model.name), Some((_, (3, _)))),
        Dialect::Chat => match chat_server(model) {
            ChatServer::OpenAi => true,
            // OpenRouter passes on what the model's maker sends.
            ChatServer::OpenRouter => {
                let name = model.name.to_ascii_lowercase();
                ["openai/", "anthropic/", "google/"]
                    .iter()
                    .any(|maker| name.starts_with(maker))
            }
            _ => false,
        },
        Dialect::Ollama => false,
    };
    if summarized {
        ReasoningSource::Summary
    } else {
        ReasoningSource::Full
    }
}

/// The efforts a model's family takes; `None` when the family is not known
/// (the configuration's `efforts` list is then taken as written).
pub fn family_efforts(dialect: Dialect, model: &UpstreamModel) -> Option<Efforts> {
    match dialect {
        Dialect::Anthropic => anthropic_family(model).map(|f| f.efforts()),
        Dialect::Gemini => gemini_family(&model.name).map(GeminiFamily::efforts),
        Dialect::Responses => openai_efforts(&model.name),
        Dialect::Chat => chat_efforts(model),
        Dialect::Ollama => open_weight::ollama_efforts(&model.name),
    }
}

/// What a provider's model list said about a model (`discovery`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProviderFacts {
    /// The model thinks (Ollama `capabilities` has `thinking`, OpenRouter's
    /// `supported_parameters` has `reasoning`, Gemini's `thinking` is true).
    pub thinks: Option<bool>,
    /// The model takes tools (Ollama `capabilities` has `tools`,
    /// OpenRouter's `supported_parameters` has `tools`); `None`: not said.
    pub takes_tools: Option<bool>,
    /// The words the model takes and its default, where the list names them
    /// (Ollama `/api/show`'s `thinking: {values, default}`); they win over
    /// the family table, which only guesses from the name.
    pub levels: Option<Efforts>,
}

/// The words an unknown family that its provider says thinks is offered.
fn thinking_switch(dialect: Dialect) -> Option<Efforts> {
    match dialect {
        Dialect::Ollama | Dialect::Chat => Some(Efforts::new(&[Off, Effort::High], Effort::High)),
        _ => None,
    }
}

/// The efforts a configured model offers, its default, and where the words
/// came from: the configuration's `efforts` (taken as written: it may widen
/// the family as well as narrow it), else what the provider's model list
/// says, else the family table. `Err` is a sentence for the startup error
/// (a default that is not offered).
pub fn resolve(
    dialect: Dialect,
    model: &UpstreamModel,
    facts: ProviderFacts,
) -> Result<(Vec<Effort>, Option<Effort>, EffortsSource), String> {
    // Words the provider lists stand in for the family's guess.
    let listed = facts.levels.is_some();
    let family = facts.levels.or_else(|| family_efforts(dialect, model));
    let (mut words, source) = match (&model.configured_efforts, facts.thinks, &family) {
        (Some(configured), _, _) => (configured.clone(), EffortsSource::Config),
        (None, Some(false), _) => (Vec::new(), EffortsSource::Provider),
        (None, _, Some(family)) if listed => (family.words.clone(), EffortsSource::Provider),
        (None, Some(true), Some(family)) => (family.words.clone(), EffortsSource::Table),
        (None, Some(true), None) => match thinking_switch(dialect) {
            Some(switch) => (switch.words, EffortsSource::Provider),
            None => (Vec::new(), EffortsSource::Unknown),
        },
        (None, None, Some(family)) => (family.words.clone(), EffortsSource::Table),
        (None, None, None) => (Vec::new(), EffortsSource::Unknown),
    };
    words.sort();
    words.dedup();
    let legacy = model
        .reasoning_effort
        .as_deref()
        .and_then(|w| Effort::parse(w).ok())
        .filter(|e| words.contains(e));
    let chosen = match model.configured_default {
        Some(default) if words.contains(&default) => Some(default),
        Some(default) => {
            return Err(format!(
                "default_effort: {default} is not among the efforts of {} ({})",
                model.name,
                taken(&words)
            ))
        }
        None => legacy.or_else(|| {
            let preferred = family.as_ref().map_or(Medium, |f| f.default);
            let on = || words.iter().copied().filter(|e| *e != Off);
            on().rfind(|e| *e <= preferred)
                .or_else(|| on().next())
                .or_else(|| words.first().copied())
        }),
    };
    Ok((words, chosen, source))
}

/// Whether `off` really stops the model thinking: the family says so, or
/// (a family Pensive does not know) the configuration offered it.
fn off_stops_thinking(dialect: Dialect, model: &UpstreamModel) -> bool {
    family_efforts(dialect, model).is_none_or(|family| family.words.contains(&Off))
}

/// The effort "Answer now" and "Continue" ask at: the weakest at which the
/// model answers without thinking again (`off`, where the family can turn
/// thinking off), else the lowest the model offers; `None` when it offers none.
pub fn no_thinking_effort(dialect: Dialect, model: &UpstreamModel) -> Option<Effort> {
    let offered = &model.efforts;
    if offered.contains(&Off) && off_stops_thinking(dialect, model) {
        return Some(Off);
    }
    offered.iter().copied().find(|e| *e != Off)
}

/// The output limit Pensive sends when the configuration sets none, where the
/// API requires one (Anthropic's `max_tokens`): it grows with the effort, so
/// that thinking hard leaves room for the answer, within the model's maximum.
/// Elsewhere `None`: the provider's own limit (the model's maximum) applies.
pub fn output_limit(
    dialect: Dialect,
    model: &UpstreamModel,
    effort: Option<Effort>,
) -> Option<u32> {
    if let Some(configured) = model.max_output_tokens {
        return Some(configured);
    }
    if dialect != Dialect::Anthropic {
        return None;
    }
    let by_effort = match effort {
        None | Some(Effort::Off | Effort::Minimal | Effort::Low | Effort::Medium) => 16_000,
        Some(Effort::High) => 32_000,
        Some(Effort::Xhigh) => 64_000,
        Some(Effort::Max) => 128_000,
    };
    // A name Pensive cannot read keeps the limit every Claude takes.
    let most = anthropic::family_by_name(&model.name).map_or(16_000, |f| f.max_output);
    Some(by_effort.min(most))
}

/// Why Pensive offers no tools to `model` at `effort`, as a sentence for the
/// log and the Tools panel; `None`: its tools are offered.
pub fn why_no_tools(
    dialect: Dialect,
    model: &UpstreamModel,
    effort: Option<Effort>,
) -> Option<&'static str> {
    // Only OpenAI's Chat Completions refuses tools by effort (behind a
    // proxy too: the model's rules travel with its name).
    if dialect != Dialect::Chat || chat_server(model) != ChatServer::OpenAi {
        return None;
    }
    openai::chat_tools_refusal(&model.name, effort)
}

/// "low, medium or high", or "no effort" for an empty list.
fn taken(words: &[Effort]) -> String {
    if words.is_empty() {
        "no effort".into()
    } else {
        list_words(words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str) -> UpstreamModel {
        UpstreamModel {
            name: name.into(),
            ..UpstreamModel::default()
        }
    }

    #[test]
    fn summaries_are_told_from_full_reasoning_by_provider_and_model() {
        use ReasoningSource::{Full, Summary};
        let at = |base_url: &str, name: &str| UpstreamModel {
            base_url: base_url.into(),
            ..named(name)
        };
        for (dialect, model, source) in [
            (Dialect::Responses, named("gpt-5.2"), Summary),
            (Dialect::Gemini, named("gemini-3-pro-preview"), Summary),
            (Dialect::Anthropic, named("claude-opus-4-7"), Summary),
            (Dialect::Anthropic, named("claude-sonnet-4-5"), Summary),
            (Dialect::Anthropic, named("claude-3-7-sonnet-latest"), Full),
            (
                Dialect::Chat,
                at("https://api.deepseek.com/v1", "deepseek-v4-pro"),
                Full,
            ),
            (
                Dialect::Chat,
                at("http://127.0.0.1:8000/v1", "Qwen/Qwen3-8B"),
                Full,
            ),
            (
                Dialect::Chat,
                at("https://openrouter.ai/api/v1", "deepseek/deepseek-r1"),
                Full,
            ),
            (
                Dialect::Chat,
                at("https://openrouter.ai/api/v1", "anthropic/claude-opus-4.7"),
                Summary,
            ),
            (
                Dialect::Chat,
                at("https://api.openai.com/v1", "gpt-5.2"),
                Summary,
            ),
            (Dialect::Ollama, named("qwen3:8b"), Full),
        ] {
            assert_eq!(
                reasoning_source(dialect, &model),
                source,
                "{dialect:?} {}",
                model.name
            );
        }
    }

    fn configured(
        name: &str,
        efforts: Option<&[Effort]>,
        default: Option<Effort>,
    ) -> UpstreamModel {
        UpstreamModel {
            configured_efforts: efforts.map(<[Effort]>::to_vec),
            configured_default: default,
            ..named(name)
        }
    }

    #[test]
    fn the_thinking_key_forces_the_style_and_keeps_the_models_rules() {
        let forced = UpstreamModel {
            thinking: Some(ThinkingStyle::Budget),
            ..named("claude-opus-4-7")
        };
        let family = anthropic_family(&forced).unwrap();
        assert_eq!(family.style, ThinkingStyle::Budget);
        assert!(family.adaptive_only, "the model's own rules stay known");
        assert_eq!(
            family.efforts.len(),
            6,
            "forced budgets keep the model's words"
        );
        let silenced = UpstreamModel {
            thinking: Some(ThinkingStyle::None),
            ..named("claude-opus-4-7")
        };
        assert!(anthropic_family(&silenced).unwrap().efforts.is_empty());
        assert_eq!(anthropic_family(&named("mock-claude")), None);
        let alias = UpstreamModel {
            thinking: Some(ThinkingStyle::Adaptive),
            ..named("house-claude")
        };
        assert_eq!(
            anthropic_family(&alias).unwrap().style,
            ThinkingStyle::Adaptive
        );
        // An alias configured for budgets is asked with budgets, and offers their words.
        let budget_alias = UpstreamModel {
            thinking: Some(ThinkingStyle::Budget),
            ..named("house-claude")
        };
        let budget = anthropic_family(&budget_alias).unwrap();
        assert_eq!(budget.style, ThinkingStyle::Budget);
        assert_eq!(
            budget.efforts,
            &[Effort::Off, Effort::Low, Effort::Medium, Effort::High]
        );
        let none_alias = UpstreamModel {
            thinking: Some(ThinkingStyle::None),
            ..named("house-claude")
        };
        assert!(anthropic_family(&none_alias).unwrap().efforts.is_empty());
        for dialect in Dialect::ALL {
            assert!(ThinkingStyle::of_dialect(dialect).contains(&ThinkingStyle::None));
        }
        for style in [
            "adaptive", "budget", "level", "effort", "template", "switch", "none",
        ] {
            assert_eq!(
                ThinkingStyle::from_name(style).map(ThinkingStyle::name),
                Some(style)
            );
        }
    }

    #[test]
    fn configuration_narrows_or_widens_the_family_and_names_the_default() {
        use Effort::*;
        let none = ProviderFacts::default;
        let opus = "claude-opus-4-7";
        assert_eq!(
            resolve(Dialect::Anthropic, &configured(opus, None, None), none()),
            Ok((
                vec![Off, Low, Medium, High, Xhigh, Max],
                Some(High),
                EffortsSource::Table
            ))
        );
        assert_eq!(
            resolve(
                Dialect::Anthropic,
                &configured(opus, Some(&[High, Low]), None),
                none()
            ),
            Ok((vec![Low, High], Some(High), EffortsSource::Config))
        );
        assert_eq!(
            resolve(
                Dialect::Anthropic,
                &configured(opus, Some(&[Low, Medium]), None),
                none()
            ),
            Ok((vec![Low, Medium], Some(Medium), EffortsSource::Config)),
            "the nearest word below the family's default"
        );
        assert_eq!(
            resolve(
                Dialect::Gemini,
                &configured("gemini-3-pro", Some(&[Low, Medium, High]), None),
                none()
            ),
            Ok((vec![Low, Medium, High], Some(High), EffortsSource::Config)),
            "a word the table lacks is offered when configured"
        );
        let not_offered = resolve(
            Dialect::Anthropic,
            &configured(opus, Some(&[Low]), Some(High)),
            none(),
        );
        assert!(not_offered.unwrap_err().contains("default_effort"));
        let legacy = UpstreamModel {
            reasoning_effort: Some("Low".into()),
            ..named("gpt-5")
        };
        assert_eq!(
            resolve(Dialect::Responses, &legacy, none()),
            Ok((
                vec![Minimal, Low, Medium, High],
                Some(Low),
                EffortsSource::Table
            ))
        );
        let unknown = configured("house-model", None, None);
        assert_eq!(
            resolve(Dialect::Chat, &unknown, none()),
            Ok((vec![], None, EffortsSource::Unknown))
        );
        assert_eq!(
            resolve(
                Dialect::Chat,
                &configured("house-model", Some(&[High, Off]), None),
                none()
            ),
            Ok((vec![Off, High], Some(High), EffortsSource::Config)),
            "off is never chosen for the user"
        );
    }

    #[test]
    fn what_the_provider_says_wins_over_the_table_and_loses_to_the_config() {
        use Effort::*;
        let thinks = |yes| ProviderFacts {
            thinks: Some(yes),
            ..ProviderFacts::default()
        };
        let qwen = configured("qwen3:8b", None, None);
        assert_eq!(
            resolve(Dialect::Ollama, &qwen, thinks(false)),
            Ok((vec![], None, EffortsSource::Provider))
        );
        assert_eq!(
            resolve(Dialect::Ollama, &qwen, thinks(true)),
            Ok((vec![Off, High], Some(High), EffortsSource::Table))
        );
        let newcomer = configured("smollm4:3b", None, None);
        assert_eq!(
            resolve(Dialect::Ollama, &newcomer, thinks(true)),
            Ok((vec![Off, High], Some(High), EffortsSource::Provider))
        );
        assert_eq!(
            resolve(
                Dialect::Gemini,
                &configured("gemini-exp", None, None),
                thinks(true)
            ),
            Ok((vec![], None, EffortsSource::Unknown)),
            "Gemini's list does not say levels or budgets"
        );
        let listed = configured("qwen3:8b", Some(&[Low]), None);
        assert_eq!(
            resolve(Dialect::Ollama, &listed, thinks(false)),
            Ok((vec![Low], Some(Low), EffortsSource::Config))
        );
        // Levels the list names are the provider's word, whatever else it
        // says or does not (a mutant reading them as the table's was missed).
        for said in [None, Some(true)] {
            let levels = ProviderFacts {
                thinks: said,
                levels: Some(Efforts::new(&[Low, Medium, High], Medium)),
                ..ProviderFacts::default()
            };
            assert_eq!(
                resolve(Dialect::Ollama, &qwen, levels),
                Ok((
                    vec![Low, Medium, High],
                    Some(Medium),
                    EffortsSource::Provider
                )),
                "thinks: {said:?}"
            );
        }
    }

    #[test]
    fn answer_now_asks_at_off_only_where_off_stops_the_thinking() {
        use Effort::*;
        let offering = |name: &str, words: &[Effort]| UpstreamModel {
            efforts: words.to_vec(),
            ..named(name)
        };
        let claude5 = offering("claude-opus-5", &[Off, Low, High]);
        assert_eq!(no_thinking_effort(Dialect::Anthropic, &claude5), Some(Off));
        let fable = offering("claude-fable-5-1", &[Low, High]);
        assert_eq!(no_thinking_effort(Dialect::Anthropic, &fable), Some(Low));
        // Off widened into a model that cannot turn thinking off: not used.
        let widened = offering("claude-opus-5-5", &[Off, Low, High]);
        assert_eq!(no_thinking_effort(Dialect::Anthropic, &widened), Some(Low));
        let codex = offering("gpt-5.1-codex", &[Low, Medium]);
        assert_eq!(no_thinking_effort(Dialect::Responses, &codex), Some(Low));
        let house = offering("house", &[Off, High]);
        assert_eq!(no_thinking_effort(Dialect::Chat, &house), Some(Off));
        assert_eq!(no_thinking_effort(Dialect::Chat, &named("house")), None);
    }

    #[test]
    fn anthropics_output_limit_grows_with_the_effort_within_the_models_maximum() {
        use Effort::*;
        let limit = |name: &str, effort| output_limit(Dialect::Anthropic, &named(name), effort);
        assert_eq!(limit("claude-opus-5", None), Some(16_000));
        assert_eq!(limit("claude-opus-5", Some(Medium)), Some(16_000));
        assert_eq!(limit("claude-opus-5", Some(High)), Some(32_000));
        assert_eq!(limit("claude-opus-5", Some(Xhigh)), Some(64_000));
        assert_eq!(limit("claude-opus-5", Some(Max)), Some(128_000));
        assert_eq!(limit("claude-sonnet-4-5", Some(High)), Some(32_000));
        assert_eq!(limit("claude-opus-4-1", Some(Max)), Some(32_000));
        assert_eq!(limit("claude-3-5-haiku-latest", Some(High)), Some(8_192));
        assert_eq!(limit("mock-claude", Some(Max)), Some(16_000));
        let configured = UpstreamModel {
            max_output_tokens: Some(5_000),
            ..named("claude-opus-5")
        };
        assert_eq!(
            output_limit(Dialect::Anthropic, &configured, Some(Max)),
            Some(5_000)
        );
        assert_eq!(
            output_limit(Dialect::Gemini, &named("gemini-3-pro"), Some(High)),
            None
        );
    }
}
