//! The Anthropic request for one turn: its body, and the full upstream
//! request (URL, headers) built from plain `UpstreamModel` values.

use serde_json::{json, Value};

use crate::server::providers::wire::{UpstreamModel, UpstreamRequest};
use crate::turn::{ChatRequest, Role};

/// The API version Pensive speaks (sent as `anthropic-version`).
pub const API_VERSION: &str = "2023-06-01";
/// `max_tokens` when the model config sets none (the API requires one).
const DEFAULT_MAX_TOKENS: u32 = 16_000;
/// Thinking budget when the model config sets none.
const DEFAULT_THINKING_BUDGET: u32 = 8_000;
/// Room left for the answer when the budget would not fit under `max_tokens`.
const ANSWER_HEADROOM: u32 = 4_096;

/// The request body: extended thinking on, system messages in `system`.
pub fn request_body(model: &UpstreamModel, request: &ChatRequest) -> Value {
    let budget = model.thinking_budget.unwrap_or(DEFAULT_THINKING_BUDGET);
    let mut max_tokens = model.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    // The API rejects a budget that is not below max_tokens.
    if budget >= max_tokens {
        max_tokens = budget.saturating_add(ANSWER_HEADROOM);
    }
    // The API rejects empty text content (an answer that was all thinking).
    let messages: Vec<Value> = request
        .dialogue()
        .map(|m| {
            let role = if m.role == Role::Assistant {
                "assistant"
            } else {
                "user"
            };
            json!({"role": role, "content": m.content})
        })
        .collect();
    let mut body = json!({
        "model": model.name,
        "max_tokens": max_tokens,
        "stream": true,
        "thinking": {"type": "enabled", "budget_tokens": budget},
        "messages": messages,
    });
    if let Some(system) = request.system_prompt() {
        body["system"] = json!(system);
    }
    body
}

/// The full upstream request.
pub fn build_request(model: &UpstreamModel, request: &ChatRequest) -> UpstreamRequest {
    let base = model.base_url.trim_end_matches('/');
    // The base URL is the host; tolerate one configured with the version path.
    let base = base.strip_suffix("/v1").unwrap_or(base);
    let mut headers = Vec::new();
    if let Some(key) = &model.api_key {
        headers.push(("x-api-key".into(), key.expose().to_owned()));
    }
    headers.push(("anthropic-version".into(), API_VERSION.into()));
    UpstreamRequest {
        url: format!("{base}/v1/messages"),
        headers,
        body: request_body(model, request),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::ChatMessage;

    #[test]
    fn request_puts_system_on_top_and_keeps_the_budget_below_max_tokens() {
        let model = UpstreamModel {
            base_url: "https://api.anthropic.com/".into(),
            api_key: Some("sk-ant".into()),
            name: "claude-sonnet-4-5".into(),
            ..UpstreamModel::default()
        };
        let request = ChatRequest {
            messages: vec![
                ChatMessage::system("Be brief."),
                ChatMessage::user("Hi"),
                ChatMessage::assistant("Hello"),
                ChatMessage::system("Use SI units."),
                ChatMessage::user("Why?"),
            ],
            model: None,
            effort: None,
        };
        let req = build_request(&model, &request);
        assert_eq!(req.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(
            req.headers,
            vec![
                ("x-api-key".to_owned(), "sk-ant".to_owned()),
                ("anthropic-version".to_owned(), "2023-06-01".to_owned())
            ]
        );
        assert_eq!(
            req.body,
            json!({
                "model": "claude-sonnet-4-5",
                "max_tokens": 16000,
                "stream": true,
                "thinking": {"type": "enabled", "budget_tokens": 8000},
                "messages": [
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": "Hello"},
                    {"role": "user", "content": "Why?"},
                ],
                "system": "Be brief.\n\nUse SI units.",
            })
        );
        let tight = UpstreamModel {
            api_key: None,
            max_output_tokens: Some(4000),
            thinking_budget: Some(4000),
            base_url: "https://proxy.example/v1".into(),
            ..model
        };
        let req = build_request(&tight, &ChatRequest::default());
        assert_eq!(req.url, "https://proxy.example/v1/messages");
        assert_eq!(req.headers.len(), 1);
        assert_eq!(req.body["max_tokens"], json!(8096));
        assert_eq!(req.body["thinking"]["budget_tokens"], json!(4000));
        assert!(req.body.get("system").is_none());
    }
}
