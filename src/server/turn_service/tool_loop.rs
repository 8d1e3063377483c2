//! The tool loop of a turn, one round at a time. A response that ended
//! asking for calls becomes a round in three steps, each of which hands its
//! events back for the turn's stream to send:
//!
//! 1. `ToolLoop::announce`: the response's end, its continuity, and one
//!    `tool_call_ready` per call; which calls will not run (a limit reached,
//!    a tool not offered).
//! 2. `ToolLoop::decide`: the calls that ask first wait for the user, one by
//!    one (`POST /api/tool_decision`); a denied one never runs.
//! 3. `ToolLoop::run`, then `ToolLoop::report`: the calls run together under
//!    what is left of the turn's tool time, and each result goes to the
//!    browser and into the next request.
//!
//! A turn cut short while calls wait or run gets a `cancelled` result per
//! call, then its error. Nothing here opens the model again: the turn does.

use std::time::Duration;

use super::call_identity::call_digest;
use super::cut::TurnEnd;
use super::outlet::Outlet;
use super::tool_decisions::{ToolDecisions, Waiting};
use super::tool_round::{ReadyCall, ToolRound};
use crate::server::limits::Limits;
use crate::server::normalizer::Normalizer;
use crate::server::providers::wire::Dialect;
use crate::server::tools::{CallOutcome, ToolBox};
use crate::turn::tool::{FINISH_TOOL_LIMIT, FINISH_TOOL_TIME_LIMIT};
use crate::turn::turn_error::TurnError;
use crate::turn::{Approval, ChatMessage, ChatRequest, Decision, ToolStatus, TurnEvent};

/// What the tool loop keeps for the whole turn: where calls run and wait,
/// the limits, and how much of them the turn has used.
pub(super) struct ToolLoop<'t> {
    tools: &'t ToolBox,
    decisions: &'t ToolDecisions,
    /// The decider whose decisions count and whose agreement releases a
    /// held tool (see `tool_decisions`, `http::client::decider_of`).
    client: &'t str,
    limits: &'t Limits,
    /// Calls made by the earlier rounds of this turn.
    calls_made: usize,
    /// Time the tools of this turn have run (decisions not counted).
    tool_time: Duration,
}

/// The calls of one round, from their announcement to their results.
pub(super) struct Round {
    calls: Vec<ReadyCall>,
    /// Each call's digest, as its `tool_call_ready` showed it.
    digests: Vec<String>,
    /// Whether each call needs the user's approval.
    approvals: Vec<Approval>,
    /// The result of each call that will not run, known before it would.
    not_run: Vec<Option<CallOutcome>>,
    /// The round goes past the turn's tool-call limit: no call runs.
    over_limit: bool,
    /// The turn's tools used up their time: no call runs.
    out_of_time: bool,
    /// Each call that asks first, waiting for the user's decision from
    /// before its step is shown (so a decision can never come too early).
    waits: Vec<Option<Waiting>>,
}

impl<'t> ToolLoop<'t> {
    pub(super) fn new(
        tools: &'t ToolBox,
        decisions: &'t ToolDecisions,
        client: &'t str,
        limits: &'t Limits,
    ) -> Self {
        Self {
            tools,
            decisions,
            client,
            limits,
            calls_made: 0,
            tool_time: Duration::ZERO,
        }
    }

    /// The response ended asking for calls: ends the normalizer's round,
    /// sends the continuity the provider wants back, puts the assistant
    /// message into `request` and announces each call. Returns the round and
    /// its events as the browser gets them.
    pub(super) fn announce(
        &self,
        response: ToolRound,
        dialect: Option<Dialect>,
        request: &mut ChatRequest,
        normalizer: &mut Normalizer,
        outlet: &mut Outlet,
        now_ms: u64,
    ) -> (Round, Vec<TurnEvent>) {
        let mut out = outlet.pass(normalizer.end_round(now_ms), normalizer);
        let own = response.own_continuity(dialect);
        if let Some(data) = own.clone() {
            out.extend(outlet.pass(vec![TurnEvent::Continuity { data }], normalizer));
        }
        let (message, calls) = response.finish(own);
        request.messages.push(message);
        let limits = self.limits;
        let over_limit =
            limits.max_tool_calls > 0 && self.calls_made + calls.len() > limits.max_tool_calls;
        let out_of_time = !limits.max_tool_time.is_zero() && self.tool_time >= limits.max_tool_time;
        // A model may name a tool it was not offered (switched off in
        // this conversation, or remembered from an earlier turn): it
        // never runs and asks no one, and the model is told why. A tool
        // left out because it is held (on a server switched on) is the
        // exception: its call asks, as a held tool's call always does.
        let offered: Vec<bool> = calls
            .iter()
            .map(|call| {
                request.tool_specs.iter().any(|spec| spec.name == call.name)
                    || self
                        .tools
                        .held_for(&call.name, request.tools.as_deref(), self.client)
            })
            .collect();
        let approvals: Vec<Approval> = calls
            .iter()
            .zip(&offered)
            .map(|(call, offered)| {
                if *offered {
                    self.tools.approval_in_conversation(
                        &call.name,
                        &request.allowed_tools,
                        self.client,
                    )
                } else {
                    Approval::NotNeeded
                }
            })
            .collect();
        let mut digests = Vec::with_capacity(calls.len());
        for (call, approval) in calls.iter().zip(&approvals) {
            let arguments = call
                .arguments
                .clone()
                .unwrap_or_else(|_| serde_json::json!({}));
            let digest = call_digest(&call.name, &arguments);
            digests.push(digest.clone());
            let ready = TurnEvent::ToolCallReady {
                id: call.id.clone(),
                arguments,
                approval: *approval,
                digest,
            };
            out.extend(outlet.pass(vec![ready], normalizer));
        }
        let mut not_run: Vec<Option<CallOutcome>> = vec![None; calls.len()];
        if over_limit {
            not_run = calls
                .iter()
                .map(|_| Some(limit_reached(limits.max_tool_calls)))
                .collect();
        } else if out_of_time {
            not_run = calls
                .iter()
                .map(|_| Some(out_of_tool_time(limits.max_tool_time)))
                .collect();
        }
        for (slot, offered) in not_run.iter_mut().zip(&offered) {
            if slot.is_none() && !offered {
                *slot = Some(declined(SWITCHED_OFF));
            }
        }
        let mut round = Round {
            calls,
            digests,
            approvals,
            not_run,
            over_limit,
            out_of_time,
            waits: Vec::new(),
        };
        round.waits = self.start_waiting(&mut round, request.turn_id.as_deref());
        (round, out)
    }

    /// The calls that ask first wait for the user: all of them at once (a
    /// decision on any step shown counts, in any order), each until the
    /// round's decision deadline; a denied one never runs, one allowed for
    /// the conversation joins `request.allowed_tools`. `Err` holds the events
    /// the turn ends with when it is cut short meanwhile (not yet passed to
    /// the outlet).
    pub(super) async fn decide(
        &self,
        round: &mut Round,
        request: &mut ChatRequest,
        end: &mut TurnEnd,
        normalizer: &mut Normalizer,
        elapsed: impl Fn() -> u64,
    ) -> Result<(), Vec<TurnEvent>> {
        let mut waits = std::mem::take(&mut round.waits);
        let deadline = tokio::time::Instant::now() + self.limits.tool_decision_time;
        for (at, call) in round.calls.iter().enumerate() {
            let Some(mut waiting) = waits[at].take() else {
                continue;
            };
            // Allowed for the conversation by an earlier call of this
            // turn (a held tool: allowed, and so no longer held).
            let allowed_since = !self
                .tools
                .approval_in_conversation(&call.name, &request.allowed_tools, self.client)
                .asks();
            if allowed_since {
                continue;
            }
            let decision = tokio::select! {
                decision = waiting.decision_by(deadline) => decision,
                error = end.reached() => {
                    return Err(cut_during_calls(&round.calls, normalizer, &error, elapsed()));
                }
            };
            if decision != Decision::Deny {
                // What a held tool says now is what the user agreed to.
                self.tools.agree(&call.name, self.client);
            }
            match decision {
                Decision::AllowOnce => {}
                Decision::AllowConversation => request.allowed_tools.push(call.name.clone()),
                Decision::Deny => round.not_run[at] = Some(declined(crate::turn::tool::DECLINED)),
            }
        }
        Ok(())
    }

    /// Each call of `round` that asks first starts waiting; without a turn
    /// id no one can be asked, and it is declined. `None` for every call
    /// that does not wait.
    fn start_waiting(&self, round: &mut Round, turn_id: Option<&str>) -> Vec<Option<Waiting>> {
        let mut waits = Vec::with_capacity(round.calls.len());
        for (at, call) in round.calls.iter().enumerate() {
            if round.not_run[at].is_some() || !round.approvals[at].asks() {
                waits.push(None);
                continue;
            }
            let Some(turn_id) = turn_id else {
                round.not_run[at] = Some(declined(
                    "No one could be asked (the request named no turn).",
                ));
                waits.push(None);
                continue;
            };
            let digest = &round.digests[at];
            waits.push(Some(self.decisions.wait(
                self.client,
                turn_id,
                &call.id,
                digest,
            )));
        }
        waits
    }

    /// Runs the round's calls that may run, together; the others get the
    /// result they were given. What is left of the turn's tool time bounds
    /// each call; a call cut by it is cancelled (MCP cancellation). `Err` as
    /// for `decide`.
    pub(super) async fn run(
        &mut self,
        round: &Round,
        end: &mut TurnEnd,
        normalizer: &mut Normalizer,
        elapsed: impl Fn() -> u64,
    ) -> Result<Vec<CallOutcome>, Vec<TurnEvent>> {
        let limits = self.limits;
        let time_left = (!limits.max_tool_time.is_zero())
            .then(|| limits.max_tool_time.saturating_sub(self.tool_time));
        let round_started = tokio::time::Instant::now();
        let tools = self.tools;
        let running = futures::future::join_all(round.calls.iter().zip(&round.not_run).map(
            |(call, skip)| async move {
                let Some(outcome) = skip else {
                    let call =
                        tools.call(&call.name, call.arguments.as_ref().map_err(String::as_str));
                    return match time_left {
                        Some(left) => tokio::time::timeout(left, call)
                            .await
                            .unwrap_or_else(|_| cut_by_tool_time(limits.max_tool_time, left)),
                        None => call.await,
                    };
                };
                outcome.clone()
            },
        ));
        let outcomes = tokio::select! {
            outcomes = running => outcomes,
            error = end.reached() => {
                return Err(cut_during_calls(&round.calls, normalizer, &error, elapsed()));
            }
        };
        self.calls_made += round.calls.len();
        self.tool_time += round_started.elapsed();
        Ok(outcomes)
    }

    /// Each call's result, to the browser and into the next request; at a
    /// limit, the turn's end. Returns the events as the browser gets them,
    /// and whether the turn ended here.
    pub(super) fn report(
        &self,
        round: Round,
        outcomes: Vec<CallOutcome>,
        request: &mut ChatRequest,
        normalizer: &mut Normalizer,
        outlet: &mut Outlet,
        elapsed: impl Fn() -> u64,
    ) -> (Vec<TurnEvent>, bool) {
        let mut out = Vec::new();
        for (call, outcome) in round.calls.iter().zip(outcomes) {
            request.messages.push(ChatMessage::tool_result(
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
            out.extend(outlet.pass(vec![event], normalizer));
        }
        if round.over_limit || round.out_of_time {
            let reason = if round.over_limit {
                FINISH_TOOL_LIMIT
            } else {
                FINISH_TOOL_TIME_LIMIT
            };
            let events = normalizer.finish_with(Some(reason.into()), elapsed());
            out.extend(outlet.pass(events, normalizer));
            return (out, true);
        }
        (out, false)
    }
}

/// What the model hears when it calls a tool that was not offered to it.
const SWITCHED_OFF: &str = "That tool is switched off in this conversation.";

/// The result of a call the user declined (or did not answer in time).
fn declined(why: &str) -> CallOutcome {
    CallOutcome {
        status: ToolStatus::Denied,
        output: why.to_owned(),
        truncated_bytes: 0,
        duration_ms: 0,
    }
}

/// The result of a call the limit kept from running.
fn limit_reached(limit: usize) -> CallOutcome {
    CallOutcome {
        status: ToolStatus::Cancelled,
        output: format!("Not run: the turn reached its limit of {limit} tool calls."),
        truncated_bytes: 0,
        duration_ms: 0,
    }
}

/// The result of a call asked for after the turn's tools used up their time.
fn out_of_tool_time(limit: Duration) -> CallOutcome {
    CallOutcome {
        status: ToolStatus::Cancelled,
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
fn cut_by_tool_time(limit: Duration, left: Duration) -> CallOutcome {
    CallOutcome {
        status: ToolStatus::Cancelled,
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
    calls: &[ReadyCall],
    normalizer: &mut Normalizer,
    error: &TurnError,
    now_ms: u64,
) -> Vec<TurnEvent> {
    let mut events: Vec<TurnEvent> = calls
        .iter()
        .map(|call| TurnEvent::ToolResult {
            id: call.id.clone(),
            status: ToolStatus::Cancelled,
            output: "The call was cancelled.".into(),
            truncated_bytes: 0,
            duration_ms: 0,
        })
        .collect();
    events.extend(normalizer.fail(error, now_ms));
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::providers::delta::Delta;
    use crate::server::redact::Redactor;
    use crate::server::turn_service::active_turns::ActiveTurns;
    use crate::server::turn_service::turn_log::TurnLog;
    use crate::turn::Role;
    use serde_json::json;

    fn outlet() -> Outlet {
        Outlet {
            _active: ActiveTurns::default().enter(),
            _answer_now: None,
            log: TurnLog::new("m", "demo"),
            hidden: None,
            source: None,
            redactor: Redactor::default(),
            output_limit: None,
            tool_call_limit: Some(1),
            tool_time_limit_secs: None,
        }
    }

    /// A response that asked for `names`, each with `{"expression": "1+1"}`.
    fn asking_for(names: &[&str]) -> ToolRound {
        let mut response = ToolRound::default();
        for (n, name) in names.iter().enumerate() {
            let id = format!("call_{n}");
            response.observe(&Delta::ToolCallStart {
                id: id.clone(),
                name: (*name).into(),
            });
            response.observe(&Delta::ToolCallWhole {
                id,
                arguments: json!({"expression": "1+1"}),
            });
        }
        response
    }

    fn request(tools: &ToolBox) -> ChatRequest {
        ChatRequest {
            messages: vec![ChatMessage::user("Add")],
            tool_specs: tools.offered(None),
            ..ChatRequest::default()
        }
    }

    #[tokio::test]
    async fn a_round_past_the_call_limit_runs_nothing_and_ends_the_turn() {
        let tools = ToolBox::default();
        let decisions = ToolDecisions::default();
        let limits = Limits {
            max_tool_calls: 1,
            ..Limits::default()
        };
        let mut tool_loop = ToolLoop::new(&tools, &decisions, "c", &limits);
        let (mut request, mut normalizer, mut outlet) =
            (request(&tools), Normalizer::default(), outlet());
        let names = ["builtin__calculate", "builtin__calculate"];
        let (mut round, announced) = tool_loop.announce(
            asking_for(&names),
            None,
            &mut request,
            &mut normalizer,
            &mut outlet,
            0,
        );
        let ready = announced
            .iter()
            .filter(|e| matches!(e, TurnEvent::ToolCallReady { .. }))
            .count();
        assert_eq!(ready, 2, "{announced:?}");
        assert_eq!(
            request.messages.last().map(|m| m.role),
            Some(Role::Assistant)
        );
        let (_, ending) = tokio::sync::watch::channel(false);
        let mut end = TurnEnd::new(ending, tokio::sync::watch::channel(false).1, Duration::ZERO);
        let decided = tool_loop
            .decide(&mut round, &mut request, &mut end, &mut normalizer, || 0)
            .await;
        assert!(decided.is_ok());
        let outcomes = tool_loop
            .run(&round, &mut end, &mut normalizer, || 0)
            .await
            .unwrap();
        assert!(outcomes.iter().all(|o| o.status == ToolStatus::Cancelled
            && o.output == "Not run: the turn reached its limit of 1 tool calls."));
        let (reported, ended) = tool_loop.report(
            round,
            outcomes,
            &mut request,
            &mut normalizer,
            &mut outlet,
            || 0,
        );
        assert!(ended);
        assert_eq!(
            reported.last(),
            Some(&TurnEvent::Done {
                finish_reason: Some(FINISH_TOOL_LIMIT.into()),
                output_limit: Some(1),
            })
        );
        let results = request
            .messages
            .iter()
            .filter(|m| m.role == Role::Tool)
            .count();
        assert_eq!(results, 2, "each call's result goes back to the model");
    }

    #[tokio::test]
    async fn a_tool_not_offered_never_runs_and_the_model_hears_why() {
        let tools = ToolBox::default();
        let decisions = ToolDecisions::default();
        let limits = Limits::default();
        let mut tool_loop = ToolLoop::new(&tools, &decisions, "c", &limits);
        let (mut request, mut normalizer, mut outlet) =
            (request(&tools), Normalizer::default(), outlet());
        let (mut round, announced) = tool_loop.announce(
            asking_for(&["builtin__calculate", "elsewhere__erase"]),
            None,
            &mut request,
            &mut normalizer,
            &mut outlet,
            0,
        );
        let approvals: Vec<Approval> = announced
            .iter()
            .filter_map(|e| match e {
                TurnEvent::ToolCallReady { approval, .. } => Some(*approval),
                _ => None,
            })
            .collect();
        assert_eq!(approvals[1], Approval::NotNeeded, "it asks no one");
        let (_, ending) = tokio::sync::watch::channel(false);
        let mut end = TurnEnd::new(ending, tokio::sync::watch::channel(false).1, Duration::ZERO);
        tool_loop
            .decide(&mut round, &mut request, &mut end, &mut normalizer, || 0)
            .await
            .unwrap();
        let outcomes = tool_loop
            .run(&round, &mut end, &mut normalizer, || 0)
            .await
            .unwrap();
        assert_eq!(outcomes[0].status, ToolStatus::Ok, "{:?}", outcomes[0]);
        assert_eq!(outcomes[1].status, ToolStatus::Denied);
        assert_eq!(outcomes[1].output, SWITCHED_OFF);
        let (_, ended) = tool_loop.report(
            round,
            outcomes,
            &mut request,
            &mut normalizer,
            &mut outlet,
            || 0,
        );
        assert!(!ended, "the model is asked again");
    }
}
