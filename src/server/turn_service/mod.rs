//! The turn service (`TurnService`): runs one turn — picks the model, opens
//! its stream, feeds the normalizer and yields `TurnEvent`s. `start_for`
//! gathers the turn's parts and hands them to `driver`, one loop with one
//! exit for failures, polled inside the returned stream: dropping the stream
//! drops the upstream request too. Over HTTP a turn is driven to its end by
//! a task of its own into its log, which responses only read (`runs`,
//! `detached`): a client that goes away cancels nothing, Stop does.
//!
//! The turn's parts live beside it: the request's checks
//! (`request_checks`), opening the model (`upstream`), what ends a turn from
//! outside (`cut`), the tool loop's rounds (`tool_loop`, gathering one
//! response's calls in `tool_round`, waiting on the user in
//! `tool_decisions`), Answer now (`answer_now`) and Continue
//! (`continuation`), the turns running per client (`active_turns`), the
//! turn's log line and span (`turn_log`), and where events leave the server
//! (`outlet`).

pub(crate) mod active_turns;
pub mod answer_now;
pub(crate) mod call_identity;
pub(crate) mod continuation;
mod cut;
pub(crate) mod detached;
mod driver;
mod outlet;
mod request_checks;
pub(crate) mod runs;
pub(crate) mod tool_decisions;
mod tool_loop;
pub(crate) mod tool_round;
pub(crate) mod turn_log;
mod upstream;

use async_stream::stream;
use futures::Stream;

use self::active_turns::ActiveTurns;
use self::answer_now::AnswerNowRegistry;
use self::tool_decisions::ToolDecisions;
use self::turn_log::{InSpan, TurnLog};
use super::config::{AppConfig, ProviderKind};
use super::hidden_thinking::HiddenThinking;
use super::limits::TurnLimiter;
use super::providers::reasoning;
use super::redact::Redactor;
use super::tools::ToolBox;
use crate::turn::tool::ShownCall;
use crate::turn::{AnswerNow, ChatRequest, Decision, TurnEvent};
use outlet::Outlet;
use request_checks::validate;

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
    /// The turns run to their end, and their logs.
    runs: runs::Runs,
    /// The Redis replicas share (`PENSIVE_REDIS_URL`).
    shared: Option<crate::server::shared::SharedRedis>,
}

impl TurnService {
    /// The service for `config`; with `PENSIVE_REDIS_URL`, one replica of
    /// several sharing turns through Redis (it then listens for controls
    /// and watches leases on the current runtime).
    pub fn new(config: AppConfig) -> Self {
        let redis = config.limits.redis_url.as_ref().and_then(|url| {
            crate::server::shared::SharedRedis::open(url.expose())
                .inspect_err(|err| tracing::error!(%err, "PENSIVE_REDIS_URL cannot be used; turns stay in this process"))
                .ok()
        });
        let service = Self {
            ending: tokio::sync::watch::Sender::new(false),
            runs: runs::Runs::new(
                config.limits.retention(),
                config.limits.max_turn_bytes,
                redis.clone(),
            ),
            limiter: TurnLimiter::new(config.limits.clone()).shared_through(redis.clone()),
            shared: redis,
            config: std::sync::Arc::new(config),
            active: Default::default(),
            answers: Default::default(),
            tools: ToolBox::default(),
            decisions: ToolDecisions::default(),
        };
        service
            .runs
            .store()
            .start_background(service.control_handler());
        service
    }

    /// How this replica acts on a control another replica passed on.
    fn control_handler(&self) -> runs::control::Handler {
        use runs::control::{Control, Reply};
        let runs = self.runs.clone();
        let decisions = self.decisions.clone();
        let answers = self.answers.clone();
        std::sync::Arc::new(move |control| {
            let (runs, decisions, answers) = (runs.clone(), decisions.clone(), answers.clone());
            Box::pin(async move {
                match control {
                    Control::Stop { turn_id } => match runs.held_turn(&turn_id) {
                        Some(run) => {
                            runs.stop(&run).await;
                            Reply::Taken { taken: true }
                        }
                        None => Reply::Taken { taken: false },
                    },
                    Control::Decide {
                        decider,
                        turn_id,
                        call,
                        decision,
                    } => Reply::Taken {
                        taken: decisions.decide(&decider, &turn_id, &call, decision),
                    },
                    Control::AnswerNow { turn_id, client } => {
                        if answers.holds(&turn_id, &client) {
                            Reply::AnswerNow {
                                answer: answers.answer_now(&turn_id, &client).await,
                            }
                        } else {
                            Reply::Taken { taken: false }
                        }
                    }
                }
            })
        })
    }

    /// The service with `tools` (MCP servers connected at start).
    pub fn with_tools(mut self, tools: ToolBox) -> Self {
        if let Some(redis) = &self.shared {
            tools.share_agreements(redis.clone());
        }
        self.tools = tools;
        self
    }

    /// The tools turns may call.
    pub fn tools(&self) -> &ToolBox {
        &self.tools
    }

    /// `decider`'s decision on the call `shown` of its running turn
    /// `turn_id`; false when no such call waits, or the call that waits is
    /// not the one shown (`tool_decisions`).
    pub fn tool_decision(
        &self,
        decider: &str,
        turn_id: &str,
        shown: &ShownCall,
        decision: Decision,
    ) -> bool {
        self.decisions.decide(decider, turn_id, shown, decision)
    }

    /// "Answer now" for `client`'s running turn `turn_id` (the request's
    /// `turn_id`): ends its thinking where the provider can (llama.cpp; the
    /// same stream goes on with the answer), else says to ask again with
    /// `reasoning_so_far` (see `answer_now`).
    pub async fn answer_now(&self, turn_id: &str, client: &str) -> AnswerNow {
        if !self.answers.holds(turn_id, client) {
            let control = runs::control::Control::AnswerNow {
                turn_id: turn_id.to_owned(),
                client: client.to_owned(),
            };
            if let Some(runs::control::Reply::AnswerNow { answer }) =
                self.runs.store().send(turn_id, control).await
            {
                return answer;
            }
        }
        self.answers.answer_now(turn_id, client).await
    }

    /// `tool_decision`, passed on to the replica that runs the turn when it
    /// does not run here (`PENSIVE_REDIS_URL`); true only when the waiting
    /// call took it.
    pub async fn tool_decision_anywhere(
        &self,
        decider: &str,
        turn_id: &str,
        shown: &ShownCall,
        decision: Decision,
    ) -> bool {
        if self.tool_decision(decider, turn_id, shown, decision) {
            return true;
        }
        if self.runs.held_turn(turn_id).is_some() {
            return false;
        }
        let control = runs::control::Control::Decide {
            decider: decider.to_owned(),
            turn_id: turn_id.to_owned(),
            call: shown.clone(),
            decision,
        };
        matches!(
            self.runs.store().send(turn_id, control).await,
            Some(runs::control::Reply::Taken { taken: true })
        )
    }

    /// Forgets the per-client counts of clients that went quiet (see
    /// `pruning`).
    pub(crate) fn prune_clients(&self, now: tokio::time::Instant) {
        self.limiter.prune(now);
        self.runs.sweep(now);
    }

    /// Turns held for pages (running and finished within their retention)
    /// and the bytes their logs hold.
    pub fn held_turns(&self) -> (usize, usize) {
        self.runs.held()
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
        request: ChatRequest,
        client: &str,
    ) -> impl Stream<Item = TurnEvent> + Send + 'static {
        self.start_for(request, client, client)
    }

    /// `start`, with the turn's tool decisions and held tools answered by
    /// `decider` (see `http::client::decider_of`) rather than the client.
    pub fn start_for(
        &self,
        request: ChatRequest,
        client: &str,
        decider: &str,
    ) -> impl Stream<Item = TurnEvent> + Send + 'static {
        // Nothing stops this one but its own end, a shutdown or a drop.
        let (_no_stop, never) = tokio::sync::watch::channel(false);
        self.stoppable(request, client, decider, never)
    }

    /// `start_for`, ended early with `stopped` when `stop` flips to true.
    fn stoppable(
        &self,
        mut request: ChatRequest,
        client: &str,
        decider: &str,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> impl Stream<Item = TurnEvent> + Send + 'static {
        let config = self.config.clone();
        let show_thinking = config.show_thinking;
        let ending = self.ending.subscribe();
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
        let outlet = Outlet {
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
        let span = tracing::info_span!(
            "turn",
            turn_id = request.turn_id.as_deref().unwrap_or("-"),
            model = checked.as_ref().map(|(m, ..)| m.id.as_str()).unwrap_or("?"),
            client = %client,
        );
        let parts = driver::Parts {
            config,
            request,
            checked,
            completion_id,
            outlet,
            tools: self.tools.clone(),
            decisions: self.decisions.clone(),
            decider: decider.to_owned(),
            limiter: self.limiter.clone(),
            client: client.to_owned(),
            ending,
            stop,
        };
        // The turn is driven inside the stream (no task of its own), so
        // dropping the stream drops the turn and its provider request.
        let turn = stream! {
            let (sender, mut batches) = tokio::sync::mpsc::unbounded_channel();
            let driving = driver::drive(parts, move |batch: Vec<TurnEvent>| {
                let _ = sender.send(batch);
            });
            tokio::pin!(driving);
            let mut driven = false;
            loop {
                let batch = tokio::select! {
                    biased;
                    batch = batches.recv() => batch,
                    () = &mut driving, if !driven => {
                        driven = true;
                        continue;
                    }
                };
                // None: the turn is driven to its end and every batch is out.
                let Some(batch) = batch else { break };
                for event in batch {
                    yield event;
                }
            }
        };
        InSpan::new(span, turn)
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;

    use super::*;
    use crate::server::config::ModelConfig;
    use crate::server::mock::scripted::Pace;
    use crate::turn::{ChatMessage, Effort, ReasoningSource};

    /// A one-question request naming `model` and `effort`.
    pub(super) fn ask(model: Option<&str>, effort: Option<Effort>) -> ChatRequest {
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
}
