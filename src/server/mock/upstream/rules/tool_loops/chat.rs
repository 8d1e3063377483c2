//! What a Chat completions tool loop must send back, as the providers
//! refuse it (../shared/tool-loops.md §1.3, each rule with its source):
//! - Every server: an assistant message with `tool_calls` is followed by a
//!   `tool` message for each call id. Quoted from agno-agi/agno#3105:
//!   "An assistant message with 'tool_calls' must be followed by tool
//!   messages responding to each 'tool_call_id'. The following
//!   tool_call_ids did not have response messages: …"
//! - DeepSeek in thinking mode (on by default for V4): an assistant message
//!   that made tool calls carries its `reasoning_content` in every later
//!   request (api-docs.deepseek.com/guides/thinking_mode). The 400, from
//!   the-open-agent/openagent#2206: "The `reasoning_content` in the thinking
//!   mode must be passed back to the API."
//! - vLLM started without `--enable-auto-tool-choice` refuses any request
//!   with tools: "\"auto\" tool choice requires --enable-auto-tool-choice
//!   and --tool-call-parser to be set" (soapbucket/sbproxy#591). The mock
//!   plays such a server for the model id `vllm-no-tool-parser`.
//! - Kimi with thinking on: "thinking is enabled but reasoning_content is
//!   missing in assistant tool call message at index N"
//!   (MoonshotAI/kimi-agent-sdk#169).

use serde_json::{json, Value};

use super::super::Refusal;

/// DeepSeek's thinking models by id (as `chat_servers` lists them).
const DEEPSEEK: &[&str] = &["deepseek-v4-pro", "deepseek-v4-flash", "deepseek-flash"];

fn messages(body: &Value) -> &[Value] {
    body.get("messages")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn call_ids(message: &Value) -> Vec<&str> {
    message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map_or(Vec::new(), |calls| {
            calls
                .iter()
                .filter_map(|c| c.get("id").and_then(Value::as_str))
                .collect()
        })
}

fn thinking_on(body: &Value) -> bool {
    body.pointer("/thinking/type").and_then(Value::as_str) != Some("disabled")
        && body.get("reasoning_effort").and_then(Value::as_str) != Some("none")
}

/// The verdict on a chat request's tool messages (`Ok`: nothing to refuse).
pub(in super::super) fn check_chat(model: &str, body: &Value) -> Result<(), Refusal> {
    if model == "vllm-no-tool-parser" && body.get("tools").is_some() {
        return Err((
            400,
            json!({"object": "error", "message": "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set", "type": "BadRequestError", "param": null, "code": 400}),
        ));
    }
    let messages = messages(body);
    for (at, message) in messages.iter().enumerate() {
        let ids = call_ids(message);
        if ids.is_empty() {
            continue;
        }
        let answered: Vec<&str> = messages[at + 1..]
            .iter()
            .take_while(|m| m.get("role").and_then(Value::as_str) == Some("tool"))
            .filter_map(|m| m.get("tool_call_id").and_then(Value::as_str))
            .collect();
        let missing: Vec<&str> = ids
            .into_iter()
            .filter(|id| !answered.contains(id))
            .collect();
        if !missing.is_empty() {
            return Err((
                400,
                json!({"error": {
                    "message": format!("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}", missing.join(", ")),
                    "type": "invalid_request_error",
                    "param": "messages",
                    "code": null,
                }}),
            ));
        }
        let has_reasoning = message
            .get("reasoning_content")
            .and_then(Value::as_str)
            .is_some_and(|r| !r.is_empty());
        if has_reasoning || !thinking_on(body) {
            continue;
        }
        if DEEPSEEK.contains(&model) {
            return Err((
                400,
                json!({"error": {
                    "message": "The `reasoning_content` in the thinking mode must be passed back to the API.",
                    "type": "invalid_request_error",
                    "param": null,
                    "code": "invalid_request_error",
                }}),
            ));
        }
        if model.starts_with("kimi-") {
            return Err((
                400,
                json!({"error": {
                    "message": format!("thinking is enabled but reasoning_content is missing in assistant tool call message at index {at}"),
                    "type": "invalid_request_error",
                }}),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::refusal_message as message_of;
    use super::*;

    fn call_then(result: Option<&str>, reasoning: Option<&str>) -> Value {
        let mut assistant = json!({"role": "assistant", "content": null,
            "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "builtin__calculate", "arguments": "{}"}}]});
        if let Some(r) = reasoning {
            assistant["reasoning_content"] = json!(r);
        }
        let mut messages = vec![json!({"role": "user", "content": "q"}), assistant];
        if let Some(id) = result {
            messages.push(json!({"role": "tool", "tool_call_id": id, "content": "4"}));
        }
        json!({"messages": messages})
    }

    #[test]
    fn every_call_needs_its_result() {
        assert!(check_chat("gpt-5", &call_then(Some("call_1"), None)).is_ok());
        let refused = check_chat("gpt-5", &call_then(None, None)).unwrap_err();
        assert!(message_of(refused).ends_with("did not have response messages: call_1"));
        assert!(check_chat("gpt-5", &call_then(Some("call_9"), None)).is_err());
    }

    #[test]
    fn deepseek_and_kimi_need_the_reasoning_back() {
        let bare = call_then(Some("call_1"), None);
        let refused = check_chat("deepseek-v4-flash", &bare).unwrap_err();
        assert_eq!(
            message_of(refused),
            "The `reasoning_content` in the thinking mode must be passed back to the API."
        );
        let refused = check_chat("kimi-k2.6", &bare).unwrap_err();
        assert!(message_of(refused).ends_with("at index 1"));
        let kept = call_then(Some("call_1"), Some("I should compute."));
        assert!(check_chat("deepseek-v4-flash", &kept).is_ok());
        let mut off = bare.clone();
        off["thinking"] = json!({"type": "disabled"});
        assert!(
            check_chat("deepseek-v4-flash", &off).is_ok(),
            "thinking off: not needed"
        );
        assert!(
            check_chat("gpt-5", &bare).is_ok(),
            "OpenAI takes no reasoning_content"
        );
    }
}
