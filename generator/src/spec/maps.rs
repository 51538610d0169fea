//! What a map column needs to be generated: unsorted keys that are drawn distinct within
//! each map.

use arrow_schema::DataType;

use super::error::error;
use super::{Distribution, FieldSpec, Params, SpecError};

/// Fails unless the map `spec` can be generated: keys unsorted, and drawn distinct.
pub(super) fn check_map(spec: &FieldSpec, sorted: bool) -> Result<(), SpecError> {
    if sorted {
        return Err(error(
            &spec.path,
            "maps with keysSorted are not generated: set keysSorted to false",
        ));
    }
    let key = spec.children.first().and_then(|e| e.children.first());
    if let Some(key) = key.filter(|k| cut_sequence(k)) {
        return Err(error(
            &key.path,
            "sequential fixedsizebinary keys are cut to the width, and cut keys repeat: use a utf8 or binary key",
        ));
    }
    if !key.is_some_and(|k| draws_distinct_keys(&k.params)) {
        return Err(error(
            &spec.path,
            "a map's keys must be distinct within each map: give the key values, cardinality or vocabulary, or make it unique, or sequential with a step of at least 1 (or -1)",
        ));
    }
    Ok(())
}

/// Whether `key` is a sequence of strings cut to a fixed width, whose keys repeat once the
/// numbers pass it: compared by their numbers, they would count as distinct.
fn cut_sequence(key: &FieldSpec) -> bool {
    matches!(key.field.data_type(), DataType::FixedSizeBinary(_))
        && matches!(key.params.distribution, Distribution::Sequential { .. })
}

/// Whether values drawn under `params` can serve as a map's keys: from a vocabulary (then
/// deduplicated within each map), unique, or sequential with steps of at least 1.
fn draws_distinct_keys(params: &Params) -> bool {
    params.draws_from_vocabulary()
        || params.unique
        || matches!(params.distribution, Distribution::Sequential { step } if step.abs() >= 1.0)
}
