//! NDJSON framing of `TurnEvent`s: bytes in (split anywhere, even inside a UTF-8
//! character), events out. Shared by the browser client and the tests; no I/O.
//! Each byte is scanned once, so per-chunk cost does not grow with the stream.

use super::event::TurnEvent;
use super::log_line::{decode, LogLine};

/// Serializes one event as an NDJSON line (with the trailing `\n`).
pub fn ndjson_line(event: &TurnEvent) -> String {
    // A TurnEvent holds only strings, integers and enums: serialization cannot fail.
    let mut line = serde_json::to_string(event).unwrap_or_else(|_| {
        r#"{"type":"error","kind":"internal","message":"unserializable event"}"#.to_owned()
    });
    line.push('\n');
    line
}

/// A line that was not a valid `TurnEvent`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct FrameError {
    /// 1-based line number in the stream.
    pub line: usize,
    pub reason: String,
}

/// Incremental NDJSON decoder. `Clone` forks a stream mid-way (the per-chunk
/// benchmark starts every sample from the same state).
#[derive(Debug, Default, Clone)]
pub struct NdjsonFramer {
    buffer: Vec<u8>,
    /// Bytes of `buffer` already known to hold no newline.
    scanned: usize,
    lines_seen: usize,
}

impl NdjsonFramer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes; returns every event completed by them, in order (a log's
    /// stamps and heartbeats set aside: see `push_lines` for them).
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Result<TurnEvent, FrameError>> {
        self.push_lines(bytes)
            .into_iter()
            .filter_map(only_events)
            .collect()
    }

    /// Feeds bytes; returns every log line completed by them, in order.
    pub fn push_lines(&mut self, bytes: &[u8]) -> Vec<Result<LogLine, FrameError>> {
        self.buffer.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut line_start = 0;
        let mut cursor = self.scanned;
        while let Some(offset) = self.buffer[cursor..].iter().position(|&b| b == b'\n') {
            let end = cursor + offset;
            if let Some(result) = self.decode_line(line_start, end) {
                out.push(result);
            }
            line_start = end + 1;
            cursor = line_start;
        }
        self.buffer.drain(..line_start);
        self.scanned = self.buffer.len();
        out
    }

    /// Ends the stream: a final line without `\n` is decoded too.
    pub fn finish(&mut self) -> Option<Result<TurnEvent, FrameError>> {
        self.finish_lines().and_then(only_events)
    }

    /// `finish`, for a reader of log lines.
    pub fn finish_lines(&mut self) -> Option<Result<LogLine, FrameError>> {
        let end = self.buffer.len();
        let result = self.decode_line(0, end);
        self.buffer.clear();
        self.scanned = 0;
        result
    }

    fn decode_line(&mut self, start: usize, end: usize) -> Option<Result<LogLine, FrameError>> {
        self.lines_seen += 1;
        let raw = &self.buffer[start..end];
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        Some(decode(raw).map_err(|err| FrameError {
            line: self.lines_seen,
            reason: err.to_string(),
        }))
    }
}

/// The event of a log line (none for a heartbeat).
fn only_events(line: Result<LogLine, FrameError>) -> Option<Result<TurnEvent, FrameError>> {
    match line {
        Ok(LogLine::Event { event, .. }) => Some(Ok(event)),
        Ok(LogLine::Heartbeat { .. }) => None,
        Err(err) => Some(Err(err)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::turn::event::{ErrorKind, Usage};
    use proptest::prelude::*;

    fn sample_events() -> Vec<TurnEvent> {
        vec![
            TurnEvent::ThinkingStart,
            TurnEvent::ThinkingDelta {
                text: "Rayleigh — scattering ∝ 1/λ⁴ 🌈".into(),
            },
            TurnEvent::ThinkingEnd {
                duration_ms: 1200,
                opaque: false,
            },
            TurnEvent::AnswerDelta {
                text: "Blue \"light\"\nscatters 😀 more.".into(),
            },
            TurnEvent::Usage(Usage {
                input_tokens: Some(3),
                output_tokens: Some(9),
                reasoning_tokens: Some(4),
            }),
            TurnEvent::error(ErrorKind::Upstream, "später"),
        ]
    }

    fn wire(events: &[TurnEvent]) -> Vec<u8> {
        events
            .iter()
            .map(ndjson_line)
            .collect::<String>()
            .into_bytes()
    }

    fn decode_in_pieces(bytes: &[u8], cuts: &[usize]) -> Vec<TurnEvent> {
        let mut framer = NdjsonFramer::new();
        let mut out = Vec::new();
        let mut last = 0;
        for &cut in cuts {
            out.extend(framer.push(&bytes[last..cut]));
            last = cut;
        }
        out.extend(framer.push(&bytes[last..]));
        out.extend(framer.finish());
        out.into_iter().map(|r| r.expect("valid line")).collect()
    }

    #[test]
    fn whole_stream_decodes_to_the_same_events() {
        let events = sample_events();
        assert_eq!(decode_in_pieces(&wire(&events), &[]), events);
    }

    #[test]
    fn every_single_byte_split_decodes_identically() {
        let events = sample_events();
        let bytes = wire(&events);
        for cut in 0..=bytes.len() {
            assert_eq!(decode_in_pieces(&bytes, &[cut]), events, "cut at {cut}");
        }
    }

    #[test]
    fn byte_by_byte_feeding_decodes_identically() {
        let events = sample_events();
        let bytes = wire(&events);
        let cuts: Vec<usize> = (1..bytes.len()).collect();
        assert_eq!(decode_in_pieces(&bytes, &cuts), events);
    }

    #[test]
    fn malformed_line_is_reported_with_its_number_and_decoding_continues() {
        let mut framer = NdjsonFramer::new();
        let out = framer.push(b"{\"type\":\"thinking_start\"}\nnot json\n{\"type\":\"done\"}\n");
        assert_eq!(out.len(), 3);
        assert_eq!(out[0], Ok(TurnEvent::ThinkingStart));
        assert_eq!(out[1].as_ref().unwrap_err().line, 2);
        assert_eq!(
            out[2],
            Ok(TurnEvent::Done {
                finish_reason: None,
                output_limit: None,
            })
        );
    }

    #[test]
    fn blank_and_crlf_lines_are_tolerated() {
        let mut framer = NdjsonFramer::new();
        let out = framer.push(b"\r\n{\"type\":\"thinking_start\"}\r\n\n");
        assert_eq!(out, vec![Ok(TurnEvent::ThinkingStart)]);
        assert_eq!(framer.finish(), None);
    }

    proptest! {
        #[test]
        fn any_split_of_the_byte_stream_gives_the_same_events(
            mut cuts in proptest::collection::vec(0usize..400, 0..12)
        ) {
            let events = sample_events();
            let bytes = wire(&events);
            for cut in cuts.iter_mut() { *cut %= bytes.len() + 1; }
            cuts.sort_unstable();
            prop_assert_eq!(decode_in_pieces(&bytes, &cuts), events);
        }
    }
}
