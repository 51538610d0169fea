//! A spec workload for a run: loaded from its file, with the contacts-only optimizations left out.

use std::path::Path;

use shredlab_generator::SkewConfig;

use super::RunRequest;
use crate::catalog::Optimization;
use crate::error::PipelineError;
use crate::optimizations::Optimizations;
use crate::workload::SpecWorkload;

/// Loads the spec workload at `path` for `request`, and takes the experiment's contacts-only
/// optimizations out of `optimizations`; asking for one explicitly is an error.
pub(super) fn spec_workload(
    request: &RunRequest,
    path: &Path,
    optimizations: &mut Optimizations,
) -> Result<SpecWorkload, PipelineError> {
    if request.skew() != SkewConfig::default() {
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
    SpecWorkload::load(path, request.seed, optimizations.spec_paths())
}
