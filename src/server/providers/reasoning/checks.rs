//! Every family row against the providers' rules as the mock upstream holds
//! them (`mock::upstream::rules`, written from the providers' docs and
//! importing nothing of Pensive's model knowledge). For each model people
//! run in December 2026, Pensive's real request is built for each effort
//! word and judged by the provider's rules:
//!
//! - every word Pensive offers is accepted; `off` really stops the thinking,
//!   and any other word thinks with its text sent (not omitted);
//! - every word Pensive does not offer is refused by the provider, or asks
//!   for what an offered word already asks (the same reasoning parameters),
//!   or is an `off` that would not stop the thinking: nothing the provider
//!   takes is missing from the list;
//! - the request at the model's default effort is accepted.
//!
//! These are what `cargo mutants` on the family tables must not get past
//! (docs/decisions.md, "Mutation testing").

use serde_json::Value;

use super::{why_no_tools, EffortsSource};
use crate::server::config::settle_efforts;
use crate::server::mock::upstream::rules::{knows, verdict, Thinks, Verdict};
use crate::server::providers::build_request;
use crate::server::providers::wire::{Dialect, UpstreamModel};
use crate::turn::tool::ToolSpec;
use crate::turn::{ChatRequest, Effort};

const ANTHROPIC: &str = "https://api.anthropic.com";
const OPENAI: &str = "https://api.openai.com/v1";
const GEMINI: &str = "https://generativelanguage.googleapis.com";
const DEEPSEEK: &str = "https://api.deepseek.com/v1";
const KIMI: &str = "https://api.moonshot.ai/v1";
const VLLM: &str = "http://127.0.0.1:8000/v1";
const OLLAMA: &str = "http://127.0.0.1:11434";

/// Every (dialect, base URL, model id) whose request rules are checked.
const ROWS: &[(Dialect, &str, &str)] = &[
    (Dialect::Anthropic, ANTHROPIC, "claude-3-7-sonnet-latest"),
    (Dialect::Anthropic, ANTHROPIC, "claude-opus-4-1"),
    (Dialect::Anthropic, ANTHROPIC, "claude-opus-4-5"),
    (Dialect::Anthropic, ANTHROPIC, "claude-sonnet-4-5-20250929"),
    (Dialect::Anthropic, ANTHROPIC, "claude-haiku-4-5"),
    (Dialect::Anthropic, ANTHROPIC, "claude-opus-4-6"),
    (Dialect::Anthropic, ANTHROPIC, "claude-sonnet-4-6"),
    (Dialect::Anthropic, ANTHROPIC, "claude-opus-4-7"),
    (Dialect::Anthropic, ANTHROPIC, "claude-opus-4-8"),
    (Dialect::Anthropic, ANTHROPIC, "claude-mythos-preview"),
    (Dialect::Anthropic, ANTHROPIC, "claude-sonnet-5"),
    (Dialect::Anthropic, ANTHROPIC, "claude-opus-5"),
    (Dialect::Anthropic, ANTHROPIC, "claude-opus-5-5"),
    (Dialect::Anthropic, ANTHROPIC, "claude-sonnet-5-5"),
    (Dialect::Anthropic, ANTHROPIC, "claude-haiku-5-5"),
    (Dialect::Anthropic, ANTHROPIC, "claude-fable-5"),
    (Dialect::Anthropic, ANTHROPIC, "claude-fable-5-1"),
    (Dialect::Anthropic, ANTHROPIC, "claude-mythos-5"),
    (Dialect::Anthropic, ANTHROPIC, "claude-mythos-5-1"),
    (Dialect::Responses, OPENAI, "gpt-5"),
    (Dialect::Responses, OPENAI, "gpt-5-mini-2025-08-07"),
    (Dialect::Responses, OPENAI, "gpt-5-nano"),
    (Dialect::Responses, OPENAI, "gpt-5-pro"),
    (Dialect::Responses, OPENAI, "gpt-5-codex"),
    (Dialect::Responses, OPENAI, "gpt-5-codex-mini"),
    (Dialect::Responses, OPENAI, "gpt-5-chat-latest"),
    (Dialect::Responses, OPENAI, "gpt-5.1"),
    (Dialect::Responses, OPENAI, "gpt-5.1-codex"),
    (Dialect::Responses, OPENAI, "gpt-5.1-codex-mini"),
    (Dialect::Responses, OPENAI, "gpt-5.1-codex-max"),
    (Dialect::Responses, OPENAI, "gpt-5.1-chat-latest"),
    (Dialect::Responses, OPENAI, "gpt-5.2"),
    (Dialect::Responses, OPENAI, "gpt-5.2-pro"),
    (Dialect::Responses, OPENAI, "gpt-5.2-codex"),
    (Dialect::Responses, OPENAI, "gpt-5.2-chat-latest"),
    (Dialect::Responses, OPENAI, "gpt-5.3-codex"),
    (Dialect::Responses, OPENAI, "gpt-5.4"),
    (Dialect::Responses, OPENAI, "gpt-5.4-mini"),
    (Dialect::Responses, OPENAI, "gpt-5.4-pro"),
    (Dialect::Responses, OPENAI, "gpt-5.5"),
    (Dialect::Responses, OPENAI, "gpt-5.5-pro"),
    (Dialect::Responses, OPENAI, "gpt-5.6"),
    (Dialect::Responses, OPENAI, "gpt-5.6-sol"),
    (Dialect::Responses, OPENAI, "gpt-6-astra"),
    (Dialect::Responses, OPENAI, "gpt-6-sol"),
    (Dialect::Responses, OPENAI, "gpt-6-luna"),
    (Dialect::Responses, OPENAI, "gpt-6.1-terra"),
    (Dialect::Responses, OPENAI, "o4-mini"),
    (Dialect::Chat, OPENAI, "gpt-5"),
    (Dialect::Chat, OPENAI, "gpt-5.1-codex"),
    (Dialect::Chat, OPENAI, "gpt-5.1-chat-latest"),
    (Dialect::Chat, OPENAI, "gpt-5.2"),
    (Dialect::Chat, OPENAI, "gpt-5.4"),
    (Dialect::Chat, OPENAI, "gpt-5.6"),
    (Dialect::Chat, OPENAI, "gpt-5.6-sol"),
    (Dialect::Chat, OPENAI, "gpt-6-sol"),
    (Dialect::Chat, OPENAI, "gpt-6-luna"),
    (Dialect::Gemini, GEMINI, "gemini-2.5-pro"),
    (Dialect::Gemini, GEMINI, "gemini-2.5-flash"),
    (Dialect::Gemini, GEMINI, "gemini-2.5-flash-lite"),
    (Dialect::Gemini, GEMINI, "gemini-3-pro-preview"),
    (Dialect::Gemini, GEMINI, "gemini-3-flash-preview"),
    (Dialect::Gemini, GEMINI, "gemini-3.1-pro-preview"),
    (Dialect::Gemini, GEMINI, "gemini-3.1-flash-lite-preview"),
    (Dialect::Gemini, GEMINI, "gemini-3.5-flash"),
    (Dialect::Gemini, GEMINI, "gemini-3.7-flash"),
    (Dialect::Chat, DEEPSEEK, "deepseek-v4-pro"),
    (Dialect::Chat, DEEPSEEK, "deepseek-v4-flash"),
    (Dialect::Chat, DEEPSEEK, "deepseek-flash"),
    (Dialect::Chat, KIMI, "kimi-k2.5"),
    (Dialect::Chat, KIMI, "kimi-k2.6"),
    (Dialect::Chat, KIMI, "kimi-k2-thinking"),
    (Dialect::Chat, KIMI, "kimi-k2.7-code"),
    (Dialect::Chat, KIMI, "kimi-k3"),
    (Dialect::Chat, VLLM, "Qwen/Qwen3-8B"),
    (Dialect::Chat, VLLM, "Qwen/Qwen3.5-27B"),
    (Dialect::Ollama, OLLAMA, "gpt-oss:20b"),
    (Dialect::Ollama, OLLAMA, "qwen3:8b"),
    (Dialect::Ollama, OLLAMA, "deepseek-r1:8b"),
];

/// The model as the server would configure it from its name alone.
fn configured(dialect: Dialect, base: &str, name: &str) -> UpstreamModel {
    let mut model = UpstreamModel {
        base_url: base.into(),
        name: name.into(),
        ..UpstreamModel::default()
    };
    settle_efforts(dialect, &mut model, super::ProviderFacts::default()).expect("a valid row");
    model
}

/// The path and body Pensive sends at `effort`.
fn sent(dialect: Dialect, model: &UpstreamModel, effort: Option<Effort>) -> (String, Value) {
    sent_with_tools(dialect, model, effort, Vec::new())
}

/// The path and body Pensive sends at `effort` offering `tools`.
fn sent_with_tools(
    dialect: Dialect,
    model: &UpstreamModel,
    effort: Option<Effort>,
    tool_specs: Vec<ToolSpec>,
) -> (String, Value) {
    let request = ChatRequest {
        messages: vec![crate::turn::ChatMessage::user("Why?")],
        effort,
        tool_specs,
        ..ChatRequest::default()
    };
    let built = build_request(dialect, model, &request);
    let after_scheme = built.url.split_once("://").map_or("", |(_, rest)| rest);
    let path = after_scheme
        .find('/')
        .map_or("", |at| &after_scheme[at..])
        .split('?')
        .next()
        .unwrap_or("")
        .to_owned();
    (path, built.body)
}

/// The reasoning parameters of a body, budgets' sizes aside (a budget of
/// any size is the same kind of request).
fn reasoning_ask(body: &Value) -> Value {
    let mut ask = serde_json::Map::new();
    for pointer in [
        "/thinking",
        "/output_config",
        "/reasoning",
        "/reasoning_effort",
        "/chat_template_kwargs",
        "/think",
        "/generationConfig/thinkingConfig",
    ] {
        if let Some(value) = body.pointer(pointer) {
            let mut value = value.clone();
            for budget in ["budget_tokens", "thinkingBudget"] {
                if let Some(b) = value.get_mut(budget) {
                    if b.as_i64().is_some_and(|n| n > 0) {
                        *b = Value::from("a budget");
                    }
                }
            }
            ask.insert(pointer.into(), value);
        }
    }
    Value::Object(ask)
}

#[test]
fn every_row_offers_exactly_what_its_provider_takes() {
    let mut failures = Vec::new();
    for &(dialect, base, name) in ROWS {
        let model = configured(dialect, base, name);
        let (path, _) = sent(dialect, &model, None);
        assert!(knows(&path, name), "the mock's rules list {name}");
        assert_eq!(model.efforts_source, EffortsSource::Table, "{name}");
        let mut offered_asks = Vec::new();
        for &effort in &model.efforts {
            let (path, body) = sent(dialect, &model, Some(effort));
            offered_asks.push(reasoning_ask(&body));
            match verdict(&path, &body) {
                Verdict::Accepted(Thinks::No) if effort == Effort::Off => {}
                Verdict::Accepted(Thinks::Shown) if effort != Effort::Off => {}
                other => failures.push(format!("{name} at {effort}: {other:?}\n  sent {body}")),
            }
        }
        let (path, body) = sent(dialect, &model, model.default_effort);
        if let Verdict::Refused { body: refusal, .. } = verdict(&path, &body) {
            failures.push(format!("{name} at its default: refused {refusal}"));
        }
        for effort in Effort::ALL {
            if model.efforts.contains(&effort) {
                continue;
            }
            let (path, body) = sent(dialect, &model, Some(effort));
            let fine = match verdict(&path, &body) {
                Verdict::Refused { .. } => true,
                Verdict::Accepted(thinks) if effort == Effort::Off => thinks != Thinks::No,
                Verdict::Accepted(_) => offered_asks.contains(&reasoning_ask(&body)),
            };
            if !fine {
                failures.push(format!(
                    "{name}: {effort} is taken by the provider but not offered\n  sent {body}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn names_newer_than_the_table_are_asked_as_its_newest_member() {
    for (dialect, base, newer, newest) in [
        (
            Dialect::Anthropic,
            ANTHROPIC,
            "claude-opus-6",
            "claude-opus-5-5",
        ),
        (
            Dialect::Anthropic,
            ANTHROPIC,
            "claude-fable-7",
            "claude-fable-5-1",
        ),
        (
            Dialect::Anthropic,
            ANTHROPIC,
            "claude-sonnet-6",
            "claude-sonnet-5-5",
        ),
        (Dialect::Responses, OPENAI, "gpt-5.7", "gpt-5.6"),
        (Dialect::Responses, OPENAI, "gpt-7", "gpt-6-sol"),
        (Dialect::Responses, OPENAI, "gpt-6.3-nova", "gpt-6.1-terra"),
        (Dialect::Chat, OPENAI, "gpt-7", "gpt-6-sol"),
        (
            Dialect::Anthropic,
            ANTHROPIC,
            "claude-haiku-5",
            "claude-haiku-5-5",
        ),
        (Dialect::Responses, OPENAI, "gpt-6-codex", "gpt-5.3-codex"),
        (
            Dialect::Gemini,
            GEMINI,
            "gemini-4-pro",
            "gemini-3.1-pro-preview",
        ),
        (
            Dialect::Gemini,
            GEMINI,
            "gemini-4-flash",
            "gemini-3.7-flash",
        ),
    ] {
        let model = configured(dialect, base, newer);
        let known = configured(dialect, base, newest);
        assert_eq!(model.efforts, known.efforts, "{newer} as {newest}");
        assert_eq!(model.default_effort, known.default_effort, "{newer}");
        for &effort in &model.efforts {
            // The request, as the newest member's provider rules judge it.
            let (path, mut body) = sent(dialect, &model, Some(effort));
            body["model"] = Value::from(newest);
            let path = path.replace(newer, newest);
            assert!(
                matches!(verdict(&path, &body), Verdict::Accepted(_)),
                "{newer} at {effort}: {body}"
            );
        }
    }
}

#[test]
fn unreadable_names_get_the_providers_default_and_no_effort() {
    for (dialect, base, name) in [
        (Dialect::Anthropic, ANTHROPIC, "house-claude"),
        (Dialect::Responses, OPENAI, "my-finetune"),
        (Dialect::Gemini, GEMINI, "gemini-experimental"),
        (Dialect::Chat, VLLM, "house-model"),
        (Dialect::Ollama, OLLAMA, "llama3.2"),
    ] {
        let model = configured(dialect, base, name);
        assert!(model.efforts.is_empty(), "{name}: {:?}", model.efforts);
        assert_eq!(model.efforts_source, EffortsSource::Unknown);
        let (_, body) = sent(dialect, &model, model.default_effort);
        let ask = reasoning_ask(&body);
        for effort_field in ["/output_config", "/reasoning_effort", "/think", "/thinking"] {
            assert!(
                ask.get(effort_field).is_none(),
                "{name} sent {effort_field}: {body}"
            );
        }
        assert!(
            body.pointer("/reasoning/effort").is_none(),
            "{name}: {body}"
        );
        assert!(body
            .pointer("/generationConfig/thinkingConfig/thinkingLevel")
            .is_none());
    }
}

/// The tools Pensive offers a model at `effort`: none where its provider
/// refuses them at that effort (`why_no_tools`), else a calculator.
fn tools_at(dialect: Dialect, model: &UpstreamModel, effort: Option<Effort>) -> Vec<ToolSpec> {
    if why_no_tools(dialect, model, effort).is_some() {
        return Vec::new();
    }
    vec![ToolSpec {
        name: "builtin__calculate".into(),
        description: "Evaluates an arithmetic expression.".into(),
        parameters: serde_json::json!({"type": "object", "properties": {}}),
    }]
}

#[test]
fn every_row_with_tools_is_accepted_at_every_offered_word() {
    let mut failures = Vec::new();
    for &(dialect, base, name) in ROWS {
        let model = configured(dialect, base, name);
        let words = model.efforts.iter().copied().map(Some);
        for effort in words.chain([model.default_effort]) {
            let tools = tools_at(dialect, &model, effort);
            let (path, body) = sent_with_tools(dialect, &model, effort, tools);
            if let Verdict::Refused { body: refusal, .. } = verdict(&path, &body) {
                failures.push(format!(
                    "{name} at {effort:?} with tools: refused {refusal}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn tools_are_dropped_only_where_the_provider_refuses_them() {
    use Effort::*;
    let offers = |dialect, name: &str, effort| {
        let model = configured(dialect, OPENAI, name);
        why_no_tools(dialect, &model, Some(effort)).is_none()
    };
    assert!(offers(Dialect::Chat, "gpt-5.6-sol", Off));
    assert!(!offers(Dialect::Chat, "gpt-5.6-sol", Low));
    assert!(!offers(Dialect::Chat, "gpt-5.4", High));
    assert!(!offers(Dialect::Chat, "gpt-6-sol", Low));
    assert!(!offers(Dialect::Chat, "gpt-7", Xhigh));
    assert!(offers(Dialect::Chat, "gpt-5.1", High));
    assert!(offers(Dialect::Responses, "gpt-6-sol", Max));
    assert!(offers(Dialect::Responses, "gpt-5.6-sol", High));
}
