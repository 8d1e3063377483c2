//! The Anthropic request for one turn: its body, and the full upstream
//! request (URL, headers) built from plain `UpstreamModel` values.
//!
//! Thinking is asked for as the model family takes it (`reasoning`):
//! adaptive models (Claude 4.6+) get `thinking: {type: "adaptive", display:
//! "summarized"}` (Opus 4.7 and Claude 5 would otherwise omit the text) and
//! `output_config: {effort}`, never a budget; older ones `thinking: {type:
//! "enabled", budget_tokens}` with the effort mapped to a budget of at least
//! 1024 and below `max_tokens`. `off` sends `thinking: {type: "disabled"}`
//! (Claude 5 thinks when the field is absent); it is only offered where the
//! model takes it. A name Pensive cannot read gets the provider's default: no
//! `thinking` field. `max_tokens` grows with the effort (`reasoning::output_limit`).
//! Pensive sends no `temperature`, `top_p` or `top_k` (Opus 4.7+ refuse them).

use serde_json::{json, Value};

use crate::server::providers::reasoning::{anthropic_family, output_limit, ThinkingStyle};
use crate::server::providers::wire::{Dialect, UpstreamModel, UpstreamRequest};
use crate::turn::turn_error::TurnError;
use crate::turn::{ChatRequest, Effort, Role};

/// The API version Pensive speaks (sent as `anthropic-version`).
pub(crate) const API_VERSION: &str = "2023-06-01";
/// The beta that lets budget thinking think between tool calls.
pub(crate) const INTERLEAVED_THINKING: &str = "interleaved-thinking-2025-05-14";
/// The beta of `fallbacks`: models the API tries, server-side, when the
/// asked one declines (platform.claude.com/docs/en/build-with-claude/
/// refusals-and-fallback).
pub(crate) const SERVER_SIDE_FALLBACK: &str = "server-side-fallback-2026-06-01";
/// The beta of `thinking.block_binding` (platform.claude.com/docs/en/
/// build-with-claude/preserved-thinking/fix-bound-to-a-different-conversation).
pub(crate) const THINKING_BINDING: &str = "thinking-binding-controls-2026-08-01";
/// The beta of per-message effort (platform.claude.com/docs/en/
/// build-with-claude/effort-per-message).
pub(crate) const MID_CONVERSATION_EFFORT: &str = "mid-conversation-output-config-2026-07-01";
/// Thinking budget when the model config sets none.
const DEFAULT_THINKING_BUDGET: u32 = 8_000;
/// Room left for the answer when the budget would not fit under `max_tokens`.
const ANSWER_HEADROOM: u32 = 4_096;
/// The smallest budget the API takes.
const MIN_THINKING_BUDGET: u32 = 1_024;

/// The budget for `effort` on a budget-thinking model: the configured
/// `thinking_budget` for the default effort (or when no effort is known),
/// else a fixed budget per word.
fn budget_for(model: &UpstreamModel, effort: Option<Effort>) -> u32 {
    let configured = model
        .thinking_budget
        .filter(|_| effort.is_none() || effort == model.default_effort);
    let budget = configured.unwrap_or(match effort {
        None | Some(Effort::Medium) => DEFAULT_THINKING_BUDGET,
        Some(Effort::Off | Effort::Minimal | Effort::Low) => 2_048,
        Some(Effort::High) => 16_000,
        Some(Effort::Xhigh | Effort::Max) => 32_000,
    });
    budget.max(MIN_THINKING_BUDGET)
}

/// `output_config.effort` in Anthropic's words (low, medium, high, xhigh, max).
fn adaptive_word(effort: Effort) -> &'static str {
    match effort {
        Effort::Off | Effort::Minimal | Effort::Low => "low",
        Effort::Medium => "medium",
        Effort::High => "high",
        Effort::Xhigh => "xhigh",
        Effort::Max => "max",
    }
}

/// The request body: thinking as the model family takes it (see the module
/// docs), system messages in `system`.
pub(crate) fn request_body(model: &UpstreamModel, request: &ChatRequest) -> Value {
    let family = anthropic_family(model);
    let style = family.map_or(ThinkingStyle::None, |f| f.style);
    let mut max_tokens = output_limit(Dialect::Anthropic, model, request.effort).unwrap_or(16_000);
    // Per-message effort: the first turn's effort stays on top and each
    // change is a marker in the history, so the cached prefix still matches.
    let plan = match (family, request.effort.or(model.default_effort)) {
        (Some(f), Some(asked)) if f.effort_markers && style == ThinkingStyle::Adaptive => {
            effort_plan(request, asked)
        }
        _ => None,
    };
    let markers = plan.as_ref().map_or(&[][..], |(_, at)| at.as_slice());
    let mut body = json!({
        "model": model.name,
        "max_tokens": max_tokens,
        "stream": true,
        "messages": wire_messages(request, markers),
    });
    if !request.tool_specs.is_empty() {
        body["tools"] = json!(request
            .tool_specs
            .iter()
            .map(|spec| json!({
                "name": spec.name,
                "description": spec.description,
                "input_schema": spec.parameters,
            }))
            .collect::<Vec<_>>());
    }
    match (style, request.effort) {
        (ThinkingStyle::None, _) => {}
        (_, Some(Effort::Off)) => body["thinking"] = json!({"type": "disabled"}),
        (ThinkingStyle::Budget, effort) => {
            let budget = budget_for(model, effort);
            // The API rejects a budget that is not below max_tokens.
            if budget >= max_tokens {
                max_tokens = budget.saturating_add(ANSWER_HEADROOM);
                body["max_tokens"] = json!(max_tokens);
            }
            body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
        }
        // Adaptive (the only other style the configuration takes here).
        (_, effort) => {
            body["thinking"] = json!({"type": "adaptive", "display": "summarized"});
            if let Some(effort) = plan.as_ref().map(|(top, _)| *top).or(effort) {
                body["output_config"] = json!({"effort": adaptive_word(effort)});
            }
        }
    }
    if let Some(system) = request.system_prompt() {
        body["system"] = json!(system);
    }
    // A model that binds its thinking blocks to the conversation before
    // them refuses every later request once that prefix changed (a tool
    // switched off or held, another system prompt): Pensive's history is
    // not append-only, so such blocks are dropped rather than refused
    // ("drop_block"; the API then reads the rest without them).
    let binds = family.is_some_and(|f| f.binds_prefix);
    if binds && body.pointer("/thinking/type") == Some(&json!("adaptive")) && echoes_thinking(&body)
    {
        body["thinking"]["block_binding"] = json!({"prefix_mismatch_behavior": "drop_block"});
    }
    if !model.fallbacks.is_empty() {
        body["fallbacks"] = json!(model
            .fallbacks
            .iter()
            .map(|name| json!({ "model": name }))
            .collect::<Vec<_>>());
    }
    body
}

/// The effort on top and the markers, `(dialogue index of a user message,
/// effort)`, for per-message effort (effort-per-message: "Add a `role:
/// \"system\"` message to `messages`, with empty `content` and the new
/// effort level in `output_config.effort` … Leave the top-level value
/// unchanged"; right after a user turn with new input it applies to the
/// answer to that turn; kept in place in later requests). The top is the
/// first turn's effort; each later turn asked at another effort gets a
/// marker right after its question. `None` where history cannot say it in
/// markers: a turn asked at `off` (thinking disabled is no effort level).
fn effort_plan(request: &ChatRequest, asked: Effort) -> Option<(Effort, Vec<(usize, Effort)>)> {
    let dialogue: Vec<&crate::turn::ChatMessage> = request.dialogue().collect();
    let questions: Vec<usize> = (0..dialogue.len())
        .filter(|&i| dialogue[i].role == Role::User)
        .collect();
    let last = questions.last().copied();
    let efforts: Vec<(usize, Option<Effort>)> = questions
        .iter()
        .map(|&i| {
            let effort = if Some(i) == last {
                Some(asked)
            } else {
                // A marker must come right before an assistant message.
                dialogue
                    .get(i + 1)
                    .filter(|m| m.role == Role::Assistant)
                    .and_then(|m| m.effort)
            };
            (i, effort)
        })
        .collect();
    if efforts.iter().any(|(_, e)| *e == Some(Effort::Off)) {
        return None;
    }
    let top = efforts.iter().find_map(|(_, e)| *e)?;
    let mut current = top;
    let mut markers = Vec::new();
    for (at, effort) in efforts {
        if let Some(effort) = effort.filter(|e| *e != current) {
            markers.push((at, effort));
            current = effort;
        }
    }
    Some((top, markers))
}

/// The conversation in Messages' own shape (tool-loops.md §1.1). An
/// assistant message that called tools goes back as the API wrote it: its
/// reasoning blocks (thinking with signature, redacted_thinking) unchanged
/// and first, its text, its `tool_use` blocks; the results of its calls
/// follow in one user message of `tool_result` blocks, before anything
/// else. The API rejects empty text content (an answer that was all
/// thinking), so such messages are left out.
fn wire_messages(request: &ChatRequest, markers: &[(usize, Effort)]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for (at, m) in request.dialogue().enumerate() {
        match m.role {
            Role::Tool => {
                let result = json!({
                    "type": "tool_result",
                    "tool_use_id": m.tool_call_id,
                    "content": m.content,
                    "is_error": m.is_error,
                });
                // The results of one round share one user message.
                match out.last_mut() {
                    Some(last) if is_results_message(last) => {
                        if let Some(blocks) = last["content"].as_array_mut() {
                            blocks.push(result);
                        }
                    }
                    _ => out.push(json!({"role": "user", "content": [result]})),
                }
            }
            Role::Assistant if !m.tool_calls.is_empty() => {
                let mut blocks: Vec<Value> = m
                    .continuity
                    .iter()
                    .filter_map(|c| c.get(super::decode::ECHO_KEY).cloned())
                    .collect();
                if !m.content.trim().is_empty() {
                    blocks.push(json!({"type": "text", "text": m.content}));
                }
                blocks.extend(m.tool_calls.iter().map(|call| {
                    json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
                }));
                out.push(json!({"role": "assistant", "content": blocks}));
            }
            Role::Assistant => out.push(json!({"role": "assistant", "content": m.content})),
            _ => out.push(json!({"role": "user", "content": m.content})),
        }
        if let Some((_, effort)) = markers.iter().find(|(marked, _)| *marked == at) {
            out.push(json!({
                "role": "system",
                "content": [],
                "output_config": {"effort": adaptive_word(*effort)},
            }));
        }
    }
    out
}

/// Whether an assistant message of `body` sends a thinking block back.
fn echoes_thinking(body: &Value) -> bool {
    body["messages"].as_array().is_some_and(|messages| {
        messages.iter().any(|m| {
            m["role"] == "assistant"
                && m["content"].as_array().is_some_and(|blocks| {
                    blocks.iter().any(|b| {
                        matches!(b["type"].as_str(), Some("thinking" | "redacted_thinking"))
                    })
                })
        })
    })
}

/// A user message made only of tool results (the next result joins it).
fn is_results_message(message: &Value) -> bool {
    message["role"] == "user"
        && message["content"]
            .as_array()
            .is_some_and(|blocks| blocks.iter().all(|b| b["type"] == "tool_result"))
}

/// A 400 about how thinking was asked for gets the configuration key that
/// changes it, after the provider's own words.
pub(crate) fn explain_refusal(error: TurnError) -> TurnError {
    match error {
        TurnError::Http {
            status: 400,
            message,
        } if !message.contains("tool_use") && !message.contains("block_binding") && [
            "thinking",
            "budget_tokens",
            "output_config",
            "effort",
            "temperature",
            "top_p",
            "top_k",
        ]
        .iter()
        .any(|word| message.contains(word)) =>
        {
            TurnError::Http {
                status: 400,
                message: format!(
                    "{message} How Pensive asks this model to think is set by thinking = \"adaptive\" | \"budget\" | \"none\" for the model in the configuration file (PENSIVE_THINKING); without it, the model's name decides."
                ),
            }
        }
        other => other,
    }
}

/// The full upstream request.
pub(crate) fn build_request(model: &UpstreamModel, request: &ChatRequest) -> UpstreamRequest {
    let base = model.base_url.trim_end_matches('/');
    // The base URL is the host; tolerate one configured with the version path.
    let base = base.strip_suffix("/v1").unwrap_or(base);
    let mut headers = Vec::new();
    if let Some(key) = &model.api_key {
        headers.push(("x-api-key".into(), key.expose().to_owned()));
    }
    headers.push(("anthropic-version".into(), API_VERSION.into()));
    let body = request_body(model, request);
    // Budget thinking thinks between tool calls only with this beta
    // (adaptive thinking interleaves by itself): platform.claude.com/docs/
    // build-with-claude/extended-thinking#interleaved-thinking.
    let mut betas = Vec::new();
    if body.pointer("/thinking/type") == Some(&json!("enabled")) && body.get("tools").is_some() {
        betas.push(INTERLEAVED_THINKING);
    }
    if body.get("fallbacks").is_some() {
        betas.push(SERVER_SIDE_FALLBACK);
    }
    if body.pointer("/thinking/block_binding").is_some() {
        betas.push(THINKING_BINDING);
    }
    let marked = body["messages"]
        .as_array()
        .is_some_and(|messages| messages.iter().any(|m| m["role"] == "system"));
    if marked {
        betas.push(MID_CONVERSATION_EFFORT);
    }
    if !betas.is_empty() {
        headers.push(("anthropic-beta".into(), betas.join(",")));
    }
    UpstreamRequest {
        url: format!("{base}/v1/messages"),
        headers,
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::ChatMessage;

    #[test]
    fn request_puts_system_on_top_and_keeps_the_budget_below_max_tokens() {
        let model = UpstreamModel {
            base_url: "https://api.anthropic.com/".into(),
            api_key: Some("sk-ant".into()),
            name: "claude-sonnet-4-5".into(),
            ..UpstreamModel::default()
        };
        let request = ChatRequest {
            messages: vec![
                ChatMessage::system("Be brief."),
                ChatMessage::user("Hi"),
                ChatMessage::assistant("Hello"),
                ChatMessage::system("Use SI units."),
                ChatMessage::user("Why?"),
            ],
            model: None,
            ..ChatRequest::default()
        };
        let req = build_request(&model, &request);
        assert_eq!(req.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(
            req.headers,
            vec![
                ("x-api-key".to_owned(), "sk-ant".to_owned()),
                ("anthropic-version".to_owned(), "2023-06-01".to_owned())
            ]
        );
        assert_eq!(
            req.body,
            json!({
                "model": "claude-sonnet-4-5",
                "max_tokens": 16000,
                "stream": true,
                "thinking": {"type": "enabled", "budget_tokens": 8000},
                "messages": [
                    {"role": "user", "content": "Hi"},
                    {"role": "assistant", "content": "Hello"},
                    {"role": "user", "content": "Why?"},
                ],
                "system": "Be brief.\n\nUse SI units.",
            })
        );
        let tight = UpstreamModel {
            api_key: None,
            max_output_tokens: Some(4000),
            thinking_budget: Some(4000),
            base_url: "https://proxy.example/v1".into(),
            ..model
        };
        let req = build_request(&tight, &ChatRequest::default());
        assert_eq!(req.url, "https://proxy.example/v1/messages");
        assert_eq!(req.headers.len(), 1);
        assert_eq!(req.body["max_tokens"], json!(8096));
        assert_eq!(req.body["thinking"]["budget_tokens"], json!(4000));
        assert!(req.body.get("system").is_none());
    }

    #[test]
    fn a_400_about_thinking_names_the_configuration_key_and_others_pass() {
        let thinking = TurnError::from_status(
            400,
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
        );
        let explained = explain_refusal(thinking).user_message();
        assert!(explained.contains("budget_tokens"), "{explained}");
        assert!(explained.contains("thinking = \"adaptive\" | \"budget\" | \"none\""));
        let other = TurnError::from_status(400, "messages: at least one message is required");
        assert_eq!(explain_refusal(other.clone()), other);
        let auth = TurnError::from_status(401, "thinking");
        assert_eq!(explain_refusal(auth.clone()), auth);
    }

    #[test]
    fn efforts_map_to_adaptive_words_or_budgets_and_off_disables_thinking() {
        let ask = |name: &str, effort| {
            let model = UpstreamModel {
                name: name.into(),
                ..UpstreamModel::default()
            };
            let request = ChatRequest {
                effort,
                ..ChatRequest::default()
            };
            request_body(&model, &request)
        };
        let adaptive = ask("claude-opus-4-7", Some(Effort::Xhigh));
        assert_eq!(
            adaptive["thinking"],
            json!({"type": "adaptive", "display": "summarized"})
        );
        assert_eq!(adaptive["output_config"], json!({"effort": "xhigh"}));
        let budget = ask("claude-opus-4-5", Some(Effort::High));
        assert_eq!(
            budget["thinking"],
            json!({"type": "enabled", "budget_tokens": 16000})
        );
        assert_eq!(
            budget["max_tokens"],
            json!(32000),
            "the limit grows with the effort"
        );
        assert_eq!(
            ask("claude-opus-4-5", Some(Effort::Off))["thinking"],
            json!({"type": "disabled"})
        );
        assert!(ask("mock-claude", Some(Effort::High))
            .get("thinking")
            .is_none());
        assert_eq!(
            ask("claude-opus-5", Some(Effort::Max))["max_tokens"],
            json!(128000)
        );
        let small = UpstreamModel {
            name: "claude-opus-4-1".into(),
            thinking_budget: Some(100),
            ..UpstreamModel::default()
        };
        assert_eq!(
            request_body(&small, &ChatRequest::default())["thinking"]["budget_tokens"],
            json!(1024),
            "never below the API's minimum"
        );
    }
}
