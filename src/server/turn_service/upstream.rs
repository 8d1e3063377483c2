//! Opening a turn's model: the scripted demo or its provider, with the
//! request the dialect needs; what counts as a server refusing tools.

use futures::StreamExt;

use crate::server::config::{ModelConfig, ProviderKind};
use crate::server::mock::{scripted, tool_scripts};
use crate::server::providers::delta::Delta;
use crate::server::providers::reasoning;
use crate::server::providers::wire::Dialect;
use crate::server::providers::{self, CompletionId, DeltaStream};
use crate::turn::turn_error::TurnError;
use crate::turn::{ChatRequest, Effort};

/// The stream `open` gave within its deadline, or the error the turn ends
/// with (`on_timeout` when the deadline passed first).
pub(super) fn opened_stream(
    opened: Result<Result<DeltaStream, TurnError>, tokio::time::error::Elapsed>,
    on_timeout: &TurnError,
) -> Result<DeltaStream, TurnError> {
    opened.unwrap_or_else(|_| Err(on_timeout.clone()))
}

/// The wire dialect of a model (`None` for the demo).
pub(super) fn dialect_of(model: &ModelConfig) -> Option<Dialect> {
    match model.provider {
        ProviderKind::Wire(dialect) => Some(dialect),
        ProviderKind::Demo => None,
    }
}

/// Whether Pensive offers tools to this model at `effort`: every dialect
/// has its loop; a model configured with `tools = false` (a server that
/// cannot take them) gets none, and neither does a model whose provider
/// refuses tools at this effort (OpenAI's chat completions from gpt-5.2 on:
/// `reasoning::why_no_tools`). Sending them would only earn a 400; the
/// log says why, each turn, and README's providers table says it too.
pub(super) fn offers_tools(model: &ModelConfig, effort: Option<Effort>) -> bool {
    if model.upstream.no_tools {
        return false;
    }
    let refusal = dialect_of(model)
        .and_then(|dialect| reasoning::why_no_tools(dialect, &model.upstream, effort));
    if let Some(why) = refusal {
        tracing::info!(model = %model.id, effort = ?effort, "no tools this turn: {why}");
        return false;
    }
    true
}

/// What a chat server started without tool support says when a request
/// carries tools: vLLM without `--enable-auto-tool-choice` ("\"auto\" tool
/// choice requires --enable-auto-tool-choice and --tool-call-parser to be
/// set", soapbucket/sbproxy#591) and llama.cpp without `--jinja` ("tools
/// param requires --jinja flag").
const NO_TOOLS_HERE: [&str; 2] = [
    "requires --enable-auto-tool-choice",
    "tools param requires --jinja",
];

/// Whether a refusal is a server's "no tools here" (`NO_TOOLS_HERE`): the
/// turn is asked again without tools rather than failing every time. Only
/// those: any other 400 that mentions a tool (a name or schema the
/// provider did not take) fails the turn with the provider's message,
/// rather than every turn quietly losing every tool.
pub(super) fn refused_tools(error: &TurnError) -> bool {
    let said = error.to_string().to_ascii_lowercase();
    matches!(error.kind(), crate::turn::ErrorKind::BadRequest)
        && NO_TOOLS_HERE.iter().any(|words| said.contains(words))
}

/// Opens the model's stream: the scripted demo, or its provider (see
/// `providers::open` for `max_bytes`).
pub(super) async fn open(
    model: &ModelConfig,
    request: &ChatRequest,
    max_bytes: u64,
    completion_id: Option<CompletionId>,
) -> Result<DeltaStream, TurnError> {
    match model.provider {
        ProviderKind::Demo => {
            let calculator = request
                .tool_specs
                .iter()
                .any(|t| t.name == tool_scripts::CALCULATE);
            let mut steps =
                tool_scripts::demo_tool_round(&request.messages, calculator, model.demo_pace)
                    .unwrap_or_else(|| {
                        scripted::demo_script(request.last_user_text(), model.demo_pace)
                    });
            if request.effort == Some(Effort::Off) {
                // Thinking off: the script's answer alone.
                for step in &mut steps {
                    step.deltas.retain(|d| {
                        !matches!(
                            d,
                            Delta::Reasoning(_)
                                | Delta::ReasoningStarted
                                | Delta::OpaqueReasoning
                                | Delta::ReasoningBoundary
                        )
                    });
                    // …and no reasoning counted either: it did not reason.
                    for delta in &mut step.deltas {
                        if let Delta::Usage(usage) = delta {
                            usage.reasoning_tokens = None;
                        }
                    }
                }
                steps.retain(|step| !step.deltas.is_empty());
            }
            Ok(scripted::play(steps).map(Ok).boxed())
        }
        ProviderKind::Wire(dialect) => {
            providers::open(dialect, &model.upstream, request, max_bytes, completion_id).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad_request(message: &str) -> TurnError {
        TurnError::Http {
            status: 400,
            message: message.into(),
        }
    }

    fn openai_chat(name: &str) -> ModelConfig {
        let mut model = ModelConfig::demo(crate::server::mock::scripted::Pace::INSTANT);
        model.provider = ProviderKind::Wire(Dialect::Chat);
        model.upstream.base_url = "https://api.openai.com/v1".into();
        model.upstream.name = name.into();
        model
    }

    #[test]
    fn tools_go_only_where_the_provider_takes_them_at_the_effort() {
        assert!(offers_tools(&openai_chat("gpt-5.6-sol"), Some(Effort::Off)));
        assert!(!offers_tools(
            &openai_chat("gpt-5.6-sol"),
            Some(Effort::High)
        ));
        assert!(!offers_tools(&openai_chat("gpt-6-sol"), Some(Effort::Low)));
        assert!(offers_tools(&openai_chat("gpt-5.1"), Some(Effort::High)));
        let mut responses = openai_chat("gpt-6-sol");
        responses.provider = ProviderKind::Wire(Dialect::Responses);
        assert!(offers_tools(&responses, Some(Effort::Max)));
        let mut configured_off = openai_chat("gpt-5.1");
        configured_off.upstream.no_tools = true;
        assert!(!offers_tools(&configured_off, Some(Effort::Off)));
        let demo = ModelConfig::demo(crate::server::mock::scripted::Pace::INSTANT);
        assert!(offers_tools(&demo, Some(Effort::High)));
    }

    #[test]
    fn only_a_servers_no_tools_here_drops_the_tools() {
        for message in [
            "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set",
            "tools param requires --jinja flag",
        ] {
            assert!(refused_tools(&bad_request(message)), "{message}");
        }
        for message in [
            "Invalid 'tools[3].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.",
            "tools: Tool names must be unique.",
            "Request too large for tool definitions",
        ] {
            assert!(!refused_tools(&bad_request(message)), "{message}");
        }
        let unavailable = TurnError::Http {
            status: 503,
            message: "tools param requires --jinja flag".into(),
        };
        assert!(!refused_tools(&unavailable), "a 400 only");
    }
}
