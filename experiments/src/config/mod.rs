//! A pipeline run's configuration as plain data, resolved once from the request and the catalog.

use std::path::PathBuf;
use std::sync::Arc;

use shredlab_generator::SkewConfig;

use crate::alloc::Allocator;
use crate::batches::BatchRanges;
use crate::catalog::Optimization;
use crate::compression::CompressionSpec;
use crate::error::PipelineError;
use crate::optimizations::Optimizations;
use crate::output::{SinkKind, SyncMode};
use crate::properties::WriterMemory;
use crate::shard::Shard;
use crate::workload::SpecWorkload;

/// Loads the spec workload at `path` for `request`, and takes the experiment's contacts-only
/// optimizations out of `optimizations`; asking for one explicitly is an error.
fn spec_workload(
    request: &RunRequest,
    path: &std::path::Path,
    optimizations: &mut Optimizations,
) -> Result<SpecWorkload, PipelineError> {
    if request.skew != SkewConfig::default() {
        return Err(PipelineError::SkewWithSpec);
    }
    let asked: Vec<&'static str> = request
        .enable
        .iter()
        .filter(|o| o.contacts_only())
        .map(|o| o.slug())
        .collect();
    if !asked.is_empty() {
        return Err(PipelineError::ContactsOnly(asked));
    }
    Optimization::ALL
        .iter()
        .filter(|o| o.contacts_only())
        .for_each(|o| optimizations.disable(*o));
    SpecWorkload::load(path, request.seed)
}

/// The most rows one batch may hold. Arrow addresses a `Utf8` column's bytes with 32-bit offsets;
/// at 2^24 rows every contacts column stays far below that 2 GiB limit.
pub const MAX_BATCH_ROWS: usize = 1 << 24;

/// The most producer or writer threads one run may start: far beyond any useful count, and low
/// enough that the operating system can create them.
pub const MAX_THREADS: usize = 1024;

/// What the user asked for; `None` means "the experiment's default".
#[derive(Debug, Clone, PartialEq)]
pub struct RunRequest {
    /// Experiment number from the catalog.
    pub experiment: u32,
    /// Optimizations switched on on top of the experiment.
    pub enable: Vec<Optimization>,
    /// Optimizations switched off.
    pub disable: Vec<Optimization>,
    /// Rows to generate.
    pub rows: u64,
    /// Rows per batch.
    pub batch_size: Option<usize>,
    /// Producer threads.
    pub producers: Option<usize>,
    /// Writer threads (and files).
    pub writers: Option<usize>,
    /// Seed of the data.
    pub seed: u64,
    /// Parquet compression.
    pub compression: CompressionSpec,
    /// Skew of the contacts.
    pub skew: SkewConfig,
    /// A spec file to generate instead of the contacts.
    pub spec: Option<PathBuf>,
    /// Digest the data as produced and as read back, and compare.
    pub verify: bool,
    /// Shard index (0-based) of this process.
    pub part: u64,
    /// Number of shards the rows are split into.
    pub parts: u64,
    /// Report time and memory every this many rows written.
    pub milestones: Option<u64>,
    /// Whether files are synced at the commit.
    pub sync: SyncMode,
    /// Where the batches go.
    pub sink: SinkKind,
    /// Build every batch before the clock starts.
    pub prebuilt: bool,
    /// Count heap allocations (slows every allocation).
    pub count_allocations: bool,
    /// Count perf events per thread, by role.
    pub counters: bool,
    /// Rows per row group (default: parquet's).
    pub row_group_rows: Option<usize>,
    /// Closed row groups still encoding while the next fills (parallel writer only).
    pub row_groups_in_flight: Option<usize>,
    /// MiB of Arrow data that may wait for the encoders (parallel writer only).
    pub writer_budget_mib: Option<usize>,
}

impl Default for RunRequest {
    fn default() -> Self {
        Self {
            experiment: 0,
            enable: Vec::new(),
            disable: Vec::new(),
            rows: 10_000_000,
            batch_size: None,
            producers: None,
            writers: None,
            seed: 42,
            compression: CompressionSpec::None,
            skew: SkewConfig::default(),
            spec: None,
            verify: false,
            part: 0,
            parts: 1,
            milestones: None,
            sync: SyncMode::End,
            sink: SinkKind::File,
            prebuilt: false,
            count_allocations: false,
            counters: false,
            row_group_rows: None,
            row_groups_in_flight: None,
            writer_budget_mib: None,
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
    /// Encoding threads of each writer's pool, with the parallel writer.
    pub encoder_threads: usize,
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
    /// Count perf events per thread, by role (`--counters`).
    pub counters: bool,
    /// Row-group size and the parallel writer's memory settings.
    pub writer_memory: WriterMemory,
}

impl PipelineConfig {
    /// Resolves `request` against the catalog for a machine with `cores` CPUs.
    pub fn resolve(request: &RunRequest, cores: usize) -> Result<Self, PipelineError> {
        let mut optimizations = Optimizations::for_experiment(request.experiment)?;
        switch_optimizations(request, &mut optimizations)?;
        let spec = match &request.spec {
            Some(path) => Some(Arc::new(spec_workload(request, path, &mut optimizations)?)),
            None => {
                request.skew.validate()?;
                request.skew.check_rows(request.rows)?;
                None
            }
        };
        let cores = cores.max(1);
        let default_writers = if optimizations.has(Optimization::ParallelWriter) {
            1
        } else if optimizations.has(Optimization::SizedThreadPools) {
            (cores / 2).max(2)
        } else if optimizations.has(Optimization::TwoWriters) {
            2
        } else {
            1
        };
        let default_batch = default_batch_rows(optimizations);
        let config = Self {
            experiment: request.experiment,
            optimizations,
            rows: request.rows,
            batch_size: request.batch_size.unwrap_or(default_batch),
            producers: request.producers.unwrap_or(cores),
            writers: request.writers.unwrap_or(default_writers),
            encoder_threads: 0,
            seed: request.seed,
            compression: request.compression,
            skew: request.skew.clone(),
            spec,
            verify: request.verify,
            shard: Shard::try_new(request.part, request.parts)?,
            milestones: request.milestones,
            sync: request.sync,
            sink: request.sink,
            prebuilt: request.prebuilt,
            count_allocations: request.count_allocations,
            counters: request.counters,
            writer_memory: resolve_writer_memory(request, optimizations)?,
        };
        if config.optimizations.has(Optimization::FusedRowGroups) {
            check_fused(request)?;
        }
        if config.verify && config.sink != SinkKind::File {
            return Err(PipelineError::VerifyWithoutFiles);
        }
        for (flag, value, max) in [
            ("rows", config.rows, u64::MAX),
            (
                "batch-size",
                config.batch_size as u64,
                MAX_BATCH_ROWS as u64,
            ),
            ("producers", config.producers as u64, MAX_THREADS as u64),
            ("writers", config.writers as u64, MAX_THREADS as u64),
            ("milestones", config.milestones.unwrap_or(1), u64::MAX),
        ] {
            if value == 0 {
                return Err(PipelineError::Zero(flag));
            }
            if value > max {
                return Err(PipelineError::TooLarge { flag, value, max });
            }
        }
        if let Some(spec) = &config.spec {
            spec.check_batch_rows(config.batch_size)?;
        }
        if config.batch_count() == 0 {
            return Err(PipelineError::EmptyShard {
                part: config.shard.index(),
                parts: config.shard.count(),
                rows: config.rows,
            });
        }
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
            encoder_threads: (cores / writers).max(2),
            ..config
        })
    }

    /// The allocator the run needs: the one its allocator optimization names (at most one is
    /// on, see [`switch_optimizations`]), else the system's.
    pub fn allocator(&self) -> Allocator {
        ALLOCATORS
            .iter()
            .find(|(o, _)| self.optimizations.has(*o))
            .map_or(Allocator::System, |(_, allocator)| *allocator)
    }

    /// Bytes between early-writeback requests of each output file, when that is on.
    pub fn writeback_step(&self) -> Option<u64> {
        self.optimizations
            .has(Optimization::EarlyWriteback)
            .then_some(WRITEBACK_STEP)
    }

    /// Bytes each output file reserves ahead of its writes, when preallocation is on.
    pub fn preallocation_step(&self) -> Option<u64> {
        self.optimizations
            .acts(Optimization::PreallocatedFiles)
            .then_some(PREALLOCATION_STEP)
    }

    /// Bytes of each of a file's two direct-write buffers, when direct writes are on.
    pub fn direct_write_buffer(&self) -> Option<usize> {
        self.optimizations
            .has(Optimization::DirectWrites)
            .then_some(DIRECT_WRITE_BUFFER_BYTES)
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

/// Bytes between early-writeback requests of a file (experiment 20 on): the kernel starts
/// writing each 8 MiB to disk while the next is produced, so the final sync waits only for the
/// tail.
pub const WRITEBACK_STEP: u64 = 8 << 20;

/// Bytes of disk blocks each output file reserves ahead of its writes (experiment 35 on): a
/// reservation every 64 MiB is 5 `fallocate` calls for a 10 M-row file, and holds at most
/// 64 MiB per file beyond what is written until the commit gives it back.
pub const PREALLOCATION_STEP: u64 = 64 << 20;

/// Bytes of each of a file's two direct-write buffers (experiment 31 on): large enough that
/// the disk takes each in one request, small enough that two per file stay well inside the
/// memory target.
pub const DIRECT_WRITE_BUFFER_BYTES: usize = 4 << 20;

/// The optimizations that each put the process on another allocator than the system's.
const ALLOCATORS: [(Optimization, Allocator); 2] = [
    (Optimization::Mimalloc, Allocator::Mimalloc),
    (Optimization::Jemalloc, Allocator::Jemalloc),
];

fn is_allocator(o: Optimization) -> bool {
    ALLOCATORS.iter().any(|(allocator, _)| *allocator == o)
}

/// Applies `--enable` and `--disable` to the experiment's `optimizations`. An optimization
/// named by both, or two allocators enabled, is a contradiction and refused; an allocator
/// enabled replaces the experiment's, since a process runs on one.
fn switch_optimizations(
    request: &RunRequest,
    optimizations: &mut Optimizations,
) -> Result<(), PipelineError> {
    if let Some(both) = request.enable.iter().find(|o| request.disable.contains(o)) {
        return Err(PipelineError::EnabledAndDisabled(both.slug()));
    }
    let mut allocators: Vec<&'static str> = request
        .enable
        .iter()
        .filter(|o| is_allocator(**o))
        .map(|o| o.slug())
        .collect();
    allocators.sort_unstable();
    allocators.dedup();
    if allocators.len() > 1 {
        return Err(PipelineError::TwoAllocators(allocators));
    }
    for &o in &request.enable {
        if is_allocator(o) {
            ALLOCATORS
                .iter()
                .for_each(|(allocator, _)| optimizations.disable(*allocator));
        }
        optimizations.enable(o);
    }
    request
        .disable
        .iter()
        .for_each(|o| optimizations.disable(*o));
    Ok(())
}

/// The largest `--writer-budget-mib`: 1 TiB.
const MAX_BUDGET_MIB: usize = 1 << 20;

/// Rows per batch when none are asked for: 16,384 with large batches (experiment 19 on), 4,096
/// with thread-local builders, else 1,024.
pub fn default_batch_rows(optimizations: Optimizations) -> usize {
    if optimizations.has(Optimization::LargeBatches) {
        16_384
    } else if optimizations.has(Optimization::ThreadLocalBuilders) {
        4096
    } else {
        1024
    }
}

/// The writer's memory settings: the request's, else the defaults.
/// Refuses the settings fused row groups have no use for, naming what to use instead.
fn check_fused(request: &RunRequest) -> Result<(), PipelineError> {
    if request.writer_budget_mib.is_some() {
        return Err(PipelineError::NotWithFusedRowGroups(
            "--writer-budget-mib bounds the parallel writer's queue, which fused row groups do not have: bound their memory with --row-group-rows and --row-groups-in-flight",
        ));
    }
    Ok(())
}

fn resolve_writer_memory(
    request: &RunRequest,
    optimizations: Optimizations,
) -> Result<WriterMemory, PipelineError> {
    let defaults = if optimizations.has(Optimization::BoundedWriterMemory) {
        WriterMemory::bounded()
    } else {
        WriterMemory::upstream_defaults()
    };
    let parallel = optimizations.has(Optimization::ParallelWriter);
    for (flag, value, max, parallel_only) in [
        ("row-group-rows", request.row_group_rows, usize::MAX, false),
        (
            "row-groups-in-flight",
            request.row_groups_in_flight,
            MAX_THREADS,
            true,
        ),
        (
            "writer-budget-mib",
            request.writer_budget_mib,
            MAX_BUDGET_MIB,
            true,
        ),
    ] {
        let Some(value) = value else { continue };
        if value == 0 {
            return Err(PipelineError::Zero(flag));
        }
        if value > max {
            return Err(PipelineError::TooLarge {
                flag,
                value: value as u64,
                max: max as u64,
            });
        }
        if parallel_only && !parallel {
            return Err(PipelineError::ParallelWriterOnly(flag));
        }
    }
    Ok(WriterMemory {
        row_group_rows: request.row_group_rows.unwrap_or(defaults.row_group_rows),
        row_groups_in_flight: request
            .row_groups_in_flight
            .unwrap_or(defaults.row_groups_in_flight),
        budget_bytes: request
            .writer_budget_mib
            .map_or(defaults.budget_bytes, |mib| mib << 20),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn experiment_defaults_follow_the_catalog() {
        let at = |experiment| {
            let request = RunRequest {
                experiment,
                ..RunRequest::default()
            };
            PipelineConfig::resolve(&request, 8).unwrap()
        };
        assert_eq!(
            (at(0).writers, at(0).batch_size, at(0).producers),
            (1, 1024, 8)
        );
        assert_eq!(at(5).writers, 2);
        assert_eq!(at(7).writers, 4);
        assert_eq!(at(8).batch_size, 4096);
        assert_eq!((at(17).writers, at(17).encoder_threads), (1, 8));
        assert_eq!(at(19).batch_size, 16_384);
    }

    #[test]
    fn explicit_values_win_and_zero_is_rejected() {
        let request = RunRequest {
            writers: Some(3),
            batch_size: Some(10),
            ..RunRequest::default()
        };
        let config = PipelineConfig::resolve(&request, 2).unwrap();
        assert_eq!((config.writers, config.batch_size), (3, 10));
        for bad in [
            RunRequest {
                rows: 0,
                ..RunRequest::default()
            },
            RunRequest {
                producers: Some(0),
                ..RunRequest::default()
            },
            RunRequest {
                writers: Some(0),
                ..RunRequest::default()
            },
            RunRequest {
                batch_size: Some(0),
                ..RunRequest::default()
            },
        ] {
            let err = PipelineConfig::resolve(&bad, 2).unwrap_err().to_string();
            assert!(err.contains("must be at least 1"), "{err}");
        }
    }

    #[test]
    fn an_enabled_allocator_replaces_the_experiment_s_and_two_are_refused() {
        let allocator = |experiment, enable: &[Optimization]| {
            let request = RunRequest {
                experiment,
                enable: enable.to_vec(),
                ..RunRequest::default()
            };
            PipelineConfig::resolve(&request, 2).map(|c| c.allocator())
        };
        use Optimization::{Jemalloc, Mimalloc};
        assert_eq!(allocator(16, &[]).unwrap(), Allocator::Mimalloc);
        assert_eq!(allocator(16, &[Jemalloc]).unwrap(), Allocator::Jemalloc);
        assert_eq!(allocator(23, &[Mimalloc]).unwrap(), Allocator::Mimalloc);
        assert_eq!(
            allocator(0, &[Mimalloc, Mimalloc]).unwrap(),
            Allocator::Mimalloc
        );
        let err = allocator(0, &[Jemalloc, Mimalloc]).unwrap_err().to_string();
        assert!(err.starts_with("--enable jemalloc,mimalloc: "), "{err}");
    }

    #[test]
    fn an_optimization_both_enabled_and_disabled_is_refused() {
        let request = RunRequest {
            enable: vec![Optimization::LargeBatches],
            disable: vec![Optimization::LargeBatches],
            ..RunRequest::default()
        };
        let err = PipelineConfig::resolve(&request, 2)
            .unwrap_err()
            .to_string();
        assert!(err.contains("both name large-batches"), "{err}");
    }

    #[test]
    fn batches_cover_rows_exactly() {
        let request = RunRequest {
            rows: 10,
            batch_size: Some(4),
            ..RunRequest::default()
        };
        let config = PipelineConfig::resolve(&request, 2).unwrap();
        assert_eq!(config.batch_count(), 3);
        assert_eq!(config.batch_rows(2), 8..10);
        let sharded = RunRequest {
            rows: 10,
            batch_size: Some(4),
            part: 1,
            parts: 2,
            ..RunRequest::default()
        };
        let config = PipelineConfig::resolve(&sharded, 2).unwrap();
        assert_eq!(
            (
                config.batch_count(),
                config.batch_rows(0),
                config.batch_rows(1)
            ),
            (2, 5..9, 9..10)
        );
    }
}
