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
    /// The model is offered no tools at all (its configuration, or its
    /// provider's model list, says it takes none).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_tools: bool,
    /// The efforts at which its provider refuses tools (those turns go
    /// without them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_tools_at: Vec<Effort>,
    /// The tool names its provider takes; `None`: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_names: Option<ToolNameRule>,
}

impl PublicModel {
    /// Whether a turn at `effort` (`None`: the model's default) offers it
    /// tools at all.
    pub fn gets_tools_at(&self, effort: Option<Effort>) -> bool {
        let effort = effort.or(self.default_effort);
        !self.no_tools && !effort.is_some_and(|e| self.no_tools_at.contains(&e))
    }

    /// Whether its provider takes the tool name `name` (`server__tool`).
    pub fn takes_tool_name(&self, name: &str) -> bool {
        self.tool_names.is_none_or(|rule| rule.takes(name))
    }
}

/// The tool names a provider takes: 1 to `max` letters, digits, `_` and
/// `-` (and `.` where `dots`), starting with a letter or `_` where
/// `letter_first`. One name it refuses fails the whole request, so such a
/// tool is left out of that provider's requests (`server::tools::names`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolNameRule {
    pub max: usize,
    #[serde(default)]
    pub dots: bool,
    #[serde(default)]
    pub letter_first: bool,
}

impl ToolNameRule {
    /// Whether the provider takes `name`.
    pub fn takes(&self, name: &str) -> bool {
        let starts_well = !self.letter_first
            || name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        (1..=self.max).contains(&name.len())
            && starts_well
            && name.chars().all(|c| {
                c.is_ascii_alphanumeric() || c == '_' || c == '-' || (self.dots && c == '.')
            })
    }
}
