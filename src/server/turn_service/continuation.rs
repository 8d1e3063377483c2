//! "Continue": an answer cut at the output limit goes on
//! from where it stopped. The browser sends the conversation with the cut
//! answer as the last assistant message and `continue_answer: true`; here the
//! request gets a user message asking to go on. Every dialect hands the cut
//! answer back the same way, as the model's own earlier message followed by
//! that request (docs/decisions.md, "Continue"): Anthropic refuses an
//! assistant prefill from Claude 4.6 on ("This model does not support
//! assistant message prefill"), and OpenAI, Gemini and most OpenAI-compatible
//! servers have no prefill at all, so the one shape every provider takes is
//! a conversation that ends with the user.

use crate::turn::{ChatMessage, ChatRequest, Role};

/// What the model is asked after its cut answer.
pub(crate) const CONTINUE_PROMPT: &str = "Your previous answer was cut off at the output limit. Continue it exactly where it stopped: do not repeat anything, do not start over, and do not comment on the cut.";

/// Adds the request to go on, when the browser asked to continue an answer
/// that is the conversation's last message. Anything else is left as it is
/// (and then refused by the usual checks: the last message must be the user's).
pub(crate) fn ask_to_continue(request: &mut ChatRequest) {
    if !request.continue_answer {
        return;
    }
    let cut = request
        .messages
        .last()
        .is_some_and(|m| m.role == Role::Assistant && !m.content.trim().is_empty());
    if cut {
        request.messages.push(ChatMessage::user(CONTINUE_PROMPT));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_answer_last_gets_the_request_to_go_on_and_nothing_else_changes() {
        let mut request = ChatRequest {
            messages: vec![
                ChatMessage::user("Why?"),
                ChatMessage::assistant("Because the"),
            ],
            continue_answer: true,
            ..ChatRequest::default()
        };
        ask_to_continue(&mut request);
        assert_eq!(request.messages.len(), 3);
        assert_eq!(request.messages[2], ChatMessage::user(CONTINUE_PROMPT));
        let mut question_last = ChatRequest {
            messages: vec![ChatMessage::user("Why?")],
            continue_answer: true,
            ..ChatRequest::default()
        };
        ask_to_continue(&mut question_last);
        assert_eq!(question_last.messages.len(), 1);
        let mut not_asked = ChatRequest {
            messages: vec![ChatMessage::user("Why?"), ChatMessage::assistant("Because")],
            ..ChatRequest::default()
        };
        ask_to_continue(&mut not_asked);
        assert_eq!(not_asked.messages.len(), 2);
    }
}
