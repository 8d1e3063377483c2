//! The OpenAI-compatible servers that are not OpenAI, on
//! `/v1/chat/completions`: DeepSeek's and Kimi's APIs by model id, and the
//! open-weight servers (vLLM, SGLang, llama.cpp) by their request fields.
//!
//! Sources (read 2026-12-03 through stored copies):
//! - DeepSeek: api-docs.deepseek.com (thinking mode, V4): `thinking: {type:
//!   "enabled" | "disabled"}`, on by default; `reasoning_effort` low, high,
//!   max (`none` turns it off; the server takes none, minimal, low, medium,
//!   high, xhigh, max). An unknown word is a 422 from its JSON reader,
//!   quoted verbatim from a DeepSeek 422 (kimi_deepseek research notes).
//! - Kimi: platform.kimi.com/docs/api/models-overview and
//!   platform.moonshot.cn "use kimi-k2-thinking model": K2.5/K2.6 switch with
//!   `thinking`; `cannot specify both 'thinking' and 'reasoning_effort'`
//!   (HKUDS/nanobot#3939); kimi-k2.7-code refuses `disabled`: "invalid
//!   thinking: only type=enabled is allowed for this model"
//!   (MoonshotAI/kimi-code#797); K3 takes `reasoning_effort` low, high, max.
//! - vLLM (docs/features/reasoning_outputs) and llama.cpp's server
//!   (tools/server, `chat_template_kwargs` must hold a JSON bool:
//!   `enable_thinking` as a string is a 400; `reasoning_effort: "none"`
//!   turns thinking off).

use serde_json::{json, Value};

use super::{openai_error, Refusal, Thinks};

/// DeepSeek's API models (V4; deepseek-chat and -reasoner were retired on 2026-07-24).
const DEEPSEEK: &[&str] = &["deepseek-v4-pro", "deepseek-v4-flash", "deepseek-flash"];
/// The words DeepSeek's server reads for `reasoning_effort`.
const DEEPSEEK_WORDS: &[&str] = &["none", "minimal", "low", "medium", "high", "xhigh", "max"];

/// DeepSeek's and Kimi's models, and the Qwen3 family whose template
/// switch vLLM and SGLang document.
pub(super) fn knows(name: &str) -> bool {
    DEEPSEEK.contains(&name)
        || name.starts_with("kimi-")
        || name.to_ascii_lowercase().contains("qwen3")
}

/// The verdict on a chat request to a server that is not OpenAI.
pub(super) fn check(name: &str, body: &Value) -> Result<Thinks, Refusal> {
    if DEEPSEEK.contains(&name) {
        return deepseek(body);
    }
    if name.starts_with("kimi-") {
        return kimi(name, body);
    }
    open_weight(body)
}

fn deepseek(body: &Value) -> Result<Thinks, Refusal> {
    let effort = body.get("reasoning_effort");
    if let Some(effort) = effort {
        if !effort.as_str().is_some_and(|e| DEEPSEEK_WORDS.contains(&e)) {
            let shown = effort.as_str().map_or(effort.to_string(), str::to_owned);
            return Err((
                422,
                json!({"error": {"message": format!("Failed to deserialize the JSON body into the target type: reasoning_effort: unknown variant `{shown}`, expected one of `none`, `minimal`, `low`, `medium`, `high`, `xhigh`, `max`"), "type": "invalid_request_error", "param": null, "code": "invalid_request_error"}}),
            ));
        }
    }
    match body.pointer("/thinking/type").and_then(Value::as_str) {
        Some("disabled") => Ok(Thinks::No),
        Some("enabled") | None if effort.and_then(Value::as_str) == Some("none") => Ok(Thinks::No),
        Some("enabled") | None => Ok(Thinks::Shown),
        Some(other) => Err(openai_error(
            format!("thinking.type: unknown variant `{other}`, expected `enabled` or `disabled`"),
            "thinking",
            "invalid_request_error",
        )),
    }
}

fn kimi(name: &str, body: &Value) -> Result<Thinks, Refusal> {
    let thinking = body.pointer("/thinking/type").and_then(Value::as_str);
    let effort = body.get("reasoning_effort").and_then(Value::as_str);
    if thinking.is_some() && effort.is_some() {
        return Err(openai_error(
            "cannot specify both 'thinking' and 'reasoning_effort'".into(),
            "thinking",
            "invalid_request_error",
        ));
    }
    let always_on = name.contains("k3") || name.contains("code") || name.contains("thinking");
    match thinking {
        Some("disabled") if always_on => Err(openai_error(
            "invalid thinking: only type=enabled is allowed for this model".into(),
            "thinking",
            "invalid_request_error",
        )),
        Some("disabled") => Ok(Thinks::No),
        _ => match effort {
            Some(word) if name.contains("k3") && !["low", "high", "max"].contains(&word) => {
                Err(openai_error(
                    format!("invalid reasoning_effort: {word}, expected one of low, high, max"),
                    "reasoning_effort",
                    "invalid_request_error",
                ))
            }
            _ => Ok(Thinks::Shown),
        },
    }
}

fn open_weight(body: &Value) -> Result<Thinks, Refusal> {
    if let Some(switch) = body.pointer("/chat_template_kwargs/enable_thinking") {
        return match switch.as_bool() {
            Some(false) => Ok(Thinks::No),
            Some(true) => Ok(Thinks::Shown),
            None => Err(openai_error(
                "chat_template_kwargs: enable_thinking must be a boolean".into(),
                "chat_template_kwargs",
                "invalid_request_error",
            )),
        };
    }
    match body.get("reasoning_effort").and_then(Value::as_str) {
        Some("none") => Ok(Thinks::No),
        _ => Ok(Thinks::Shown),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deepseek_kimi_and_open_weight_servers() {
        assert_eq!(
            check(
                "deepseek-v4-pro",
                &json!({"thinking": {"type": "disabled"}})
            ),
            Ok(Thinks::No)
        );
        assert_eq!(
            check(
                "deepseek-v4-pro",
                &json!({"thinking": {"type": "enabled"}, "reasoning_effort": "max"})
            ),
            Ok(Thinks::Shown)
        );
        let (status, _) =
            check("deepseek-flash", &json!({"reasoning_effort": "ultra-max"})).unwrap_err();
        assert_eq!(status, 422);
        assert!(check(
            "kimi-k2.6",
            &json!({"thinking": {"type": "enabled"}, "reasoning_effort": "high"})
        )
        .is_err());
        assert_eq!(
            check("kimi-k2.6", &json!({"thinking": {"type": "disabled"}})),
            Ok(Thinks::No)
        );
        assert!(check("kimi-k2.7-code", &json!({"thinking": {"type": "disabled"}})).is_err());
        assert!(check("kimi-k3", &json!({"reasoning_effort": "medium"})).is_err());
        assert_eq!(
            check(
                "Qwen/Qwen3-8B",
                &json!({"chat_template_kwargs": {"enable_thinking": false}})
            ),
            Ok(Thinks::No)
        );
        assert!(check(
            "Qwen/Qwen3-8B",
            &json!({"chat_template_kwargs": {"enable_thinking": "false"}})
        )
        .is_err());
        assert_eq!(
            check("house", &json!({"reasoning_effort": "none"})),
            Ok(Thinks::No)
        );
    }

    #[test]
    fn deepseek_takes_low_and_thinks_at_high_unasked() {
        // "Thinking mode is enabled by default, with the default effort
        // being `high`"; `reasoning_effort` low/high/max (thinking_mode guide).
        for word in ["low", "high", "max"] {
            assert_eq!(
                check("deepseek-v4-flash", &json!({"reasoning_effort": word})),
                Ok(Thinks::Shown),
                "{word}"
            );
        }
        assert_eq!(check("deepseek-v4-pro", &json!({})), Ok(Thinks::Shown));
    }
}
