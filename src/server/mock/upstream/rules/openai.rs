//! OpenAI's reasoning models, on the Responses API (`reasoning.effort`) and
//! Chat Completions (`reasoning_effort`, `max_completion_tokens`).
//!
//! Sources (read 2026-12-03 through stored copies):
//! - The `ReasoningEffort` reference (mirrored at
//!   learn.microsoft.com/javascript/api/@azure/ai-projects/reasoningeffort):
//!   "gpt-5.1 defaults to none … All models before gpt-5.1 default to medium
//!   … and do not support none. The gpt-5-pro model defaults to (and only
//!   supports) high … xhigh is supported for all models after gpt-5.1-codex-max."
//! - The 400s, verbatim: opencode#4451 (gpt-5.1), openai/codex#6647
//!   (gpt-5.1-codex refuses none), models.dev#331 (gpt-5-pro), Laisky/one-api
//!   #266 and #285 (chat-latest: medium only), #120 (gpt-5-chat-latest takes
//!   no effort), earendil-works/pi#1334 (gpt-5.2), vscode#301045 (gpt-5-mini),
//!   chatwise-releases#1257 (the Chat Completions wording), rust-genai#139
//!   (`max_tokens` refused).
//! - Live-tested tables: community.openai.com thread 1371738, models.dev
//!   #2074/#2296/#2439 (gpt-5-codex without minimal, gpt-5.1-codex-mini low
//!   to high, 5.2/5.3 codex with xhigh, 5.4/5.5 pro from medium),
//!   opencode#36141 (gpt-5.6 `reasoning_options` with max).

use serde_json::Value;

use super::{is_model, openai_error, openai_list, Refusal, Thinks};

/// The effort words each model takes, in OpenAI's words; `None`: the model
/// takes no reasoning parameter at all.
const MODELS: &[(&[&str], Option<&[&str]>)] = &[
    (
        &["gpt-5", "gpt-5-mini", "gpt-5-nano"],
        Some(&["minimal", "low", "medium", "high"]),
    ),
    (&["gpt-5-pro"], Some(&["high"])),
    (
        &[
            "gpt-5-codex",
            "gpt-5-codex-mini",
            "gpt-5.1-codex",
            "gpt-5.1-codex-mini",
        ],
        Some(&["low", "medium", "high"]),
    ),
    (&["gpt-5-chat-latest"], None),
    (&["gpt-5.1"], Some(&["none", "low", "medium", "high"])),
    (
        &["gpt-5.1-codex-max", "gpt-5.2-codex", "gpt-5.3-codex"],
        Some(&["low", "medium", "high", "xhigh"]),
    ),
    (
        &["gpt-5.1-chat-latest", "gpt-5.2-chat-latest"],
        Some(&["medium"]),
    ),
    (
        &[
            "gpt-5.2",
            "gpt-5.4",
            "gpt-5.4-mini",
            "gpt-5.4-nano",
            "gpt-5.5",
        ],
        Some(&["none", "low", "medium", "high", "xhigh"]),
    ),
    (
        &["gpt-5.2-pro", "gpt-5.4-pro", "gpt-5.5-pro"],
        Some(&["medium", "high", "xhigh"]),
    ),
    (
        &["gpt-5.6", "gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna"],
        Some(&["none", "low", "medium", "high", "xhigh", "max"]),
    ),
    (
        &["o1", "o3", "o3-mini", "o4-mini"],
        Some(&["low", "medium", "high"]),
    ),
];

fn efforts(name: &str) -> Option<Option<&'static [&'static str]>> {
    MODELS
        .iter()
        .find(|(ids, _)| ids.iter().any(|id| is_model(name, id)))
        .map(|(_, words)| *words)
}

pub(super) fn knows(name: &str) -> bool {
    efforts(name).is_some()
}

/// Whether the model thinks at `effort` (`none` turns reasoning off).
fn thinks(effort: Option<&Value>, words: Option<&[&str]>) -> Thinks {
    match (effort.and_then(Value::as_str), words) {
        (_, None) | (Some("none"), _) => Thinks::No,
        // Without a word, the default: none from gpt-5.1 on where taken.
        (None, Some(words)) if words.first() == Some(&"none") => Thinks::No,
        _ => Thinks::Shown,
    }
}

/// `POST /v1/responses`.
pub(super) fn check_responses(name: &str, body: &Value) -> Result<Thinks, Refusal> {
    let Some(words) = efforts(name) else {
        return Ok(Thinks::Shown);
    };
    let effort = body.pointer("/reasoning/effort");
    match (effort, words) {
        (Some(_), None) => Err(openai_error(
            "Unsupported parameter: 'reasoning.effort' is not supported with this model.".into(),
            "reasoning.effort",
            "unsupported_parameter",
        )),
        (Some(value), Some(words)) if !value.as_str().is_some_and(|w| words.contains(&w)) => {
            let word = value.as_str().unwrap_or("");
            Err(openai_error(
                format!(
                    "Unsupported value: '{word}' is not supported with the '{name}' model. Supported values are: {}.",
                    openai_list(words)
                ),
                "reasoning.effort",
                "unsupported_value",
            ))
        }
        _ => Ok(thinks(effort, words)),
    }
}

/// `POST /v1/chat/completions` to one of OpenAI's own models; `None` for
/// other models (another server's rules may apply).
pub(super) fn check_chat(name: &str, body: &Value) -> Option<Result<Thinks, Refusal>> {
    let words = efforts(name)?;
    // OpenAI refuses parameters it does not know.
    for extra in ["chat_template_kwargs", "thinking", "reasoning_control"] {
        if body.get(extra).is_some() {
            return Some(Err(openai_error(
                format!("Unrecognized request argument supplied: {extra}"),
                extra,
                "unknown_parameter",
            )));
        }
    }
    if body.get("max_tokens").is_some() {
        return Some(Err(openai_error(
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.".into(),
            "max_tokens",
            "unsupported_parameter",
        )));
    }
    let effort = body.get("reasoning_effort");
    Some(match (effort, words) {
        (Some(_), None) => Err(openai_error(
            "Unsupported parameter: 'reasoning_effort' is not supported with this model.".into(),
            "reasoning_effort",
            "unsupported_parameter",
        )),
        (Some(value), Some(words)) if !value.as_str().is_some_and(|w| words.contains(&w)) => {
            Err(openai_error(
                format!(
                    "Unsupported value: 'reasoning_effort' does not support '{}' with this model. Supported values are: {}.",
                    value.as_str().unwrap_or(""),
                    openai_list(words)
                ),
                "reasoning_effort",
                "unsupported_value",
            ))
        }
        _ => Ok(thinks(effort, words)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use super::super::message_of as message;

    #[test]
    fn the_quoted_400s_come_back_word_for_word() {
        let responses = |name: &str, effort: &str| {
            message(check_responses(
                name,
                &json!({"reasoning": {"effort": effort}}),
            ))
        };
        assert_eq!(
            responses("gpt-5.1", "minimal"),
            "Unsupported value: 'minimal' is not supported with the 'gpt-5.1' model. Supported values are: 'none', 'low', 'medium', and 'high'."
        );
        assert_eq!(
            responses("gpt-5.1-codex", "none"),
            "Unsupported value: 'none' is not supported with the 'gpt-5.1-codex' model. Supported values are: 'low', 'medium', and 'high'."
        );
        assert_eq!(
            responses("gpt-5-pro", "medium"),
            "Unsupported value: 'medium' is not supported with the 'gpt-5-pro' model. Supported values are: 'high'."
        );
        assert!(responses("gpt-5-chat-latest", "low").starts_with("Unsupported parameter"));
        assert_eq!(responses("gpt-5.2", "none"), "accepted: No");
        assert_eq!(responses("gpt-5.6-sol", "max"), "accepted: Shown");
        let chat = |body: Value| check_chat("gpt-5.1-chat-latest", &body).map(message);
        assert_eq!(
            chat(json!({"reasoning_effort": "high"})).as_deref(),
            Some("Unsupported value: 'reasoning_effort' does not support 'high' with this model. Supported values are: 'medium'.")
        );
        assert!(
            chat(json!({"max_tokens": 10})).is_some_and(|m| m.contains("max_completion_tokens"))
        );
        assert_eq!(check_chat("qwen3", &json!({})), None);
    }
}
