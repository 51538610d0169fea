//! The `pipeline` command line, turned into plain data before anything runs.

use std::path::PathBuf;

use clap::{Parser, ValueEnum};
use shredlab_generator::SkewConfig;

use crate::build_info::VERSION;
use crate::catalog::{newest_experiment, Optimization};
use crate::compression::CompressionSpec;
use crate::config::RunRequest;
use crate::output::{SinkKind, SyncMode};

/// Generate nested, Zipf-skewed contact records and write them as Parquet, one numbered
/// optimization experiment at a time.
#[derive(Debug, Parser)]
#[command(name = "pipeline", version = VERSION, about, args_override_self = true)]
pub struct Cli {
    /// Experiment number: the baseline plus optimizations 1..=N (see --list). The default is the
    /// newest entry: the fastest configuration, with byte-reproducible files.
    #[arg(long, short = 'e', default_value_t = newest_experiment())]
    pub experiment: u32,
    /// Print the experiment catalog and exit: as text, as a Markdown table, or entry by entry
    /// with what each changes in the code.
    #[arg(long, value_name = "FORMAT", num_args = 0..=1, default_missing_value = "text")]
    pub list: Option<ListFormat>,
    /// Switch optimizations on, on top of the experiment (comma-separated slugs); an allocator
    /// enabled replaces the experiment's.
    #[arg(long, value_delimiter = ',')]
    pub enable: Vec<Optimization>,
    /// Switch optimizations off (comma-separated slugs).
    #[arg(long, value_delimiter = ',')]
    pub disable: Vec<Optimization>,
    /// Rows to generate.
    #[arg(long, short = 'n', default_value_t = 10_000_000)]
    pub rows: u64,
    /// Rows per batch [default: 1024, 4096 from experiment 8, 16384 from experiment 19].
    #[arg(long)]
    pub batch_size: Option<usize>,
    /// Producer threads [default: available CPUs].
    #[arg(long)]
    pub producers: Option<usize>,
    /// Writer threads, one file each [default: set by the experiment].
    #[arg(long)]
    pub writers: Option<usize>,
    /// Where the part-NNNNN.parquet files go: a directory (or file:///path), or an
    /// S3-compatible object store, s3://BUCKET/PREFIX, configured by the AWS_* variables
    /// (AWS_ENDPOINT, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ALLOW_HTTP).
    #[arg(long, short = 'o', visible_alias = "output-dir", default_value = "out")]
    pub output: String,
    /// Replace the part files of an earlier run in --output.
    #[arg(long)]
    pub overwrite: bool,
    /// Seed of the generated data.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Parquet compression: none, snappy, lz4, or zstd(LEVEL).
    #[arg(long, default_value = "none")]
    pub compression: CompressionSpec,
    /// Zipf exponent of first and last names (0 is uniform) [default: 1.0].
    #[arg(long)]
    pub zipf_exponent: Option<f64>,
    /// Generate the workload of this spec file (see SPEC.md and specs/) instead of the
    /// contacts; the experiment's contacts-only optimizations are left out.
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
    /// Read the files back and check their digest against the data produced.
    #[arg(long)]
    pub verify: bool,
    /// This process's shard, 0-based (e.g. a Kubernetes completion index or Slurm array task id).
    #[arg(long, default_value_t = 0)]
    pub part: u64,
    /// Number of shards the rows are split into; each shard writes its own files.
    #[arg(long, default_value_t = 1)]
    pub parts: u64,
    /// Every N rows written, print a JSON line to stderr: rows, seconds, rows/s, RSS, peak RSS.
    #[arg(long, value_name = "N")]
    pub milestones: Option<u64>,
    /// Sync the files at the end (`end`: a finished run survives a crash) or not at all
    /// (`none`: only to compare with tools that never sync).
    #[arg(long, value_enum, default_value = "end")]
    pub sync: SyncMode,
    /// Where the batches go: `file` (Parquet files in --output), `null` (dropped unencoded,
    /// to measure generation alone) or `count` (encoded into a byte-counting sink, no disk).
    #[arg(long, value_enum, default_value = "file")]
    pub sink: SinkKind,
    /// Build every batch before the clock starts (held in memory), so the run times only what
    /// follows generation; with `--sink count`, encoding alone.
    #[arg(long)]
    pub prebuilt: bool,
    /// Rows per row group [default: parquet's 1,048,576]. Every writer holds a whole row
    /// group's encoded pages until it closes.
    #[arg(long, value_name = "ROWS")]
    pub row_group_rows: Option<usize>,
    /// Closed row groups that may still be encoding while the next one fills (parallel writer)
    /// [default: 2].
    #[arg(long, value_name = "N")]
    pub row_groups_in_flight: Option<usize>,
    /// MiB of Arrow data that may wait for the encoders before writing blocks (parallel writer)
    /// [default: 32].
    #[arg(long, value_name = "MIB")]
    pub writer_budget_mib: Option<usize>,
    /// Count heap allocations, bytes allocated and peak live heap (reported per row; slows
    /// every allocation, so time runs without it).
    #[arg(long)]
    pub count_allocations: bool,
    /// Count perf events on every thread of the run, summed by role (producers, encoders,
    /// writers, main, and io: threads already running, such as an object store client's): CPU
    /// time, context switches and page faults always; IPC, cache and branch
    /// misses where the PMU allows. Reported after the run and in --json
    #[arg(long)]
    pub counters: bool,
    /// Print one JSON line of metrics instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// How `--list` prints the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    /// Aligned columns: number, slug, the study's figure, summary.
    Text,
    /// A Markdown table: number, slug, summary.
    Markdown,
    /// Markdown, entry by entry: what each changes in the code and why, the workloads it acts
    /// on and the optimizations it needs.
    Details,
}

impl Cli {
    /// The run this command line asks for.
    pub fn request(&self) -> RunRequest {
        RunRequest {
            experiment: self.experiment,
            enable: self.enable.clone(),
            disable: self.disable.clone(),
            rows: self.rows,
            batch_size: self.batch_size,
            producers: self.producers,
            writers: self.writers,
            seed: self.seed,
            compression: self.compression,
            skew: SkewConfig {
                name_zipf_exponent: self.zipf_exponent.unwrap_or(1.0),
                ..SkewConfig::default()
            },
            spec: self.spec.clone(),
            verify: self.verify,
            part: self.part,
            parts: self.parts,
            milestones: self.milestones,
            sync: self.sync,
            sink: self.sink,
            prebuilt: self.prebuilt,
            count_allocations: self.count_allocations,
            counters: self.counters,
            row_group_rows: self.row_group_rows,
            row_groups_in_flight: self.row_groups_in_flight,
            writer_budget_mib: self.writer_budget_mib,
        }
    }
}
