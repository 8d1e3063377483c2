//! The one path from a provider's response bytes to `Delta`s: frame (SSE or
//! NDJSON), then decode each event with the dialect's `Decoder`, stopping at
//! the first failure. Live turns (`http::open`) feed it the body as it
//! arrives; `pensive parse` feeds it a recording. Pure: no I/O.

use super::wire::Decoder;
use crate::server::providers::delta::Delta;
use crate::server::providers::framing::{Framer, Framing, FramingError, WireEvent};
use crate::turn::turn_error::TurnError;

/// Frames and decodes one response body, bytes in, one result per event out.
pub(crate) struct DecodeStream {
    framer: Framer,
    decoder: Box<dyn Decoder>,
    /// Wrap a decoder's error in the recording's line (`pensive parse`).
    name_lines: bool,
    /// An error was returned: nothing more is decoded.
    failed: bool,
}

/// A decoder for one body in `framing`, decoded by `decoder`.
pub(crate) fn decode_stream(framing: Framing, decoder: Box<dyn Decoder>) -> DecodeStream {
    DecodeStream {
        framer: Framer::new(framing),
        decoder,
        name_lines: false,
        failed: false,
    }
}

impl DecodeStream {
    /// Errors name the line of the event that failed (`TurnError::AtLine`);
    /// a framing error names its line itself.
    pub(crate) fn naming_lines(mut self) -> Self {
        self.name_lines = true;
        self
    }

    /// More bytes: each event completed by them, decoded, in order. An `Err`
    /// is the last item this stream gives.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Result<Vec<Delta>, TurnError>> {
        if self.failed {
            return Vec::new();
        }
        let framed = self.framer.push(bytes);
        self.decode(framed)
    }

    /// End of the body: a last event without its end is decoded too.
    pub fn finish(&mut self) -> Vec<Result<Vec<Delta>, TurnError>> {
        if self.failed {
            return Vec::new();
        }
        let framed = self.framer.finish();
        self.decode(framed)
    }

    fn decode(
        &mut self,
        framed: Vec<Result<WireEvent, FramingError>>,
    ) -> Vec<Result<Vec<Delta>, TurnError>> {
        let mut out = Vec::with_capacity(framed.len());
        for item in framed {
            let result = match item {
                Err(refused) => Err(TurnError::Malformed(refused.to_string())),
                Ok(event) => self
                    .decoder
                    .decode(&event)
                    .map_err(|error| match self.name_lines {
                        true => TurnError::AtLine {
                            line: event.line,
                            error: Box::new(error),
                        },
                        false => error,
                    }),
            };
            self.failed = result.is_err();
            out.push(result);
            if self.failed {
                break;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::providers::wire::Dialect;

    fn chat(data: &str) -> String {
        format!("data: {data}\n\n")
    }

    #[test]
    fn events_split_anywhere_decode_in_order_and_the_first_failure_ends_it() {
        let body = [
            chat(r#"{"choices":[{"delta":{"reasoning_content":"hm"}}]}"#),
            chat(r#"{"choices":[{"delta":{"content":"Hi"}}]}"#),
            chat("{oops"),
            chat(r#"{"choices":[{"delta":{"content":"never"}}]}"#),
        ]
        .concat();
        let mut stream = decode_stream(Framing::Sse, Dialect::Chat.decoder());
        let mut results = Vec::new();
        for piece in body.as_bytes().chunks(7) {
            results.extend(stream.push(piece));
        }
        results.extend(stream.finish());
        assert_eq!(results.len(), 3, "{results:?}");
        assert_eq!(results[0], Ok(vec![Delta::Reasoning("hm".into())]));
        assert_eq!(results[1], Ok(vec![Delta::Answer("Hi".into())]));
        assert!(matches!(results[2], Err(TurnError::Malformed(_))));
    }

    #[test]
    fn a_recording_names_the_line_of_a_bad_event_and_framing_errors_are_malformed() {
        let body = chat(r#"{"choices":[]}"#) + &chat("{oops");
        let mut stream = decode_stream(Framing::Sse, Dialect::Chat.decoder()).naming_lines();
        let results = stream.push(body.as_bytes());
        assert!(
            matches!(&results[1], Err(TurnError::AtLine { line: 3, .. })),
            "{results:?}"
        );
        let mut stream = decode_stream(Framing::Ndjson, Dialect::Ollama.decoder());
        let results = stream.push(b"\xff\xfe\n");
        assert_eq!(
            results,
            vec![Err(TurnError::Malformed("line 1: not valid UTF-8".into()))]
        );
    }
}
