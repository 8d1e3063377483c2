//! Numbers: percentiles, a least-squares slope, and the results file each mode
//! writes (`target/bench/results/<mode>.json`, rows of metric / value / goal).

use serde::Serialize;

/// One measured figure, with its goal when it has one.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub metric: String,
    pub value: f64,
    pub unit: String,
    pub goal: Option<String>,
    /// Whether the goal was met; `None` when there is no goal.
    pub met: Option<bool>,
}

impl Row {
    /// A figure without a goal.
    pub fn info(metric: impl Into<String>, value: f64, unit: &str) -> Self {
        Self {
            metric: metric.into(),
            value,
            unit: unit.into(),
            goal: None,
            met: None,
        }
    }

    /// A figure that must be at most `limit`.
    pub fn at_most(metric: impl Into<String>, value: f64, unit: &str, limit: f64) -> Self {
        Self {
            goal: Some(format!("≤ {limit}")),
            met: Some(value <= limit),
            ..Self::info(metric, value, unit)
        }
    }

    /// A figure that must be at least `limit`.
    pub fn at_least(metric: impl Into<String>, value: f64, unit: &str, limit: f64) -> Self {
        Self {
            goal: Some(format!("≥ {limit}")),
            met: Some(value >= limit),
            ..Self::info(metric, value, unit)
        }
    }
}

#[derive(Serialize)]
struct Results<'a> {
    title: &'a str,
    rows: &'a [Row],
}

/// Prints the rows and writes them to `target/bench/results/<mode>.json`.
pub fn write(mode: &str, title: &str, rows: &[Row]) -> Result<(), String> {
    println!("\n{title}");
    for row in rows {
        let goal = match (&row.goal, row.met) {
            (Some(goal), Some(true)) => format!("  goal {goal}: met"),
            (Some(goal), _) => format!("  goal {goal}: MISSED"),
            _ => String::new(),
        };
        println!(
            "  {:<48} {:>12} {}{goal}",
            row.metric,
            round(row.value),
            row.unit
        );
    }
    let dir = std::path::Path::new("target/bench/results");
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!("{mode}.json"));
    let rows: Vec<Row> = rows
        .iter()
        .cloned()
        .map(|r| Row {
            value: round(r.value),
            ..r
        })
        .collect();
    let json =
        serde_json::to_string_pretty(&Results { title, rows: &rows }).map_err(|e| e.to_string())?;
    std::fs::write(&path, json + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    println!("  → {}", path.display());
    Ok(())
}

/// Four significant digits are plenty for a benchmark figure.
fn round(value: f64) -> f64 {
    if value == 0.0 || !value.is_finite() {
        return value;
    }
    let digits = 4 - value.abs().log10().ceil() as i32;
    let scale = 10f64.powi(digits.max(0));
    (value * scale).round() / scale
}

/// The `p`-th percentile (0–100) by nearest rank; 0 for no samples.
pub fn percentile(samples: &mut [f64], p: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * samples.len() as f64).ceil() as usize;
    samples[rank.clamp(1, samples.len()) - 1]
}

/// The median of a few timings.
pub fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    percentile(&mut sorted, 50.0)
}

/// Least-squares slope of `y` over `x` (0 for fewer than two points).
pub fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    if points.len() < 2 {
        return 0.0;
    }
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let cov: f64 = points
        .iter()
        .map(|(x, y)| (x - mean_x) * (y - mean_y))
        .sum();
    let var: f64 = points.iter().map(|(x, _)| (x - mean_x).powi(2)).sum();
    if var == 0.0 {
        0.0
    } else {
        cov / var
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let mut samples: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&mut samples, 50.0), 50.0);
        assert_eq!(percentile(&mut samples, 99.0), 99.0);
        assert_eq!(percentile(&mut samples, 100.0), 100.0);
        assert_eq!(percentile(&mut [], 99.0), 0.0);
    }

    #[test]
    fn slope_of_a_line_and_of_a_flat_series() {
        assert_eq!(slope(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]), 2.0);
        assert_eq!(slope(&[(0.0, 4.0), (1.0, 4.0), (2.0, 4.0)]), 0.0);
    }

    #[test]
    fn figures_keep_four_significant_digits() {
        assert_eq!(round(1.034_567), 1.035);
        assert_eq!(round(123_456.7), 123_457.0);
        assert_eq!(round(0.000_123_45), 0.000_123_5);
    }
}
