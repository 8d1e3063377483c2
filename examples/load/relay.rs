//! `relay`: what the app adds on top of the provider stream it relays.
//!
//! Throughput: a `mock:firehose-<n>` turn at full speed, read straight from
//! the mock and through `POST /api/chat`, alternately, several times; the
//! ratio of median total times is the relay's cost.
//!
//! Latency: a `mock:stamped-<n>` turn, paced so every hop is idle when a chunk
//! is sent; the mock appends its wall-clock send time to each chunk, and the
//! reader subtracts it from the arrival time (same machine, same clock). The
//! direct path has one loopback hop, the relayed path two plus the app; the
//! difference of their percentiles is the latency the app adds.

use std::time::Duration;

use pensive::server::mock::scenarios::{scenario_for, Scenario};
use pensive::server::providers::delta::Delta;

use crate::client::{self, http_client, without_stamps, Received};
use crate::procs::Servers;
use crate::report::{median, percentile, Row};

/// The reasoning and answer text a scenario scripts.
pub fn scripted_text(scenario: &Scenario) -> (String, String) {
    let mut reasoning = String::new();
    let mut answer = String::new();
    for delta in scenario.steps.iter().flat_map(|s| &s.deltas) {
        match delta {
            Delta::Reasoning(text) => reasoning.push_str(text),
            Delta::Answer(text) => answer.push_str(text),
            _ => {}
        }
    }
    (reasoning, answer)
}

/// Rounds per path of the latency measurement.
const STAMP_ROUNDS: usize = 8;

pub async fn run(
    servers: &Servers,
    chunks: usize,
    runs: usize,
    stamps: usize,
) -> Result<Vec<Row>, String> {
    let client = http_client();
    let prompt = format!("mock:firehose-{chunks}");
    let (reasoning, answer) = scripted_text(&scenario_for(&prompt, Duration::ZERO));
    let mut direct_secs = Vec::new();
    let mut relay_secs = Vec::new();
    // Run 0 warms connections, caches and allocators on both paths; not counted.
    for run in 0..=runs {
        let direct = client::direct(&client, servers, &prompt, false).await?;
        direct.check(&reasoning, &answer)?;
        let relayed = client::via_app(&client, &servers.app, &prompt, false).await?;
        relayed.check(&reasoning, &answer)?;
        println!(
            "  run {run}: direct {:.1} ms, relayed {:.1} ms ({} events)",
            ms(direct.total),
            ms(relayed.total),
            relayed.arrivals.len()
        );
        if run > 0 {
            direct_secs.push(direct.total.as_secs_f64());
            relay_secs.push(relayed.total.as_secs_f64());
        }
    }
    let (direct_time, relay_time) = (median(&direct_secs), median(&relay_secs));

    // Short rounds, interleaved, so bursts of background load hit both paths alike.
    let stamped = format!("mock:stamped-{}", (stamps / STAMP_ROUNDS).max(1));
    let (_, stamped_answer) = scripted_text(&scenario_for(&stamped, Duration::ZERO));
    let mut direct_us = Vec::new();
    let mut relay_us = Vec::new();
    for _ in 0..STAMP_ROUNDS {
        let direct = client::direct(&client, servers, &stamped, true).await?;
        direct_us.extend(latencies(&direct, &stamped_answer)?);
        let relayed = client::via_app(&client, &servers.app, &stamped, true).await?;
        relay_us.extend(latencies(&relayed, &stamped_answer)?);
    }
    let [d50, d99] = [50.0, 99.0].map(|p| percentile(&mut direct_us, p) / 1000.0);
    let [r50, r99] = [50.0, 99.0].map(|p| percentile(&mut relay_us, p) / 1000.0);
    Ok(vec![
        Row::info(
            format!("direct: {chunks}-chunk turn, median of {runs}"),
            direct_time * 1000.0,
            "ms",
        ),
        Row::info(
            format!("relayed: {chunks}-chunk turn, median of {runs}"),
            relay_time * 1000.0,
            "ms",
        ),
        Row::at_most(
            "relayed / direct total time",
            relay_time / direct_time,
            "×",
            1.10,
        ),
        Row::info("relayed throughput", chunks as f64 / relay_time, "events/s"),
        Row::info("direct per-event latency p50", d50, "ms"),
        Row::info("direct per-event latency p99", d99, "ms"),
        Row::info("relayed per-event latency p50", r50, "ms"),
        Row::info("relayed per-event latency p99", r99, "ms"),
        Row::info("added per-event latency p50", r50 - d50, "ms"),
        Row::at_most("added per-event latency p99", r99 - d99, "ms", 2.0),
    ])
}

/// Checks a stamped turn's text (stamps removed) and returns its latencies in µs.
pub fn latencies(received: &Received, answer: &str) -> Result<Vec<f64>, String> {
    let plain = Received {
        answer: without_stamps(&received.answer),
        reasoning: received.reasoning.clone(),
        done: received.done,
        ..Received::default()
    };
    plain.check("", answer)?;
    let expected = answer.matches(' ').count();
    if received.latencies_us.len() != expected {
        return Err(format!(
            "{} send times for {expected} chunks",
            received.latencies_us.len()
        ));
    }
    Ok(received.latencies_us.iter().map(|&us| us as f64).collect())
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
