//! The TOML configuration file (`PENSIVE_CONFIG`): several models, and the
//! server settings a file may set. Its errors never quote a value from the
//! file (it may hold an API key).

use std::time::Duration;

use super::{is_llamacpp, AppConfig, ConfigError, EffortSettings, ModelConfig, ProviderKind};
use crate::server::mock::scripted::Pace;
use crate::server::providers::secret::Secret;
use crate::server::providers::wire::{Dialect, UpstreamModel};
use crate::server::tags::TagSet;

impl AppConfig {
    /// Reads a TOML file of several models (see README); `get` resolves
    /// `api_key_env` and the environment overrides.
    pub fn from_toml(
        text: &str,
        get: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let file: FileConfig = toml::from_str(text).map_err(|e| ConfigError::File {
            path: String::new(),
            why: toml_error_without_values(text, &e),
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
        if get("PENSIVE_MAX_TOOL_CALLS").is_none() {
            if let Some(calls) = file.max_tool_calls {
                base.limits.max_tool_calls = calls;
            }
        }
        if get("PENSIVE_TOOL_DECISION_SECS").is_none() {
            if let Some(secs) = file.tool_decision_secs {
                base.limits.tool_decision_time = Duration::from_secs_f64(secs.max(0.0));
            }
        }
        if get("PENSIVE_MAX_TOOL_SECS").is_none() {
            if let Some(secs) = file.max_tool_secs {
                base.limits.max_tool_time = Duration::from_secs_f64(secs.max(0.0));
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
}

/// A TOML error as "line L, column C: message", without the source excerpt
/// toml prints by default: that excerpt is the offending line, which may be
/// `api_kye = "sk-…"`, and would carry the key into logs. Quoted values in the
/// message itself (serde's "invalid type: string \"…\"") are elided too.
fn toml_error_without_values(text: &str, error: &toml::de::Error) -> String {
    let mut message = String::new();
    let mut quoted = false;
    for c in error.message().trim().chars() {
        if c == '"' {
            if !quoted {
                message.push_str("\"…\"");
            }
            quoted = !quoted;
        } else if !quoted {
            message.push(c);
        }
    }
    match error.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}: {message}")
        }
        None => message,
    }
}

/// The TOML configuration file.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    first_token_timeout_secs: Option<f64>,
    show_thinking: Option<bool>,
    /// Tool calls one turn may make (`PENSIVE_MAX_TOOL_CALLS` wins).
    max_tool_calls: Option<usize>,
    /// How long a call waits for the user's decision
    /// (`PENSIVE_TOOL_DECISION_SECS` wins).
    tool_decision_secs: Option<f64>,
    /// Time the tools of one turn may run in all (`PENSIVE_MAX_TOOL_SECS` wins).
    max_tool_secs: Option<f64>,
    #[serde(default)]
    models: Vec<FileModel>,
    /// Read by `tools::mcp::config` (the MCP servers).
    #[serde(default)]
    #[allow(dead_code)]
    mcp_servers: Option<toml::Table>,
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
    /// The reasoning efforts offered (narrows the model family's list).
    efforts: Option<Vec<String>>,
    /// The effort used when a request names none.
    default_effort: Option<String>,
    /// Anthropic: `adaptive`, `budget` or `none` (overrides the family).
    thinking: Option<String>,
    tags: Option<Vec<String>>,
    #[serde(default)]
    start_in_thinking: bool,
    /// `false`: never offer this model tools.
    tools: Option<bool>,
    /// Anthropic: models the API answers with when this one declines.
    fallbacks: Option<Vec<String>>,
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
            why: super::PROVIDER_NAMES,
        })?;
        let ProviderKind::Wire(dialect) = provider else {
            let mut demo = ModelConfig::demo(demo_pace);
            if let Some(id) = self.id {
                demo.id = id;
            }
            if let Some(label) = self.label {
                demo.label = label;
            }
            return Ok(demo);
        };
        let (Some(base_url), Some(upstream_model)) = (self.base_url, self.model) else {
            return Err(ConfigError::Incomplete(self.provider));
        };
        if self.fallbacks.is_some() && dialect != Dialect::Anthropic {
            return Err(ConfigError::Invalid {
                name: "fallbacks",
                value: self.provider.clone(),
                why: "only the anthropic provider takes fallbacks",
            });
        }
        let settings = EffortSettings::parse(
            self.efforts.as_deref(),
            self.default_effort.as_deref(),
            self.thinking.as_deref(),
        )?;
        let id = self.id.unwrap_or_else(|| upstream_model.clone());
        let tags = match self.tags {
            Some(list) => TagSet::parse(list.iter().map(String::as_str))?,
            None => TagSet::default(),
        };
        let mut upstream = UpstreamModel {
            base_url,
            api_key: self
                .api_key
                .or_else(|| self.api_key_env.and_then(|name| get(&name)))
                .map(Secret::from),
            name: upstream_model,
            max_output_tokens: self.max_output_tokens,
            reasoning_effort: self.reasoning_effort,
            thinking_budget: self.thinking_budget,
            llamacpp: is_llamacpp(&self.provider),
            no_tools: self.tools == Some(false),
            tools_configured: self.tools.is_some(),
            fallbacks: self.fallbacks.unwrap_or_default(),
            ..UpstreamModel::default()
        };
        settings
            .apply(dialect, &mut upstream)
            .map_err(|e| match e {
                ConfigError::Effort(why) => ConfigError::Effort(format!("model {id}: {why}")),
                other => other,
            })?;
        Ok(ModelConfig {
            label: self.label.unwrap_or_else(|| id.clone()),
            id,
            provider,
            upstream,
            demo_pace,
            tags,
            start_in_thinking: self.start_in_thinking,
        })
    }
}
