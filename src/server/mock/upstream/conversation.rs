//! The conversation of a request body as the mock's tool scenarios read it,
//! in every dialect: the user's questions and the tool results, in order.
//! Read from each provider's documented request shape (tool-loops.md §1),
//! not from Pensive's request builders: a result Pensive puts in the wrong
//! place is not seen, and the scenario does not go on.

use serde_json::Value;

use crate::server::providers::wire::Dialect;
use crate::turn::ChatMessage;

/// The user messages and tool results of `body`, in order.
pub fn messages_of(dialect: Dialect, body: &Value) -> Vec<ChatMessage> {
    let list = |key: &str| {
        body.get(key)
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
    };
    match dialect {
        Dialect::Chat | Dialect::Ollama => list("messages").iter().filter_map(chat_like).collect(),
        Dialect::Anthropic => list("messages").iter().flat_map(anthropic).collect(),
        Dialect::Responses => list("input").iter().filter_map(responses).collect(),
        Dialect::Gemini => list("contents").iter().flat_map(gemini).collect(),
    }
}

/// Text as a string, or the text parts of a content list joined.
fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        Some(other) if !other.is_null() => other.to_string(),
        _ => String::new(),
    }
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Chat completions and Ollama: `user` and `tool` messages.
fn chat_like(m: &Value) -> Option<ChatMessage> {
    match str_of(m, "role") {
        "user" => Some(ChatMessage::user(text_of(m.get("content")))),
        "tool" => {
            // Chat completions name the call; Ollama names the tool.
            let id = m
                .get("tool_call_id")
                .or_else(|| m.get("tool_name"))
                .and_then(Value::as_str)
                .unwrap_or("");
            Some(ChatMessage::tool_result(
                id,
                text_of(m.get("content")),
                false,
            ))
        }
        _ => None,
    }
}

/// Messages: a user message's text, or its `tool_result` blocks.
fn anthropic(m: &Value) -> Vec<ChatMessage> {
    if str_of(m, "role") != "user" {
        return Vec::new();
    }
    let Some(blocks) = m.get("content").and_then(Value::as_array) else {
        return vec![ChatMessage::user(text_of(m.get("content")))];
    };
    let results: Vec<ChatMessage> = blocks
        .iter()
        .filter(|b| str_of(b, "type") == "tool_result")
        .map(|b| {
            let is_error = b.get("is_error").and_then(Value::as_bool).unwrap_or(false);
            ChatMessage::tool_result(
                str_of(b, "tool_use_id"),
                text_of(b.get("content")),
                is_error,
            )
        })
        .collect();
    if results.is_empty() {
        vec![ChatMessage::user(text_of(m.get("content")))]
    } else {
        results
    }
}

/// Responses: user message items and `function_call_output` items.
fn responses(item: &Value) -> Option<ChatMessage> {
    if str_of(item, "type") == "function_call_output" {
        let output = text_of(item.get("output"));
        return Some(ChatMessage::tool_result(
            str_of(item, "call_id"),
            output,
            false,
        ));
    }
    (str_of(item, "role") == "user").then(|| ChatMessage::user(text_of(item.get("content"))))
}

/// Gemini: user text parts and `functionResponse` parts.
fn gemini(content: &Value) -> Vec<ChatMessage> {
    if str_of(content, "role") == "model" {
        return Vec::new();
    }
    let parts = content
        .get("parts")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let results: Vec<ChatMessage> = parts
        .iter()
        .filter_map(|p| p.get("functionResponse"))
        .map(|r| {
            let response = r.get("response");
            let error = response.and_then(|v| v.get("error"));
            let output = error.or_else(|| response.and_then(|v| v.get("output")));
            let id = r
                .get("id")
                .or_else(|| r.get("name"))
                .and_then(Value::as_str);
            ChatMessage::tool_result(id.unwrap_or(""), text_of(output), error.is_some())
        })
        .collect();
    if results.is_empty() {
        vec![ChatMessage::user(text_of(content.get("parts")))]
    } else {
        results
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::Role;
    use serde_json::json;

    fn roles(messages: &[ChatMessage]) -> Vec<(Role, String)> {
        messages
            .iter()
            .map(|m| {
                (
                    m.role,
                    format!(
                        "{}{}",
                        m.tool_call_id.clone().unwrap_or_default(),
                        m.content
                    ),
                )
            })
            .collect()
    }

    #[test]
    fn each_dialect_yields_its_questions_and_results_in_order() {
        let expected = vec![(Role::User, "q".to_owned()), (Role::Tool, "c14".to_owned())];
        let anthropic = json!({"messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "t", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "4"}]},
        ]});
        assert_eq!(
            roles(&messages_of(Dialect::Anthropic, &anthropic)),
            expected
        );
        let responses = json!({"input": [
            {"role": "user", "content": [{"type": "input_text", "text": "q"}]},
            {"type": "function_call", "call_id": "c1", "name": "t", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "4"},
        ]});
        assert_eq!(
            roles(&messages_of(Dialect::Responses, &responses)),
            expected
        );
        let gemini = json!({"contents": [
            {"role": "user", "parts": [{"text": "q"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "t", "id": "c1", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "t", "id": "c1", "response": {"output": "4"}}}]},
        ]});
        assert_eq!(roles(&messages_of(Dialect::Gemini, &gemini)), expected);
        let ollama = json!({"messages": [
            {"role": "user", "content": "q"},
            {"role": "tool", "tool_name": "c1", "content": "4"},
        ]});
        assert_eq!(roles(&messages_of(Dialect::Ollama, &ollama)), expected);
    }
}
