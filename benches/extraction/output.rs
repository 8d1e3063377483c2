//! Where the benchmark writes: the input for the peer, and our measurements
//! read back from criterion's own estimates (`<criterion>/<group>/<id>/new/estimates.json`).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

/// `$PENSIVE_BENCH_DIR`, else `<target dir>/bench` (the target dir as cargo
/// and criterion resolve it: `$CARGO_TARGET_DIR`, else `./target`).
pub fn bench_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PENSIVE_BENCH_DIR") {
        return PathBuf::from(dir);
    }
    target_dir().join("bench")
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

/// Where criterion keeps its estimates (`$CRITERION_HOME`, else `<target>/criterion`).
pub fn criterion_dir() -> PathBuf {
    std::env::var_os("CRITERION_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("criterion"))
}

/// The median time of one iteration in seconds, if criterion measured
/// `group/id` during this run (an older file from a filtered run is ignored).
pub fn median_seconds(group: &str, id: &str, since: SystemTime) -> Option<f64> {
    let path = criterion_dir()
        .join(group)
        .join(id)
        .join("new")
        .join("estimates.json");
    let fresh = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .is_ok_and(|modified| modified >= since);
    if !fresh {
        return None;
    }
    let estimates: Value = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
    let nanos = estimates.get("median")?.get("point_estimate")?.as_f64()?;
    Some(nanos / 1e9)
}

/// Writes `value` as pretty JSON, creating the directory.
pub fn write_json(path: &Path, value: &Value) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    std::fs::write(path, text + "\n")
}

/// Writes bytes, creating the directory.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, bytes)
}
