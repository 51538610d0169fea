//! Taking the buffers of a finished batch back as capacity for the next one. A batch's buffers
//! are reclaimed only when nothing else holds them; otherwise they are simply dropped.

use arrow_array::builder::{PrimitiveBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::UInt8Type;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_buffer::{Buffer, MutableBuffer};

/// The array behind `array` if this was its last reference.
fn owned<T: Array + Clone + 'static>(
    array: ArrayRef,
    downcast: impl Fn(&dyn Array) -> Option<&T>,
) -> Option<T> {
    let concrete = downcast(array.as_ref())?.clone();
    // The clone shares the buffers; dropping the original leaves the clone as their only owner.
    drop(array);
    Some(concrete)
}

/// `buffer`'s allocation as an empty `Vec<T>` with its capacity, if the buffer is unshared.
pub(crate) fn reclaim_vec<T: arrow_buffer::ArrowNativeType>(buffer: Buffer) -> Option<Vec<T>> {
    let mut vec = buffer.into_vec::<T>().ok()?;
    vec.clear();
    Some(vec)
}

/// The offsets and value allocations of a string array, emptied, if nothing else holds them.
pub(crate) fn reclaim_string_vecs(array: ArrayRef) -> Option<(Vec<i32>, Vec<u8>)> {
    let (offsets, values, _) = owned(array, |a| a.as_string_opt::<i32>())?.into_parts();
    let offsets = reclaim_vec::<i32>(offsets.into_inner().into_inner())?;
    let values = reclaim_vec::<u8>(values)?;
    Some((offsets, values))
}

/// An empty string builder that reuses the offsets and value allocations of `array`.
pub(crate) fn reclaim_strings(array: ArrayRef) -> Option<StringBuilder> {
    let (mut offsets, values) = reclaim_string_vecs(array)?;
    offsets.push(0);
    // SAFETY: a single zero offset over an empty value buffer is a valid, empty string array.
    Some(unsafe {
        StringBuilder::new_from_buffer(
            MutableBuffer::from(offsets),
            MutableBuffer::from(values),
            None,
        )
    })
}

/// The key allocation of a `Dictionary(UInt8, _)` array, emptied, if nothing else holds it.
pub(crate) fn reclaim_key_vec(array: ArrayRef) -> Option<Vec<u8>> {
    let (keys, _) = owned(array, |a| a.as_dictionary_opt::<UInt8Type>())?.into_parts();
    let (_, values, _) = keys.into_parts();
    reclaim_vec::<u8>(values.into_inner())
}

/// An empty `u8` builder that reuses the key allocation of a `Dictionary(UInt8, _)` array.
pub(crate) fn reclaim_keys(array: ArrayRef) -> Option<PrimitiveBuilder<UInt8Type>> {
    let values = reclaim_key_vec(array)?;
    Some(PrimitiveBuilder::new_from_buffer(
        MutableBuffer::from(values),
        None,
    ))
}

/// What can be taken back from a batch of contacts: its `name` column, and where the `phones`
/// list was unshared, the list's offsets allocation and its `number` and `phone_type` columns.
pub(crate) struct ContactParts {
    /// The `name` column.
    pub names: ArrayRef,
    /// The emptied allocation of the list's offsets, where nothing else held it.
    pub list_offsets: Option<Vec<i32>>,
    /// The phones' `number` column, where the list and its struct were unshared.
    pub numbers: Option<ArrayRef>,
    /// The phones' `phone_type` column, likewise.
    pub phone_types: Option<ArrayRef>,
}

/// `batch`'s columns, as [`ContactParts`]; `None` for a batch without the contacts' two columns.
pub(crate) fn split_contacts(batch: RecordBatch) -> Option<ContactParts> {
    let (_, mut columns, _) = batch.into_parts();
    let (phones, names) = (columns.pop()?, columns.pop()?);
    let mut parts = ContactParts {
        names,
        list_offsets: None,
        numbers: None,
        phone_types: None,
    };
    if let Some((_, offsets, values, _)) =
        owned(phones, |a| a.as_list_opt::<i32>()).map(|list| list.into_parts())
    {
        parts.list_offsets = reclaim_vec::<i32>(offsets.into_inner().into_inner());
        if let Some((_, mut children, _)) =
            owned(values, |a| a.as_struct_opt()).map(|phones| phones.into_parts())
        {
            parts.phone_types = children.pop();
            parts.numbers = children.pop();
        }
    }
    Some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow_array::builder::ArrayBuilder;
    use arrow_array::StringArray;

    fn built(values: &[&str]) -> ArrayRef {
        let mut builder = StringBuilder::new();
        values.iter().for_each(|v| builder.append_value(v));
        Arc::new(builder.finish())
    }

    #[test]
    fn unshared_strings_come_back_empty_with_their_capacity() {
        let array = built(&["alpha", "beta"]);
        let mut builder = reclaim_strings(array).expect("unshared");
        assert_eq!(builder.len(), 0);
        builder.append_value("gamma");
        assert_eq!(builder.finish().value(0), "gamma");
    }

    #[test]
    fn shared_or_foreign_buffers_are_left_alone() {
        let array = built(&["alpha"]);
        let keep = Arc::clone(&array);
        assert!(reclaim_strings(array).is_none());
        assert_eq!(keep.len(), 1);
        // Buffers not allocated as a Vec (64-byte aligned MutableBuffers) cannot be reclaimed.
        let foreign: ArrayRef = Arc::new(StringArray::from_iter_values(["alpha"]));
        assert!(reclaim_strings(foreign).is_none());
    }
}
