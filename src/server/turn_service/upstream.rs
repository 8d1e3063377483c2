//! Opening a turn's model: the scripted demo or its provider, with the
//! request the dialect needs; what counts as a server refusing tools.

use futures::StreamExt;

use crate::server::config::{ModelConfig, ProviderKind};
use crate::server::mock::{scripted, tool_scripts};
use crate::server::providers::delta::Delta;
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

/// Whether Pensive offers tools to this model: every dialect has its loop;
/// a model configured with `tools = false` (a server that cannot take
/// them) gets none.
pub(super) fn offers_tools(model: &ModelConfig) -> bool {
    !model.upstream.no_tools
}

/// Whether a refusal is a server's "no tools here" (vLLM without
/// `--enable-auto-tool-choice`: "\"auto\" tool choice requires
/// --enable-auto-tool-choice and --tool-call-parser to be set",
/// soapbucket/sbproxy#591; llama.cpp without `--jinja`): the turn is asked
/// again without tools rather than failing every time.
pub(super) fn refused_tools(error: &TurnError) -> bool {
    let said = error.to_string().to_ascii_lowercase();
    matches!(error.kind(), crate::turn::ErrorKind::BadRequest) && said.contains("tool")
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
