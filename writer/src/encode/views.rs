//! Arrow's view arrays (`Utf8View`, `BinaryView`) for the native pages: each value copied once
//! into one buffer behind 64-bit offsets, so that every byte-array step (`PLAIN` copies,
//! dictionary, statistics, page budgets) reads them as it reads `LargeBinary`.
//!
//! A view holds a short value inline and a longer one as a slice of one of several buffers, in
//! any order; parquet writes the same bytes for a view array as for the offsets array of the
//! same values, and measures them against a page's byte budget by the same lengths.

use std::borrow::Cow;
use std::sync::Arc;

use arrow_array::builder::LargeBinaryBuilder;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
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
            let values = strings.iter().map(|value| value.map(str::as_bytes));
            copy(strings.views(), values)
        }
        DataType::BinaryView => {
            let bytes = array.as_binary_view();
            copy(bytes.views(), bytes.iter())
        }
        _ => return Cow::Borrowed(array),
    };
    Cow::Owned(copied)
}

/// The `values` of the views `views`, one after the other behind 64-bit offsets.
fn copy<'a>(views: &[u128], values: impl Iterator<Item = Option<&'a [u8]>>) -> ArrayRef {
    // A view's low 32 bits are its value's length.
    let bytes = views.iter().map(|&view| view as u32 as usize).sum();
    let mut builder = LargeBinaryBuilder::with_capacity(views.len(), bytes);
    values.for_each(|value| builder.append_option(value));
    Arc::new(builder.finish())
}

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
