//! Reading the configuration from the environment: one model from the
//! `PENSIVE_*` variables (with the `OPENAI_*` fallbacks), the turn and
//! connection limits, site access, and where state files live. Every value
//! is checked here, and a bad one stops the server naming its variable,
//! never echoing a secret. The TOML file of several models is read in `file`,
//! which starts from what is read here.

use std::time::Duration;

use super::{
    is_llamacpp, AppConfig, ConfigError, EffortSettings, ModelConfig, ProviderKind, SiteAccess,
    PROVIDER_NAMES,
};
use crate::server::limits::Limits;
use crate::server::mock::scripted::Pace;
use crate::server::providers::secret::Secret;
use crate::server::providers::wire::{Dialect, UpstreamModel};
use crate::server::tags::TagSet;

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

    /// Reads settings through `get` (the environment, or a map in tests).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let pace = match get("PENSIVE_DEMO_PACE") {
            Some(v) => Pace::scaled(parse_number(&v, "PENSIVE_DEMO_PACE")?),
            None => Pace::REALISTIC,
        };
        let base_url = get("PENSIVE_BASE_URL").or_else(|| get("OPENAI_BASE_URL"));
        let api_key = get("PENSIVE_API_KEY")
            .or_else(|| get("OPENAI_API_KEY"))
            .map(Secret::from);
        let upstream_model = get("PENSIVE_MODEL");
        let provider = match get("PENSIVE_PROVIDER") {
            None if base_url.is_some() && upstream_model.is_some() => {
                ProviderKind::Wire(Dialect::Chat)
            }
            None => ProviderKind::Demo,
            Some(name) => ProviderKind::from_name(&name).ok_or(ConfigError::Invalid {
                name: "PENSIVE_PROVIDER",
                value: name.clone(),
                why: PROVIDER_NAMES,
            })?,
        };
        let llamacpp = get("PENSIVE_PROVIDER").is_some_and(|name| is_llamacpp(&name));
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
                let efforts: Option<Vec<String>> = get("PENSIVE_EFFORTS")
                    .map(|list| list.split(',').map(|w| w.trim().to_owned()).collect());
                let settings = EffortSettings::parse(
                    efforts.as_deref(),
                    get("PENSIVE_DEFAULT_EFFORT").as_deref(),
                    get("PENSIVE_THINKING").as_deref(),
                )?;
                let mut upstream = UpstreamModel {
                    base_url,
                    api_key,
                    name: upstream_model.clone(),
                    max_output_tokens,
                    reasoning_effort: get("PENSIVE_REASONING_EFFORT"),
                    thinking_budget: get("PENSIVE_THINKING_BUDGET")
                        .map(|v| parse_number(&v, "PENSIVE_THINKING_BUDGET").map(|n| n as u32))
                        .transpose()?,
                    llamacpp,
                    ..UpstreamModel::default()
                };
                settings.apply(dialect, &mut upstream)?;
                ModelConfig {
                    id: upstream_model.clone(),
                    label: upstream_model.clone(),
                    provider,
                    upstream,
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
        let show_thinking = match get("PENSIVE_SHOW_THINKING") {
            Some(value) => parse_switch(&value, "PENSIVE_SHOW_THINKING")?,
            None => true,
        };
        Ok(Self {
            models: vec![model],
            first_token_timeout,
            idle_timeout,
            access_token: get("PENSIVE_ACCESS_TOKEN")
                .map(|token| validate_access_token(&token).map(|()| Secret::from(token)))
                .transpose()?,
            site_access: site_access_from(&get)?,
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
}

/// `PENSIVE_MAX_BODY_BYTES`, `PENSIVE_MAX_TURNS_PER_CLIENT`,
/// `PENSIVE_TURNS_PER_MINUTE`, `PENSIVE_CLIENT_IP_HEADER`, the turn budgets
/// (`PENSIVE_MAX_TURN_BYTES`, `PENSIVE_MAX_TURN_SECS`) and the connection
/// settings (`PENSIVE_HEADER_TIMEOUT_SECS`, `PENSIVE_BODY_TIMEOUT_SECS`,
/// `PENSIVE_MAX_CONNECTIONS`, `PENSIVE_MAX_CONNECTIONS_PER_ADDRESS`) and the
/// tool limits (`PENSIVE_MAX_TOOL_CALLS`, `PENSIVE_TOOL_DECISION_SECS`,
/// `PENSIVE_MAX_TOOL_SECS`), and the Redis replicas share
/// (`PENSIVE_REDIS_URL`); defaults otherwise.
fn limits_from(get: &impl Fn(&str) -> Option<String>) -> Result<Limits, ConfigError> {
    let defaults = Limits::default();
    let count = |name: &'static str, default: usize| -> Result<usize, ConfigError> {
        match get(name) {
            Some(v) => parse_number(&v, name).map(|n| n as usize),
            None => Ok(default),
        }
    };
    let seconds = |name: &'static str, default: Duration| -> Result<Duration, ConfigError> {
        match get(name) {
            Some(v) => parse_number(&v, name).map(Duration::from_secs_f64),
            None => Ok(default),
        }
    };
    let client_ip_header = get("PENSIVE_CLIENT_IP_HEADER").map(|h| h.trim().to_ascii_lowercase());
    Ok(Limits {
        max_body_bytes: count("PENSIVE_MAX_BODY_BYTES", defaults.max_body_bytes)?,
        turns_per_client: count("PENSIVE_MAX_TURNS_PER_CLIENT", defaults.turns_per_client)?,
        turns_per_minute: count("PENSIVE_TURNS_PER_MINUTE", defaults.turns_per_minute)?,
        max_connections_per_address: count(
            "PENSIVE_MAX_CONNECTIONS_PER_ADDRESS",
            crate::server::limits::default_per_address(client_ip_header.as_deref()),
        )?,
        client_ip_header,
        trusted_proxy_hops: match get("PENSIVE_TRUSTED_PROXY_HOPS") {
            Some(v) => match parse_number(&v, "PENSIVE_TRUSTED_PROXY_HOPS")? {
                n if n >= 1.0 && n.fract() == 0.0 => n as usize,
                _ => {
                    return Err(ConfigError::Invalid {
                        name: "PENSIVE_TRUSTED_PROXY_HOPS",
                        value: v,
                        why: "expected a whole number of proxies, at least 1",
                    })
                }
            },
            None => defaults.trusted_proxy_hops,
        },
        max_turn_bytes: count("PENSIVE_MAX_TURN_BYTES", defaults.max_turn_bytes as usize)? as u64,
        max_turn_duration: seconds("PENSIVE_MAX_TURN_SECS", defaults.max_turn_duration)?,
        header_timeout: seconds("PENSIVE_HEADER_TIMEOUT_SECS", defaults.header_timeout)?,
        max_connections: count("PENSIVE_MAX_CONNECTIONS", defaults.max_connections)?,
        body_timeout: seconds("PENSIVE_BODY_TIMEOUT_SECS", defaults.body_timeout)?,
        max_tool_calls: count("PENSIVE_MAX_TOOL_CALLS", defaults.max_tool_calls)?,
        tool_decision_time: seconds("PENSIVE_TOOL_DECISION_SECS", defaults.tool_decision_time)?,
        max_tool_time: seconds("PENSIVE_MAX_TOOL_SECS", defaults.max_tool_time)?,
        turn_retention: seconds("PENSIVE_TURN_RETENTION_SECS", defaults.turn_retention)?,
        max_turn_logs_bytes: count("PENSIVE_MAX_TURN_LOGS_BYTES", defaults.max_turn_logs_bytes)?,
        redis_url: redis_url(get)?,
    })
}

/// `PENSIVE_REDIS_URL`: the Redis replicas share (`redis://host:port/db`);
/// unset or empty, everything stays in this process.
fn redis_url(get: &impl Fn(&str) -> Option<String>) -> Result<Option<Secret>, ConfigError> {
    let Some(url) = get("PENSIVE_REDIS_URL").filter(|url| !url.trim().is_empty()) else {
        return Ok(None);
    };
    // The URL may hold a password: the error names the setting, not the value.
    if redis::Client::open(url.trim()).is_err() {
        return Err(ConfigError::Secret {
            name: "PENSIVE_REDIS_URL",
            why: "is not a Redis URL (expected redis://host:port or redis://host:port/db)",
        });
    }
    Ok(Some(Secret::from(url.trim().to_owned())))
}

/// The access token must be long enough not to be guessed at ten tries a
/// minute, and made of characters a cookie or a form carries unchanged
/// (RFC 6265 cookie-octets: printable ASCII without space, `"`, `,`, `;`, `\`).
fn validate_access_token(token: &str) -> Result<(), ConfigError> {
    const NAME: &str = "PENSIVE_ACCESS_TOKEN";
    let cookie_safe = |c: char| c.is_ascii_graphic() && !matches!(c, '"' | ',' | ';' | '\\');
    if !token.chars().all(cookie_safe) {
        return Err(ConfigError::Secret {
            name: NAME,
            why: "may hold only printable ASCII without spaces, quotes, commas, semicolons or backslashes",
        });
    }
    if token.chars().count() < 16 {
        return Err(ConfigError::Secret {
            name: NAME,
            why: "is too short: use at least 16 characters (e.g. `openssl rand -hex 16`)",
        });
    }
    Ok(())
}

/// `PENSIVE_ALLOWED_HOSTS`, `PENSIVE_COOKIE_SECRET` and `PENSIVE_ALLOW_OPEN`.
fn site_access_from(get: &impl Fn(&str) -> Option<String>) -> Result<SiteAccess, ConfigError> {
    let allowed_hosts = get("PENSIVE_ALLOWED_HOSTS")
        .unwrap_or_default()
        .split(',')
        .map(|entry| entry.trim().to_ascii_lowercase())
        .filter(|entry| !entry.is_empty())
        .map(|entry| {
            let bad = entry.contains("://")
                || entry.contains('/')
                || entry.contains('*')
                || entry.chars().any(char::is_whitespace);
            if bad {
                Err(ConfigError::Invalid {
                    name: "PENSIVE_ALLOWED_HOSTS",
                    value: entry,
                    why: "expected host names, comma-separated, like chat.example.com or chat.example.com:8443 (no scheme, no path)",
                })
            } else {
                Ok(entry)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let cookie_secret = match get("PENSIVE_COOKIE_SECRET") {
        Some(secret) if secret.chars().count() < 32 => {
            return Err(ConfigError::Secret {
                name: "PENSIVE_COOKIE_SECRET",
                why: "is too short: use at least 32 characters (e.g. `openssl rand -hex 32`)",
            })
        }
        other => other.map(Secret::from),
    };
    let allow_open = match get("PENSIVE_ALLOW_OPEN") {
        Some(value) => parse_switch(&value, "PENSIVE_ALLOW_OPEN")?,
        None => false,
    };
    Ok(SiteAccess {
        allowed_hosts,
        revoked_sessions: crate::server::http::sessions::default_path(get),
        cookie_secret,
        allow_open,
    })
}

fn is_truthy(value: Option<&str>) -> bool {
    matches!(value, Some("1") | Some("true") | Some("yes") | Some("on"))
}

/// An on/off setting: `1/true/on/yes` or `0/false/off/no`, any case, spaces
/// around ignored. Anything else is refused rather than guessed: a kill switch
/// that silently stays on (`FALSE`) is worse than a server that will not start.
fn parse_switch(value: &str, name: &'static str) -> Result<bool, ConfigError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Ok(true),
        "0" | "false" | "off" | "no" => Ok(false),
        _ => Err(ConfigError::Invalid {
            name,
            value: value.into(),
            why: "expected 1, true, on or yes, or 0, false, off or no",
        }),
    }
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

/// A file of Pensive's state that outlives the process: `override_var` when
/// set, else `$XDG_STATE_HOME/pensive/<name>`, else
/// `$HOME/.local/state/pensive/<name>`; `None` without a home.
pub(crate) fn state_file(
    get: impl Fn(&str) -> Option<String>,
    override_var: &str,
    name: &str,
) -> Option<std::path::PathBuf> {
    if let Some(path) = get(override_var) {
        return Some(std::path::PathBuf::from(path));
    }
    let state_home = get("XDG_STATE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| get("HOME").map(|home| std::path::Path::new(&home).join(".local/state")))?;
    Some(state_home.join("pensive").join(name))
}
