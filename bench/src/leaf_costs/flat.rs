//! A leaf's values without its nesting: the values the nested writer encodes for the leaf (not
//! those under a NULL struct or list, nor outside a list's offsets, nor NULL themselves),
//! written as a required top-level column. Encoding it costs the values and the pages but no
//! levels.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BooleanArray, OffsetSizeTrait};
use arrow_schema::{ArrowError, DataType, Field};
use arrow_select::filter::filter;

/// The values of the leaf reached from `array` by `path` (the struct field names below the
/// top-level field, as [`leaf_paths`] gives them) that the nested writer encodes.
pub fn leaf_values(array: &ArrayRef, path: &[&str]) -> Result<ArrayRef, ArrowError> {
    let reachable = vec![true; array.len()];
    let (leaf, reachable) = descend(array, reachable, path)?;
    let keep = and_valid(&leaf, reachable);
    filter(&leaf, &BooleanArray::from(keep))
}

/// `reachable` with the slots of `array` that are NULL cleared.
fn and_valid(array: &ArrayRef, mut reachable: Vec<bool>) -> Vec<bool> {
    if let Some(nulls) = array.logical_nulls() {
        for (slot, valid) in reachable.iter_mut().zip(nulls.iter()) {
            *slot &= valid;
        }
    }
    reachable
}

/// The leaf array below `array` along `path`, and which of its slots are reachable through
/// valid ancestors (`reachable` says it for the slots of `array`).
fn descend(
    array: &ArrayRef,
    reachable: Vec<bool>,
    path: &[&str],
) -> Result<(ArrayRef, Vec<bool>), ArrowError> {
    match array.data_type() {
        DataType::Struct(_) => {
            let (name, rest) = path
                .split_first()
                .ok_or_else(|| ArrowError::SchemaError("a struct path ends early".into()))?;
            let child = array.as_struct().column_by_name(name).ok_or_else(|| {
                ArrowError::SchemaError(format!("no struct field {name} on the leaf's path"))
            })?;
            descend(child, and_valid(array, reachable), rest)
        }
        DataType::List(_) => list(array, array.as_list::<i32>(), reachable, path),
        DataType::LargeList(_) => list(array, array.as_list::<i64>(), reachable, path),
        DataType::FixedSizeList(..) => {
            let lists = array.as_fixed_size_list();
            let ranges = (0..lists.len()).map(|i| {
                let start = lists.value_offset_at(i);
                start..start + lists.value_length() as usize
            });
            let reachable = child_slots(array, reachable, ranges, lists.values().len());
            descend(lists.values(), reachable, path)
        }
        DataType::Map(..) => {
            let maps = array.as_map();
            let ranges = maps
                .offsets()
                .windows(2)
                .map(|w| w[0] as usize..w[1] as usize);
            let entries: ArrayRef = std::sync::Arc::new(maps.entries().clone());
            let reachable = child_slots(array, reachable, ranges, entries.len());
            descend(&entries, reachable, path)
        }
        _ => Ok((array.clone(), reachable)),
    }
}

fn list<O: OffsetSizeTrait>(
    array: &ArrayRef,
    lists: &arrow_array::GenericListArray<O>,
    reachable: Vec<bool>,
    path: &[&str],
) -> Result<(ArrayRef, Vec<bool>), ArrowError> {
    let ranges = lists
        .offsets()
        .windows(2)
        .map(|w| w[0].as_usize()..w[1].as_usize());
    let reachable = child_slots(array, reachable, ranges, lists.values().len());
    descend(lists.values(), reachable, path)
}

/// The child slots reachable through the valid, reachable slots of `parent`, whose slot `i`
/// spans `ranges[i]` of a child of `child_len` slots.
fn child_slots(
    parent: &ArrayRef,
    reachable: Vec<bool>,
    ranges: impl Iterator<Item = std::ops::Range<usize>>,
    child_len: usize,
) -> Vec<bool> {
    let parents = and_valid(parent, reachable);
    let mut child = vec![false; child_len];
    for (range, reached) in ranges.zip(parents) {
        if reached {
            child[range].fill(true);
        }
    }
    child
}

/// The paths [`leaf_values`] takes for each leaf under `field`, in Parquet's column order
/// (depth first): the struct field names on the way, lists and maps adding none.
pub fn leaf_paths(field: &Field) -> Vec<Vec<String>> {
    match field.data_type() {
        DataType::Struct(children) => children
            .iter()
            .flat_map(|child| {
                leaf_paths(child).into_iter().map(|mut path| {
                    path.insert(0, child.name().clone());
                    path
                })
            })
            .collect(),
        DataType::List(item)
        | DataType::LargeList(item)
        | DataType::FixedSizeList(item, _)
        | DataType::Map(item, _) => leaf_paths(item),
        _ => vec![Vec::new()],
    }
}
