//! What a Responses tool loop must send back, as the API refuses it
//! (tool-loops.md §1.2; developers.openai.com/api/docs/guides/
//! reasoning#keeping-reasoning-items-in-context), each rule with the issue
//! thread that quotes the real 400 (`invalid_request_error`, param `input`):
//! - A `function_call` item the API wrote after a reasoning item comes
//!   back with that reasoning item before it: "Item 'fc_…' of type
//!   'function_call' was provided without its required 'reasoning' item:
//!   'rs_…'." (cline/cline#12242, continuedev/continue#10018). The mock
//!   names the reasoning item in the call's item id (`call_item_id`), so
//!   it knows which one is required without keeping state.
//! - With `store: false` a reasoning item is only usable with its
//!   `encrypted_content`: "Item with id 'rs_…' not found. Items are not
//!   persisted when `store` is set to false. …" (anomalyco/opencode#2480).
//! - Every call has its output: "No tool output found for function call
//!   call_…." (the Responses API's message, as tool-loops.md quotes it).

use serde_json::{json, Value};

use super::super::Refusal;

fn refused(message: String) -> Refusal {
    (
        400,
        json!({"error": {"message": message, "type": "invalid_request_error", "param": "input", "code": null}}),
    )
}

fn field<'a>(item: &'a Value, key: &str) -> &'a str {
    item.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The verdict on a Responses request's input items.
pub(in super::super) fn check(body: &Value) -> Result<(), Refusal> {
    let input = body
        .get("input")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let stateless = body.get("store") == Some(&Value::Bool(false));
    for (at, item) in input.iter().enumerate() {
        match field(item, "type") {
            "reasoning" if stateless && field(item, "encrypted_content").is_empty() => {
                return Err(refused(format!("Item with id '{}' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.", field(item, "id"))));
            }
            "function_call" => {
                let id = field(item, "id");
                if let Some((_, reasoning)) = id.split_once("_for_") {
                    let present = input[..at]
                        .iter()
                        .any(|i| field(i, "type") == "reasoning" && field(i, "id") == reasoning);
                    if !present {
                        return Err(refused(format!("Item '{id}' of type 'function_call' was provided without its required 'reasoning' item: '{reasoning}'.")));
                    }
                }
                let call_id = field(item, "call_id");
                let answered = input[at + 1..].iter().any(|i| {
                    field(i, "type") == "function_call_output" && field(i, "call_id") == call_id
                });
                if !answered {
                    return Err(refused(format!(
                        "No tool output found for function call {call_id}."
                    )));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::refusal_message as message_of;
    use super::*;

    fn loop_body(reasoning: Option<Value>, output: bool) -> Value {
        let mut input = vec![json!({"role": "user", "content": "q"})];
        input.extend(reasoning);
        input.push(json!({"type": "function_call", "id": "fc_mock0001_for_rs_mock0000", "call_id": "call_1", "name": "t", "arguments": "{}"}));
        if output {
            input.push(json!({"type": "function_call_output", "call_id": "call_1", "output": "4"}));
        }
        json!({"store": false, "input": input})
    }

    fn reasoning(encrypted: &str) -> Value {
        json!({"type": "reasoning", "id": "rs_mock0000", "summary": [], "encrypted_content": encrypted})
    }

    #[test]
    fn a_call_with_its_reasoning_and_output_passes() {
        assert_eq!(check(&loop_body(Some(reasoning("gAAAA")), true)), Ok(()));
    }

    #[test]
    fn a_call_without_its_reasoning_item_is_refused() {
        let refused = check(&loop_body(None, true)).unwrap_err();
        assert_eq!(message_of(refused), "Item 'fc_mock0001_for_rs_mock0000' of type 'function_call' was provided without its required 'reasoning' item: 'rs_mock0000'.");
    }

    #[test]
    fn a_reasoning_item_without_its_encrypted_content_is_not_found() {
        let refused = check(&loop_body(Some(reasoning("")), true)).unwrap_err();
        assert!(message_of(refused).starts_with("Item with id 'rs_mock0000' not found."));
    }

    #[test]
    fn a_call_without_its_output_is_refused() {
        let refused = check(&loop_body(Some(reasoning("gAAAA")), false)).unwrap_err();
        assert_eq!(
            message_of(refused),
            "No tool output found for function call call_1."
        );
    }
}
