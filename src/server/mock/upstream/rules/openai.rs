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
//! - GPT-6 (read 2026-12-05): no primary OpenAI page was found in the stored
//!   copies; third parties quote it. LibreChat#15560 quotes OpenAI's GPT-6
//!   Astra guidance: "`reasoning_effort: none` is **not supported**. If an
//!   existing configuration uses `none` or `minimal`, OpenAI recommends
//!   starting with `low`" and "Tool calling requires the Responses API.
//!   Chat Completions is still supported for non-tool use."
//!   BerriAI/litellm-docs#1173, verified against the live API: "Chat
//!   Completions accepts `low`, `medium`, `high`, and `xhigh`, Responses API
//!   adds `max`, and `none` / `minimal` are rejected". bolna-ai/bolna#1019
//!   measured `[low, medium, high, xhigh, max]` and function tools refused
//!   on chat completions "at every effort level"; langchain#40330: OpenAI
//!   publishes no default. Sol, Luna and the issue's `gpt-6.1-terra` are
//!   listed alike (onyx-dot-app/onyx#15008 names gpt-6-sol). The wording of
//!   GPT-6's effort 400 was not found: it is OpenAI's usual one.
//! - Function tools with reasoning on Chat Completions, the 400s verbatim
//!   (`param: "reasoning_effort"`, `code: null`): gpt-5.4 (pipecat#4043,
//!   openai-openapi#541), gpt-5.5 (charmbracelet/crush#2913) "… Please use
//!   /v1/responses instead." — livekit/agents#5088 and #7169: gpt-5.2 and
//!   5.4 take tools with the effort absent. gpt-5.6 (BerriAI/litellm#34569,
//!   LibreChat#14355, webmcp-tools#417) and gpt-6-sol (onyx#15008): "… To
//!   use function tools, use /v1/responses or set reasoning_effort to
//!   'none'.", and "gpt-5.6 applies a default reasoning effort, so the raw
//!   OpenAI API rejects tools even when the request sets no
//!   `reasoning_effort` at all; only an explicit "none" is accepted"
//!   (litellm#34569).

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
        &["gpt-6-astra", "gpt-6-sol", "gpt-6-luna", "gpt-6.1-terra"],
        Some(&["low", "medium", "high", "xhigh", "max"]),
    ),
    (
        &["o1", "o3", "o3-mini", "o4-mini"],
        Some(&["low", "medium", "high"]),
    ),
];

/// GPT-6 on Chat Completions: `max` is the Responses API's alone
/// (litellm-docs#1173).
const GPT_6: &[&str] = &["gpt-6-astra", "gpt-6-sol", "gpt-6-luna", "gpt-6.1-terra"];
const GPT_6_CHAT: &[&str] = &["low", "medium", "high", "xhigh"];

/// Chat Completions refuses function tools with a reasoning effort: these
/// take them with the effort absent or `none`…
const TOOLS_WITHOUT_EFFORT: &[&str] = &[
    "gpt-5.2",
    "gpt-5.4",
    "gpt-5.4-mini",
    "gpt-5.4-nano",
    "gpt-5.5",
];
/// …and these (they reason unasked, at medium) only with an explicit `none`.
const TOOLS_WITH_NONE_ONLY: &[&str] = &[
    "gpt-5.6",
    "gpt-5.6-sol",
    "gpt-5.6-terra",
    "gpt-5.6-luna",
    "gpt-6-astra",
    "gpt-6-sol",
    "gpt-6-luna",
    "gpt-6.1-terra",
];

fn listed(ids: &[&str], name: &str) -> bool {
    ids.iter().any(|id| is_model(name, id))
}

fn efforts(name: &str) -> Option<Option<&'static [&'static str]>> {
    MODELS
        .iter()
        .find(|(ids, _)| ids.iter().any(|id| is_model(name, id)))
        .map(|(_, words)| *words)
}

pub(super) fn knows(name: &str) -> bool {
    efforts(name).is_some()
}

/// Whether the model `name` thinks at `effort` (`none` turns reasoning off).
fn thinks(name: &str, effort: Option<&Value>, words: Option<&[&str]>) -> Thinks {
    match (effort.and_then(Value::as_str), words) {
        (_, None) | (Some("none"), _) => Thinks::No,
        // Without a word, the default: gpt-5.6 reasons at medium ("If you
        // omit reasoning.effort, GPT-5.6 defaults to medium", OpenAI's
        // reasoning guide as quoted in inspect_ai#5162; litellm#34569)…
        (None, _) if listed(TOOLS_WITH_NONE_ONLY, name) => Thinks::Shown,
        // …gpt-5.1 to 5.5 default to none where they take it.
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
        _ => Ok(thinks(name, effort, words)),
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
    let words = if listed(GPT_6, name) {
        Some(GPT_6_CHAT)
    } else {
        words
    };
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
        _ => tools_while_reasoning(name, body).map(|()| thinks(name, effort, words)),
    })
}

/// Chat Completions' refusal of function tools sent with a reasoning effort.
fn tools_while_reasoning(name: &str, body: &Value) -> Result<(), Refusal> {
    let has_tools = body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|tools| !tools.is_empty());
    let effort = body.get("reasoning_effort").and_then(Value::as_str);
    let advice = if listed(TOOLS_WITH_NONE_ONLY, name) && effort != Some("none") {
        "To use function tools, use /v1/responses or set reasoning_effort to 'none'."
    } else if listed(TOOLS_WITHOUT_EFFORT, name) && effort.is_some_and(|e| e != "none") {
        "Please use /v1/responses instead."
    } else {
        return Ok(());
    };
    if !has_tools {
        return Ok(());
    }
    Err((
        400,
        serde_json::json!({"error": {
            "message": format!("Function tools with reasoning_effort are not supported for {name} in /v1/chat/completions. {advice}"),
            "type": "invalid_request_error",
            "param": "reasoning_effort",
            "code": null,
        }}),
    ))
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

#[cfg(test)]
mod newer_rules {
    use super::*;
    use serde_json::json;

    use super::super::message_of as message;

    #[test]
    fn gpt_6_takes_low_to_max_on_responses_and_low_to_xhigh_on_chat() {
        let responses = |name: &str, effort: &str| {
            message(check_responses(
                name,
                &json!({"reasoning": {"effort": effort}}),
            ))
        };
        assert_eq!(
            responses("gpt-6-sol", "none"),
            "Unsupported value: 'none' is not supported with the 'gpt-6-sol' model. Supported values are: 'low', 'medium', 'high', 'xhigh', and 'max'."
        );
        assert!(responses("gpt-6.1-terra", "minimal").starts_with("Unsupported value: 'minimal'"));
        assert_eq!(responses("gpt-6-luna", "max"), "accepted: Shown");
        assert_eq!(responses("gpt-6-astra", "low"), "accepted: Shown");
        let chat = |name: &str, effort: &str| {
            check_chat(name, &json!({"reasoning_effort": effort}))
                .map(message)
                .unwrap_or_default()
        };
        assert_eq!(
            chat("gpt-6-sol", "max"),
            "Unsupported value: 'reasoning_effort' does not support 'max' with this model. Supported values are: 'low', 'medium', 'high', and 'xhigh'."
        );
        assert!(chat("gpt-6-luna", "none").starts_with("Unsupported value"));
        assert_eq!(chat("gpt-6-sol", "xhigh"), "accepted: Shown");
        assert_eq!(chat("gpt-5.6-sol", "max"), "accepted: Shown");
    }

    /// A chat request carrying one function tool, at `effort` (or none named).
    fn with_tools(name: &str, effort: Option<&str>) -> String {
        let mut body = json!({"tools": [{"type": "function", "function": {
            "name": "builtin__calculate", "parameters": {"type": "object"}}}]});
        if let Some(effort) = effort {
            body["reasoning_effort"] = json!(effort);
        }
        check_chat(name, &body).map(message).unwrap_or_default()
    }

    #[test]
    fn gpt_5_6_and_gpt_6_reason_when_no_effort_is_named() {
        assert_eq!(
            message(check_responses("gpt-5.6-sol", &json!({}))),
            "accepted: Shown"
        );
        assert_eq!(
            message(check_responses("gpt-6-sol", &json!({}))),
            "accepted: Shown"
        );
        assert_eq!(
            check_chat("gpt-5.6", &json!({})).map(message),
            Some("accepted: Shown".into())
        );
        // gpt-5.1 to 5.5 default to none.
        assert_eq!(
            message(check_responses("gpt-5.5", &json!({}))),
            "accepted: No"
        );
    }

    #[test]
    fn chat_completions_refuse_function_tools_while_reasoning() {
        assert_eq!(
            with_tools("gpt-5.6-sol", Some("high")),
            "Function tools with reasoning_effort are not supported for gpt-5.6-sol in /v1/chat/completions. To use function tools, use /v1/responses or set reasoning_effort to 'none'."
        );
        // gpt-5.6 reasons by default: tools need an explicit `none`.
        assert!(with_tools("gpt-5.6", None).starts_with("Function tools with reasoning_effort"));
        assert_eq!(with_tools("gpt-5.6", Some("none")), "accepted: No");
        assert!(with_tools("gpt-6-sol", Some("low")).ends_with("set reasoning_effort to 'none'."));
        assert_eq!(
            with_tools("gpt-5.4", Some("low")),
            "Function tools with reasoning_effort are not supported for gpt-5.4 in /v1/chat/completions. Please use /v1/responses instead."
        );
        assert_eq!(with_tools("gpt-5.4", None), "accepted: No");
        assert_eq!(with_tools("gpt-5.2", Some("none")), "accepted: No");
        assert_eq!(with_tools("gpt-5.1", Some("high")), "accepted: Shown");
        let (status, body) = match check_chat(
            "gpt-5.5",
            &json!({"tools": [{"type": "function"}], "reasoning_effort": "xhigh"}),
        ) {
            Some(Err(refusal)) => refusal,
            other => panic!("gpt-5.5 with tools at xhigh: {other:?}"),
        };
        assert_eq!(status, 400);
        assert_eq!(body["error"]["param"], "reasoning_effort");
        assert_eq!(body["error"]["code"], Value::Null);
        // Without tools the same efforts are taken.
        assert_eq!(
            check_chat("gpt-5.6-sol", &json!({"reasoning_effort": "high"})).map(message),
            Some("accepted: Shown".into())
        );
    }
}
