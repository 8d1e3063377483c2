//! Helpers for the encoders' round-trip tests: the mock's `hidden-reasoning`
//! shape played through an encoder and the matching decoder, the way the mock
//! times it.

use super::Encoder;
use crate::server::normalizer::Normalizer;
use crate::server::providers::delta::Delta;
use crate::server::providers::test_support::a;
use crate::server::providers::wire::Decoder;
use crate::turn::TurnEvent;

/// Plays the `hidden-reasoning` shape through `encoder` and `decoder` at the
/// times the mock would: the start signal at 100 ms, the end of the hidden
/// block after 3 s of silence, then the answer. Returns the events the
/// normalizer produced per step, so a dialect test can check that the block
/// opens at the first sign and lasts the silence.
pub fn hidden_reasoning_events(
    encoder: &mut dyn Encoder,
    decoder: &mut dyn Decoder,
) -> Vec<Vec<TurnEvent>> {
    let steps = [
        (0, Vec::new()),
        (100, vec![Delta::OpaqueReasoning]),
        (3100, vec![Delta::ReasoningBoundary]),
        (3100, vec![a("Done.")]),
    ];
    let mut normalizer = Normalizer::default();
    let mut out = Vec::new();
    for (at, deltas) in steps {
        let frames = if deltas.is_empty() {
            encoder.start()
        } else {
            encoder.step(&deltas)
        };
        let mut events = Vec::new();
        for frame in frames {
            let decoded = decoder.decode(&frame).expect("the mock's frames decode");
            for delta in decoded {
                events.extend(normalizer.push(delta, at));
            }
        }
        out.push(events);
    }
    out
}

/// What `hidden_reasoning_events` must give in every dialect with hidden
/// reasoning: the block opens with the start signal and closes, opaque,
/// 3 s later, before the answer.
pub fn assert_hidden_reasoning_timed_from_its_first_sign(steps: &[Vec<TurnEvent>]) {
    assert_eq!(steps[1], vec![TurnEvent::ThinkingStart], "{steps:?}");
    let rest: Vec<&TurnEvent> = steps[2..].iter().flatten().collect();
    assert_eq!(
        rest,
        vec![
            &TurnEvent::ThinkingEnd {
                duration_ms: 3000,
                opaque: true
            },
            &TurnEvent::AnswerDelta {
                text: "Done.".into()
            }
        ],
        "{steps:?}"
    );
}
