//! What each dialect's tool loop must send back, as each provider refuses
//! it: one file per dialect, each rule with the source of its 400 body.
//! Ollama has none: its docs ask for `thinking` and `tool_calls` back
//! ("particularly important for tool calling"), but a request without
//! them is answered, only worse (tool-loops.md §1.3, §1.5), so the mock
//! answers it too and the golden request test pins what Pensive sends.

mod anthropic;
mod chat;
mod gemini;
mod openrouter;
mod responses;

pub(super) use anthropic::check as check_anthropic;
pub(super) use chat::check_chat;
pub(super) use gemini::check as check_gemini;
pub(super) use openrouter::check as check_openrouter;
pub(super) use responses::check as check_responses;

/// A refusal's `error.message`, for the tests of each dialect's rules.
#[cfg(test)]
fn refusal_message(refusal: super::Refusal) -> String {
    refusal.1["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}
