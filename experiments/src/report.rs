//! What a run prints: a few human lines, or one JSON line with `--json`.

use std::time::Duration;

use serde::Serialize;

use crate::alloc;
use crate::build_info::{BuildInfo, BUILD};
use crate::catalog::{Optimization, CATALOG};
use crate::compression::CompressionSpec;
use crate::config::PipelineConfig;
use crate::counters::figures::CountersReport;
use crate::gate::{Digest, OrderedDigest, ReadBack};
use crate::leaf_encoders::LeafEncoders;
use crate::output::{CommittedFile, SinkKind, SyncMode};
use crate::process;
use crate::usage::{HeapUse, Usage};

/// The metrics of one run, as printed by `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// Experiment number.
    pub experiment: u32,
    /// Experiment slug.
    pub slug: &'static str,
    /// The optimizations in force.
    pub optimizations: Vec<&'static str>,
    /// What was generated: `contacts`, or the spec file's path.
    pub workload: String,
    /// Rows written.
    pub rows: u64,
    /// Rows per batch.
    pub batch_size: usize,
    /// Producer threads.
    pub producers: usize,
    /// Writer threads.
    pub writers: usize,
    /// Seed.
    pub seed: u64,
    /// Shard index.
    pub part: u64,
    /// Shard count.
    pub parts: u64,
    /// Compression.
    pub compression: CompressionSpec,
    /// Rows per row group.
    pub row_group_rows: usize,
    /// Closed row groups that could still be encoding (parallel writer only).
    pub row_groups_in_flight: Option<usize>,
    /// Bytes of Arrow data that could wait for the encoders (parallel writer only).
    pub writer_budget_bytes: Option<usize>,
    /// Where the batches went: `file`, or `null` (dropped unencoded).
    pub sink: SinkKind,
    /// Whether the files were synced at the end (`end`) or not (`none`).
    pub sync: SyncMode,
    /// The allocator the process ran on.
    pub allocator: &'static str,
    /// Wall time in seconds.
    pub elapsed_s: f64,
    /// Rows per second.
    pub rows_per_s: f64,
    /// User plus system CPU seconds of the process over the same span as `elapsed_s` (10 ms
    /// resolution; `None` without `/proc`).
    pub cpu_s: Option<f64>,
    /// Cores kept busy on average: `cpu_s / elapsed_s`.
    pub cores_busy: Option<f64>,
    /// CPU seconds a hypervisor took from this machine's CPUs over the same span, every CPU
    /// (`/proc/stat`'s steal, 10 ms resolution; 0 on bare metal, `None` without `/proc`): time
    /// a thread was ready while the host ran another guest. Not in `cpu_s`; perf's task-clock
    /// (`--counters`) counts it.
    pub stolen_s: Option<f64>,
    /// The process's peak resident set size when the run ended, in bytes (`None` without
    /// `/proc`).
    pub peak_rss_bytes: Option<u64>,
    /// Heap allocations of the run, with `--count-allocations` (which slows every allocation
    /// down: take timings from runs without it).
    pub heap: Option<HeapUse>,
    /// Allocations per row written, with `--count-allocations`.
    pub allocations_per_row: Option<f64>,
    /// Bytes allocated per row written, with `--count-allocations`.
    pub bytes_allocated_per_row: Option<f64>,
    /// Whether the batches were built before the clock started (`--prebuilt`).
    pub prebuilt: bool,
    /// Arrow bytes produced.
    pub arrow_bytes: u64,
    /// Arrow bytes per second.
    pub arrow_bytes_per_s: f64,
    /// Parquet bytes written.
    pub output_bytes: u64,
    /// The files written.
    pub files: Vec<String>,
    /// Digest of the data read back, when `--verify` was given.
    pub digest: Option<Digest>,
    /// `"pass"` when the data gate ran and matched.
    pub gate: Option<&'static str>,
    /// The order-sensitive digest of the files read back (rows in file order, files in writer
    /// order), when `--verify` was given; absent from the JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_order_digest: Option<OrderedDigest>,
    /// Encoder threads the parallel writers started (0: every row group stayed inline).
    pub pool_threads: usize,
    /// Which encoder wrote each leaf column (absent with `--sink null`, where nothing is
    /// encoded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaf_encoders: Option<LeafEncoders>,
    /// Per-role perf counts, with `--counters`; absent from the JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counters: Option<CountersReport>,
    /// The commit and work-tree state the binary was built from.
    pub build: BuildInfo,
}

/// What a run measured, for its report.
#[derive(Debug, Clone, Copy)]
pub struct Totals {
    /// Wall time of generating, writing and committing (the gate's read-back excluded).
    pub elapsed: Duration,
    /// CPU and heap use of the process over the same span.
    pub usage: Usage,
    /// Parquet bytes written (to files, or counted by `--sink count`).
    pub output_bytes: u64,
    /// Rows written.
    pub rows: u64,
    /// Bytes of Arrow data produced.
    pub arrow_bytes: u64,
    /// Encoder threads the parallel writers started.
    pub pool_threads: usize,
}

impl RunReport {
    /// The report of a finished run with `totals`, written into `files`; `read_back` is what
    /// the gate read back when it ran and passed.
    pub fn new(
        config: &PipelineConfig,
        totals: &Totals,
        files: &[CommittedFile],
        read_back: Option<ReadBack>,
    ) -> Self {
        let Totals {
            elapsed,
            usage:
                Usage {
                    cpu_s,
                    stolen_s,
                    heap,
                },
            rows,
            arrow_bytes,
            output_bytes,
            pool_threads,
        } = *totals;
        let seconds = elapsed.as_secs_f64();
        let parallel = config.optimizations.has(Optimization::ParallelWriter);
        let fused = config.optimizations.has(Optimization::FusedRowGroups);
        Self {
            experiment: config.experiment,
            slug: CATALOG[config.experiment as usize].slug,
            optimizations: config.optimizations.iter().map(|o| o.slug()).collect(),
            workload: config
                .spec
                .as_ref()
                .map_or_else(|| "contacts".to_string(), |s| s.path.display().to_string()),
            rows,
            batch_size: config.batch_size,
            producers: config.producers,
            writers: config.writers,
            seed: config.seed,
            part: config.shard.index(),
            parts: config.shard.count(),
            compression: config.compression,
            row_group_rows: config.writer_memory.row_group_rows,
            row_groups_in_flight: (parallel || fused)
                .then_some(config.writer_memory.row_groups_in_flight),
            // Fused row groups have no queue for a budget to bound.
            writer_budget_bytes: (parallel && !fused).then_some(config.writer_memory.budget_bytes),
            sink: config.sink,
            sync: config.sync,
            allocator: alloc::active().name(),
            elapsed_s: seconds,
            rows_per_s: rows as f64 / seconds,
            cpu_s,
            cores_busy: cpu_s.map(|cpu| cpu / seconds),
            stolen_s,
            peak_rss_bytes: process::peak_rss(),
            heap,
            allocations_per_row: heap.map(|h| h.allocations as f64 / rows as f64),
            bytes_allocated_per_row: heap.map(|h| h.bytes_requested as f64 / rows as f64),
            prebuilt: config.prebuilt,
            arrow_bytes,
            arrow_bytes_per_s: arrow_bytes as f64 / seconds,
            output_bytes,
            files: files.iter().map(|f| f.location.clone()).collect(),
            digest: read_back.map(|r| r.digest),
            gate: read_back.map(|_| "pass"),
            file_order_digest: read_back.map(|r| r.file_order),
            pool_threads,
            leaf_encoders: None,
            counters: None,
            build: BUILD,
        }
    }

    /// The human-readable summary.
    pub fn human(&self) -> String {
        let mib = |bytes: f64| bytes / (1024.0 * 1024.0);
        let mut text = format!(
            "experiment {:02}-{}: {} rows of {} in {:.3} s ({:.2} M rows/s)\n\
             producers {}, writers {}, batch {}, compression {}, allocator {}, sync {}\n\
             arrow {:.1} MiB ({:.1} MiB/s), ",
            self.experiment,
            self.slug,
            self.rows,
            self.workload,
            self.elapsed_s,
            self.rows_per_s / 1e6,
            self.producers,
            self.writers,
            self.batch_size,
            self.compression,
            self.allocator,
            self.sync,
            mib(self.arrow_bytes as f64),
            mib(self.arrow_bytes_per_s),
        );
        text.push_str(&match self.sink {
            SinkKind::File => format!(
                "parquet {:.1} MiB in {} file(s)\n",
                mib(self.output_bytes as f64),
                self.files.len()
            ),
            SinkKind::Null => "batches dropped unencoded (--sink null)\n".to_string(),
            SinkKind::Count => format!(
                "parquet {:.1} MiB counted, not written (--sink count)\n",
                mib(self.output_bytes as f64)
            ),
        });
        if let Some(heap) = self.heap {
            text.push_str(&format!(
                "heap: {} allocations ({:.2} per row), {:.1} MiB allocated ({:.0} bytes per row), peak {:.1} MiB live\n",
                heap.allocations,
                self.allocations_per_row.unwrap_or(0.0),
                mib(heap.bytes_requested as f64),
                self.bytes_allocated_per_row.unwrap_or(0.0),
                mib(heap.peak_live_bytes as f64),
            ));
        }
        if let Some(steal) = material_steal(self.stolen_s, self.cpu_s) {
            text.push_str(&format!(
                "hypervisor steal: the host took {steal:.2} CPU s from this machine's CPUs during the run; its timings ran slow\n"
            ));
        }
        if let Some(encoders) = &self.leaf_encoders {
            text.push_str(&encoders.human());
        }
        if let Some(digest) = self.digest {
            text.push_str(&format!("data gate: pass, digest {digest}\n"));
        }
        if let Some(counters) = &self.counters {
            text.push_str(&counters.human());
        }
        text
    }
}

/// `stolen_s` when it is worth a mention beside a process's `cpu_s`: over 2 % of it, and more
/// than the 10 ms resolution of either figure can blur.
fn material_steal(stolen_s: Option<f64>, cpu_s: Option<f64>) -> Option<f64> {
    let steal = stolen_s?;
    (steal > 0.02 && steal > 0.02 * cpu_s.unwrap_or(0.0)).then_some(steal)
}

#[cfg(test)]
mod tests {
    use super::material_steal;

    #[test]
    fn steal_is_mentioned_when_it_is_more_than_the_resolution_and_2_percent() {
        assert_eq!(material_steal(Some(0.06), Some(0.99)), Some(0.06));
        assert_eq!(material_steal(Some(0.06), None), Some(0.06));
        assert_eq!(material_steal(Some(0.02), Some(0.1)), None, "two ticks");
        assert_eq!(material_steal(Some(0.1), Some(6.0)), None, "under 2 %");
        assert_eq!(material_steal(Some(0.0), Some(1.0)), None);
        assert_eq!(material_steal(None, Some(1.0)), None);
    }
}
