//! llama.cpp's reasoning control: a completion started with
//! `reasoning_control: true` can be told to stop thinking and answer, with
//! `POST {base}/chat/completions/control` and `{"id": <the completion id of
//! its chunks>, "action": "reasoning_end"}`; the same stream then goes on with
//! the answer. (The endpoint is as issue 20 describes it: docs/decisions.md
//! says what could and could not be confirmed in llama.cpp's own docs.)

use serde_json::json;

use crate::server::providers::http::{client, network_error};
use crate::server::providers::wire::UpstreamModel;
use crate::turn::turn_error::TurnError;

/// The action that ends the thinking of a running completion.
pub const REASONING_END: &str = "reasoning_end";

/// The control request's URL and body for `completion_id` (tests and the
/// mock check it).
pub fn control_request(model: &UpstreamModel, completion_id: &str) -> (String, serde_json::Value) {
    (
        format!(
            "{}/chat/completions/control",
            model.base_url.trim_end_matches('/')
        ),
        json!({"id": completion_id, "action": REASONING_END}),
    )
}

/// Longest a control call may take: past it the browser asks again instead
/// (a hung server must not hold the user's "Answer now").
pub const CONTROL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Asks the llama.cpp server behind `model` to end the thinking of the
/// running completion `completion_id` ("Answer now").
pub async fn end_reasoning(model: &UpstreamModel, completion_id: &str) -> Result<(), TurnError> {
    let (url, body) = control_request(model, completion_id);
    let mut builder = client().post(url).json(&body).timeout(CONTROL_TIMEOUT);
    if let Some(key) = &model.api_key {
        builder = builder.bearer_auth(key.expose());
    }
    let response = builder.send().await.map_err(|e| network_error(&e))?;
    let status = response.status();
    if status.is_success() {
        return Ok(());
    }
    let body = crate::server::providers::http::error_body(response).await;
    Err(TurnError::from_status(
        status.as_u16(),
        &crate::server::providers::http::provider_message(&body),
    ))
}
