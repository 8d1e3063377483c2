//! The providers' model lists, as the mock answers them, in each provider's
//! documented shape: Ollama `POST /api/show` (docs/api.md: `capabilities`
//! with `completion`, `tools`, `thinking`, …; `thinking: {values, default}`
//! since ollama/ollama#18473, see `ollama`), OpenRouter `GET /models`
//! (openrouter.ai/docs/models: `data[]` with `id`, `supported_parameters`,
//! `top_provider`), Gemini `GET /v1beta/models/{name}` (ai.google.dev/api/
//! models#Model: `thinking` true for models that think, left out otherwise).

use serde_json::{json, Value};

use super::ollama;

/// Ollama's `/api/show` for `name`: its capabilities.
pub fn ollama_show(name: &str) -> Value {
    let mut capabilities = vec!["completion"];
    if ollama::thinks(name) {
        capabilities.push("thinking");
    }
    if ollama::takes_tools(name) {
        capabilities.push("tools");
    }
    let mut show = json!({
        "modelfile": "",
        "details": {"format": "gguf", "family": ollama::family(name)},
        "capabilities": capabilities,
    });
    if let Some(thinking) = ollama::thinking_values(name) {
        show["thinking"] = thinking;
    }
    show
}

/// OpenRouter's model list (a few of its models).
pub fn openrouter_models() -> Value {
    let model = |id: &str, reasoning: bool| {
        let mut parameters = vec!["max_tokens", "temperature", "tools"];
        if reasoning {
            parameters.extend(["reasoning", "include_reasoning"]);
        }
        json!({
            "id": id,
            "name": id,
            "context_length": 131072,
            "supported_parameters": parameters,
            "top_provider": {"context_length": 131072, "max_completion_tokens": 16384, "is_moderated": false},
        })
    };
    json!({"data": [
        model("deepseek/deepseek-r1", true),
        model("qwen/qwen3-235b-a22b", true),
        model("meta-llama/llama-3.3-70b-instruct", false),
        model("mock-model", true),
    ]})
}

/// Gemini's `models.get` for `name`; `None` for a model it does not list.
pub fn gemini_model(name: &str) -> Option<Value> {
    let thinks = super::gemini::knows(name);
    if !thinks && !name.starts_with("gemini-2.0") {
        return None;
    }
    let mut model = json!({
        "name": format!("models/{name}"),
        "displayName": name,
        "inputTokenLimit": 1_048_576,
        "outputTokenLimit": if thinks { 65_536 } else { 8_192 },
        "supportedGenerationMethods": ["generateContent", "countTokens"],
    });
    if thinks {
        model["thinking"] = json!(true);
    }
    Some(model)
}
