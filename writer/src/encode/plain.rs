//! [`PlainValues`]: one batch's values of a leaf in parquet's `PLAIN` encoding, ready to be
//! copied into pages a range at a time: fixed-width values as little-endian bytes, byte arrays
//! as a 4-byte length and the bytes, read straight from the Arrow buffers.

use std::ops::Range;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, OffsetSizeTrait};
use arrow_schema::DataType;
use parquet::basic::Type as PhysicalType;
use parquet::errors::{ParquetError, Result};

use super::values::{fixed_width_values, FixedWidth};

/// Whether [`PlainValues`] encodes leaves of the physical type `physical`.
pub(crate) fn supported(physical: PhysicalType) -> bool {
    matches!(
        physical,
        PhysicalType::INT32
            | PhysicalType::INT64
            | PhysicalType::FLOAT
            | PhysicalType::DOUBLE
            | PhysicalType::BYTE_ARRAY
    )
}

/// A batch's values of one leaf, in the order its levels carry them.
#[derive(Debug)]
pub(crate) enum PlainValues<'a> {
    /// Values of `width` bytes each, encoded.
    Fixed { bytes: Vec<u8>, width: usize },
    /// Byte arrays: each value's range in `data`.
    Variable {
        spans: Vec<Range<usize>>,
        data: &'a [u8],
    },
}

impl<'a> PlainValues<'a> {
    /// The values of `array` at the positions `at`, for a leaf of type `physical`.
    ///
    /// # Errors
    ///
    /// An Arrow type the encoder does not write as `physical`.
    pub(crate) fn of(array: &'a ArrayRef, at: &[usize], physical: PhysicalType) -> Result<Self> {
        if physical != PhysicalType::BYTE_ARRAY {
            return Ok(match fixed_width_values(array, at, physical)? {
                FixedWidth::Int32(values) => fixed(&values, i32::to_le_bytes),
                FixedWidth::Int64(values) => fixed(&values, i64::to_le_bytes),
                FixedWidth::Float(values) => fixed(&values, f32::to_le_bytes),
                FixedWidth::Double(values) => fixed(&values, f64::to_le_bytes),
            });
        }
        let (spans, data) = match array.data_type() {
            DataType::Utf8 => {
                let strings = array.as_string::<i32>();
                (
                    spans(strings.value_offsets(), at),
                    strings.values().as_slice(),
                )
            }
            DataType::LargeUtf8 => {
                let strings = array.as_string::<i64>();
                (
                    spans(strings.value_offsets(), at),
                    strings.values().as_slice(),
                )
            }
            DataType::Binary => {
                let binary = array.as_binary::<i32>();
                (
                    spans(binary.value_offsets(), at),
                    binary.values().as_slice(),
                )
            }
            DataType::LargeBinary => {
                let binary = array.as_binary::<i64>();
                (
                    spans(binary.value_offsets(), at),
                    binary.values().as_slice(),
                )
            }
            other => {
                return Err(ParquetError::NYI(format!(
                    "{other} as BYTE_ARRAY in the native encoder"
                )))
            }
        };
        Ok(Self::Variable { spans, data })
    }

    /// How many of the values in `range`, from its start, fit in `budget` encoded bytes: all of
    /// them, or the count up to and including the first that goes over (at least one). This is
    /// `ArrowColumnWriter`'s measure for cutting a mini-batch short of a page's byte limit.
    pub(crate) fn count_within(&self, range: Range<usize>, budget: usize) -> usize {
        match self {
            Self::Fixed { width, .. } => (budget / width).max(1).min(range.len()),
            Self::Variable { spans, .. } => {
                let mut total = 0usize;
                for (index, span) in spans[range.clone()].iter().enumerate() {
                    total = total.saturating_add(span.len() + 4);
                    if total > budget {
                        return index + 1;
                    }
                }
                range.len()
            }
        }
    }

    /// Appends the values in `range` to `page`, returning their unencoded byte-array length
    /// (0 for fixed-width values).
    pub(crate) fn append(&self, range: Range<usize>, page: &mut Vec<u8>) -> i64 {
        match self {
            Self::Fixed { bytes, width } => {
                page.extend_from_slice(&bytes[range.start * width..range.end * width]);
                0
            }
            Self::Variable { spans, data } => {
                let spans = &spans[range];
                let total: usize = spans.iter().map(Range::len).sum();
                page.reserve(total + 4 * spans.len());
                for span in spans {
                    page.extend_from_slice(&(span.len() as u32).to_le_bytes());
                    page.extend_from_slice(&data[span.clone()]);
                }
                total as i64
            }
        }
    }
}

fn fixed<'a, T: Copy, const N: usize>(values: &[T], encode: fn(T) -> [u8; N]) -> PlainValues<'a> {
    let mut bytes = Vec::with_capacity(values.len() * N);
    for &value in values {
        bytes.extend_from_slice(&encode(value));
    }
    PlainValues::Fixed { bytes, width: N }
}

fn spans<O: OffsetSizeTrait>(offsets: &[O], at: &[usize]) -> Vec<Range<usize>> {
    at.iter()
        .map(|&i| offsets[i].as_usize()..offsets[i + 1].as_usize())
        .collect()
}
