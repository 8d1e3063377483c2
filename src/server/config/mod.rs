//! Server configuration (design §6): the types of a configured model and of
//! the site. The environment is read in `env`, the TOML file of several
//! models in `file`. Secrets (API key, upstream URL) stay in
//! here and in the providers: nothing public is derived from them except
//! through `PublicModel`.

mod discovery;
mod env;
mod file;

pub use discovery::discover;
pub(crate) use env::state_file;

use std::time::Duration;

use super::limits::Limits;
use super::mock::scripted::Pace;
use super::providers::reasoning::{self, ThinkingStyle};
use super::providers::secret::Secret;
use super::providers::wire::{Dialect, UpstreamModel};
use super::tags::TagSet;
use crate::turn::{Effort, PublicModel};

/// Where a model's turns come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// The built-in scripted demo model.
    Demo,
    /// A provider speaking this wire dialect.
    Wire(Dialect),
}

impl ProviderKind {
    /// Parses `PENSIVE_PROVIDER` (`openai` = chat completions; `llamacpp` is
    /// chat completions too, with llama.cpp's reasoning controls: see
    /// `is_llamacpp`).
    pub fn from_name(name: &str) -> Option<Self> {
        if name.trim().eq_ignore_ascii_case("demo") {
            return Some(ProviderKind::Demo);
        }
        if is_llamacpp(name) {
            return Some(ProviderKind::Wire(Dialect::Chat));
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

/// The provider name `llamacpp` (also `llama.cpp`, `llama-cpp`).
pub(crate) fn is_llamacpp(name: &str) -> bool {
    matches!(
        name.trim().to_ascii_lowercase().as_str(),
        "llamacpp" | "llama.cpp" | "llama-cpp"
    )
}

/// The provider names a setting may hold, for error messages.
const PROVIDER_NAMES: &str =
    "expected demo, openai, responses, anthropic, gemini, ollama or llamacpp";

/// The reasoning settings of one model, as configured (TOML keys or
/// `PENSIVE_*` variables), before its family narrows them.
#[derive(Debug, Clone, Default)]
pub struct EffortSettings {
    /// `efforts = ["low", "high"]`.
    pub efforts: Option<Vec<Effort>>,
    /// `default_effort = "low"`.
    pub default_effort: Option<Effort>,
    /// `thinking = "adaptive" | "budget" | "none"` (Anthropic).
    pub thinking: Option<ThinkingStyle>,
}

impl EffortSettings {
    /// Reads the settings' words; `source` names the keys in errors.
    pub fn parse(
        efforts: Option<&[String]>,
        default_effort: Option<&str>,
        thinking: Option<&str>,
    ) -> Result<Self, ConfigError> {
        let word =
            |w: &str| Effort::parse(w).map_err(|e| ConfigError::Effort(format!("efforts: {e}")));
        Ok(Self {
            efforts: efforts
                .map(|list| list.iter().map(|w| word(w)).collect::<Result<_, _>>())
                .transpose()?,
            default_effort: default_effort
                .map(|w| {
                    Effort::parse(w)
                        .map_err(|e| ConfigError::Effort(format!("default_effort: {e}")))
                })
                .transpose()?,
            thinking: thinking
                .map(|t| {
                    ThinkingStyle::from_name(t).ok_or_else(|| {
                        ConfigError::Effort(
                            "thinking: expected adaptive, budget, level, effort, template, switch or none".into(),
                        )
                    })
                })
                .transpose()?,
        })
    }

    /// Applies the settings to `upstream` of a `dialect` model: the efforts
    /// it offers and its default (`reasoning::resolve`).
    pub fn apply(self, dialect: Dialect, upstream: &mut UpstreamModel) -> Result<(), ConfigError> {
        if let Some(style) = self.thinking {
            let allowed = ThinkingStyle::of_dialect(dialect);
            if !allowed.contains(&style) {
                let names: Vec<&str> = allowed.iter().map(|s| s.name()).collect();
                return Err(ConfigError::Effort(format!(
                    "thinking: {} takes {}, not {}",
                    dialect.name(),
                    names.join(", "),
                    style.name()
                )));
            }
        }
        upstream.thinking = self.thinking;
        upstream.configured_efforts = self.efforts;
        upstream.configured_default = self.default_effort;
        settle_efforts(dialect, upstream, reasoning::ProviderFacts::default())
    }
}

/// Decides `upstream`'s efforts, default and their source from its family,
/// what its provider said (`facts`) and its configuration.
pub(crate) fn settle_efforts(
    dialect: Dialect,
    upstream: &mut UpstreamModel,
    facts: reasoning::ProviderFacts,
) -> Result<(), ConfigError> {
    let (efforts, default, source) =
        reasoning::resolve(dialect, upstream, facts).map_err(ConfigError::Effort)?;
    upstream.efforts = efforts;
    upstream.default_effort = default;
    upstream.efforts_source = source;
    Ok(())
}

/// A model the user can pick.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelConfig {
    /// The id the browser sends (`request.model`).
    pub id: String,
    /// What the UI shows.
    pub label: String,
    pub provider: ProviderKind,
    /// What the provider is told: URL, key, model name and limits.
    pub upstream: UpstreamModel,
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
            upstream: UpstreamModel {
                name: "demo".into(),
                // The script does not change with the effort; the words are
                // offered so the control can be tried without a provider.
                efforts: vec![Effort::Off, Effort::Low, Effort::Medium, Effort::High],
                default_effort: Some(Effort::Medium),
                ..UpstreamModel::default()
            },
            demo_pace: pace,
            tags: TagSet::default(),
            start_in_thinking: false,
        }
    }

    /// Where this model's reasoning text comes from (full or a summary).
    pub(crate) fn reasoning_source(&self) -> crate::turn::ReasoningSource {
        match self.provider {
            ProviderKind::Demo => crate::turn::ReasoningSource::Full,
            ProviderKind::Wire(dialect) => {
                super::providers::reasoning::reasoning_source(dialect, &self.upstream)
            }
        }
    }

    /// What the browser may know about this model.
    pub fn public(&self) -> PublicModel {
        PublicModel {
            id: self.id.clone(),
            label: self.label.clone(),
            demo: self.provider == ProviderKind::Demo,
            efforts: self.upstream.efforts.clone(),
            default_effort: self.upstream.default_effort,
            efforts_from: match self.provider {
                ProviderKind::Demo => "table".into(),
                ProviderKind::Wire(_) => self.upstream.efforts_source.as_str().into(),
            },
            tools_note: self
                .upstream
                .tools_note
                .clone()
                .or_else(|| self.tools_note()),
            no_tools: self.upstream.no_tools
                || match self.provider {
                    // A model that names no effort, refused tools without one.
                    ProviderKind::Wire(dialect) => {
                        self.upstream.efforts.is_empty()
                            && reasoning::why_no_tools(dialect, &self.upstream, None).is_some()
                    }
                    ProviderKind::Demo => false,
                },
            no_tools_at: match self.provider {
                ProviderKind::Wire(dialect) => (self.upstream.efforts.iter().copied())
                    .filter(|e| {
                        reasoning::why_no_tools(dialect, &self.upstream, Some(*e)).is_some()
                    })
                    .collect(),
                ProviderKind::Demo => Vec::new(),
            },
            tool_names: match self.provider {
                ProviderKind::Wire(dialect) => crate::server::tools::names::name_rule(dialect),
                ProviderKind::Demo => None,
            },
        }
    }

    /// Why the model gets no tools when it reasons: its provider refuses
    /// them at its strongest effort but `off` (or with no effort named).
    fn tools_note(&self) -> Option<String> {
        let ProviderKind::Wire(dialect) = self.provider else {
            return None;
        };
        let effort = (self.upstream.efforts.iter().rev().copied())
            .find(|e| *e != Effort::Off)
            .or(self.upstream.default_effort);
        reasoning::why_no_tools(dialect, &self.upstream, effort).map(str::to_owned)
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
    pub access_token: Option<Secret>,
    /// Which host names may be used, how the access cookie is signed, and
    /// whether serving beyond loopback without a token is allowed.
    pub site_access: SiteAccess,
    /// `PENSIVE_SHOW_THINKING=0`: reasoning is counted but never sent.
    pub show_thinking: bool,
    /// Body size, per-client concurrency and rate limits.
    pub limits: Limits,
    /// On SIGTERM, how long running turns may go on before they are ended.
    pub shutdown_grace: Duration,
}

/// Who may reach the app besides the token (docs/security.md).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SiteAccess {
    /// `PENSIVE_ALLOWED_HOSTS`: host names (`name` or `name:port`, lowercase)
    /// accepted besides the listen address, `localhost` and `127.0.0.1`.
    pub allowed_hosts: Vec<String>,
    /// `PENSIVE_COOKIE_SECRET`: the key that signs the access cookie. Unset: a
    /// random one per process, so a restart signs everyone out and processes
    /// behind one proxy need the same value set.
    pub cookie_secret: Option<Secret>,
    /// Where signed-out sessions are listed, so a sign-out holds across a
    /// restart and in other processes sharing the cookie secret
    /// (`server::http::sessions::default_path`; used only with a cookie secret).
    pub revoked_sessions: Option<std::path::PathBuf>,
    /// `PENSIVE_ALLOW_OPEN=1`: serve beyond loopback without an access token.
    pub allow_open: bool,
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
    /// A secret that cannot be used; the value is never part of the message.
    #[error("{name} {why} (the value is not shown)")]
    Secret {
        name: &'static str,
        why: &'static str,
    },
    #[error("cannot read the configuration file {path}: {why}")]
    File { path: String, why: String },
    /// A reasoning-effort setting a model cannot take.
    #[error("{0}")]
    Effort(String),
    #[error("PENSIVE_TAGS: {0}")]
    Tags(#[from] super::tags::TagError),
    #[error("PENSIVE_PROVIDER={0} needs PENSIVE_BASE_URL (or OPENAI_BASE_URL) and PENSIVE_MODEL")]
    Incomplete(String),
}

impl AppConfig {
    /// The model a request names, or the default; `None` for an unknown id.
    pub fn model(&self, id: Option<&str>) -> Option<&ModelConfig> {
        match id {
            None => self.models.first(),
            Some(id) => self.models.iter().find(|m| m.id == id),
        }
    }
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
    fn the_tools_panel_hears_why_a_model_gets_no_tools_when_it_reasons() {
        let note = |provider: &str, model: &str| {
            let c = config(&[
                ("PENSIVE_PROVIDER", provider),
                ("PENSIVE_BASE_URL", "https://api.openai.com/v1"),
                ("PENSIVE_MODEL", model),
            ])
            .unwrap();
            c.models[0].public().tools_note
        };
        let sol = note("openai", "gpt-6-sol").unwrap_or_default();
        assert!(sol.contains("`responses` provider"), "{sol}");
        let five_six = note("openai", "gpt-5.6").unwrap_or_default();
        assert!(five_six.contains("only with reasoning off"), "{five_six}");
        assert_eq!(note("responses", "gpt-6-sol"), None);
        assert_eq!(note("openai", "gpt-5.1"), None);
        // The page hears it as words too: the efforts without tools, and
        // the names the provider takes (the Tools count leaves the rest out).
        let public = |provider: &str, model: &str| {
            config(&[
                ("PENSIVE_PROVIDER", provider),
                ("PENSIVE_BASE_URL", "https://api.openai.com/v1"),
                ("PENSIVE_MODEL", model),
            ])
            .unwrap()
            .models[0]
                .public()
        };
        let five_six = public("openai", "gpt-5.6");
        assert!(!five_six.no_tools_at.contains(&Effort::Off));
        assert!(five_six.no_tools_at.contains(&Effort::High));
        assert_eq!(five_six.tool_names.map(|r| r.max), Some(64));
        assert!(public("responses", "gpt-6-sol").no_tools_at.is_empty());
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
        assert_eq!(m.upstream.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(
            m.upstream.api_key.as_ref().map(Secret::expose),
            Some("sk-test")
        );
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
        assert_eq!(c.models[0].upstream.base_url, "http://a/v1");
    }

    #[test]
    fn bad_values_are_reported_by_name() {
        let err = config(&[("PENSIVE_FIRST_TOKEN_TIMEOUT_SECS", "soon")]).unwrap_err();
        assert!(err.to_string().contains("PENSIVE_FIRST_TOKEN_TIMEOUT_SECS"));
        assert!(config(&[("PENSIVE_PROVIDER", "openai")]).is_err());
        assert!(config(&[("PENSIVE_PROVIDER", "smoke-signals")]).is_err());
    }

    #[test]
    fn fallbacks_are_taken_for_anthropic_only() {
        let claude = r#"
            [[models]]
            provider = "anthropic"
            base_url = "https://api.anthropic.com"
            model = "claude-fable-5"
            fallbacks = ["claude-opus-4-8"]
        "#;
        let c = AppConfig::from_toml(claude, |_| None).unwrap();
        assert_eq!(c.models[0].upstream.fallbacks, ["claude-opus-4-8"]);
        let other = r#"
            [[models]]
            provider = "openai"
            base_url = "https://api.openai.com/v1"
            model = "gpt-5.1"
            fallbacks = ["gpt-5"]
        "#;
        let err = AppConfig::from_toml(other, |_| None).unwrap_err();
        assert!(err.to_string().contains("fallbacks"), "{err}");
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
        assert_eq!(
            c.models[0].upstream.api_key.as_ref().map(Secret::expose),
            Some("sk-ds")
        );
        assert_eq!(c.models[1].provider, ProviderKind::Wire(Dialect::Anthropic));
        assert_eq!(c.models[1].id, "claude-sonnet-4-5");
        assert_eq!(c.models[1].upstream.thinking_budget, Some(4000));
        assert_eq!(c.models[2].provider, ProviderKind::Demo);
        assert_eq!(c.first_token_timeout, Duration::from_secs(30));
        assert_eq!(c.model(None).map(|m| m.id.as_str()), Some("r1"));
    }

    #[test]
    fn reasoning_settings_narrow_or_widen_each_models_efforts() {
        let text = r#"
            [[models]]
            provider = "anthropic"
            base_url = "https://api.anthropic.com"
            model = "claude-opus-4-7"
            efforts = ["high", "low", "xhigh"]
            default_effort = "low"
            [[models]]
            provider = "anthropic"
            base_url = "https://proxy.example"
            model = "house-claude"
            thinking = "adaptive"
            [[models]]
            provider = "responses"
            base_url = "https://api.openai.com/v1"
            model = "gpt-5"
            reasoning_effort = "minimal"
            [[models]]
            provider = "llamacpp"
            base_url = "http://localhost:8080/v1"
            model = "qwen3"
        "#;
        let c = AppConfig::from_toml(text, |_| None).unwrap();
        let public: Vec<PublicModel> = c.models.iter().map(ModelConfig::public).collect();
        use Effort::*;
        assert_eq!(public[0].efforts, vec![Low, High, Xhigh]);
        assert_eq!(public[0].default_effort, Some(Low));
        assert_eq!(public[1].efforts, vec![Off, Low, Medium, High, Xhigh, Max]);
        assert_eq!(public[1].default_effort, Some(High));
        assert_eq!(c.models[1].upstream.thinking, Some(ThinkingStyle::Adaptive));
        assert_eq!(public[2].default_effort, Some(Minimal), "the old key");
        assert_eq!(c.models[3].provider, ProviderKind::Wire(Dialect::Chat));
        assert!(c.models[3].upstream.llamacpp);
        assert_eq!(
            public[3].efforts,
            vec![Off, High],
            "Qwen3's template switch"
        );
        assert_eq!(public[0].efforts_from, "config");
        assert_eq!(public[2].efforts_from, "table");
        let demo = AppConfig::from_lookup(|_| None).unwrap();
        assert_eq!(demo.models[0].public().default_effort, Some(Medium));
        let json = serde_json::to_value(&public[0]).unwrap();
        assert_eq!(json["efforts"], serde_json::json!(["low", "high", "xhigh"]));
        assert_eq!(json["default_effort"], "low");
    }

    #[test]
    fn a_reasoning_setting_the_model_cannot_take_stops_the_server() {
        let model = |extra: &str| {
            format!(
                "[[models]]\nprovider = \"gemini\"\nbase_url = \"https://g\"\nmodel = \"gemini-3-pro-preview\"\n{extra}"
            )
        };
        let widened = AppConfig::from_toml(&model("efforts = [\"minimal\", \"high\"]"), |_| None)
            .expect("a word the table lacks is the user's to add");
        assert_eq!(
            widened.models[0].upstream.efforts,
            vec![Effort::Minimal, Effort::High]
        );
        let err = AppConfig::from_toml(&model("thinking = \"adaptive\""), |_| None).unwrap_err();
        assert!(
            err.to_string()
                .contains("gemini takes level, budget, none, not adaptive"),
            "{err}"
        );
        let err = AppConfig::from_toml(&model("efforts = [\"huge\"]"), |_| None).unwrap_err();
        assert!(
            err.to_string().contains("unknown reasoning effort"),
            "{err}"
        );
        let err =
            AppConfig::from_toml(&model("default_effort = \"medium\""), |_| None).unwrap_err();
        assert!(err.to_string().contains("default_effort"), "{err}");
        let err = AppConfig::from_toml(&model("thinking = \"sometimes\""), |_| None).unwrap_err();
        assert!(err.to_string().contains("adaptive"), "{err}");
        let env = config(&[
            ("PENSIVE_PROVIDER", "llamacpp"),
            ("PENSIVE_BASE_URL", "http://localhost:8080/v1"),
            ("PENSIVE_MODEL", "qwen3"),
            ("PENSIVE_EFFORTS", "off, high"),
            ("PENSIVE_DEFAULT_EFFORT", "off"),
        ])
        .unwrap();
        assert!(env.models[0].upstream.llamacpp);
        assert_eq!(
            env.models[0].upstream.efforts,
            vec![Effort::Off, Effort::High]
        );
        assert_eq!(env.models[0].upstream.default_effort, Some(Effort::Off));
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
    fn kill_switch_words_are_read_in_any_case_with_spaces_around() {
        for off in [
            "0", "false", "FALSE", "False", "off", "OFF", "no", "No", " false ", "\tOff\n",
        ] {
            let c = config(&[("PENSIVE_SHOW_THINKING", off)]).unwrap();
            assert!(!c.show_thinking, "{off:?} turns thinking off");
        }
        for on in ["1", "true", "TRUE", "on", "On", "yes", "YES", " 1 "] {
            let c = config(&[("PENSIVE_SHOW_THINKING", on)]).unwrap();
            assert!(c.show_thinking, "{on:?} keeps thinking on");
        }
    }

    #[test]
    fn any_other_kill_switch_value_is_a_startup_error_naming_the_variable() {
        for bad in ["2", "disabled", "nope", "0 1", "-1", "  ", "hide"] {
            let err = config(&[("PENSIVE_SHOW_THINKING", bad)]).unwrap_err();
            assert!(
                matches!(
                    err,
                    ConfigError::Invalid {
                        name: "PENSIVE_SHOW_THINKING",
                        ..
                    }
                ),
                "{bad:?}: {err:?}"
            );
            assert!(err.to_string().contains("PENSIVE_SHOW_THINKING"), "{err}");
        }
        // The same word overriding a configuration file is checked too.
        let err = AppConfig::from_toml("show_thinking = true", |k| {
            (k == "PENSIVE_SHOW_THINKING").then(|| "FALSCH".to_owned())
        })
        .unwrap_err();
        assert!(err.to_string().contains("PENSIVE_SHOW_THINKING"), "{err}");
        let c = AppConfig::from_toml("show_thinking = true", |k| {
            (k == "PENSIVE_SHOW_THINKING").then(|| "FALSE".to_owned())
        })
        .unwrap();
        assert!(
            !c.show_thinking,
            "the environment's FALSE wins over the file"
        );
    }

    #[test]
    fn debug_output_redacts_keys_and_tokens() {
        let c = config(&[
            ("PENSIVE_BASE_URL", "http://h/v1"),
            ("PENSIVE_API_KEY", "sk-SENTINEL-debug-key"),
            ("PENSIVE_MODEL", "m"),
            ("PENSIVE_ACCESS_TOKEN", "SENTINEL-access-token-1234"),
            (
                "PENSIVE_COOKIE_SECRET",
                "SENTINEL-cookie-secret-0123456789abcdef",
            ),
        ])
        .unwrap();
        let printed = format!("{c:?} {c:#?}");
        assert!(!printed.contains("SENTINEL"), "{printed}");
        assert!(printed.contains("redacted"), "{printed}");
        let file = AppConfig::from_toml(
            "[[models]]\nprovider = \"openai\"\nbase_url = \"http://h/v1\"\nmodel = \"m\"\napi_key = \"sk-SENTINEL-file-key\"",
            |_| None,
        )
        .unwrap();
        assert!(!format!("{file:?}").contains("SENTINEL"));
    }

    #[test]
    fn a_toml_error_never_echoes_a_value_from_the_file() {
        let misspelled = "[[models]]\nprovider = \"openai\"\nbase_url = \"http://h/v1\"\nmodel = \"m\"\napi_kye = \"sk-SENTINEL-misspelled\"\n";
        let beside =
            "[[models]]\nprovider = \"openai\"\napi_key = \"sk-SENTINEL-beside\"\nmodle = \"m\"\n";
        let wrong_type =
            "[[models]]\nprovider = \"openai\"\nmax_output_tokens = \"sk-SENTINEL-wrong-field\"\n";
        let unquoted = "[[models]]\nprovider = \"openai\"\napi_key = sk-SENTINEL-unquoted\n";
        for (text, names) in [
            (misspelled, "api_kye"),
            (beside, "modle"),
            (wrong_type, "max_output_tokens"),
            (unquoted, "line 3"),
        ] {
            let err = AppConfig::from_toml(text, |_| None)
                .unwrap_err()
                .to_string();
            assert!(!err.contains("SENTINEL"), "{err}");
            assert!(
                err.contains(names) || err.contains("line"),
                "still says where: {err}"
            );
        }
        let err = AppConfig::from_toml(misspelled, |_| None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 5") && err.contains("api_kye"), "{err}");
    }

    #[test]
    fn the_access_token_is_checked_at_startup_without_echoing_it() {
        for bad in [
            "short-SENTINEL",
            "SENTINEL with spaces ok",
            "SENTINEL;semicolon-here",
            "SENTINEL\"quoted-token\"",
            "SENTINEL-café-token-long",
        ] {
            let err = config(&[("PENSIVE_ACCESS_TOKEN", bad)]).unwrap_err();
            let text = err.to_string();
            assert!(text.contains("PENSIVE_ACCESS_TOKEN"), "{text}");
            assert!(!text.contains("SENTINEL"), "{text}");
            assert!(!format!("{err:?}").contains("SENTINEL"));
        }
        let ok = config(&[("PENSIVE_ACCESS_TOKEN", "e2e-access-token")]).unwrap();
        assert_eq!(
            ok.access_token.as_ref().map(Secret::expose),
            Some("e2e-access-token")
        );
        let err = config(&[("PENSIVE_COOKIE_SECRET", "SENTINEL-too-short")]).unwrap_err();
        assert!(
            err.to_string().contains("PENSIVE_COOKIE_SECRET")
                && !err.to_string().contains("SENTINEL")
        );
    }

    #[test]
    fn site_access_settings_are_read() {
        let c = config(&[
            (
                "PENSIVE_ALLOWED_HOSTS",
                " Chat.Example.com, lan.example:8443 ,",
            ),
            ("PENSIVE_ALLOW_OPEN", "1"),
            ("PENSIVE_TRUSTED_PROXY_HOPS", "2"),
        ])
        .unwrap();
        assert_eq!(
            c.site_access.allowed_hosts,
            ["chat.example.com", "lan.example:8443"]
        );
        assert!(c.site_access.allow_open);
        assert_eq!(c.limits.trusted_proxy_hops, 2);
        assert!(!config(&[]).unwrap().site_access.allow_open);
        assert_eq!(config(&[]).unwrap().limits.trusted_proxy_hops, 1);
        for (name, bad) in [
            ("PENSIVE_ALLOWED_HOSTS", "https://chat.example.com"),
            ("PENSIVE_ALLOWED_HOSTS", "chat.example.com/"),
            ("PENSIVE_TRUSTED_PROXY_HOPS", "0"),
            ("PENSIVE_TRUSTED_PROXY_HOPS", "1.5"),
            ("PENSIVE_ALLOW_OPEN", "maybe"),
        ] {
            let err = config(&[(name, bad)]).unwrap_err();
            assert!(err.to_string().contains(name), "{err}");
        }
    }

    #[test]
    fn turn_budgets_and_connection_limits_have_defaults_and_are_read() {
        let limits = config(&[]).unwrap().limits;
        assert_eq!(limits.max_turn_bytes, 64 * 1024 * 1024);
        assert_eq!(limits.max_turn_duration, Duration::from_secs(1800));
        assert_eq!(limits.header_timeout, Duration::from_secs(10));
        assert_eq!(limits.max_connections, 1024);
        assert_eq!(limits.max_connections_per_address, 16);
        assert_eq!(limits.body_timeout, Duration::from_secs(60));
        let limits = config(&[
            ("PENSIVE_MAX_TURN_BYTES", "1048576"),
            ("PENSIVE_MAX_TURN_SECS", "0.5"),
            ("PENSIVE_HEADER_TIMEOUT_SECS", "2"),
            ("PENSIVE_MAX_CONNECTIONS", "0"),
            ("PENSIVE_MAX_CONNECTIONS_PER_ADDRESS", "3"),
            ("PENSIVE_BODY_TIMEOUT_SECS", "1.5"),
        ])
        .unwrap()
        .limits;
        assert_eq!(limits.max_turn_bytes, 1024 * 1024);
        assert_eq!(limits.max_turn_duration, Duration::from_millis(500));
        assert_eq!(limits.header_timeout, Duration::from_secs(2));
        assert_eq!(limits.max_connections, 0);
        assert_eq!(limits.max_connections_per_address, 3);
        assert_eq!(limits.body_timeout, Duration::from_millis(1500));
        // Behind a proxy every connection has the proxy's address.
        let proxied = config(&[("PENSIVE_CLIENT_IP_HEADER", "x-forwarded-for")]).unwrap();
        assert_eq!(proxied.limits.max_connections_per_address, 0);
        let err = config(&[("PENSIVE_MAX_CONNECTIONS", "many")]).unwrap_err();
        assert!(err.to_string().contains("PENSIVE_MAX_CONNECTIONS"), "{err}");
    }

    #[test]
    fn tool_limits_have_defaults_and_come_from_the_environment_or_the_file() {
        let limits = config(&[]).unwrap().limits;
        assert_eq!(limits.max_tool_calls, 12);
        assert_eq!(limits.tool_decision_time, Duration::from_secs(600));
        assert_eq!(limits.max_tool_time, Duration::from_secs(600));
        let limits = config(&[
            ("PENSIVE_MAX_TOOL_CALLS", "3"),
            ("PENSIVE_TOOL_DECISION_SECS", "90"),
            ("PENSIVE_MAX_TOOL_SECS", "120"),
        ])
        .unwrap()
        .limits;
        assert_eq!(limits.max_tool_calls, 3);
        assert_eq!(limits.tool_decision_time, Duration::from_secs(90));
        assert_eq!(limits.max_tool_time, Duration::from_secs(120));
        for name in [
            "PENSIVE_MAX_TOOL_CALLS",
            "PENSIVE_TOOL_DECISION_SECS",
            "PENSIVE_MAX_TOOL_SECS",
        ] {
            let err = config(&[(name, "lots")]).unwrap_err();
            assert!(err.to_string().contains(name), "{err}");
        }
        let file = "max_tool_calls = 5\ntool_decision_secs = 30\nmax_tool_secs = 45\n";
        let limits = AppConfig::from_toml(file, |_| None).unwrap().limits;
        assert_eq!(limits.max_tool_calls, 5);
        assert_eq!(limits.max_tool_time, Duration::from_secs(45));
        assert_eq!(limits.tool_decision_time, Duration::from_secs(30));
        let overridden = AppConfig::from_toml(file, |k| {
            (k == "PENSIVE_MAX_TOOL_CALLS").then(|| "7".to_owned())
        })
        .unwrap()
        .limits;
        assert_eq!(overridden.max_tool_calls, 7, "the environment wins");
        assert_eq!(overridden.tool_decision_time, Duration::from_secs(30));
        let err = AppConfig::from_toml("max_tool_calls = -1", |_| None).unwrap_err();
        assert!(err.to_string().contains("line 1"), "{err}");
    }

    #[test]
    fn the_redis_url_is_optional_and_never_quoted_in_an_error() {
        assert_eq!(config(&[]).unwrap().limits.redis_url, None);
        assert_eq!(
            config(&[("PENSIVE_REDIS_URL", " ")])
                .unwrap()
                .limits
                .redis_url,
            None
        );
        let url = "redis://:hunter2hunter2@10.0.0.5:6379/2";
        let set = config(&[("PENSIVE_REDIS_URL", url)]).unwrap().limits;
        assert_eq!(set.redis_url.as_ref().map(|u| u.expose()), Some(url));
        assert!(
            !format!("{set:?}").contains("hunter2"),
            "the password stays out of Debug"
        );
        let err = config(&[("PENSIVE_REDIS_URL", "mysql://:hunter2@db")]).unwrap_err();
        assert!(err.to_string().contains("PENSIVE_REDIS_URL"), "{err}");
        assert!(!err.to_string().contains("hunter2"), "{err}");
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
