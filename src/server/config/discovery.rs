//! What the providers' own model lists say about each configured model, read
//! once at start-up: Ollama's `POST /api/show`
//! (`capabilities` has `thinking`, `tools`), OpenRouter's `GET /models`
//! (`supported_parameters` has `reasoning`, `tools`), Gemini's `GET
//! models/{name}` (`thinking`). What is read wins over Pensive's family
//! table and loses to the configuration (`reasoning::resolve`, and `tools`
//! in the model's configuration). A model its provider says takes no tools
//! is offered none, and the Tools panel says why. A list that cannot be read
//! (offline, an older server, a timeout) changes nothing: the table stands,
//! and the log says so.

use std::time::Duration;

use serde_json::{json, Value};

use super::{settle_efforts, AppConfig, ProviderKind};
use crate::server::providers::http::client;
use crate::server::providers::reasoning::{chat_server, ChatServer, Efforts, ProviderFacts};
use crate::server::providers::wire::{Dialect, UpstreamModel};
use crate::turn::Effort;

/// Longest one model's look-up may take: start-up must not hang on a
/// provider that does not answer.
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(3);
/// Largest model-list answer read (OpenRouter's list is about 1 MB).
const MAX_LIST_BYTES: usize = 8 * 1024 * 1024;

/// Reads one provider's answer for one model.
type ReadFacts = fn(&Value, &str) -> Option<ProviderFacts>;

/// Reads each configured model's facts from its provider and settles its
/// efforts again with them.
pub async fn discover(config: &mut AppConfig) {
    for model in &mut config.models {
        let ProviderKind::Wire(dialect) = model.provider else {
            continue;
        };
        // The configuration has the last word on each.
        let wants_efforts = model.upstream.configured_efforts.is_none();
        let wants_tools = !model.upstream.tools_configured;
        if !wants_efforts && !wants_tools {
            continue;
        }
        let Some(facts) = lookup(dialect, &model.upstream).await else {
            continue;
        };
        if wants_tools {
            take_tools_fact(dialect, &mut model.upstream, facts.takes_tools);
        }
        if !wants_efforts {
            continue;
        }
        if let Err(why) = settle_efforts(dialect, &mut model.upstream, facts) {
            tracing::warn!(model = %model.id, "the provider's model list: {why}");
        }
        tracing::info!(
            model = %model.id,
            efforts = ?model.upstream.efforts,
            from = model.upstream.efforts_source.as_str(),
            "reasoning efforts"
        );
    }
}

/// A model its provider lists without tools is offered none, with the
/// reason for the Tools panel (a request with tools would be refused:
/// Ollama answers `"… does not support tools"`).
fn take_tools_fact(dialect: Dialect, model: &mut UpstreamModel, takes_tools: Option<bool>) {
    if takes_tools != Some(false) {
        return;
    }
    let provider = match dialect {
        Dialect::Ollama => "Ollama",
        _ => "The provider",
    };
    model.no_tools = true;
    model.tools_note = Some(format!(
        "{provider} lists no tool support for {}: it is offered no tools.",
        model.name
    ));
    tracing::info!(model = %model.name, "the provider lists no tool support: no tools are offered to it");
}

/// The facts `dialect`'s provider lists for `model`; `None` where it lists
/// none or could not be read.
async fn lookup(dialect: Dialect, model: &UpstreamModel) -> Option<ProviderFacts> {
    let base = model.base_url.trim_end_matches('/');
    let (request, read): (reqwest::RequestBuilder, ReadFacts) = match dialect {
        Dialect::Ollama => (
            client()
                .post(format!("{base}/api/show"))
                .json(&json!({"model": model.name})),
            ollama_facts,
        ),
        Dialect::Chat if chat_server(model) == ChatServer::OpenRouter => {
            (client().get(format!("{base}/models")), openrouter_facts)
        }
        Dialect::Gemini => (
            client().get(format!("{base}/v1beta/models/{}", model.name)),
            gemini_facts,
        ),
        _ => return None,
    };
    let request = match (&model.api_key, dialect) {
        (Some(key), Dialect::Gemini) => request.header("x-goog-api-key", key.expose()),
        (Some(key), _) => request.bearer_auth(key.expose()),
        (None, _) => request,
    };
    let answer = async {
        let response = request.send().await.ok()?.error_for_status().ok()?;
        let bytes = response.bytes().await.ok()?;
        (bytes.len() <= MAX_LIST_BYTES)
            .then(|| serde_json::from_slice::<Value>(&bytes).ok())
            .flatten()
    };
    match tokio::time::timeout(LOOKUP_TIMEOUT, answer).await {
        Ok(Some(body)) => read(&body, &model.name),
        _ => {
            tracing::info!(model = %model.name, "the provider's model list could not be read; Pensive's table stands");
            None
        }
    }
}

/// Ollama `/api/show`: `{"capabilities": ["completion", "thinking", …],
/// "thinking": {"values": […], "default": …}}`.
fn ollama_facts(body: &Value, _name: &str) -> Option<ProviderFacts> {
    let capabilities = body.get("capabilities")?.as_array()?;
    let thinks = capabilities.iter().any(|c| c == "thinking");
    Some(ProviderFacts {
        thinks: Some(thinks),
        takes_tools: Some(capabilities.iter().any(|c| c == "tools")),
        levels: thinks.then(|| ollama_levels(body)).flatten(),
    })
}

/// The `think` values `/api/show` lists and its default, as efforts.
/// ollama/ollama#18473 (merged 2026-09-15, "api: expose model thinking
/// levels and defaults"): "The optional `thinking` object contains `values`
/// and `default`, supporting Boolean controls and named levels"; "Models
/// without metadata retain existing behavior" (then `None`: the family
/// table stands). docs.ollama.com/capabilities/thinking: most models take
/// `true`/`false`; gpt-oss takes "low", "medium" or "high" and ignores a
/// boolean. `false` is offered as off, `true` as the switch's on (high, sent
/// back as `true`); a level Pensive cannot send is left out.
fn ollama_levels(body: &Value) -> Option<Efforts> {
    let thinking = body.get("thinking")?;
    let word = |value: &Value| match value {
        Value::Bool(false) => Some(Effort::Off),
        Value::Bool(true) => Some(Effort::High),
        Value::String(level) => match level.as_str() {
            "low" => Some(Effort::Low),
            "medium" => Some(Effort::Medium),
            "high" => Some(Effort::High),
            _ => None,
        },
        _ => None,
    };
    let mut words: Vec<Effort> = thinking
        .get("values")?
        .as_array()?
        .iter()
        .filter_map(word)
        .collect();
    words.sort();
    words.dedup();
    let on = words.iter().copied().rfind(|e| *e != Effort::Off);
    let default = thinking
        .get("default")
        .and_then(word)
        .filter(|d| words.contains(d) && *d != Effort::Off)
        .or(on)?;
    Some(Efforts { words, default })
}

/// OpenRouter `/models`: `{"data": [{"id", "supported_parameters": […],
/// …}]}`.
fn openrouter_facts(body: &Value, name: &str) -> Option<ProviderFacts> {
    let model = body
        .get("data")?
        .as_array()?
        .iter()
        .find(|m| m.get("id").and_then(Value::as_str) == Some(name))?;
    let parameters = model.get("supported_parameters")?.as_array()?;
    Some(ProviderFacts {
        thinks: Some(parameters.iter().any(|p| p == "reasoning")),
        takes_tools: Some(parameters.iter().any(|p| p == "tools")),
        levels: None,
    })
}

/// Gemini `models.get`: `{"name", "thinking": true, …}`;
/// `thinking` is left out for models that do not think.
fn gemini_facts(body: &Value, _name: &str) -> Option<ProviderFacts> {
    body.get("name")?;
    Some(ProviderFacts {
        takes_tools: None,
        levels: None,
        thinks: Some(
            body.get("thinking")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_list_is_read_in_its_own_shape() {
        assert_eq!(
            ollama_facts(&json!({"capabilities": ["completion", "thinking"]}), "m"),
            Some(ProviderFacts {
                thinks: Some(true),
                takes_tools: Some(false),
                levels: None
            })
        );
        let tools = json!({"capabilities": ["completion", "tools"]});
        assert_eq!(
            ollama_facts(&tools, "m").and_then(|f| f.takes_tools),
            Some(true)
        );
        assert_eq!(ollama_facts(&json!({"details": {}}), "m"), None);
        let list = json!({"data": [
            {"id": "a/b", "supported_parameters": ["tools"], "top_provider": {"max_completion_tokens": 8192}},
            {"id": "c/d", "supported_parameters": ["reasoning", "include_reasoning"], "top_provider": {"max_completion_tokens": null}},
        ]});
        assert_eq!(
            openrouter_facts(&list, "a/b"),
            Some(ProviderFacts {
                thinks: Some(false),
                takes_tools: Some(true),
                levels: None
            })
        );
        assert_eq!(
            openrouter_facts(&list, "c/d"),
            Some(ProviderFacts {
                thinks: Some(true),
                takes_tools: Some(false),
                levels: None
            })
        );
        assert_eq!(openrouter_facts(&list, "e/f"), None);
        assert_eq!(
            gemini_facts(
                &json!({"name": "models/gemini-2.0-flash", "outputTokenLimit": 8192}),
                "x"
            ),
            Some(ProviderFacts {
                thinks: Some(false),
                takes_tools: None,
                levels: None
            })
        );
        assert_eq!(gemini_facts(&json!({"error": {}}), "x"), None);
    }

    #[test]
    fn ollama_thinking_values_become_the_offered_words() {
        use Effort::*;
        let show = |thinking: Value| {
            ollama_facts(
                &json!({"capabilities": ["completion", "thinking"], "thinking": thinking}),
                "m",
            )
            .and_then(|f| f.levels)
        };
        assert_eq!(
            show(json!({"values": ["low", "medium", "high"], "default": "medium"})),
            Some(Efforts {
                words: vec![Low, Medium, High],
                default: Medium
            })
        );
        assert_eq!(
            show(json!({"values": [false, true], "default": true})),
            Some(Efforts {
                words: vec![Off, High],
                default: High
            })
        );
        // A level Pensive cannot send is left out; a default not listed
        // gives way to the strongest listed.
        assert_eq!(
            show(json!({"values": ["low", "ultra"], "default": "ultra"})),
            Some(Efforts {
                words: vec![Low],
                default: Low
            })
        );
        assert_eq!(show(json!({"values": []})), None);
        // No `thinking` capability: no words, whatever else is listed.
        let plain = json!({"capabilities": ["completion"], "thinking": {"values": [true]}});
        assert_eq!(ollama_facts(&plain, "m").and_then(|f| f.levels), None);
    }
}
