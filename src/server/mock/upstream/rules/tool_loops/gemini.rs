//! What a Gemini tool loop must send back, as the API refuses it
//! (tool-loops.md §1.4; ai.google.dev/gemini-api/docs/thought-signatures):
//! - Gemini 3 validates the thought signatures of the current turn: the
//!   first `functionCall` part of each model turn since the last user text
//!   carries the signature it was sent with (for parallel calls only the
//!   first has one), or the documented sentinel
//!   `skip_thought_signature_validator` for history Gemini did not sign.
//!   The 400, quoted from nanbingxyz/5ire#405 and
//!   langgenius/dify-official-plugins#2088: "Function call is missing a
//!   thought_signature in functionCall parts. …". The mock signs a call
//!   by its name and arguments (`call_signature`), so a changed one is
//!   refused too.
//! - Every model turn of calls is followed by one user turn with as many
//!   `functionResponse` parts: "Please ensure that the number of function
//!   response parts is equal to the number of function call parts of the
//!   function call turn." (google-gemini/gemini-cli#16415, #4217).

use serde_json::{json, Value};

use super::super::Refusal;
use crate::server::mock::encoders::gemini::call_signature;

/// The documented sentinel for calls Gemini did not sign.
const SENTINEL: &str = "skip_thought_signature_validator";

fn refused(message: String) -> Refusal {
    (
        400,
        json!({"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}),
    )
}

fn parts(content: &Value) -> &[Value] {
    content
        .get("parts")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn count(content: &Value, key: &str) -> usize {
    parts(content)
        .iter()
        .filter(|p| p.get(key).is_some())
        .count()
}

/// The verdict on a request's function calls and responses.
pub(in super::super) fn check(model: &str, body: &Value) -> Result<(), Refusal> {
    let contents = body
        .get("contents")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let turn_start = contents
        .iter()
        .rposition(|c| c["role"] != "model" && parts(c).iter().any(|p| p.get("text").is_some()))
        .map_or(0, |at| at + 1);
    for (at, content) in contents.iter().enumerate() {
        let calls = count(content, "functionCall");
        if content["role"] != "model" || calls == 0 {
            continue;
        }
        let answered = contents
            .get(at + 1)
            .map_or(0, |next| count(next, "functionResponse"));
        if answered != calls {
            return Err(refused("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.".into()));
        }
        let Some(first) = parts(content)
            .iter()
            .find(|p| p.get("functionCall").is_some())
        else {
            continue;
        };
        let call = &first["functionCall"];
        let name = call.get("name").and_then(Value::as_str).unwrap_or("");
        let expected = call_signature(name, call.get("args").unwrap_or(&json!({})));
        let signature = first.get("thoughtSignature").and_then(Value::as_str);
        let signed = signature.is_some_and(|s| s == expected || s == SENTINEL);
        if model.starts_with("gemini-3") && at >= turn_start && !signed {
            return Err(refused(format!("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:{name}` , position {}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", at + 1)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::refusal_message as message_of;
    use super::*;

    fn loop_body(signature: Option<&str>, responses: usize) -> Value {
        let args = json!({"expression": "1+1"});
        let mut first = json!({"functionCall": {"name": "calc", "args": args}});
        if let Some(s) = signature {
            first["thoughtSignature"] = json!(s);
        }
        let second = json!({"functionCall": {"name": "calc", "args": {"expression": "2+2"}}});
        let response = json!({"functionResponse": {"name": "calc", "response": {"output": "2"}}});
        json!({"contents": [
            {"role": "user", "parts": [{"text": "q"}]},
            {"role": "model", "parts": [first, second]},
            {"role": "user", "parts": vec![response; responses]},
        ]})
    }

    #[test]
    fn the_first_call_keeps_its_signature_or_the_sentinel() {
        let good = call_signature("calc", &json!({"expression": "1+1"}));
        assert_eq!(
            check("gemini-3-pro-preview", &loop_body(Some(&good), 2)),
            Ok(())
        );
        assert_eq!(
            check("gemini-3-pro-preview", &loop_body(Some(SENTINEL), 2)),
            Ok(())
        );
        let refused = check("gemini-3-pro-preview", &loop_body(None, 2)).unwrap_err();
        assert!(message_of(refused)
            .starts_with("Function call is missing a thought_signature in functionCall parts."));
        assert!(check("gemini-3-pro-preview", &loop_body(Some("changed"), 2)).is_err());
        assert_eq!(
            check("gemini-2.5-pro", &loop_body(None, 2)),
            Ok(()),
            "2.5 does not validate"
        );
    }

    #[test]
    fn each_call_needs_its_response() {
        let good = call_signature("calc", &json!({"expression": "1+1"}));
        let refused = check("gemini-2.5-pro", &loop_body(Some(&good), 1)).unwrap_err();
        assert!(message_of(refused)
            .starts_with("Please ensure that the number of function response parts"));
    }
}
