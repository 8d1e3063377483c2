//! The providers' rules for reasoning parameters, as each provider's
//! documentation states them, with the 400 bodies the providers answer a
//! breach with. Written from the providers' docs and changelogs, with the
//! source beside each rule; they import nothing but serde_json and each
//! other (none of Pensive's model families or effort words), so a wrong
//! family table in Pensive makes a test fail instead of agreeing with itself.
//!
//! Each provider is recognised by its real path, each model by its real id
//! (with a dated snapshot suffix where the provider takes one). A model id
//! the rules do not list (`mock-model`, an alias) passes every rule and
//! thinks visibly, so the scripted scenarios stay usable with any name.
//!
//! Besides refusing, the rules say whether the model thinks for an accepted
//! request, and whether its thinking text is sent or omitted: the mock then
//! streams no reasoning, or reasoning without text, as the provider would.

use serde_json::{json, Value};

pub mod anthropic;
mod chat_servers;
mod gemini;
pub mod model_lists;
mod ollama;
mod openai;
mod tool_loops;

/// What the provider does with a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Refused: the HTTP status and the provider's own error body.
    Refused { status: u16, body: Value },
    /// Accepted; the model thinks as said.
    Accepted(Thinks),
}

/// Whether an accepted request's model thinks, and what of it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thinks {
    /// No thinking at all.
    No,
    /// Thinking, with its (summarized or full) text sent.
    Shown,
    /// Thinking, with no text sent (Anthropic's `display: "omitted"`, Gemini
    /// without `includeThoughts`).
    Omitted,
}

/// The provider's verdict on a request to `path` with `body`.
pub fn verdict(path: &str, body: &Value) -> Verdict {
    let model = body.get("model").and_then(Value::as_str).unwrap_or("");
    let refused = match path {
        "/v1/messages" => {
            tool_loops::check_anthropic(body).and_then(|()| anthropic::check(model, body))
        }
        "/v1/responses" => {
            tool_loops::check_responses(body).and_then(|()| openai::check_responses(model, body))
        }
        "/v1/chat/completions" => tool_loops::check_chat(model, body)
            .and_then(|()| tool_loops::check_openrouter(model, body))
            .and_then(|()| {
                openai::check_chat(model, body).unwrap_or_else(|| chat_servers::check(model, body))
            }),
        "/api/chat" => ollama::check(model, body),
        _ if path.starts_with("/v1beta/models/") => {
            let model = path["/v1beta/models/".len()..]
                .split(':')
                .next()
                .unwrap_or("");
            tool_loops::check_gemini(model, body).and_then(|()| gemini::check(model, body))
        }
        _ => Ok(Thinks::Shown),
    };
    match refused {
        Ok(thinks) => Verdict::Accepted(thinks),
        Err((status, body)) => Verdict::Refused { status, body },
    }
}

/// Whether the rules of the provider at `path` list the model `name` (a
/// model they do not list passes every rule).
pub fn knows(path: &str, name: &str) -> bool {
    match path {
        "/v1/messages" => anthropic::knows(name),
        "/v1/responses" => openai::knows(name),
        "/v1/chat/completions" => openai::knows(name) || chat_servers::knows(name),
        "/api/chat" => ollama::knows(name),
        _ if path.starts_with("/v1beta/models/") => gemini::knows(name),
        _ => false,
    }
}

/// A refusal: status and body.
type Refusal = (u16, Value);

/// OpenAI's error body (also used by the OpenAI-compatible servers).
/// Source: https://platform.openai.com/docs/guides/error-codes
fn openai_error(message: String, param: &str, code: &str) -> Refusal {
    (
        400,
        json!({"error": {
            "message": message,
            "type": "invalid_request_error",
            "param": param,
            "code": code,
        }}),
    )
}

/// `'a', 'b', and 'c'`: how OpenAI lists supported values.
fn openai_list(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
    }
}

/// `id` or a dated snapshot of it (`gpt-5-mini-2025-08-07`,
/// `claude-sonnet-4-5-20250929`): how providers name a model's versions.
fn is_model(name: &str, id: &str) -> bool {
    name == id
        || name.strip_prefix(id).is_some_and(|rest| {
            rest.strip_prefix('-')
                .is_some_and(|date| date.starts_with("20") && date.len() >= 8)
        })
}

/// A verdict as its message, for tests: the refusal's `error.message`, or
/// "accepted: …".
#[cfg(test)]
pub(super) fn message_of(result: Result<Thinks, Refusal>) -> String {
    match result {
        Err((_, body)) => body["error"]["message"].as_str().unwrap_or("").to_owned(),
        Ok(thinks) => format!("accepted: {thinks:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dated_snapshots_are_the_same_model_and_longer_ids_are_not() {
        assert!(is_model("gpt-5-mini-2025-08-07", "gpt-5-mini"));
        assert!(is_model("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"));
        assert!(!is_model("gpt-5-mini", "gpt-5"));
        assert!(!is_model("gemini-2.5-flash-lite", "gemini-2.5-flash"));
        assert_eq!(openai_list(&["high"]), "'high'");
        assert_eq!(openai_list(&["a", "b", "c"]), "'a', 'b', and 'c'");
    }

    #[test]
    fn unknown_paths_and_models_pass() {
        let body = json!({"model": "mock-model", "reasoning_effort": "anything"});
        assert_eq!(
            verdict("/v1/chat/completions", &body),
            Verdict::Accepted(Thinks::Shown)
        );
        assert_eq!(
            verdict("/elsewhere", &body),
            Verdict::Accepted(Thinks::Shown)
        );
    }
}
