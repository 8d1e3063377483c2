//! OpenAI-compatible chat completions (`POST {base}/chat/completions`, SSE),
//! through async-openai's `byot` calls with our own delta types: its typed delta
//! drops the reasoning fields every reasoning server adds.

use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::Client;
use futures::StreamExt;
use serde::Deserialize;
use serde_json::json;

use super::{DeltaStream, ProviderError};
use crate::server::config::ModelConfig;
use crate::server::normalizer::Delta;
use crate::turn::{ChatRequest, Usage};

/// One streamed chunk, only the fields we read.
#[derive(Debug, Deserialize)]
pub struct ChatChunk {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<ChunkUsage>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    #[serde(default)]
    delta: ChunkDelta,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct ChunkDelta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    reasoning_content: Option<String>,
    #[serde(default)]
    reasoning: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ChunkUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Debug, Deserialize)]
struct CompletionDetails {
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

impl ChatChunk {
    /// The chunk's deltas: reasoning (from exactly one field) before answer text.
    pub fn into_deltas(self) -> Vec<Delta> {
        let mut deltas = Vec::new();
        if let Some(choice) = self.choices.into_iter().next() {
            let d = choice.delta;
            // One field only: gateways send the same text under several names.
            let reasoning = [d.reasoning_content, d.reasoning]
                .into_iter()
                .flatten()
                .find(|t| !t.is_empty());
            if let Some(text) = reasoning {
                deltas.push(Delta::Reasoning(text));
            }
            if let Some(text) = d.content.filter(|t| !t.is_empty()) {
                deltas.push(Delta::Answer(text));
            }
            if choice.finish_reason.is_some() {
                deltas.push(Delta::Finish(choice.finish_reason));
            }
        }
        if let Some(usage) = self.usage {
            deltas.push(Delta::Usage(Usage {
                input_tokens: usage.prompt_tokens,
                output_tokens: usage.completion_tokens,
                reasoning_tokens: usage
                    .completion_tokens_details
                    .and_then(|d| d.reasoning_tokens),
            }));
        }
        deltas
    }
}

/// The request body: streaming on, usage requested.
pub fn request_body(model: &ModelConfig, request: &ChatRequest) -> serde_json::Value {
    let mut body = json!({
        "model": model.upstream_model,
        "messages": request.messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if let Some(max) = model.max_output_tokens {
        body["max_tokens"] = json!(max);
    }
    body
}

pub async fn open(
    model: &ModelConfig,
    request: &ChatRequest,
) -> Result<DeltaStream, ProviderError> {
    let config = OpenAIConfig::new()
        .with_api_base(model.base_url.trim_end_matches('/'))
        .with_api_key(model.api_key.clone().unwrap_or_default());
    let client = Client::with_config(config);
    let stream = client
        .chat()
        .create_stream_byot::<_, ChatChunk>(request_body(model, request))
        .await
        .map_err(map_error)?;
    Ok(stream
        .map(|item| item.map(ChatChunk::into_deltas).map_err(map_error))
        .boxed())
}

fn map_error(err: OpenAIError) -> ProviderError {
    match err {
        OpenAIError::ApiError(api) => {
            ProviderError::from_status(api.status_code.as_u16(), &api.api_error.message)
        }
        OpenAIError::Reqwest(e) => match e.status() {
            Some(status) => ProviderError::from_status(status.as_u16(), ""),
            None => ProviderError::from_reqwest(&e),
        },
        OpenAIError::JSONDeserialize(e, _) => ProviderError::Malformed(e.to_string()),
        OpenAIError::StreamError(_) => ProviderError::Network(
            "The connection to the model provider broke off mid-response".into(),
        ),
        other => ProviderError::Malformed(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deltas(json: &str) -> Vec<Delta> {
        serde_json::from_str::<ChatChunk>(json)
            .unwrap()
            .into_deltas()
    }

    #[test]
    fn reasoning_content_comes_before_content_in_one_chunk() {
        assert_eq!(
            deltas(r#"{"choices":[{"delta":{"reasoning_content":"r","content":"a"}}]}"#),
            vec![Delta::Reasoning("r".into()), Delta::Answer("a".into())]
        );
    }

    #[test]
    fn only_one_reasoning_field_is_taken() {
        assert_eq!(
            deltas(r#"{"choices":[{"delta":{"reasoning_content":"same","reasoning":"same"}}]}"#),
            vec![Delta::Reasoning("same".into())]
        );
        assert_eq!(
            deltas(r#"{"choices":[{"delta":{"reasoning_content":"","reasoning":"groq"}}]}"#),
            vec![Delta::Reasoning("groq".into())]
        );
    }

    #[test]
    fn usage_with_reasoning_tokens_and_finish_reason_are_read() {
        assert_eq!(
            deltas(
                r#"{"choices":[{"delta":{},"finish_reason":"stop"}],
                   "usage":{"prompt_tokens":5,"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":4}}}"#
            ),
            vec![
                Delta::Finish(Some("stop".into())),
                Delta::Usage(Usage {
                    input_tokens: Some(5),
                    output_tokens: Some(9),
                    reasoning_tokens: Some(4)
                })
            ]
        );
    }

    #[test]
    fn null_content_and_empty_choices_are_tolerated() {
        assert!(
            deltas(r#"{"choices":[{"delta":{"content":null,"role":"assistant"}}]}"#).is_empty()
        );
        assert!(deltas(r#"{"choices":[]}"#).is_empty());
    }
}
