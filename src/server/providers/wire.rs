//! The seam every wire dialect plugs into: framed upstream events in, neutral
//! `Delta`s out (`Decoder`); the dialects by name; and what a provider request
//! is made of (`UpstreamModel` in, `UpstreamRequest` out). Framing (SSE or
//! NDJSON) is done elsewhere; dialects see one event at a time. The reverse,
//! for the mock upstream, is `mock::encoders`.

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::server::providers::delta::Delta;
use crate::server::providers::framing::{Framing, WireEvent};
use crate::server::providers::secret::Secret;
use crate::turn::turn_error::TurnError;
use crate::turn::Effort;

/// Turns a dialect's events into deltas. One decoder per upstream response
/// stream (a recording of a tool loop holds several responses: keep going).
pub trait Decoder: Send {
    /// Decodes one event. `Err` for a malformed event or an in-stream provider
    /// error; the caller ends the turn with it.
    fn decode(&mut self, event: &WireEvent) -> Result<Vec<Delta>, TurnError>;
}

/// An event whose data is one JSON chunk, as `T`: `None` when there is
/// nothing to decode (empty data, or the `[DONE]` chat-style streams end with).
pub(crate) fn json_chunk<T: DeserializeOwned>(event: &WireEvent) -> Result<Option<T>, TurnError> {
    let data = event.data.trim();
    if data.is_empty() || data == "[DONE]" {
        return Ok(None);
    }
    serde_json::from_str(data)
        .map(Some)
        .map_err(|e| TurnError::Malformed(e.to_string()))
}

/// Reads an event of a dialect whose payloads carry their kind in `type` (a
/// `#[serde(tag = "type")]` enum with an `Unknown` arm). A payload without a
/// string `type` takes the SSE event name (which repeats it), `Unknown` with
/// neither; a payload that is not an object reads as one with no fields. Only
/// events that miss the fast path pay for the second look.
pub(crate) fn decode_tagged<E: DeserializeOwned>(event: &WireEvent) -> Result<E, TurnError> {
    let data = event.data.trim();
    let typed = match serde_json::from_str::<E>(data) {
        Ok(decoded) => return Ok(decoded),
        Err(e) => e,
    };
    let value: Value =
        serde_json::from_str(data).map_err(|e| TurnError::Malformed(e.to_string()))?;
    let mut fields = match value {
        Value::Object(fields) if fields.get("type").is_some_and(Value::is_string) => {
            // Named its kind and still did not fit it.
            return Err(TurnError::Malformed(typed.to_string()));
        }
        Value::Object(fields) => fields,
        _ => Map::new(),
    };
    let kind = event.event.as_deref().unwrap_or_default();
    fields.insert("type".into(), Value::String(kind.to_owned()));
    E::deserialize(Value::Object(fields)).map_err(|e| TurnError::Malformed(e.to_string()))
}

/// The parts of a chunk that are arrays of items (tool-call fragments,
/// content parts), each read on its own: an item that does not fit `T` is
/// skipped and logged, and the rest of the chunk still counts. Gateways send
/// stray items (LiteLLM's `"index": -1` fragment, issue 40); one of them
/// must not cost the answer. The chunk itself must still be JSON: only the
/// items are lenient.
pub(crate) fn usable_items<T: DeserializeOwned>(
    items: Vec<Value>,
    what: &'static str,
) -> impl Iterator<Item = T> {
    items
        .into_iter()
        .filter_map(move |item| match T::deserialize(item) {
            Ok(usable) => Some(usable),
            Err(error) => {
                // The reason goes to debug only: serde quotes the offending
                // value, which may be a piece of the model's output.
                tracing::warn!(
                    item = what,
                    "skipped an item the provider sent that Pensive cannot use"
                );
                tracing::debug!(item = what, %error, "why the item was skipped");
                None
            }
        })
}

/// A field of a provider's error object, read when it has the expected type
/// and ignored otherwise: a badly shaped error is still the provider's error,
/// not a malformed stream.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum Loose<T> {
    Is(T),
    Other(IgnoredAny),
}

impl<T> Loose<T> {
    /// The value, if it had the expected type.
    pub fn ok(self) -> Option<T> {
        match self {
            Loose::Is(value) => Some(value),
            Loose::Other(_) => None,
        }
    }
}

/// The wire dialects Pensive speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// OpenAI-compatible chat completions (`/v1/chat/completions`, SSE).
    Chat,
    /// OpenAI Responses (`/v1/responses`, SSE with typed events).
    Responses,
    /// Anthropic Messages (`/v1/messages`, SSE with `event:` names).
    Anthropic,
    /// Gemini `streamGenerateContent?alt=sse`.
    Gemini,
    /// Ollama native `/api/chat` (NDJSON).
    Ollama,
}

impl Dialect {
    pub const ALL: [Dialect; 5] = [
        Dialect::Chat,
        Dialect::Responses,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Ollama,
    ];

    /// The name used on the command line and in configuration.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Chat => "chat",
            Dialect::Responses => "responses",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::Ollama => "ollama",
        }
    }

    /// Parses a dialect name (`openai` is an alias of `chat`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "chat" | "openai" => Some(Dialect::Chat),
            "responses" => Some(Dialect::Responses),
            "anthropic" => Some(Dialect::Anthropic),
            "gemini" => Some(Dialect::Gemini),
            "ollama" => Some(Dialect::Ollama),
            _ => None,
        }
    }

    /// True when the dialect streams NDJSON rather than SSE.
    pub fn is_ndjson(self) -> bool {
        self == Dialect::Ollama
    }

    /// How the dialect's stream is framed.
    pub fn framing(self) -> Framing {
        if self.is_ndjson() {
            Framing::Ndjson
        } else {
            Framing::Sse
        }
    }

    /// A fresh decoder for one stream.
    pub fn decoder(self) -> Box<dyn Decoder> {
        match self {
            Dialect::Chat => Box::new(super::openai_chat::ChatDecoder::default()),
            Dialect::Responses => Box::new(super::responses::ResponsesDecoder::default()),
            Dialect::Anthropic => Box::new(super::anthropic::AnthropicDecoder::default()),
            Dialect::Gemini => Box::new(super::gemini::GeminiDecoder::default()),
            Dialect::Ollama => Box::new(super::ollama::OllamaDecoder::default()),
        }
    }
}

/// How a model is asked to think, where its dialect has a choice
/// (`thinking = "…"` in the configuration forces one; otherwise the family
/// decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThinkingStyle {
    /// Anthropic `thinking: {type: "adaptive"}` + `output_config.effort`.
    Adaptive,
    /// Anthropic `thinking: {type: "enabled", budget_tokens}`; Gemini `thinkingBudget`.
    Budget,
    /// Gemini `thinkingLevel`; Ollama `think: "low" | "medium" | "high"`.
    Level,
    /// Chat completions `reasoning_effort` (Responses always uses `reasoning.effort`).
    Effort,
    /// Chat completions `chat_template_kwargs: {enable_thinking}` (vLLM, SGLang, llama.cpp).
    Template,
    /// Chat completions `thinking: {type: "enabled" | "disabled"}` (DeepSeek,
    /// Kimi); Ollama `think: true | false`.
    Switch,
    /// No thinking parameter at all.
    None,
}

impl ThinkingStyle {
    /// Parses the configuration's `thinking` value.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "adaptive" => Some(ThinkingStyle::Adaptive),
            "budget" | "enabled" => Some(ThinkingStyle::Budget),
            "level" => Some(ThinkingStyle::Level),
            "effort" => Some(ThinkingStyle::Effort),
            "template" => Some(ThinkingStyle::Template),
            "switch" => Some(ThinkingStyle::Switch),
            "none" | "off" | "disabled" => Some(ThinkingStyle::None),
            _ => None,
        }
    }

    /// The configuration word.
    pub fn name(self) -> &'static str {
        match self {
            ThinkingStyle::Adaptive => "adaptive",
            ThinkingStyle::Budget => "budget",
            ThinkingStyle::Level => "level",
            ThinkingStyle::Effort => "effort",
            ThinkingStyle::Template => "template",
            ThinkingStyle::Switch => "switch",
            ThinkingStyle::None => "none",
        }
    }

    /// The styles a dialect can send.
    pub fn of_dialect(dialect: Dialect) -> &'static [ThinkingStyle] {
        use ThinkingStyle::*;
        match dialect {
            Dialect::Anthropic => &[Adaptive, Budget, None],
            Dialect::Gemini => &[Level, Budget, None],
            Dialect::Responses => &[Effort, None],
            Dialect::Chat => &[Effort, Template, Switch, None],
            Dialect::Ollama => &[Level, Switch, None],
        }
    }
}

/// Where a model's effort words came from (`POST /api/models` says it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EffortsSource {
    /// The configuration's `efforts` list.
    Config,
    /// The provider's model list (Ollama `/api/show`, OpenRouter `/models`, Gemini `models.get`).
    Provider,
    /// Pensive's family tables.
    Table,
    /// Nothing is known: no effort is offered or sent.
    #[default]
    Unknown,
}

impl EffortsSource {
    pub fn as_str(self) -> &'static str {
        match self {
            EffortsSource::Config => "config",
            EffortsSource::Provider => "provider",
            EffortsSource::Table => "table",
            EffortsSource::Unknown => "unknown",
        }
    }
}

/// What a provider call needs to know about a model, as plain values: the
/// configuration's `ModelConfig` holds one, and providers see nothing else of it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UpstreamModel {
    /// The provider's base URL (the dialect adds its path).
    pub base_url: String,
    pub api_key: Option<Secret>,
    /// The model name sent upstream.
    pub name: String,
    pub max_output_tokens: Option<u32>,
    /// The old `reasoning_effort` setting: the default effort where the
    /// model takes that word, and sent as is for a model of unknown family.
    pub reasoning_effort: Option<String>,
    /// Thinking token budget for the default effort (Anthropic before 4.6,
    /// Gemini 2.5), or for every turn of a model of unknown family.
    pub thinking_budget: Option<u32>,
    /// Anthropic: how thinking is asked for, when the configuration forces it
    /// (`thinking = "adaptive" | "budget" | "none"`); else the name decides.
    pub thinking: Option<ThinkingStyle>,
    /// The configuration's `efforts` list, as written (it wins over the
    /// family table and the provider's model list).
    pub configured_efforts: Option<Vec<Effort>>,
    /// The configuration's `default_effort`.
    pub configured_default: Option<Effort>,
    /// The efforts the model takes, weakest first (decided at startup:
    /// `reasoning::resolve`); empty: none may be asked for.
    pub efforts: Vec<Effort>,
    /// Where `efforts` came from.
    pub efforts_source: EffortsSource,
    /// The effort used when a request names none.
    pub default_effort: Option<Effort>,
    /// Chat completions on a llama.cpp server (`provider = "llamacpp"`).
    pub llamacpp: bool,
    /// The configuration said `tools = false`, or the provider's model list
    /// says the model takes none: this model is never offered tools (a
    /// server or model without tool support refuses every request that
    /// carries them).
    pub no_tools: bool,
    /// The configuration named `tools` (either way): the provider's list
    /// does not override it.
    pub tools_configured: bool,
    /// Why the model is offered no tools, for the Tools panel (set when the
    /// provider's list said so).
    pub tools_note: Option<String>,
    /// Anthropic: the models the API tries, in order, when this one
    /// declines (`fallbacks` in the configuration).
    pub fallbacks: Vec<String>,
}

/// A provider's real HTTP request for one turn. `Debug` names the headers but
/// never prints their values (they carry the API key).
#[derive(Clone, PartialEq)]
pub struct UpstreamRequest {
    /// Full URL (base URL + the dialect's path).
    pub url: String,
    /// Headers besides `content-type: application/json` (auth, versions).
    pub headers: Vec<(String, String)>,
    pub body: serde_json::Value,
}

impl std::fmt::Debug for UpstreamRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let header_names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("UpstreamRequest")
            .field("url", &self.url)
            .field("header_names", &header_names)
            .field("body", &self.body)
            .finish()
    }
}

impl UpstreamRequest {
    /// `POST {base_url}{path}` with a bearer token when the model has a key
    /// (the OpenAI dialects and Ollama authenticate this way).
    pub(crate) fn bearer(model: &UpstreamModel, path: &str, body: serde_json::Value) -> Self {
        let headers = model
            .api_key
            .iter()
            .map(|key| {
                (
                    "authorization".to_owned(),
                    format!("Bearer {}", key.expose()),
                )
            })
            .collect();
        Self {
            url: format!("{}{path}", model.base_url.trim_end_matches('/')),
            headers,
            body,
        }
    }
}

/// The tools a conversation's calls were made to, for dialects that name
/// each result by its tool (Gemini, Ollama) rather than by its call id.
#[derive(Default)]
pub(crate) struct CallNames<'a>(Vec<(&'a str, &'a str)>);

impl<'a> CallNames<'a> {
    /// Remembers the calls of an assistant message.
    pub(crate) fn remember(&mut self, calls: &'a [crate::turn::ToolCall]) {
        self.0
            .extend(calls.iter().map(|c| (c.id.as_str(), c.name.as_str())));
    }

    /// The tool of the latest call `id` ("" when none was made).
    pub(crate) fn of(&self, id: &str) -> &'a str {
        self.0
            .iter()
            .rfind(|(call, _)| *call == id)
            .map_or("", |(_, name)| name)
    }
}
