//! The providers' rules for reasoning parameters, as the real APIs enforce
//! them, with their 400 bodies: decided by the model name in the request (the
//! same family rules Pensive uses, `providers::reasoning`), so a test can show
//! both that Pensive's request is accepted and that a wrong one is refused the
//! way the provider refuses it. A name the mock does not know (`mock-model`)
//! passes every rule. Messages quoted from the providers are marked in
//! docs/decisions.md; the others follow their shape.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::server::providers::reasoning::{
    anthropic_family, gemini_family, openai_efforts, GeminiFamily, ThinkingStyle,
};
use crate::server::providers::wire::{Dialect, UpstreamModel};
use crate::turn::Effort;

/// The provider's refusal of this request, if its rules refuse it.
pub(super) fn refusal(dialect: Dialect, path: &str, body: &Value) -> Option<Response> {
    let name = body.get("model").and_then(Value::as_str).unwrap_or("");
    match dialect {
        Dialect::Anthropic => anthropic(name, body).map(|message| {
            bad_request(json!({
                "type": "error",
                "error": {"type": "invalid_request_error", "message": message},
            }))
        }),
        Dialect::Gemini => {
            let name = path
                .split("models/")
                .nth(1)
                .and_then(|rest| rest.split(':').next())
                .unwrap_or("");
            gemini(name, body).map(|message| {
                bad_request(json!({
                    "error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"},
                }))
            })
        }
        Dialect::Responses => openai(name, body.pointer("/reasoning/effort"), "reasoning.effort"),
        Dialect::Chat => chat(name, body),
        Dialect::Ollama => ollama(name, body).map(|message| bad_request(json!({"error": message}))),
    }
}

fn bad_request(body: Value) -> Response {
    (StatusCode::BAD_REQUEST, Json(body)).into_response()
}

/// OpenAI's error body.
fn openai_error(message: String, param: &str, code: &str) -> Response {
    bad_request(json!({
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": param,
            "code": code,
        }
    }))
}

fn anthropic(name: &str, body: &Value) -> Option<String> {
    let family = anthropic_family(&UpstreamModel {
        name: name.into(),
        ..UpstreamModel::default()
    })?;
    let thinking = body.get("thinking");
    let kind = thinking.and_then(|t| t.get("type")).and_then(Value::as_str);
    if family.adaptive_only {
        if kind == Some("enabled") {
            return Some("\"thinking.type.enabled\" is not supported for this model. Use \"thinking.type.adaptive\" and \"output_config.effort\" to control thinking behavior.".into());
        }
        for sampling in ["temperature", "top_p", "top_k"] {
            if body.get(sampling).is_some() {
                return Some(format!("`{sampling}` is deprecated for this model."));
            }
        }
    }
    if family.style == ThinkingStyle::None && thinking.is_some() {
        return Some(format!("{name} does not support thinking."));
    }
    match kind {
        Some("adaptive") if family.style != ThinkingStyle::Adaptive => {
            return Some("adaptive thinking is not supported on this model".into());
        }
        Some("adaptive") if thinking.is_some_and(|t| t.get("budget_tokens").is_some()) => {
            return Some("thinking.adaptive.budget_tokens: Extra inputs are not permitted".into());
        }
        Some("enabled") => {
            let budget = thinking
                .and_then(|t| t.get("budget_tokens"))
                .and_then(Value::as_u64)
                .unwrap_or(0);
            let max_tokens = body.get("max_tokens").and_then(Value::as_u64).unwrap_or(0);
            if budget < 1024 {
                return Some(
                    "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
                        .into(),
                );
            }
            if max_tokens <= budget {
                return Some("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size".into());
            }
        }
        _ => {}
    }
    if let Some(effort) = body.pointer("/output_config/effort") {
        let mut allowed = vec!["low", "medium", "high", "max"];
        if family.xhigh {
            allowed.insert(3, "xhigh");
        }
        if !effort.as_str().is_some_and(|e| allowed.contains(&e)) {
            let quoted: Vec<String> = allowed.iter().map(|w| format!("'{w}'")).collect();
            return Some(format!(
                "output_config.effort: Input should be {}",
                quoted.join(", ")
            ));
        }
    }
    None
}

fn gemini(name: &str, body: &Value) -> Option<String> {
    let family = gemini_family(name)?;
    let config = body.pointer("/generationConfig/thinkingConfig");
    let level = config
        .and_then(|c| c.get("thinkingLevel"))
        .and_then(Value::as_str);
    let budget = config
        .and_then(|c| c.get("thinkingBudget"))
        .and_then(Value::as_i64);
    if level.is_some() && budget.is_some() {
        return Some("You can only set one of thinking budget and thinking level.".into());
    }
    match family {
        GeminiFamily::Budget { pro } => {
            if level.is_some() {
                return Some("Thinking level is not supported for this model.".into());
            }
            match budget {
                Some(0) if pro => {
                    Some("Budget 0 is invalid. This model only works in thinking mode.".into())
                }
                Some(b) if b != -1 && (b < 0 || b > if pro { 32_768 } else { 24_576 }) => {
                    Some(format!("The thinking budget ({b}) is invalid."))
                }
                Some(b) if pro && (0..128).contains(&b) => {
                    Some(format!("The thinking budget ({b}) is invalid."))
                }
                _ => None,
            }
        }
        GeminiFamily::Level { pro } => {
            let level = level?.to_ascii_lowercase();
            let allowed: &[&str] = if pro {
                &["low", "high"]
            } else {
                &["minimal", "low", "medium", "high"]
            };
            (!allowed.contains(&level.as_str())).then(|| {
                format!(
                    "Thinking level {} is not supported for this model.",
                    level.to_ascii_uppercase()
                )
            })
        }
    }
}

/// OpenAI's own models: an effort word the model does not take.
fn openai(name: &str, effort: Option<&Value>, param: &str) -> Option<Response> {
    let family = openai_efforts(name)?;
    let word = effort?.as_str().unwrap_or("");
    let words: Vec<&str> = family
        .words
        .iter()
        .map(|e| match e {
            Effort::Off => "none",
            other => other.as_str(),
        })
        .collect();
    if words.contains(&word) {
        return None;
    }
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let supported = match quoted.as_slice() {
        [one] => one.clone(),
        [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
        [] => String::new(),
    };
    Some(openai_error(
        format!("Unsupported value: '{word}' is not supported with the '{name}' model. Supported values are: {supported}."),
        param,
        "unsupported_value",
    ))
}

fn chat(name: &str, body: &Value) -> Option<Response> {
    if openai_efforts(name).is_some() && !name.contains("gpt-oss") {
        // OpenAI refuses parameters it does not know.
        for extra in ["chat_template_kwargs", "thinking", "reasoning_control"] {
            if body.get(extra).is_some() {
                return Some(openai_error(
                    format!("Unrecognized request argument supplied: {extra}"),
                    extra,
                    "unknown_parameter",
                ));
            }
        }
        return openai(name, body.get("reasoning_effort"), "reasoning_effort");
    }
    if name.starts_with("deepseek-") {
        if let Some(kind) = body.pointer("/thinking/type") {
            if !matches!(kind.as_str(), Some("enabled" | "disabled")) {
                return Some(openai_error(
                    "thinking.type: expected one of `enabled`, `disabled`".into(),
                    "thinking",
                    "invalid_request_error",
                ));
            }
        }
        if let Some(effort) = body.get("reasoning_effort") {
            let known = ["minimal", "low", "medium", "high", "xhigh", "max", "ultra"];
            if !effort.as_str().is_some_and(|e| known.contains(&e)) {
                return Some(openai_error(
                    format!("reasoning_effort: unknown value {effort}"),
                    "reasoning_effort",
                    "invalid_request_error",
                ));
            }
        }
    }
    None
}

fn ollama(name: &str, body: &Value) -> Option<String> {
    let base = name.split(':').next().unwrap_or(name);
    let think = body.get("think")?;
    if base.starts_with("gpt-oss") {
        // gpt-oss reasons at a level; `false` is ignored, `true` means medium.
        return match think {
            Value::Bool(_) => None,
            Value::String(level) if matches!(level.as_str(), "low" | "medium" | "high") => None,
            other => Some(format!("invalid think value: {other}")),
        };
    }
    let switch = crate::server::providers::reasoning::family_efforts(
        Dialect::Ollama,
        &UpstreamModel {
            name: name.into(),
            ..UpstreamModel::default()
        },
    )
    .is_some();
    match think {
        Value::String(level) if switch => Some(format!(
            "think value \"{level}\" is not supported for this model"
        )),
        _ => None,
    }
}
