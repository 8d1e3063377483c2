//! What an Anthropic Messages tool loop must send back, as the API refuses
//! it (tool-loops.md §1.1; platform.claude.com/docs/en/build-with-claude/
//! extended-thinking, "Preserving thinking blocks" and thinking-tool-workflows),
//! each rule with the issue thread that quotes the real 400:
//! - With thinking on, the first assistant message of the current
//!   tool-use cycle starts with a `thinking` or `redacted_thinking` block
//!   (anomalyco/opencode#3077, Kilo-Org/kilocode#5219).
//! - The thinking blocks of the latest assistant message come back exactly
//!   as sent (anthropics/claude-code#19539). The mock signs each block with
//!   a hash of its text (`mock_signature`), so a changed block is seen.
//! - Every `tool_use` has its `tool_result` in the next message
//!   (anthropics/claude-code#5060), and every `tool_result` answers a
//!   `tool_use` of the message before it (anthropics/claude-code#13460).

use serde_json::{json, Value};

use super::super::Refusal;
use crate::server::mock::encoders::anthropic::mock_signature;

fn refused(message: String) -> Refusal {
    (
        400,
        json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}}),
    )
}

fn blocks(message: &Value) -> &[Value] {
    message
        .get("content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn kind(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("")
}

fn ids_of<'a>(message: &'a Value, block_type: &str, key: &str) -> Vec<&'a str> {
    blocks(message)
        .iter()
        .filter(|b| kind(b) == block_type)
        .filter_map(|b| b.get(key).and_then(Value::as_str))
        .collect()
}

fn is_thinking(block: &Value) -> bool {
    matches!(kind(block), "thinking" | "redacted_thinking")
}

fn thinking_on(body: &Value) -> bool {
    matches!(
        body.pointer("/thinking/type").and_then(Value::as_str),
        Some("enabled" | "adaptive")
    )
}

/// The verdict on a Messages request's tool blocks (`Ok`: nothing to refuse).
pub(in super::super) fn check(body: &Value) -> Result<(), Refusal> {
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    // The current tool-use cycle starts after the last user message that
    // is not only tool results.
    let cycle_start = messages
        .iter()
        .rposition(|m| m["role"] == "user" && !blocks(m).iter().any(|b| kind(b) == "tool_result"))
        .map_or(0, |at| at + 1);
    let latest_assistant = messages.iter().rposition(|m| m["role"] == "assistant");
    for (at, message) in messages.iter().enumerate() {
        if message["role"] != "assistant" {
            let results = ids_of(message, "tool_result", "tool_use_id");
            let asked = at.checked_sub(1).map_or(Vec::new(), |before| {
                ids_of(&messages[before], "tool_use", "id")
            });
            if let Some(stray) = results.iter().find(|id| !asked.contains(id)) {
                return Err(refused(format!("messages.{at}.content.0: unexpected `tool_use_id` found in `tool_result` blocks: {stray}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.")));
            }
            continue;
        }
        let calls = ids_of(message, "tool_use", "id");
        if calls.is_empty() {
            continue;
        }
        let answered = messages.get(at + 1).map_or(Vec::new(), |next| {
            ids_of(next, "tool_result", "tool_use_id")
        });
        let missing: Vec<&str> = calls
            .iter()
            .copied()
            .filter(|id| !answered.contains(id))
            .collect();
        if !missing.is_empty() {
            return Err(refused(format!("messages.{at}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", missing.join(", "))));
        }
        let first = blocks(message).first().map_or("", kind);
        // The cycle's first assistant message; later ones think only with
        // interleaved thinking, and need not start with it.
        let opens_cycle = messages[cycle_start..]
            .iter()
            .position(|m| m["role"] == "assistant")
            .is_some_and(|first| first + cycle_start == at);
        if thinking_on(body) && opens_cycle && !is_thinking(&blocks(message)[0]) {
            return Err(refused(format!("messages.{at}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{first}`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking")));
        }
        // A block bound to its prefix signs its text first.
        let changed = blocks(message).iter().any(|b| {
            kind(b) == "thinking"
                && b.get("signature")
                    .and_then(Value::as_str)
                    .map(|s| s.split(".p").next().unwrap_or(s))
                    != Some(
                        mock_signature(b.get("thinking").and_then(Value::as_str).unwrap_or(""))
                            .as_str(),
                    )
        });
        if Some(at) == latest_assistant && changed {
            return Err(refused(format!("messages.{at}.content: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::refusal_message as message_of;
    use super::*;

    fn loop_body(assistant: Vec<Value>, results: Vec<Value>) -> Value {
        json!({
            "thinking": {"type": "adaptive"},
            "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": assistant},
                {"role": "user", "content": results},
            ],
        })
    }

    fn signed(text: &str) -> Value {
        json!({"type": "thinking", "thinking": text, "signature": mock_signature(text)})
    }

    fn call(id: &str) -> Value {
        json!({"type": "tool_use", "id": id, "name": "t", "input": {}})
    }

    fn result(id: &str) -> Value {
        json!({"type": "tool_result", "tool_use_id": id, "content": "4"})
    }

    #[test]
    fn a_whole_echo_passes() {
        let body = loop_body(
            vec![signed("plan"), call("a"), call("b")],
            vec![result("a"), result("b")],
        );
        assert_eq!(check(&body), Ok(()));
        let redacted = json!({"type": "redacted_thinking", "data": "xyz"});
        assert_eq!(
            check(&loop_body(vec![redacted, call("a")], vec![result("a")])),
            Ok(())
        );
    }

    #[test]
    fn a_dropped_thinking_block_gets_the_start_rule() {
        let refused = check(&loop_body(vec![call("a")], vec![result("a")])).unwrap_err();
        assert!(message_of(refused).starts_with("messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`."));
        let mut off = loop_body(vec![call("a")], vec![result("a")]);
        off["thinking"] = json!({"type": "disabled"});
        assert_eq!(check(&off), Ok(()), "without thinking no block is needed");
    }

    #[test]
    fn a_changed_thinking_block_is_refused() {
        let mut block = signed("plan");
        block["thinking"] = json!("plan, edited");
        let refused = check(&loop_body(vec![block, call("a")], vec![result("a")])).unwrap_err();
        assert!(message_of(refused).contains("cannot be modified"));
    }

    #[test]
    fn every_call_needs_its_result_and_every_result_its_call() {
        let refused = check(&loop_body(
            vec![signed("p"), call("a"), call("b")],
            vec![result("a")],
        ))
        .unwrap_err();
        assert!(message_of(refused).contains("without `tool_result` blocks immediately after: b."));
        let refused = check(&loop_body(
            vec![signed("p"), call("a")],
            vec![result("a"), result("z")],
        ))
        .unwrap_err();
        assert!(message_of(refused)
            .contains("unexpected `tool_use_id` found in `tool_result` blocks: z."));
    }
}
