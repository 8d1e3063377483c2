//! The Responses request for one turn: its body, and the full upstream
//! request (URL, headers) built from plain `UpstreamModel` values.

use serde_json::{json, Value};

use crate::server::providers::wire::{UpstreamModel, UpstreamRequest};
use crate::turn::{ChatMessage, ChatRequest, Effort, Role};

/// An effort in OpenAI's words (`off` is `none`).
pub(crate) fn openai_word(effort: Effort) -> &'static str {
    match effort {
        Effort::Off => "none",
        other => other.as_str(),
    }
}

/// The request body: streaming on, reasoning summaries always requested,
/// the turn's effort in OpenAI's words (`off` → `none`), output limit if set.
/// Without an effort (a model of unknown family), the old configured
/// `reasoning_effort` is sent as written. Stateless: `store: false`, with
/// the reasoning items' `encrypted_content` included so a tool loop can
/// send them back (Pensive keeps the conversation, not the provider).
pub(crate) fn request_body(model: &UpstreamModel, request: &ChatRequest) -> Value {
    let mut reasoning = json!({"summary": "auto"});
    match (request.effort, &model.reasoning_effort) {
        (Some(effort), _) => reasoning["effort"] = json!(openai_word(effort)),
        (None, Some(configured)) => reasoning["effort"] = json!(configured),
        (None, None) => {}
    }
    let mut body = json!({
        "model": model.name,
        "input": wire_input(request),
        "stream": true,
        "reasoning": reasoning,
        "store": false,
        "include": ["reasoning.encrypted_content"],
    });
    if !request.tool_specs.is_empty() {
        // `strict` defaults to true here, which refuses most MCP schemas.
        body["tools"] = json!(request
            .tool_specs
            .iter()
            .map(|spec| json!({"type": "function", "name": spec.name, "description": spec.description, "parameters": spec.parameters, "strict": false}))
            .collect::<Vec<_>>());
    }
    if let Some(max) = model.max_output_tokens {
        body["max_output_tokens"] = json!(max);
    }
    body
}

/// The conversation as input items (tool-loops.md §1.2): messages as
/// role and text; a response that called tools as its items in order: its
/// text, then per call the reasoning items that came before it (whole,
/// with `encrypted_content`) and the `function_call` item (with the API's
/// own item id when kept); each result a `function_call_output`.
fn wire_input(request: &ChatRequest) -> Vec<Value> {
    let mut out = Vec::new();
    for m in &request.messages {
        match m.role {
            Role::Tool => out.push(json!({
                "type": "function_call_output",
                "call_id": m.tool_call_id,
                "output": m.content,
            })),
            Role::Assistant if !m.tool_calls.is_empty() => response_items(m, &mut out),
            Role::Assistant if m.content.is_empty() => {}
            role => out.push(json!({"role": role, "content": m.content})),
        }
    }
    out
}

/// The items of one response that called tools, in the order the API
/// wrote them: kept items (reasoning, then the call's own) up to each call.
fn response_items(m: &ChatMessage, out: &mut Vec<Value>) {
    if !m.content.trim().is_empty() {
        out.push(json!({"role": "assistant", "content": m.content}));
    }
    let kept: Vec<&Value> = m
        .continuity
        .iter()
        .filter_map(|c| c.get(super::decode::ITEM_KEY))
        .collect();
    let mut next = 0;
    for call in &m.tool_calls {
        let mut item = json!({"type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments.to_string()});
        // The reasoning items before this call's own item go first.
        while let Some(entry) = kept.get(next) {
            next += 1;
            if entry["type"] == "function_call" {
                if entry["call_id"] == call.id.as_str() {
                    item["id"] = entry["id"].clone();
                    break;
                }
                continue;
            }
            out.push((*entry).clone());
        }
        out.push(item);
    }
}

/// The full upstream request.
pub(crate) fn build_request(model: &UpstreamModel, request: &ChatRequest) -> UpstreamRequest {
    UpstreamRequest::bearer(model, "/responses", request_body(model, request))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::ChatMessage;

    #[test]
    fn request_has_input_reasoning_summary_effort_limit_and_auth() {
        let model = UpstreamModel {
            base_url: "https://api.openai.com/v1/".into(),
            api_key: Some("sk-test".into()),
            name: "o4-mini".into(),
            max_output_tokens: Some(2000),
            reasoning_effort: Some("high".into()),
            ..UpstreamModel::default()
        };
        let request = ChatRequest {
            messages: vec![ChatMessage::system("Be brief."), ChatMessage::user("Why?")],
            model: None,
            ..ChatRequest::default()
        };
        let req = build_request(&model, &request);
        assert_eq!(req.url, "https://api.openai.com/v1/responses");
        assert_eq!(
            req.headers,
            vec![("authorization".to_owned(), "Bearer sk-test".to_owned())]
        );
        assert_eq!(
            req.body,
            json!({
                "model": "o4-mini",
                "input": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Why?"}],
                "stream": true,
                "reasoning": {"summary": "auto", "effort": "high"},
                "store": false,
                "include": ["reasoning.encrypted_content"],
                "max_output_tokens": 2000,
            })
        );
        let bare = build_request(
            &UpstreamModel {
                api_key: None,
                max_output_tokens: None,
                reasoning_effort: None,
                ..model
            },
            &request,
        );
        assert!(bare.headers.is_empty());
        assert_eq!(bare.body["reasoning"], json!({"summary": "auto"}));
        assert!(bare.body.get("max_output_tokens").is_none());
    }
}
