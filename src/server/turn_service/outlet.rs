//! Where a turn's events leave the server: every event is counted in the
//! turn's log line, redacted of the provider's secrets, given the limit a
//! `done` names, filtered by the kill switch, and preceded once by where the
//! model's reasoning comes from.

use super::active_turns::ActiveTurn;
use super::answer_now::Registered;
use super::turn_log::TurnLog;
use crate::server::hidden_thinking::HiddenThinking;
use crate::server::normalizer::Normalizer;
use crate::server::redact::Redactor;
use crate::turn::tool::{FINISH_TOOL_LIMIT, FINISH_TOOL_TIME_LIMIT};
use crate::turn::{ReasoningSource, TurnEvent};

/// Where a turn's events leave the server: each is counted in the turn's log
/// line (reasoning included), then, with the kill switch on, filtered.
pub(super) struct Outlet {
    /// Counts the turn in `active_turns` while its stream exists.
    pub(super) _active: ActiveTurn,
    /// Keeps the turn reachable by "Answer now" while its stream exists.
    pub(super) _answer_now: Option<Registered>,
    pub(super) log: TurnLog,
    pub(super) hidden: Option<HiddenThinking>,
    /// Where the model's reasoning comes from, said once before the first
    /// block opens (then `None`).
    pub(super) source: Option<ReasoningSource>,
    /// The model's key, URL and host, kept out of error messages (which may
    /// quote the provider) before they are logged or sent.
    pub(super) redactor: Redactor,
    /// The output limit sent upstream, named in `done` (a cut answer says it).
    pub(super) output_limit: Option<u32>,
    /// The configured tool-call limit, named in a `tool_limit` `done` in
    /// place of the output limit (the page says "Stopped at the limit of N").
    pub(super) tool_call_limit: Option<u32>,
    /// The turn's limit of tool time in seconds, named in a
    /// `tool_time_limit` `done` the same way.
    pub(super) tool_time_limit_secs: Option<u32>,
}

impl Outlet {
    /// The events the browser gets of `events`, just produced by `normalizer`.
    pub(super) fn pass(
        &mut self,
        events: Vec<TurnEvent>,
        normalizer: &Normalizer,
    ) -> Vec<TurnEvent> {
        let events = events
            .into_iter()
            .map(|event| match self.redactor.event(event) {
                TurnEvent::Done { finish_reason, .. } => TurnEvent::Done {
                    output_limit: match finish_reason.as_deref() {
                        Some(FINISH_TOOL_LIMIT) => self.tool_call_limit,
                        Some(FINISH_TOOL_TIME_LIMIT) => self.tool_time_limit_secs,
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
