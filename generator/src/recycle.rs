//! Taking the buffers of a finished batch back as capacity for the next one. A batch's buffers
//! are reclaimed only when nothing else holds them; otherwise they are simply dropped.

use arrow_array::builder::{PrimitiveBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::UInt8Type;
use arrow_array::{Array, ArrayRef};
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

/// An empty string builder that reuses the offsets and value allocations of `array`.
pub(crate) fn reclaim_strings(array: ArrayRef) -> Option<StringBuilder> {
    let (offsets, values, _) = owned(array, |a| a.as_string_opt::<i32>())?.into_parts();
    let mut offsets = reclaim_vec::<i32>(offsets.into_inner().into_inner())?;
    let values = reclaim_vec::<u8>(values)?;
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

/// An empty `u8` builder that reuses the key allocation of a `Dictionary(UInt8, _)` array.
pub(crate) fn reclaim_keys(array: ArrayRef) -> Option<PrimitiveBuilder<UInt8Type>> {
    let (keys, _) = owned(array, |a| a.as_dictionary_opt::<UInt8Type>())?.into_parts();
    let (_, values, _) = keys.into_parts();
    let values = reclaim_vec::<u8>(values.into_inner())?;
    Some(PrimitiveBuilder::new_from_buffer(
        MutableBuffer::from(values),
        None,
    ))
}

/// The parts of a `List<Struct<a, b>>` array: its offsets allocation and the two child arrays.
pub(crate) fn split_phones(array: ArrayRef) -> Option<(Option<Vec<i32>>, ArrayRef, ArrayRef)> {
    let (_, offsets, values, _) = owned(array, |a| a.as_list_opt::<i32>())?.into_parts();
    let offsets = reclaim_vec::<i32>(offsets.into_inner().into_inner());
    let (_, mut children, _) = owned(values, |a| a.as_struct_opt())?.into_parts();
    let second = children.pop()?;
    let first = children.pop()?;
    Some((offsets, first, second))
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
