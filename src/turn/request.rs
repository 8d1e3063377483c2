//! The chat request the browser sends
//! (`{"request": {"messages": [...], "model": ..., "effort": ...}}`).

use serde::{Deserialize, Serialize};

use super::tool::ToolCall;
use super::Effort;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
    /// The result of one tool call (`tool_call_id`, `is_error`).
    Tool,
}

/// One message of the conversation sent to the model, in the neutral shape
/// each dialect's encoder turns into the provider's own. Assistant messages
/// carry their answer text, their tool calls and the provider's opaque
/// `continuity`: readable thinking is never sent back (design §5), except
/// inside continuity where a provider requires it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The data of the continuity events of the response that wrote this
    /// message, for the dialect that produced it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub continuity: Vec<serde_json::Value>,
    /// For `role: "tool"`: the call this result answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For `role: "tool"`: the call failed, was denied or cut short.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// For an assistant message the same model wrote: the effort its turn
    /// was asked at (Anthropic's per-message effort keeps the prompt cache
    /// with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<crate::turn::Effort>,
}

impl ChatMessage {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            continuity: Vec::new(),
            tool_call_id: None,
            is_error: false,
            effort: None,
        }
    }

    /// The result of call `call_id`, as the model will read it.
    pub fn tool_result(
        call_id: impl Into<String>,
        content: impl Into<String>,
        is_error: bool,
    ) -> Self {
        Self {
            tool_call_id: Some(call_id.into()),
            is_error,
            ..Self::new(Role::Tool, content)
        }
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }

    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }
}

/// The body of `POST /api/chat` (inside the server function's `request` argument).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatRequest {
    pub messages: Vec<ChatMessage>,
    /// One of the configured model ids; the first configured model when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// How hard the model should think: one of the model's `efforts`
    /// (`POST /api/models`); the model's `default_effort` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    /// An id the browser gives the turn, so "Answer now" can name it
    /// (`POST /api/answer_now`); at most 100 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// The page's secret for this turn (random, kept with the turn): only
    /// a caller that shows it may attach to the turn later or stop it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_secret: Option<String>,
    /// "Answer now" on a provider without a control: the reasoning the
    /// stopped turn showed. The server asks again at the model's weakest
    /// effort (unless `effort` names one), with this reasoning given to the
    /// model as its own, and asks for the answer at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_so_far: Option<String>,
    /// The tool servers switched on for this conversation (`["builtin",
    /// "files"]`); absent: every enabled server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Tools the user allowed for the whole conversation ("Allow in this
    /// conversation"): their calls run without asking again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// The tools offered to the model for this request: filled by the
    /// server's tool loop, never read from the browser.
    #[serde(skip)]
    pub tool_specs: Vec<super::tool::ToolSpec>,
    /// "Continue" on an answer cut at the output limit: `messages` ends with
    /// that answer; the server asks the model to go on from where it stopped
    /// (`server::turn_service::continuation`), at the effort that does not think again
    /// unless `effort` names one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub continue_answer: bool,
}

/// What `POST /api/answer_now` did for a thinking turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum AnswerNow {
    /// The provider was told to end the thinking (llama.cpp): the same stream
    /// goes on with the answer.
    Ended,
    /// The provider has no such control (or the turn is not known, or has not
    /// started yet): stop the turn and send it again with `reasoning_so_far`
    /// and this effort (the model's weakest; none if it takes none).
    AskAgain {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        effort: Option<Effort>,
        /// The provider has a control but the call failed (the page says so).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        control_failed: bool,
    },
}

/// The end of `text` in at most `max_chars` characters, starting at a line
/// where one begins near the cut (the end is what the model was doing when
/// it was stopped); `None` when the whole fits.
pub fn keep_end(text: &str, max_chars: usize) -> Option<&str> {
    let chars = text.chars().count();
    if chars <= max_chars {
        return None;
    }
    let start = text
        .char_indices()
        .nth(chars - max_chars)
        .map_or(text.len(), |(at, _)| at);
    let tail = &text[start..];
    // A whole line when one starts within the first tenth of what is kept.
    let near = tail.len() / 10;
    let line = tail
        .char_indices()
        .take_while(|(at, _)| *at < near)
        .find(|(_, c)| *c == '\n')
        .map_or(0, |(at, _)| at + 1);
    Some(&tail[line..])
}

impl ChatRequest {
    /// The system messages joined, for providers that take the system prompt
    /// apart from the conversation (Anthropic, Gemini).
    pub fn system_prompt(&self) -> Option<String> {
        let parts: Vec<&str> = self
            .messages
            .iter()
            .filter(|m| m.role == Role::System)
            .map(|m| m.content.as_str())
            .collect();
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    }

    /// The user, assistant and tool messages that say something (providers
    /// reject empty text, e.g. an answer that was all thinking; an assistant
    /// message with tool calls says something without text).
    pub fn dialogue(&self) -> impl Iterator<Item = &ChatMessage> {
        self.messages.iter().filter(|m| {
            m.role != Role::System
                && (!m.content.is_empty() || !m.tool_calls.is_empty() || m.role == Role::Tool)
        })
    }

    /// The last user message's text, or "" (scripted models pick scenarios from it).
    pub fn last_user_text(&self) -> &str {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map(|m| m.content.as_str())
            .unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_body() {
        let body =
            r#"{"messages":[{"role":"system","content":"s"},{"role":"user","content":"Why?"}]}"#;
        let request: ChatRequest = serde_json::from_str(body).unwrap();
        assert_eq!(request.messages.len(), 2);
        assert_eq!(request.messages[0].role, Role::System);
        assert_eq!(request.model, None);
        assert_eq!(request.last_user_text(), "Why?");
        assert_eq!(request.effort, None);
    }

    #[test]
    fn effort_is_read_and_left_out_when_absent() {
        let body = r#"{"messages":[{"role":"user","content":"q"}],"model":"m","effort":"low"}"#;
        let request: ChatRequest = serde_json::from_str(body).unwrap();
        assert_eq!(request.effort, Some(Effort::Low));
        let bad = r#"{"messages":[],"effort":"extreme"}"#;
        assert!(serde_json::from_str::<ChatRequest>(bad).is_err());
        let plain = serde_json::to_string(&ChatRequest::default()).unwrap();
        assert!(!plain.contains("effort"), "{plain}");
        assert_eq!(plain, r#"{"messages":[]}"#);
    }

    #[test]
    fn answer_now_outcomes_are_tagged() {
        assert_eq!(
            serde_json::to_value(AnswerNow::Ended).unwrap(),
            serde_json::json!({"outcome": "ended"})
        );
        assert_eq!(
            serde_json::to_value(AnswerNow::AskAgain {
                effort: Some(Effort::Off),
                control_failed: false,
            })
            .unwrap(),
            serde_json::json!({"outcome": "ask_again", "effort": "off"})
        );
        let body = r#"{"messages":[],"turn_id":"t1","reasoning_so_far":"so far"}"#;
        let request: ChatRequest = serde_json::from_str(body).unwrap();
        assert_eq!(request.turn_id.as_deref(), Some("t1"));
        assert_eq!(request.reasoning_so_far.as_deref(), Some("so far"));
    }

    #[test]
    fn system_prompt_and_dialogue_split_the_messages() {
        let body = r#"{"messages":[{"role":"system","content":"a"},{"role":"user","content":"q"},
            {"role":"assistant","content":""},{"role":"system","content":"b"}]}"#;
        let request: ChatRequest = serde_json::from_str(body).unwrap();
        assert_eq!(request.system_prompt().as_deref(), Some("a\n\nb"));
        assert_eq!(request.dialogue().count(), 1);
        assert_eq!(ChatRequest::default().system_prompt(), None);
    }

    #[test]
    fn rejects_unknown_roles() {
        let body = r#"{"messages":[{"role":"wizard","content":"x"}]}"#;
        assert!(serde_json::from_str::<ChatRequest>(body).is_err());
    }
}
