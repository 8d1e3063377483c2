//! Helpers shared by the dialect tests: short delta constructors, SSE
//! splitting through the project's own framer, and what a delta list becomes.

use super::wire::Decoder;
use crate::server::normalizer::Normalizer;
use crate::server::providers::delta::Delta;
use crate::server::providers::framing::WireEvent;
use crate::server::providers::framing::{Framer, Framing};
use crate::turn::TurnEvent;

pub fn r(text: &str) -> Delta {
    Delta::Reasoning(text.into())
}

pub fn a(text: &str) -> Delta {
    Delta::Answer(text.into())
}

/// Splits SSE text into (event name, data) pairs with the real framer.
pub(crate) fn sse_events(text: &str) -> Vec<(Option<String>, String)> {
    let mut framer = Framer::new(Framing::Sse);
    let mut framed = framer.push(text.as_bytes());
    framed.extend(framer.finish());
    framed
        .into_iter()
        .map(|f| f.expect("fixture frames cleanly"))
        .map(|f| (f.event, f.data))
        .collect()
}

/// Runs deltas through the normalizer; returns the thinking block count.
pub fn blocks(deltas: &[Delta]) -> usize {
    let mut normalizer = Normalizer::default();
    let mut events = Vec::new();
    for d in deltas {
        events.extend(normalizer.push(d.clone(), 0));
    }
    events.extend(normalizer.finish(0));
    events
        .iter()
        .filter(|e| matches!(e, TurnEvent::ThinkingStart))
        .count()
}

/// The concatenated reasoning and answer text of deltas.
pub fn texts(deltas: &[Delta]) -> (String, String) {
    let (mut reasoning, mut answer) = (String::new(), String::new());
    for d in deltas {
        match d {
            Delta::Reasoning(t) => reasoning.push_str(t),
            Delta::Answer(t) => answer.push_str(t),
            _ => {}
        }
    }
    (reasoning, answer)
}

/// Decodes wire events in order with one `decoder`: each is `(name, data)`,
/// the name only for the SSE dialects that name their events.
pub(crate) fn decode_events<'e>(
    decoder: &mut dyn Decoder,
    events: impl IntoIterator<Item = (Option<&'e str>, &'e str)>,
) -> Vec<Delta> {
    events
        .into_iter()
        .flat_map(|(name, data)| {
            decoder
                .decode(&WireEvent::new(name, data))
                .expect("fixture decodes")
        })
        .collect()
}

/// Decodes one unnamed wire event (a JSON line, or an SSE event's data)
/// with a fresh decoder of the dialect.
pub(crate) fn decode_one<D: Decoder + Default>(data: &str) -> Vec<Delta> {
    decode_events(&mut D::default(), [(None, data)])
}

/// Decodes a whole SSE recording with `decoder`.
pub(crate) fn decode_sse(decoder: &mut dyn Decoder, text: &str) -> Vec<Delta> {
    let events = sse_events(text);
    decode_events(
        decoder,
        events
            .iter()
            .map(|(name, data)| (name.as_deref(), data.as_str())),
    )
}

/// A decoder feeding a normalizer, one wire event at a time at a given time:
/// what a dialect's first-sign tests need to see when a block opens and closes.
pub(crate) struct Timed<D: Decoder> {
    decoder: D,
    normalizer: Normalizer,
}

impl<D: Decoder> Timed<D> {
    pub fn new(decoder: D) -> Self {
        Self {
            decoder,
            normalizer: Normalizer::default(),
        }
    }

    /// The events one wire event (named `event`, for SSE dialects that name
    /// theirs) produces at `ms`.
    pub fn at(&mut self, ms: u64, event: Option<&str>, data: &str) -> Vec<TurnEvent> {
        let deltas = self
            .decoder
            .decode(&WireEvent::new(event, data))
            .expect("the test's wire event decodes");
        deltas
            .into_iter()
            .flat_map(|d| self.normalizer.push(d, ms))
            .collect()
    }
}
