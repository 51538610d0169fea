//! The benchmark's results: one record per cell, written as JSON and as a Markdown table.

use std::fmt::Write as _;

use serde::Serialize;

use super::measure::WriterStats;

/// One cell of the matrix and both writers' figures.
#[derive(Debug, Clone, Serialize)]
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
    /// parquet's `ArrowWriter`.
    pub arrow_writer: WriterStats,
    /// `ParallelArrowWriter`.
    pub parallel: WriterStats,
    /// `ArrowWriter` median over parallel median.
    pub speedup: f64,
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

/// The results as a Markdown table.
pub fn markdown(cells: &[CellResult], header: &str) -> String {
    let mut text = format!("{header}\n\n| shape | cols | rows | compression | ArrowWriter s | parallel s | speedup | CPU s ArrowWriter | CPU s parallel | parallel Arrow MiB/s | output MiB | held MiB ArrowWriter | held MiB parallel | RSS +MiB ArrowWriter | RSS +MiB parallel |\n|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for c in cells {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {:.4} | {:.4} | {:.2}x | {} | {} | {:.0} | {:.1} | {:.1} | {:.1} | {} | {} |",
            c.shape,
            c.columns,
            c.rows,
            c.compression,
            c.arrow_writer.median_s,
            c.parallel.median_s,
            c.speedup,
            cpu(c.arrow_writer.median_cpu_s),
            cpu(c.parallel.median_cpu_s),
            c.parallel_mib_per_s(),
            c.parallel.output_bytes as f64 / (1024.0 * 1024.0),
            c.arrow_writer.peak_writer_bytes as f64 / (1024.0 * 1024.0),
            c.parallel.peak_writer_bytes as f64 / (1024.0 * 1024.0),
            mib(c.arrow_writer.peak_extra_bytes),
            mib(c.parallel.peak_extra_bytes),
        );
    }
    text
}
