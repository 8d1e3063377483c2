//! `replicas`: two `pensive serve` sharing a Redis (`PENSIVE_REDIS_URL`),
//! under load. `background` paced turns run at once, spread over both
//! replicas, while stamped turns (see relay.rs) measure the per-event latency
//! three ways, interleaved: straight from the mock; through the replica that
//! runs the turn (`POST /api/chat`, every line also written to Redis); and
//! through the other replica (`POST /api/turn_events`, its lines read back
//! from Redis). Every byte of every turn is checked.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use pensive::server::mock::scenarios::scenario_for;
use pensive::turn::framer::NdjsonFramer;
use pensive::turn::log_line::LogLine;
use pensive::turn::TurnEvent;

use crate::client::{self, http_client, send_times, wall_us, without_stamps};
use crate::procs::Servers;
use crate::relay::{latencies, scripted_text};
use crate::report::{percentile, Row};

/// Interleaved rounds per path.
const ROUNDS: usize = 8;

/// Background turns that ran and that failed.
#[derive(Default)]
struct Tally {
    done: AtomicUsize,
    failed: AtomicUsize,
}

pub async fn run(
    servers: &Servers,
    other: &str,
    background: usize,
    pace_ms: u64,
    stamps: usize,
) -> Result<(Vec<Row>, bool), String> {
    let client = http_client();
    let stop = Arc::new(AtomicBool::new(false));
    let tally = Arc::new(Tally::default());
    let load = start_load(servers, other, background, pace_ms, &stop, &tally);
    // The load's turns all started (its ramp) before anything is measured.
    tokio::time::sleep(Duration::from_secs(2)).await;

    let stamped = format!("mock:stamped-{}", (stamps / ROUNDS).max(1));
    let (_, answer) = scripted_text(&scenario_for(&stamped, Duration::ZERO));
    let [mut direct, mut running, mut through_other] = [Vec::new(), Vec::new(), Vec::new()];
    for round in 0..ROUNDS {
        let got = client::direct(&client, servers, &stamped, true).await?;
        direct.extend(latencies(&got, &answer)?);
        let got = client::via_app(&client, &servers.app, &stamped, true).await?;
        running.extend(latencies(&got, &answer)?);
        let turn_id = format!("replicas-{}-{round}", std::process::id());
        through_other
            .extend(via_other(&client, servers, other, &turn_id, &stamped, &answer).await?);
    }
    stop.store(true, Ordering::SeqCst);
    for task in load {
        let _ = task.await;
    }
    let failed = tally.failed.load(Ordering::SeqCst);
    let [d50, d99] = [50.0, 99.0].map(|p| percentile(&mut direct, p) / 1000.0);
    let [r50, r99] = [50.0, 99.0].map(|p| percentile(&mut running, p) / 1000.0);
    let [o50, o99] = [50.0, 99.0].map(|p| percentile(&mut through_other, p) / 1000.0);
    println!(
        "  {background} turns alongside ({} done, {failed} failed): p99 direct {d99:.2} ms, through the running replica {r99:.2} ms, through the other {o99:.2} ms",
        tally.done.load(Ordering::SeqCst)
    );
    let rows = vec![
        Row::info(
            "paced turns running alongside, over both replicas",
            background as f64,
            "turns",
        ),
        Row::info(
            "of them failed (text checked byte for byte)",
            failed as f64,
            "",
        ),
        Row::info(
            "direct per-event latency p50 / p99",
            d50,
            &format!("ms / {d99:.3} ms"),
        ),
        Row::info(
            "through the replica running the turn p50 / p99",
            r50,
            &format!("ms / {r99:.3} ms"),
        ),
        Row::info(
            "through the other replica (via Redis) p50 / p99",
            o50,
            &format!("ms / {o99:.3} ms"),
        ),
        // The embedded relay's goal holds for the replica that runs the turn.
        Row::at_most(
            format!(
                "two replicas + Redis, {background} turns alongside: added p99, the running one"
            ),
            r99 - d99,
            "ms",
            2.0,
        ),
        // Read back from Redis: within what a reader perceives as at once.
        Row::at_most(
            format!("two replicas + Redis, {background} turns alongside: added p99, the other"),
            o99 - d99,
            "ms",
            100.0,
        ),
    ];
    Ok((rows, failed == 0))
}

/// `n` tasks, each running paced turns one after another on one replica
/// (the even ones on the first) until `stop`; starts spread over a second.
fn start_load(
    servers: &Servers,
    other: &str,
    n: usize,
    pace_ms: u64,
    stop: &Arc<AtomicBool>,
    tally: &Arc<Tally>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let prompt = format!("mock:paced-{pace_ms}");
    let expected = Arc::new(scripted_text(&scenario_for(&prompt, Duration::ZERO)));
    (0..n)
        .map(|i| {
            let app = if i % 2 == 0 {
                servers.app.clone()
            } else {
                other.to_owned()
            };
            let (client, stop, tally, expected) =
                (http_client(), stop.clone(), tally.clone(), expected.clone());
            let prompt = format!("load {i}: {prompt}");
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(1000 * i as u64 / n.max(1) as u64)).await;
                while !stop.load(Ordering::SeqCst) {
                    let turn = client::via_app(&client, &app, &prompt, false).await;
                    let ok = turn.and_then(|t| t.check(&expected.0, &expected.1)).is_ok();
                    let counter = if ok { &tally.done } else { &tally.failed };
                    counter.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect()
}

/// A stamped turn started on the first replica and read through the other,
/// which attaches as soon as the turn exists; the latencies of the chunks
/// sent after it attached (earlier ones arrive as a replay).
async fn via_other(
    client: &reqwest::Client,
    servers: &Servers,
    other: &str,
    turn_id: &str,
    prompt: &str,
    answer: &str,
) -> Result<Vec<f64>, String> {
    let mut started = client::start_turn(client, &servers.app, prompt, turn_id).await?;
    // Its first line: the turn exists (and is in Redis).
    started
        .chunk()
        .await
        .map_err(|e| format!("reading /api/chat: {e}"))?;
    let attached = wall_us();
    let mut response = client::attach(client, other, turn_id).await?;
    drop(started);
    let (mut text, mut latencies, mut framer) = (String::new(), Vec::new(), NdjsonFramer::new());
    while let Some(bytes) = response
        .chunk()
        .await
        .map_err(|e| format!("reading /api/turn_events: {e}"))?
    {
        let now = wall_us();
        for line in framer.push_lines(&bytes) {
            match line.map_err(|e| format!("bad line: {e}"))? {
                LogLine::Event {
                    event: TurnEvent::AnswerDelta { text: piece },
                    ..
                } => {
                    latencies.extend(
                        send_times(&piece)
                            .filter(|&sent| sent as i64 >= attached)
                            .map(|sent| (now - sent as i64) as f64),
                    );
                    text.push_str(&piece);
                }
                LogLine::Event { event, .. } if event.is_terminal() => {
                    if without_stamps(&text) != answer {
                        return Err(format!(
                            "{turn_id}: the answer read through the other replica differs"
                        ));
                    }
                    return Ok(latencies);
                }
                _ => {}
            }
        }
    }
    Err(format!(
        "{turn_id}: the log ended without its terminal line"
    ))
}
