//! The Ollama request for one turn: its body, and the full upstream
//! request (URL, headers) built from plain `UpstreamModel` values.

use serde_json::{json, Value};

use crate::server::providers::reasoning::ThinkingStyle;
use crate::server::providers::wire::{CallNames, UpstreamModel, UpstreamRequest};
use crate::turn::{ChatRequest, Effort, Role};

/// `think` for the turn's effort: `false` for off; a level for the models
/// that take levels (gpt-oss: low, medium, high; or `thinking = "level"`);
/// `true` for the on/off families; nothing for a model of unknown family
/// (Ollama's default), unless its old `reasoning_effort` setting names a level.
fn think(model: &UpstreamModel, effort: Option<Effort>) -> Option<Value> {
    let levels = match model.thinking {
        Some(ThinkingStyle::None) => return None,
        Some(style) => style == ThinkingStyle::Level,
        None => model
            .efforts
            .iter()
            .any(|e| matches!(e, Effort::Low | Effort::Medium)),
    };
    Some(match effort {
        Some(Effort::Off) => json!(false),
        Some(Effort::Minimal | Effort::Low) if levels => json!("low"),
        Some(Effort::Medium) if levels => json!("medium"),
        Some(Effort::High | Effort::Xhigh | Effort::Max) if levels => json!("high"),
        Some(_) => json!(true),
        None => {
            let level = model.reasoning_effort.as_deref()?.to_ascii_lowercase();
            // Models like gpt-oss take a level; other values would be rejected.
            if matches!(level.as_str(), "low" | "medium" | "high") {
                json!(level)
            } else {
                json!(true)
            }
        }
    })
}

/// The conversation in `/api/chat`'s shape (docs/capabilities/
/// tool-calling.mdx): a message that called tools carries its `thinking`
/// (kept as continuity: "particularly important for tool calling") and
/// `tool_calls` with object arguments; each result is a `tool` message
/// naming its tool.
fn wire_messages(request: &ChatRequest) -> Vec<Value> {
    let mut names = CallNames::default();
    request
        .messages
        .iter()
        .map(|m| match m.role {
            Role::Tool => {
                let id = m.tool_call_id.as_deref().unwrap_or("");
                let name = names.of(id);
                json!({"role": "tool", "tool_name": name, "content": m.content})
            }
            Role::Assistant if !m.tool_calls.is_empty() => {
                names.remember(&m.tool_calls);
                let mut message = json!({
                    "role": "assistant",
                    "content": m.content,
                    "tool_calls": m.tool_calls.iter().map(|call| json!({
                        "function": {"name": call.name, "arguments": call.arguments},
                    })).collect::<Vec<_>>(),
                });
                if let Some(thinking) = m.continuity.iter().find_map(|c| c.get("thinking")) {
                    message["thinking"] = thinking.clone();
                }
                message
            }
            role => json!({"role": role, "content": m.content}),
        })
        .collect()
}

/// The request body: streaming on, thinking as the turn's effort asks
/// (`think`), output limit if set, tools if offered.
pub(crate) fn request_body(model: &UpstreamModel, request: &ChatRequest) -> Value {
    let mut body = json!({
        "model": model.name,
        "messages": wire_messages(request),
        "stream": true,
    });
    if !request.tool_specs.is_empty() {
        body["tools"] = json!(request
            .tool_specs
            .iter()
            .map(|spec| json!({"type": "function", "function": {"name": spec.name, "description": spec.description, "parameters": spec.parameters}}))
            .collect::<Vec<_>>());
    }
    if let Some(think) = think(model, request.effort) {
        body["think"] = think;
    }
    if let Some(max) = model.max_output_tokens {
        body["options"] = json!({"num_predict": max});
    }
    body
}

/// The full upstream request.
pub(crate) fn build_request(model: &UpstreamModel, request: &ChatRequest) -> UpstreamRequest {
    UpstreamRequest::bearer(model, "/api/chat", request_body(model, request))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::ChatMessage;

    #[test]
    fn request_turns_thinking_on_at_the_configured_level() {
        let model = UpstreamModel {
            base_url: "http://localhost:11434/".into(),
            name: "qwen3:8b".into(),
            max_output_tokens: Some(1000),
            ..UpstreamModel::default()
        };
        let request = ChatRequest {
            messages: vec![ChatMessage::system("Be brief."), ChatMessage::user("Why?")],
            model: None,
            ..ChatRequest::default()
        };
        let req = build_request(&model, &request);
        assert_eq!(req.url, "http://localhost:11434/api/chat");
        assert!(req.headers.is_empty());
        assert_eq!(
            req.body,
            json!({
                "model": "qwen3:8b",
                "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Why?"}],
                "stream": true,
                "options": {"num_predict": 1000},
            })
        );
        let leveled = UpstreamModel {
            reasoning_effort: Some("High".into()),
            api_key: Some("k".into()),
            max_output_tokens: None,
            ..model.clone()
        };
        let req = build_request(&leveled, &request);
        assert_eq!(req.body["think"], json!("high"));
        assert!(req.body.get("options").is_none());
        assert_eq!(
            req.headers,
            vec![("authorization".to_owned(), "Bearer k".to_owned())]
        );
        let unknown = UpstreamModel {
            reasoning_effort: Some("extreme".into()),
            ..model
        };
        assert_eq!(build_request(&unknown, &request).body["think"], json!(true));
        let off = ChatRequest {
            effort: Some(Effort::Off),
            ..request
        };
        assert_eq!(build_request(&unknown, &off).body["think"], json!(false));
    }
}
