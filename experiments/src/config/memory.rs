//! How much a run's writers may hold: row-group size, row groups in flight, the queue's budget,
//! and the batch size when none is asked for.

use super::{RunRequest, MAX_THREADS};
use crate::catalog::Optimization;
use crate::error::PipelineError;
use crate::optimizations::Optimizations;
use crate::properties::WriterMemory;

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

/// Files written at once when `--writers` is not given: 1 with the parallel writer, else
/// max(2, cores / 2) with sized thread pools, 2 with two writers, else 1.
pub(super) fn default_writers(optimizations: Optimizations, cores: usize) -> usize {
    if optimizations.has(Optimization::ParallelWriter) {
        1
    } else if optimizations.has(Optimization::SizedThreadPools) {
        (cores / 2).max(2)
    } else if optimizations.has(Optimization::TwoWriters) {
        2
    } else {
        1
    }
}

/// Refuses the settings fused row groups have no use for, naming what to use instead.
pub(super) fn check_fused(request: &RunRequest) -> Result<(), PipelineError> {
    if request.writer_budget_mib.is_some() {
        return Err(PipelineError::NotWithFusedRowGroups(
            "--writer-budget-mib bounds the parallel writer's queue, which fused row groups do not have: bound their memory with --row-group-rows and --row-groups-in-flight",
        ));
    }
    Ok(())
}

/// The writer's memory settings: the request's, else the experiment's defaults; each checked
/// against its range and against the writer that uses it.
pub(super) fn resolve_writer_memory(
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
