//! The turn service (`TurnService`): runs one turn — picks the model, opens
//! its stream, feeds the normalizer and yields `TurnEvent`s. The stream is
//! built directly on the upstream stream (no detached task), so dropping it —
//! client gone, Stop pressed — drops the upstream request too.

use std::time::{Duration, Instant};

use async_stream::stream;
use futures::{Stream, StreamExt};

use super::active_turns::{ActiveTurn, ActiveTurns};
use super::answer_now::{self, AnswerNowRegistry, Registered};
use super::config::{AppConfig, ModelConfig, ProviderKind};
use super::continuation;
use super::hidden_thinking::HiddenThinking;
use super::limits::TurnLimiter;
use super::mock::{scripted, tool_scripts};
use super::normalizer::Normalizer;
use super::providers::delta::Delta;
use super::providers::wire::Dialect;
use super::providers::{self, reasoning, CompletionId, DeltaStream};
use super::redact::Redactor;
use super::tool_decisions::ToolDecisions;
use super::tool_round::ToolRound;
use super::tools::ToolBox;
use super::turn_log::{InSpan, TurnLog};
use crate::turn::effort::list_words;
use crate::turn::turn_error::TurnError;
use crate::turn::{AnswerNow, ChatRequest, Decision, Effort, ReasoningSource, Role, TurnEvent};

/// Shared by every request (put in the Leptos context).
#[derive(Debug, Clone)]
pub struct TurnService {
    config: std::sync::Arc<AppConfig>,
    /// Turns whose stream is alive (returns to 0 when clients go away).
    active: ActiveTurns,
    /// Per-client concurrency and rate limits.
    limiter: TurnLimiter,
    /// Flips to true when a shutdown's grace period is over: running turns end.
    ending: tokio::sync::watch::Sender<bool>,
    /// The running turns the browser named, for "Answer now".
    answers: AnswerNowRegistry,
    /// The tools turns may call.
    tools: ToolBox,
    /// Calls waiting for the user's decision.
    decisions: ToolDecisions,
}

impl TurnService {
    pub fn new(config: AppConfig) -> Self {
        Self {
            ending: tokio::sync::watch::Sender::new(false),
            limiter: TurnLimiter::new(config.limits.clone()),
            config: std::sync::Arc::new(config),
            active: Default::default(),
            answers: Default::default(),
            tools: ToolBox::default(),
            decisions: ToolDecisions::default(),
        }
    }

    /// The service with `tools` (MCP servers connected at start).
    pub fn with_tools(mut self, tools: ToolBox) -> Self {
        self.tools = tools;
        self
    }

    /// The tools turns may call.
    pub fn tools(&self) -> &ToolBox {
        &self.tools
    }

    /// The user's decision on call `call_id` of `client`'s running turn
    /// `turn_id`; false when no such call waits.
    pub fn tool_decision(
        &self,
        client: &str,
        turn_id: &str,
        call_id: &str,
        decision: Decision,
    ) -> bool {
        self.decisions.decide(client, turn_id, call_id, decision)
    }

    /// "Answer now" for `client`'s running turn `turn_id` (the request's
    /// `turn_id`): ends its thinking where the provider can (llama.cpp; the
    /// same stream goes on with the answer), else says to ask again with
    /// `reasoning_so_far` (see `answer_now`).
    pub async fn answer_now(&self, turn_id: &str, client: &str) -> AnswerNow {
        self.answers.answer_now(turn_id, client).await
    }

    /// Forgets the per-client counts of clients that went quiet (see
    /// `pruning`).
    pub(crate) fn prune_clients(&self, now: tokio::time::Instant) {
        self.limiter.prune(now);
    }

    /// How many turns are streaming right now.
    pub fn active_turns(&self) -> usize {
        self.active.count()
    }

    pub fn config(&self) -> &AppConfig {
        &self.config
    }

    /// Ends every running turn now with an `interrupted` error (what arrived is
    /// kept in the browser). Called when a shutdown's grace period is over.
    pub fn end_running_turns(&self) {
        self.ending.send_replace(true);
    }

    /// The event stream of one turn for `client` (see `client::ClientKey`).
    /// Never fails: problems, refusals included, are `error` events.
    pub fn start(
        &self,
        mut request: ChatRequest,
        client: &str,
    ) -> impl Stream<Item = TurnEvent> + Send + 'static {
        let config = self.config.clone();
        let show_thinking = config.show_thinking;
        let mut ending = self.ending.subscribe();
        continuation::ask_to_continue(&mut request);
        // The permit lives inside the stream: the slot frees when the turn ends
        // or the client goes away.
        let checked = validate(&config, &request).and_then(|(model, effort)| {
            let permit = self.limiter.admit(client, tokio::time::Instant::now())?;
            Ok((model.clone(), effort, permit))
        });
        let (registered, completion_id) = match (&checked, request.turn_id.as_deref()) {
            (Ok((model, ..)), Some(turn_id)) => self
                .answers
                .register(turn_id, client, model)
                .map_or((None, None), |(registered, slot)| (Some(registered), slot)),
            _ => (None, None),
        };
        let mut log = TurnLog::new(
            checked.as_ref().map(|(m, ..)| m.id.as_str()).unwrap_or("?"),
            checked
                .as_ref()
                .map(|(m, ..)| m.provider.name())
                .unwrap_or("none"),
        );
        log.set_effort(checked.as_ref().ok().and_then(|(_, effort, _)| *effort));
        let mut outlet = Outlet {
            _active: self.active.enter(),
            _answer_now: registered,
            log,
            hidden: (!show_thinking).then(HiddenThinking::default),
            source: checked.as_ref().ok().map(|(m, ..)| m.reasoning_source()),
            redactor: checked
                .as_ref()
                .map(|(m, ..)| Redactor::for_upstream(&m.upstream))
                .unwrap_or_default(),
            output_limit: checked
                .as_ref()
                .ok()
                .and_then(|(m, effort, _)| match m.provider {
                    ProviderKind::Wire(dialect) => {
                        reasoning::output_limit(dialect, &m.upstream, *effort)
                    }
                    ProviderKind::Demo => None,
                }),
            tool_call_limit: u32::try_from(config.limits.max_tool_calls).ok(),
            tool_time_limit_secs: u32::try_from(config.limits.max_tool_time.as_secs()).ok(),
        };
        let tools = self.tools.clone();
        let decisions = self.decisions.clone();
        let client_key = client.to_owned();
        let span = tracing::info_span!(
            "turn",
            turn_id = request.turn_id.as_deref().unwrap_or("-"),
            model = checked.as_ref().map(|(m, ..)| m.id.as_str()).unwrap_or("?"),
            client = %client,
        );
        let turn = stream! {
            let started = Instant::now();
            let elapsed = move || started.elapsed().as_millis() as u64;
            let (model, effort, _permit) = match checked {
                Ok(admitted) => admitted,
                Err(refused) => {
                    let mut normalizer = Normalizer::default();
                    let events = normalizer.fail(&refused, elapsed());
                    for event in outlet.pass(events, &normalizer) { yield event; }
                    return;
                }
            };
            // The providers see the effort the turn runs at (the model's
            // default when the request named none).
            request.effort = effort;
            if model.provider == ProviderKind::Demo {
                // The script answers the question itself; it has no use for
                // the reasoning so far (and would quote it as the question).
                request.reasoning_so_far = None;
            } else {
                answer_now::fold_reasoning(&mut request);
            }
            if offers_tools(&model) {
                request.tool_specs = tools.offered(request.tools.as_deref());
            }
            let mut normalizer = Normalizer::new(model.tags.clone(), model.start_in_thinking);
            let mut deadline = tokio::time::Instant::now() + config.first_token_timeout;
            let limits = &config.limits;
            let turn_deadline = (!limits.max_turn_duration.is_zero())
                .then(|| tokio::time::Instant::now() + limits.max_turn_duration);
            let opened = tokio::select! {
                opened = tokio::time::timeout_at(deadline, open(&model, &request, limits.max_turn_bytes, completion_id)) => opened,
                cut = cut_short(&mut ending, turn_deadline) => {
                    let events = normalizer.fail(&cut.error(limits.max_turn_duration), elapsed());
                    for event in outlet.pass(events, &normalizer) { yield event; }
                    return;
                }
            };
            let first_token_timeout = TurnError::FirstTokenTimeout { limit: config.first_token_timeout };
            let opened = match opened {
                Ok(Err(err)) if !request.tool_specs.is_empty() && refused_tools(&err) => {
                    tracing::warn!(model = %model.id, "the server refused tools; asking again without them (set `tools = false` for this model)");
                    request.tool_specs.clear();
                    tokio::time::timeout_at(deadline, open(&model, &request, limits.max_turn_bytes, None)).await
                }
                other => other,
            };
            let mut upstream = match opened_stream(opened, &first_token_timeout) {
                Ok(upstream) => upstream,
                Err(err) => {
                    let events = normalizer.fail(&err, elapsed());
                    for event in outlet.pass(events, &normalizer) { yield event; }
                    return;
                }
            };
            let mut received_any = false;
            let mut round = ToolRound::default();
            let mut calls_made = 0usize;
            // Time the tools of this turn have run (decisions not counted).
            let mut tool_time = Duration::ZERO;
            loop {
                let waited = if received_any {
                    tokio::time::Instant::now() + config.idle_timeout
                } else {
                    deadline
                };
                let next = tokio::select! {
                    next = tokio::time::timeout_at(waited, upstream.next()) => next,
                    cut = cut_short(&mut ending, turn_deadline) => {
                        let events = normalizer.fail(&cut.error(limits.max_turn_duration), elapsed());
                        for event in outlet.pass(events, &normalizer) { yield event; }
                        return;
                    }
                };
                // The response ended asking for calls: run them, send the
                // results back, and stream the model's next response.
                if matches!(next, Ok(None)) && round.has_calls() && normalizer.saw_finish() {
                    let events = normalizer.end_round(elapsed());
                    for event in outlet.pass(events, &normalizer) { yield event; }
                    let own = round.own_continuity(dialect_of(&model));
                    if let Some(data) = own.clone() {
                        for event in outlet.pass(vec![TurnEvent::Continuity { data }], &normalizer) { yield event; }
                    }
                    let (message, calls) = std::mem::take(&mut round).finish(own);
                    request.messages.push(message);
                    let over_limit = limits.max_tool_calls > 0 && calls_made + calls.len() > limits.max_tool_calls;
                    let out_of_time = !limits.max_tool_time.is_zero() && tool_time >= limits.max_tool_time;
                    // A model may name a tool it was not offered (switched off in
                    // this conversation, or remembered from an earlier turn): it
                    // never runs and asks no one, and the model is told why.
                    let offered: Vec<bool> = calls.iter()
                        .map(|call| request.tool_specs.iter().any(|spec| spec.name == call.name))
                        .collect();
                    let approvals: Vec<crate::turn::Approval> = calls.iter().zip(&offered)
                        .map(|(call, offered)| if *offered {
                            tools.approval_in_conversation(&call.name, &request.allowed_tools)
                        } else {
                            crate::turn::Approval::NotNeeded
                        })
                        .collect();
                    for (call, approval) in calls.iter().zip(&approvals) {
                        let ready = TurnEvent::ToolCallReady {
                            id: call.id.clone(),
                            arguments: call.arguments.clone().unwrap_or_else(|_| serde_json::json!({})),
                            approval: *approval,
                        };
                        for event in outlet.pass(vec![ready], &normalizer) { yield event; }
                    }
                    // The calls that ask first wait for the user, one by one
                    // (`POST /api/tool_decision`); a denied one never runs.
                    let mut not_run: Vec<Option<super::tools::CallOutcome>> = vec![None; calls.len()];
                    if over_limit {
                        not_run = calls.iter().map(|_| Some(limit_reached(limits.max_tool_calls))).collect();
                    } else if out_of_time {
                        not_run = calls.iter().map(|_| Some(out_of_tool_time(limits.max_tool_time))).collect();
                    }
                    for (slot, offered) in not_run.iter_mut().zip(&offered) {
                        if slot.is_none() && !offered {
                            *slot = Some(declined(SWITCHED_OFF));
                        }
                    }
                    for (at, call) in calls.iter().enumerate() {
                        // Allowed for the conversation by an earlier call of this
                        // turn (a held tool: allowed, and so no longer held).
                        let allowed_since = !tools.approval_in_conversation(&call.name, &request.allowed_tools).asks();
                        if not_run[at].is_some() || !approvals[at].asks() || allowed_since {
                            continue;
                        }
                        let Some(turn_id) = request.turn_id.clone() else {
                            not_run[at] = Some(declined("No one could be asked (the request named no turn)."));
                            continue;
                        };
                        let mut waiting = decisions.wait(&client_key, &turn_id, &call.id);
                        let decision = tokio::select! {
                            decision = waiting.decision(limits.tool_decision_time) => decision,
                            cut = cut_short(&mut ending, turn_deadline) => {
                                let events = cut_during_calls(&calls, &mut normalizer, &cut.error(limits.max_turn_duration), elapsed());
                                for event in outlet.pass(events, &normalizer) { yield event; }
                                return;
                            }
                        };
                        if decision != Decision::Deny {
                            // What a held tool says now is what the user agreed to.
                            tools.agree(&call.name);
                        }
                        match decision {
                            Decision::AllowOnce => {}
                            Decision::AllowConversation => request.allowed_tools.push(call.name.clone()),
                            Decision::Deny => not_run[at] = Some(declined(crate::turn::tool::DECLINED)),
                        }
                    }
                    // What is left of the turn's tool time bounds each call;
                    // a call cut by it is cancelled (MCP cancellation).
                    let time_left = (!limits.max_tool_time.is_zero())
                        .then(|| limits.max_tool_time.saturating_sub(tool_time));
                    let round_started = tokio::time::Instant::now();
                    let running = futures::future::join_all(calls.iter().zip(&not_run).map(|(call, skip)| {
                        let tools = &tools;
                        async move {
                            let Some(outcome) = skip else {
                                let call = tools.call(&call.name, call.arguments.as_ref().map_err(String::as_str));
                                return match time_left {
                                    Some(left) => tokio::time::timeout(left, call).await.unwrap_or_else(|_| {
                                        cut_by_tool_time(limits.max_tool_time, left)
                                    }),
                                    None => call.await,
                                };
                            };
                            outcome.clone()
                        }
                    }));
                    let outcomes = tokio::select! {
                        outcomes = running => outcomes,
                        cut = cut_short(&mut ending, turn_deadline) => {
                            let events = cut_during_calls(&calls, &mut normalizer, &cut.error(limits.max_turn_duration), elapsed());
                            for event in outlet.pass(events, &normalizer) { yield event; }
                            return;
                        }
                    };
                    calls_made += calls.len();
                    tool_time += round_started.elapsed();
                    for (call, outcome) in calls.iter().zip(outcomes) {
                        request.messages.push(crate::turn::ChatMessage::tool_result(
                            call.id.clone(),
                            outcome.output.clone(),
                            outcome.status.is_error(),
                        ));
                        let event = TurnEvent::ToolResult {
                            id: call.id.clone(),
                            status: outcome.status,
                            output: outcome.output,
                            truncated_bytes: outcome.truncated_bytes,
                            duration_ms: outcome.duration_ms,
                        };
                        for event in outlet.pass(vec![event], &normalizer) { yield event; }
                    }
                    if over_limit || out_of_time {
                        let reason = if over_limit { TOOL_LIMIT } else { TOOL_TIME_LIMIT };
                        let events = normalizer.finish_with(Some(reason.into()), elapsed());
                        for event in outlet.pass(events, &normalizer) { yield event; }
                        return;
                    }
                    let reopened = tokio::select! {
                        opened = tokio::time::timeout(config.first_token_timeout, open(&model, &request, limits.max_turn_bytes, None)) => opened,
                        cut = cut_short(&mut ending, turn_deadline) => {
                            let events = normalizer.fail(&cut.error(limits.max_turn_duration), elapsed());
                            for event in outlet.pass(events, &normalizer) { yield event; }
                            return;
                        }
                    };
                    upstream = match opened_stream(reopened, &first_token_timeout) {
                        Ok(upstream) => upstream,
                        Err(err) => {
                            let events = normalizer.fail(&err, elapsed());
                            for event in outlet.pass(events, &normalizer) { yield event; }
                            return;
                        }
                    };
                    // The next response gets its own first-token deadline:
                    // the time the tools and the user took is not the model's.
                    deadline = tokio::time::Instant::now() + config.first_token_timeout;
                    received_any = false;
                    continue;
                }
                let events = match next {
                    Err(_) if received_any => normalizer.fail(&TurnError::IdleTimeout { limit: config.idle_timeout }, elapsed()),
                    Err(_) => normalizer.fail(&first_token_timeout, elapsed()),
                    Ok(None) => normalizer.end_of_stream(elapsed()),
                    Ok(Some(Err(err))) => normalizer.fail(&err, elapsed()),
                    Ok(Some(Ok(deltas))) => {
                        // Any delta is a sign of life, even one that yields
                        // no event yet (a `<think>` not yet announced).
                        received_any |= !deltas.is_empty();
                        let now = elapsed();
                        let mut events = Vec::new();
                        for delta in deltas {
                            round.observe(&delta);
                            events.extend(normalizer.push(delta, now));
                        }
                        for event in &mut events {
                            if let TurnEvent::ToolCallStart { name, server, .. } = event {
                                *server = tools.server_of(name);
                            }
                        }
                        events
                    }
                };
                for event in outlet.pass(events, &normalizer) { yield event; }
                if normalizer.has_ended() { break; }
            }
        };
        InSpan::new(span, turn)
    }
}

/// The stream `open` gave within its deadline, or the error the turn ends
/// with (`on_timeout` when the deadline passed first).
fn opened_stream(
    opened: Result<Result<DeltaStream, TurnError>, tokio::time::error::Elapsed>,
    on_timeout: &TurnError,
) -> Result<DeltaStream, TurnError> {
    opened.unwrap_or_else(|_| Err(on_timeout.clone()))
}

/// `done.finish_reason` of a turn stopped at the tool-call limit.
pub(crate) const TOOL_LIMIT: &str = "tool_limit";

/// `done.finish_reason` of a turn stopped at its limit of tool time.
pub(crate) const TOOL_TIME_LIMIT: &str = "tool_time_limit";

/// What the model hears when it calls a tool that was not offered to it.
const SWITCHED_OFF: &str = "That tool is switched off in this conversation.";

/// The result of a call the user declined (or did not answer in time).
fn declined(why: &str) -> super::tools::CallOutcome {
    super::tools::CallOutcome {
        status: crate::turn::ToolStatus::Denied,
        output: why.to_owned(),
        truncated_bytes: 0,
        duration_ms: 0,
    }
}

/// The result of a call the limit kept from running.
fn limit_reached(limit: usize) -> super::tools::CallOutcome {
    super::tools::CallOutcome {
        status: crate::turn::ToolStatus::Cancelled,
        output: format!("Not run: the turn reached its limit of {limit} tool calls."),
        truncated_bytes: 0,
        duration_ms: 0,
    }
}

/// The result of a call asked for after the turn's tools used up their time.
fn out_of_tool_time(limit: Duration) -> super::tools::CallOutcome {
    super::tools::CallOutcome {
        status: crate::turn::ToolStatus::Cancelled,
        output: format!(
            "Not run: the turn reached its limit of {} of tool time.",
            crate::turn::turn_footer::spoken_duration(limit.as_secs())
        ),
        truncated_bytes: 0,
        duration_ms: 0,
    }
}

/// The result of a call still running when the turn's tool time ran out
/// (`left` of it remained when the call started).
fn cut_by_tool_time(limit: Duration, left: Duration) -> super::tools::CallOutcome {
    super::tools::CallOutcome {
        status: crate::turn::ToolStatus::Cancelled,
        output: format!(
            "Cancelled: the turn reached its limit of {} of tool time.",
            crate::turn::turn_footer::spoken_duration(limit.as_secs())
        ),
        truncated_bytes: 0,
        duration_ms: left.as_millis() as u64,
    }
}

/// The turn was cut short (shutdown, the turn's time) while `calls` waited
/// or ran: each gets its `cancelled` result, then the turn its error.
fn cut_during_calls(
    calls: &[super::tool_round::ReadyCall],
    normalizer: &mut Normalizer,
    error: &TurnError,
    now_ms: u64,
) -> Vec<TurnEvent> {
    let mut events: Vec<TurnEvent> = calls
        .iter()
        .map(|call| TurnEvent::ToolResult {
            id: call.id.clone(),
            status: crate::turn::ToolStatus::Cancelled,
            output: "The call was cancelled.".into(),
            truncated_bytes: 0,
            duration_ms: 0,
        })
        .collect();
    events.extend(normalizer.fail(error, now_ms));
    events
}

/// The wire dialect of a model (`None` for the demo).
fn dialect_of(model: &ModelConfig) -> Option<Dialect> {
    match model.provider {
        ProviderKind::Wire(dialect) => Some(dialect),
        ProviderKind::Demo => None,
    }
}

/// Whether Pensive offers tools to this model: every dialect has its loop;
/// a model configured with `tools = false` (a server that cannot take
/// them) gets none.
fn offers_tools(model: &ModelConfig) -> bool {
    !model.upstream.no_tools
}

/// Whether a refusal is a server's "no tools here" (vLLM without
/// `--enable-auto-tool-choice`: "\"auto\" tool choice requires
/// --enable-auto-tool-choice and --tool-call-parser to be set",
/// soapbucket/sbproxy#591; llama.cpp without `--jinja`): the turn is asked
/// again without tools rather than failing every time.
fn refused_tools(error: &TurnError) -> bool {
    let said = error.to_string().to_ascii_lowercase();
    matches!(error.kind(), crate::turn::ErrorKind::BadRequest) && said.contains("tool")
}

/// Opens the model's stream: the scripted demo, or its provider (see
/// `providers::open` for `max_bytes`).
async fn open(
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

/// Where a turn's events leave the server: each is counted in the turn's log
/// line (reasoning included), then, with the kill switch on, filtered.
struct Outlet {
    /// Counts the turn in `active_turns` while its stream exists.
    _active: ActiveTurn,
    /// Keeps the turn reachable by "Answer now" while its stream exists.
    _answer_now: Option<Registered>,
    log: TurnLog,
    hidden: Option<HiddenThinking>,
    /// Where the model's reasoning comes from, said once before the first
    /// block opens (then `None`).
    source: Option<ReasoningSource>,
    /// The model's key, URL and host, kept out of error messages (which may
    /// quote the provider) before they are logged or sent.
    redactor: Redactor,
    /// The output limit sent upstream, named in `done` (a cut answer says it).
    output_limit: Option<u32>,
    /// The configured tool-call limit, named in a `tool_limit` `done` in
    /// place of the output limit (the page says "Stopped at the limit of N").
    tool_call_limit: Option<u32>,
    /// The turn's limit of tool time in seconds, named in a
    /// `tool_time_limit` `done` the same way.
    tool_time_limit_secs: Option<u32>,
}

impl Outlet {
    /// The events the browser gets of `events`, just produced by `normalizer`.
    fn pass(&mut self, events: Vec<TurnEvent>, normalizer: &Normalizer) -> Vec<TurnEvent> {
        let events = events
            .into_iter()
            .map(|event| match self.redactor.event(event) {
                TurnEvent::Done { finish_reason, .. } => TurnEvent::Done {
                    output_limit: match finish_reason.as_deref() {
                        Some(TOOL_LIMIT) => self.tool_call_limit,
                        Some(TOOL_TIME_LIMIT) => self.tool_time_limit_secs,
                        _ => self.output_limit,
                    },
                    finish_reason,
                },
                other => other,
            })
            .collect();
        let mut out = self.filter(events, normalizer);
        if self.source.is_some() {
            if let Some(at) = out
                .iter()
                .position(|e| matches!(e, TurnEvent::ThinkingStart))
            {
                if let Some(source) = self.source.take() {
                    out.insert(at, TurnEvent::ReasoningSource { source });
                }
            }
        }
        out
    }

    /// `events` as logged, then as the kill switch lets them through.
    fn filter(&mut self, events: Vec<TurnEvent>, normalizer: &Normalizer) -> Vec<TurnEvent> {
        for event in &events {
            self.log.record(event);
        }
        let Some(hidden) = self.hidden.as_mut() else {
            return events;
        };
        let mut out = Vec::with_capacity(events.len());
        for event in events {
            hidden.push(event, &mut out);
        }
        // The exact moment answer text can no longer turn into reasoning is
        // the tag extractor's to know; asking costs nothing per chunk. A model
        // without tags, or starting inside a block, is never held at all.
        if !normalizer.lone_close_possible() {
            hidden.release(&mut out);
        }
        out
    }
}

/// Resolves once running turns must end (never, if the service is dropped
/// without a shutdown: a closed channel is not a signal).
async fn ended(ending: &mut tokio::sync::watch::Receiver<bool>) {
    if ending.wait_for(|ending| *ending).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Why a turn was ended from outside its stream.
enum Cut {
    /// The server is shutting down and the grace period is over.
    Shutdown,
    /// The turn ran for `PENSIVE_MAX_TURN_SECS`.
    OverTime,
}

impl Cut {
    /// The error the turn ends with.
    fn error(self, max_duration: Duration) -> TurnError {
        match self {
            Cut::Shutdown => TurnError::Shutdown,
            Cut::OverTime => TurnError::OverTime {
                limit: max_duration,
            },
        }
    }
}

/// Resolves when a running turn must end: a shutdown, or its deadline (none:
/// no limit).
async fn cut_short(
    ending: &mut tokio::sync::watch::Receiver<bool>,
    deadline: Option<tokio::time::Instant>,
) -> Cut {
    let over_time = async {
        match deadline {
            Some(deadline) => tokio::time::sleep_until(deadline).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = ended(ending) => Cut::Shutdown,
        _ = over_time => Cut::OverTime,
    }
}

/// Most messages a request may carry.
pub(crate) const MAX_MESSAGES: usize = 500;
/// Most characters in one message.
pub(crate) const MAX_MESSAGE_CHARS: usize = 200_000;

/// Checks the request before any upstream call: `Ok` is the model and the
/// effort the turn runs at; `Err` is the error to stream.
fn validate<'c>(
    config: &'c AppConfig,
    request: &ChatRequest,
) -> Result<(&'c ModelConfig, Option<Effort>), TurnError> {
    let model = config
        .model(request.model.as_deref())
        .ok_or_else(|| TurnError::UnknownModel(request.model.clone().unwrap_or_default()))?;
    let effort = match (request.effort, &request.reasoning_so_far) {
        // "Answer now" asked again, or "Continue": the effort at which the
        // model does not think again.
        (None, Some(_)) => answer_now::weakest(model),
        (None, None) if request.continue_answer => answer_now::weakest(model),
        (asked, _) => effort_for(model, asked)?,
    };
    if request.messages.len() > MAX_MESSAGES {
        return Err(TurnError::TooManyMessages {
            count: request.messages.len(),
            limit: MAX_MESSAGES,
        });
    }
    if let Some(long) = request
        .messages
        .iter()
        .find(|m| m.content.chars().count() > MAX_MESSAGE_CHARS)
    {
        return Err(TurnError::MessageTooLong {
            chars: long.content.chars().count(),
            limit: MAX_MESSAGE_CHARS,
        });
    }
    match request.messages.last() {
        None => Err(TurnError::NoMessages),
        // "Continue" on a turn stopped at the tool-call limit: the loop goes
        // on from its last results.
        Some(last) if request.continue_answer && last.role == Role::Tool => Ok((model, effort)),
        Some(last) if last.role != Role::User || last.content.trim().is_empty() => {
            Err(TurnError::LastMessageNotFromUser)
        }
        Some(_) => Ok((model, effort)),
    }
}

/// The effort a turn runs at: the one asked for if the model takes it, else
/// its default; a word it does not take is refused, naming the ones it does.
fn effort_for(model: &ModelConfig, asked: Option<Effort>) -> Result<Option<Effort>, TurnError> {
    let offered = &model.upstream.efforts;
    match asked {
        None => Ok(model.upstream.default_effort),
        Some(effort) if offered.contains(&effort) => Ok(Some(effort)),
        Some(effort) if offered.is_empty() => Err(TurnError::Refused(format!(
            "{} takes no reasoning effort setting; send the request without \"effort\" (asked: {effort}).",
            model.label
        ))),
        Some(effort) => Err(TurnError::Refused(format!(
            "{} does not take the reasoning effort \"{effort}\"; it takes {}.",
            model.label,
            list_words(offered)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::mock::scripted::Pace;
    use crate::turn::{ChatMessage, ErrorKind};

    fn ask(model: Option<&str>, effort: Option<Effort>) -> ChatRequest {
        ChatRequest {
            messages: vec![ChatMessage::user("Why?")],
            model: model.map(str::to_owned),
            effort,
            ..ChatRequest::default()
        }
    }

    #[tokio::test]
    async fn the_demo_model_with_thinking_off_only_answers() {
        let config = AppConfig {
            models: vec![ModelConfig::demo(Pace::INSTANT)],
            ..AppConfig::from_lookup(|_| None).unwrap()
        };
        let service = TurnService::new(config);
        let events: Vec<TurnEvent> = service
            .start(ask(None, Some(Effort::Off)), "c")
            .collect()
            .await;
        assert!(
            matches!(events.last(), Some(TurnEvent::Done { .. })),
            "{events:?}"
        );
        assert!(events
            .iter()
            .any(|e| matches!(e, TurnEvent::AnswerDelta { .. })));
        assert!(!events.iter().any(|e| matches!(e, TurnEvent::ThinkingStart)));
        // Nothing counted as reasoning either (the page would show "Reasoned for").
        assert!(!events.iter().any(|e| matches!(
            e,
            TurnEvent::Usage(u) if u.reasoning_tokens.is_some_and(|n| n > 0)
        )));
        // Asked again after "Answer now": the script still answers the
        // question itself, not the reasoning handed back.
        let mut again = ask(None, None);
        again.reasoning_so_far = Some("Let me see".into());
        let answered: String = service
            .start(again, "c")
            .filter_map(|e| async move {
                match e {
                    TurnEvent::AnswerDelta { text } => Some(text),
                    _ => None,
                }
            })
            .collect()
            .await;
        assert!(answered.contains("*Why?*"), "{answered}");
        assert!(!answered.contains("Let me see"), "{answered}");
        let thinking: Vec<TurnEvent> = service.start(ask(None, None), "c").collect().await;
        assert!(thinking
            .iter()
            .any(|e| matches!(e, TurnEvent::ThinkingStart)));
        // Where the reasoning comes from is said once, right before the first block.
        let first_block = thinking
            .iter()
            .position(|e| matches!(e, TurnEvent::ThinkingStart))
            .unwrap();
        assert_eq!(
            thinking[first_block - 1],
            TurnEvent::ReasoningSource {
                source: ReasoningSource::Full
            }
        );
        let sources = thinking
            .iter()
            .filter(|e| matches!(e, TurnEvent::ReasoningSource { .. }))
            .count();
        assert_eq!(sources, 1);
        crate::turn::contract::check_stream(&thinking).unwrap();
    }

    #[test]
    fn an_effort_the_model_does_not_take_is_refused_naming_the_ones_it_does() {
        let mut config = AppConfig::from_lookup(|_| None).unwrap();
        let mut plain = ModelConfig::demo(Pace::INSTANT);
        plain.id = "plain".into();
        plain.label = "Plain".into();
        plain.upstream.efforts.clear();
        plain.upstream.default_effort = None;
        config.models.push(plain);
        let (_, effort) = validate(&config, &ask(None, None)).unwrap();
        assert_eq!(effort, Some(Effort::Medium), "the default");
        let (_, effort) = validate(&config, &ask(None, Some(Effort::Off))).unwrap();
        assert_eq!(effort, Some(Effort::Off));
        let refused = validate(&config, &ask(None, Some(Effort::Max))).unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::BadRequest);
        assert_eq!(
            refused.user_message(),
            "Demo model (scripted) does not take the reasoning effort \"max\"; it takes off, low, medium or high."
        );
        let (_, effort) = validate(&config, &ask(Some("plain"), None)).unwrap();
        assert_eq!(effort, None);
        let none = validate(&config, &ask(Some("plain"), Some(Effort::Low))).unwrap_err();
        assert_eq!(none.kind(), ErrorKind::BadRequest);
        assert!(none.user_message().contains("takes no reasoning effort"));
    }
}
