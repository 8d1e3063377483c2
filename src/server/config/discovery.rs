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
use crate::server::providers::reasoning::{chat_server, ChatServer, ProviderFacts};
use crate::server::providers::wire::{Dialect, UpstreamModel};

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

/// Ollama `/api/show`: `{"capabilities": ["completion", "thinking", …]}`.
fn ollama_facts(body: &Value, _name: &str) -> Option<ProviderFacts> {
    let capabilities = body.get("capabilities")?.as_array()?;
    Some(ProviderFacts {
        thinks: Some(capabilities.iter().any(|c| c == "thinking")),
        takes_tools: Some(capabilities.iter().any(|c| c == "tools")),
    })
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
    })
}

/// Gemini `models.get`: `{"name", "thinking": true, …}`;
/// `thinking` is left out for models that do not think.
fn gemini_facts(body: &Value, _name: &str) -> Option<ProviderFacts> {
    body.get("name")?;
    Some(ProviderFacts {
        takes_tools: None,
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
                takes_tools: Some(false)
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
                takes_tools: Some(true)
            })
        );
        assert_eq!(
            openrouter_facts(&list, "c/d"),
            Some(ProviderFacts {
                thinks: Some(true),
                takes_tools: Some(false)
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
                takes_tools: None
            })
        );
        assert_eq!(gemini_facts(&json!({"error": {}}), "x"), None);
    }
}
