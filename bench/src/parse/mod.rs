//! Parsers of the raw output of the tools the scripts run: hyperfine, `perf stat`, cachegrind,
//! and the JSON-lines files the scripts write.

pub mod cachegrind;
pub mod hyperfine;
pub mod perf_stat;

use std::path::Path;

use anyhow::{Context, Result};
use serde::de::DeserializeOwned;

/// The records of a JSON-lines file (blank lines skipped); none when the file does not exist.
pub fn json_lines<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line).with_context(|| format!("{} line {}", path.display(), i + 1))
        })
        .collect()
}
