//! The answer of `POST /api/models`: what the browser may know about a
//! configured model. Built by the server from its configuration, shown by the
//! app's model chooser; pure data, so both builds share it.

use serde::{Deserialize, Serialize};

use super::Effort;

/// What the browser may know about a configured model (no URL, no key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicModel {
    pub id: String,
    pub label: String,
    /// The built-in scripted demo model (labelled as such in the UI).
    pub demo: bool,
    /// The reasoning efforts the model takes, weakest first (empty: the model
    /// takes none, and the request must not name one).
    #[serde(default)]
    pub efforts: Vec<Effort>,
    /// The effort used when the request names none (one of `efforts`).
    #[serde(default)]
    pub default_effort: Option<Effort>,
    /// Where `efforts` came from: `config`, `provider` (its model list),
    /// `table` (Pensive's families) or `unknown`.
    #[serde(default)]
    pub efforts_from: String,
    /// Why this model is offered no tools: its provider lists no tool
    /// support, or refuses them at its reasoning efforts (OpenAI's chat
    /// completions from gpt-5.2 on); for the Tools panel, absent where
    /// tools go at every effort.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_note: Option<String>,
}
