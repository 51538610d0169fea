//! The benchmark's results: one record per cell, written as JSON and as a Markdown table.

use serde::{Deserialize, Serialize};

use super::measure::WriterStats;
use crate::markdown::{Align, Table};
use crate::stats::median;

/// One cell of the matrix and both writers' figures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CellResult {
    /// `simple`, `complex` or `contacts`.
    pub shape: String,
    /// Top-level columns.
    pub columns: usize,
    /// Rows written.
    pub rows: usize,
    /// Compression codec.
    pub compression: String,
    /// Bytes of Arrow data written.
    pub arrow_bytes: u64,
    /// Encoder workers of the parallel writer.
    pub threads: usize,
    /// The baseline: parquet's `ArrowWriter`, or `ParallelArrowWriter` with arrow-rs's column
    /// encoder (the results' header names it).
    pub baseline: WriterStats,
    /// `ParallelArrowWriter` with shredlab's column encoder.
    pub parallel: WriterStats,
    /// The median over the repetitions of the baseline's time over the parallel writer's in
    /// the same repetition ([`paired_speedup`]).
    pub speedup: f64,
}

/// The median of `baseline[i] / parallel[i]`: each repetition runs the two writers back to
/// back, so a host that speeds up or slows down during a cell moves both sides of a ratio,
/// where it could move one writer's median and not the other's.
pub fn paired_speedup(baseline: &[f64], parallel: &[f64]) -> f64 {
    let ratios: Vec<f64> = baseline
        .iter()
        .zip(parallel)
        .map(|(baseline, parallel)| baseline / parallel)
        .collect();
    median(&ratios)
}

impl CellResult {
    /// Arrow MiB per second of the parallel writer's median.
    pub fn parallel_mib_per_s(&self) -> f64 {
        self.arrow_bytes as f64 / (1024.0 * 1024.0) / self.parallel.median_s
    }
}

fn cpu(seconds: Option<f64>) -> String {
    seconds.map_or_else(|| "n/a".to_string(), |s| format!("{s:.2}"))
}

fn mib(bytes: Option<u64>) -> String {
    bytes.map_or_else(
        || "n/a".to_string(),
        |b| format!("{:.1}", b as f64 / (1024.0 * 1024.0)),
    )
}

/// The results as a Markdown table under `header`, which names the baseline.
pub fn markdown(cells: &[CellResult], header: &str) -> String {
    let right = |name| (name, Align::Right);
    let mut table = Table::new([
        ("shape", Align::Left),
        right("cols"),
        right("rows"),
        ("compression", Align::Left),
        right("baseline s"),
        right("parallel s"),
        right("speedup"),
        right("CPU s baseline"),
        right("CPU s parallel"),
        right("parallel Arrow MiB/s"),
        right("output MiB"),
        right("held MiB baseline"),
        right("held MiB parallel"),
        right("RSS +MiB baseline"),
        right("RSS +MiB parallel"),
    ]);
    let in_mib = |bytes: usize| format!("{:.1}", bytes as f64 / (1024.0 * 1024.0));
    for c in cells {
        table.row([
            c.shape.clone(),
            c.columns.to_string(),
            c.rows.to_string(),
            c.compression.clone(),
            format!("{:.4}", c.baseline.median_s),
            format!("{:.4}", c.parallel.median_s),
            format!("{:.2}x", c.speedup),
            cpu(c.baseline.median_cpu_s),
            cpu(c.parallel.median_cpu_s),
            format!("{:.0}", c.parallel_mib_per_s()),
            format!("{:.1}", c.parallel.output_bytes as f64 / (1024.0 * 1024.0)),
            in_mib(c.baseline.peak_writer_bytes),
            in_mib(c.parallel.peak_writer_bytes),
            mib(c.baseline.peak_extra_bytes),
            mib(c.parallel.peak_extra_bytes),
        ]);
    }
    format!("{header}\n\n{table}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host that slows down during a cell moves one writer's median more than the other's
    /// (here 3x apart), while each repetition's pair stays 1.5x apart but one.
    #[test]
    fn speedup_pairs_each_repetition() {
        let baseline = [1.5, 1.5, 3.0, 3.0, 3.0];
        let parallel = [1.0, 1.0, 1.0, 2.0, 2.0];
        assert_eq!(median(&baseline) / median(&parallel), 3.0);
        assert_eq!(paired_speedup(&baseline, &parallel), 1.5);
    }
}
