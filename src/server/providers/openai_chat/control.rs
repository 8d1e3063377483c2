//! llama.cpp's reasoning control: a completion started with
//! `reasoning_control: true` can be told to stop thinking and answer, with
//! `POST {base}/chat/completions/control` and `{"id": <the completion id of
//! its chunks>, "action": "reasoning_end", "model": <name>}`; the same stream
//! then goes on with the answer. As the server's handler reads it
//! (tools/server/server-context.cpp, `post_control`, llama.cpp #23971): a
//! missing id or another action is a 400; an id with no running completion,
//! or one not started with `reasoning_control`, is a **200** with
//! `{"success": false, "message"}`, so the body decides, not the status;
//! `model` is read only by router mode (several models), which needs it.

use serde_json::json;

use crate::server::providers::http::{client, network_error};
use crate::server::providers::wire::UpstreamModel;
use crate::turn::turn_error::TurnError;

/// The action that ends the thinking of a running completion.
pub(crate) const REASONING_END: &str = "reasoning_end";

/// The control request's URL and body for `completion_id` (tests and the
/// mock check it).
pub(crate) fn control_request(
    model: &UpstreamModel,
    completion_id: &str,
) -> (String, serde_json::Value) {
    (
        format!(
            "{}/chat/completions/control",
            model.base_url.trim_end_matches('/')
        ),
        json!({"id": completion_id, "action": REASONING_END, "model": model.name}),
    )
}

/// A 200's body: `{"success": true}`, or `false` with the server's reason.
fn control_outcome(body: &str) -> Result<(), TurnError> {
    let reply: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    if reply.get("success").and_then(serde_json::Value::as_bool) == Some(true) {
        return Ok(());
    }
    let reason = reply
        .get("message")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("the server did not say it ended the thinking");
    Err(TurnError::Http {
        status: 409,
        message: format!("llama.cpp's reasoning control: {reason}"),
    })
}

/// Longest a control call may take: past it the browser asks again instead
/// (a hung server must not hold the user's "Answer now").
pub(crate) const CONTROL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

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
        let body = crate::server::providers::http::error_body(response).await;
        return control_outcome(&body);
    }
    let body = crate::server::providers::http::error_body(response).await;
    Err(TurnError::from_status(
        status.as_u16(),
        &crate::server::providers::http::provider_message(&body),
    ))
}
