//! A stdio server's stderr, into Pensive's log without letting the server
//! fill memory or the log. The server wrote it, so it is untrusted text:
//! each line is cut to `MAX_LINE_BYTES` (the rest of a longer line is read
//! and dropped, never held), lines past a rate (`LINES_PER_SECOND` after a
//! burst of `LINE_BURST`) are counted and dropped, and every line kept is
//! scrubbed like the rest of the log (token shapes, the server's own
//! configured values, control characters) before it is written, at `info`
//! under the target `mcp_stderr` (so `RUST_LOG=info,mcp_stderr=off` silences
//! every server). The pipe is always drained: a server blocked on a full
//! stderr pipe would hang its calls.

use std::time::Instant;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

use super::guard::Bucket;
use crate::turn::scrub::{credentials, REDACTED};

/// The longest stderr line logged; the rest is cut (and said to be).
pub(crate) const MAX_LINE_BYTES: usize = 2 * 1024;
/// Lines a second a server may keep logging.
pub(crate) const LINES_PER_SECOND: f64 = 5.0;
/// How many lines may come at once (a start-up banner, a stack trace).
pub(crate) const LINE_BURST: f64 = 200.0;
/// A configured value at least this long is a secret worth removing from
/// the server's lines (shorter ones, `info` or `1`, are ordinary words).
const MIN_SECRET_CHARS: usize = 12;

/// One stderr line as read: its first bytes (at most `MAX_LINE_BYTES`) and
/// how many more the line had.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Line {
    pub head: Vec<u8>,
    pub cut: u64,
}

/// Reads the next line of `reader`, keeping at most `max` bytes of it:
/// the rest is consumed as it arrives, never buffered. `None` at the end.
pub(crate) async fn next_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    max: usize,
) -> std::io::Result<Option<Line>> {
    let mut line = Line::default();
    let mut any = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(any.then_some(line));
        }
        any = true;
        let newline = available.iter().position(|b| *b == b'\n');
        let take = newline.unwrap_or(available.len());
        let room = max.saturating_sub(line.head.len()).min(take);
        line.head.extend_from_slice(&available[..room]);
        line.cut += (take - room) as u64;
        let consumed = newline.map_or(take, |at| at + 1);
        reader.consume(consumed);
        if newline.is_some() {
            return Ok(Some(line));
        }
    }
}

/// What a line becomes in the log: credentials and the server's own
/// configured values removed, control characters (terminal escapes, a
/// carriage return forging a new log line) made visible, the cut said.
pub(crate) fn scrubbed(line: &Line, secrets: &[String]) -> String {
    let text = String::from_utf8_lossy(&line.head);
    let text = text.strip_suffix('\r').unwrap_or(&text);
    let mut text = credentials(text);
    for secret in secrets {
        text = text.replace(secret.as_str(), REDACTED);
    }
    let mut text: String = text
        .chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect();
    if line.cut > 0 {
        text.push_str(&format!(
            " [\u{2026} {} more bytes of this line were cut]",
            line.cut
        ));
    }
    text
}

/// The values of a server's configured environment long enough to be
/// secrets (an API key it was given), longest first.
pub(crate) fn secrets_of(env: &std::collections::BTreeMap<String, String>) -> Vec<String> {
    let mut secrets: Vec<String> = env
        .values()
        .filter(|value| value.chars().count() >= MIN_SECRET_CHARS)
        .cloned()
        .collect();
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    secrets
}

/// Logs `stderr` of the server `server` until it closes, within the bounds
/// above; `secrets` are removed from every line.
pub(crate) async fn drain<R: AsyncRead + Unpin>(stderr: R, server: String, secrets: Vec<String>) {
    let mut reader = BufReader::new(stderr);
    let mut bucket = Bucket::new(LINES_PER_SECOND, LINE_BURST, Instant::now());
    let mut dropped: u64 = 0;
    while let Ok(Some(line)) = next_line(&mut reader, MAX_LINE_BYTES).await {
        if !bucket.take(Instant::now()) {
            dropped += 1;
            continue;
        }
        if dropped > 0 {
            tracing::info!(target: "mcp_stderr", mcp_server = %server, "[{dropped} lines dropped: more than {} a second]", LINES_PER_SECOND as u64);
            dropped = 0;
        }
        let text = scrubbed(&line, &secrets);
        tracing::info!(target: "mcp_stderr", mcp_server = %server, "{text}");
    }
    if dropped > 0 {
        tracing::info!(target: "mcp_stderr", mcp_server = %server, "[{dropped} lines dropped: more than {} a second]", LINES_PER_SECOND as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut reader = BufReader::with_capacity(16, input);
        let mut out = Vec::new();
        while let Ok(Some(line)) = next_line(&mut reader, max).await {
            out.push(line);
        }
        out
    }

    #[tokio::test]
    async fn a_long_line_keeps_its_head_and_counts_the_rest() {
        let mut input = vec![b'x'; 1000];
        input.extend_from_slice(b"\nshort\nlast");
        let got = lines(&input, 100).await;
        assert_eq!(got.len(), 3);
        assert_eq!((got[0].head.len(), got[0].cut), (100, 900));
        assert_eq!(
            got[1],
            Line {
                head: b"short".to_vec(),
                cut: 0
            }
        );
        assert_eq!(got[2].head, b"last");
    }

    #[test]
    fn a_line_loses_credentials_secrets_and_control_characters() {
        let line = Line {
            head: b"token=Bearer abcdef123456 key=ghp_SECRETVALUE12345 \x1b[2J\rFAKE".to_vec(),
            cut: 7,
        };
        let text = scrubbed(&line, &["ghp_SECRETVALUE12345".into()]);
        assert!(!text.contains("abcdef123456"), "{text}");
        assert!(!text.contains("ghp_SECRET"), "{text}");
        assert!(!text.contains('\x1b') && !text.contains('\r'), "{text}");
        assert!(
            text.ends_with("7 more bytes of this line were cut]"),
            "{text}"
        );
    }

    #[test]
    fn only_long_configured_values_count_as_secrets() {
        let env = [("LEVEL", "info"), ("TOKEN", "ghp_0123456789abcdef")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        assert_eq!(secrets_of(&env), ["ghp_0123456789abcdef"]);
    }
}
