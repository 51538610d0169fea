//! A column cut down to some of its leaves, so that parquet's `compute_leaves` walks only the
//! nesting of the leaves `ArrowColumnWriter` writes when the native encoder writes the others.
//!
//! The levels of a leaf depend only on the nodes on its path, so they are the same in the cut
//! column. A map keeps both its keys and its values (Arrow has no map of one of them).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, FixedSizeListArray, GenericListArray, StructArray};
use arrow_schema::{DataType, Field, FieldRef, Fields};

use super::shape::Nesting;

/// `field` and `array` with only the leaves `keep` marks (in leaf order), and the indices of
/// the leaves the cut column has; `None` when nothing is kept or the nesting cannot be cut.
pub(crate) fn project(
    field: &Field,
    array: &ArrayRef,
    keep: &[bool],
) -> Option<(Field, ArrayRef, Vec<usize>)> {
    let mut next = 0;
    let mut kept = Vec::new();
    let (field, array) = cut(field, array, keep, &mut next, &mut kept)?;
    Some((field, array, kept))
}

/// Cuts one node; `next` is the index of its first leaf, advanced past its leaves.
fn cut(
    field: &Field,
    array: &ArrayRef,
    keep: &[bool],
    next: &mut usize,
    kept: &mut Vec<usize>,
) -> Option<(Field, ArrayRef)> {
    match (Nesting::of(field.data_type())?, field.data_type()) {
        (Nesting::Leaf, _) | (_, DataType::Map(_, _)) => {
            let leaves = count_leaves(field);
            let range = *next..*next + leaves;
            *next += leaves;
            keep[range.clone()].contains(&true).then(|| {
                kept.extend(range);
                (field.clone(), array.clone())
            })
        }
        (Nesting::Struct, DataType::Struct(children)) => {
            let array = array.as_struct();
            let mut fields: Vec<FieldRef> = Vec::new();
            let mut columns = Vec::new();
            for (child, column) in children.iter().zip(array.columns()) {
                if let Some((f, c)) = cut(child, column, keep, next, kept) {
                    fields.push(Arc::new(f));
                    columns.push(c);
                }
            }
            if fields.is_empty() {
                return None;
            }
            let fields = Fields::from(fields);
            let cut = StructArray::try_new(fields.clone(), columns, array.nulls().cloned()).ok()?;
            Some((
                field.clone().with_data_type(DataType::Struct(fields)),
                Arc::new(cut),
            ))
        }
        (Nesting::List(child), data_type) => {
            cut_list(field, data_type, &child, array, keep, next, kept)
        }
        _ => None,
    }
}

fn cut_list(
    field: &Field,
    data_type: &DataType,
    child: &FieldRef,
    array: &ArrayRef,
    keep: &[bool],
    next: &mut usize,
    kept: &mut Vec<usize>,
) -> Option<(Field, ArrayRef)> {
    let (child_array, nulls) = match data_type {
        DataType::LargeList(_) => (array.as_list::<i64>().values().clone(), array.nulls()),
        DataType::FixedSizeList(_, _) => {
            (array.as_fixed_size_list().values().clone(), array.nulls())
        }
        _ => (array.as_list::<i32>().values().clone(), array.nulls()),
    };
    let (child_field, child_cut) = cut(child, &child_array, keep, next, kept)?;
    let child_field = Arc::new(child_field);
    let nulls = nulls.cloned();
    let (data_type, cut): (DataType, ArrayRef) = match data_type {
        DataType::LargeList(_) => {
            let offsets = array.as_list::<i64>().offsets().clone();
            let list =
                GenericListArray::<i64>::try_new(child_field.clone(), offsets, child_cut, nulls)
                    .ok()?;
            (DataType::LargeList(child_field), Arc::new(list))
        }
        DataType::FixedSizeList(_, size) => {
            // The length given, since a list of size 0 has no child rows to tell it.
            let list = FixedSizeListArray::try_new_with_length(
                child_field.clone(),
                *size,
                child_cut,
                nulls,
                array.len(),
            )
            .ok()?;
            (DataType::FixedSizeList(child_field, *size), Arc::new(list))
        }
        _ => {
            let offsets = array.as_list::<i32>().offsets().clone();
            let list =
                GenericListArray::<i32>::try_new(child_field.clone(), offsets, child_cut, nulls)
                    .ok()?;
            (DataType::List(child_field), Arc::new(list))
        }
    };
    Some((field.clone().with_data_type(data_type), cut))
}

/// The leaf columns of `field`, as parquet's schema has them.
fn count_leaves(field: &Field) -> usize {
    match field.data_type() {
        DataType::Struct(children) => children.iter().map(|c| count_leaves(c)).sum(),
        DataType::List(child)
        | DataType::LargeList(child)
        | DataType::FixedSizeList(child, _)
        | DataType::Map(child, _) => count_leaves(child),
        _ => 1,
    }
}
