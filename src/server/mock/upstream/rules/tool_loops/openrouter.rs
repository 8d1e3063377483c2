//! OpenRouter relaying a Gemini 3 model: the `reasoning_details` of an
//! assistant message with `tool_calls` come back unmodified and in order
//! (openrouter.ai/docs/guides/best-practices/reasoning-tokens#preserving-
//! reasoning-blocks). Without them OpenRouter passes on Gemini's 400,
//! wrapped; the body is quoted from massgen/MassGen#624 and
//! microsoft/agent-framework#2947. The mock seals the readable details
//! with an encrypted item whose data signs their text (`mock_signature`),
//! so details sent back changed are refused too.

use serde_json::{json, Value};

use super::super::Refusal;
use crate::server::mock::encoders::anthropic::mock_signature;
use crate::server::mock::encoders::openai_chat::relays_reasoning_details;

fn details_intact(message: &Value) -> bool {
    let Some(details) = message.get("reasoning_details").and_then(Value::as_array) else {
        return false;
    };
    let text: String = details
        .iter()
        .filter(|d| d["type"] == "reasoning.text")
        .filter_map(|d| d["text"].as_str())
        .collect();
    details
        .iter()
        .any(|d| d["type"] == "reasoning.encrypted" && d["data"] == mock_signature(&text).as_str())
}

/// The verdict on a Chat completions request to OpenRouter for `model`.
pub(in super::super) fn check(model: &str, body: &Value) -> Result<(), Refusal> {
    if !relays_reasoning_details(model) {
        return Ok(());
    }
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    // Gemini validates the current turn only (tool-loops.md §1.4).
    let turn_start = messages
        .iter()
        .rposition(|m| m["role"] == "user")
        .map_or(0, |at| at + 1);
    for (at, message) in messages.iter().enumerate().skip(turn_start) {
        let calls = message.get("tool_calls").and_then(Value::as_array);
        let Some(first) = calls.and_then(|c| c.first()) else {
            continue;
        };
        if details_intact(message) {
            continue;
        }
        let name = first
            .pointer("/function/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        let raw = format!("Gemini models require OpenRouter reasoning details to be preserved in each request. Please refer to our docs: https://openrouter.ai/docs/guides/best-practices/reasoning-tokens#preserving-reasoning-blocks. Upstream error: {{\n  \"error\": {{\n    \"code\": 400,\n    \"message\": \"Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:{name}` , position {at}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.\",\n    \"status\": \"INVALID_ARGUMENT\"\n  }}\n}}\n");
        return Err((
            400,
            json!({"error": {"message": "Provider returned error", "code": 400, "metadata": {"raw": raw, "provider_name": "Google AI Studio"}}}),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loop_body(details: Option<Value>) -> Value {
        let mut assistant = json!({"role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{}"}}]});
        if let Some(d) = details {
            assistant["reasoning_details"] = d;
        }
        json!({"messages": [
            {"role": "user", "content": "q"},
            assistant,
            {"role": "tool", "tool_call_id": "c1", "content": "4"},
        ]})
    }

    #[test]
    fn gemini_through_openrouter_needs_its_details_back_intact() {
        let intact = json!([
            {"type": "reasoning.text", "text": "plan", "format": "google-gemini-v1", "index": 0},
            {"type": "reasoning.encrypted", "data": mock_signature("plan"), "format": "google-gemini-v1", "index": 1},
        ]);
        let model = "google/gemini-3-pro-preview";
        assert_eq!(check(model, &loop_body(Some(intact.clone()))), Ok(()));
        let refused = check(model, &loop_body(None)).unwrap_err();
        let raw = refused.1["error"]["metadata"]["raw"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(raw.starts_with(
            "Gemini models require OpenRouter reasoning details to be preserved in each request."
        ));
        let mut changed = intact;
        changed[0]["text"] = json!("plan, edited");
        assert!(check(model, &loop_body(Some(changed))).is_err());
        assert_eq!(
            check("openai/gpt-5", &loop_body(None)),
            Ok(()),
            "only Gemini refuses"
        );
    }
}
