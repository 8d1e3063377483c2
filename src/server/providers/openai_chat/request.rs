//! The Chat completions request for one turn: its body, and the full upstream
//! request (URL, headers) built from plain `UpstreamModel` values.

use serde_json::{json, Value};

use crate::server::providers::wire::{UpstreamModel, UpstreamRequest};
use crate::turn::ChatRequest;

/// The request body: streaming on, usage requested, reasoning effort if set.
pub fn request_body(model: &UpstreamModel, request: &ChatRequest) -> Value {
    let mut body = json!({
        "model": model.name,
        "messages": request.messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if let Some(max) = model.max_output_tokens {
        body["max_tokens"] = json!(max);
    }
    if let Some(effort) = &model.reasoning_effort {
        body["reasoning_effort"] = json!(effort);
    }
    body
}

/// The full upstream request (used by tests and the mock to check what is sent).
pub fn build_request(model: &UpstreamModel, request: &ChatRequest) -> UpstreamRequest {
    UpstreamRequest::bearer(model, "/chat/completions", request_body(model, request))
}
