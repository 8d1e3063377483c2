//! The Responses stream's events as the decoder reads them: only the fields
//! it uses, each optional, so a server that leaves one out or adds its own
//! still decodes. Anything new is `Event::Unknown`.

use serde::Deserialize;

use crate::server::providers::wire::Loose;

/// One Responses stream event, only the fields we read. Created, function
/// call arguments and anything new are `Unknown`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub(super) enum Event {
    #[serde(rename = "response.reasoning_summary_text.delta")]
    SummaryTextDelta {
        #[serde(default)]
        item_id: Option<String>,
        #[serde(default)]
        output_index: Option<u64>,
        #[serde(default)]
        summary_index: Option<u64>,
        #[serde(default)]
        delta: Option<String>,
    },
    #[serde(rename = "response.reasoning_text.delta")]
    ReasoningTextDelta {
        #[serde(default)]
        item_id: Option<String>,
        #[serde(default)]
        output_index: Option<u64>,
        #[serde(default)]
        content_index: Option<u64>,
        #[serde(default)]
        delta: Option<String>,
    },
    /// A refusal is the model's answer to the user, not reasoning.
    #[serde(
        rename = "response.output_text.delta",
        alias = "response.refusal.delta"
    )]
    OutputTextDelta {
        #[serde(default)]
        delta: Option<String>,
    },
    #[serde(rename = "response.function_call_arguments.delta")]
    FunctionCallArgumentsDelta {
        #[serde(default)]
        item_id: Option<String>,
        #[serde(default)]
        output_index: Option<u64>,
        #[serde(default)]
        delta: Option<String>,
    },
    #[serde(rename = "response.output_item.added")]
    OutputItemAdded {
        #[serde(default)]
        output_index: Option<u64>,
        #[serde(default)]
        item: Option<Item>,
    },
    #[serde(rename = "response.output_item.done")]
    OutputItemDone {
        #[serde(default)]
        output_index: Option<u64>,
        #[serde(default)]
        item: Option<Item>,
    },
    #[serde(rename = "response.completed")]
    Completed {
        #[serde(default)]
        response: Option<Response>,
    },
    #[serde(rename = "response.incomplete")]
    Incomplete {
        #[serde(default)]
        response: Option<Response>,
    },
    #[serde(rename = "response.failed")]
    Failed {
        #[serde(default)]
        response: Option<FailedResponse>,
    },
    /// Older servers nest the fields in `error`, the API puts them on the event.
    #[serde(rename = "error")]
    Error {
        #[serde(default)]
        error: Option<Loose<ApiError>>,
        #[serde(default)]
        code: Option<Loose<String>>,
        #[serde(default)]
        message: Option<Loose<String>>,
    },
    #[serde(other)]
    Unknown,
}

/// An output item; only reasoning items matter here. Servers differ in what
/// they put in one, so a missing `type` is just not reasoning.
#[derive(Debug, Deserialize)]
pub(super) struct Item {
    #[serde(default, rename = "type")]
    pub(super) kind: ItemKind,
    #[serde(default)]
    pub(super) id: Option<String>,
    #[serde(default)]
    pub(super) summary: Option<Vec<TextPart>>,
    #[serde(default)]
    pub(super) content: Option<Vec<TextPart>>,
    /// A function call's id for its output, name and arguments (JSON text).
    #[serde(default)]
    pub(super) call_id: Option<String>,
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) arguments: Option<String>,
}

#[derive(Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum ItemKind {
    Reasoning,
    FunctionCall,
    #[default]
    #[serde(other)]
    Other,
}

/// A summary or content part of a reasoning item.
#[derive(Debug, Deserialize)]
pub(super) struct TextPart {
    #[serde(default)]
    pub(super) text: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Response {
    #[serde(default)]
    pub(super) usage: Option<ResponseUsage>,
    #[serde(default)]
    pub(super) incomplete_details: Option<IncompleteDetails>,
}

#[derive(Debug, Deserialize)]
pub(super) struct ResponseUsage {
    #[serde(default)]
    pub(super) input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) output_tokens: Option<u64>,
    #[serde(default)]
    pub(super) output_tokens_details: Option<OutputTokensDetails>,
}

#[derive(Debug, Deserialize)]
pub(super) struct OutputTokensDetails {
    #[serde(default)]
    pub(super) reasoning_tokens: Option<u64>,
}

#[derive(Debug, Deserialize)]
pub(super) struct IncompleteDetails {
    #[serde(default)]
    pub(super) reason: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct FailedResponse {
    #[serde(default)]
    pub(super) error: Option<Loose<ApiError>>,
}

/// An error's fields, each read only if it has the expected type.
#[derive(Debug, Default, Deserialize)]
pub(super) struct ApiError {
    #[serde(default)]
    pub(super) code: Option<Loose<String>>,
    #[serde(default, rename = "type")]
    pub(super) kind: Option<Loose<String>>,
    #[serde(default)]
    pub(super) message: Option<Loose<String>>,
}
