//! The long-run memory benchmark (`make billion`): the pipeline's milestone lines, every 100 M
//! rows of a billion-row run, as a Markdown table of throughput and memory.

use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

use crate::markdown::{Align, Table};

/// One `--milestones` line.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Milestone {
    /// Rows written so far.
    pub rows: u64,
    /// Seconds since the run started.
    pub seconds: f64,
    /// Resident set size, bytes.
    pub rss_bytes: Option<u64>,
    /// Peak resident set size so far, bytes.
    pub peak_rss_bytes: Option<u64>,
}

/// Parses the milestone lines of `text` (one JSON object a line; other lines are skipped).
pub fn parse(text: &str) -> Result<Vec<Milestone>> {
    text.lines()
        .filter(|line| line.starts_with('{'))
        .map(|line| serde_json::from_str(line).with_context(|| format!("bad milestone: {line}")))
        .collect()
}

/// Reads `dir/milestones.jsonl`.
pub fn load(dir: &Path) -> Result<Vec<Milestone>> {
    let path = dir.join("milestones.jsonl");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    parse(&text)
}

fn mib(bytes: Option<u64>) -> String {
    bytes.map_or_else(
        || "-".to_string(),
        |b| format!("{:.0}", b as f64 / 1048576.0),
    )
}

/// The table: per milestone, rows, time, rows/s since the previous milestone and overall, RSS
/// and peak RSS; `header` goes above it.
pub fn markdown(milestones: &[Milestone], header: &str) -> String {
    let mut table = Table::new(
        [
            "rows (M)",
            "seconds",
            "M rows/s since previous",
            "M rows/s overall",
            "RSS MiB",
            "peak RSS MiB",
        ]
        .map(|name| (name, Align::Right)),
    );
    let mut previous = (0, 0.0);
    for m in milestones {
        let interval = (m.rows - previous.0) as f64 / (m.seconds - previous.1);
        table.row([
            format!("{:.0}", m.rows as f64 / 1e6),
            format!("{:.1}", m.seconds),
            format!("{:.2}", interval / 1e6),
            format!("{:.2}", m.rows as f64 / m.seconds / 1e6),
            mib(m.rss_bytes),
            mib(m.peak_rss_bytes),
        ]);
        previous = (m.rows, m.seconds);
    }
    format!("{header}\n\n{table}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milestones_become_a_table_with_interval_rates() {
        let text = "progress noise\n\
            {\"rows\":100000000,\"seconds\":10.0,\"rows_per_s\":1e7,\"rss_bytes\":104857600,\"peak_rss_bytes\":209715200}\n\
            {\"rows\":200000000,\"seconds\":30.0,\"rows_per_s\":6.7e6,\"rss_bytes\":null,\"peak_rss_bytes\":209715200}\n";
        let milestones = parse(text).unwrap();
        assert_eq!(milestones.len(), 2);
        let table = markdown(&milestones, "# t");
        assert!(
            table.contains("| 100 | 10.0 | 10.00 | 10.00 | 100 | 200 |"),
            "{table}"
        );
        // 100 M rows in the 20 s between the milestones: 5 M rows/s.
        assert!(
            table.contains("| 200 | 30.0 | 5.00 | 6.67 | - | 200 |"),
            "{table}"
        );
    }
}
