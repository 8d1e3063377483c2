//! Anthropic Messages (`POST /v1/messages`): thinking types, effort words,
//! display, `max_tokens`, sampling parameters and prefill, per model.
//!
//! Sources (read 2026-12-03 through stored copies):
//! - [T] platform.claude.com/docs/en/build-with-claude/thinking-troubleshooting
//!   (copy of 2026-09-26): which `thinking.type` each model takes, "On" /
//!   "Always on" defaults, Opus 5's `disabled` only at effort ≤ high, and the
//!   400 texts for `enabled`/`disabled` refused.
//! - [N] the what's-new and migration pages of Opus 5 (2026-07-24), Opus 5.5
//!   (2026-09-22), Sonnet 5.5 (2026-09-28), Haiku 5.5, Fable 5 and 5.1:
//!   default efforts (Opus 5.5 and Haiku 5.5: medium), max output 128K,
//!   "Prefilling assistant messages returns a 400 error" from Claude 4.6 on.
//! - [S] anthropics/skills `claude-api/shared/models.md` (2026-07-01) and
//!   anthropic-sdk-python types (2026-08-08): `display` ("omitted" is the
//!   default from Opus 4.7 on), `output_config.effort` words, 64K on 4.5.
//! - [L] live captures quoted in public issues: the effort 400s
//!   (Oaklight/llm-rosetta#289; Bedrock 2026-07-27), "`temperature` is
//!   deprecated for this model." (Opus 4.7+), the prefill 400 (Sonnet 5,
//!   Opus 5.5), the budget 400s (anthropic cookbook).
//! - [G] every Claude 5 is adaptive only (read 2026-12-05): the Bedrock
//!   adaptive-thinking page (docs.aws.amazon.com/bedrock/latest/userguide/
//!   claude-messages-adaptive-thinking) lists Opus 5, Mythos 5 and Fable 5
//!   as adaptive-only, budgets refused with a 400; the Haiku 5.5 what's-new
//!   page: "It supports adaptive thinking with the effort parameter"; the
//!   400 observed on claude-sonnet-5 (docs.memberjunction.org,
//!   UsesAdaptiveThinking): "\"thinking.type.enabled\" is not supported
//!   for this model. Use \"thinking.type.adaptive\" and
//!   \"output_config.effort\" to control thinking behavior." No page for a
//!   `claude-haiku-5` was found (Haiku 5.5's page compares it with Haiku
//!   4.5): a Claude id of generation 5 or later that the list does not
//!   name is held to that one rule, and passes the others.

use serde_json::{json, Value};

use super::{is_model, Refusal, Thinks};

/// How a model takes `thinking: {type: "disabled"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Disable {
    Yes,
    /// Opus 5 [T] (Haiku 5.5 by third-party reports): not with effort xhigh or max.
    UpToHigh,
    /// Refused with this message [T].
    Refused(&'static str),
}

#[derive(Debug, Clone, Copy)]
struct Claude {
    ids: &'static [&'static str],
    enabled: bool,
    adaptive: bool,
    disable: Disable,
    /// Thinks when the request has no `thinking` field ([T]: "On", "Always on").
    on_by_default: bool,
    /// `output_config.effort` words; `None`: the parameter is refused.
    efforts: Option<&'static [&'static str]>,
    /// `display` defaults to "omitted" [S].
    omits: bool,
    max_tokens: u64,
    /// An assistant message last is taken as a prefill [N].
    prefill: bool,
    /// `temperature`, `top_p`, `top_k` refused [L].
    no_sampling: bool,
}

const ALL_EFFORTS: &[&str] = &["low", "medium", "high", "xhigh", "max"];
const NO_XHIGH: &[&str] = &["low", "medium", "high", "max"];

/// Up to Claude 4.5: extended thinking with a budget, off by default.
const EXTENDED: Claude = Claude {
    ids: &[],
    enabled: true,
    adaptive: false,
    disable: Disable::Yes,
    on_by_default: false,
    efforts: None,
    omits: false,
    max_tokens: 64_000,
    prefill: true,
    no_sampling: false,
};

/// Claude 5 and its siblings: adaptive only, thinking on by default, text omitted.
const CLAUDE_5: Claude = Claude {
    ids: &[],
    enabled: false,
    adaptive: true,
    disable: Disable::Yes,
    on_by_default: true,
    efforts: Some(ALL_EFFORTS),
    omits: true,
    max_tokens: 128_000,
    prefill: false,
    no_sampling: true,
};

const NO_BUDGETS: &str = "\"thinking.type.enabled\" is not supported for this model. Use \"thinking.type.adaptive\" and \"output_config.effort\" to control thinking behavior.";

const ALWAYS_ON: &str = "\"thinking.type.disabled\" is not supported for this model. Use \"thinking.type.adaptive\" and \"output_config.effort\" to control thinking behavior.";

const MODELS: &[Claude] = &[
    Claude {
        ids: &["claude-3-7-sonnet", "claude-3-7-sonnet-latest"],
        ..EXTENDED
    },
    Claude {
        ids: &["claude-opus-4-0", "claude-opus-4", "claude-opus-4-1"],
        max_tokens: 32_000,
        ..EXTENDED
    },
    Claude {
        ids: &["claude-sonnet-4-0", "claude-sonnet-4", "claude-sonnet-4-5", "claude-haiku-4-5"],
        ..EXTENDED
    },
    // Opus 4.5: the one extended-thinking model with effort [T].
    Claude {
        ids: &["claude-opus-4-5"],
        efforts: Some(&["low", "medium", "high"]),
        ..EXTENDED
    },
    Claude {
        ids: &["claude-opus-4-6", "claude-sonnet-4-6"],
        adaptive: true,
        efforts: Some(NO_XHIGH),
        max_tokens: 128_000,
        prefill: false,
        ..EXTENDED
    },
    // Opus 4.7/4.8: adaptive only, yet off without a `thinking` field [T].
    Claude {
        ids: &["claude-opus-4-7", "claude-opus-4-8"],
        on_by_default: false,
        ..CLAUDE_5
    },
    Claude {
        ids: &["claude-mythos-preview"],
        enabled: true,
        disable: Disable::Refused("\"thinking.type.disabled\" is not supported for this model. Thinking defaults to adaptive mode when not specified; use \"thinking.type.enabled\" with \"budget_tokens\" for extended thinking."),
        efforts: Some(NO_XHIGH),
        ..CLAUDE_5
    },
    Claude {
        ids: &["claude-sonnet-5"],
        ..CLAUDE_5
    },
    Claude {
        ids: &["claude-opus-5", "claude-haiku-5-5"],
        disable: Disable::UpToHigh,
        ..CLAUDE_5
    },
    Claude {
        ids: &["claude-sonnet-5-5"],
        disable: Disable::Refused("\"thinking.type.disabled\" is not supported for this model. Use \"thinking.type.between_tools\" for the lowest thinking setting, or \"thinking.type.adaptive\" and \"output_config.effort\" to control thinking behavior."),
        ..CLAUDE_5
    },
    Claude {
        ids: &[
            "claude-opus-5-5",
            "claude-fable-5",
            "claude-fable-5-1",
            "claude-mythos-5",
            "claude-mythos-5-1",
        ],
        disable: Disable::Refused(ALWAYS_ON),
        ..CLAUDE_5
    },
];

/// Whether the model thinks in a response that follows tool results:
/// adaptive thinking interleaves by itself; budget thinking ("enabled")
/// only with the beta header `interleaved-thinking-2025-05-14`
/// (platform.claude.com/docs/build-with-claude/extended-thinking,
/// "Interleaved thinking"). A model the rules do not list interleaves.
pub fn thinks_after_tools(body: &Value, beta: &str) -> bool {
    let name = body.get("model").and_then(Value::as_str).unwrap_or("");
    if model(name).is_none() {
        return true;
    }
    match body.pointer("/thinking/type").and_then(Value::as_str) {
        Some("enabled") => beta
            .split(',')
            .any(|b| b.trim() == "interleaved-thinking-2025-05-14"),
        _ => true,
    }
}

/// Models that bind each thinking block to the conversation before it
/// (platform.claude.com/docs/en/build-with-claude/preserved-thinking:
/// "Starting with Claude Fable 5.1 … Nothing before the thinking block has
/// changed. The top-level `system` prompt, `tools`, and `messages` before
/// the block are its prefix"; the supported models of its
/// fix-bound-to-a-different-conversation page). The mock is a new account,
/// on which the check is on by default.
const BINDS_PREFIX: &[&str] = &[
    "claude-fable-5-1",
    "claude-fable-5-2",
    "claude-mythos-5-1",
    "claude-mythos-5-2",
    "claude-opus-5-5",
    "claude-sonnet-5-5",
    "claude-haiku-5-5",
];

/// The digest of a request's prefix up to message `upto`: its `system`,
/// `tools` and the messages before (FNV-1a of their JSON, as the mock's
/// signatures are). `None` for a model that binds no blocks.
pub fn prefix_digest(body: &Value, upto: usize) -> Option<String> {
    let name = body.get("model").and_then(Value::as_str).unwrap_or("");
    if !BINDS_PREFIX.iter().any(|id| is_model(name, id)) {
        return None;
    }
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let prefix = json!({
        "system": body.get("system"),
        "tools": body.get("tools"),
        "messages": &messages[..upto.min(messages.len())],
    });
    let hash = prefix
        .to_string()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    Some(format!("{hash:016x}"))
}

/// The prefix check on the thinking blocks a request sends back: a block
/// bound to another prefix is refused with the API's 400
/// (fix-bound-to-a-different-conversation: "messages.1.content.0: Invalid
/// `signature` in `thinking` block. The block is bound to a different
/// conversation. Remove the block, or set
/// `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\"."),
/// or dropped when the request sets `drop_block` with the beta
/// `thinking-binding-controls-2026-08-01` (same page, step 1).
pub fn prefix_check(body: &Value, beta: &str) -> Result<(), Refusal> {
    let drops = body
        .pointer("/thinking/block_binding/prefix_mismatch_behavior")
        .and_then(Value::as_str)
        == Some("drop_block")
        && beta
            .split(',')
            .any(|b| b.trim() == "thinking-binding-controls-2026-08-01");
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for (at, message) in messages.iter().enumerate() {
        let Some(blocks) = message.get("content").and_then(Value::as_array) else {
            continue;
        };
        for (index, block) in blocks.iter().enumerate() {
            let bound = block
                .get("signature")
                .and_then(Value::as_str)
                .and_then(|s| s.split_once(".p"))
                .map(|(_, prefix)| prefix);
            let Some(bound) = bound else { continue };
            if prefix_digest(body, at).as_deref() == Some(bound) || drops {
                continue;
            }
            return Err((
                400,
                json!({"type": "error", "error": {"type": "invalid_request_error", "message": format!("messages.{at}.content.{index}: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\".")}}),
            ));
        }
    }
    Ok(())
}

/// Models that take per-message effort: a `role: "system"` message in
/// `messages` with empty `content` and `output_config.effort`, sent with
/// the beta `mid-conversation-output-config-2026-07-01`
/// (platform.claude.com/docs/en/build-with-claude/effort-per-message, its
/// supported models).
const EFFORT_MARKERS: &[&str] = &[
    "claude-fable-5-1",
    "claude-fable-5-2",
    "claude-mythos-5-1",
    "claude-mythos-5-2",
    "claude-opus-5",
    "claude-opus-5-5",
    "claude-sonnet-5-5",
    "claude-haiku-5-5",
];

/// The verdict on `system` messages inside `messages`: refused on a model
/// (or without the beta) that does not take them, with the API's "role
/// 'system' is not supported on this model" (anthropics/claude-code#61412);
/// refused where one neither precedes an assistant message nor ends the
/// array ("messages.67: role 'system' must precede an 'assistant' message
/// or end the array", anthropics/claude-code#73821).
pub fn effort_markers(body: &Value, beta: &str) -> Result<(), Refusal> {
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let refused = |message: String| {
        (
            400,
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}}),
        )
    };
    let name = body.get("model").and_then(Value::as_str).unwrap_or("");
    let takes = EFFORT_MARKERS.iter().any(|id| is_model(name, id))
        && beta
            .split(',')
            .any(|b| b.trim() == "mid-conversation-output-config-2026-07-01");
    for (at, message) in messages.iter().enumerate() {
        if message["role"] != "system" {
            continue;
        }
        if !takes {
            return Err(refused(
                "role 'system' is not supported on this model".into(),
            ));
        }
        let next = messages.get(at + 1).map(|m| &m["role"]);
        if next.is_some_and(|role| role != "assistant") {
            return Err(refused(format!(
                "messages.{at}: role 'system' must precede an 'assistant' message or end the array"
            )));
        }
    }
    Ok(())
}

/// The model a server-side fallback hands the turn to, when the asked
/// model declines (the mock's classifier declines a question that says
/// `mock:refuse`): the first of `fallbacks: [{model}]`, sent with the beta
/// `server-side-fallback-2026-06-01` (platform.claude.com/docs/en/
/// build-with-claude/refusals-and-fallback: "name a fallback model on the
/// request, and the API handles the retry"; "The response marks each
/// handoff with a fallback content block").
pub fn fallback_to(body: &Value, beta: &str, question: &str) -> Option<String> {
    if !question.contains("mock:refuse") {
        return None;
    }
    if !beta
        .split(',')
        .any(|b| b.trim() == "server-side-fallback-2026-06-01")
    {
        return None;
    }
    body.pointer("/fallbacks/0/model")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

fn model(name: &str) -> Option<&'static Claude> {
    MODELS
        .iter()
        .find(|m| m.ids.iter().any(|id| is_model(name, id)))
}

pub(super) fn knows(name: &str) -> bool {
    model(name).is_some()
}

/// The generation of a `claude-<tier>-<major>…` id (`claude-haiku-5` is 5);
/// `None` for other names and the older `claude-3-7-sonnet` order.
fn generation(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("claude-")?;
    let mut parts = rest.split('-');
    let tier = parts.next()?;
    if tier.is_empty() || !tier.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    parts.next()?.parse().ok()
}

/// A model the list does not name: a Claude of generation 5 or later
/// refuses budgets [G]; anything else passes.
fn unlisted(name: &str, body: &Value) -> Result<Thinks, Refusal> {
    let budget = body.pointer("/thinking/type").and_then(Value::as_str) == Some("enabled");
    if budget && generation(name).is_some_and(|major| major >= 5) {
        return Err(refused(NO_BUDGETS));
    }
    Ok(Thinks::Shown)
}

fn refused(message: impl Into<String>) -> Refusal {
    (
        400,
        json!({
            "type": "error",
            "error": {"type": "invalid_request_error", "message": message.into()},
        }),
    )
}

/// The verdict on a Messages request for `name`.
pub(super) fn check(name: &str, body: &Value) -> Result<Thinks, Refusal> {
    let Some(claude) = model(name) else {
        return unlisted(name, body);
    };
    let max_tokens = body.get("max_tokens").and_then(Value::as_u64);
    let Some(max_tokens) = max_tokens else {
        return Err(refused("max_tokens: Field required"));
    };
    if max_tokens > claude.max_tokens {
        // [L] wording measured 2026-09-17 (gateway mirror of the 400).
        return Err(refused(format!(
            "max_tokens: {max_tokens} > {} - 'max_tokens' should be smaller than or equal to {}",
            claude.max_tokens, claude.max_tokens
        )));
    }
    if claude.no_sampling {
        for sampling in ["temperature", "top_p", "top_k"] {
            if body.get(sampling).is_some() {
                return Err(refused(format!(
                    "`{sampling}` is deprecated for this model."
                )));
            }
        }
    }
    let last_role = body
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|m| m.last())
        .and_then(|m| m.get("role"))
        .and_then(Value::as_str);
    if last_role == Some("assistant") && !claude.prefill {
        return Err(refused(
            "This model does not support assistant message prefill. The conversation must end with a user message.",
        ));
    }
    let effort = body.pointer("/output_config/effort");
    let thinking = body.get("thinking");
    let kind = thinking.and_then(|t| t.get("type")).and_then(Value::as_str);
    let display = thinking
        .and_then(|t| t.get("display"))
        .and_then(Value::as_str);
    let shown = |display: Option<&str>| match display {
        Some("omitted") => Thinks::Omitted,
        Some(_) => Thinks::Shown,
        None if claude.omits => Thinks::Omitted,
        None => Thinks::Shown,
    };
    let thinks = match kind {
        None if thinking.is_some() => Err(refused("thinking.type: Field required")),
        None if claude.on_by_default => Ok(shown(None)),
        None => Ok(Thinks::No),
        Some("enabled") if !claude.enabled => Err(refused(NO_BUDGETS)),
        Some("enabled") => {
            let budget = thinking
                .and_then(|t| t.get("budget_tokens"))
                .and_then(Value::as_u64)
                .unwrap_or(0);
            if budget < 1024 {
                return Err(refused(
                    "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
                ));
            }
            if max_tokens <= budget {
                return Err(refused("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"));
            }
            Ok(shown(display))
        }
        Some("adaptive") if !claude.adaptive => {
            Err(refused("adaptive thinking is not supported on this model"))
        }
        Some("adaptive") if thinking.is_some_and(|t| t.get("budget_tokens").is_some()) => Err(
            refused("thinking.adaptive.budget_tokens: Extra inputs are not permitted"),
        ),
        Some("adaptive") => Ok(shown(display)),
        Some("disabled") => match claude.disable {
            Disable::Refused(message) => Err(refused(message)),
            _ if display.is_some() => Err(refused(
                "\"thinking.display\" is not supported when \"thinking.type\" is \"disabled\"",
            )),
            Disable::UpToHigh
                if effort
                    .and_then(Value::as_str)
                    .is_some_and(|e| e == "xhigh" || e == "max") =>
            {
                // [T] documents the 400; its wording was not found, so the
                // message follows the shape of the others.
                Err(refused(format!(
                    "\"thinking.type.disabled\" is not supported with \"output_config.effort\" {} for this model.",
                    effort.map(Value::to_string).unwrap_or_default()
                )))
            }
            _ => Ok(Thinks::No),
        },
        Some(other) => Err(refused(format!(
            "thinking.type: Input tag '{other}' found using 'type' does not match any of the expected tags: 'adaptive', 'disabled', 'enabled'"
        ))),
    }?;
    if let Some(effort) = effort {
        let Some(words) = claude.efforts else {
            return Err(refused("This model does not support the effort parameter."));
        };
        if !effort.as_str().is_some_and(|e| words.contains(&e)) {
            let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
            let (last, rest) = quoted.split_last().unwrap_or((&quoted[0], &[]));
            return Err(refused(format!(
                "output_config.effort: Input should be {} or {last}",
                rest.join(", ")
            )));
        }
    }
    Ok(thinks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effort_markers_only_where_taken_and_before_an_answer() {
        let beta = "mid-conversation-output-config-2026-07-01";
        let marker = json!({"role": "system", "content": [], "output_config": {"effort": "low"}});
        let body = |model: &str, after: Value| json!({"model": model, "messages": [{"role": "user", "content": "q"}, marker, after]});
        let answer = json!({"role": "assistant", "content": "a"});
        let question = json!({"role": "user", "content": "q2"});
        assert!(effort_markers(&body("claude-opus-5-5", answer.clone()), beta).is_ok());
        let message =
            |r: Result<(), Refusal>| r.expect_err("refused").1["error"]["message"].clone();
        assert_eq!(
            message(effort_markers(&body("claude-opus-5-5", answer.clone()), "")),
            json!("role 'system' is not supported on this model")
        );
        assert_eq!(
            message(effort_markers(&body("claude-sonnet-5", answer), beta)),
            json!("role 'system' is not supported on this model")
        );
        assert_eq!(
            message(effort_markers(&body("claude-opus-5-5", question), beta)),
            json!("messages.1: role 'system' must precede an 'assistant' message or end the array")
        );
    }

    use super::super::message_of as message;

    fn ask(name: &str, extra: Value) -> Result<Thinks, Refusal> {
        let mut body = json!({"model": name, "max_tokens": 16000, "messages": [{"role": "user", "content": "hi"}]});
        for (key, value) in extra.as_object().into_iter().flatten() {
            body[key] = value.clone();
        }
        check(name, &body)
    }

    #[test]
    fn claude_5_thinks_unasked_and_hides_the_text_unless_summarized() {
        assert_eq!(ask("claude-opus-5", json!({})), Ok(Thinks::Omitted));
        assert_eq!(
            ask(
                "claude-opus-5",
                json!({"thinking": {"type": "adaptive", "display": "summarized"}})
            ),
            Ok(Thinks::Shown)
        );
        assert_eq!(
            ask("claude-opus-5", json!({"thinking": {"type": "disabled"}})),
            Ok(Thinks::No)
        );
        assert!(message(ask(
            "claude-opus-5",
            json!({"thinking": {"type": "disabled"}, "output_config": {"effort": "max"}})
        ))
        .contains("not supported"));
        assert_eq!(ask("claude-opus-4-7", json!({})), Ok(Thinks::No));
        assert_eq!(ask("claude-sonnet-4-5", json!({})), Ok(Thinks::No));
    }

    #[test]
    fn each_breach_gets_the_providers_words() {
        assert!(message(ask(
            "claude-fable-5-1",
            json!({"thinking": {"type": "disabled"}})
        ))
        .starts_with("\"thinking.type.disabled\" is not supported for this model."));
        assert!(message(ask(
            "claude-fable-5",
            json!({"thinking": {"type": "enabled", "budget_tokens": 2048}})
        ))
        .starts_with("\"thinking.type.enabled\" is not supported"));
        assert_eq!(
            message(ask(
                "claude-sonnet-4-6",
                json!({"output_config": {"effort": "xhigh"}})
            )),
            "output_config.effort: Input should be 'low', 'medium', 'high' or 'max'"
        );
        assert_eq!(
            message(ask(
                "claude-haiku-4-5",
                json!({"output_config": {"effort": "low"}})
            )),
            "This model does not support the effort parameter."
        );
        assert!(message(ask("claude-opus-5", json!({"temperature": 0.2}))).contains("deprecated"));
        assert!(message(ask("claude-opus-5", json!({"max_tokens": 128_001}))).contains("128000"));
        assert!(message(ask(
            "claude-opus-5",
            json!({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "So"}]})
        ))
        .contains("prefill"));
        assert!(message(ask(
            "claude-sonnet-4-5",
            json!({"thinking": {"type": "enabled", "budget_tokens": 512}})
        ))
        .contains("1024"));
        assert!(message(ask(
            "claude-sonnet-4-5",
            json!({"thinking": {"type": "enabled", "budget_tokens": 16000}})
        ))
        .contains("must be greater than"));
        assert!(message(ask(
            "claude-sonnet-4-5",
            json!({"thinking": {"type": "adaptive"}})
        ))
        .contains("adaptive thinking is not supported"));
        assert_eq!(
            ask("mock-claude", json!({"thinking": {"type": "bogus"}})),
            Ok(Thinks::Shown)
        );
    }
}

#[cfg(test)]
mod newer_generations {
    use super::*;

    use super::super::message_of as message;

    fn budget(name: &str) -> Result<Thinks, Refusal> {
        check(
            name,
            &json!({"model": name, "max_tokens": 16000,
                "messages": [{"role": "user", "content": "hi"}],
                "thinking": {"type": "enabled", "budget_tokens": 4096}}),
        )
    }

    #[test]
    fn every_claude_5_or_later_refuses_budget_thinking() {
        let refusal = "\"thinking.type.enabled\" is not supported for this model. Use \"thinking.type.adaptive\" and \"output_config.effort\" to control thinking behavior.";
        for name in [
            "claude-haiku-5",
            "claude-haiku-5-5",
            "claude-haiku-5-1-20270101",
            "claude-sonnet-6",
            "claude-opus-7-2",
        ] {
            assert_eq!(message(budget(name)), refusal, "{name}");
        }
        assert_eq!(budget("claude-haiku-4-5"), Ok(Thinks::Shown));
        assert_eq!(budget("claude-3-7-sonnet-latest"), Ok(Thinks::Shown));
        // Names that are not Claude's pass, as every unlisted id does.
        assert_eq!(budget("mock-claude-5"), Ok(Thinks::Shown));
    }
}
