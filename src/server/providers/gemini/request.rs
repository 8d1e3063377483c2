//! The Gemini request for one turn: its body, and the full upstream
//! request (URL, headers) built from plain `UpstreamModel` values.

use serde_json::{json, Value};

use crate::server::providers::reasoning::{gemini_family, GeminiFamily, ThinkingStyle};
use crate::server::providers::wire::{CallNames, UpstreamModel, UpstreamRequest};
use crate::turn::{ChatRequest, Effort, Role};

/// `thinkingConfig` for the turn's effort: Gemini 3+ takes `thinkingLevel`,
/// 2.5 `thinkingBudget` (0 off where allowed, -1 dynamic), never both;
/// `includeThoughts` whenever thinking is on. A model of unknown family gets
/// the provider's default (thoughts included, the configured budget if any),
/// or what the configuration's `thinking` style says.
fn thinking_config(model: &UpstreamModel, effort: Option<Effort>) -> Value {
    let mut config = json!({"includeThoughts": true});
    let family = gemini_family(&model.name);
    let style = model.thinking.or(match family {
        Some(GeminiFamily::Level { .. }) => Some(ThinkingStyle::Level),
        Some(GeminiFamily::Budget { .. }) => Some(ThinkingStyle::Budget),
        None => None,
    });
    match (style, effort) {
        (Some(ThinkingStyle::None), _) => return json!({}),
        (Some(ThinkingStyle::Level), Some(effort)) => {
            let level = match effort {
                Effort::Off | Effort::Minimal => "minimal",
                Effort::Low => "low",
                Effort::Medium => "medium",
                Effort::High | Effort::Xhigh | Effort::Max => "high",
            };
            config["thinkingLevel"] = json!(level);
        }
        (Some(ThinkingStyle::Budget), Some(Effort::Off)) => {
            return json!({"thinkingBudget": 0});
        }
        (Some(ThinkingStyle::Budget), Some(effort)) => {
            let (min, max) = match family {
                Some(GeminiFamily::Budget { min, max, .. }) => (min, max),
                _ => (1, 24_576),
            };
            let configured = model
                .thinking_budget
                .filter(|_| Some(effort) == model.default_effort);
            let budget: i64 = match effort {
                Effort::Off | Effort::Minimal | Effort::Low => i64::from(min.max(1024)),
                // The model's own dynamic budget (its default).
                Effort::Medium => -1,
                Effort::High | Effort::Xhigh | Effort::Max => i64::from(max),
            };
            config["thinkingBudget"] = json!(configured.map_or(budget, i64::from));
        }
        _ => {
            if let Some(budget) = model.thinking_budget {
                config["thinkingBudget"] = json!(budget);
            }
        }
    }
    config
}

/// The request body: thoughts included, system messages as `systemInstruction`.
pub(crate) fn request_body(model: &UpstreamModel, request: &ChatRequest) -> Value {
    let contents = wire_contents(request);
    let thinking = thinking_config(model, request.effort);
    let mut generation = if thinking == json!({}) {
        json!({})
    } else {
        json!({"thinkingConfig": thinking})
    };
    if let Some(max) = model.max_output_tokens {
        generation["maxOutputTokens"] = json!(max);
    }
    let mut body = json!({"contents": contents, "generationConfig": generation});
    if !request.tool_specs.is_empty() {
        // `parametersJsonSchema` takes the JSON Schema an MCP tool gives as
        // it is (`parameters` takes only an OpenAPI subset).
        let declarations: Vec<Value> = request
            .tool_specs
            .iter()
            .map(|spec| json!({"name": spec.name, "description": spec.description, "parametersJsonSchema": spec.parameters}))
            .collect();
        body["tools"] = json!([{"functionDeclarations": declarations}]);
    }
    if let Some(system) = request.system_prompt() {
        body["systemInstruction"] = json!({"parts": [{"text": system}]});
    }
    body
}

/// The signature Gemini documents for calls it did not sign (history from
/// another model, or whose continuity was dropped on purpose):
/// ai.google.dev/gemini-api/docs/thought-signatures.
pub(crate) const UNSIGNED: &str = "skip_thought_signature_validator";

/// The conversation as `contents` (tool-loops.md §1.4). A model turn that
/// called tools carries its text, then each call as a `functionCall` part
/// with its own thought signature where Gemini gave one; the first call of
/// a turn with none gets the documented sentinel. The results of one round
/// go back in one user turn of `functionResponse` parts, each named (and
/// given its id when Gemini gave one). Gemini rejects parts with empty
/// text (an answer that was all thinking), so such messages are left out.
fn wire_contents(request: &ChatRequest) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    // Call id → tool name, for the results (Gemini names each response).
    let mut names = CallNames::default();
    for m in request.dialogue() {
        match m.role {
            Role::Tool => {
                let id = m.tool_call_id.as_deref().unwrap_or("");
                let name = names.of(id);
                let key = if m.is_error { "error" } else { "output" };
                let mut response = json!({"name": name, "response": {key: m.content}});
                if !id.starts_with(super::decode::MADE_UP_ID) {
                    response["id"] = json!(id);
                }
                let part = json!({"functionResponse": response});
                match out.last_mut() {
                    Some(last) if is_results_turn(last) => {
                        if let Some(parts) = last["parts"].as_array_mut() {
                            parts.push(part);
                        }
                    }
                    _ => out.push(json!({"role": "user", "parts": [part]})),
                }
            }
            Role::Assistant if !m.tool_calls.is_empty() => {
                let mut parts = Vec::new();
                if !m.content.trim().is_empty() {
                    parts.push(json!({"text": m.content}));
                }
                names.remember(&m.tool_calls);
                for (at, call) in m.tool_calls.iter().enumerate() {
                    let mut function_call = json!({"name": call.name, "args": call.arguments});
                    if !call.id.starts_with(super::decode::MADE_UP_ID) {
                        function_call["id"] = json!(call.id);
                    }
                    let mut part = json!({"functionCall": function_call});
                    match signature_of(m, &call.id) {
                        Some(signature) => part["thoughtSignature"] = signature,
                        None if at == 0 => part["thoughtSignature"] = json!(UNSIGNED),
                        None => {}
                    }
                    parts.push(part);
                }
                out.push(json!({"role": "model", "parts": parts}));
            }
            role => {
                let role = if role == Role::Assistant {
                    "model"
                } else {
                    "user"
                };
                out.push(json!({"role": role, "parts": [{"text": m.content}]}));
            }
        }
    }
    out
}

/// The thought signature Gemini gave call `id` of message `m`, if kept.
fn signature_of(m: &crate::turn::ChatMessage, id: &str) -> Option<Value> {
    m.continuity.iter().find_map(|c| {
        let kept = c.get(super::decode::SIGNATURE_KEY)?;
        (kept.get("call")?.as_str()? == id).then(|| kept.get("signature").cloned())?
    })
}

/// A user turn made only of function responses (the next result joins it).
fn is_results_turn(content: &Value) -> bool {
    content["role"] == "user"
        && content["parts"]
            .as_array()
            .is_some_and(|parts| parts.iter().all(|p| p.get("functionResponse").is_some()))
}

/// The full upstream request.
pub(crate) fn build_request(model: &UpstreamModel, request: &ChatRequest) -> UpstreamRequest {
    let mut headers = Vec::new();
    if let Some(key) = &model.api_key {
        headers.push(("x-goog-api-key".into(), key.expose().to_owned()));
    }
    UpstreamRequest {
        url: format!(
            "{}/v1beta/models/{}:streamGenerateContent?alt=sse",
            model.base_url.trim_end_matches('/'),
            model.name
        ),
        headers,
        body: request_body(model, request),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::ChatMessage;

    #[test]
    fn request_maps_roles_system_instruction_and_thinking_config() {
        let model = UpstreamModel {
            base_url: "https://generativelanguage.googleapis.com/".into(),
            api_key: Some("AIza-test".into()),
            name: "gemini-2.5-pro".into(),
            max_output_tokens: Some(4096),
            thinking_budget: Some(1024),
            ..UpstreamModel::default()
        };
        let request = ChatRequest {
            messages: vec![
                ChatMessage::system("Be brief."),
                ChatMessage::user("Hi"),
                ChatMessage::assistant("Hello"),
                ChatMessage::user("Why?"),
            ],
            model: None,
            ..ChatRequest::default()
        };
        let req = build_request(&model, &request);
        assert_eq!(
            req.url,
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            req.headers,
            vec![("x-goog-api-key".to_owned(), "AIza-test".to_owned())]
        );
        assert_eq!(
            req.body,
            json!({
                "contents": [
                    {"role": "user", "parts": [{"text": "Hi"}]},
                    {"role": "model", "parts": [{"text": "Hello"}]},
                    {"role": "user", "parts": [{"text": "Why?"}]},
                ],
                "systemInstruction": {"parts": [{"text": "Be brief."}]},
                "generationConfig": {
                    "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 1024},
                    "maxOutputTokens": 4096,
                },
            })
        );
        let bare = build_request(
            &UpstreamModel {
                api_key: None,
                max_output_tokens: None,
                thinking_budget: None,
                ..model
            },
            &ChatRequest::default(),
        );
        assert!(bare.headers.is_empty());
        assert_eq!(
            bare.body,
            json!({"contents": [], "generationConfig": {"thinkingConfig": {"includeThoughts": true}}})
        );
    }
}
