//! One turn driven from its request to its terminal event: admitted, asked
//! of its model, each response normalized, each tool round announced,
//! decided, run and reported, and every event handed on (`emit`) as it
//! leaves the server (`Outlet`). One loop, and one exit for failures: every
//! way a turn can fail returns an `Exit`, which `drive` turns into the
//! turn's last events.

use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use tokio::sync::watch;

use super::answer_now;
use super::call_identity::CallIds;
use super::cut::TurnEnd;
use super::outlet::Outlet;
use super::tool_decisions::ToolDecisions;
use super::tool_loop::ToolLoop;
use super::tool_round::ToolRound;
use super::upstream::{dialect_of, offers_tools, open, opened_stream, refused_tools};
use crate::server::config::{AppConfig, ModelConfig, ProviderKind};
use crate::server::limits::{TurnLimiter, TurnPermit};
use crate::server::normalizer::Normalizer;
use crate::server::providers::{CompletionId, DeltaStream};
use crate::server::tools::ToolBox;
use crate::turn::turn_error::TurnError;
use crate::turn::{ChatRequest, Effort, TurnEvent};

/// Everything a turn needs, gathered when it is started.
pub(super) struct Parts {
    pub(super) config: Arc<AppConfig>,
    pub(super) request: ChatRequest,
    /// The request's checks and the client's slot, or why it was refused.
    pub(super) checked: Result<(ModelConfig, Option<Effort>, TurnPermit), TurnError>,
    /// Where llama.cpp's completion id goes, for "Answer now".
    pub(super) completion_id: Option<CompletionId>,
    pub(super) outlet: Outlet,
    pub(super) tools: ToolBox,
    pub(super) decisions: ToolDecisions,
    pub(super) decider: String,
    pub(super) limiter: TurnLimiter,
    pub(super) client: String,
    /// A shutdown's end of the grace period, and Stop (`cut`).
    pub(super) ending: watch::Receiver<bool>,
    pub(super) stop: watch::Receiver<bool>,
}

/// How a turn ends early.
enum Exit {
    /// A failure: the normalizer closes what is open and says it.
    Failed(TurnError),
    /// Cut while its calls waited or ran: the calls' results and the end,
    /// already made (not yet through the outlet).
    Cut(Vec<TurnEvent>),
}

impl From<TurnError> for Exit {
    fn from(error: TurnError) -> Self {
        Exit::Failed(error)
    }
}

/// Drives the turn `parts` describe to its end, handing each batch of
/// events to `emit` as it leaves the server.
pub(super) async fn drive(parts: Parts, mut emit: impl FnMut(Vec<TurnEvent>)) {
    let started = Instant::now();
    let elapsed = move || started.elapsed().as_millis() as u64;
    let Parts {
        config,
        mut request,
        checked,
        completion_id,
        mut outlet,
        tools,
        decisions,
        decider,
        limiter,
        client,
        ending,
        stop,
    } = parts;
    let mut normalizer = Normalizer::default();
    let outcome = match admit(checked, &limiter, &client).await {
        Err(refused) => Err(Exit::Failed(refused)),
        // The permits live while the turn runs: its slots free at its end.
        Ok((model, effort, _permit, _shared_permit)) => {
            normalizer = Normalizer::new(model.tags.clone(), model.start_in_thinking);
            prepare(&mut request, &model, effort, &tools, &decider);
            let mut end = TurnEnd::new(ending, stop, config.limits.max_turn_duration);
            let turn = Turn {
                config: &config,
                model: &model,
                tools: &tools,
                completion_id,
            };
            let tool_loop = ToolLoop::new(&tools, &decisions, &decider, &config.limits);
            let mut run = Running {
                normalizer: &mut normalizer,
                outlet: &mut outlet,
                request: &mut request,
                end: &mut end,
                tool_loop,
                elapsed: &elapsed,
            };
            run.until_the_end(&turn, &mut emit).await
        }
    };
    if let Err(exit) = outcome {
        let events = match exit {
            Exit::Failed(error) => normalizer.fail(&error, elapsed()),
            Exit::Cut(events) => events,
        };
        emit(outlet.pass(events, &normalizer));
    }
}

/// The request's checks passed and the client's slots, here and across
/// replicas, taken.
async fn admit(
    checked: Result<(ModelConfig, Option<Effort>, TurnPermit), TurnError>,
    limiter: &TurnLimiter,
    client: &str,
) -> Result<(ModelConfig, Option<Effort>, TurnPermit, impl Sized), TurnError> {
    let (model, effort, permit) = checked?;
    // Counted across replicas too, while the turn runs.
    let shared = limiter.admit_shared(client).await?;
    Ok((model, effort, permit, shared))
}

/// The request as the model gets it: at the effort the turn runs at (the
/// model's default when the request named none), with the reasoning so far
/// folded in, and the tools it may call.
fn prepare(
    request: &mut ChatRequest,
    model: &ModelConfig,
    effort: Option<Effort>,
    tools: &ToolBox,
    decider: &str,
) {
    request.effort = effort;
    if model.provider == ProviderKind::Demo {
        // The script answers the question itself; it has no use for the
        // reasoning so far (and would quote it as the question).
        request.reasoning_so_far = None;
    } else {
        answer_now::fold_reasoning(request);
    }
    if offers_tools(model, effort) {
        request.tool_specs = tools.offered_to(request.tools.as_deref(), dialect_of(model), decider);
    }
}

/// What stays the same through the turn.
struct Turn<'a> {
    config: &'a AppConfig,
    model: &'a ModelConfig,
    tools: &'a ToolBox,
    completion_id: Option<CompletionId>,
}

/// What changes as the turn runs.
struct Running<'a, 't, E: Fn() -> u64> {
    normalizer: &'a mut Normalizer,
    outlet: &'a mut Outlet,
    request: &'a mut ChatRequest,
    end: &'a mut TurnEnd,
    tool_loop: ToolLoop<'t>,
    elapsed: &'a E,
}

impl<E: Fn() -> u64> Running<'_, '_, E> {
    /// The loop: the model's response, event by event; at its end with
    /// calls, a tool round and the next response; until the terminal event.
    async fn until_the_end(
        &mut self,
        turn: &Turn<'_>,
        emit: &mut impl FnMut(Vec<TurnEvent>),
    ) -> Result<(), Exit> {
        let first_token_timeout = TurnError::FirstTokenTimeout {
            limit: turn.config.first_token_timeout,
        };
        let mut deadline = tokio::time::Instant::now() + turn.config.first_token_timeout;
        let mut upstream = self
            .open_first(turn, deadline, &first_token_timeout)
            .await?;
        let mut received_any = false;
        let mut call_ids = CallIds::new(&self.request.messages);
        let mut response = ToolRound::default();
        loop {
            let waited = if received_any {
                tokio::time::Instant::now() + turn.config.idle_timeout
            } else {
                deadline
            };
            let next = tokio::select! {
                next = tokio::time::timeout_at(waited, upstream.next()) => next,
                error = self.end.reached() => return Err(error.into()),
            };
            // The response ended asking for calls: run them, send the
            // results back, and stream the model's next response.
            if matches!(next, Ok(None)) && response.has_calls() && self.normalizer.saw_finish() {
                let round = std::mem::take(&mut response);
                if self.tool_round(turn, round, emit).await? {
                    return Ok(());
                }
                upstream = self.reopen(turn, &first_token_timeout).await?;
                // The next response gets its own first-token deadline: the
                // time the tools and the user took is not the model's.
                deadline = tokio::time::Instant::now() + turn.config.first_token_timeout;
                received_any = false;
                continue;
            }
            let events = match next {
                Err(_) if received_any => {
                    let limit = turn.config.idle_timeout;
                    return Err(TurnError::IdleTimeout { limit }.into());
                }
                Err(_) => return Err(first_token_timeout.into()),
                Ok(None) => self.normalizer.end_of_stream((self.elapsed)()),
                Ok(Some(Err(err))) => return Err(err.into()),
                Ok(Some(Ok(deltas))) => {
                    // Any delta is a sign of life, even one that yields no
                    // event yet (a `<think>` not yet announced).
                    received_any |= !deltas.is_empty();
                    self.push(turn, deltas, &mut call_ids, &mut response)
                }
            };
            emit(self.outlet.pass(events, self.normalizer));
            if self.normalizer.has_ended() {
                return Ok(());
            }
        }
    }

    /// One response's deltas as events: each call under an id of its own
    /// (`call_identity`), its server named.
    fn push(
        &mut self,
        turn: &Turn<'_>,
        deltas: Vec<crate::server::providers::delta::Delta>,
        call_ids: &mut CallIds,
        response: &mut ToolRound,
    ) -> Vec<TurnEvent> {
        let now = (self.elapsed)();
        let mut events = Vec::new();
        for delta in deltas {
            let delta = call_ids.distinct(delta);
            response.observe(&delta);
            events.extend(self.normalizer.push(delta, now));
        }
        for event in &mut events {
            if let TurnEvent::ToolCallStart { name, server, .. } = event {
                *server = turn.tools.server_of(name);
            }
        }
        events
    }

    /// The first response: opened within the first-token deadline; a server
    /// that refuses tools is asked again without them.
    async fn open_first(
        &mut self,
        turn: &Turn<'_>,
        deadline: tokio::time::Instant,
        on_timeout: &TurnError,
    ) -> Result<DeltaStream, Exit> {
        let max_bytes = turn.config.limits.max_turn_bytes;
        let completion_id = turn.completion_id.clone();
        let opened = tokio::select! {
            opened = tokio::time::timeout_at(deadline, open(turn.model, self.request, max_bytes, completion_id)) => opened,
            error = self.end.reached() => return Err(error.into()),
        };
        let opened = match opened {
            Ok(Err(err)) if !self.request.tool_specs.is_empty() && refused_tools(&err) => {
                // No event tells the page of this yet: the log says it each
                // turn, at warn, with the fix (docs/tools.md).
                tracing::warn!(model = %turn.model.id, dropped = self.request.tool_specs.len(), "the server says it takes no tools; this turn is asked again without any (set `tools = false` for this model)");
                self.request.tool_specs.clear();
                tokio::time::timeout_at(deadline, open(turn.model, self.request, max_bytes, None))
                    .await
            }
            other => other,
        };
        Ok(opened_stream(opened, on_timeout)?)
    }

    /// The model's next response, after a tool round.
    async fn reopen(
        &mut self,
        turn: &Turn<'_>,
        on_timeout: &TurnError,
    ) -> Result<DeltaStream, Exit> {
        let max_bytes = turn.config.limits.max_turn_bytes;
        let reopened = tokio::select! {
            opened = tokio::time::timeout(turn.config.first_token_timeout, open(turn.model, self.request, max_bytes, None)) => opened,
            error = self.end.reached() => return Err(error.into()),
        };
        Ok(opened_stream(reopened, on_timeout)?)
    }

    /// A response's calls: announced, decided, run and reported; true when
    /// the turn ended at a limit.
    async fn tool_round(
        &mut self,
        turn: &Turn<'_>,
        response: ToolRound,
        emit: &mut impl FnMut(Vec<TurnEvent>),
    ) -> Result<bool, Exit> {
        let now = (self.elapsed)();
        let (mut round, events) = self.tool_loop.announce(
            response,
            dialect_of(turn.model),
            self.request,
            self.normalizer,
            self.outlet,
            now,
        );
        emit(events);
        let elapsed = self.elapsed;
        self.tool_loop
            .decide(&mut round, self.request, self.end, self.normalizer, elapsed)
            .await
            .map_err(Exit::Cut)?;
        let outcomes = self
            .tool_loop
            .run(&round, self.end, self.normalizer, elapsed)
            .await
            .map_err(Exit::Cut)?;
        let (events, ended) = self.tool_loop.report(
            round,
            outcomes,
            self.request,
            self.normalizer,
            self.outlet,
            elapsed,
        );
        emit(events);
        Ok(ended)
    }
}
