//! A leaf's values without its nesting: the array at the end of the leaf's path through
//! structs, lists and maps, with its NULLs dropped, written as a required top-level column.
//! Encoding it costs the values and the pages but no levels.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BooleanArray};
use arrow_schema::{ArrowError, DataType, Field};
use arrow_select::filter::filter;

/// The non-null values of the leaf reached from `array` by `path` (the Arrow field names
/// below the top-level field; list and map levels add none of their own).
pub fn leaf_values(array: &ArrayRef, path: &[&str]) -> Result<ArrayRef, ArrowError> {
    let inner = descend(array, path)?;
    match inner.logical_nulls() {
        None => Ok(inner),
        Some(nulls) => filter(&inner, &BooleanArray::new(nulls.inner().clone(), None)),
    }
}

fn descend(array: &ArrayRef, path: &[&str]) -> Result<ArrayRef, ArrowError> {
    match array.data_type() {
        DataType::Struct(_) => {
            let (name, rest) = path
                .split_first()
                .ok_or_else(|| ArrowError::SchemaError("a struct path ends early".into()))?;
            let child = array.as_struct().column_by_name(name).ok_or_else(|| {
                ArrowError::SchemaError(format!("no struct field {name} on the leaf's path"))
            })?;
            descend(child, rest)
        }
        DataType::List(_) => descend(array.as_list::<i32>().values(), path),
        DataType::LargeList(_) => descend(array.as_list::<i64>().values(), path),
        DataType::FixedSizeList(..) => descend(array.as_fixed_size_list().values(), path),
        DataType::Map(..) => {
            let entries: ArrayRef = std::sync::Arc::new(array.as_map().entries().clone());
            descend(&entries, path)
        }
        _ => Ok(array.clone()),
    }
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
