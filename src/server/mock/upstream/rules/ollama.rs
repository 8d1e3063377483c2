//! Ollama `/api/chat`: the `think` field, per model family.
//!
//! Sources (read 2026-12-03): ollama docs/api.md and docs/capabilities/
//! thinking.md at fb30760 (2026-08-21): `think` is a bool, or one of "low",
//! "medium", "high" for the models that take levels (gpt-oss, which always
//! reasons and ignores `false`); a model without the `thinking` capability
//! refuses `think: true` with `"<model>" does not support thinking`.
//!
//! `/api/show`'s `thinking: {values, default}`: ollama/ollama#18473 (merged
//! 2026-09-15, "api: expose model thinking levels and defaults": "The
//! optional `thinking` object contains `values` and `default`, supporting
//! Boolean controls and named levels"); the shape as the API reference
//! (docs.ollama.com/api-reference/show-model-details) shows it:
//! `"thinking": {"values": [false, true], "default": true}`.

use serde_json::{json, Value};

use super::{Refusal, Thinks};

/// Families with the `thinking` capability in Ollama's library.
const THINKING: &[&str] = &[
    "phi4-reasoning",
    "qwen3",
    "qwq",
    "deepseek-r1",
    "deepseek-v3.1",
    "magistral",
    "cogito",
    "gpt-oss",
];
/// Families without it (a `think` request is refused).
const NOT_THINKING: &[&str] = &["llama3", "gemma", "mistral", "phi"];
/// Families Ollama's library lists without the `tools` capability (its
/// search page, `?c=tools`): a request with `tools` is refused with
/// `{"error":"registry.ollama.ai/library/gemma3:4b does not support tools"}`
/// (ollama/ollama#9680, #13522; 400).
const NO_TOOLS: &[&str] = &["gemma"];

/// Models made locally from a library model (`ollama create NAME` with a
/// Modelfile `FROM base`, docs.ollama.com/modelfile): Ollama answers for
/// them as for their base, whatever the name says.
const LOCAL_COPIES: &[(&str, &str)] = &[("house-assistant", "gpt-oss:20b")];

/// Whether Ollama lists the `tools` capability for `name`.
pub(super) fn takes_tools(name: &str) -> bool {
    let base = family(name);
    !NO_TOOLS.iter().any(|f| base.starts_with(f))
}

/// Whether Ollama lists the `thinking` capability for `name`.
pub(super) fn thinks(name: &str) -> bool {
    let base = family(name);
    THINKING.iter().any(|f| base.starts_with(f))
}

/// The `thinking` object `/api/show` lists for `name`: gpt-oss's levels
/// (docs.ollama.com/capabilities/thinking: "GPT-OSS instead expects one of
/// low, medium, or high"; its default, medium, per the gpt-oss model card),
/// a switch for the other thinking families; nothing without the capability.
pub(super) fn thinking_values(name: &str) -> Option<Value> {
    if !thinks(name) {
        return None;
    }
    Some(if family(name).starts_with("gpt-oss") {
        json!({"values": ["low", "medium", "high"], "default": "medium"})
    } else {
        json!({"values": [false, true], "default": true})
    })
}

pub(super) fn family(name: &str) -> &str {
    let name = LOCAL_COPIES
        .iter()
        .find(|(copy, _)| name.split(':').next() == Some(*copy))
        .map_or(name, |(_, base)| *base);
    let base = name.split(':').next().unwrap_or(name);
    base.rsplit('/').next().unwrap_or(base)
}

pub(super) fn knows(name: &str) -> bool {
    let base = family(name);
    THINKING
        .iter()
        .chain(NOT_THINKING)
        .any(|f| base.starts_with(f))
}

/// The verdict on an `/api/chat` request.
pub(super) fn check(name: &str, body: &Value) -> Result<Thinks, Refusal> {
    let base = family(name);
    let think = body.get("think");
    let refused = |message: String| (400, json!({"error": message}));
    if body.get("tools").is_some() && !takes_tools(name) {
        return Err(refused(format!(
            "registry.ollama.ai/library/{name} does not support tools"
        )));
    }
    if !thinks(name) && NOT_THINKING.iter().any(|f| base.starts_with(f)) {
        return match think {
            Some(Value::Bool(false)) | None => Ok(Thinks::No),
            Some(_) => Err(refused(format!("\"{name}\" does not support thinking"))),
        };
    }
    if !THINKING.iter().any(|f| base.starts_with(f)) {
        return Ok(Thinks::Shown);
    }
    let levels = base.starts_with("gpt-oss");
    match think {
        Some(Value::String(level))
            if levels && matches!(level.as_str(), "low" | "medium" | "high") =>
        {
            Ok(Thinks::Shown)
        }
        Some(Value::String(level)) => Err(refused(format!(
            "think value \"{level}\" is not supported for this model"
        ))),
        // gpt-oss cannot stop reasoning.
        Some(Value::Bool(false)) if levels => Ok(Thinks::Shown),
        Some(Value::Bool(false)) => Ok(Thinks::No),
        Some(Value::Bool(true)) | None => Ok(Thinks::Shown),
        Some(other) => Err(refused(format!("invalid think value: {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_without_the_tools_capability_refuses_tools() {
        let with_tools = json!({"tools": [{"type": "function"}]});
        let refused = check("gemma3:4b", &with_tools).expect_err("no tools on gemma3");
        assert_eq!(refused.0, 400);
        assert_eq!(
            refused.1,
            json!({"error": "registry.ollama.ai/library/gemma3:4b does not support tools"})
        );
        assert!(check("gemma3:4b", &json!({})).is_ok());
        assert!(check("qwen3:8b", &with_tools).is_ok());
    }

    #[test]
    fn levels_on_gpt_oss_a_switch_elsewhere_and_nothing_without_the_capability() {
        assert_eq!(
            check("gpt-oss:20b", &json!({"think": "low"})),
            Ok(Thinks::Shown)
        );
        assert_eq!(
            check("gpt-oss:20b", &json!({"think": false})),
            Ok(Thinks::Shown)
        );
        assert_eq!(check("qwen3:8b", &json!({"think": false})), Ok(Thinks::No));
        assert!(check("qwen3:8b", &json!({"think": "low"})).is_err());
        assert!(check("llama3.2", &json!({"think": true})).is_err());
        assert_eq!(check("llama3.2", &json!({})), Ok(Thinks::No));
        assert_eq!(
            check("mock-model", &json!({"think": "x"})),
            Ok(Thinks::Shown)
        );
    }
}
