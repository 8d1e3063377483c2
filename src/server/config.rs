//! Server configuration from the environment (DESIGN §6). Secrets (API key,
//! upstream URL) stay in here and in the providers: nothing public is derived
//! from them except through `PublicModel`.

use std::time::Duration;

use super::providers::wire::Dialect;
use super::scripted::Pace;
use super::tags::TagSet;
use crate::app::api::PublicModel;

/// Where a model's turns come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// The built-in scripted demo model.
    Demo,
    /// A provider speaking this wire dialect.
    Wire(Dialect),
}

impl ProviderKind {
    /// Parses `PENSIVE_PROVIDER` (`openai` = chat completions).
    pub fn from_name(name: &str) -> Option<Self> {
        if name.trim().eq_ignore_ascii_case("demo") {
            return Some(ProviderKind::Demo);
        }
        Dialect::from_name(name).map(ProviderKind::Wire)
    }

    /// The name logged per turn.
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::Demo => "demo",
            ProviderKind::Wire(dialect) => dialect.name(),
        }
    }
}

/// A model the user can pick.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelConfig {
    /// The id the browser sends (`request.model`).
    pub id: String,
    /// What the UI shows.
    pub label: String,
    pub provider: ProviderKind,
    pub base_url: String,
    pub api_key: Option<String>,
    /// The model name sent upstream.
    pub upstream_model: String,
    pub max_output_tokens: Option<u32>,
    /// Reasoning effort for providers that take one (`low`, `medium`, `high`).
    pub reasoning_effort: Option<String>,
    /// Thinking token budget for providers that take one (Anthropic, Gemini).
    pub thinking_budget: Option<u32>,
    /// Pace of the demo model's script.
    pub demo_pace: Pace,
    /// Inline reasoning tags extracted from answer text.
    pub tags: TagSet,
    /// The model's output starts inside a thinking block (prefilled `<think>`).
    pub start_in_thinking: bool,
}

impl ModelConfig {
    /// The built-in demo model at the given pace.
    pub fn demo(pace: Pace) -> Self {
        Self {
            id: "demo".into(),
            label: "Demo model (scripted)".into(),
            provider: ProviderKind::Demo,
            base_url: String::new(),
            api_key: None,
            upstream_model: "demo".into(),
            max_output_tokens: None,
            reasoning_effort: None,
            thinking_budget: None,
            demo_pace: pace,
            tags: TagSet::default(),
            start_in_thinking: false,
        }
    }

    /// What the browser may know about this model.
    pub fn public(&self) -> PublicModel {
        PublicModel {
            id: self.id.clone(),
            label: self.label.clone(),
            demo: self.provider == ProviderKind::Demo,
        }
    }
}

/// Everything the server needs to run turns.
#[derive(Debug, Clone, PartialEq)]
pub struct AppConfig {
    /// Configured models; the first is the default. Never empty.
    pub models: Vec<ModelConfig>,
    /// A turn that receives nothing for this long ends with a timeout error.
    pub first_token_timeout: Duration,
    /// `PENSIVE_SHOW_THINKING=0`: reasoning is counted but never sent.
    pub show_thinking: bool,
}

/// A setting that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{name} has an invalid value {value:?}: {why}")]
    Invalid {
        name: &'static str,
        value: String,
        why: &'static str,
    },
    #[error("PENSIVE_TAGS: {0}")]
    Tags(#[from] super::tags::TagError),
    #[error("PENSIVE_PROVIDER={0} needs PENSIVE_BASE_URL (or OPENAI_BASE_URL) and PENSIVE_MODEL")]
    Incomplete(String),
}

impl AppConfig {
    /// Reads the process environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
    }

    /// Reads settings through `get` (the environment, or a map in tests).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let pace = match get("PENSIVE_DEMO_PACE") {
            Some(v) => Pace::scaled(parse_number(&v, "PENSIVE_DEMO_PACE")?),
            None => Pace::REALISTIC,
        };
        let base_url = get("PENSIVE_BASE_URL").or_else(|| get("OPENAI_BASE_URL"));
        let api_key = get("PENSIVE_API_KEY").or_else(|| get("OPENAI_API_KEY"));
        let upstream_model = get("PENSIVE_MODEL");
        let provider = match get("PENSIVE_PROVIDER") {
            None if base_url.is_some() && upstream_model.is_some() => {
                ProviderKind::Wire(Dialect::Chat)
            }
            None => ProviderKind::Demo,
            Some(name) => ProviderKind::from_name(&name).ok_or(ConfigError::Invalid {
                name: "PENSIVE_PROVIDER",
                value: name.clone(),
                why: "expected demo, openai, responses, anthropic, gemini or ollama",
            })?,
        };
        let max_output_tokens = get("PENSIVE_MAX_OUTPUT_TOKENS")
            .map(|v| parse_number(&v, "PENSIVE_MAX_OUTPUT_TOKENS").map(|n| n as u32))
            .transpose()?;
        let tags = match get("PENSIVE_TAGS") {
            Some(list) if list.trim() == "none" => TagSet::none(),
            Some(list) => TagSet::parse_list(&list)?,
            None => TagSet::default(),
        };
        let start_in_thinking = is_truthy(get("PENSIVE_START_IN_THINKING").as_deref());
        let model = match provider {
            ProviderKind::Demo => ModelConfig::demo(pace),
            ProviderKind::Wire(dialect) => {
                let (Some(base_url), Some(upstream_model)) = (base_url, upstream_model) else {
                    return Err(ConfigError::Incomplete(dialect.name().into()));
                };
                ModelConfig {
                    id: upstream_model.clone(),
                    label: upstream_model.clone(),
                    provider,
                    base_url,
                    api_key,
                    upstream_model,
                    max_output_tokens,
                    reasoning_effort: get("PENSIVE_REASONING_EFFORT"),
                    thinking_budget: get("PENSIVE_THINKING_BUDGET")
                        .map(|v| parse_number(&v, "PENSIVE_THINKING_BUDGET").map(|n| n as u32))
                        .transpose()?,
                    demo_pace: pace,
                    tags,
                    start_in_thinking,
                }
            }
        };
        let first_token_timeout = match get("PENSIVE_FIRST_TOKEN_TIMEOUT_SECS") {
            Some(v) => {
                Duration::from_secs_f64(parse_number(&v, "PENSIVE_FIRST_TOKEN_TIMEOUT_SECS")?)
            }
            None => Duration::from_secs(120),
        };
        let show_thinking = !matches!(
            get("PENSIVE_SHOW_THINKING").as_deref(),
            Some("0") | Some("false") | Some("off") | Some("no")
        );
        Ok(Self {
            models: vec![model],
            first_token_timeout,
            show_thinking,
        })
    }

    /// The model a request names, or the default; `None` for an unknown id.
    pub fn model(&self, id: Option<&str>) -> Option<&ModelConfig> {
        match id {
            None => self.models.first(),
            Some(id) => self.models.iter().find(|m| m.id == id),
        }
    }
}

fn is_truthy(value: Option<&str>) -> bool {
    matches!(value, Some("1") | Some("true") | Some("yes") | Some("on"))
}

fn parse_number(value: &str, name: &'static str) -> Result<f64, ConfigError> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && *n >= 0.0)
        .ok_or(ConfigError::Invalid {
            name,
            value: value.into(),
            why: "expected a non-negative number",
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(pairs: &[(&str, &str)]) -> Result<AppConfig, ConfigError> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        AppConfig::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn nothing_configured_means_the_demo_model() {
        let c = config(&[]).unwrap();
        assert_eq!(c.models.len(), 1);
        assert_eq!(c.models[0].provider, ProviderKind::Demo);
        assert!(c.models[0].public().demo);
        assert_eq!(c.first_token_timeout, Duration::from_secs(120));
        assert!(c.show_thinking);
    }

    #[test]
    fn openai_fallback_variables_select_chat_completions() {
        let c = config(&[
            ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
            ("OPENAI_API_KEY", "sk-test"),
            ("PENSIVE_MODEL", "deepseek-reasoner"),
        ])
        .unwrap();
        let m = &c.models[0];
        assert_eq!(m.provider, ProviderKind::Wire(Dialect::Chat));
        assert_eq!(m.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(m.api_key.as_deref(), Some("sk-test"));
        assert_eq!(c.model(Some("deepseek-reasoner")), Some(m));
        assert_eq!(c.model(Some("other")), None);
    }

    #[test]
    fn pensive_variables_win_over_openai_fallbacks() {
        let c = config(&[
            ("PENSIVE_BASE_URL", "http://a/v1"),
            ("OPENAI_BASE_URL", "http://b/v1"),
            ("PENSIVE_MODEL", "m"),
        ])
        .unwrap();
        assert_eq!(c.models[0].base_url, "http://a/v1");
    }

    #[test]
    fn bad_values_are_reported_by_name() {
        let err = config(&[("PENSIVE_FIRST_TOKEN_TIMEOUT_SECS", "soon")]).unwrap_err();
        assert!(err.to_string().contains("PENSIVE_FIRST_TOKEN_TIMEOUT_SECS"));
        assert!(config(&[("PENSIVE_PROVIDER", "openai")]).is_err());
        assert!(config(&[("PENSIVE_PROVIDER", "smoke-signals")]).is_err());
    }

    #[test]
    fn kill_switch_turns_thinking_off() {
        assert!(
            !config(&[("PENSIVE_SHOW_THINKING", "0")])
                .unwrap()
                .show_thinking
        );
    }

    #[test]
    fn the_public_view_of_a_model_has_no_secrets() {
        let c = config(&[
            ("PENSIVE_BASE_URL", "http://secret-host/v1"),
            ("PENSIVE_API_KEY", "sk-SENTINEL"),
            ("PENSIVE_MODEL", "m"),
        ])
        .unwrap();
        let public = serde_json::to_string(&c.models[0].public()).unwrap();
        assert!(!public.contains("secret-host") && !public.contains("SENTINEL"));
    }
}
