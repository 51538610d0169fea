//! `--enable` and `--disable` on top of an experiment, and the allocator the result runs on.

use super::RunRequest;
use crate::alloc::Allocator;
use crate::catalog::Optimization;
use crate::error::PipelineError;
use crate::optimizations::Optimizations;

/// The optimizations that each put the process on another allocator than the system's.
const ALLOCATORS: [(Optimization, Allocator); 2] = [
    (Optimization::Mimalloc, Allocator::Mimalloc),
    (Optimization::Jemalloc, Allocator::Jemalloc),
];

fn is_allocator(o: Optimization) -> bool {
    ALLOCATORS.iter().any(|(allocator, _)| *allocator == o)
}

/// The allocator `optimizations` need: the one their allocator optimization names (at most one
/// is on, see [`switch_optimizations`]), else the system's.
pub(super) fn allocator_of(optimizations: Optimizations) -> Allocator {
    ALLOCATORS
        .iter()
        .find(|(o, _)| optimizations.has(*o))
        .map_or(Allocator::System, |(_, allocator)| *allocator)
}

/// Applies `--enable` and `--disable` to the experiment's `optimizations`. An optimization
/// named by both, or two allocators enabled, is a contradiction and refused; an allocator
/// enabled replaces the experiment's, since a process runs on one.
pub(super) fn switch_optimizations(
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
