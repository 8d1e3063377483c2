//! `soak`: a steady crowd of turns for many minutes (each worker starts a new
//! turn when its last one ends), every turn checked byte for byte, while the
//! app's resident memory and open descriptors are sampled. A leak shows as a
//! trend: the least-squares slope over the samples after warm-up.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pensive::server::mock::scenarios::scenario_for;

use crate::client::{self, http_client};
use crate::procs::{memory_kib, mock_stats, open_fds, settle, Servers};
use crate::relay::scripted_text;
use crate::report::{slope, Row};

/// How often memory and descriptors are sampled.
const EVERY: Duration = Duration::from_secs(5);
/// The first part of the run is warm-up (pools and allocator arenas fill).
const WARM_UP_FRACTION: f64 = 0.2;
/// Largest acceptable fitted RSS growth over the measured window, in MiB.
const RSS_GROWTH_LIMIT_MIB: f64 = 4.0;
/// Largest acceptable fitted growth of open descriptors over the window.
const FD_GROWTH_LIMIT: f64 = 20.0;

/// One sample of the app process.
struct Sample {
    minutes: f64,
    rss_kib: u64,
    fds: usize,
    turns: usize,
}

/// The rows, and whether the soak passed (no error, no growth, nothing left).
pub async fn run(
    servers: &Servers,
    minutes: f64,
    concurrent: usize,
    pace_ms: u64,
) -> Result<(Vec<Row>, bool), String> {
    let client = http_client();
    let prompt = format!("mock:paced-{pace_ms}");
    let expected = Arc::new(scripted_text(&scenario_for(&prompt, Duration::ZERO)));
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(minutes * 60.0);
    let completed = Arc::new(AtomicUsize::new(0));
    let failed = Arc::new(AtomicUsize::new(0));
    let mut workers = tokio::task::JoinSet::new();
    for worker in 0..concurrent {
        let (client, app, expected) = (client.clone(), servers.app.clone(), expected.clone());
        let (completed, failed) = (completed.clone(), failed.clone());
        let prompt = format!("worker {worker}: {prompt}");
        workers.spawn(async move {
            while Instant::now() < deadline {
                let outcome = client::via_app(&client, &app, &prompt, false)
                    .await
                    .and_then(|r| r.check(&expected.0, &expected.1));
                match outcome {
                    Ok(()) => completed.fetch_add(1, Ordering::SeqCst),
                    Err(message) => {
                        if failed.fetch_add(1, Ordering::SeqCst) < 5 {
                            println!("    error: {message}");
                        }
                        0
                    }
                };
            }
        });
    }
    let pid = servers.pensive.pid();
    let mut samples = Vec::new();
    let mut next = started;
    while Instant::now() < deadline {
        next += EVERY;
        tokio::time::sleep_until(next.into()).await;
        let (Some((rss_kib, _)), Some(fds)) = (memory_kib(pid), open_fds(pid)) else {
            return Err("the pensive process is gone".into());
        };
        let sample = Sample {
            minutes: started.elapsed().as_secs_f64() / 60.0,
            rss_kib,
            fds,
            turns: completed.load(Ordering::SeqCst),
        };
        println!(
            "  {:6.2} min  RSS {:7.1} MiB  fds {:5}  turns {:7}  errors {}",
            sample.minutes,
            rss_kib as f64 / 1024.0,
            fds,
            sample.turns,
            failed.load(Ordering::SeqCst)
        );
        samples.push(sample);
    }
    while workers.join_next().await.is_some() {}
    let elapsed_min = started.elapsed().as_secs_f64() / 60.0;
    let active = settle(&client, &servers.app).await?;
    let (mock_active, closed_early) = mock_stats(&client, &servers.upstream).await?;
    write_samples(&samples)?;

    let measured: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.minutes >= minutes * WARM_UP_FRACTION)
        .collect();
    let rss_slope = slope(
        &measured
            .iter()
            .map(|s| (s.minutes, s.rss_kib as f64 / 1024.0))
            .collect::<Vec<_>>(),
    );
    let fd_slope = slope(
        &measured
            .iter()
            .map(|s| (s.minutes, s.fds as f64))
            .collect::<Vec<_>>(),
    );
    let window = measured
        .last()
        .zip(measured.first())
        .map_or(0.0, |(last, first)| last.minutes - first.minutes);
    let max_rss = samples.iter().map(|s| s.rss_kib).max().unwrap_or(0) as f64 / 1024.0;
    let max_fds = samples.iter().map(|s| s.fds).max().unwrap_or(0) as f64;
    let turns = completed.load(Ordering::SeqCst);
    let errors = failed.load(Ordering::SeqCst);
    let rows = vec![
        Row::info("duration", elapsed_min, "min"),
        Row::info("concurrent turns", concurrent as f64, ""),
        Row::info("turns completed, byte-exact", turns as f64, ""),
        Row::info(
            "turns per second",
            turns as f64 / (elapsed_min * 60.0),
            "/s",
        ),
        Row::at_most("failed turns", errors as f64, "", 0.0),
        Row::info("samples (every 5 s)", samples.len() as f64, ""),
        Row::info("RSS of pensive, highest sample", max_rss, "MiB"),
        Row::info("RSS slope after warm-up", rss_slope, "MiB/min"),
        Row::at_most(
            "RSS fitted growth over the measured window",
            rss_slope * window,
            "MiB",
            RSS_GROWTH_LIMIT_MIB,
        ),
        Row::info("open fds, highest sample", max_fds, ""),
        Row::info("open fds slope after warm-up", fd_slope, "/min"),
        Row::at_most(
            "open fds fitted growth over the measured window",
            fd_slope * window,
            "",
            FD_GROWTH_LIMIT,
        ),
        Row::at_most("/healthz active_turns at the end", active as f64, "", 0.0),
        Row::at_most(
            "mock streams still open at the end",
            mock_active as f64,
            "",
            0.0,
        ),
        Row::at_most("mock streams closed early", closed_early as f64, "", 0.0),
    ];
    let passed = rows.iter().all(|r| r.met != Some(false)) && measured.len() >= 2;
    Ok((rows, passed))
}

/// Every sample as CSV next to the results, for plotting.
fn write_samples(samples: &[Sample]) -> Result<(), String> {
    let mut csv = String::from("minutes,rss_kib,fds,turns\n");
    for s in samples {
        csv.push_str(&format!(
            "{:.3},{},{},{}\n",
            s.minutes, s.rss_kib, s.fds, s.turns
        ));
    }
    let path = "target/bench/results/soak-samples.csv";
    std::fs::create_dir_all("target/bench/results").map_err(|e| e.to_string())?;
    std::fs::write(path, csv).map_err(|e| format!("{path}: {e}"))
}
