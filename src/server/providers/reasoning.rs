//! Which reasoning efforts a model takes, and how its provider wants them
//! asked for: model families recognised from the dialect, the model name and
//! the base URL (docs/decisions.md lists the rules), then narrowed by the
//! configuration (`efforts`, `default_effort`, `thinking`). Each dialect's
//! request builder turns the chosen `Effort` into the provider's own words;
//! this file only decides what is allowed. Pure: no I/O.

use crate::turn::effort::list_words;
use crate::turn::{Effort, ReasoningSource};

use super::wire::{Dialect, UpstreamModel};

use Effort::{High, Low, Max, Medium, Minimal, Off, Xhigh};

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

/// How an Anthropic model is asked to think (`thinking = "…"` in the
/// configuration forces one; otherwise the model name decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThinkingStyle {
    /// `thinking: {type: "adaptive"}` + `output_config.effort` (Claude 4.6+).
    Adaptive,
    /// `thinking: {type: "enabled", budget_tokens}` (before Claude 4.6).
    Budget,
    /// No thinking parameter at all.
    None,
}

impl ThinkingStyle {
    /// Parses the configuration's `thinking` value.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "adaptive" => Some(ThinkingStyle::Adaptive),
            "budget" | "enabled" => Some(ThinkingStyle::Budget),
            "none" | "off" | "disabled" => Some(ThinkingStyle::None),
            _ => None,
        }
    }
}

/// An Anthropic model as its name (or the `thinking` key) says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnthropicFamily {
    pub style: ThinkingStyle,
    /// Takes only adaptive thinking and no sampling parameters (Opus 4.7+).
    pub adaptive_only: bool,
    /// Takes `xhigh` (Opus 4.7+).
    pub xhigh: bool,
}

/// The Claude tier and version in a model name: `claude-opus-4-7`,
/// `claude-sonnet-4-5-20250929`, `claude-3-7-sonnet-latest`, with any
/// `anthropic/` or `us.anthropic.` prefix and `@date`/`-v1:0` suffix.
fn claude_version(name: &str) -> Option<(&'static str, u32, u32)> {
    let lower = name.to_ascii_lowercase();
    let start = lower.find("claude-")?;
    let rest = &lower[start + "claude-".len()..];
    let mut tier = None;
    let mut numbers = Vec::new();
    for part in rest.split(['-', '@', ':', '.', '_']) {
        match part {
            "opus" => tier = Some("opus"),
            "sonnet" => tier = Some("sonnet"),
            "haiku" => tier = Some("haiku"),
            "mythos" => tier = Some("mythos"),
            // Dates (8 digits) and `v1` are not versions.
            p if !p.is_empty()
                && p.len() <= 2
                && p.bytes().all(|b| b.is_ascii_digit())
                && numbers.len() < 2 =>
            {
                numbers.push(p.parse::<u32>().ok()?);
            }
            _ => {}
        }
    }
    let tier = tier?;
    let major = numbers.first().copied().unwrap_or(0);
    let minor = numbers.get(1).copied().unwrap_or(0);
    Some((tier, major, minor))
}

/// The Anthropic family of `model`: the `thinking` key if set, else the name;
/// `None` for a name that is not a Claude model (a proxy's alias, the mock).
pub fn anthropic_family(model: &UpstreamModel) -> Option<AnthropicFamily> {
    let version = claude_version(&model.name);
    let (adaptive_only, xhigh, by_name) = match version {
        // Mythos (no number) and every Claude 5+: adaptive only, like Opus 4.7.
        Some(("mythos", _, _)) => (true, true, Some(ThinkingStyle::Adaptive)),
        Some((_, major, _)) if major >= 5 => (true, true, Some(ThinkingStyle::Adaptive)),
        Some(("opus", 4, minor)) if minor >= 7 => (true, true, Some(ThinkingStyle::Adaptive)),
        Some(("opus" | "sonnet", 4, 6)) => (false, false, Some(ThinkingStyle::Adaptive)),
        Some((_, 4, _)) => (false, false, Some(ThinkingStyle::Budget)),
        Some((_, 3, 7)) => (false, false, Some(ThinkingStyle::Budget)),
        // Claude 3.5 and older have no extended thinking.
        Some(_) => (false, false, Some(ThinkingStyle::None)),
        None => (false, false, None),
    };
    let style = model.thinking.or(by_name)?;
    Some(AnthropicFamily {
        style,
        adaptive_only,
        xhigh,
    })
}

/// Where a model's reasoning text comes from, as its provider sends it (the
/// README's "what you see"): OpenAI's, Gemini's and Claude 4's thinking
/// reach us summarized; open-weight models' own words come whole.
pub fn reasoning_source(dialect: Dialect, model: &UpstreamModel) -> ReasoningSource {
    let summarized = match dialect {
        Dialect::Responses | Dialect::Gemini => true,
        // Claude 3.7 returns its full thinking; every Claude 4 a summary.
        Dialect::Anthropic => !matches!(claude_version(&model.name), Some((_, 3, _))),
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

/// Gemini's two ways of controlling thought.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeminiFamily {
    /// Gemini 3+: `thinkingLevel` (Pro: low/high; Flash: minimal…high).
    Level { pro: bool },
    /// Gemini 2.5: `thinkingBudget` (0 = off on Flash and Flash-Lite, -1 = dynamic).
    Budget { pro: bool },
}

/// The Gemini family of a model name (`gemini-3-pro-preview`,
/// `models/gemini-2.5-flash`); `None` for other names.
pub fn gemini_family(name: &str) -> Option<GeminiFamily> {
    let lower = name.to_ascii_lowercase();
    let rest = &lower[lower.find("gemini-")? + "gemini-".len()..];
    let version: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let major: u32 = version.split('.').next()?.parse().ok()?;
    let pro = rest.contains("-pro");
    match major {
        3.. => Some(GeminiFamily::Level { pro }),
        2 if version.starts_with("2.5") => Some(GeminiFamily::Budget { pro }),
        _ => None,
    }
}

/// The reasoning families of OpenAI's own model names (both dialects).
pub fn openai_efforts(name: &str) -> Option<Efforts> {
    let lower = name.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    if name.starts_with("gpt-oss") {
        return Some(Efforts::new(&[Low, Medium, High], Medium));
    }
    if let Some(rest) = name.strip_prefix("gpt-") {
        let version: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let mut parts = version.split('.');
        let major: u32 = parts.next()?.parse().ok()?;
        let minor: u32 = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
        let tail = &rest[version.len()..];
        return match (major, minor) {
            (5, 0) if tail.starts_with("-pro") => Some(Efforts::new(&[High], High)),
            (5, 0) => Some(Efforts::new(&[Minimal, Low, Medium, High], Medium)),
            (5, 1) if tail.contains("codex-max") => {
                Some(Efforts::new(&[Low, Medium, High, Xhigh], Medium))
            }
            (5, 1) => Some(Efforts::new(&[Off, Low, Medium, High], Medium)),
            (5.., _) => Some(Efforts::new(&[Off, Low, Medium, High, Xhigh], Medium)),
            _ => None,
        };
    }
    // o1, o3, o3-mini, o4-mini, …
    let mut chars = name.chars();
    if chars.next() == Some('o') && chars.next().is_some_and(|c| c.is_ascii_digit()) {
        return Some(Efforts::new(&[Low, Medium, High], Medium));
    }
    None
}

/// Which server a chat-completions model is behind, for its reasoning words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatServer {
    /// api.openai.com, or an OpenAI model name (`gpt-5*`, `o3`, …) behind
    /// any other host: `reasoning_effort` in OpenAI's words.
    OpenAi,
    /// api.deepseek.com (or a DeepSeek API model name): `thinking` + `reasoning_effort`.
    DeepSeek,
    /// openrouter.ai: `reasoning: {effort}`.
    OpenRouter,
    /// A llama.cpp server (`provider = "llamacpp"`).
    LlamaCpp,
    /// Anything else OpenAI-compatible (vLLM, SGLang, LM Studio, …).
    Other,
}

/// The host of a base URL, lowercased.
fn host(base_url: &str) -> String {
    let rest = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or("");
    host.split(':').next().unwrap_or("").to_ascii_lowercase()
}

fn host_is(host: &str, domain: &str) -> bool {
    host == domain || host.ends_with(&format!(".{domain}"))
}

/// The server behind a chat-completions model.
pub fn chat_server(model: &UpstreamModel) -> ChatServer {
    if model.llamacpp {
        return ChatServer::LlamaCpp;
    }
    let host = host(&model.base_url);
    let name = model.name.to_ascii_lowercase();
    if host_is(&host, "deepseek.com")
        || ["deepseek-chat", "deepseek-reasoner", "deepseek-v4"]
            .iter()
            .any(|p| name.starts_with(p))
    {
        ChatServer::DeepSeek
    } else if host_is(&host, "openrouter.ai") {
        ChatServer::OpenRouter
    } else if host_is(&host, "openai.com")
        || (!name.contains("gpt-oss") && openai_efforts(&name).is_some())
    {
        // OpenAI's own names behind a proxy (Azure, LiteLLM) take its words too.
        ChatServer::OpenAi
    } else {
        ChatServer::Other
    }
}

/// Open-weight families whose chat template switches thinking on and off
/// (`enable_thinking`) without levels: Qwen3, QwQ, GLM 4.5+.
pub fn switch_only_family(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    ["qwen3", "qwq", "glm-4.5", "glm-4.6", "glm-4.7", "glm-5"]
        .iter()
        .any(|family| lower.contains(family))
}

/// The Ollama families: gpt-oss takes levels, the others an on/off switch.
fn ollama_efforts(name: &str) -> Option<Efforts> {
    let lower = name.to_ascii_lowercase();
    let base = lower.split(':').next().unwrap_or(&lower);
    let base = base.rsplit('/').next().unwrap_or(base);
    if base.starts_with("gpt-oss") {
        return Some(Efforts::new(&[Low, Medium, High], Medium));
    }
    let switch = ["deepseek-r1", "deepseek-v3.1", "magistral", "cogito"]
        .iter()
        .any(|family| base.starts_with(family));
    (switch || switch_only_family(base)).then(|| Efforts::new(&[Off, High], High))
}

/// The efforts a model's family takes; `None` when the family is not known
/// (the configuration's `efforts` list is then taken as written).
pub fn family_efforts(dialect: Dialect, model: &UpstreamModel) -> Option<Efforts> {
    match dialect {
        Dialect::Anthropic => {
            let family = anthropic_family(model)?;
            Some(match family.style {
                ThinkingStyle::None => Efforts::new(&[], Off),
                ThinkingStyle::Budget => Efforts::new(&[Off, Low, Medium, High], Medium),
                ThinkingStyle::Adaptive if family.xhigh => {
                    Efforts::new(&[Off, Low, Medium, High, Xhigh, Max], High)
                }
                ThinkingStyle::Adaptive => Efforts::new(&[Off, Low, Medium, High, Max], High),
            })
        }
        Dialect::Gemini => Some(match gemini_family(&model.name)? {
            GeminiFamily::Level { pro: true } => Efforts::new(&[Low, High], High),
            GeminiFamily::Level { pro: false } => Efforts::new(&[Minimal, Low, Medium, High], High),
            GeminiFamily::Budget { pro: true } => Efforts::new(&[Low, Medium, High], Medium),
            GeminiFamily::Budget { pro: false } => Efforts::new(&[Off, Low, Medium, High], Medium),
        }),
        Dialect::Responses => openai_efforts(&model.name),
        Dialect::Chat => match chat_server(model) {
            ChatServer::OpenAi => openai_efforts(&model.name),
            ChatServer::DeepSeek => Some(Efforts::new(&[Off, High, Max], High)),
            ChatServer::OpenRouter => Some(Efforts::new(
                &[Off, Minimal, Low, Medium, High, Xhigh],
                Medium,
            )),
            ChatServer::LlamaCpp => Some(Efforts::new(&[Off, Low, Medium, High], Medium)),
            ChatServer::Other if model.name.to_ascii_lowercase().contains("gpt-oss") => {
                Some(Efforts::new(&[Low, Medium, High], Medium))
            }
            ChatServer::Other if switch_only_family(&model.name) => {
                Some(Efforts::new(&[Off, High], High))
            }
            ChatServer::Other => None,
        },
        Dialect::Ollama => ollama_efforts(&model.name),
    }
}

/// The efforts a configured model offers and its default: its family's,
/// narrowed by the configuration's `efforts` and `default_effort`; the old
/// `reasoning_effort` key still names the default. `Err` is a sentence for the
/// startup error (a word the family does not take, a default not offered).
pub fn resolve(
    dialect: Dialect,
    model: &UpstreamModel,
    configured: Option<&[Effort]>,
    default: Option<Effort>,
) -> Result<(Vec<Effort>, Option<Effort>), String> {
    let family = family_efforts(dialect, model);
    let mut words = match (&family, configured) {
        (Some(family), Some(configured)) => {
            let refused: Vec<Effort> = configured
                .iter()
                .copied()
                .filter(|e| !family.words.contains(e))
                .collect();
            if !refused.is_empty() {
                return Err(format!(
                    "efforts: {} takes {}, not {}",
                    model.name,
                    taken(&family.words),
                    list_words(&refused)
                ));
            }
            configured.to_vec()
        }
        (None, Some(configured)) => configured.to_vec(),
        (Some(family), None) => family.words.clone(),
        (None, None) => Vec::new(),
    };
    words.sort();
    words.dedup();
    let legacy = model
        .reasoning_effort
        .as_deref()
        .and_then(|w| Effort::parse(w).ok())
        .filter(|e| words.contains(e));
    let chosen = match default {
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
    Ok((words, chosen))
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

    fn words(dialect: Dialect, model: &UpstreamModel) -> Option<Vec<Effort>> {
        family_efforts(dialect, model).map(|f| f.words)
    }

    #[test]
    fn claude_names_are_read_in_both_orders_with_dates_and_prefixes() {
        assert_eq!(claude_version("claude-opus-4-7"), Some(("opus", 4, 7)));
        assert_eq!(
            claude_version("claude-sonnet-4-5-20250929"),
            Some(("sonnet", 4, 5))
        );
        assert_eq!(
            claude_version("claude-opus-4-20250514"),
            Some(("opus", 4, 0))
        );
        assert_eq!(
            claude_version("claude-3-7-sonnet-latest"),
            Some(("sonnet", 3, 7))
        );
        assert_eq!(
            claude_version("us.anthropic.claude-opus-4-6-v1:0"),
            Some(("opus", 4, 6))
        );
        assert_eq!(
            claude_version("anthropic/claude-haiku-4.5"),
            Some(("haiku", 4, 5))
        );
        assert_eq!(claude_version("mock-model"), None);
    }

    #[test]
    fn anthropic_families_follow_the_version_and_the_thinking_key() {
        let family = |name: &str| anthropic_family(&named(name));
        let only = family("claude-opus-4-7").unwrap();
        assert_eq!(only.style, ThinkingStyle::Adaptive);
        assert!(only.adaptive_only && only.xhigh);
        let sonnet46 = family("claude-sonnet-4-6").unwrap();
        assert_eq!(sonnet46.style, ThinkingStyle::Adaptive);
        assert!(!sonnet46.adaptive_only && !sonnet46.xhigh);
        assert_eq!(
            family("claude-sonnet-4-5").unwrap().style,
            ThinkingStyle::Budget
        );
        assert_eq!(
            family("claude-3-7-sonnet-latest").unwrap().style,
            ThinkingStyle::Budget
        );
        assert_eq!(
            family("claude-3-5-haiku-latest").unwrap().style,
            ThinkingStyle::None
        );
        assert!(family("claude-opus-5").unwrap().adaptive_only);
        assert_eq!(family("mock-model"), None);
        let forced = UpstreamModel {
            thinking: Some(ThinkingStyle::Budget),
            ..named("claude-opus-4-7")
        };
        let forced = anthropic_family(&forced).unwrap();
        assert_eq!(forced.style, ThinkingStyle::Budget);
        assert!(forced.adaptive_only, "the model's own rules stay known");
        assert_eq!(
            words(Dialect::Anthropic, &named("claude-opus-4-7")),
            Some(vec![Off, Low, Medium, High, Xhigh, Max])
        );
        assert_eq!(
            words(Dialect::Anthropic, &named("claude-sonnet-4-6")),
            Some(vec![Off, Low, Medium, High, Max])
        );
    }

    #[test]
    fn gemini_families_split_levels_from_budgets() {
        assert_eq!(
            gemini_family("gemini-3-pro-preview"),
            Some(GeminiFamily::Level { pro: true })
        );
        assert_eq!(
            gemini_family("gemini-3.5-flash"),
            Some(GeminiFamily::Level { pro: false })
        );
        assert_eq!(
            gemini_family("models/gemini-2.5-pro"),
            Some(GeminiFamily::Budget { pro: true })
        );
        assert_eq!(
            gemini_family("gemini-2.5-flash-lite"),
            Some(GeminiFamily::Budget { pro: false })
        );
        assert_eq!(gemini_family("gemini-2.0-flash"), None);
        assert_eq!(
            words(Dialect::Gemini, &named("gemini-3-pro-preview")),
            Some(vec![Low, High])
        );
        assert_eq!(
            words(Dialect::Gemini, &named("gemini-2.5-pro")),
            Some(vec![Low, Medium, High])
        );
    }

    #[test]
    fn openai_families_take_their_documented_words() {
        let r = |name: &str| words(Dialect::Responses, &named(name));
        assert_eq!(r("gpt-5"), Some(vec![Minimal, Low, Medium, High]));
        assert_eq!(r("gpt-5-mini"), Some(vec![Minimal, Low, Medium, High]));
        assert_eq!(r("gpt-5-pro"), Some(vec![High]));
        assert_eq!(r("gpt-5.1"), Some(vec![Off, Low, Medium, High]));
        assert_eq!(r("gpt-5.1-codex-max"), Some(vec![Low, Medium, High, Xhigh]));
        assert_eq!(r("gpt-5.2"), Some(vec![Off, Low, Medium, High, Xhigh]));
        assert_eq!(r("o4-mini"), Some(vec![Low, Medium, High]));
        assert_eq!(r("gpt-4.1"), None);
        assert_eq!(r("mock-model"), None);
    }

    #[test]
    fn chat_servers_are_told_apart_by_host_and_name() {
        let at = |base: &str, name: &str| UpstreamModel {
            base_url: base.into(),
            ..named(name)
        };
        assert_eq!(
            chat_server(&at("https://api.deepseek.com", "deepseek-v4-flash")),
            ChatServer::DeepSeek
        );
        assert_eq!(
            chat_server(&at("http://proxy.local/v1", "deepseek-reasoner")),
            ChatServer::DeepSeek
        );
        assert_eq!(
            chat_server(&at("https://openrouter.ai/api/v1", "openai/gpt-5")),
            ChatServer::OpenRouter
        );
        assert_eq!(
            chat_server(&at("https://api.openai.com/v1", "gpt-5")),
            ChatServer::OpenAi
        );
        assert_eq!(
            chat_server(&at("http://user@evil-openai.com.example:8000/v1", "x")),
            ChatServer::Other
        );
        let llama = UpstreamModel {
            llamacpp: true,
            ..at("http://localhost:8080/v1", "qwen3")
        };
        assert_eq!(chat_server(&llama), ChatServer::LlamaCpp);
        assert_eq!(
            words(
                Dialect::Chat,
                &at("http://localhost:8000/v1", "Qwen/Qwen3-8B")
            ),
            Some(vec![Off, High])
        );
        assert_eq!(
            words(Dialect::Chat, &at("http://localhost:8000/v1", "mock-model")),
            None
        );
    }

    #[test]
    fn ollama_families_take_levels_or_a_switch() {
        assert_eq!(
            words(Dialect::Ollama, &named("gpt-oss:20b")),
            Some(vec![Low, Medium, High])
        );
        assert_eq!(
            words(Dialect::Ollama, &named("qwen3:8b")),
            Some(vec![Off, High])
        );
        assert_eq!(words(Dialect::Ollama, &named("llama3.2")), None);
    }

    #[test]
    fn configuration_narrows_the_family_and_names_the_default() {
        let opus = named("claude-opus-4-7");
        assert_eq!(
            resolve(Dialect::Anthropic, &opus, None, None),
            Ok((vec![Off, Low, Medium, High, Xhigh, Max], Some(High)))
        );
        assert_eq!(
            resolve(Dialect::Anthropic, &opus, Some(&[High, Low]), None),
            Ok((vec![Low, High], Some(High)))
        );
        assert_eq!(
            resolve(Dialect::Anthropic, &opus, Some(&[Low, Medium]), None),
            Ok((vec![Low, Medium], Some(Medium))),
            "the nearest word below the family's default"
        );
        assert_eq!(
            resolve(Dialect::Anthropic, &opus, Some(&[Low, High]), Some(Low)),
            Ok((vec![Low, High], Some(Low)))
        );
        let refused = resolve(Dialect::Anthropic, &opus, Some(&[Minimal]), None).unwrap_err();
        assert!(refused.contains("not minimal"), "{refused}");
        let not_offered = resolve(Dialect::Anthropic, &opus, Some(&[Low]), Some(High));
        assert!(not_offered.unwrap_err().contains("default_effort"));
        let legacy = UpstreamModel {
            reasoning_effort: Some("Low".into()),
            ..named("gpt-5")
        };
        assert_eq!(
            resolve(Dialect::Responses, &legacy, None, None),
            Ok((vec![Minimal, Low, Medium, High], Some(Low)))
        );
        let unknown = named("mock-model");
        assert_eq!(
            resolve(Dialect::Chat, &unknown, None, None),
            Ok((vec![], None))
        );
        assert_eq!(
            resolve(Dialect::Chat, &unknown, Some(&[High, Off]), None),
            Ok((vec![Off, High], Some(High))),
            "off is never chosen for the user"
        );
    }
}
