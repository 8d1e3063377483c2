//! Framing of upstream streams: SSE (`event:` / `data:` lines, comments, blank
//! line ends an event) or NDJSON (one event per line), and `WireEvent`, the
//! one type for an event of such a stream. Bytes may be split anywhere, even
//! inside a UTF-8 character; each byte is scanned once. Pure.

/// One event of an upstream stream: the SSE `event:` name (if any) and its
/// `data` payload, or one NDJSON line (no name). The framer reads them,
/// dialect decoders take them, the mock's encoders write them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireEvent {
    pub event: Option<String>,
    pub data: String,
    /// The line of its last `data` line (1-based) when the framer read it;
    /// 0 for an event written rather than read.
    pub line: usize,
}

impl WireEvent {
    /// An event with a name (or none) and data, not read from a stream.
    pub fn new(event: Option<&str>, data: &str) -> Self {
        Self {
            event: event.map(str::to_owned),
            data: data.to_owned(),
            line: 0,
        }
    }

    /// An event with only a data payload.
    pub fn data(data: impl Into<String>) -> Self {
        Self {
            event: None,
            data: data.into(),
            line: 0,
        }
    }

    /// An event with an SSE event name.
    pub(crate) fn named(event: &str, data: impl Into<String>) -> Self {
        Self {
            event: Some(event.to_owned()),
            data: data.into(),
            line: 0,
        }
    }

    /// The event written again as SSE for another parser: its data as `data`
    /// lines, then the blank line that ends it. The name is left out. Reading
    /// it back gives the same data, whatever spaces or line breaks it holds.
    pub(crate) fn to_sse_data(&self) -> String {
        let mut out = String::with_capacity(self.data.len() + 16);
        for line in self.data.split('\n') {
            out.push_str("data: ");
            out.push_str(line);
            out.push('\n');
        }
        out.push('\n');
        out
    }
}

/// A line that could not be framed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FramingError {
    #[error("line {line}: not valid UTF-8")]
    InvalidUtf8 { line: usize },
    #[error("line {line}: longer than {limit} bytes")]
    TooLong { line: usize, limit: usize },
    /// An SSE event's `data` lines together exceed the line limit.
    #[error("line {line}: event data longer than {limit} bytes")]
    EventTooLong { line: usize, limit: usize },
}

/// Which framing a stream uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    Sse,
    Ndjson,
}

/// Longest line accepted; longer lines are refused without buffering them all.
/// An SSE event's data (its `data` lines joined) is held to the same limit.
pub(crate) const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// Incremental framer.
#[derive(Debug)]
pub struct Framer {
    framing: Framing,
    /// Longest line kept (`MAX_LINE_BYTES` unless a test asks for less).
    max_line: usize,
    line: Vec<u8>,
    /// The current line grew past the limit: drop bytes until its end.
    skipping: bool,
    /// The pending SSE event's data grew past the limit: drop its lines until
    /// the blank line that ends it.
    skipping_event: bool,
    line_no: usize,
    event: Option<String>,
    data: Option<String>,
    data_line: usize,
}

impl Framer {
    pub fn new(framing: Framing) -> Self {
        Self::with_line_limit(framing, MAX_LINE_BYTES)
    }

    /// A framer with a smaller line limit, so tests and the fuzzer reach the
    /// limit with small inputs. Servers use `new`.
    pub fn with_line_limit(framing: Framing, max_line: usize) -> Self {
        Self {
            framing,
            max_line,
            line: Vec::new(),
            skipping: false,
            skipping_event: false,
            line_no: 0,
            event: None,
            data: None,
            data_line: 0,
        }
    }

    /// Feeds bytes; returns the events (and errors) they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Result<WireEvent, FramingError>> {
        let mut out = Vec::new();
        let mut rest = bytes;
        while let Some(pos) = rest.iter().position(|&b| b == b'\n') {
            self.append(&rest[..pos], &mut out);
            self.end_line(&mut out);
            rest = &rest[pos + 1..];
        }
        self.append(rest, &mut out);
        out
    }

    /// The largest thing held between pushes: the partial line, the pending
    /// event name or the pending event data, in bytes. Never above the limit.
    pub fn longest_buffer(&self) -> usize {
        let event = self.event.as_ref().map_or(0, String::len);
        let data = self.data.as_ref().map_or(0, String::len);
        self.line.len().max(event).max(data)
    }

    /// End of input: a last line without newline and a pending event are emitted.
    pub fn finish(&mut self) -> Vec<Result<WireEvent, FramingError>> {
        let mut out = Vec::new();
        if !self.line.is_empty() || self.skipping {
            self.end_line(&mut out);
        }
        self.dispatch(&mut out);
        out
    }

    fn append(&mut self, bytes: &[u8], out: &mut Vec<Result<WireEvent, FramingError>>) {
        if self.skipping {
            return;
        }
        if self.line.len() + bytes.len() > self.max_line {
            self.skipping = true;
            self.line.clear();
            out.push(Err(FramingError::TooLong {
                line: self.line_no + 1,
                limit: self.max_line,
            }));
            return;
        }
        self.line.extend_from_slice(bytes);
    }

    fn end_line(&mut self, out: &mut Vec<Result<WireEvent, FramingError>>) {
        self.line_no += 1;
        if std::mem::take(&mut self.skipping) {
            return;
        }
        let raw = std::mem::take(&mut self.line);
        let raw = raw.strip_suffix(b"\r").unwrap_or(&raw);
        let Ok(text) = std::str::from_utf8(raw) else {
            out.push(Err(FramingError::InvalidUtf8 { line: self.line_no }));
            return;
        };
        match self.framing {
            Framing::Ndjson => {
                if !text.trim().is_empty() {
                    out.push(Ok(WireEvent {
                        event: None,
                        data: text.to_owned(),
                        line: self.line_no,
                    }));
                }
            }
            Framing::Sse => self.sse_line(text, out),
        }
    }

    fn sse_line(&mut self, text: &str, out: &mut Vec<Result<WireEvent, FramingError>>) {
        if text.is_empty() {
            self.skipping_event = false;
            self.dispatch(out);
            return;
        }
        if self.skipping_event {
            return;
        }
        if text.starts_with(':') {
            return; // comment / keep-alive
        }
        let (field, value) = match text.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (text, ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                let held = self.data.as_ref().map_or(0, |data| data.len() + 1);
                if held + value.len() > self.max_line {
                    // Many short `data` lines must not add up to unbounded memory.
                    self.skipping_event = true;
                    self.event = None;
                    self.data = None;
                    out.push(Err(FramingError::EventTooLong {
                        line: self.line_no,
                        limit: self.max_line,
                    }));
                    return;
                }
                match &mut self.data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(value);
                    }
                    None => self.data = Some(value.to_owned()),
                }
                self.data_line = self.line_no;
            }
            _ => {} // id, retry, unknown fields
        }
    }

    fn dispatch(&mut self, out: &mut Vec<Result<WireEvent, FramingError>>) {
        let event = self.event.take();
        if let Some(data) = self.data.take() {
            out.push(Ok(WireEvent {
                event,
                data,
                line: self.data_line,
            }));
        }
    }
}

/// Guesses the framing from the start of a recording.
pub(crate) fn sniff_framing(start: &[u8]) -> Framing {
    let text = String::from_utf8_lossy(&start[..start.len().min(4096)]);
    let first = text
        .lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if first.starts_with("data:") || first.starts_with("event:") || first.starts_with(':') {
        Framing::Sse
    } else {
        Framing::Ndjson
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame_all(
        framing: Framing,
        input: &[u8],
        cuts: &[usize],
    ) -> Vec<Result<WireEvent, FramingError>> {
        let mut f = Framer::new(framing);
        let mut out = Vec::new();
        let mut last = 0;
        for &c in cuts {
            out.extend(f.push(&input[last..c]));
            last = c;
        }
        out.extend(f.push(&input[last..]));
        out.extend(f.finish());
        out
    }

    const SSE: &str = ": keep-alive\nevent: message_start\ndata: {\"a\":\"é😀\"}\n\ndata: one\r\ndata: two\n\ndata: [DONE]\n\n";

    #[test]
    fn sse_events_names_comments_and_multiline_data() {
        let out = frame_all(Framing::Sse, SSE.as_bytes(), &[]);
        let events: Vec<WireEvent> = out.into_iter().map(Result::unwrap).collect();
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].event.as_deref(), Some("message_start"));
        assert_eq!(events[0].data, "{\"a\":\"é😀\"}");
        assert_eq!(events[0].line, 3);
        assert_eq!(events[1].data, "one\ntwo");
        assert_eq!(events[2].data, "[DONE]");
    }

    #[test]
    fn any_split_gives_the_same_events() {
        let bytes = SSE.as_bytes();
        let whole = frame_all(Framing::Sse, bytes, &[]);
        for cut in 0..=bytes.len() {
            assert_eq!(frame_all(Framing::Sse, bytes, &[cut]), whole, "cut {cut}");
        }
    }

    #[test]
    fn ndjson_lines_and_a_final_line_without_newline() {
        let out = frame_all(Framing::Ndjson, b"{\"a\":1}\n\n{\"b\":2}", &[]);
        assert_eq!(out.len(), 2);
        assert_eq!(out[1].as_ref().unwrap().line, 3);
    }

    #[test]
    fn invalid_utf8_and_oversized_lines_are_errors_and_framing_continues() {
        let out = frame_all(Framing::Ndjson, b"\xff\xfe\n{\"ok\":1}\n", &[]);
        assert_eq!(out[0], Err(FramingError::InvalidUtf8 { line: 1 }));
        assert_eq!(out[1].as_ref().unwrap().data, "{\"ok\":1}");
        let mut f = Framer::new(Framing::Ndjson);
        let big = vec![b'x'; MAX_LINE_BYTES / 4];
        let mut errors = 0;
        for _ in 0..5 {
            errors += f.push(&big).iter().filter(|r| r.is_err()).count();
        }
        let after = f.push(b"\n{\"next\":1}\n");
        assert_eq!(errors, 1);
        assert_eq!(after.len(), 1);
        assert!(after[0].is_ok());
    }

    /// Found by the `sse_framer` fuzz target: `data` lines each under the limit
    /// used to add up to an event of any size, held in memory until its end.
    #[test]
    fn many_short_data_lines_cannot_grow_an_event_past_the_limit() {
        // Every line fits in 10 bytes; the data joined ("1234\n5678\n9") does not.
        let mut f = Framer::with_line_limit(Framing::Sse, 10);
        let mut out = f.push(b"event: x\ndata: 1234\ndata: 5678\ndata: 9\ndata: 0\n");
        assert!(f.longest_buffer() <= 10);
        out.extend(f.push(b"\ndata: next\n\n"));
        out.extend(f.finish());
        assert_eq!(
            out[0],
            Err(FramingError::EventTooLong { line: 4, limit: 10 })
        );
        assert_eq!(
            out.len(),
            2,
            "the oversized event is dropped whole: {out:?}"
        );
        let next = out[1].as_ref().unwrap();
        assert_eq!((next.event.as_deref(), next.data.as_str()), (None, "next"));
        // Data of exactly the limit is still an event.
        let mut f = Framer::with_line_limit(Framing::Sse, 10);
        let out = f.push(b"data: 1234\ndata: 5\ndata: 678\n\n");
        assert_eq!(out[0].as_ref().unwrap().data, "1234\n5\n678");
    }

    #[test]
    fn an_event_written_again_reads_back_the_same() {
        for data in ["{\"a\":1}", "", " lead", "two\nlines", "\n", "a\n\n b "] {
            let event = WireEvent {
                line: 1,
                ..WireEvent::named("ignored", data)
            };
            let again = frame_all(Framing::Sse, event.to_sse_data().as_bytes(), &[]);
            assert_eq!(again.len(), 1, "{data:?}: {again:?}");
            assert_eq!(again[0].as_ref().unwrap().data, data);
        }
    }

    #[test]
    fn framing_is_sniffed() {
        assert_eq!(sniff_framing(b"\n: hi\ndata: x"), Framing::Sse);
        assert_eq!(sniff_framing(b"{\"model\":\"x\"}"), Framing::Ndjson);
    }
}
