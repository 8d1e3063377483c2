//! The Chat completions request for one turn: its body, and the full upstream
//! request (URL, headers) built from plain `UpstreamModel` values.
//!
//! The turn's effort goes in the words of the server behind the model
//! (`reasoning::chat_server`): OpenAI `reasoning_effort` (`off` → `none`);
//! DeepSeek `thinking: {type}` plus `reasoning_effort` low/high/max; Kimi K2
//! `thinking: {type}`, K3 `reasoning_effort`; OpenRouter
//! `reasoning: {effort}`; llama.cpp, vLLM, SGLang and other servers
//! `chat_template_kwargs: {enable_thinking: false}` for `off`, the template's
//! switch on for on/off families (Qwen3, GLM), else `reasoning_effort`.
//! llama.cpp also gets `reasoning_control: true`, so its thinking can be
//! ended on request (`control`).

use serde_json::{json, Value};

use crate::server::providers::reasoning::{
    chat_server, switch_only_family, ChatServer, ThinkingStyle,
};
use crate::server::providers::responses::openai_word;
use crate::server::providers::wire::{UpstreamModel, UpstreamRequest};
use crate::turn::{ChatRequest, Effort, Role};

/// How the model is asked to think: the configuration's `thinking` style,
/// else what its server and family take.
fn style_of(model: &UpstreamModel, server: ChatServer) -> ThinkingStyle {
    if let Some(style) = model.thinking {
        return style;
    }
    match server {
        ChatServer::OpenAi | ChatServer::OpenRouter => ThinkingStyle::Effort,
        ChatServer::DeepSeek => ThinkingStyle::Switch,
        // K3 takes `reasoning_effort` and always thinks; K2 a switch.
        ChatServer::Kimi if model.name.to_ascii_lowercase().contains("k3") => ThinkingStyle::Effort,
        ChatServer::Kimi => ThinkingStyle::Switch,
        ChatServer::LlamaCpp | ChatServer::Other if switch_only_family(&model.name) => {
            ThinkingStyle::Template
        }
        ChatServer::LlamaCpp | ChatServer::Other => ThinkingStyle::Effort,
    }
}

/// Adds the turn's reasoning parameters to `body`.
fn add_reasoning(body: &mut Value, model: &UpstreamModel, effort: Option<Effort>) {
    let server = chat_server(model);
    if server == ChatServer::LlamaCpp {
        body["reasoning_control"] = json!(true);
    }
    let Some(effort) = effort else {
        // A model of unknown family: the old setting, as written.
        if let Some(configured) = &model.reasoning_effort {
            body["reasoning_effort"] = json!(configured);
        }
        return;
    };
    match (style_of(model, server), server, effort) {
        (ThinkingStyle::None, _, _) => {}
        (_, ChatServer::OpenRouter, effort) => {
            body["reasoning"] = json!({"effort": openai_word(effort)});
        }
        (ThinkingStyle::Switch, _, Effort::Off) => body["thinking"] = json!({"type": "disabled"}),
        (ThinkingStyle::Switch, ChatServer::DeepSeek, effort) => {
            body["thinking"] = json!({"type": "enabled"});
            // DeepSeek's own three words (it reads the others as these).
            let word = match effort {
                Effort::Off | Effort::Minimal | Effort::Low => "low",
                Effort::Medium | Effort::High => "high",
                Effort::Xhigh | Effort::Max => "max",
            };
            body["reasoning_effort"] = json!(word);
        }
        (ThinkingStyle::Switch, _, _) => body["thinking"] = json!({"type": "enabled"}),
        (ThinkingStyle::Template, _, effort) => {
            body["chat_template_kwargs"] = json!({"enable_thinking": effort != Effort::Off});
        }
        // Other servers read `off` through the template (vLLM, SGLang, llama.cpp).
        (_, ChatServer::LlamaCpp | ChatServer::Other, Effort::Off) => {
            body["chat_template_kwargs"] = json!({"enable_thinking": false});
        }
        (_, ChatServer::LlamaCpp | ChatServer::Other, effort) => {
            body["reasoning_effort"] = json!(effort.as_str());
        }
        (_, _, effort) => body["reasoning_effort"] = json!(openai_word(effort)),
    }
}

/// Whether the server reads an assistant message's `reasoning_content`
/// back: DeepSeek and Kimi require it on tool-call messages in thinking
/// mode (api-docs.deepseek.com/guides/thinking_mode; MoonshotAI
/// kimi-agent-sdk#169); llama.cpp and vLLM templates use it. OpenAI and
/// OpenRouter take no such field.
fn reads_reasoning_content(server: ChatServer) -> bool {
    !matches!(server, ChatServer::OpenAi | ChatServer::OpenRouter)
}

/// The conversation in Chat completions' own shape: assistant tool calls
/// as `tool_calls` (arguments as JSON text), results as `tool` messages,
/// and the reasoning a tool-call message carried where the server needs it.
fn wire_messages(request: &ChatRequest, server: ChatServer) -> Vec<Value> {
    request
        .messages
        .iter()
        .map(|m| match m.role {
            Role::Tool => json!({
                "role": "tool",
                "tool_call_id": m.tool_call_id,
                "content": m.content,
            }),
            Role::Assistant if !m.tool_calls.is_empty() => {
                let mut message = json!({
                    "role": "assistant",
                    "content": if m.content.is_empty() { Value::Null } else { json!(m.content) },
                    "tool_calls": m.tool_calls.iter().map(|call| json!({
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments.to_string()},
                    })).collect::<Vec<_>>(),
                });
                let reasoning = m.continuity.iter().find_map(|c| c.get("reasoning_content"));
                if let (true, Some(reasoning)) = (reads_reasoning_content(server), reasoning) {
                    message["reasoning_content"] = reasoning.clone();
                }
                // What a gateway sent it gets back as it was (OpenRouter:
                // "Preserving reasoning blocks"); no other server sends them.
                let details = m
                    .continuity
                    .iter()
                    .find_map(|c| c.get(super::decode::DETAILS_KEY));
                if let Some(details) = details {
                    message["reasoning_details"] = details.clone();
                }
                message
            }
            role => json!({"role": role, "content": m.content}),
        })
        .collect()
}

/// The tools offered, as `tools` takes them.
fn wire_tools(request: &ChatRequest) -> Option<Value> {
    (!request.tool_specs.is_empty()).then(|| {
        json!(request
            .tool_specs
            .iter()
            .map(|spec| json!({
                "type": "function",
                "function": {
                    "name": spec.name,
                    "description": spec.description,
                    "parameters": spec.parameters,
                },
            }))
            .collect::<Vec<_>>())
    })
}

/// The request body: streaming on, usage requested, the turn's reasoning
/// parameters (see the module docs), output limit if set (OpenAI's reasoning
/// models refuse `max_tokens` and take `max_completion_tokens`; so does Kimi).
pub(crate) fn request_body(model: &UpstreamModel, request: &ChatRequest) -> Value {
    let server = chat_server(model);
    let mut body = json!({
        "model": model.name,
        "messages": wire_messages(request, server),
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if let Some(tools) = wire_tools(request) {
        body["tools"] = tools;
    }
    if let Some(max) = model.max_output_tokens {
        let key = match chat_server(model) {
            ChatServer::OpenAi | ChatServer::Kimi => "max_completion_tokens",
            _ => "max_tokens",
        };
        body[key] = json!(max);
    }
    add_reasoning(&mut body, model, request.effort);
    body
}

/// The full upstream request (used by tests and the mock to check what is sent).
pub(crate) fn build_request(model: &UpstreamModel, request: &ChatRequest) -> UpstreamRequest {
    UpstreamRequest::bearer(model, "/chat/completions", request_body(model, request))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(base: &str, name: &str, llamacpp: bool, effort: Option<Effort>) -> Value {
        let model = UpstreamModel {
            base_url: base.into(),
            name: name.into(),
            llamacpp,
            reasoning_effort: Some("low".into()),
            ..UpstreamModel::default()
        };
        let request = ChatRequest {
            effort,
            ..ChatRequest::default()
        };
        let mut body = request_body(&model, &request);
        for common in ["model", "messages", "stream", "stream_options"] {
            body.as_object_mut().map(|b| b.remove(common));
        }
        body
    }

    #[test]
    fn each_server_gets_the_effort_in_its_own_words() {
        let openai = "https://api.openai.com/v1";
        assert_eq!(
            sent(openai, "gpt-5.1", false, Some(Effort::Off)),
            json!({"reasoning_effort": "none"})
        );
        let deepseek = "https://api.deepseek.com";
        assert_eq!(
            sent(deepseek, "deepseek-v4-pro", false, Some(Effort::Off)),
            json!({"thinking": {"type": "disabled"}})
        );
        assert_eq!(
            sent(deepseek, "deepseek-v4-pro", false, Some(Effort::Max)),
            json!({"thinking": {"type": "enabled"}, "reasoning_effort": "max"})
        );
        assert_eq!(
            sent(
                "https://openrouter.ai/api/v1",
                "x/y",
                false,
                Some(Effort::Minimal)
            ),
            json!({"reasoning": {"effort": "minimal"}})
        );
        let vllm = "http://localhost:8000/v1";
        assert_eq!(
            sent(vllm, "Qwen/Qwen3-8B", false, Some(Effort::Off)),
            json!({"chat_template_kwargs": {"enable_thinking": false}})
        );
        assert_eq!(
            sent(vllm, "Qwen/Qwen3-8B", false, Some(Effort::High)),
            json!({"chat_template_kwargs": {"enable_thinking": true}})
        );
        assert_eq!(
            sent(vllm, "openai/gpt-oss-20b", false, Some(Effort::High)),
            json!({"reasoning_effort": "high"})
        );
        let llama = "http://localhost:8080/v1";
        assert_eq!(
            sent(llama, "model", true, Some(Effort::Low)),
            json!({"reasoning_control": true, "reasoning_effort": "low"})
        );
        assert_eq!(
            sent(llama, "model", true, Some(Effort::Off)),
            json!({"reasoning_control": true, "chat_template_kwargs": {"enable_thinking": false}})
        );
        assert_eq!(
            sent(vllm, "mock-model", false, None),
            json!({"reasoning_effort": "low"}),
            "unknown family: the old setting as written"
        );
    }
}
