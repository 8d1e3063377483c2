//! One turn, read the way a client reads it: through the app (`POST /api/chat`,
//! NDJSON `TurnEvent`s) or straight from the mock's dialect endpoint (decoded
//! with the app's own framer and dialect decoder, so both paths do the same
//! parsing work and only the relay differs). Records when each event arrived.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use pensive::server::providers::build_request;
use pensive::server::providers::delta::Delta;
use pensive::server::providers::framing::{Framer, Framing};
use pensive::turn::framer::NdjsonFramer;
use pensive::turn::{ChatMessage, ChatRequest, TurnEvent};

use crate::procs::{mock_model, Servers};

/// What one turn delivered.
#[derive(Debug, Default)]
pub struct Received {
    pub reasoning: String,
    pub answer: String,
    /// Arrival time (since the request was sent) of every event, in order.
    pub arrivals: Vec<Duration>,
    /// For stamped scenarios: arrival minus send time of each stamp, in µs.
    pub latencies_us: Vec<i64>,
    /// Request sent → last byte read.
    pub total: Duration,
    /// The turn ended normally (`done`, or the dialect's finish).
    pub done: bool,
}

impl Received {
    /// Checks the text against what the scenario scripted, byte for byte.
    pub fn check(&self, reasoning: &str, answer: &str) -> Result<(), String> {
        if !self.done {
            return Err("the turn did not end with done".into());
        }
        for (what, got, want) in [
            ("reasoning", &self.reasoning, reasoning),
            ("answer", &self.answer, answer),
        ] {
            if got != want {
                let at = got
                    .bytes()
                    .zip(want.bytes())
                    .position(|(a, b)| a != b)
                    .unwrap_or(got.len().min(want.len()));
                return Err(format!(
                    "{what} differs at byte {at} ({} bytes received, {} expected)",
                    got.len(),
                    want.len()
                ));
            }
        }
        Ok(())
    }

    fn text(&mut self, reasoning: bool, text: &str, wall_us: Option<i64>) {
        if let Some(now) = wall_us {
            self.latencies_us
                .extend(send_times(text).map(|sent| now - sent as i64));
        }
        if reasoning {
            self.reasoning.push_str(text);
        } else {
            self.answer.push_str(text);
        }
    }
}

/// Wall-clock µs since the Unix epoch (the mock stamps with the same clock).
pub fn wall_us() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0)
}

/// The send times the mock appended to a text (`@<µs>;` each).
pub fn send_times(text: &str) -> impl Iterator<Item = u64> + '_ {
    text.split('@').skip(1).filter_map(|part| {
        let (digits, _) = part.split_once(';')?;
        digits.parse().ok()
    })
}

/// Removes the stamps, leaving the scripted text.
pub fn without_stamps(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        out.push_str(&rest[..at]);
        rest = rest[at..].split_once(';').map_or("", |(_, after)| after);
    }
    out.push_str(rest);
    out
}

/// A turn through the app: `POST /api/chat` with `{"request": ChatRequest}`.
pub async fn via_app(
    client: &reqwest::Client,
    app: &str,
    prompt: &str,
    stamped: bool,
) -> Result<Received, String> {
    let request = ChatRequest {
        messages: vec![ChatMessage::user(prompt)],
        model: None,
        ..ChatRequest::default()
    };
    let started = Instant::now();
    let mut response = client
        .post(format!("{app}/api/chat"))
        .json(&serde_json::json!({ "request": request }))
        .send()
        .await
        .map_err(|e| format!("POST /api/chat: {e}"))?;
    if !response.status().is_success() {
        return Err(format!("POST /api/chat: HTTP {}", response.status()));
    }
    let mut received = Received::default();
    let mut framer = NdjsonFramer::new();
    let mut error = None;
    loop {
        let chunk = response
            .chunk()
            .await
            .map_err(|e| format!("reading /api/chat: {e}"))?;
        let at = started.elapsed();
        let wall = stamped.then(wall_us);
        let events = match &chunk {
            Some(bytes) => framer.push(bytes),
            None => framer.finish().into_iter().collect(),
        };
        for event in events {
            let event = event.map_err(|e| format!("bad NDJSON: {e}"))?;
            received.arrivals.push(at);
            match event {
                TurnEvent::ThinkingDelta { text } => received.text(true, &text, wall),
                TurnEvent::AnswerDelta { text } => received.text(false, &text, wall),
                TurnEvent::Done { .. } => received.done = true,
                TurnEvent::Error { kind, message } => {
                    error = Some(format!("error event {kind:?}: {message}"))
                }
                _ => {}
            }
        }
        if chunk.is_none() {
            break;
        }
    }
    received.total = started.elapsed();
    match error {
        Some(message) => Err(message),
        None => Ok(received),
    }
}

/// The same turn read straight from the mock, as the app's provider would.
pub async fn direct(
    client: &reqwest::Client,
    servers: &Servers,
    prompt: &str,
    stamped: bool,
) -> Result<Received, String> {
    let dialect = servers.dialect;
    let model = mock_model(dialect, &servers.upstream);
    let request = ChatRequest {
        messages: vec![ChatMessage::user(prompt)],
        model: None,
        ..ChatRequest::default()
    };
    let upstream = build_request(dialect, &model.upstream, &request);
    let mut builder = client.post(&upstream.url).json(&upstream.body);
    for (name, value) in &upstream.headers {
        builder = builder.header(name, value);
    }
    let started = Instant::now();
    let mut response = builder
        .send()
        .await
        .map_err(|e| format!("POST {}: {e}", upstream.url))?;
    if !response.status().is_success() {
        return Err(format!("mock: HTTP {}", response.status()));
    }
    let mut framer = Framer::new(if dialect.is_ndjson() {
        Framing::Ndjson
    } else {
        Framing::Sse
    });
    let mut decoder = dialect.decoder();
    let mut received = Received::default();
    loop {
        let chunk = response
            .chunk()
            .await
            .map_err(|e| format!("reading the mock: {e}"))?;
        let at = started.elapsed();
        let wall = stamped.then(wall_us);
        let frames = match &chunk {
            Some(bytes) => framer.push(bytes),
            None => framer.finish(),
        };
        for frame in frames {
            let frame = frame.map_err(|e| format!("bad frame: {e}"))?;
            let deltas = decoder
                .decode(&frame)
                .map_err(|e| format!("bad event: {e}"))?;
            for delta in deltas {
                received.arrivals.push(at);
                match delta {
                    Delta::Reasoning(text) => received.text(true, &text, wall),
                    Delta::Answer(text) => received.text(false, &text, wall),
                    Delta::Finish(_) => received.done = true,
                    _ => {}
                }
            }
        }
        if chunk.is_none() {
            break;
        }
    }
    received.total = started.elapsed();
    Ok(received)
}

/// The secret the tool's attachable turns are started with.
pub const SECRET: &str = "0123456789abcdef0123456789abcdef";

/// Starts `prompt` as turn `turn_id` (attachable with `SECRET`) through
/// `POST /api/chat`; the response, unread.
pub async fn start_turn(
    client: &reqwest::Client,
    app: &str,
    prompt: &str,
    turn_id: &str,
) -> Result<reqwest::Response, String> {
    let request = ChatRequest {
        messages: vec![ChatMessage::user(prompt)],
        turn_id: Some(turn_id.into()),
        turn_secret: Some(SECRET.into()),
        ..ChatRequest::default()
    };
    client
        .post(format!("{app}/api/chat"))
        .json(&serde_json::json!({ "request": request }))
        .send()
        .await
        .map_err(|e| format!("POST /api/chat: {e}"))
}

/// Attaches to turn `turn_id` from line 0 (`POST /api/turn_events`).
pub async fn attach(
    client: &reqwest::Client,
    app: &str,
    turn_id: &str,
) -> Result<reqwest::Response, String> {
    let response = client
        .post(format!("{app}/api/turn_events"))
        .json(&serde_json::json!({ "turn_id": turn_id, "secret": SECRET, "after": 0 }))
        .send()
        .await
        .map_err(|e| format!("POST /api/turn_events on {app}: {e}"))?;
    if !response.status().is_success() {
        return Err(format!(
            "POST /api/turn_events on {app}: HTTP {}",
            response.status()
        ));
    }
    Ok(response)
}

/// An HTTP client for many concurrent streams to one host.
pub fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_max_idle_per_host(usize::MAX)
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_read_and_removed() {
        let text = "f0000001 @1700000000000001;f0000002 @1700000000000009;";
        assert_eq!(
            send_times(text).collect::<Vec<_>>(),
            vec![1_700_000_000_000_001, 1_700_000_000_000_009]
        );
        assert_eq!(without_stamps(text), "f0000001 f0000002 ");
    }
}
