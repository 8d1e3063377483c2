//! The tools Pensive offers a model, and running one call: the built-in
//! tools today (MCP servers join them under their own server names). Names
//! the model sees are namespaced `server__tool`; a call runs under a
//! deadline, and its output is capped before it goes anywhere.

pub mod builtin;
pub mod output;

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::turn::tool::{split_name, Approval, ToolSpec, NAME_SEPARATOR};
use crate::turn::ToolStatus;

/// How one call ended, as the model and the page learn it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallOutcome {
    pub status: ToolStatus,
    /// What the model reads (capped; an error says what went wrong).
    pub output: String,
    pub truncated_bytes: u64,
    pub duration_ms: u64,
}

/// The tools at hand for turns.
#[derive(Debug, Clone)]
pub struct ToolBox {
    /// Offer the built-in tools.
    builtin: bool,
    /// Longest a call may run.
    pub call_timeout: Duration,
}

impl Default for ToolBox {
    fn default() -> Self {
        Self {
            builtin: true,
            call_timeout: Duration::from_secs(30),
        }
    }
}

impl ToolBox {
    /// The tools offered when the request names the servers `enabled`
    /// (absent: every enabled server), namespaced.
    pub fn offered(&self, enabled: Option<&[String]>) -> Vec<ToolSpec> {
        let on = |server: &str| enabled.is_none_or(|list| list.iter().any(|s| s == server));
        let mut specs = Vec::new();
        if self.builtin && on(builtin::SERVER) {
            specs.extend(builtin::specs().into_iter().map(|spec| ToolSpec {
                name: format!("{}{NAME_SEPARATOR}{}", builtin::SERVER, spec.name),
                ..spec
            }));
        }
        specs
    }

    /// The server of a namespaced tool name ("" for a name no server has).
    pub fn server_of(&self, name: &str) -> String {
        split_name(name)
            .map(|(server, _)| server.to_owned())
            .unwrap_or_default()
    }

    /// Whether a call needs the user's approval before it runs: built-in
    /// tools never do.
    pub fn approval(&self, name: &str) -> Approval {
        match split_name(name) {
            Some((builtin::SERVER, _)) => Approval::NotNeeded,
            _ => Approval::Needed,
        }
    }

    /// Runs one call with `arguments` (or the reason they are unusable),
    /// under the call deadline.
    pub async fn call(&self, name: &str, arguments: Result<&Value, &str>) -> CallOutcome {
        let started = Instant::now();
        let result = match arguments {
            Err(problem) => Err(format!("the arguments are not a JSON object: {problem}")),
            Ok(arguments) => {
                let run = self.run(name, arguments);
                match tokio::time::timeout(self.call_timeout, run).await {
                    Ok(result) => result,
                    Err(_) => {
                        return self.ended(
                            ToolStatus::Timeout,
                            format!(
                                "The tool did not answer within {}s.",
                                self.call_timeout.as_secs()
                            ),
                            started,
                        )
                    }
                }
            }
        };
        match result {
            Ok(text) => self.ended(ToolStatus::Ok, text, started),
            Err(message) => self.ended(ToolStatus::Error, message, started),
        }
    }

    async fn run(&self, name: &str, arguments: &Value) -> Result<String, String> {
        match split_name(name) {
            Some((builtin::SERVER, tool)) if self.builtin => {
                // Calculations are bounded (fend's interrupt); off the async
                // workers all the same.
                let tool = tool.to_owned();
                let arguments = arguments.clone();
                tokio::task::spawn_blocking(move || builtin::call(&tool, &arguments))
                    .await
                    .map_err(|_| "the tool failed unexpectedly".to_owned())?
            }
            _ => Err(format!("there is no tool named `{name}`")),
        }
    }

    fn ended(&self, status: ToolStatus, text: String, started: Instant) -> CallOutcome {
        let (output, truncated_bytes) = output::cap_output(text, output::MAX_OUTPUT_BYTES);
        CallOutcome {
            status,
            output,
            truncated_bytes,
            duration_ms: started.elapsed().as_millis() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builtin_tools_are_offered_namespaced_and_need_no_approval() {
        let tools = ToolBox::default();
        let names: Vec<_> = tools.offered(None).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["builtin__calculate", "builtin__current_time"]);
        assert!(tools.offered(Some(&["files".into()])).is_empty());
        assert_eq!(tools.approval("builtin__calculate"), Approval::NotNeeded);
        assert_eq!(tools.approval("files__write_file"), Approval::Needed);
        assert_eq!(tools.server_of("builtin__calculate"), "builtin");
    }

    #[tokio::test]
    async fn a_call_reports_its_outcome() {
        let tools = ToolBox::default();
        let ok = tools
            .call("builtin__calculate", Ok(&json!({"expression": "6 * 7"})))
            .await;
        assert_eq!((ok.status, ok.output.as_str()), (ToolStatus::Ok, "42"));
        let bad = tools.call("builtin__calculate", Err("EOF")).await;
        assert_eq!(bad.status, ToolStatus::Error);
        assert!(bad.output.contains("EOF"), "{}", bad.output);
        let unknown = tools.call("nowhere__x", Ok(&json!({}))).await;
        assert_eq!(unknown.status, ToolStatus::Error);
    }
}
