//! A pipeline run's configuration: what the user asked for ([`RunRequest`], the command line's
//! settings, each with its one default) and the run resolved from it and the catalog
//! ([`PipelineConfig`]). Spec loading, optimization switching, writer memory and file options
//! each have a module of their own.

mod files;
mod memory;
mod spec;
mod switching;
mod timeline_path;

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use parquet::file::properties::WriterProperties;
use shredlab_generator::SkewConfig;
use shredlab_writer::FileOptions;

use crate::alloc::Allocator;
use crate::batches::BatchRanges;
use crate::catalog::{newest_experiment, Optimization};
use crate::column_writing::ColumnSettings;
use crate::compression::CompressionSpec;
use crate::error::PipelineError;
use crate::optimizations::Optimizations;
use crate::output::{SinkKind, SyncMode};
use crate::properties::{writer_properties_with, WriterMemory};
use crate::shard::Shard;
use crate::workload::SpecWorkload;
use timeline_path::check_timeline_path;
pub use timeline_path::refuse_timeline_at_output;

pub use files::{
    file_options, newest_file_options, DIRECT_WRITE_BUFFER_BYTES, PREALLOCATION_STEP,
    WRITEBACK_STEP,
};
pub use memory::default_batch_rows;

/// The most rows one batch may hold. Arrow addresses a `Utf8` column's bytes with 32-bit offsets;
/// at 2^24 rows every contacts column stays far below that 2 GiB limit.
pub const MAX_BATCH_ROWS: usize = 1 << 24;

/// The most generating or writing threads one run may start: far beyond any useful count, and
/// low enough that the operating system can create them.
pub const MAX_THREADS: usize = 1024;

/// The seed of the generated data when none is given: the CLI's and the Python package's.
pub const DEFAULT_SEED: u64 = 42;

/// Rows generated when no count is given.
pub const DEFAULT_ROWS: u64 = 10_000_000;

/// What the user asked for: the run's settings, each with its one default. `pipeline`'s command
/// line is this type (clap's derive), and [`RunRequest::default`] is an empty command line, so
/// the library, the tests and the CLI share every default. `None` means "the experiment's
/// default".
#[derive(Debug, Clone, PartialEq, Args)]
pub struct RunRequest {
    /// Experiment number: the baseline plus optimizations 1..=N (see --list). The default is the
    /// newest entry: the fastest configuration, with byte-reproducible files.
    #[arg(long, short = 'e', default_value_t = newest_experiment())]
    pub experiment: u32,
    /// Switch optimizations on, on top of the experiment (comma-separated slugs); an allocator
    /// enabled replaces the experiment's.
    #[arg(long, value_delimiter = ',')]
    pub enable: Vec<Optimization>,
    /// Switch optimizations off (comma-separated slugs).
    #[arg(long, value_delimiter = ',')]
    pub disable: Vec<Optimization>,
    /// Rows to generate.
    #[arg(long, short = 'n', default_value_t = DEFAULT_ROWS)]
    pub rows: u64,
    /// Rows per batch [default: 1024, 4096 from experiment 8, 16384 from experiment 19].
    #[arg(long)]
    pub batch_size: Option<usize>,
    /// Generating threads: fused workers from experiment 28, producers before it [default:
    /// available CPUs].
    #[arg(long)]
    pub producers: Option<usize>,
    /// Files written at once: one writer thread each before experiment 28; from 28 the files
    /// the fused workers' row groups go to [default: set by the experiment].
    #[arg(long)]
    pub writers: Option<usize>,
    /// Seed of the generated data.
    #[arg(long, default_value_t = DEFAULT_SEED)]
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
    /// Count heap allocations, bytes allocated and peak live heap (reported per row; slows
    /// every allocation, so time runs without it).
    #[arg(long)]
    pub count_allocations: bool,
    /// Count perf events on every thread of the run, summed by role (producers, encoders,
    /// writers, fused, main, and io: threads already running, such as an object store
    /// client's): CPU time, context switches and page faults always; IPC, cache and branch
    /// misses where the PMU allows. Reported after the run and in --json.
    #[arg(long)]
    pub counters: bool,
    /// Write every thread's phases (generate, encode, append, wait, ...) as intervals to FILE,
    /// as CSV: thread, role, phase, start and end in ns from the run's start, rows.
    #[arg(long, value_name = "FILE")]
    pub timeline: Option<PathBuf>,
    /// Rows per row group [default: parquet's 1,048,576; 262,144 from experiment 21]. Every
    /// writer holds a whole row group's encoded pages until it closes.
    #[arg(long, value_name = "ROWS")]
    pub row_group_rows: Option<usize>,
    /// Row groups that may be encoding at once: closed ones behind the one filling (the
    /// parallel writer), or ones claimed by fused workers and not yet appended (from 28)
    /// [default: 2; 1 from experiment 21].
    #[arg(long, value_name = "N")]
    pub row_groups_in_flight: Option<usize>,
    /// MiB of Arrow data that may wait for the encoders before writing blocks (the parallel
    /// writer before experiment 28; refused from 28, whose fused workers have no queue)
    /// [default: 32; 8 from experiment 21].
    #[arg(long, value_name = "MIB")]
    pub writer_budget_mib: Option<usize>,
}

impl Default for RunRequest {
    /// An empty command line: every setting at its one default.
    fn default() -> Self {
        use clap::FromArgMatches;
        let command = Self::augment_args(clap::Command::new("pipeline"));
        let matches = command.get_matches_from(["pipeline"]);
        Self::from_arg_matches(&matches).expect("an empty command line is a valid request")
    }
}

impl RunRequest {
    /// The contacts' skew this request asks for.
    pub fn skew(&self) -> SkewConfig {
        SkewConfig {
            name_zipf_exponent: self.zipf_exponent.unwrap_or(1.0),
            ..SkewConfig::default()
        }
    }
}

/// A fully resolved, validated run.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineConfig {
    /// Experiment number.
    pub experiment: u32,
    /// The optimizations in force.
    pub optimizations: Optimizations,
    /// Rows to generate.
    pub rows: u64,
    /// Rows per batch.
    pub batch_size: usize,
    /// Producer threads.
    pub producers: usize,
    /// Writer threads, one file each.
    pub writers: usize,
    /// Threads of each parallel writer's encoder pool (experiments 17 to 27).
    pub pool_threads: usize,
    /// Seed of the data.
    pub seed: u64,
    /// Parquet compression.
    pub compression: CompressionSpec,
    /// Skew of the contacts.
    pub skew: SkewConfig,
    /// The spec workload generated instead of the contacts, if any.
    pub spec: Option<Arc<SpecWorkload>>,
    /// Whether to run the data gate.
    pub verify: bool,
    /// The slice of the rows this process generates.
    pub shard: Shard,
    /// Report time and memory every this many rows written.
    pub milestones: Option<u64>,
    /// Whether files are synced at the commit.
    pub sync: SyncMode,
    /// Where the batches go.
    pub sink: SinkKind,
    /// Build every batch before the clock starts, so the run times what follows generation.
    pub prebuilt: bool,
    /// Count heap allocations (slows every allocation).
    pub count_allocations: bool,
    /// Count perf events per thread, by role and phase (`--counters`).
    pub counters: bool,
    /// Where to write every thread's phase intervals (`--timeline`).
    pub timeline: Option<PathBuf>,
    /// Row-group size and the parallel writer's memory settings.
    pub writer_memory: WriterMemory,
}

impl PipelineConfig {
    /// The properties the run's files are written with: the experiment's, with the settings
    /// its spec file gives its columns over them.
    pub fn writer_properties(&self) -> WriterProperties {
        let columns = self.spec.as_ref().map(|spec| spec.columns());
        writer_properties_with(
            self.optimizations,
            self.compression,
            &self.writer_memory,
            columns.unwrap_or(&ColumnSettings::new()),
        )
    }

    /// Resolves `request` against the catalog for a machine with `cores` CPUs.
    pub fn resolve(request: &RunRequest, cores: usize) -> Result<Self, PipelineError> {
        let mut optimizations = Optimizations::for_experiment(request.experiment)?;
        switching::switch_optimizations(request, &mut optimizations)?;
        let spec = match &request.spec {
            Some(path) => Some(Arc::new(spec::spec_workload(
                request,
                path,
                &mut optimizations,
            )?)),
            None => {
                let skew = request.skew();
                skew.validate()?;
                skew.check_rows(request.rows)?;
                None
            }
        };
        let cores = cores.max(1);
        let default_writers = memory::default_writers(optimizations, cores);
        let default_batch = default_batch_rows(optimizations);
        let config = Self {
            experiment: request.experiment,
            optimizations,
            rows: request.rows,
            batch_size: request.batch_size.unwrap_or(default_batch),
            producers: request.producers.unwrap_or(cores),
            writers: request.writers.unwrap_or(default_writers),
            pool_threads: 0,
            seed: request.seed,
            compression: request.compression,
            skew: request.skew(),
            spec,
            verify: request.verify,
            shard: Shard::try_new(request.part, request.parts)?,
            milestones: request.milestones,
            sync: request.sync,
            sink: request.sink,
            prebuilt: request.prebuilt,
            count_allocations: request.count_allocations,
            counters: request.counters,
            timeline: request.timeline.clone(),
            writer_memory: memory::resolve_writer_memory(request, optimizations)?,
        };
        if config.optimizations.has(Optimization::FusedRowGroups) {
            memory::check_fused(request)?;
        }
        config.check()?;
        // A writer without a batch (with fused row groups, without a row group) would write an
        // empty file.
        let batches = config.batches();
        let units = if config.optimizations.has(Optimization::FusedRowGroups) {
            batches.group_count()
        } else {
            batches.count()
        };
        let writers = config.writers.min(units as usize);
        Ok(Self {
            writers,
            pool_threads: (cores / writers).max(2),
            ..config
        })
    }

    /// Refuses a resolved run that cannot be carried out: a count of zero or past its limit, a
    /// gate without files, a batch too large for the spec's columns, a shard without rows.
    fn check(&self) -> Result<(), PipelineError> {
        if self.verify && self.sink != SinkKind::File {
            return Err(PipelineError::VerifyWithoutFiles);
        }
        for (flag, value, max) in [
            ("rows", self.rows, u64::MAX),
            ("batch-size", self.batch_size as u64, MAX_BATCH_ROWS as u64),
            ("producers", self.producers as u64, MAX_THREADS as u64),
            ("writers", self.writers as u64, MAX_THREADS as u64),
            ("milestones", self.milestones.unwrap_or(1), u64::MAX),
        ] {
            if value == 0 {
                return Err(PipelineError::Zero(flag));
            }
            if value > max {
                return Err(PipelineError::TooLarge { flag, value, max });
            }
        }
        if let Some(spec) = &self.spec {
            spec.check_batch_rows(self.batch_size)?;
        }
        if let Some(path) = &self.timeline {
            check_timeline_path(path)?;
        }
        if self.batch_count() == 0 {
            return Err(PipelineError::EmptyShard {
                part: self.shard.index(),
                parts: self.shard.count(),
                rows: self.rows,
            });
        }
        Ok(())
    }

    /// The allocator the run needs: the one its allocator optimization names, else the system's.
    pub fn allocator(&self) -> Allocator {
        switching::allocator_of(self.optimizations)
    }

    /// How the run's output files are written to disk.
    pub fn file_options(&self) -> FileOptions {
        files::file_options(self.optimizations)
    }

    /// The rows this process generates: its shard of `rows`.
    pub fn shard_rows(&self) -> std::ops::Range<u64> {
        self.shard.rows(self.rows)
    }

    /// The shard's rows cut into batches of `batch_size`; with fused row groups, inside row
    /// groups of `row_group_rows`, since each row group is generated where it is encoded.
    pub fn batches(&self) -> BatchRanges {
        if self.optimizations.has(Optimization::FusedRowGroups) {
            let group_rows = self.writer_memory.row_group_rows as u64;
            BatchRanges::in_row_groups(self.shard_rows(), self.batch_size, group_rows)
        } else {
            BatchRanges::new(self.shard_rows(), self.batch_size)
        }
    }

    /// Number of batches.
    pub fn batch_count(&self) -> u64 {
        self.batches().count()
    }

    /// Rows of batch `index`; empty past the last batch.
    pub fn batch_rows(&self, index: u64) -> std::ops::Range<u64> {
        self.batches().rows_of(index)
    }
}

#[cfg(test)]
mod tests;
