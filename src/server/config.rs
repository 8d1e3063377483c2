//! Server configuration from the environment (DESIGN §6). Secrets (API key,
//! upstream URL) stay in here and in the providers: nothing public is derived
//! from them except through `PublicModel`.

use std::time::Duration;

use super::limits::Limits;
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
    /// After the first token: a turn that then receives nothing for this long ends.
    pub idle_timeout: Duration,
    /// `PENSIVE_ACCESS_TOKEN`: when set, the app needs it (sign-in page, cookie).
    pub access_token: Option<String>,
    /// `PENSIVE_SHOW_THINKING=0`: reasoning is counted but never sent.
    pub show_thinking: bool,
    /// Body size, per-client concurrency and rate limits.
    pub limits: Limits,
    /// On SIGTERM, how long running turns may go on before they are ended.
    pub shutdown_grace: Duration,
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
    #[error("cannot read the configuration file {path}: {why}")]
    File { path: String, why: String },
    #[error("PENSIVE_TAGS: {0}")]
    Tags(#[from] super::tags::TagError),
    #[error("PENSIVE_PROVIDER={0} needs PENSIVE_BASE_URL (or OPENAI_BASE_URL) and PENSIVE_MODEL")]
    Incomplete(String),
}

impl AppConfig {
    /// Reads the process environment, and the TOML file `PENSIVE_CONFIG` names.
    pub fn from_env() -> Result<Self, ConfigError> {
        let get = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        match get("PENSIVE_CONFIG") {
            Some(path) => {
                let text = std::fs::read_to_string(&path).map_err(|e| ConfigError::File {
                    path: path.clone(),
                    why: e.to_string(),
                })?;
                Self::from_toml(&text, get).map_err(|why| match why {
                    ConfigError::File { why, .. } => ConfigError::File { path, why },
                    other => other,
                })
            }
            None => Self::from_lookup(get),
        }
    }

    /// Reads a TOML file of several models (see README); `get` resolves
    /// `api_key_env` and the environment overrides.
    pub fn from_toml(
        text: &str,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let file: FileConfig = toml::from_str(text).map_err(|e| ConfigError::File {
            path: String::new(),
            why: e.to_string(),
        })?;
        let mut base = Self::from_lookup(|name| match name {
            // The file describes the models; the environment only the server.
            "PENSIVE_PROVIDER" | "PENSIVE_BASE_URL" | "OPENAI_BASE_URL" | "PENSIVE_MODEL" => None,
            other => get(other),
        })?;
        if get("PENSIVE_FIRST_TOKEN_TIMEOUT_SECS").is_none() {
            if let Some(secs) = file.first_token_timeout_secs {
                base.first_token_timeout = Duration::from_secs_f64(secs.max(0.0));
            }
        }
        if get("PENSIVE_SHOW_THINKING").is_none() {
            if let Some(show) = file.show_thinking {
                base.show_thinking = show;
            }
        }
        if file.models.is_empty() {
            return Ok(base);
        }
        let demo_pace = base.models[0].demo_pace;
        base.models = file
            .models
            .into_iter()
            .map(|m| m.into_model(demo_pace, &get))
            .collect::<Result<_, _>>()?;
        Ok(base)
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
        let idle_timeout = match get("PENSIVE_IDLE_TIMEOUT_SECS") {
            Some(v) => Duration::from_secs_f64(parse_number(&v, "PENSIVE_IDLE_TIMEOUT_SECS")?),
            None => Duration::from_secs(120),
        };
        let show_thinking = !matches!(
            get("PENSIVE_SHOW_THINKING").as_deref(),
            Some("0") | Some("false") | Some("off") | Some("no")
        );
        Ok(Self {
            models: vec![model],
            first_token_timeout,
            idle_timeout,
            access_token: get("PENSIVE_ACCESS_TOKEN"),
            show_thinking,
            limits: limits_from(&get)?,
            shutdown_grace: match get("PENSIVE_SHUTDOWN_GRACE_SECS") {
                Some(v) => {
                    Duration::from_secs_f64(parse_number(&v, "PENSIVE_SHUTDOWN_GRACE_SECS")?)
                }
                None => Duration::from_secs(20),
            },
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

/// `PENSIVE_MAX_BODY_BYTES`, `PENSIVE_MAX_TURNS_PER_CLIENT`,
/// `PENSIVE_TURNS_PER_MINUTE` and `PENSIVE_CLIENT_IP_HEADER`; defaults otherwise.
fn limits_from(get: &impl Fn(&str) -> Option<String>) -> Result<Limits, ConfigError> {
    let defaults = Limits::default();
    let count = |name: &'static str, default: usize| -> Result<usize, ConfigError> {
        match get(name) {
            Some(v) => parse_number(&v, name).map(|n| n as usize),
            None => Ok(default),
        }
    };
    Ok(Limits {
        max_body_bytes: count("PENSIVE_MAX_BODY_BYTES", defaults.max_body_bytes)?,
        turns_per_client: count("PENSIVE_MAX_TURNS_PER_CLIENT", defaults.turns_per_client)?,
        turns_per_minute: count("PENSIVE_TURNS_PER_MINUTE", defaults.turns_per_minute)?,
        client_ip_header: get("PENSIVE_CLIENT_IP_HEADER").map(|h| h.trim().to_ascii_lowercase()),
    })
}

/// The TOML configuration file.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    first_token_timeout_secs: Option<f64>,
    show_thinking: Option<bool>,
    #[serde(default)]
    models: Vec<FileModel>,
}

/// One `[[models]]` entry.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileModel {
    id: Option<String>,
    label: Option<String>,
    provider: String,
    base_url: Option<String>,
    api_key: Option<String>,
    /// Name of the environment variable holding the key (keeps it out of the file).
    api_key_env: Option<String>,
    model: Option<String>,
    max_output_tokens: Option<u32>,
    reasoning_effort: Option<String>,
    thinking_budget: Option<u32>,
    tags: Option<Vec<String>>,
    #[serde(default)]
    start_in_thinking: bool,
}

impl FileModel {
    fn into_model(
        self,
        demo_pace: Pace,
        get: &impl Fn(&str) -> Option<String>,
    ) -> Result<ModelConfig, ConfigError> {
        let provider = ProviderKind::from_name(&self.provider).ok_or(ConfigError::Invalid {
            name: "provider",
            value: self.provider.clone(),
            why: "expected demo, openai, responses, anthropic, gemini or ollama",
        })?;
        if provider == ProviderKind::Demo {
            let mut demo = ModelConfig::demo(demo_pace);
            if let Some(id) = self.id {
                demo.id = id;
            }
            if let Some(label) = self.label {
                demo.label = label;
            }
            return Ok(demo);
        }
        let (Some(base_url), Some(upstream_model)) = (self.base_url, self.model) else {
            return Err(ConfigError::Incomplete(self.provider));
        };
        let id = self.id.unwrap_or_else(|| upstream_model.clone());
        let tags = match self.tags {
            Some(list) => TagSet::parse(list.iter().map(String::as_str))?,
            None => TagSet::default(),
        };
        Ok(ModelConfig {
            label: self.label.unwrap_or_else(|| id.clone()),
            id,
            provider,
            base_url,
            api_key: self
                .api_key
                .or_else(|| self.api_key_env.and_then(|name| get(&name))),
            upstream_model,
            max_output_tokens: self.max_output_tokens,
            reasoning_effort: self.reasoning_effort,
            thinking_budget: self.thinking_budget,
            demo_pace,
            tags,
            start_in_thinking: self.start_in_thinking,
        })
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
    fn a_toml_file_configures_several_models() {
        let text = r#"
            first_token_timeout_secs = 30
            [[models]]
            id = "r1"
            label = "DeepSeek R1"
            provider = "openai"
            base_url = "https://api.deepseek.com/v1"
            api_key_env = "DEEPSEEK_KEY"
            model = "deepseek-reasoner"
            [[models]]
            provider = "anthropic"
            base_url = "https://api.anthropic.com"
            model = "claude-sonnet-4-5"
            thinking_budget = 4000
            tags = ["think", "<|begin_of_thought|>"]
            [[models]]
            provider = "demo"
        "#;
        let env: HashMap<String, String> =
            [("DEEPSEEK_KEY".to_string(), "sk-ds".to_string())].into();
        let c = AppConfig::from_toml(text, |k| env.get(k).cloned()).unwrap();
        assert_eq!(c.models.len(), 3);
        assert_eq!(c.models[0].id, "r1");
        assert_eq!(c.models[0].label, "DeepSeek R1");
        assert_eq!(c.models[0].api_key.as_deref(), Some("sk-ds"));
        assert_eq!(c.models[1].provider, ProviderKind::Wire(Dialect::Anthropic));
        assert_eq!(c.models[1].id, "claude-sonnet-4-5");
        assert_eq!(c.models[1].thinking_budget, Some(4000));
        assert_eq!(c.models[2].provider, ProviderKind::Demo);
        assert_eq!(c.first_token_timeout, Duration::from_secs(30));
        assert_eq!(c.model(None).map(|m| m.id.as_str()), Some("r1"));
    }

    #[test]
    fn a_bad_toml_file_is_reported() {
        assert!(
            AppConfig::from_toml("[[models]]\nprovider = \"carrier-pigeon\"", |_| None).is_err()
        );
        assert!(AppConfig::from_toml("models = 3", |_| None).is_err());
        assert!(AppConfig::from_toml("[[models]]\nprovider = \"openai\"", |_| None).is_err());
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
