//! The Responses request for one turn: its body, and the full upstream
//! request (URL, headers) built from plain `UpstreamModel` values.

use serde_json::{json, Value};

use crate::server::providers::wire::{UpstreamModel, UpstreamRequest};
use crate::turn::{ChatRequest, Effort};

/// An effort in OpenAI's words (`off` is `none`).
pub fn openai_word(effort: Effort) -> &'static str {
    match effort {
        Effort::Off => "none",
        other => other.as_str(),
    }
}

/// The request body: streaming on, reasoning summaries always requested,
/// the turn's effort in OpenAI's words (`off` → `none`), output limit if set.
/// Without an effort (a model of unknown family), the old configured
/// `reasoning_effort` is sent as written.
pub fn request_body(model: &UpstreamModel, request: &ChatRequest) -> Value {
    let mut reasoning = json!({"summary": "auto"});
    match (request.effort, &model.reasoning_effort) {
        (Some(effort), _) => reasoning["effort"] = json!(openai_word(effort)),
        (None, Some(configured)) => reasoning["effort"] = json!(configured),
        (None, None) => {}
    }
    let mut body = json!({
        "model": model.name,
        "input": request.messages,
        "stream": true,
        "reasoning": reasoning,
    });
    if let Some(max) = model.max_output_tokens {
        body["max_output_tokens"] = json!(max);
    }
    body
}

/// The full upstream request.
pub fn build_request(model: &UpstreamModel, request: &ChatRequest) -> UpstreamRequest {
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
