//! `reattach`: a page coming back to a turn with a megabyte of reasoning.
//! A `mock:firehose-<n>` turn (half reasoning, half answer, full speed) is
//! started through `POST /api/chat` and its first reader goes once the
//! answer begins (the reasoning is all in); the turn runs on. A second reader then attaches from line 0
//! (`POST /api/turn_events`) at once, while the provider still streams
//! (`live`), and again after the turn ended (`finished`). Measured: the time
//! until the reader holds the newest text, that is the first line logged
//! after it attached (by the lines' `at_ms` against its first heartbeat's),
//! or the terminal line of a turn already over; every byte is checked
//! against the script.

use std::time::{Duration, Instant};

use pensive::server::mock::scenarios::scenario_for;
use pensive::turn::framer::NdjsonFramer;
use pensive::turn::log_line::LogLine;
use pensive::turn::TurnEvent;

use crate::client::{self, http_client};
use crate::procs::Servers;
use crate::relay::scripted_text;
use crate::report::Row;

/// What one reader of the log got.
struct Read {
    reasoning: String,
    answer: String,
    /// Request sent → the newest text held (see the module's doc).
    caught_up: Duration,
    /// Reasoning and answer bytes the reader held by then.
    held_then: usize,
}

pub async fn run(servers: &Servers, chunks: usize) -> Result<Vec<Row>, String> {
    let client = http_client();
    let prompt = format!("mock:firehose-{chunks}");
    let (reasoning, answer) = scripted_text(&scenario_for(&prompt, Duration::ZERO));
    let turn_id = format!("reattach-{}", std::process::id());
    let mut first = client::start_turn(&client, &servers.app, &prompt, &turn_id).await?;
    // The page reads until the answer begins (the megabyte of reasoning is
    // in), then goes; the turn runs on with its answer.
    let mut framer = NdjsonFramer::new();
    'reading: while let Some(bytes) = first
        .chunk()
        .await
        .map_err(|e| format!("reading /api/chat: {e}"))?
    {
        for line in framer.push_lines(&bytes) {
            if let Ok(LogLine::Event {
                event: TurnEvent::AnswerDelta { .. },
                ..
            }) = line
            {
                break 'reading;
            }
        }
    }
    drop(first);
    let live = attach(&client, &servers.app, &turn_id).await?;
    let finished = attach(&client, &servers.app, &turn_id).await?;
    for (what, read) in [("live", &live), ("finished", &finished)] {
        if read.reasoning != reasoning || read.answer != answer {
            return Err(format!(
                "{what}: {} + {} bytes read, {} + {} scripted",
                read.reasoning.len(),
                read.answer.len(),
                reasoning.len(),
                answer.len()
            ));
        }
    }
    println!(
        "  {} KB of reasoning: live {:.0} ms, finished {:.0} ms",
        reasoning.len() / 1024,
        ms(live.caught_up),
        ms(finished.caught_up)
    );
    Ok(vec![
        Row::info(
            "reasoning in the turn",
            reasoning.len() as f64 / 1024.0,
            "KiB",
        ),
        Row::info(
            "attach while it streams: text logged before it, replayed",
            live.held_then as f64 / 1024.0,
            "KiB",
        ),
        Row::at_most(
            "attach while it streams: the newest text in",
            ms(live.caught_up),
            "ms",
            1000.0,
        ),
        Row::at_most(
            "attach after it ended: the whole turn in",
            ms(finished.caught_up),
            "ms",
            1000.0,
        ),
    ])
}

/// Attaches from line 0 and reads to the terminal line.
async fn attach(client: &reqwest::Client, app: &str, turn_id: &str) -> Result<Read, String> {
    let started = Instant::now();
    let mut response = client::attach(client, app, turn_id).await?;
    let mut framer = NdjsonFramer::new();
    let mut read = Read {
        reasoning: String::new(),
        answer: String::new(),
        caught_up: Duration::ZERO,
        held_then: 0,
    };
    // The server's time in the turn when this reader attached.
    let mut attached_at: Option<u64> = None;
    let mut caught_up: Option<Duration> = None;
    while let Some(bytes) = response
        .chunk()
        .await
        .map_err(|e| format!("reading /api/turn_events: {e}"))?
    {
        for line in framer.push_lines(&bytes) {
            match line.map_err(|e| format!("bad line: {e}"))? {
                LogLine::Event { event, stamp } => {
                    let newer =
                        matches!((stamp, attached_at), (Some(s), Some(at)) if s.at_ms >= at);
                    if newer && caught_up.is_none() {
                        caught_up = Some(started.elapsed());
                        read.held_then = read.reasoning.len() + read.answer.len();
                    }
                    match event {
                        TurnEvent::ThinkingDelta { text } => read.reasoning.push_str(&text),
                        TurnEvent::AnswerDelta { text } => read.answer.push_str(&text),
                        event if event.is_terminal() => {
                            if caught_up.is_none() {
                                read.held_then = read.reasoning.len() + read.answer.len();
                            }
                            read.caught_up = caught_up.unwrap_or_else(|| started.elapsed());
                            return Ok(read);
                        }
                        _ => {}
                    }
                }
                LogLine::Heartbeat { at_ms, .. } => {
                    attached_at.get_or_insert(at_ms);
                }
            }
        }
    }
    Err("the log ended without its terminal line".into())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
