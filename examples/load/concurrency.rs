//! `concurrency`: N turns at once, each a paced reasoning-then-answer stream
//! (`mock:paced-<ms>`), every byte checked. Steps N up and reports the largest
//! N with no error and a p99 event inter-arrival gap within the limit, with
//! the app's peak resident memory.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pensive::server::mock::scenarios::scenario_for;

use crate::client::{self, http_client, Received};
use crate::procs::{cpu_seconds, memory_kib, run_queue_wait_seconds, settle, Servers};
use crate::relay::scripted_text;
use crate::report::{percentile, Row};

/// Largest acceptable p99 gap between consecutive events of a turn.
const GAP_LIMIT_MS: f64 = 100.0;
/// Starts are spread over this long: a browser crowd does not connect in one
/// instant, and a SYN flood would measure the listen backlog instead.
const RAMP: Duration = Duration::from_secs(1);

/// What one step measured.
struct Step {
    n: usize,
    errors: usize,
    gap_p50: f64,
    gap_p99: f64,
    first_p99: f64,
    peak_rss_mib: f64,
    wall: Duration,
    /// Cores busy on average during the step: pensive, the mock, this tool.
    cores: [f64; 3],
    /// Seconds per second pensive's threads waited for a CPU while runnable.
    pensive_wait: f64,
}

pub async fn run(servers: &Servers, steps: &[usize], pace_ms: u64) -> Result<Vec<Row>, String> {
    let client = http_client();
    let mut rows = Vec::new();
    let mut best: Option<Step> = None;
    for &n in steps {
        let step = one_step(servers, &client, n, pace_ms).await?;
        println!(
            "  N={n}: {} errors, gap p50 {:.1} ms p99 {:.1} ms, first event p99 {:.1} ms, peak RSS {:.1} MiB, {:.1} s, cores busy: pensive {:.2} mock {:.2} load {:.2}; pensive threads waited for a CPU {:.0} ms/s",
            step.errors,
            step.gap_p50,
            step.gap_p99,
            step.first_p99,
            step.peak_rss_mib,
            step.wall.as_secs_f64(),
            step.cores[0],
            step.cores[1],
            step.cores[2],
            step.pensive_wait * 1000.0
        );
        rows.push(Row::info(format!("N={n}: errors"), step.errors as f64, ""));
        rows.push(Row::info(
            format!("N={n}: event inter-arrival p99"),
            step.gap_p99,
            "ms",
        ));
        rows.push(Row::info(
            format!("N={n}: first event p99"),
            step.first_p99,
            "ms",
        ));
        rows.push(Row::info(
            format!("N={n}: peak RSS of pensive"),
            step.peak_rss_mib,
            "MiB",
        ));
        rows.push(Row::info(
            format!("N={n}: cores busy in pensive (mock, load tool)"),
            step.cores[0],
            &format!("cores ({:.2}, {:.2})", step.cores[1], step.cores[2]),
        ));
        rows.push(Row::info(
            format!("N={n}: pensive threads runnable but waiting for a CPU"),
            step.pensive_wait * 1000.0,
            "ms/s",
        ));
        let passed = step.errors == 0 && step.gap_p99 <= GAP_LIMIT_MS;
        if !passed {
            break;
        }
        best = Some(step);
    }
    let (largest, rss) = best.map_or((0.0, f64::NAN), |s| (s.n as f64, s.peak_rss_mib));
    rows.push(Row::at_least(
        format!("largest N with 0 errors and p99 gap ≤ {GAP_LIMIT_MS} ms"),
        largest,
        "turns",
        1000.0,
    ));
    // 200 MiB for 1,000 turns in embedded mode (issue 41): finished turns'
    // logs stay for their retention time, the earlier steps' among them.
    rows.push(Row::at_most(
        "peak RSS of pensive at that N",
        rss,
        "MiB",
        200.0,
    ));
    Ok(rows)
}

async fn one_step(
    servers: &Servers,
    client: &reqwest::Client,
    n: usize,
    pace_ms: u64,
) -> Result<Step, String> {
    let prompt = format!("mock:paced-{pace_ms}");
    let (reasoning, answer) = scripted_text(&scenario_for(&prompt, Duration::ZERO));
    let expected = Arc::new((reasoning, answer));
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = tokio::spawn(peak_rss(servers.pensive.pid(), stop.clone()));
    let pids = [Some(servers.pensive.pid()), Some(servers.mock.pid()), None];
    let cpu_before = pids.map(|pid| cpu_seconds(pid).unwrap_or(0.0));
    let wait_before = run_queue_wait_seconds(pids[0]).unwrap_or(0.0);
    let started = Instant::now();
    let mut turns = tokio::task::JoinSet::new();
    for i in 0..n {
        let (client, app, expected) = (client.clone(), servers.app.clone(), expected.clone());
        let prompt = format!("turn {i}: {prompt}");
        turns.spawn(async move {
            tokio::time::sleep(RAMP.mul_f64(i as f64 / n as f64)).await;
            let received = client::via_app(&client, &app, &prompt, false).await?;
            received.check(&expected.0, &expected.1)?;
            Ok::<Received, String>(received)
        });
    }
    let mut errors = Vec::new();
    let mut gaps = Vec::new();
    let mut firsts = Vec::new();
    while let Some(joined) = turns.join_next().await {
        match joined.map_err(|e| e.to_string()).and_then(|r| r) {
            Ok(received) => {
                firsts.extend(received.arrivals.first().map(|d| d.as_secs_f64() * 1000.0));
                gaps.extend(
                    received
                        .arrivals
                        .windows(2)
                        .map(|w| (w[1] - w[0]).as_secs_f64() * 1000.0),
                );
            }
            Err(message) => errors.push(message),
        }
    }
    let wall = started.elapsed();
    let mut cores = [0.0; 3];
    for (i, pid) in pids.into_iter().enumerate() {
        cores[i] = (cpu_seconds(pid).unwrap_or(0.0) - cpu_before[i]) / wall.as_secs_f64();
    }
    let pensive_wait =
        (run_queue_wait_seconds(pids[0]).unwrap_or(0.0) - wait_before) / wall.as_secs_f64();
    stop.store(true, Ordering::SeqCst);
    let sampled = sampler.await.map_err(|e| e.to_string())?;
    for message in errors.iter().take(3) {
        println!("    error: {message}");
    }
    let left = settle(client, &servers.app).await?;
    if left != 0 {
        errors.push(format!("{left} turns still active after the step"));
    }
    Ok(Step {
        n,
        errors: errors.len(),
        gap_p50: percentile(&mut gaps, 50.0),
        gap_p99: percentile(&mut gaps, 99.0),
        first_p99: percentile(&mut firsts, 99.0),
        peak_rss_mib: sampled as f64 / 1024.0,
        wall,
        cores,
        pensive_wait,
    })
}

/// Highest VmRSS (KiB) seen while the step runs, sampled every 50 ms.
async fn peak_rss(pid: u32, stop: Arc<AtomicBool>) -> u64 {
    let mut peak = 0;
    while !stop.load(Ordering::SeqCst) {
        if let Some((rss, _)) = memory_kib(pid) {
            peak = peak.max(rss);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    peak
}
