//! hyperfine's `--export-json` output, in both the 1.15 (Debian) and 1.20 layouts.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One benchmarked command.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct HyperfineResult {
    /// The command line.
    pub command: String,
    /// Mean wall time in seconds.
    pub mean: f64,
    /// Standard deviation, absent for a single run.
    pub stddev: Option<f64>,
    /// Median wall time.
    pub median: f64,
    /// Mean user time.
    pub user: f64,
    /// Mean system time.
    pub system: f64,
    /// Fastest run.
    pub min: f64,
    /// Slowest run.
    pub max: f64,
    /// Every run's wall time.
    pub times: Vec<f64>,
    /// Peak memory of each run (hyperfine >= 1.19 only).
    #[serde(default)]
    pub memory_usage_byte: Option<Vec<u64>>,
    /// Values of `--parameter-list` parameters for this command.
    #[serde(default)]
    pub parameters: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
struct Export {
    results: Vec<HyperfineResult>,
}

/// The results of an export.
pub fn parse(json: &str) -> Result<Vec<HyperfineResult>, serde_json::Error> {
    Ok(serde_json::from_str::<Export>(json)?.results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_hyperfine_1_15() {
        let results = parse(include_str!("../../tests/fixtures/hyperfine-1.15.json")).unwrap();
        assert_eq!(results.len(), 1);
        let r = &results[0];
        assert_eq!(r.times.len(), 3);
        assert!((r.median - 0.2041).abs() < 1e-4);
        assert_eq!(r.memory_usage_byte, None);
    }

    #[test]
    fn reads_hyperfine_1_20() {
        let results = parse(include_str!("../../tests/fixtures/hyperfine-1.20.json")).unwrap();
        let r = &results[0];
        assert_eq!(r.times.len(), 2);
        assert_eq!(
            r.memory_usage_byte.as_deref(),
            Some(&[52_166_656, 52_690_944][..])
        );
        assert!(r.stddev.is_some());
    }
}
