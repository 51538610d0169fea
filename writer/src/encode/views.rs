//! Arrow's view arrays (`Utf8View`, `BinaryView`) for the native pages: each value copied once
//! into one buffer behind 64-bit offsets, so that every byte-array step (`PLAIN` copies,
//! dictionary, statistics, page budgets) reads them as it reads `LargeBinary`.
//!
//! A view holds a short value inline and a longer one as a slice of one of several buffers, in
//! any order; parquet writes the same bytes for a view array as for the offsets array of the
//! same values, and measures them against a page's byte budget by the same lengths.

use std::borrow::Cow;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, LargeBinaryArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::DataType;

/// Whether `data_type` is a view array of bytes or strings.
pub(crate) fn is_view(data_type: &DataType) -> bool {
    matches!(data_type, DataType::Utf8View | DataType::BinaryView)
}

/// `array` with a view array's values in one buffer, in order, each at its own position and
/// nulls kept; any other array as it is.
pub(crate) fn contiguous(array: &ArrayRef) -> Cow<'_, ArrayRef> {
    let copied = match array.data_type() {
        DataType::Utf8View => {
            let strings = array.as_string_view();
            copy(strings.views(), strings.data_buffers(), strings.nulls())
        }
        DataType::BinaryView => {
            let bytes = array.as_binary_view();
            copy(bytes.views(), bytes.data_buffers(), bytes.nulls())
        }
        _ => return Cow::Borrowed(array),
    };
    Cow::Owned(copied)
}

/// The values of `views` (over the data buffers `buffers`), one after the other behind 64-bit
/// offsets, read straight from each view: going through the array's values one `Option` at
/// a time into a builder cost more than the native encoder then saved.
fn copy(views: &[u128], buffers: &[Buffer], nulls: Option<&NullBuffer>) -> ArrayRef {
    // A view's low 32 bits are its value's length; up to 12 bytes follow it inline, a longer
    // value lies in the buffer and at the offset its last two 32-bit words say.
    let bytes: usize = views.iter().map(|&view| view as u32 as usize).sum();
    let mut data = Vec::with_capacity(bytes + INLINE);
    let mut offsets = Vec::with_capacity(views.len() + 1);
    offsets.push(0i64);
    for (index, &view) in views.iter().enumerate() {
        // A null's view may hold anything: it is not read.
        if nulls.is_none_or(|nulls| nulls.is_valid(index)) {
            let len = view as u32 as usize;
            match len <= INLINE {
                // All 12 inline bytes, then cut back: a copy of known size, not a call.
                true => {
                    let end = data.len() + len;
                    data.extend_from_slice(&view.to_le_bytes()[4..]);
                    data.truncate(end);
                }
                false => {
                    let buffer = &buffers[(view >> 64) as u32 as usize];
                    let start = (view >> 96) as u32 as usize;
                    data.extend_from_slice(&buffer[start..start + len]);
                }
            }
        }
        offsets.push(data.len() as i64);
    }
    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
    Arc::new(LargeBinaryArray::new(
        offsets,
        Buffer::from(data),
        nulls.cloned(),
    ))
}

/// The longest value a view holds inline.
const INLINE: usize = 12;

#[cfg(test)]
mod tests {
    use arrow_array::{BinaryViewArray, StringViewArray};

    use super::*;

    #[test]
    fn views_become_offsets_with_every_value_in_place() {
        let long = "a string longer than twelve bytes";
        let strings: ArrayRef = Arc::new(StringViewArray::from_iter([
            Some("short"),
            None,
            Some(long),
            Some(""),
        ]));
        let copied = contiguous(&strings);
        let copied = copied.as_binary::<i64>();
        assert_eq!(copied.len(), 4);
        assert_eq!(copied.value(0), b"short");
        assert!(copied.is_null(1));
        assert_eq!(copied.value(2), long.as_bytes());
        assert_eq!(copied.value(3), b"");
        let sliced: ArrayRef = Arc::new(
            BinaryViewArray::from_iter_values([b"x".as_slice(), long.as_bytes(), b"yz"])
                .slice(1, 2),
        );
        let copied = contiguous(&sliced);
        let copied = copied.as_binary::<i64>();
        assert_eq!(copied.value(0), long.as_bytes());
        assert_eq!(copied.value(1), b"yz");
    }

    #[test]
    fn other_arrays_are_borrowed() {
        let strings: ArrayRef = Arc::new(arrow_array::StringArray::from(vec!["a"]));
        assert!(matches!(contiguous(&strings), Cow::Borrowed(_)));
    }
}
