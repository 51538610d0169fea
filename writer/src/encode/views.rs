//! [`ViewValues`]: the values of Arrow's view arrays (`Utf8View`, `BinaryView`) read where they
//! lie, for the native pages: parquet writes the same bytes for a view array as for the offsets
//! array of the same values, and measures them against a page's byte budget by the same
//! lengths.
//!
//! A view is 16 bytes: its value's length, then the value itself if it is at most 12 bytes
//! long, or else its first 4 bytes, the index of the data buffer that holds it and its offset
//! there, in any order. Copying every value behind offsets first (as a `LargeBinary` array)
//! cost what the native pages saved for a flat view column; read in place, each value is one
//! slice of the views or of a data buffer.

use std::borrow::Cow;
use std::ops::Range;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::Buffer;
use arrow_schema::DataType;

use super::positions::Selection;

/// Whether `data_type` is a view array of bytes or strings.
pub(crate) fn is_view(data_type: &DataType) -> bool {
    matches!(data_type, DataType::Utf8View | DataType::BinaryView)
}

/// The bytes of one view.
const VIEW: usize = 16;

/// The longest value a view holds inline.
const INLINE: usize = 12;

/// The selected values of a view array.
#[derive(Debug)]
pub(crate) struct ViewValues<'a> {
    /// The selected views, [`VIEW`] bytes each: the array's own for a run of them, gathered
    /// for scattered positions.
    views: Cow<'a, [u8]>,
    /// The array's data buffers, which the views of longer values point into.
    buffers: &'a [Buffer],
}

impl<'a> ViewValues<'a> {
    /// The values of `array` at `selection`'s positions, if `array` is a view array.
    pub(crate) fn of(array: &'a ArrayRef, selection: &Selection<'_>) -> Option<Self> {
        let (views, buffers) = match array.data_type() {
            DataType::Utf8View => {
                let strings = array.as_string_view();
                (strings.views(), strings.data_buffers())
            }
            DataType::BinaryView => {
                let bytes = array.as_binary_view();
                (bytes.views(), bytes.data_buffers())
            }
            _ => return None,
        };
        let all = views.inner().as_slice();
        let views = match selection {
            Selection::Run(run) => Cow::Borrowed(&all[run.start * VIEW..run.end * VIEW]),
            Selection::Scattered(at) => {
                let mut gathered = Vec::with_capacity(at.len() * VIEW);
                for &position in *at {
                    gathered.extend_from_slice(&all[position * VIEW..][..VIEW]);
                }
                Cow::Owned(gathered)
            }
        };
        Some(Self { views, buffers })
    }

    /// The length of value `value`.
    #[inline(always)]
    pub(crate) fn length(&self, value: usize) -> usize {
        word(&self.views, value * VIEW)
    }

    /// Where value `value` lies: in its own view, or in the data buffer it points into.
    #[inline(always)]
    pub(crate) fn location(&self, value: usize) -> (&[u8], Range<usize>) {
        let at = value * VIEW;
        let len = word(&self.views, at);
        match len <= INLINE {
            true => (&self.views, at + 4..at + 4 + len),
            false => {
                let start = word(&self.views, at + 12);
                (&self.buffers[word(&self.views, at + 8)], start..start + len)
            }
        }
    }

    /// The bytes of value `value`.
    #[inline(always)]
    pub(crate) fn bytes(&self, value: usize) -> &[u8] {
        let (data, span) = self.location(value);
        &data[span]
    }

    /// The total length of the values in `range`.
    pub(crate) fn total(&self, range: Range<usize>) -> usize {
        range.map(|value| self.length(value)).sum()
    }
}

/// The little-endian 32-bit word at `at` in `view`.
#[inline(always)]
fn word(view: &[u8], at: usize) -> usize {
    let bytes = [view[at], view[at + 1], view[at + 2], view[at + 3]];
    u32::from_le_bytes(bytes) as usize
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{BinaryViewArray, StringViewArray};

    use super::*;
    use crate::encode::plain::PlainValues;
    use crate::encode::positions::Positions;

    const LONG: &str = "a string longer than twelve bytes";

    /// Strings short and long, with a NULL.
    fn strings() -> ArrayRef {
        Arc::new(StringViewArray::from_iter([
            Some("short"),
            None,
            Some(LONG),
            Some(""),
        ]))
    }

    /// A `BYTE_ARRAY` leaf of no nesting.
    fn byte_array_leaf() -> parquet::schema::types::ColumnDescriptor {
        use parquet::schema::types::{ColumnDescriptor, ColumnPath, Type};
        let leaf = Type::primitive_type_builder("c", parquet::basic::Type::BYTE_ARRAY)
            .build()
            .unwrap();
        ColumnDescriptor::new(Arc::new(leaf), 0, 0, ColumnPath::new(vec!["c".into()]))
    }

    /// A view array's values go into a page as an offsets array's do, each after its length,
    /// short ones inline and long ones from the data buffer, at the positions selected.
    #[test]
    fn views_append_as_plain_byte_arrays() {
        let strings = strings();
        let values =
            PlainValues::of(&strings, &Positions::Listed(vec![0, 2]), &byte_array_leaf()).unwrap();
        let mut page = Vec::new();
        assert_eq!(values.append(0..2, &mut page), (5 + LONG.len()) as i64);
        let mut expected = 5u32.to_le_bytes().to_vec();
        expected.extend_from_slice(b"short");
        expected.extend_from_slice(&(LONG.len() as u32).to_le_bytes());
        expected.extend_from_slice(LONG.as_bytes());
        assert_eq!(page, expected);
    }

    /// A budget is counted as parquet counts it: each value's length and 4 bytes, up to and
    /// including the first value that goes over.
    #[test]
    fn the_page_budget_counts_lengths_and_prefixes() {
        let strings: ArrayRef = Arc::new(StringViewArray::from_iter_values(["abc", "de", "f"]));
        let values = PlainValues::of(&strings, &Positions::Run(0..3), &byte_array_leaf()).unwrap();
        assert_eq!(values.count_within(0..3, 100), 3);
        assert_eq!(values.count_within(0..3, 6), 1);
        assert_eq!(values.count_within(0..3, 7), 2);
        assert_eq!(values.count_within(0..3, 12), 2);
        assert_eq!(values.count_within(0..3, 13), 3);
    }

    /// Short values read from their views, long ones from the data buffers, at the positions
    /// selected, run or scattered, and sliced arrays from their offset.
    #[test]
    fn values_read_in_place_at_the_selected_positions() {
        let long = LONG;
        let strings = strings();
        let run = ViewValues::of(&strings, &Selection::Run(2..4)).unwrap();
        assert_eq!((run.bytes(0), run.bytes(1)), (long.as_bytes(), &b""[..]));
        let scattered = ViewValues::of(&strings, &Selection::Scattered(&[0, 2])).unwrap();
        assert_eq!(scattered.bytes(0), b"short");
        assert_eq!(scattered.bytes(1), long.as_bytes());
        assert_eq!(scattered.total(0..2), 5 + long.len());
        let sliced: ArrayRef = Arc::new(
            BinaryViewArray::from_iter_values([b"x".as_slice(), long.as_bytes(), b"yz"])
                .slice(1, 2),
        );
        let values = ViewValues::of(&sliced, &Selection::Run(0..2)).unwrap();
        assert_eq!(
            (values.bytes(0), values.bytes(1)),
            (long.as_bytes(), &b"yz"[..])
        );
    }

    #[test]
    fn other_arrays_are_not_views() {
        let strings: ArrayRef = Arc::new(arrow_array::StringArray::from(vec!["a"]));
        assert!(ViewValues::of(&strings, &Selection::Run(0..1)).is_none());
    }
}
