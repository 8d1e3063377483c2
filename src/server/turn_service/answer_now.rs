//! "Answer now": the user ends a model's thinking and gets the
//! answer at once. Two paths:
//!
//! - llama.cpp (`provider = "llamacpp"`): the running completion is told to
//!   end its reasoning (`providers::openai_chat::end_reasoning`, with the
//!   completion id of its chunks); the same stream goes on with the answer.
//! - Every other provider has no such control: the browser stops the turn and
//!   sends it again with `reasoning_so_far`; the server asks at the model's
//!   weakest effort (`off` where the model has it) and gives the model its
//!   own reasoning so far as part of the question (`fold_reasoning`: no
//!   dialect takes readable reasoning back as the model's own — Anthropic's
//!   and Gemini's thoughts carry signatures, Responses' reasoning items are
//!   encrypted, and Claude Opus 4.7 refuses an assistant prefill — so the one
//!   place every dialect allows is the user's last message).
//!
//! The registry knows each running turn that the browser named (`turn_id`),
//! under the client that started it, until its stream ends: another client
//! naming the same id reaches, replaces and forgets only its own.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::server::config::{ModelConfig, ProviderKind};
use crate::server::limits::MAX_MESSAGE_CHARS;
use crate::server::providers::reasoning::no_thinking_effort;
use crate::server::providers::wire::UpstreamModel;
use crate::server::providers::CompletionId;
use crate::turn::request::keep_end;
use crate::turn::{AnswerNow, ChatRequest, Effort, Role};

/// Longest turn id kept (the browser makes them; a longer one is ignored).
pub(crate) const MAX_TURN_ID: usize = 100;

/// A running turn: its client and the id the browser gave it.
type TurnKey = (String, String);

/// The running turns "Answer now" may reach.
#[derive(Debug, Clone, Default)]
pub struct AnswerNowRegistry {
    turns: Arc<Mutex<HashMap<TurnKey, Entry>>>,
}

#[derive(Debug)]
struct Entry {
    /// Present for llama.cpp models: where the stream leaves its completion id.
    control: Option<(UpstreamModel, CompletionId)>,
    weakest: Option<Effort>,
}

/// A registered turn; dropping it (the turn's stream ended) forgets the turn.
#[derive(Debug)]
pub struct Registered {
    turns: Arc<Mutex<HashMap<TurnKey, Entry>>>,
    key: TurnKey,
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut turns) = self.turns.lock() {
            turns.remove(&self.key);
        }
    }
}

impl AnswerNowRegistry {
    /// Registers the turn `turn_id` of `client` on `model`; the slot, for a
    /// llama.cpp model, is where its stream must leave its completion id.
    pub fn register(
        &self,
        turn_id: &str,
        client: &str,
        model: &ModelConfig,
    ) -> Option<(Registered, Option<CompletionId>)> {
        if turn_id.is_empty() || turn_id.len() > MAX_TURN_ID {
            return None;
        }
        let control = model.upstream.llamacpp
            && matches!(model.provider, crate::server::config::ProviderKind::Wire(_));
        let slot = control.then(CompletionId::default);
        let entry = Entry {
            control: slot.clone().map(|slot| (model.upstream.clone(), slot)),
            weakest: weakest(model),
        };
        let key = (client.to_owned(), turn_id.to_owned());
        self.turns.lock().ok()?.insert(key.clone(), entry);
        Some((
            Registered {
                turns: self.turns.clone(),
                key,
            },
            slot,
        ))
    }

    /// True while `client`'s turn `turn_id` runs here.
    pub fn holds(&self, turn_id: &str, client: &str) -> bool {
        self.turns
            .lock()
            .is_ok_and(|turns| turns.contains_key(&(client.to_owned(), turn_id.to_owned())))
    }

    /// Ends the thinking of `client`'s turn `turn_id` if its provider can;
    /// otherwise says to ask again (at the model's weakest effort).
    pub async fn answer_now(&self, turn_id: &str, client: &str) -> AnswerNow {
        let found = self.turns.lock().ok().and_then(|turns| {
            let entry = turns.get(&(client.to_owned(), turn_id.to_owned()))?;
            let control = entry
                .control
                .as_ref()
                .and_then(|(model, slot)| Some((model.clone(), slot.get()?.clone())));
            Some((control, entry.weakest))
        });
        let Some((control, weakest)) = found else {
            return AnswerNow::AskAgain {
                effort: None,
                control_failed: false,
            };
        };
        let mut control_failed = false;
        if let Some((model, completion_id)) = control {
            match crate::server::providers::openai_chat::end_reasoning(&model, &completion_id).await
            {
                Ok(()) => return AnswerNow::Ended,
                Err(err) => {
                    tracing::warn!(kind = ?err.kind(), "llama.cpp's reasoning control failed; asking again instead");
                    control_failed = true;
                }
            }
        }
        AnswerNow::AskAgain {
            effort: weakest,
            control_failed,
        }
    }
}

/// The effort a re-asked turn runs at when the request names none: the
/// weakest at which the model answers without thinking again, as its family
/// rules decide (`reasoning::no_thinking_effort`).
pub(crate) fn weakest(model: &ModelConfig) -> Option<Effort> {
    match model.provider {
        ProviderKind::Wire(dialect) => no_thinking_effort(dialect, &model.upstream),
        ProviderKind::Demo => model.upstream.efforts.first().copied(),
    }
}

/// Moves `reasoning_so_far` into the question: the last user message gets
/// the model's reasoning so far and the request to answer now (or, for
/// Continue after the output limit cut the reasoning, to go on from it).
/// Reasoning too long for one message keeps its end, and the prompt says it
/// was cut.
pub(crate) fn fold_reasoning(request: &mut ChatRequest) {
    let words = if request.continue_answer {
        GO_ON
    } else {
        ANSWER_NOW
    };
    let Some(reasoning) = request.reasoning_so_far.take() else {
        return;
    };
    if reasoning.trim().is_empty() {
        return;
    }
    if let Some(last) = request
        .messages
        .iter_mut()
        .rev()
        .find(|m| m.role == Role::User)
    {
        let reasoning = reasoning.trim_end();
        let room = MAX_MESSAGE_CHARS
            .saturating_sub(last.content.chars().count())
            .saturating_sub(FOLD_WORDS_CHARS);
        let (opening, kept) = match keep_end(reasoning, room) {
            Some(kept) => (words.cut_opening, kept),
            None => (words.opening, reasoning),
        };
        let closing = words.closing;
        last.content.push_str(&format!(
            "\n\n{opening}\n{kept}\n[End of your reasoning so far]\n\n{closing}"
        ));
    }
}

/// The words around folded reasoning: before it (whole, or its end only),
/// and the request after it.
struct FoldWords {
    opening: &'static str,
    cut_opening: &'static str,
    closing: &'static str,
}

/// "Answer now": answer from the reasoning so far.
const ANSWER_NOW: FoldWords = FoldWords {
    opening: "[Your reasoning so far, before you were asked to answer now]",
    cut_opening: "[The end of your reasoning so far (its start was cut to fit), before you were asked to answer now]",
    closing: "Give your answer now, without further thinking.",
};

/// Continue after the output limit cut the reasoning: go on from it.
const GO_ON: FoldWords = FoldWords {
    opening: "[Your reasoning so far, until the output limit cut it]",
    cut_opening: "[The end of your reasoning so far (its start was cut to fit), until the output limit cut it]",
    closing: "Go on from where your reasoning stopped: do not start over. Finish it briefly if you need to, then give your answer.",
};

/// Room the words around the folded reasoning take (with a margin).
const FOLD_WORDS_CHARS: usize = 300;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::mock::scripted::Pace;
    use crate::turn::ChatMessage;

    #[test]
    fn the_reasoning_so_far_joins_the_last_question() {
        let mut request = ChatRequest {
            messages: vec![
                ChatMessage::user("Why?"),
                ChatMessage::assistant("Because."),
                ChatMessage::user("And?"),
            ],
            reasoning_so_far: Some("Let me see…\n".into()),
            ..ChatRequest::default()
        };
        fold_reasoning(&mut request);
        assert_eq!(request.reasoning_so_far, None);
        assert_eq!(request.messages[0].content, "Why?");
        let last = &request.messages[2].content;
        assert!(last.starts_with("And?\n\n[Your reasoning so far"), "{last}");
        assert!(last.contains("Let me see…\n[End of your reasoning so far]"));
        assert!(last.ends_with("without further thinking."));
    }

    #[test]
    fn continue_after_a_cut_in_the_reasoning_goes_on_from_it() {
        let mut request = ChatRequest {
            messages: vec![ChatMessage::user("Why?")],
            reasoning_so_far: Some("First, the facts.".into()),
            continue_answer: true,
            ..ChatRequest::default()
        };
        fold_reasoning(&mut request);
        let last = &request.messages[0].content;
        assert!(
            last.starts_with("Why?\n\n[Your reasoning so far, until the output limit cut it]\nFirst, the facts.\n"),
            "{last}"
        );
        assert!(last.ends_with("then give your answer."), "{last}");
        assert!(!last.contains("answer now"), "{last}");
    }

    #[test]
    fn reasoning_longer_than_a_message_keeps_its_end_and_says_it_was_cut() {
        let lines: String = (0..40_000).map(|i| format!("step {i}\n")).collect();
        assert!(lines.chars().count() > MAX_MESSAGE_CHARS);
        let mut request = ChatRequest {
            messages: vec![ChatMessage::user("Why?")],
            reasoning_so_far: Some(lines),
            ..ChatRequest::default()
        };
        fold_reasoning(&mut request);
        let last = &request.messages[0].content;
        assert!(
            last.chars().count() <= MAX_MESSAGE_CHARS,
            "{}",
            last.chars().count()
        );
        assert!(last.contains("its start was cut to fit"));
        assert!(last.contains("step 39999\n[End of your reasoning so far]"));
        assert!(!last.contains("\nstep 0\n"));
        let kept = last.split("answer now]\n").nth(1).unwrap_or("");
        assert!(
            kept.starts_with("step "),
            "starts on a whole line: {:?}",
            &kept[..20]
        );
        assert_eq!(keep_end("short", 10), None);
        assert_eq!(keep_end("ab\u{e9}cd", 2), Some("cd"));
    }

    #[tokio::test]
    async fn an_unknown_turn_or_another_clients_is_asked_again() {
        let registry = AnswerNowRegistry::default();
        let demo = ModelConfig::demo(Pace::INSTANT);
        let (guard, slot) = registry.register("t1", "alice", &demo).unwrap();
        assert!(slot.is_none(), "the demo model has no control");
        assert_eq!(
            registry.answer_now("t1", "alice").await,
            AnswerNow::AskAgain {
                effort: Some(Effort::Off),
                control_failed: false,
            }
        );
        assert_eq!(
            registry.answer_now("t1", "mallory").await,
            AnswerNow::AskAgain {
                effort: None,
                control_failed: false
            }
        );
        // Another client naming the same id has its own entry: forgetting
        // it leaves alice's.
        let (mallorys, _) = registry.register("t1", "mallory", &demo).unwrap();
        drop(mallorys);
        assert_eq!(
            registry.answer_now("t1", "alice").await,
            AnswerNow::AskAgain {
                effort: Some(Effort::Off),
                control_failed: false,
            },
            "alice's turn is still known"
        );
        drop(guard);
        assert_eq!(
            registry.answer_now("t1", "alice").await,
            AnswerNow::AskAgain {
                effort: None,
                control_failed: false
            }
        );
        assert!(registry.register("", "alice", &demo).is_none());
        assert!(registry
            .register(&"x".repeat(101), "alice", &demo)
            .is_none());
    }
}
