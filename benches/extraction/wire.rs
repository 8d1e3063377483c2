//! The benchmark text as a provider would send it: one SSE event per stream
//! chunk, written by the project's own dialect encoders (the mock upstream's),
//! and the path a live turn takes back: `Framer` → `Decoder` → `Normalizer`.

use pensive::server::mock::encoders::encoder;
use pensive::server::normalizer::Normalizer;
use pensive::server::providers::delta::Delta;
use pensive::server::providers::framing::{Framer, Framing, FramingError, WireEvent};
use pensive::server::providers::wire::Dialect;
use pensive::server::tags::TagSet;
use pensive::turn::TurnEvent;

/// The SSE bytes of a response whose answer text arrives as `chunks`.
pub fn encode_sse(dialect: Dialect, chunks: &[&str]) -> Vec<u8> {
    let mut encoder = encoder(dialect, "bench-model");
    let mut out = Vec::with_capacity(chunks.len() * 160);
    let mut write = |frames: Vec<WireEvent>| {
        for frame in frames {
            if let Some(name) = &frame.event {
                out.extend_from_slice(b"event: ");
                out.extend_from_slice(name.as_bytes());
                out.push(b'\n');
            }
            out.extend_from_slice(b"data: ");
            out.extend_from_slice(frame.data.as_bytes());
            out.extend_from_slice(b"\n\n");
        }
    };
    write(encoder.start());
    for chunk in chunks {
        write(encoder.step(&[Delta::Answer((*chunk).to_owned())]));
    }
    write(encoder.step(&[Delta::Finish(Some("stop".into()))]));
    write(encoder.finish());
    if dialect == Dialect::Chat {
        out.extend_from_slice(b"data: [DONE]\n\n");
    }
    out
}

/// What decoding a stream produced (checked once, and kept from being optimised away).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Decoded {
    pub events: usize,
    pub thinking_bytes: usize,
    pub answer_bytes: usize,
}

impl Decoded {
    fn count(&mut self, events: Vec<TurnEvent>) {
        for event in events {
            self.events += 1;
            match event {
                TurnEvent::ThinkingDelta { text } => self.thinking_bytes += text.len(),
                TurnEvent::AnswerDelta { text } => self.answer_bytes += text.len(),
                _ => {}
            }
        }
    }
}

/// Frames, decodes and normalizes `reads` (network reads, split anywhere).
pub fn decode(dialect: Dialect, reads: &[&[u8]]) -> Decoded {
    let mut framer = Framer::new(Framing::Sse);
    let mut decoder = dialect.decoder();
    let mut normalizer = Normalizer::new(TagSet::default(), false);
    let mut seen = Decoded::default();
    let mut feed = |framed: Vec<Result<WireEvent, FramingError>>, seen: &mut Decoded| {
        for item in framed {
            let event = item.expect("the benchmark stream frames cleanly");
            let deltas = decoder
                .decode(&event)
                .expect("the benchmark stream decodes cleanly");
            for delta in deltas {
                seen.count(normalizer.push(delta, 0));
            }
        }
    };
    for read in reads {
        feed(framer.push(read), &mut seen);
    }
    feed(framer.finish(), &mut seen);
    seen.count(normalizer.finish(0));
    seen
}
