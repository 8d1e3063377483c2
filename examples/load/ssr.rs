//! `ssr`: server-rendered page throughput, `GET /` with `wrk` (keep-alive) at
//! 1 and 64 connections; requests/s and p99 latency from `wrk --latency`.

use std::process::Command;

use crate::report::Row;

/// What `wrk --latency` reported.
#[derive(Debug, PartialEq)]
pub struct WrkResult {
    pub requests_per_sec: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// Non-2xx/3xx responses plus socket errors.
    pub errors: u64,
}

pub async fn run(app: &str, seconds: u64) -> Result<Vec<Row>, String> {
    // The page must render before it is worth timing.
    let page = reqwest::get(format!("{app}/"))
        .await
        .map_err(|e| format!("GET /: {e}"))?;
    if !page.status().is_success() {
        return Err(format!("GET /: HTTP {}", page.status()));
    }
    let body = page.text().await.map_err(|e| e.to_string())?;
    println!("  GET / → {} bytes of HTML", body.len());
    let mut rows = Vec::new();
    for (connections, threads) in [(1, 1), (64, 2)] {
        let result = wrk(app, connections, threads, seconds)?;
        println!("  {connections} connection(s): {result:?}");
        rows.push(Row::info(
            format!("GET /, {connections} connection(s): requests/s"),
            result.requests_per_sec,
            "/s",
        ));
        rows.push(Row::info(
            format!("GET /, {connections} connection(s): latency p50"),
            result.p50_ms,
            "ms",
        ));
        rows.push(Row::info(
            format!("GET /, {connections} connection(s): latency p99"),
            result.p99_ms,
            "ms",
        ));
        rows.push(Row::at_most(
            format!("GET /, {connections} connection(s): errors"),
            result.errors as f64,
            "",
            0.0,
        ));
    }
    Ok(rows)
}

fn wrk(app: &str, connections: u32, threads: u32, seconds: u64) -> Result<WrkResult, String> {
    let output = Command::new("wrk")
        .args([
            format!("-t{threads}"),
            format!("-c{connections}"),
            format!("-d{seconds}s"),
            "--latency".into(),
            format!("{app}/"),
        ])
        .output()
        .map_err(|e| format!("cannot run wrk: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!("wrk failed: {text}"));
    }
    parse_wrk(&text).ok_or_else(|| format!("cannot read wrk's output:\n{text}"))
}

/// Reads the figures out of `wrk --latency` output.
pub fn parse_wrk(text: &str) -> Option<WrkResult> {
    let value_after = |label: &str| -> Option<&str> {
        text.lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix(label))
            .map(str::trim)
    };
    let requests_per_sec = value_after("Requests/sec:")?.parse().ok()?;
    let p50_ms = duration_ms(value_after("50%")?)?;
    let p99_ms = duration_ms(value_after("99%")?)?;
    let non_2xx: u64 = value_after("Non-2xx or 3xx responses:")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    // "Socket errors: connect 0, read 0, write 0, timeout 0"
    let socket: u64 = value_after("Socket errors:")
        .map(|v| {
            v.split(',')
                .filter_map(|part| part.split_whitespace().nth(1)?.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0);
    Some(WrkResult {
        requests_per_sec,
        p50_ms,
        p99_ms,
        errors: non_2xx + socket,
    })
}

/// `812.00us`, `1.23ms`, `2.01s` → milliseconds.
fn duration_ms(text: &str) -> Option<f64> {
    let split = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    match unit {
        "us" => Some(number / 1000.0),
        "ms" => Some(number),
        "s" => Some(number * 1000.0),
        "m" => Some(number * 60_000.0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "Running 10s test @ http://127.0.0.1:5000/
  1 threads and 1 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   412.35us  102.11us   3.02ms   91.23%
    Req/Sec     2.41k   112.34     2.60k    70.00%
  Latency Distribution
     50%  398.00us
     75%  430.00us
     90%  470.00us
     99%    1.02ms
  24012 requests in 10.00s, 120.33MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
Requests/sec:   2401.15
Transfer/sec:     12.03MB
";

    #[test]
    fn wrk_output_is_read() {
        assert_eq!(
            parse_wrk(SAMPLE),
            Some(WrkResult {
                requests_per_sec: 2401.15,
                p50_ms: 0.398,
                p99_ms: 1.02,
                errors: 3,
            })
        );
    }
}
